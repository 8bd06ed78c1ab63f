/*
 * gcgc_main.c — the `gcgc` command: compile a GBNF grammar (and a tokenizer
 * vocabulary) into a .gcg artifact, or check a grammar without writing one.
 *
 *   gcgc compile GRAMMAR.gbnf -o OUT.gcg [--root NAME]
 *        [--tokenizer tokenizer.json | --vocab-hex FILE] [--eos ID]...
 *        [--strict-latency] [--stats]
 *   gcgc check GRAMMAR.gbnf [--root NAME]
 *
 * Exit status: 0 success, 1 errors in the grammar or vocabulary (printed as
 * `file:line:col: error: ...`) or an unreadable/unwritable file, 2 usage.
 * The output is written to a temporary file and renamed, and only after the
 * artifact has been loaded back and validated, so OUT is never half-written
 * or unloadable.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compile.h"
#include "gcg.h"
#include "schema_cmd.h"
#include "vocab.h"

#define EXIT_ERRORS 1
#define EXIT_USAGE 2
#define MAX_EOS 64

static const char USAGE[] =
    "usage: gcgc COMMAND [ARGS]\n"
    "\n"
    "Compiles GBNF grammars into .gcg artifacts for grammar-constrained decoding.\n"
    "\n"
    "commands:\n"
    "  compile GRAMMAR.gbnf -o OUT.gcg [options]   compile a grammar\n"
    "  check GRAMMAR.gbnf [--root NAME]            check a grammar, print statistics\n"
    "  schema SCHEMA.json [-o G.gbnf]              JSON Schema to GBNF (compile --schema)\n"
    "\n"
    "  gcgc COMMAND --help    options of a command\n"
    "  gcgc --version         print the version\n";

static const char USAGE_COMPILE[] =
    "usage: gcgc compile GRAMMAR.gbnf -o OUT.gcg [options]\n"
    "\n"
    "Compiles GRAMMAR.gbnf and a vocabulary into the artifact OUT.gcg, then prints a\n"
    "summary (LR states, conflicts, automaton, size, time, latency certificate) to\n"
    "stderr.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.gcg       the artifact to write (required)\n"
    "  --root NAME                start rule (default: root)\n"
    "  --tokenizer FILE           vocabulary from a Hugging Face tokenizer.json\n"
    "  --vocab-hex FILE           vocabulary as hex lines (\"-\" for a special token)\n"
    "                             (default: the 256 single bytes)\n"
    "  --eos ID                   an end-of-sequence token id (repeatable)\n"
    "  --strict-latency           an unbounded latency certificate is an error\n"
    "  --stats                    also print compile statistics to stdout\n"
    "  -h, --help                 this help\n"
    "\n"
    "exit status: 0 compiled, 1 errors (file:line:col: error: ...), 2 usage\n";

static const char USAGE_CHECK[] =
    "usage: gcgc check GRAMMAR.gbnf [--root NAME]\n"
    "\n"
    "Parses and normalizes GRAMMAR.gbnf and builds its LR tables without writing an\n"
    "artifact; prints diagnostics and statistics (rules, nonterminals, productions,\n"
    "byte classes, LR states, conflicts) to stdout.\n"
    "\n"
    "options:\n"
    "  --root NAME    start rule (default: root)\n"
    "  -h, --help     this help\n"
    "\n"
    "exit status: 0 no errors, 1 errors, 2 usage\n";

/* What `gcgc compile` and `gcgc check` were asked to do. */
typedef struct cli_args {
    const char *grammar;      /* the one positional argument        */
    const char *output;       /* -o                                  */
    const char *root;         /* --root, NULL = "root"               */
    const char *tokenizer;    /* --tokenizer                         */
    const char *vocab_hex;    /* --vocab-hex                         */
    uint32_t eos[MAX_EOS];    /* --eos, in the order given           */
    uint32_t n_eos;
    bool strict_latency;
    bool stats;
    bool help;
} cli_args;

/* ---- small helpers ------------------------------------------------------ */

static int usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gcgc %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'gcgc %s --help'.\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

