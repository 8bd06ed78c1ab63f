/*
 * gcgc_main.c — the `gcgc` command: compile GBNF grammars (and a tokenizer
 * vocabulary) into .gcg artifacts, or check a grammar without writing one.
 *
 *   gcgc compile GRAMMAR.gbnf -o OUT.gcg [options]
 *   gcgc compile --out-dir DIR [--report FILE.tsv] G1.gbnf [G2.gbnf ...]
 *   gcgc check GRAMMAR.gbnf [--root NAME] [--count N] [--report FILE]
 *
 * Exit status (the same scheme as gcg): 0 success, 1 errors in the input
 * (printed as `file:line:col: error: ...`) or an unreadable/unwritable file,
 * 2 usage. Compiling goes through the compile library (gcgc.h): the
 * vocabulary is prepared once and shared by every grammar of a batch. An
 * output is written to a temporary file and renamed, only after the
 * artifact has been loaded back and validated, so OUT is never half-written
 * or unloadable; -o writes regular files only (see cli_output.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compile.h"
#include "check_tables.h"
#include "cli_output.h"
#include "count.h"
#include "gcg.h"
#include "gcgc.h"
#include "lr_report.h"
#include "schema_cmd.h"
#include "vocab.h"

#define EXIT_ERRORS 1
#define EXIT_USAGE 2
#define MAX_EOS 64
#define MAX_TAGS 64
#define MAX_TRIGGERS 64

static const char USAGE[] =
    "usage: gcgc COMMAND [ARGS]\n"
    "\n"
    "Compiles GBNF grammars into .gcg artifacts for grammar-constrained decoding.\n"
    "\n"
    "commands:\n"
    "  compile GRAMMAR.gbnf -o OUT.gcg [options]   compile a grammar\n"
    "  compile --out-dir DIR G1.gbnf G2.gbnf ...   compile many against one vocabulary\n"
    "  check GRAMMAR.gbnf [options]                check a grammar, print statistics\n"
    "  vocab --tokenizer T.json -o MODEL.gcgv      prepare a vocabulary once, for\n"
    "                                              artifacts compiled with --vocab-ref\n"
    "  schema SCHEMA.json [-o G.gbnf]              JSON Schema to GBNF (compile --schema)\n"
    "\n"
    "  gcgc COMMAND --help    options of a command\n"
    "  gcgc --version         print the version\n"
    "\n"
    "exit status: 0 ok, 1 errors in the input, 2 usage\n";

static const char USAGE_COMPILE[] =
    "usage: gcgc compile GRAMMAR.gbnf -o OUT.gcg [options]\n"
    "       gcgc compile --out-dir DIR [--report FILE.tsv] [options] G1.gbnf [G2.gbnf ...]\n"
    "\n"
    "Compiles GRAMMAR.gbnf and a vocabulary into the artifact OUT.gcg, then prints a\n"
    "summary (EOS ids, LR states, conflicts, automaton, size, time, latency\n"
    "certificate) to stderr. With --out-dir, compiles every grammar against the\n"
    "vocabulary loaded once, into DIR/NAME.gcg (NAME: the file name without .gbnf);\n"
    "a failing grammar does not stop the others.\n"
    "\n"
    "options:\n"
    "  -o, --output OUT.gcg       the artifact to write; \"-\" writes it to stdout.\n"
    "                             Only regular files are written: a device, FIFO,\n"
    "                             directory or the input grammar is refused; a\n"
    "                             symlink is followed and its target replaced\n"
    "  --out-dir DIR              batch: write DIR/NAME.gcg for each grammar\n"
    "  --report FILE.tsv          batch: one row per grammar: grammar, status (ok or\n"
    "                             error), compile_ms, artifact_bytes, lr_states,\n"
    "                             certificate (bounded N | unbounded RULE), message\n"
    "  --root NAME                start rule (default: root)\n"
    "  --vocab-ref                store only the vocabulary's fingerprint, not the\n"
    "                             vocabulary: the artifact then opens only with\n"
    "                             the vocabulary (gcg ... --vocab MODEL.gcgv)\n"
    "  --vocab MODEL.gcgv         a prepared vocabulary (gcgc vocab), instead of a\n"
    "                             tokenizer\n"
    "  --tokenizer FILE           vocabulary from a Hugging Face tokenizer.json\n"
    "  --vocab-hex FILE           vocabulary as hex lines (\"-\" for a special token)\n"
    "  --tiktoken FILE            vocabulary from a tiktoken rank file (BASE64 RANK\n"
    "                             lines), or js-tiktoken's rank module (ranks/*.js)\n"
    "                             (default: the 256 single bytes)\n"
    "  --eos ID                   an end-of-sequence token id (repeatable). Without\n"
    "                             it, a tokenizer.json's EOS ids come from\n"
    "                             generation_config.json (eos_token_id) beside it,\n"
    "                             else tokenizer_config.json (eos_token)\n"
    "  --strict-latency           an unbounded latency certificate is an error\n"
    "  --max-repeat N             limits (a compile reaching one fails and names it):\n"
    "  --max-grammar-symbols N      largest m, n in X{m,n} (1048576); symbols after\n"
    "  --max-lr-states N            expanding repetitions (4000000); LR states\n"
    "  --max-automaton-states N     (1000000); mask automaton states (2000000);\n"
    "  --max-sim-stacks N           symbolic stacks of the mask simulation (4000000)\n"
    "  --tag BEGIN RULE END       tagged regions (repeatable): the language becomes free\n"
    "                             text (any UTF-8 in which no BEGIN occurs) where each\n"
    "                             BEGIN opens a region matched by RULE and closed by\n"
    "                             END, then free text again, any number of times; the\n"
    "                             first BEGIN to occur opens (the longest on a tie).\n"
    "                             EOS: in free text, or when RULE is complete\n"
    "  --tags-eos-free-only       EOS only in free text (every region closed)\n"
    "  --trigger-word W           lazy grammar (repeatable, with the options below):\n"
    "                             free text until W occurs (inside longer words too);\n"
    "                             the grammar then starts at W, W replayed into it\n"
    "  --trigger-pattern RE       ... until RE matches; the grammar starts at RE's\n"
    "                             first capture group, else at the match\n"
    "  --trigger-pattern-full RE  ... until RE matches the whole text so far\n"
    "  --trigger-token ID         ... until token ID is committed\n"
    "                             RE: a subset of ECMAScript over bytes: literals,\n"
    "                             escapes, . [...] \\d \\w \\s (negations too), groups\n"
    "                             (...) (?:...), |, * + ? {m,n} (lazy too); no\n"
    "                             anchors, \\b, back references or lookaround\n"
    "  --stats                    also print compile statistics to stdout\n"
    "  -h, --help                 this help\n"
    "\n"
    "exit status: 0 compiled (every grammar), 1 errors (file:line:col: error: ...),\n"
    "2 usage\n";

static const char USAGE_CHECK[] =
    "usage: gcgc check GRAMMAR.gbnf [--root NAME] [--count N [vocabulary]] [--report FILE]\n"
    "\n"
    "Parses and normalizes GRAMMAR.gbnf and builds its LR tables without writing an\n"
    "artifact; prints diagnostics and statistics (rules, nonterminals, productions,\n"
    "byte classes, LR states, conflicts) to stdout.\n"
    "\n"
    "options:\n"
    "  --root NAME        start rule (default: root)\n"
    "  --count N          print the exact number of sentences of at most N bytes, and\n"
    "                     with a vocabulary the number of token sequences spelling them\n"
    "  --tokenizer FILE, --vocab-hex FILE, --tiktoken FILE, --eos ID\n"
    "                     the vocabulary for --count (as for compile)\n"
    "  --report FILE      write the LR states with their items and every conflict\n"
    "                     cell with the productions involved\n"
    "  -h, --help         this help\n"
    "\n"
    "exit status: 0 no errors, 1 errors, 2 usage\n";

static const char USAGE_VOCAB[] =
    "usage: gcgc vocab (--tokenizer T.json | --vocab-hex FILE | --tiktoken FILE | --vocab F.gcgv)\n"
    "                  [--eos ID]... -o MODEL.gcgv\n"
    "\n"
    "Writes a prepared vocabulary: the token bytes, EOS ids and token trie every\n"
    "artifact of this model needs, held once by the runtime however many grammars\n"
    "use it. Artifacts compiled with `gcgc compile --vocab-ref` name it by its\n"
    "fingerprint (printed) and open with `gcg ... --vocab MODEL.gcgv`. Without a\n"
    "vocabulary option: the 256 single bytes.\n"
    "\n"
    "exit status: 0 ok, 1 errors, 2 usage\n";

/* What `gcgc compile`, `gcgc check` and `gcgc vocab` were asked to do. */
typedef struct cli_args {
    const char **grammars;    /* the positional arguments            */
    int n_grammars;
    const char *output;       /* -o ("-" = stdout)                   */
    const char *out_dir;      /* compile --out-dir (batch)           */
    const char *report;       /* compile: TSV; check: LR report      */
    const char *root;         /* --root, NULL = "root"               */
    const char *tokenizer;    /* --tokenizer                         */
    const char *vocab_hex;    /* --vocab-hex                         */
    const char *tiktoken;     /* --tiktoken                          */
    const char *vocab;        /* --vocab (a .gcgv)                   */
    bool vocab_ref;           /* compile --vocab-ref                 */
    uint32_t eos[MAX_EOS];    /* --eos, in the order given           */
    uint32_t n_eos;
    bool count;               /* check --count N                     */
    uint32_t count_n;
    bool strict_latency;
    bool stats;
    bool help;
    uint32_t limits[5];       /* --max-*, in LIMIT_OPTIONS order (0: default) */
    gcgc_tag tags[MAX_TAGS];  /* --tag BEGIN RULE END                */
    uint32_t n_tags;
    bool tags_eos_free_only;  /* --tags-eos-free-only                */
    gcgc_trigger triggers[MAX_TRIGGERS]; /* --trigger-*, in order    */
    uint32_t n_triggers;
} cli_args;

