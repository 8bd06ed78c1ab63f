/*
 * gcg_main.c — the `gcg` command: run a compiled .gcg artifact.
 *
 *   gcg match ART.gcg [FILE]     does FILE (or stdin) match the grammar?
 *   gcg mask ART.gcg [--tokens "ID ..." | --text STRING] [--count]
 *   gcg replay ART.gcg TRACES    check token traces against the masks, time them
 *   gcg info ART.gcg             metadata, sections and certificate
 *
 * Exit status (the same scheme as gcgc): 0 ok (match: complete), 1 errors
 * in the input (an artifact or file that cannot be read, a malformed trace)
 * or rejected (match: reject, mask: a token not allowed, replay:
 * violations), 2 usage; match alone uses 3 for "prefix".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "artifact.h"
#include "gcg.h"
#include "gss_dot.h"

#define EXIT_ERRORS 1 /* input errors and rejections         */
#define EXIT_REJECT 1
#define EXIT_USAGE 2
#define EXIT_PREFIX 3 /* match only: not complete, not rejected */
#define MATCH_CHUNK (64 * 1024)
#define CONTINUE (-1) /* "no exit status yet" from helpers that may end a command */

static const char USAGE[] =
    "usage: gcg COMMAND ART.gcg [ARGS]\n"
    "\n"
    "Runs grammar artifacts compiled by gcgc.\n"
    "\n"
    "commands:\n"
    "  match ART.gcg [FILE] [--dot F]  does FILE (default stdin) match? complete/prefix/reject N\n"
    "  mask ART.gcg [options]          the tokens allowed after some tokens or text\n"
    "  replay ART.gcg TRACES           check token traces against the masks, time the masks\n"
    "  info ART.gcg                    metadata, sections and latency certificate\n"
    "\n"
    "Every command takes --vocab MODEL.gcgv: the prepared vocabulary (gcgc vocab)\n"
    "an artifact compiled with --vocab-ref needs.\n"
    "\n"
    "  gcg COMMAND --help    details of a command\n"
    "  gcg --version         print the version\n"
    "\n"
    "match, mask and replay take --lazy: on an artifact compiled with triggers, run it\n"
    "as a lazy grammar (free text until a trigger fires; gcg.h, \"Lazy grammars\").\n"
    "\n"
    "exit status: 0 ok, 1 errors in the input or rejected, 2 usage\n"
    "(match: 0 complete, 1 reject, 3 prefix). ART.gcg may be a regular file or a\n"
    "pipe (read fully into memory), not a directory.\n";

static const char USAGE_MATCH[] =
    "usage: gcg match ART.gcg [FILE] [--dot OUT.dot | --lazy]\n"
    "\n"
    "Feeds the bytes of FILE (stdin when absent or \"-\") to the grammar and prints one\n"
    "line: \"complete\" (a whole sentence), \"prefix\" (can still be completed) or\n"
    "\"reject N\" (N = 0-based offset of the first byte that cannot be consumed).\n"
    "\n"
    "options:\n"
    "  --dot OUT.dot    write the graph-structured stack after the text (after the\n"
    "                   accepted bytes on a reject) as a Graphviz graph\n"
    "  --lazy           the artifact's triggers decide where the grammar starts: the\n"
    "                   text before is free (an artifact compiled with --trigger-*)\n"
    "  -h, --help       this help\n"
    "\n"
    "exit status: 0 complete, 1 reject or an unreadable artifact/file, 2 usage,\n"
    "3 prefix\n";

static const char USAGE_MASK[] =
    "usage: gcg mask ART.gcg [--tokens \"ID ID ...\" | --text STRING] [--count]\n"
    "                [--lazy [--budget N]]\n"
    "\n"
    "Commits the tokens (or the bytes of the text), then prints the ids of the tokens\n"
    "allowed next, ascending, on one line.\n"
    "\n"
    "options:\n"
    "  --tokens \"ID ...\"   token ids to commit first, separated by spaces\n"
    "  --text STRING       text to commit first, as bytes\n"
    "  --count             print only the number of allowed tokens\n"
    "  --lazy              run as a lazy grammar (an artifact compiled with --trigger-*):\n"
    "                      every token is allowed until a trigger fires\n"
    "  --budget N          with --lazy: after N free tokens, force the first trigger word\n"
    "                      or token (a reasoning budget)\n"
    "  --forced            print the bytes every continuation must start with\n"
    "  -h, --help          this help\n"
    "\n"
    "exit status: 0 ok, 1 a token or the text is not allowed, or an artifact error,\n"
    "2 usage\n";