/* Parses a whole decimal uint32; false for anything else. */
static bool parse_u32(const char *s, uint32_t *out)
{
    if (*s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Matches argv[*i] against an option taking a value, as `--name VALUE` or
 * `--name=VALUE` (and `short VALUE` when `shrt` is not NULL). Returns 1 and
 * sets *val on a match, 0 when argv[*i] is another argument, -1 when the
 * value is missing. */
static int opt_value(int argc, char **argv, int *i, const char *name, const char *shrt,
                     const char **val)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) == 0 && a[n] == '=') {
        *val = a + n + 1;
        return 1;
    }
    if (strcmp(a, name) != 0 && !(shrt && strcmp(a, shrt) == 0))
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *val = argv[++*i];
    return 1;
}

/* Reads a whole file into a NUL-terminated malloc'ed buffer. On failure
 * returns NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    int e = buf ? 0 : ENOMEM;
    while (!e) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f))
            e = errno ? errno : EIO;
        else if (n < cap - 1)
            break;
        else {
            char *nb = realloc(buf, cap * 2);
            e = nb ? 0 : ENOMEM;
            buf = nb ? nb : buf;
            cap *= 2;
        }
    }
    fclose(f);
    if (e) {
        free(buf);
        errno = e;
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* Writes bytes to `path` through a temporary file in the same directory and
 * rename(2). Returns 0, or -1 with errno set. */
static int write_file_atomic(const char *path, const uint8_t *data, size_t n)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
    if (!tmp)
        return -1;
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    int rc = f && fchmod(fd, 0644) == 0 && fwrite(data, 1, n, f) == n ? 0 : -1;
    int e = errno;
    if (f && fclose(f) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    } else if (!f && fd >= 0) {
        close(fd);
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0 && fd >= 0)
        unlink(tmp);
    free(tmp);
    errno = e;
    return rc;
}

/* ---- argument parsing ----------------------------------------------------- */

/* One option of `compile` or `check`. Returns -1 when consumed, else an
 * exit status (usage error). */
static int parse_option(const char *cmd, int argc, char **argv, int *i, cli_args *a)
{
    const char *arg = argv[*i], *val = NULL;
    bool full = strcmp(cmd, "compile") == 0;
    int r = 0;
    if ((r = opt_value(argc, argv, i, "--root", NULL, &val)) != 0) {
        a->root = val;
    } else if (full && (r = opt_value(argc, argv, i, "--output", "-o", &val)) != 0) {
        a->output = val;
    } else if (full && (r = opt_value(argc, argv, i, "--tokenizer", NULL, &val)) != 0) {
        a->tokenizer = val;
    } else if (full && (r = opt_value(argc, argv, i, "--vocab-hex", NULL, &val)) != 0) {
        a->vocab_hex = val;
    } else if (full && (r = opt_value(argc, argv, i, "--eos", NULL, &val)) != 0) {
        if (r > 0 && a->n_eos == MAX_EOS)
            return usage_error(cmd, "too many --eos (limit %d)", MAX_EOS);
        if (r > 0 && !parse_u32(val, &a->eos[a->n_eos++]))
            return usage_error(cmd, "--eos needs a token id, got '%s'", val);
    } else if (full && strcmp(arg, "--strict-latency") == 0) {
        a->strict_latency = true;
    } else if (full && strcmp(arg, "--stats") == 0) {
        a->stats = true;
    } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
        a->help = true;
    } else {
        return usage_error(cmd, "unknown option '%s'", arg);
    }
    if (r < 0)
        return usage_error(cmd, "option %s needs a value", arg);
    return -1;
}

/* Returns -1 when the arguments are complete and consistent, else an exit
 * status (0 after printing help). */
static int parse_args(const char *cmd, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        if (!options_done && strcmp(argv[i], "--") == 0) {
            options_done = true;
        } else if (!options_done && argv[i][0] == '-' && argv[i][1] != '\0') {
            int r = parse_option(cmd, argc, argv, &i, a);
            if (r >= 0)
                return r;
        } else if (a->grammar) {
            return usage_error(cmd, "unexpected argument '%s'", argv[i]);
        } else {
            a->grammar = argv[i];
        }
    }
    if (a->help) {
        fputs(strcmp(cmd, "compile") == 0 ? USAGE_COMPILE : USAGE_CHECK, stdout);
        return 0;
    }
    if (!a->grammar)
        return usage_error(cmd, "no grammar file given");
    if (strcmp(cmd, "compile") == 0 && !a->output)
        return usage_error(cmd, "no output file given (-o OUT.gcg)");
    if (a->tokenizer && a->vocab_hex)
        return usage_error(cmd, "--tokenizer and --vocab-hex exclude each other");
    return -1;
}

/* ---- reports -------------------------------------------------------------- */