/* The compiler's limits, by flag (see compile_limits.h for the defaults). */
static const char *const LIMIT_OPTIONS[5] = {"--max-repeat", "--max-grammar-symbols", "--max-lr-states",
                                             "--max-automaton-states", "--max-sim-stacks"};

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

/* ---- argument parsing ----------------------------------------------------- */

/* An option that takes a value, and the commands that accept it. */
typedef struct opt_spec {
    const char *name, *shrt;
    bool compile, check;
    size_t field;             /* offsetof(cli_args, ...) of a const char * */
} opt_spec;

static const opt_spec VALUE_OPTIONS[] = {
    {"--root", NULL, true, true, offsetof(cli_args, root)},
    {"--output", "-o", true, false, offsetof(cli_args, output)},
    {"--out-dir", NULL, true, false, offsetof(cli_args, out_dir)},
    {"--report", NULL, true, true, offsetof(cli_args, report)},
    {"--tokenizer", NULL, true, true, offsetof(cli_args, tokenizer)},
    {"--vocab-hex", NULL, true, true, offsetof(cli_args, vocab_hex)},
    {"--tiktoken", NULL, true, true, offsetof(cli_args, tiktoken)},
    {"--vocab", NULL, true, false, offsetof(cli_args, vocab)},
};

/* --eos and --count take numbers. Returns -1 when consumed, else an exit
 * status. */
