/* schema_cmd.c — `gcgc schema` and `gcgc compile --schema` (see schema_cmd.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_output.h"
#include "gcgc.h"
#include "schema_cmd.h"

#define MAX_EOS 64

static const char USAGE[] =
    "usage: gcgc schema SCHEMA.json [-o G.gbnf] [options]\n"
    "       gcgc compile --schema SCHEMA.json -o OUT.gcg\n"
    "            [--tokenizer FILE | --vocab-hex FILE | --vocab MODEL.gcgv] [--eos ID]...\n"
    "            [--vocab-ref] [--strict-latency] [options]\n"
    "\n"
    "Converts a JSON Schema into a GBNF grammar (one rule per subschema, named after\n"
    "its JSON pointer), printed or written to G.gbnf, or compiles it into an artifact.\n"
    "-o writes regular files only (a symlink is followed; a device, FIFO, directory or\n"
    "an input of the command is refused).\n"
    "\n"
    "options:\n"
    "  --ws json|compact|max=N   whitespace between tokens: any (default), none, or\n"
    "                            runs of at most N characters\n"
    "  --lenient                 drop keywords that cannot be enforced (warning)\n"
    "  --oneof-as-anyof          accept oneOf whose branches may overlap as anyOf\n"
    "  --vocab-ref               store only the vocabulary's fingerprint (see\n"
    "                            gcgc compile --help)\n"
    "  --strict-latency          an unbounded latency certificate is an error\n"
    "  -h, --help                this help\n"
    "\n"
    "exit status: 0 ok, 1 errors (SCHEMA.json: error: #/json/pointer: ...), 2 usage\n";

typedef struct args {
    const char *schema, *output, *tokenizer, *vocab_hex, *gcgv;
    uint32_t eos[MAX_EOS], n_eos;
    bool vocab_ref, strict_latency;
    gcgc_schema_options sopt;
} args;

static int usage(const char *fmt, const char *what)
{
    fprintf(stderr, "gcgc: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\n%s", USAGE);
    return 2;
}

static int parse(int argc, char **argv, bool compile, args *a)
{
    memset(a, 0, sizeof *a);
    for (int i = 0; i < argc; i++) {
        const char *s = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            fputs(USAGE, stdout);
            return 0;
        } else if (!strcmp(s, "--lenient")) {
            a->sopt.lenient = true;
        } else if (!strcmp(s, "--oneof-as-anyof")) {
            a->sopt.oneof_as_anyof = true;
        } else if (!strcmp(s, "--ws") && has_val) {
            const char *v = argv[++i];
            char *end;
            if (!strcmp(v, "json"))
                a->sopt.ws = 0;
            else if (!strcmp(v, "compact"))
                a->sopt.ws = 1;
            else if (!strncmp(v, "max=", 4) && (a->sopt.ws_max = (uint32_t)strtoul(v + 4, &end, 10), v[4]) &&
                     !*end && a->sopt.ws_max <= 10000)
                a->sopt.ws = 2;
            else
                return usage("bad --ws value '%s' (json, compact or max=N with N <= 10000)", v);
        } else if ((!strcmp(s, "-o") || !strcmp(s, "--output")) && has_val) {
            a->output = argv[++i];
        } else if (compile && !strcmp(s, "--schema") && has_val) {
            a->schema = argv[++i];
        } else if (compile && !strcmp(s, "--tokenizer") && has_val) {
            a->tokenizer = argv[++i];
        } else if (compile && !strcmp(s, "--vocab-hex") && has_val) {
            a->vocab_hex = argv[++i];
        } else if (compile && !strcmp(s, "--vocab") && has_val) {
            a->gcgv = argv[++i];
        } else if (compile && !strcmp(s, "--vocab-ref")) {
            a->vocab_ref = true;
        } else if (compile && !strcmp(s, "--strict-latency")) {
            a->strict_latency = true;
        } else if (compile && !strcmp(s, "--eos") && has_val) {
            char *end;
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || !*argv[i] || a->n_eos == MAX_EOS || v > UINT32_MAX)
                return usage("bad --eos '%s'", argv[i]);
            a->eos[a->n_eos++] = (uint32_t)v;
        } else if (s[0] == '-' && s[1]) {
            return usage("unknown option or missing value '%s'", s);
        } else if (!compile && !a->schema) {
            a->schema = s;
        } else {
            return usage("unexpected argument '%s'", s);
        }
    }
    if (!a->schema)
        return usage("%s", "no schema given");
    if (compile && !a->output)
        return usage("%s", "compile needs -o OUT.gcg");
    if (!!a->tokenizer + !!a->vocab_hex + !!a->gcgv > 1)
        return usage("%s", "give one of --tokenizer, --vocab-hex and --vocab");
    if (a->gcgv && a->n_eos)
        return usage("%s", "--eos with --vocab: a prepared vocabulary has its EOS ids");
    return -1;
}

static char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gcgc: cannot read %s: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + len, 1, cap - len, f)) > 0) {
        len += r;
        if (len == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (!buf)
        fprintf(stderr, "gcgc: out of memory reading %s\n", path);
    *n = len;
    return buf;
}

static void print_messages(const char *file, const char *msgs)
{
    for (const char *p = msgs; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(stderr, "%s: %.*s\n", file, (int)n, p);
        p += n + (nl != NULL);
    }
}

/* The output file, never one of the command's inputs (cli_output.h). */
static int write_file(const args *a, const void *data, size_t n)
{
    const char *inputs[] = {a->schema, a->tokenizer, a->vocab_hex, a->gcgv};
    return gcgc_cli_write(a->output, data, n, inputs, sizeof inputs / sizeof *inputs);
}