static const char USAGE_REPLAY[] =
    "usage: gcg replay ART.gcg TRACES [--lazy [--budget N]]\n"
    "\n"
    "Each line of TRACES is a sequence of token ids separated by spaces. At every\n"
    "step the mask is filled (and timed) and the next token must be in it. Prints\n"
    "per line: \"line N: steps S, violations V, complete|incomplete\", then totals and\n"
    "the mean/p50/p99/max mask time in microseconds. A violation ends its line.\n"
    "TRACES must be a readable file (or a pipe); a line holding a NUL byte or\n"
    "anything but ids is an error naming the line.\n"
    "--lazy and --budget N: as for gcg mask (each line starts in free text).\n"
    "\n"
    "exit status: 0 no violation, 1 violations or an input error, 2 usage\n";

static const char USAGE_INFO[] =
    "usage: gcg info ART.gcg\n"
    "\n"
    "Prints the grammar, the vocabulary, every section with its size, the total\n"
    "size and the latency certificate of an artifact.\n"
    "\n"
    "exit status: 0 ok, 1 artifact error, 2 usage\n";

/* The arguments of one subcommand. */
typedef struct cli_args {
    const char *pos[2];   /* positional arguments: artifact, then FILE/TRACES */
    int n_pos;
    const char *tokens;   /* mask --tokens */
    const char *text;     /* mask --text   */
    bool count;           /* mask --count  */
    const char *dot;      /* match --dot   */
    const char *vocab;    /* --vocab MODEL.gcgv */
    bool lazy;            /* --lazy        */
    const char *budget;   /* --budget N    */
    uint32_t budget_n;
    bool forced;          /* mask --forced */
    bool help;
} cli_args;

/* Which arguments a subcommand takes. */
typedef struct cmd_spec {
    const char *name;
    const char *usage;
    int min_pos, max_pos;
    bool mask_options;
    bool dot_option;
    bool lazy_option;     /* --lazy   */
    bool budget_option;   /* --budget */
} cmd_spec;

/* A growable array of mask times in nanoseconds, for replay's percentiles. */
typedef struct timings {
    uint64_t *ns;
    size_t n, cap;
} timings;

/* What replay has seen so far. */
typedef struct replay_totals {
    uint64_t lines, steps, violations, complete;
    timings t;
} replay_totals;

/* ---- small helpers ------------------------------------------------------ */

static int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gcg %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'gcg %s --help'.\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

/* Parses the next whitespace-separated decimal uint32 at *s. Returns 1 and
 * advances *s on success, 0 at the end of the string, -1 on a bad number. */
static int next_id(const char **s, uint32_t *out)
{
    const char *p = *s;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (*p == '\0')
        return 0;
    uint64_t v = 0;
    const char *start = p;
    while (*p >= '0' && *p <= '9' && v <= UINT32_MAX)
        v = v * 10 + (uint64_t)(*p++ - '0');
    bool end = *p == '\0' || *p == ' ' || *p == '\t' || *p == '\r' || *p == '\n';
    if (p == start || !end || v > UINT32_MAX)
        return -1;
    *out = (uint32_t)v;
    *s = p;
    return 1;
}

/* Reads a whole stream (a pipe has no size to ask for). NULL with errno set
 * on failure. */
static uint8_t *read_stream(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (ferror(f)) {
            int e = errno ? errno : EIO;
            free(buf);
            errno = e;
            return NULL;
        }
        if (n < cap)
            break;
        uint8_t *nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
        if (!nb)
            free(buf);
        buf = nb;
        cap *= 2;
    }
    if (!buf)
        errno = ENOMEM;
    *len = n;
    return buf;
}

/* An artifact from a pipe, FIFO or character device: read into memory, as
 * there is nothing to map. */
static gcg_status open_artifact_stream(const char *path, const gcg_vocabulary *vocab, gcg_artifact **art,
                                       gcg_error *err)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    uint8_t *data = f ? read_stream(f, &n) : NULL;
    int e = errno;
    if (f)
        fclose(f);
    if (!data) {
        snprintf(err->msg, sizeof err->msg, "cannot read: %s", strerror(e));
        return GCG_ERR_IO;
    }
    gcg_status st = gcg_artifact_open_memory_vocab(data, n, vocab, art, err);
    free(data);
    return st;
}

/* Opens ART.gcg: a regular file directly; a pipe or FIFO (e.g. `<(gcgc
 * compile ... -o -)`) fully read into memory; a directory or anything else
 * is refused by name, so the message says what happened. */