static int number_option(const char *cmd, const char *arg, const char *val, cli_args *a)
{
    if (strncmp(arg, "--eos", 5) == 0) {
        if (a->n_eos == MAX_EOS)
            return usage_error(cmd, "too many --eos (limit %d)", MAX_EOS);
        if (!parse_u32(val, &a->eos[a->n_eos++]))
            return usage_error(cmd, "--eos needs a token id, got '%s'", val);
        return -1;
    }
    a->count = true;
    if (!parse_u32(val, &a->count_n) || a->count_n > GCG_COUNT_MAX_LEN)
        return usage_error(cmd, "--count needs a length from 0 to %u, got '%s'",
                           GCG_COUNT_MAX_LEN, val);
    return -1;
}

/* One option of `compile` or `check`. Returns -1 when consumed, else an
 * exit status (usage error). */
static int parse_option(const char *cmd, int argc, char **argv, int *i, cli_args *a)
{
    const char *arg = argv[*i], *val = NULL;
    bool compile = strcmp(cmd, "check") != 0; /* compile, vocab */
    int r = 0;
    for (size_t k = 0; k < sizeof VALUE_OPTIONS / sizeof VALUE_OPTIONS[0]; k++) {
        const opt_spec *o = &VALUE_OPTIONS[k];
        if (!(compile ? o->compile : o->check))
            continue;
        if ((r = opt_value(argc, argv, i, o->name, o->shrt, &val)) > 0) {
            *(const char **)((char *)a + o->field) = val;
            return -1;
        }
        if (r < 0)
            return usage_error(cmd, "option %s needs a value", arg);
    }
    for (size_t k = 0; k < 5; k++) {
        if ((r = opt_value(argc, argv, i, LIMIT_OPTIONS[k], NULL, &val)) == 0)
            continue;
        if (r < 0 || !parse_u32(val, &a->limits[k]) || a->limits[k] == 0)
            return usage_error(cmd, "%s needs a positive number", LIMIT_OPTIONS[k]);
        return -1;
    }
    if ((r = opt_value(argc, argv, i, "--eos", NULL, &val)) != 0 ||
        (!compile && (r = opt_value(argc, argv, i, "--count", NULL, &val)) != 0))
        return r < 0 ? usage_error(cmd, "option %s needs a value", arg)
                     : number_option(cmd, arg, val, a);
    static const char *const TRIGGER_OPTS[] = {"--trigger-word", "--trigger-pattern",
                                               "--trigger-pattern-full", "--trigger-token"};
    for (int k = 0; compile && k < 4; k++) {
        if ((r = opt_value(argc, argv, i, TRIGGER_OPTS[k], NULL, &val)) == 0)
            continue;
        if (r < 0)
            return usage_error(cmd, "option %s needs a value", arg);
        if (a->n_triggers == MAX_TRIGGERS)
            return usage_error(cmd, "too many triggers (limit %d)", MAX_TRIGGERS);
        gcgc_trigger *t = &a->triggers[a->n_triggers++];
        *t = (gcgc_trigger){(gcgc_trigger_kind)k, val, 0};
        if (k == GCGC_TRIGGER_TOKEN && !parse_u32(val, &t->token))
            return usage_error(cmd, "--trigger-token needs a token id, got '%s'", val);
        return -1;
    }
    if (compile && strcmp(arg, "--tag") == 0) {
        if (*i + 3 >= argc)
            return usage_error(cmd, "--tag needs three values: BEGIN RULE END");
        if (a->n_tags == MAX_TAGS)
            return usage_error(cmd, "too many --tag (limit %d)", MAX_TAGS);
        a->tags[a->n_tags++] = (gcgc_tag){argv[*i + 1], argv[*i + 2], argv[*i + 3]};
        *i += 3;
    } else if (compile && strcmp(arg, "--tags-eos-free-only") == 0)
        a->tags_eos_free_only = true;
    else if (compile && strcmp(arg, "--strict-latency") == 0)
        a->strict_latency = true;
    else if (compile && strcmp(arg, "--stats") == 0)
        a->stats = true;
    else if (compile && strcmp(arg, "--vocab-ref") == 0)
        a->vocab_ref = true;
    else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
        a->help = true;
    else
        return usage_error(cmd, "unknown option '%s'", arg);
    return -1;
}