int gcgc_schema_cmd(int argc, char **argv)
{
    args a;
    int rc = parse(argc, argv, false, &a);
    if (rc >= 0)
        return rc;
    size_t n;
    char *json = read_all(a.schema, &n);
    if (!json)
        return 1;
    char *gbnf = NULL, *msgs = NULL;
    gcg_status st = gcgc_schema_to_gbnf(json, n, &a.sopt, &gbnf, &msgs);
    print_messages(a.schema, msgs);
    rc = 1;
    if (st == GCG_OK)
        rc = a.output ? write_file(&a, gbnf, strlen(gbnf)) : (fputs(gbnf, stdout) == EOF);
    free(gbnf);
    free(msgs);
    free(json);
    return rc;
}

bool gcgc_schema_compile_wanted(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--schema"))
            return true;
    return false;
}

int gcgc_schema_compile_cmd(int argc, char **argv)
{
    args a;
    int rc = parse(argc, argv, true, &a);
    if (rc >= 0)
        return rc;
    gcgc_vocab *v = NULL;
    gcg_error err;
    gcg_status st = a.tokenizer   ? gcgc_vocab_load_hf(a.tokenizer, a.eos, a.n_eos, &v, &err)
                    : a.vocab_hex ? gcgc_vocab_load_hex(a.vocab_hex, a.eos, a.n_eos, &v, &err)
                    : a.gcgv      ? gcgc_vocab_load_gcgv(a.gcgv, &v, &err)
                                  : gcgc_vocab_bytes256(a.eos, a.n_eos, &v, &err);
    if (st != GCG_OK) {
        fprintf(stderr, "gcgc: %s\n", err.msg);
        return 1;
    }
    size_t n;
    char *json = read_all(a.schema, &n);
    gcgc_result *res = NULL;
    char *msgs = NULL;
    gcgc_options o;
    gcgc_options_default(&o);
    o.grammar_name = a.schema;
    o.vocab_name = a.tokenizer ? a.tokenizer : a.vocab_hex ? a.vocab_hex : a.gcgv;
    o.vocab_by_reference = a.vocab_ref;
    o.strict_latency = a.strict_latency;
    st = json ? gcgc_compile_schema(v, json, n, &a.sopt, &o, &res, &msgs) : GCG_ERR_IO;
    print_messages(a.schema, msgs);
    if (res)
        fputs(gcgc_result_messages_text(res), stderr);
    rc = 1;
    if (st == GCG_OK) {
        size_t size;
        const uint8_t *art = gcgc_result_artifact(res, &size);
        gcgc_stats stats;
        gcgc_result_stats(res, &stats);
        rc = write_file(&a, art, size);
        if (rc == 0) {
            fprintf(stderr, "%s: %u LR states, %u automaton states, %zu bytes, %.3f s\n", a.output,
                    stats.lr_states, stats.automaton_states, size, stats.seconds);
            gcgc_print_certificate(stderr, &stats.certificate);
        }
    }
    gcgc_result_free(res);
    free(msgs);
    free(json);
    gcgc_vocab_free(v);
    return rc;
}