static int open_artifact(const char *path, const gcg_vocabulary *vocab, gcg_artifact **art)
{
    gcg_error err;
    struct stat sb;
    gcg_status st;
    if (stat(path, &sb) != 0) {
        fprintf(stderr, "gcg: %s: cannot open: %s\n", path, strerror(errno));
        return EXIT_ERRORS;
    }
    if (S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "gcg: %s: is a directory, not an artifact\n", path);
        return EXIT_ERRORS;
    }
    if (S_ISREG(sb.st_mode))
        st = gcg_artifact_open_file_vocab(path, vocab, art, &err);
    else if (S_ISFIFO(sb.st_mode) || S_ISCHR(sb.st_mode) || S_ISSOCK(sb.st_mode))
        st = open_artifact_stream(path, vocab, art, &err);
    else {
        fprintf(stderr, "gcg: %s: not a regular file or a pipe\n", path);
        return EXIT_ERRORS;
    }
    if (st == GCG_OK)
        return CONTINUE;
    fprintf(stderr, "gcg: %s: %s: %s\n", path, gcg_status_str(st), err.msg);
    return EXIT_ERRORS;
}

/* The vocabulary (--vocab), then the artifact with it. */
static int open_inputs(const cli_args *a, gcg_vocabulary **vocab, gcg_artifact **art)
{
    *vocab = NULL;
    if (a->vocab) {
        gcg_error err;
        gcg_status st = gcg_vocabulary_open_file(a->vocab, vocab, &err);
        if (st != GCG_OK) {
            fprintf(stderr, "gcg: %s: %s: %s\n", a->vocab, gcg_status_str(st), err.msg);
            return EXIT_ERRORS;
        }
    }
    return open_artifact(a->pos[0], *vocab, art);
}

static int new_matcher(const gcg_artifact *art, uint32_t max_rollback, gcg_matcher **m)
{
    gcg_matcher_options opt;
    gcg_matcher_options_default(&opt);
    opt.max_rollback = max_rollback;
    gcg_error err;
    gcg_status st = gcg_matcher_new(art, &opt, m, &err);
    if (st == GCG_OK)
        return CONTINUE;
    fprintf(stderr, "gcg: cannot create a matcher: %s: %s\n", gcg_status_str(st), err.msg);
    return EXIT_ERRORS;
}

/* What match, mask and replay drive: a plain matcher, or (--lazy) a lazy
 * matcher over an artifact with triggers. */
typedef struct engine {
    gcg_matcher *m;
    gcg_lazy *lz;
} engine;

static int new_engine(const gcg_artifact *art, const char *path, const cli_args *a,
                      uint32_t max_rollback, engine *e)
{
    memset(e, 0, sizeof *e);
    if (!a->lazy)
        return new_matcher(art, max_rollback, &e->m);
    if (!gcg_artifact_is_lazy(art)) {
        fprintf(stderr, "gcg: %s: --lazy: the artifact has no triggers (compile it with "
                        "gcgc compile --trigger-word, --trigger-pattern or --trigger-token)\n",
                path);
        return EXIT_ERRORS;
    }
    gcg_lazy_options opt;
    gcg_lazy_options_default(&opt);
    opt.matcher.max_rollback = max_rollback;
    opt.budget_tokens = a->budget_n;
    gcg_error err;
    gcg_status st = gcg_lazy_new(art, &opt, &e->lz, &err);
    if (st == GCG_OK)
        return CONTINUE;
    fprintf(stderr, "gcg: cannot create a lazy matcher: %s: %s\n", gcg_status_str(st), err.msg);
    return EXIT_ERRORS;
}

static void engine_free(engine *e)
{
    gcg_matcher_free(e->m);
    gcg_lazy_free(e->lz);
}

static gcg_status engine_commit(engine *e, uint32_t id)
{
    return e->lz ? gcg_lazy_commit(e->lz, id) : gcg_matcher_commit(e->m, id);
}

/* A lazy commit of several bytes is atomic and does not say where it failed,
 * so text goes in one byte a commit: the same text, so the same trigger
 * positions, and `consumed` is exact. */