/* The combinations that make sense; -1 when they do. */
static int check_args(const char *cmd, const cli_args *a)
{
    bool compile = strcmp(cmd, "compile") == 0;
    if ((a->tokenizer != NULL) + (a->vocab_hex != NULL) + (a->tiktoken != NULL) + (a->vocab != NULL) > 1)
        return usage_error(cmd, "--tokenizer, --vocab-hex, --tiktoken and --vocab exclude each other");
    if (strcmp(cmd, "vocab") == 0) {
        if (a->n_grammars)
            return usage_error(cmd, "unexpected argument '%s'", a->grammars[0]);
        if (a->out_dir || a->report || a->root || a->vocab_ref || a->stats || a->strict_latency)
            return usage_error(cmd, "only vocabulary options, --eos and -o apply");
        return a->output ? -1 : usage_error(cmd, "no output file given (-o MODEL.gcgv)");
    }
    if (a->n_grammars == 0)
        return usage_error(cmd, "no grammar file given");
    if (!compile && a->n_grammars > 1)
        return usage_error(cmd, "unexpected argument '%s'", a->grammars[1]);
    if (!compile)
        return -1;
    if (a->out_dir && a->output)
        return usage_error(cmd, "-o and --out-dir exclude each other");
    if (a->tags_eos_free_only && a->n_tags == 0)
        return usage_error(cmd, "--tags-eos-free-only needs --tag");
    if (!a->out_dir && a->report)
        return usage_error(cmd, "--report needs --out-dir (it reports a batch)");
    if (!a->out_dir && a->n_grammars > 1)
        return usage_error(cmd, "several grammars need --out-dir DIR");
    if (!a->out_dir && !a->output)
        return usage_error(cmd, "no output file given (-o OUT.gcg)");
    if (a->output && strcmp(a->output, "-") == 0 && a->stats)
        return usage_error(cmd, "--stats prints to stdout, where -o - writes the artifact");
    return -1;
}

/* Returns -1 when the arguments are complete and consistent, else an exit
 * status (0 after printing help). a->grammars is malloc'ed. */
static int parse_args(const char *cmd, int argc, char **argv, cli_args *a)
{
    memset(a, 0, sizeof *a);
    a->grammars = malloc(((size_t)argc + 1) * sizeof *a->grammars);
    if (!a->grammars)
        return EXIT_ERRORS;
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        if (!options_done && strcmp(argv[i], "--") == 0) {
            options_done = true;
        } else if (!options_done && argv[i][0] == '-' && argv[i][1] != '\0') {
            int r = parse_option(cmd, argc, argv, &i, a);
            if (r >= 0)
                return r;
        } else {
            a->grammars[a->n_grammars++] = argv[i];
        }
    }
    if (a->help) {
        fputs(strcmp(cmd, "compile") == 0 ? USAGE_COMPILE
              : strcmp(cmd, "vocab") == 0  ? USAGE_VOCAB
                                           : USAGE_CHECK,
              stdout);
        return 0;
    }
    return check_args(cmd, a);
}

/* ---- output files ---------------------------------------------------------- */

/* Writes an artifact to `path` ("-": stdout), as cli_output.h says; the
 * grammars and the vocabulary file are the inputs it may not replace. */
static int write_output(const cli_args *a, const char *path, const uint8_t *data, size_t n)
{
    const char **inputs = malloc(((size_t)a->n_grammars + 4) * sizeof *inputs);
    if (!inputs) {
        fprintf(stderr, "gcgc: out of memory\n");
        return EXIT_ERRORS;
    }
    size_t k = 0;
    for (int i = 0; i < a->n_grammars; i++)
        inputs[k++] = a->grammars[i];
    inputs[k++] = a->tokenizer, inputs[k++] = a->vocab_hex, inputs[k++] = a->tiktoken, inputs[k++] = a->vocab;
    int rc = gcgc_cli_write(path, data, n, inputs, k);
    free(inputs);
    return rc;
}

/* ---- vocabularies ---------------------------------------------------------- */

static const char *vocab_path(const cli_args *a)
{
    return a->tokenizer ? a->tokenizer : a->vocab_hex ? a->vocab_hex : a->tiktoken ? a->tiktoken : a->vocab;
}

/* The last component of a path ("dir/g.gbnf" -> "g.gbnf"), for the metadata:
 * an artifact should not depend on where it was compiled. */
static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* Prints the EOS ids in use, where they came from, and any warning. */
static void print_eos(const gcgc_vocab *v)
{
    uint32_t n = 0;
    const uint32_t *eos = gcgc_vocab_eos(v, &n);
    fputs("EOS ids:", stderr);
    for (uint32_t i = 0; i < n; i++)
        fprintf(stderr, " %u", eos[i]);
    fprintf(stderr, "%s (from %s)\n", n ? "" : " none",
            v ? gcgc_vocab_eos_source(v) : "none given; the 256 single bytes");
    if (v && gcgc_vocab_eos_warning(v)[0])
        fprintf(stderr, "gcgc: warning: %s\n", gcgc_vocab_eos_warning(v));
}

/* The prepared vocabulary the options name; *v NULL (the compiler's
 * default, the 256 single bytes, naming itself in META) without any. */