static void print_stats(FILE *out, const gcg_compile_stats *s, bool automaton)
{
    fprintf(out, "rules: %u\n", s->gbnf_rules);
    fprintf(out, "nonterminals: %u\n", s->nonterminals);
    fprintf(out, "productions: %u\n", s->productions);
    fprintf(out, "byte classes: %u\n", s->byte_classes);
    fprintf(out, "LR states: %u\n", s->lr_states);
    fprintf(out, "conflicts: %u shift/reduce, %u reduce/reduce\n", s->sr_conflicts,
            s->rr_conflicts);
    if (automaton) {
        fprintf(out, "trie nodes: %u\n", s->trie_nodes);
        fprintf(out, "automaton states: %u\n", s->dfa_states);
        fprintf(out, "token sets: %u\n", s->token_sets);
        fprintf(out, "artifact bytes: %zu\n", s->artifact_bytes);
        fprintf(out, "seconds: front end %.3f, LR %.3f, automaton %.3f, total %.3f\n",
                s->seconds_front, s->seconds_lr, s->seconds_automaton, s->seconds_total);
    }
}

static void print_certificate(FILE *out, const gcg_certificate *c)
{
    if (c->bounded)
        fprintf(out,
                "certificate: at most %u stack reads, %u set operations, %llu bytes per "
                "frontier node\n",
                c->max_stack_reads, c->max_set_ops, (unsigned long long)c->max_bytes);
    else
        fprintf(out, "certificate: unbounded (rule %s)\n", c->unbounded_rule);
}

static void print_summary(const cli_args *a, const gcg_compile_stats *s, size_t size,
                          const gcg_certificate *cert)
{
    fprintf(stderr, "LR states: %u\n", s->lr_states);
    fprintf(stderr, "conflicts: %u shift/reduce, %u reduce/reduce\n", s->sr_conflicts,
            s->rr_conflicts);
    fprintf(stderr, "automaton: %u states, %u token sets, %u trie nodes\n", s->dfa_states,
            s->token_sets, s->trie_nodes);
    fprintf(stderr, "artifact: %zu bytes -> %s\n", size, a->output);
    fprintf(stderr, "compile time: %.1f ms\n", s->seconds_total * 1e3);
    print_certificate(stderr, cert);
}

/* ---- gcgc compile ------------------------------------------------------- */

static int load_vocab(const cli_args *a, gcg_vocab *v)
{
    gcg_diag diag;
    gcg_diag_init(&diag, a->tokenizer ? a->tokenizer : a->vocab_hex);
    gcg_status st;
    if (a->tokenizer)
        st = gcg_vocab_load_hf(a->tokenizer, a->eos, a->n_eos, v, &diag);
    else if (a->vocab_hex)
        st = gcg_vocab_load_hex(a->vocab_hex, a->eos, a->n_eos, v, &diag);
    else
        st = gcg_vocab_bytes256(a->eos, a->n_eos, v);
    gcg_diag_print(&diag, stderr);
    if (st != GCG_OK && diag.n_errors == 0)
        fprintf(stderr, "gcgc: cannot load vocabulary %s: %s\n",
                a->tokenizer ? a->tokenizer : a->vocab_hex ? a->vocab_hex : "(256 bytes)",
                gcg_status_str(st));
    gcg_diag_free(&diag);
    return st == GCG_OK ? 0 : EXIT_ERRORS;
}

/* Loads the compiled bytes back (the same validation a user's runtime will
 * do) and reads their certificate. */
static int verify_artifact(const uint8_t *bytes, size_t n, gcg_certificate *cert)
{
    gcg_artifact *art = NULL;
    gcg_error err;
    gcg_status st = gcg_artifact_open_memory(bytes, n, &art, &err);
    if (st == GCG_OK)
        st = gcg_artifact_certificate(art, cert);
    else
        fprintf(stderr, "gcgc: internal error: the compiled artifact does not load: %s\n",
                err.msg);
    gcg_artifact_free(art);
    return st == GCG_OK ? 0 : EXIT_ERRORS;
}

/* The last component of a path ("dir/g.gbnf" -> "g.gbnf"), for the metadata:
 * an artifact should not depend on where it was compiled. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* The vocabulary's name in the metadata: its file's name, or "bytes256" for
 * the 256 single bytes (also when only --eos was given). */