static gcg_status engine_commit_bytes(engine *e, const uint8_t *b, size_t n, size_t *consumed)
{
    if (!e->lz)
        return gcg_matcher_commit_bytes(e->m, b, n, consumed);
    for (*consumed = 0; *consumed < n; ++*consumed) {
        gcg_status st = gcg_lazy_commit_bytes(e->lz, b + *consumed, 1);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

static gcg_status engine_fill_mask(engine *e, uint32_t *mask, size_t words)
{
    return e->lz ? gcg_lazy_fill_mask(e->lz, mask, words)
                 : gcg_matcher_fill_mask(e->m, mask, words);
}

static void engine_reset(engine *e)
{
    if (e->lz)
        gcg_lazy_reset(e->lz);
    else
        gcg_matcher_reset(e->m);
}

static bool engine_is_complete(const engine *e)
{
    return e->lz ? gcg_lazy_is_complete(e->lz) : gcg_matcher_is_complete(e->m);
}

static bool engine_is_terminated(const engine *e)
{
    return e->lz ? gcg_lazy_is_terminated(e->lz) : gcg_matcher_is_terminated(e->m);
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static bool mask_has(const uint32_t *mask, uint32_t id)
{
    return (mask[id / 32] >> (id % 32)) & 1u;
}

/* ---- argument parsing ---------------------------------------------------- */

/* One option. Returns CONTINUE when consumed, else an exit status. */
static int parse_option(const cmd_spec *spec, int argc, char **argv, int *i, cli_args *a)
{
    const char *arg = argv[*i];
    const char **val = NULL;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
        a->help = true;
    else if (spec->mask_options && strcmp(arg, "--count") == 0)
        a->count = true;
    else if (spec->mask_options && strcmp(arg, "--forced") == 0)
        a->forced = true;
    else if (spec->mask_options && strcmp(arg, "--tokens") == 0)
        val = &a->tokens;
    else if (spec->mask_options && strcmp(arg, "--text") == 0)
        val = &a->text;
    else if (spec->dot_option && strcmp(arg, "--dot") == 0)
        val = &a->dot;
    else if (strcmp(arg, "--vocab") == 0)
        val = &a->vocab;
    else if (spec->lazy_option && strcmp(arg, "--lazy") == 0)
        a->lazy = true;
    else if (spec->budget_option && strcmp(arg, "--budget") == 0)
        val = &a->budget;
    else
        return usage_error(spec->name, "unknown option '%s'", arg);
    if (val) {
        if (*i + 1 >= argc)
            return usage_error(spec->name, "option %s needs a value", arg);
        *val = argv[++*i];
    }
    return CONTINUE;
}

/* Returns CONTINUE when the arguments fit the spec, else an exit status
 * (0 after printing the help). */
static int parse_args(const cmd_spec *spec, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i];
        if (arg[0] == '-' && arg[1] != '\0') {
            int rc = parse_option(spec, argc, argv, &i, a);
            if (rc != CONTINUE)
                return rc;
        } else if (a->n_pos == spec->max_pos) {
            return usage_error(spec->name, "unexpected argument '%s'", arg);
        } else {
            a->pos[a->n_pos++] = arg;
        }
    }
    if (a->help) {
        fputs(spec->usage, stdout);
        return 0;
    }
    if (a->n_pos < spec->min_pos)
        return usage_error(spec->name, a->n_pos == 0 ? "no artifact given" : "missing argument");
    if (a->tokens && a->text)
        return usage_error(spec->name, "--tokens and --text exclude each other");
    if (a->dot && a->lazy)
        return usage_error(spec->name, "--dot and --lazy exclude each other");
    if (a->budget && !a->lazy)
        return usage_error(spec->name, "--budget needs --lazy");
    if (a->budget) {
        const char *p = a->budget;
        int r = next_id(&p, &a->budget_n);
        uint32_t extra;
        if (r <= 0 || next_id(&p, &extra) != 0 || a->budget_n == 0)
            return usage_error(spec->name, "--budget needs a token count > 0, got '%s'", a->budget);
    }
    return CONTINUE;
}

/* ---- gcg match ---------------------------------------------------------- */

/* Commits `in` chunk by chunk, so memory does not grow with the input.
 * Prints the verdict line; returns the exit status. */
static int match_stream(engine *m, FILE *in, const char *name, bool to_reject_point,
                        bool *verdict)
{
    static const size_t chunk = MATCH_CHUNK;
    uint8_t *buf = malloc(chunk);
    if (!buf)
        return EXIT_ERRORS;
    uint64_t offset = 0;
    int rc = CONTINUE;
    bool rejected = false;
    size_t n;
    while (rc == CONTINUE && (n = fread(buf, 1, chunk, in)) > 0) {
        size_t consumed = 0;
        gcg_status st = engine_commit_bytes(m, buf, n, &consumed);
        if (st == GCG_ERR_REJECTED) {
            printf("reject %llu\n", (unsigned long long)(offset + consumed));
            rc = EXIT_REJECT;
            rejected = true;
            /* A commit is atomic: for --dot, take the bytes that fit again. */
            size_t again = 0;
            if (to_reject_point)
                engine_commit_bytes(m, buf, consumed, &again);
        } else if (st != GCG_OK) {
            fprintf(stderr, "gcg: %s: at byte %llu: %s\n", name, (unsigned long long)offset,
                    gcg_status_str(st));
            rc = EXIT_ERRORS;
        }
        offset += n;
    }
    if (rc == CONTINUE && ferror(in)) {
        fprintf(stderr, "gcg: cannot read %s: %s\n", name, strerror(errno));
        rc = EXIT_ERRORS;
    }
    *verdict = rc == CONTINUE || rejected;
    if (rc == CONTINUE) {
        bool complete = engine_is_complete(m);
        puts(complete ? "complete" : "prefix");
        rc = complete ? 0 : EXIT_PREFIX;
    }
    free(buf);
    return rc;
}

/* match --dot: the GSS as the text left it. */
static int write_dot(const gcg_matcher *m, const char *path)
{
    FILE *f = fopen(path, "w");
    gcg_status st = f ? gcg_gss_dot(m, f) : GCG_ERR_IO;
    int e = errno;
    if (f && fclose(f) != 0 && st == GCG_OK) {
        st = GCG_ERR_IO;
        e = errno;
    }
    if (st == GCG_OK)
        return 0;
    fprintf(stderr, "gcg: cannot write %s: %s\n", path,
            st == GCG_ERR_NOMEM ? "out of memory" : strerror(e));
    return EXIT_ERRORS;
}

static int cmd_match(int argc, char **argv)
{
    static const cmd_spec spec = {"match", USAGE_MATCH, 1, 2, false, true, true, false};
    cli_args a;
    int rc = parse_args(&spec, argc, argv, &a);
    if (rc != CONTINUE)
        return rc;
    bool use_stdin = a.n_pos < 2 || strcmp(a.pos[1], "-") == 0, verdict = false;
    const char *name = use_stdin ? "<stdin>" : a.pos[1];
    gcg_artifact *art = NULL;
    engine m = {0};
    gcg_vocabulary *vocab = NULL;
    rc = open_inputs(&a, &vocab, &art);
    if (rc == CONTINUE)
        rc = new_engine(art, a.pos[0], &a, 1, &m); /* no rollback needed: keep one step */
    FILE *in = NULL;
    if (rc == CONTINUE) {
        in = use_stdin ? stdin : fopen(name, "rb");
        if (!in) {
            fprintf(stderr, "gcg: cannot read %s: %s\n", name, strerror(errno));
            rc = EXIT_ERRORS;
        }
    }
    if (rc == CONTINUE && art->refs.n)
        fprintf(stderr, "gcg: note: the grammar has %u token reference%s (<[ID]>, <TEXT>); they match whole "
                        "tokens only, never text (gcg mask --tokens commits tokens)\n",
                art->refs.n, art->refs.n == 1 ? "" : "s");
    if (rc == CONTINUE)
        rc = match_stream(&m, in, name, a.dot != NULL, &verdict);
    if (in && !use_stdin)
        fclose(in);
    if (a.dot && verdict && write_dot(m.m, a.dot) != 0)
        rc = EXIT_ERRORS;
    engine_free(&m);
    gcg_artifact_free(art);
    gcg_vocabulary_free(vocab);
    return rc;
}

/* ---- gcg mask ------------------------------------------------------------ */

/* Commits each id of `list`; the first one not allowed ends the command. */
static int commit_token_list(engine *m, const char *list)
{
    uint32_t id, pos = 0;
    int r;
    while ((r = next_id(&list, &id)) > 0) {
        gcg_status st = engine_commit(m, id);
        if (st == GCG_ERR_REJECTED || st == GCG_ERR_TOKEN_RANGE || st == GCG_ERR_TERMINATED) {
            fprintf(stderr, "gcg: token %u (id %u) at position %u is not allowed%s\n", pos + 1,
                    id, pos,
                    st == GCG_ERR_TOKEN_RANGE  ? " (out of the vocabulary)"
                    : st == GCG_ERR_TERMINATED ? " (after EOS)"
                                               : "");
            return EXIT_REJECT;
        }
        if (st != GCG_OK) {
            fprintf(stderr, "gcg: token %u (id %u): %s\n", pos + 1, id, gcg_status_str(st));
            return EXIT_ERRORS;
        }
        pos++;
    }
    if (r < 0)
        return usage_error("mask", "--tokens: bad token id after position %u", pos);
    return CONTINUE;
}

static int commit_text(engine *m, const char *text)
{
    size_t consumed = 0;
    gcg_status st = engine_commit_bytes(m, (const uint8_t *)text, strlen(text), &consumed);
    if (st == GCG_OK)
        return CONTINUE;
    if (st == GCG_ERR_REJECTED) {
        fprintf(stderr, "gcg: text is not allowed at byte %zu\n", consumed);
        return EXIT_REJECT;
    }
    fprintf(stderr, "gcg: text: %s\n", gcg_status_str(st));
    return EXIT_ERRORS;
}

static void print_mask(const uint32_t *mask, uint32_t vocab_size, bool count_only)
{
    uint32_t count = 0;
    for (uint32_t id = 0; id < vocab_size; id++) {
        if (!mask_has(mask, id))
            continue;
        if (!count_only)
            printf(count ? " %u" : "%u", id);
        count++;
    }
    if (count_only)
        printf("%u", count);
    putchar('\n');
}

static int mask_after(const gcg_artifact *art, const cli_args *a)
{
    engine m = {0};
    int rc = new_engine(art, a->pos[0], a, 32, &m);
    if (rc == CONTINUE && a->tokens)
        rc = commit_token_list(&m, a->tokens);
    if (rc == CONTINUE && a->text)
        rc = commit_text(&m, a->text);
    size_t words = gcg_artifact_mask_words(art);
    uint32_t *mask = rc == CONTINUE ? calloc(words ? words : 1, sizeof *mask) : NULL;
    if (rc == CONTINUE && !mask)
        rc = EXIT_ERRORS;
    gcg_status st = rc == CONTINUE ? engine_fill_mask(&m, mask, words) : GCG_OK;
    if (st != GCG_OK) {
        fprintf(stderr, "gcg: mask: %s\n", gcg_status_str(st));
        rc = EXIT_ERRORS;
    }
    uint8_t forced[4096];
    size_t n_forced = 0;
    if (rc == CONTINUE && a->forced && a->lazy) {
        fprintf(stderr, "gcg: --forced works on a plain matcher, not with --lazy\n");
        rc = EXIT_USAGE;
    } else if (rc == CONTINUE && a->forced &&
               gcg_matcher_forced_bytes(m.m, forced, sizeof forced, &n_forced) == GCG_OK) {
        for (size_t i = 0; i < n_forced; i++) /* C-escaped, so the output is one line */
            printf(forced[i] == '"' || forced[i] == '\\' ? "\\%c" : forced[i] >= 0x20 && forced[i] < 0x7f ? "%c"
                   : "\\x%02x", forced[i]);
        printf("\n");
        rc = 0;
    } else if (rc == CONTINUE) {
        print_mask(mask, gcg_artifact_vocab_size(art), a->count);
        rc = 0;
    }
    free(mask);
    engine_free(&m);
    return rc;
}

static int cmd_mask(int argc, char **argv)
{
    static const cmd_spec spec = {"mask", USAGE_MASK, 1, 1, true, false, true, true};
    cli_args a;
    int rc = parse_args(&spec, argc, argv, &a);
    if (rc != CONTINUE)
        return rc;
    gcg_artifact *art = NULL;
    gcg_vocabulary *vocab = NULL;
    rc = open_inputs(&a, &vocab, &art);
    if (rc == CONTINUE && gcg_artifact_vocab_size(art) == 0) {
        fprintf(stderr, "gcg: %s: %s\n", a.pos[0], gcg_status_str(GCG_ERR_NO_VOCAB));
        rc = EXIT_ERRORS;
    }
    if (rc == CONTINUE)
        rc = mask_after(art, &a);
    gcg_artifact_free(art);
    gcg_vocabulary_free(vocab);
    return rc;
}

/* ---- gcg replay ----------------------------------------------------------- */

static bool timings_add(timings *t, uint64_t ns)
{
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 1024;
        uint64_t *v = realloc(t->ns, cap * sizeof *v);
        if (!v)
            return false;
        t->ns = v;
        t->cap = cap;
    }
    t->ns[t->n++] = ns;
    return true;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values, in microseconds. */
static double percentile_us(const timings *t, double p)
{
    size_t rank = (size_t)(p * (double)t->n + 0.999999);
    if (rank == 0)
        rank = 1;
    return (double)t->ns[rank - 1] / 1e3;
}

static void print_timings(timings *t)
{
    if (t->n == 0) {
        puts("mask time: no masks");
        return;
    }
    qsort(t->ns, t->n, sizeof *t->ns, cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < t->n; i++)
        sum += (double)t->ns[i];
    printf("mask time (us): mean %.3f, p50 %.3f, p99 %.3f, max %.3f (%zu masks)\n",
           sum / (double)t->n / 1e3, percentile_us(t, 0.50), percentile_us(t, 0.99),
           (double)t->ns[t->n - 1] / 1e3, t->n);
}

/* One step: fill the mask (timed), check `id` is in it, commit it. Returns
 * true when the step is good; otherwise prints the violation. */
static bool replay_step(engine *m, uint32_t *mask, size_t words, uint32_t vocab,
                        uint32_t id, uint64_t line, uint64_t step, replay_totals *tot)
{
    double t0 = now_ns();
    gcg_status st = engine_fill_mask(m, mask, words);
    double t1 = now_ns();
    if (st == GCG_OK && !timings_add(&tot->t, (uint64_t)(t1 - t0)))
        st = GCG_ERR_NOMEM;
    if (st != GCG_OK) {
        printf("line %llu: step %llu: fill_mask failed: %s\n", (unsigned long long)line,
               (unsigned long long)step, gcg_status_str(st));
        return false;
    }
    if (id >= vocab || !mask_has(mask, id)) {
        printf("line %llu: step %llu: token %u not allowed%s\n", (unsigned long long)line,
               (unsigned long long)step, id, id >= vocab ? " (out of the vocabulary)" : "");
        return false;
    }
    st = engine_commit(m, id);
    if (st != GCG_OK)
        printf("line %llu: step %llu: token %u allowed by the mask but commit failed: %s\n",
               (unsigned long long)line, (unsigned long long)step, id, gcg_status_str(st));
    return st == GCG_OK;
}

/* Replays one trace line from the start of a sentence. Returns CONTINUE,
 * or EXIT_ERRORS for a malformed line. */
static int replay_line(engine *m, uint32_t *mask, size_t words, uint32_t vocab,
                       const char *text, uint64_t line, replay_totals *tot)
{
    engine_reset(m);
    uint64_t steps = 0, violations = 0;
    uint32_t id;
    int r;
    while ((r = next_id(&text, &id)) > 0) {
        if (!replay_step(m, mask, words, vocab, id, line, steps, tot)) {
            violations = 1;
            break;
        }
        steps++;
    }
    if (r < 0) {
        fprintf(stderr, "gcg replay: line %llu: bad token id after step %llu\n",
                (unsigned long long)line, (unsigned long long)steps);
        return EXIT_ERRORS;
    }
    /* A line cut short by a violation was not replayed, so it is not complete. */
    bool complete =
        !violations && (engine_is_terminated(m) || engine_is_complete(m));
    printf("line %llu: steps %llu, violations %llu, %s\n", (unsigned long long)line,
           (unsigned long long)steps, (unsigned long long)violations,
           complete ? "complete" : "incomplete");
    tot->lines++;
    tot->steps += steps;
    tot->violations += violations;
    tot->complete += complete;
    return CONTINUE;
}

/* Reads TRACES line by line; blank lines are skipped but keep their number.
 * A NUL byte would end the line early for the id parser, so it is an error
 * naming the line rather than a silently shorter trace; a read error (a
 * directory, an I/O failure) is an error rather than "0 lines". */
static int replay_file(const gcg_artifact *art, engine *m, FILE *in, const char *name,
                       replay_totals *tot)
{
    size_t words = gcg_artifact_mask_words(art);
    uint32_t *mask = calloc(words ? words : 1, sizeof *mask);
    char *text = NULL;
    size_t cap = 0;
    uint64_t line = 0;
    ssize_t len;
    int rc = mask ? CONTINUE : EXIT_ERRORS;
    while (rc == CONTINUE && (len = getline(&text, &cap, in)) >= 0) {
        line++;
        size_t nul = strlen(text);
        if (nul < (size_t)len) {
            fprintf(stderr, "gcg replay: %s: line %llu: NUL byte at column %zu\n", name,
                    (unsigned long long)line, nul + 1);
            rc = EXIT_ERRORS;
        } else if (text[strspn(text, " \t\r\n")] != '\0') {
            rc = replay_line(m, mask, words, gcg_artifact_vocab_size(art), text, line, tot);
        }
    }
    if (rc == CONTINUE && ferror(in)) {
        fprintf(stderr, "gcg: cannot read %s: %s\n", name, strerror(errno));
        rc = EXIT_ERRORS;
    }
    free(text);
    free(mask);
    return rc;
}

/* Opens TRACES, refusing a directory by name (fopen accepts one). */
static FILE *open_traces(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "gcg: cannot read %s: is a directory\n", path);
        return NULL;
    }
    FILE *in = fopen(path, "r");
    if (!in)
        fprintf(stderr, "gcg: cannot read %s: %s\n", path, strerror(errno));
    return in;
}