static int load_vocab(const cli_args *a, gcgc_vocab **v)
{
    *v = NULL;
    gcg_error err;
    gcg_status st = GCG_OK;
    if (a->tokenizer)
        st = gcgc_vocab_load_hf(a->tokenizer, a->eos, a->n_eos, v, &err);
    else if (a->vocab_hex)
        st = gcgc_vocab_load_hex(a->vocab_hex, a->eos, a->n_eos, v, &err);
    else if (a->tiktoken)
        st = gcgc_vocab_load_tiktoken(a->tiktoken, a->eos, a->n_eos, v, &err);
    else if (a->vocab)
        st = gcgc_vocab_load_gcgv(a->vocab, v, &err);
    else if (a->n_eos)
        st = gcgc_vocab_bytes256(a->eos, a->n_eos, v, &err);
    if (st != GCG_OK) {
        fprintf(stderr, "%s%s\n", err.msg[0] == '\0' || !vocab_path(a) ? "gcgc: vocabulary: " : "",
                err.msg);
        return EXIT_ERRORS;
    }
    return 0;
}

/* ---- gcgc compile ------------------------------------------------------- */

void gcgc_print_certificate(FILE *out, const gcg_certificate *c)
{
    if (c->bounded)
        fprintf(out,
                "certificate: at most %u stack reads, %u set operations, %llu bytes per "
                "frontier node\n",
                c->max_stack_reads, c->max_set_ops, (unsigned long long)c->max_bytes);
    else
        fprintf(out, "certificate: unbounded (rule %s)\n", c->unbounded_rule);
    if (c->bounded)
        fprintf(out, "certificate per mask: %u stack reads, %u edges, %u set operations\n", c->max_stack_reads,
                c->max_edges, c->max_set_ops);
    else
        fprintf(out, "certificate per mask: unbounded stack reads and edges (%s, rule %s), %u set operations\n",
                c->unbounded_reason == GCG_UNBOUNDED_AMBIGUITY ? "ambiguity" : "recursion", c->unbounded_rule,
                c->max_set_ops);
    if (c->commit_bounded)
        fprintf(out, "certificate per commit: at most %u work units per byte\n", c->max_commit_step_work);
    else if (c->commit_unbounded_reason == GCG_UNBOUNDED_RECURSION)
        fprintf(out, "certificate per commit: unbounded (recursion, rule %s)\n", c->commit_unbounded_rule);
    else if (c->commit_unbounded_reason == GCG_UNBOUNDED_AMBIGUITY)
        fprintf(out, "certificate per commit: no bound stated (ambiguity, rule %s)\n", c->commit_unbounded_rule);
}

static void print_summary(const char *output, const gcgc_vocab *v, const gcgc_stats *s)
{
    print_eos(v);
    fprintf(stderr, "LR states: %u (%u before merging)\n", s->lr_states, s->lr_states_built);
    fprintf(stderr, "conflicts: %u shift/reduce, %u reduce/reduce\n", s->sr_conflicts,
            s->rr_conflicts);
    fprintf(stderr, "automaton: %u states (%u before minimization), %u token sets\n", s->automaton_states,
            s->automaton_states_built, s->token_sets);
    fprintf(stderr, "artifact: %zu bytes -> %s\n", s->artifact_bytes,
            strcmp(output, "-") == 0 ? "stdout" : output);
    fprintf(stderr, "compile time: %.1f ms\n", s->seconds * 1e3);
    gcgc_print_certificate(stderr, &s->certificate);
}

static void print_stats(const gcgc_stats *s)
{
    printf("LR states: %u\n", s->lr_states);
    printf("LR states before merging: %u\n", s->lr_states_built);
    printf("conflicts: %u shift/reduce, %u reduce/reduce\n", s->sr_conflicts, s->rr_conflicts);
    printf("automaton states: %u\n", s->automaton_states);
    printf("automaton states before minimization: %u\n", s->automaton_states_built);
    printf("token sets: %u\n", s->token_sets);
    printf("artifact bytes: %zu\n", s->artifact_bytes);
    printf("seconds: %.3f\n", s->seconds);
}

/* The compile's diagnostics, named by the path the user gave. */
static void print_messages(const gcgc_result *r, const char *path, FILE *out)
{
    static const char *const sev_name[] = {"error", "warning", "note"};
    for (uint32_t i = 0; i < gcgc_result_message_count(r); i++) {
        gcgc_severity sev;
        uint32_t line, col;
        const char *msg = gcgc_result_message(r, i, &sev, &line, &col);
        if (line)
            fprintf(out, "%s:%u:%u: %s: %s\n", path, line, col, sev_name[sev], msg);
        else
            fprintf(out, "%s: %s: %s\n", path, sev_name[sev], msg);
    }
}

/* Loads the compiled bytes back (the same validation a user's runtime will
 * do) before they may replace any file. */
static int verify_artifact(const cli_args *a, const gcgc_vocab *v, const uint8_t *bytes, size_t n)
{
    gcg_artifact *art = NULL;
    gcg_error err;
    const gcg_vocabulary *vocab = a->vocab_ref ? gcgc_vocab_runtime(v) : NULL;
    gcg_status st = gcg_artifact_open_memory_vocab(bytes, n, vocab, &art, &err);
    if (st != GCG_OK)
        fprintf(stderr, "gcgc: internal error: the compiled artifact does not load: %s\n",
                err.msg);
    gcg_artifact_free(art);
    return st == GCG_OK ? 0 : EXIT_ERRORS;
}