static const char *vocab_name(const cli_args *a)
{
    if (a->tokenizer)
        return base_name(a->tokenizer);
    if (a->vocab_hex)
        return base_name(a->vocab_hex);
    return "bytes256";
}

/* Runs the compiler on the grammar text; prints its diagnostics. */
static int compile_source(const cli_args *a, const char *src, size_t len, const gcg_vocab *v,
                          bool check_only, uint8_t **out, size_t *out_size,
                          gcg_compile_stats *stats)
{
    gcg_compile_options opt = {.root_name = a->root,
                               .grammar_name = base_name(a->grammar),
                               .vocab_name = vocab_name(a),
                               .vocab = v,
                               .strict_latency = a->strict_latency};
    gcg_diag diag;
    gcg_diag_init(&diag, a->grammar);
    memset(stats, 0, sizeof *stats);
    gcg_status st = gcg_compile(src, len, &opt, check_only, out, out_size, stats, &diag);
    gcg_diag_print(&diag, check_only ? stdout : stderr);
    if (st != GCG_OK && diag.n_errors == 0)
        fprintf(stderr, "gcgc: %s: %s\n", a->grammar, gcg_status_str(st));
    bool ok = st == GCG_OK && diag.n_errors == 0;
    gcg_diag_free(&diag);
    return ok ? 0 : EXIT_ERRORS;
}

static int compile_to_file(const cli_args *a, const char *src, size_t len, const gcg_vocab *v)
{
    uint8_t *bytes = NULL;
    size_t n = 0;
    gcg_compile_stats stats;
    gcg_certificate cert;
    int rc = compile_source(a, src, len, v, false, &bytes, &n, &stats);
    if (rc == 0)
        rc = verify_artifact(bytes, n, &cert);
    if (rc == 0 && write_file_atomic(a->output, bytes, n) != 0) {
        fprintf(stderr, "gcgc: cannot write %s: %s\n", a->output, strerror(errno));
        rc = EXIT_ERRORS;
    }
    if (rc == 0) {
        print_summary(a, &stats, n, &cert);
        if (a->stats)
            print_stats(stdout, &stats, true);
    }
    free(bytes);
    return rc;
}

static int cmd_compile(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args("compile", argc, argv, &a);
    if (rc >= 0)
        return rc;
    size_t len = 0;
    char *src = read_file(a.grammar, &len);
    if (!src) {
        fprintf(stderr, "gcgc: cannot read %s: %s\n", a.grammar, strerror(errno));
        return EXIT_ERRORS;
    }
    /* Without a vocabulary option or EOS ids, the compiler's own default
     * (the 256 single bytes, vocab = NULL) applies and names itself in META. */
    bool own_vocab = a.tokenizer || a.vocab_hex || a.n_eos > 0;
    gcg_vocab v;
    memset(&v, 0, sizeof v);
    rc = own_vocab ? load_vocab(&a, &v) : 0;
    if (rc == 0)
        rc = compile_to_file(&a, src, len, own_vocab ? &v : NULL);
    gcg_vocab_free(&v);
    free(src);
    return rc;
}

/* ---- gcgc check ----------------------------------------------------------- */

static int cmd_check(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args("check", argc, argv, &a);
    if (rc >= 0)
        return rc;
    size_t len = 0;
    char *src = read_file(a.grammar, &len);
    if (!src) {
        fprintf(stderr, "gcgc: cannot read %s: %s\n", a.grammar, strerror(errno));
        return EXIT_ERRORS;
    }
    uint8_t *out = NULL;
    size_t out_size = 0;
    gcg_compile_stats stats;
    rc = compile_source(&a, src, len, NULL, true, &out, &out_size, &stats);
    if (rc == 0)
        print_stats(stdout, &stats, false);
    free(out);
    free(src);
    return rc;
}

/* ---- main ---------------------------------------------------------------- */

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
        printf("gcgc %s\n", GCG_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "schema") == 0)
        return gcgc_schema_cmd(argc - 2, argv + 2);
    if (strcmp(cmd, "compile") == 0 && gcgc_schema_compile_wanted(argc - 2, argv + 2))
        return gcgc_schema_compile_cmd(argc - 2, argv + 2);
    if (strcmp(cmd, "compile") == 0)
        return cmd_compile(argc - 2, argv + 2);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 2, argv + 2);
    fprintf(stderr, "gcgc: unknown command '%s'\nTry 'gcgc --help'.\n", cmd);
    return EXIT_USAGE;
}