static int cmd_replay(int argc, char **argv)
{
    static const cmd_spec spec = {"replay", USAGE_REPLAY, 2, 2, false, false, true, true};
    cli_args a;
    int rc = parse_args(&spec, argc, argv, &a);
    if (rc != CONTINUE)
        return rc;
    gcg_artifact *art = NULL;
    engine m = {0};
    FILE *in = NULL;
    replay_totals tot;
    memset(&tot, 0, sizeof tot);
    gcg_vocabulary *vocab = NULL;
    rc = open_inputs(&a, &vocab, &art);
    if (rc == CONTINUE)
        rc = new_engine(art, a.pos[0], &a, 1, &m);
    if (rc == CONTINUE && !(in = open_traces(a.pos[1])))
        rc = EXIT_ERRORS;
    if (rc == CONTINUE)
        rc = replay_file(art, &m, in, a.pos[1], &tot);
    if (rc == CONTINUE) {
        printf("total: %llu lines, %llu steps, %llu violations, %llu complete\n",
               (unsigned long long)tot.lines, (unsigned long long)tot.steps,
               (unsigned long long)tot.violations, (unsigned long long)tot.complete);
        print_timings(&tot.t);
        rc = tot.violations ? EXIT_REJECT : 0;
    }
    if (in)
        fclose(in);
    free(tot.t.ns);
    engine_free(&m);
    gcg_artifact_free(art);
    gcg_vocabulary_free(vocab);
    return rc;
}