/* One grammar file through the compile library; *r holds the result (NULL
 * when the file could not be read: *why then says so). */
static gcg_status compile_file(const cli_args *a, const char *path, const gcgc_vocab *v,
                               gcgc_result **r, char *why, size_t why_len)
{
    size_t len = 0;
    char *src = read_file(path, &len);
    *r = NULL;
    if (!src) {
        snprintf(why, why_len, "cannot read %s: %s", path, strerror(errno));
        return GCG_ERR_IO;
    }
    gcgc_options opt;
    gcgc_options_default(&opt);
    opt.root = a->root;
    opt.grammar_name = base_name(path);
    opt.vocab_name = vocab_path(a) ? base_name(vocab_path(a)) : v ? "bytes256" : NULL;
    opt.strict_latency = a->strict_latency;
    opt.max_repeat = a->limits[0], opt.max_grammar_symbols = a->limits[1], opt.max_lr_states = a->limits[2];
    opt.max_automaton_states = a->limits[3], opt.max_sim_stacks = a->limits[4];
    opt.tags = a->tags, opt.n_tags = a->n_tags, opt.tags_eos_free_only = a->tags_eos_free_only;
    opt.triggers = a->triggers, opt.n_triggers = a->n_triggers;
    opt.vocab_by_reference = a->vocab_ref;
    gcg_status st = gcgc_compile(v, src, len, &opt, r);
    free(src);
    if (!*r)
        snprintf(why, why_len, "%s: %s", path, gcg_status_str(st));
    return st;
}

static int compile_single(const cli_args *a, const gcgc_vocab *v)
{
    gcgc_result *r;
    char why[512];
    const char *path = a->grammars[0];
    gcg_status st = compile_file(a, path, v, &r, why, sizeof why);
    if (!r) {
        fprintf(stderr, "gcgc: %s\n", why);
        return EXIT_ERRORS;
    }
    print_messages(r, path, stderr);
    size_t n = 0;
    const uint8_t *bytes = gcgc_result_artifact(r, &n);
    int rc = st == GCG_OK ? verify_artifact(a, v, bytes, n) : EXIT_ERRORS;
    if (rc == 0)
        rc = write_output(a, a->output, bytes, n);
    if (rc == 0) {
        gcgc_stats stats;
        gcgc_result_stats(r, &stats);
        print_summary(a->output, v, &stats);
        if (a->stats)
            print_stats(&stats);
    }
    gcgc_result_free(r);
    return rc;
}

/* TSV cell text: tab, newline, carriage return and backslash escaped. */
static void tsv_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\t': fputs("\\t", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\\': fputs("\\\\", f); break;
        default: fputc(*s, f);
        }
    }
}

/* The first error of a result, or "". */
static const char *first_error(const gcgc_result *r)
{
    for (uint32_t i = 0; r && i < gcgc_result_message_count(r); i++) {
        gcgc_severity sev;
        const char *msg = gcgc_result_message(r, i, &sev, NULL, NULL);
        if (sev == GCGC_ERROR)
            return msg;
    }
    return "";
}

/* One report row: grammar status compile_ms artifact_bytes lr_states
 * certificate message. */
static void report_row(FILE *f, const char *path, const gcgc_result *r, bool ok, const char *why)
{
    gcgc_stats s;
    memset(&s, 0, sizeof s);
    if (r)
        gcgc_result_stats(r, &s);
    tsv_text(f, path);
    fprintf(f, "\t%s\t%.3f\t%zu\t%u\t", ok ? "ok" : "error", s.seconds * 1e3,
            ok ? s.artifact_bytes : 0, s.lr_states);
    if (!ok)
        fputs("-", f);
    else if (s.certificate.bounded)
        fprintf(f, "bounded %u", s.certificate.max_stack_reads);
    else
        fprintf(f, "unbounded %s", s.certificate.unbounded_rule);
    fputc('\t', f);
    tsv_text(f, why ? why : "");
    fputc('\n', f);
}

/* DIR/NAME.gcg for grammar `path`; NULL when out of memory. */
static char *batch_output(const char *dir, const char *path)
{
    const char *name = base_name(path);
    size_t n = strlen(name);
    if (n > 5 && strcmp(name + n - 5, ".gbnf") == 0)
        n -= 5;
    char *out = malloc(strlen(dir) + n + 6);
    if (out)
        sprintf(out, "%s/%.*s.gcg", dir, (int)n, name);
    return out;
}

/* Whether an earlier grammar of the batch already writes the same output. */
static int earlier_same_output(const cli_args *a, int i)
{
    char *mine = batch_output(a->out_dir, a->grammars[i]);
    int found = -1;
    for (int k = 0; mine && k < i && found < 0; k++) {
        char *other = batch_output(a->out_dir, a->grammars[k]);
        if (other && strcmp(other, mine) == 0)
            found = k;
        free(other);
    }
    free(mine);
    return found;
}