/* ---- gcg info -------------------------------------------------------------- */

/* Prints META `key` (not NUL-terminated in the artifact), or "?". */
static void print_meta(const gcg_artifact *art, const char *key)
{
    size_t len = 0;
    const char *v = gcg_artifact_meta(art, key, &len);
    if (v)
        printf("%.*s", (int)len, v);
    else
        fputs("?", stdout);
}

static void print_vocab(const gcg_artifact *art)
{
    fputs("vocabulary: ", stdout);
    print_meta(art, "vocab");
    uint32_t n_eos = 0;
    const uint32_t *eos = gcg_artifact_eos(art, &n_eos);
    printf(", %u tokens, EOS ids:", gcg_artifact_vocab_size(art));
    for (uint32_t i = 0; i < n_eos; i++)
        printf(" %u", eos[i]);
    puts(n_eos ? "" : " none");
    bool embedded = false;
    uint64_t fp = gcg_artifact_vocab_fingerprint(art, &embedded);
    printf("vocabulary fingerprint: %016llx (%s)\n", (unsigned long long)fp,
           embedded ? "embedded" : "by reference");
}

static void print_sections(const gcg_container *c)
{
    printf("sections: %u\n", c->n_sections);
    printf("  %4s  %-12s %10s %10s\n", "id", "name", "offset", "size");
    for (uint32_t i = 0; i < c->n_sections; i++) {
        const gcg_section_entry *e = &c->sections[i];
        printf("  %4u  %-12s %10llu %10llu\n", e->id, gcg_section_name(e->id),
               (unsigned long long)e->offset, (unsigned long long)e->size);
    }
    printf("total: %zu bytes (format version %u)\n", c->size, c->format_version);
}