/* One grammar of a batch; returns whether it compiled and was written. */
static bool batch_one(const cli_args *a, int i, const gcgc_vocab *v, FILE *report)
{
    const char *path = a->grammars[i];
    char why[600] = "";
    gcgc_result *r = NULL;
    char *out = batch_output(a->out_dir, path);
    int dup = earlier_same_output(a, i);
    gcg_status st = GCG_ERR_NOMEM;
    if (dup >= 0)
        snprintf(why, sizeof why, "output %s is also the output of %s", out ? out : "",
                 a->grammars[dup]);
    else if (out)
        st = compile_file(a, path, v, &r, why, sizeof why);
    if (r)
        print_messages(r, path, stderr);
    size_t n = 0;
    const uint8_t *bytes = gcgc_result_artifact(r, &n);
    bool ok = r && st == GCG_OK && verify_artifact(a, v, bytes, n) == 0 &&
              write_output(a, out, bytes, n) == 0;
    if (!ok && !why[0])
        snprintf(why, sizeof why, "%s", r && first_error(r)[0] ? first_error(r) : "not written");
    if (dup >= 0 || (!r && why[0]))
        fprintf(stderr, "gcgc: %s\n", why);
    fprintf(stderr, "%s: %s\n", path, ok ? "ok" : "error");
    if (report)
        report_row(report, path, r, ok, ok ? "" : why);
    gcgc_result_free(r);
    free(out);
    return ok;
}

static int compile_batch(const cli_args *a, const gcgc_vocab *v)
{
    struct stat sb;
    if (stat(a->out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "gcgc: --out-dir %s: %s\n", a->out_dir,
                errno && stat(a->out_dir, &sb) != 0 ? strerror(errno) : "not a directory");
        return EXIT_ERRORS;
    }
    FILE *report = NULL;
    if (a->report && !(report = fopen(a->report, "w"))) {
        fprintf(stderr, "gcgc: cannot write %s: %s\n", a->report, strerror(errno));
        return EXIT_ERRORS;
    }
    print_eos(v);
    if (report)
        fputs("grammar\tstatus\tcompile_ms\tartifact_bytes\tlr_states\tcertificate\tmessage\n",
              report);
    int failed = 0;
    for (int i = 0; i < a->n_grammars; i++)
        failed += !batch_one(a, i, v, report);
    if (report && fclose(report) != 0) {
        fprintf(stderr, "gcgc: cannot write %s: %s\n", a->report, strerror(errno));
        failed++;
    }
    fprintf(stderr, "compiled %d of %d grammars\n", a->n_grammars - failed, a->n_grammars);
    return failed ? EXIT_ERRORS : 0;
}

static int cmd_compile(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args("compile", argc, argv, &a);
    gcgc_vocab *v = NULL;
    if (rc >= 0) { /* help or a usage error */
        free(a.grammars);
        return rc;
    }
    rc = load_vocab(&a, &v);
    /* By reference needs a vocabulary to refer to: the 256 bytes by default. */
    if (rc == 0 && a.vocab_ref && !v && gcgc_vocab_bytes256(NULL, 0, &v, NULL) != GCG_OK)
        rc = EXIT_ERRORS;
    if (rc == 0)
        rc = a.out_dir ? compile_batch(&a, v) : compile_single(&a, v);
    gcgc_vocab_free(v);
    free(a.grammars);
    return rc;
}

/* ---- gcgc vocab ----------------------------------------------------------- */

static int cmd_vocab(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args("vocab", argc, argv, &a);
    gcgc_vocab *v = NULL;
    if (rc >= 0) { /* help or a usage error */
        free(a.grammars);
        return rc;
    }
    rc = load_vocab(&a, &v);
    if (rc == 0 && !v && gcgc_vocab_bytes256(NULL, 0, &v, NULL) != GCG_OK)
        rc = EXIT_ERRORS;
    uint8_t *bytes = NULL;
    size_t n = 0;
    if (rc == 0 && gcgc_vocab_write(v, &bytes, &n) != GCG_OK) {
        fputs("gcgc: vocab: out of memory\n", stderr);
        rc = EXIT_ERRORS;
    }
    if (rc == 0)
        rc = write_output(&a, a.output, bytes, n);
    if (rc == 0) {
        print_eos(v);
        fprintf(stderr, "vocabulary: %u tokens, fingerprint %016llx, %zu bytes\n", gcgc_vocab_size(v),
                (unsigned long long)gcgc_vocab_fingerprint(v), n);
    }
    free(bytes);
    gcgc_vocab_free(v);
    free(a.grammars);
    return rc;
}

/* ---- gcgc check ----------------------------------------------------------- */

static void print_check_stats(const gcg_compile_stats *s)
{
    printf("rules: %u\n", s->gbnf_rules);
    printf("nonterminals: %u\n", s->nonterminals);
    printf("productions: %u\n", s->productions);
    printf("byte classes: %u\n", s->byte_classes);
    printf("LR states: %u\n", s->lr_states);
    printf("conflicts: %u shift/reduce, %u reduce/reduce\n", s->sr_conflicts, s->rr_conflicts);
}

/* The vocabulary for --count, through the internal loaders (counting reads
 * token bytes). Returns false after printing the errors. */
static bool load_count_vocab(const cli_args *a, gcg_vocab *v, bool *have)
{
    gcg_diag d;
    gcg_diag_init(&d, vocab_path(a));
    gcg_status st = GCG_OK;
    *have = vocab_path(a) || a->n_eos;
    if (a->tokenizer)
        st = gcg_vocab_load_hf(a->tokenizer, a->eos, a->n_eos, v, &d);
    else if (a->vocab_hex)
        st = gcg_vocab_load_hex(a->vocab_hex, a->eos, a->n_eos, v, &d);
    else if (a->tiktoken)
        st = gcg_vocab_load_tiktoken(a->tiktoken, a->eos, a->n_eos, v, &d);
    else if (a->n_eos)
        st = gcg_vocab_bytes256(a->eos, a->n_eos, v);
    gcg_diag_print(&d, stderr);
    if (st != GCG_OK && d.n_errors == 0)
        fprintf(stderr, "gcgc: vocabulary: %s\n", gcg_status_str(st));
    gcg_diag_free(&d);
    return st == GCG_OK;
}