static void print_certificate(const gcg_artifact *art)
{
    gcg_certificate c;
    gcg_status st = gcg_artifact_certificate(art, &c);
    if (st != GCG_OK)
        printf("certificate: none (%s)\n", gcg_status_str(st));
    else if (c.bounded)
        printf("certificate: at most %u stack reads, %u set operations, %llu bytes per "
               "frontier node\n",
               c.max_stack_reads, c.max_set_ops, (unsigned long long)c.max_bytes);
    else
        printf("certificate: unbounded (rule %s)\n", c.unbounded_rule);
    if (st == GCG_OK && c.commit_bounded)
        printf("commit: at most %u work units per byte\n", c.max_commit_step_work);
    else if (st == GCG_OK && c.commit_unbounded_reason != GCG_UNBOUNDED_NONE)
        printf("commit: %s (rule %s)\n",
               c.commit_unbounded_reason == GCG_UNBOUNDED_RECURSION ? "unbounded" : "no bound stated",
               c.commit_unbounded_rule);
}

static int cmd_info(int argc, char **argv)
{
    static const cmd_spec spec = {"info", USAGE_INFO, 1, 1, false, false, false, false};
    cli_args a;
    int rc = parse_args(&spec, argc, argv, &a);
    if (rc != CONTINUE)
        return rc;
    gcg_artifact *art = NULL;
    gcg_vocabulary *vocab = NULL;
    rc = open_inputs(&a, &vocab, &art);
    if (rc == CONTINUE) {
        printf("artifact: %s\n", a.pos[0]);
        fputs("grammar: ", stdout);
        print_meta(art, "grammar");
        fputs(" (root: ", stdout);
        print_meta(art, "root");
        puts(")");
        print_vocab(art);
        print_sections(gcg_artifact_container(art));
        print_certificate(art);
        rc = 0;
    }
    gcg_artifact_free(art);
    gcg_vocabulary_free(vocab);
    return rc;
}

/* ---- main ------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        fputs(USAGE, stderr);
        return EXIT_USAGE;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("gcg %s\n", GCG_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "match") == 0)
        return cmd_match(argc - 2, argv + 2);
    if (strcmp(cmd, "mask") == 0)
        return cmd_mask(argc - 2, argv + 2);
    if (strcmp(cmd, "replay") == 0)
        return cmd_replay(argc - 2, argv + 2);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 2, argv + 2);
    fprintf(stderr, "gcg: unknown command '%s'\nTry 'gcg --help'.\n", cmd);
    return EXIT_USAGE;
}