/* check --count N: prints "sentences up to N bytes: S" and, with a
 * vocabulary, "token sequences spelling them: T". */
static int run_count(const cli_args *a, const gcg_check_tables *t)
{
    gcg_vocab v;
    bool have = false;
    memset(&v, 0, sizeof v);
    if (!load_count_vocab(a, &v, &have))
        return EXIT_ERRORS;
    gcg_count_result res;
    char why[256];
    gcg_status st = gcg_count(t->lr, t->bc, have ? &v : NULL, a->count_n, &res, why, sizeof why);
    if (st == GCG_OK) {
        gmp_printf("sentences up to %u bytes: %Zd\n", a->count_n, res.sentences);
        if (have)
            gmp_printf("token sequences spelling them: %Zd\n", res.spellings);
        gcg_count_result_free(&res);
    } else {
        fprintf(stderr, "gcgc: --count: %s\n", why);
    }
    gcg_vocab_free(&v);
    return st == GCG_OK ? 0 : EXIT_ERRORS;
}

static int write_lr_report(const cli_args *a, const gcg_check_tables *t)
{
    FILE *f = strcmp(a->report, "-") == 0 ? stdout : fopen(a->report, "w");
    if (!f) {
        fprintf(stderr, "gcgc: cannot write %s: %s\n", a->report, strerror(errno));
        return EXIT_ERRORS;
    }
    gcg_status st = gcg_lr_report(t->g, t->bc, t->lr, f);
    int e = errno;
    if ((f != stdout && fclose(f) != 0) || st != GCG_OK) {
        fprintf(stderr, "gcgc: cannot write %s: %s\n", a->report,
                st == GCG_ERR_NOMEM ? "out of memory" : strerror(e));
        return EXIT_ERRORS;
    }
    return 0;
}

/* What after_check needs. */
typedef struct check_ctx {
    const cli_args *a;
    const gcg_compile_stats *stats;
    const gcg_diag *diag;   /* printed first (warnings), then marked printed */
    bool printed;
} check_ctx;

/* What check does once the tables are built: statistics, then the LR
 * report and the counts asked for. */
static int after_check(const gcg_check_tables *t, void *arg)
{
    check_ctx *ctx = arg;
    const cli_args *a = ctx->a;
    gcg_diag_print(ctx->diag, stdout);
    ctx->printed = true;
    print_check_stats(ctx->stats);
    fflush(stdout);
    int rc = 0;
    if (a->report)
        rc = write_lr_report(a, t);
    if (rc == 0 && a->count)
        rc = run_count(a, t);
    return rc;
}

static int cmd_check(int argc, char **argv)
{
    cli_args a;
    int rc = parse_args("check", argc, argv, &a);
    if (rc >= 0) {
        free(a.grammars);
        return rc;
    }
    size_t len = 0;
    const char *path = a.grammars[0];
    char *src = read_file(path, &len);
    if (!src) {
        fprintf(stderr, "gcgc: cannot read %s: %s\n", path, strerror(errno));
        free(a.grammars);
        return EXIT_ERRORS;
    }
    gcg_compile_options opt = {.root_name = a.root, .grammar_name = base_name(path),
                               .limits = {a.limits[0], a.limits[1], a.limits[2], a.limits[3], a.limits[4]}};
    gcg_diag diag;
    gcg_diag_init(&diag, path);
    gcg_compile_stats stats;
    int after = 0;
    check_ctx ctx = {&a, &stats, &diag, false};
    gcg_status st = gcg_check_tables_run(src, len, &opt, &stats, &diag, after_check, &ctx, &after);
    if (!ctx.printed)
        gcg_diag_print(&diag, stdout);
    if (st != GCG_OK && diag.n_errors == 0)
        fprintf(stderr, "gcgc: %s: %s\n", path, gcg_status_str(st));
    rc = st == GCG_OK && diag.n_errors == 0 ? after : EXIT_ERRORS;
    gcg_diag_free(&diag);
    free(src);
    free(a.grammars);
    return rc;
}

/* ---- main ---------------------------------------------------------------- */

/* The subcommands: a new one is one line here and its cmd_ function. */
static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} COMMANDS[] = {
    {"compile", cmd_compile},
    {"check", cmd_check},
    {"vocab", cmd_vocab},
    {"schema", gcgc_schema_cmd},
};

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
    if (strcmp(cmd, "compile") == 0 && gcgc_schema_compile_wanted(argc - 2, argv + 2))
        return gcgc_schema_compile_cmd(argc - 2, argv + 2);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(cmd, COMMANDS[i].name) == 0)
            return COMMANDS[i].run(argc - 2, argv + 2);
    fprintf(stderr, "gcgc: unknown command '%s'\nTry 'gcgc --help'.\n", cmd);
    return EXIT_USAGE;
}
