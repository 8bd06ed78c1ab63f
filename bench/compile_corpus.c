/*
 * gcg_compile_corpus — the compile workload: compile every *.gbnf grammar of a
 * folder against one tokenizer vocabulary, prepared once, and report the
 * distribution of compile times, artifact sizes and peak memory, and the
 * failures by reason.
 *
 * Method: the vocabulary is loaded once (gcgc_vocab_load_hf) in this process.
 * Each grammar is then compiled by gcgc_compile in a forked child, which
 * inherits the prepared vocabulary copy-on-write; its artifact names that
 * vocabulary by fingerprint (--embed-vocab copies it in instead, about 4 MB
 * and a few milliseconds more per grammar). The child reports its
 * resident set just before compiling (the shared vocabulary and the process,
 * what every compile starts from) and its peak resident set (getrusage
 * ru_maxrss) after; the difference is what the compile itself needed. The
 * child arms alarm(timeout) first, so a compile that runs past the timeout is
 * killed and reported as a timeout, never a hang; --mem-limit caps its address
 * space (RLIMIT_AS) so that a runaway compile fails with out of memory.
 * Grammars run one at a time, so the times are not shared with a sibling.
 *
 * Output: one TSV line per grammar (--tsv), a summary table on stdout and a
 * JSON object (--json, included in bench/run's report.json). Exit status: 0
 * when the corpus was run (failures of single grammars are reported, not
 * fatal); 2 bad usage; 3 the vocabulary or the folder could not be read.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gcgc.h"
#include "stats.h"

/* Why a grammar did not compile. */
typedef enum outcome {
    OUT_OK, OUT_GRAMMAR, OUT_LIMIT, OUT_TIMEOUT, OUT_NOMEM, OUT_CRASH, OUT_OTHER, OUT_SKIPPED, OUT_COUNT
} outcome;

static const char *const OUTCOME_NAME[OUT_COUNT] = {"ok",  "grammar_error", "limit", "timeout", "out_of_memory",
                                                    "crash", "other", "skipped_budget"};

/* What the child sends back through its pipe (the message follows). */
typedef struct child_report {
    int32_t status;           /* gcg_status of gcgc_compile                  */
    double seconds;           /* gcgc_compile wall time (with --warm: the second) */
    double first_seconds;     /* the first compile in the child              */
    uint64_t artifact_bytes;
    uint64_t rss_before_kib;  /* resident set just before compiling          */
    uint64_t peak_rss_kib;    /* ru_maxrss after compiling                   */
    uint32_t lr_states, automaton_states;
    bool cert_bounded;
} child_report;

typedef struct grammar_row {
    char name[256];
    outcome out;
    child_report r;
    char msg[200];            /* first diagnostic line, or why it failed     */
} grammar_row;

typedef struct cli {
    const char *dir, *tokenizer, *tsv, *json;
    double timeout_s, budget_s;
    uint64_t mem_limit_mib;
    bool quiet;
    bool embed_vocab;         /* self-contained artifacts (default: by reference) */
    bool warm;                /* time a second compile in the child           */
} cli;

/* ---- the child ----------------------------------------------------------- */

static uint64_t rss_now_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, res = 0;
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &res) != 2) res = 0;
        fclose(f);
    }
    return (uint64_t)res * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
}

/* A forked child inherits its parent's peak RSS (the memory map is copied
 * with its high-water mark), and the parent peaked while it loaded the
 * vocabulary: writing 5 to clear_refs resets the mark to the current RSS
 * (Linux 4.0+), so ru_maxrss then measures this compile. */
static void reset_peak_rss(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (!f) return;
    fputs("5", f);
    fclose(f);
}

/* Runs in the child: compile, write the report and the first message, exit. */
static void child_compile(const cli *c, const gcgc_vocab *v, const char *name, const char *src, size_t len,
                          int fd) {
    if (c->mem_limit_mib) {
        struct rlimit rl = {.rlim_cur = c->mem_limit_mib << 20, .rlim_max = c->mem_limit_mib << 20};
        setrlimit(RLIMIT_AS, &rl);
    }
    reset_peak_rss();
    child_report r = {.rss_before_kib = rss_now_kib()};
    gcgc_options opt;
    gcgc_options_default(&opt);
    opt.grammar_name = name;
    opt.vocab_by_reference = !c->embed_vocab;
    gcgc_result *res = NULL;
    alarm((unsigned)(c->timeout_s + 0.999));
    uint64_t t0 = bench_now_ns();
    r.status = gcgc_compile(v, src, len, &opt, &res);
    r.seconds = r.first_seconds = (double)(bench_now_ns() - t0) / 1e9;
    if (c->warm && r.status == GCG_OK) { /* again, on the heap the first one left */
        gcgc_result_free(res);
        res = NULL;
        t0 = bench_now_ns();
        r.status = gcgc_compile(v, src, len, &opt, &res);
        r.seconds = (double)(bench_now_ns() - t0) / 1e9;
    }
    alarm(0);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    r.peak_rss_kib = (uint64_t)ru.ru_maxrss;
    char msg[200] = "";
    if (res) {
        gcgc_stats s;
        gcgc_result_stats(res, &s);
        r.artifact_bytes = s.artifact_bytes;
        r.lr_states = s.lr_states;
        r.automaton_states = s.automaton_states;
        r.cert_bounded = s.certificate.bounded;
        const char *text = gcgc_result_messages_text(res);
        snprintf(msg, sizeof msg, "%.*s", (int)strcspn(text, "\n"), text);
    }
    if (write(fd, &r, sizeof r) != (ssize_t)sizeof r || write(fd, msg, sizeof msg) != (ssize_t)sizeof msg) _exit(4);
    _exit(0);
}

/* ---- the parent ---------------------------------------------------------- */

static bool read_file(const char *path, char **out, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    bool ok = b && !ferror(f);
    fclose(f);
    if (!ok) free(b);
    *out = ok ? b : NULL;
    *len = n;
    return ok;
}

static outcome classify_status(int32_t st) {
    switch (st) {
    case GCG_OK: return OUT_OK;
    case GCG_ERR_FORMAT: return OUT_GRAMMAR;
    case GCG_ERR_LIMIT: return OUT_LIMIT;
    case GCG_ERR_NOMEM: return OUT_NOMEM;
    default: return OUT_OTHER;
    }
}

/* Reads exactly n bytes (the child may be killed halfway: false then). */
static bool read_all(int fd, void *p, size_t n) {
    char *b = p;
    while (n) {
        ssize_t k = read(fd, b, n);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return false;
        b += k;
        n -= (size_t)k;
    }
    return true;
}

/* A child that did not report: which signal ended it says why. */
static void classify_death(const cli *c, int ws, const struct rusage *ru, uint64_t t0, grammar_row *g) {
    g->r.peak_rss_kib = (uint64_t)ru->ru_maxrss;
    g->r.seconds = (double)(bench_now_ns() - t0) / 1e9;
    if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGALRM) {
        g->out = OUT_TIMEOUT;
        snprintf(g->msg, sizeof g->msg, "no artifact after %.0f s", c->timeout_s);
    } else if (WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL) {
        g->out = OUT_NOMEM;  /* the kernel's out-of-memory killer sends SIGKILL */
        snprintf(g->msg, sizeof g->msg, "killed (SIGKILL: out of memory?)");
    } else {
        g->out = OUT_CRASH;
        snprintf(g->msg, sizeof g->msg, WIFSIGNALED(ws) ? "killed by signal %d" : "child exit status %d",
                 WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
    }
}

static void compile_one(const cli *c, const gcgc_vocab *v, const char *path, grammar_row *g) {
    char *src;
    size_t len;
    if (!read_file(path, &src, &len)) {
        g->out = OUT_OTHER;
        snprintf(g->msg, sizeof g->msg, "cannot read: %s", strerror(errno));
        return;
    }
    int fds[2];
    if (pipe(fds)) {
        free(src);
        g->out = OUT_OTHER;
        snprintf(g->msg, sizeof g->msg, "pipe: %s", strerror(errno));
        return;
    }
    fflush(NULL);
    uint64_t t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        child_compile(c, v, g->name, src, len, fds[1]);
    }
    close(fds[1]);
    free(src);
    bool got = pid > 0 && read_all(fds[0], &g->r, sizeof g->r) && read_all(fds[0], g->msg, sizeof g->msg);
    close(fds[0]);
    int ws = 0;
    struct rusage ru = {0};
    if (pid > 0) while (wait4(pid, &ws, 0, &ru) < 0 && errno == EINTR) {}
    g->msg[sizeof g->msg - 1] = 0;
    if (got) g->out = classify_status(g->r.status);
    else if (pid > 0) classify_death(c, ws, &ru, t0, g);
    else {
        g->out = OUT_OTHER;
        snprintf(g->msg, sizeof g->msg, "fork: %s", strerror(errno));
    }
}

static int gbnf_filter(const struct dirent *d) {
    size_t n = strlen(d->d_name);
    return n > 5 && !strcmp(d->d_name + n - 5, ".gbnf");
}

/* ---- output -------------------------------------------------------------- */

static void tsv_header(FILE *f) {
    fprintf(f, "grammar\toutcome\tcompile_s\tartifact_bytes\trss_before_kib\tpeak_rss_kib\tlr_states\t"
               "automaton_states\tcert_bounded\tmessage\tfirst_compile_s\n");
}

/* One grammar's line, written (and flushed) as soon as it is compiled, so
 * that an interrupted run keeps what it measured. */
static void tsv_row(FILE *f, const grammar_row *g) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s", g->msg);
    for (char *p = msg; *p; p++)
        if (*p == '\t' || *p == '\n') *p = ' ';
    fprintf(f, "%s\t%s\t%.4f\t%llu\t%llu\t%llu\t%u\t%u\t%d\t%s\t%.4f\n", g->name, OUTCOME_NAME[g->out],
            g->r.seconds, (unsigned long long)g->r.artifact_bytes, (unsigned long long)g->r.rss_before_kib,
            (unsigned long long)g->r.peak_rss_kib, g->r.lr_states, g->r.automaton_states,
            g->out == OUT_OK && g->r.cert_bounded, msg, g->r.first_seconds);
    fflush(f);
}

/* Percentiles of one column over the compiled grammars. */
static bench_summary summarize_col(const grammar_row *g, size_t n, uint64_t (*get)(const grammar_row *)) {
    bench_samples s;
    bench_samples_init(&s);
    for (size_t i = 0; i < n; i++)
        if (g[i].out == OUT_OK) bench_samples_push(&s, get(&g[i]));
    bench_summary out;
    bench_summarize(&s, &out);
    bench_samples_free(&s);
    return out;
}

static uint64_t col_us(const grammar_row *g) { return (uint64_t)(g->r.seconds * 1e6); }
static uint64_t col_first_us(const grammar_row *g) { return (uint64_t)(g->r.first_seconds * 1e6); }
static uint64_t col_bytes(const grammar_row *g) { return g->r.artifact_bytes; }
static uint64_t col_peak(const grammar_row *g) { return g->r.peak_rss_kib; }
static uint64_t col_before(const grammar_row *g) { return g->r.rss_before_kib; }
static uint64_t col_delta(const grammar_row *g) {
    return g->r.peak_rss_kib > g->r.rss_before_kib ? g->r.peak_rss_kib - g->r.rss_before_kib : 0;
}

typedef struct corpus_summary {
    size_t count[OUT_COUNT], total;
    bench_summary time_us, first_us, bytes, peak, before, delta;
    double vocab_s, wall_s;
} corpus_summary;

static void summarize(const grammar_row *g, size_t n, corpus_summary *cs) {
    for (size_t i = 0; i < n; i++) cs->count[g[i].out]++;
    cs->total = n;
    cs->time_us = summarize_col(g, n, col_us);
    cs->first_us = summarize_col(g, n, col_first_us);
    cs->bytes = summarize_col(g, n, col_bytes);
    cs->peak = summarize_col(g, n, col_peak);
    cs->before = summarize_col(g, n, col_before);
    cs->delta = summarize_col(g, n, col_delta);
}

static void print_row(const char *what, const bench_summary *s, double scale, const char *fmt) {
    printf("  %-26s", what);
    const uint64_t v[] = {s->p50, s->p90, s->p99, s->max};
    for (int i = 0; i < 4; i++) printf(fmt, (double)v[i] * scale);
    printf("\n");
}

static int cmp_time_desc(const void *a, const void *b) {
    const grammar_row *x = *(grammar_row *const *)a, *y = *(grammar_row *const *)b;
    return (x->r.seconds < y->r.seconds) - (x->r.seconds > y->r.seconds);
}

static void print_slowest(const grammar_row *g, size_t n) {
    const grammar_row **p = malloc(n * sizeof *p);
    if (!p) return;
    for (size_t i = 0; i < n; i++) p[i] = &g[i];
    qsort(p, n, sizeof *p, cmp_time_desc);
    printf("slowest:\n");
    for (size_t i = 0; i < n && i < 5; i++)
        printf("  %-40s %-14s %8.2f s %9.0f KiB peak  %s\n", p[i]->name, OUTCOME_NAME[p[i]->out], p[i]->r.seconds,
               (double)p[i]->r.peak_rss_kib, p[i]->msg);
    free(p);
}

static void print_table(const cli *c, const corpus_summary *cs, const grammar_row *g, size_t n) {
    printf("compile corpus %s: %zu grammars, vocabulary loaded once in %.2f s, %.1f s in all\n", c->dir, cs->total,
           cs->vocab_s, cs->wall_s);
    for (int k = 0; k < OUT_COUNT; k++) printf("%s%s %zu", k ? ", " : "  ", OUTCOME_NAME[k], cs->count[k]);
    printf("\n  %-26s %10s %10s %10s %10s\n", "(compiled grammars)", "p50", "p90", "p99", "max");
    print_row(c->warm ? "compile time, warm (s)" : "compile time (s)", &cs->time_us, 1e-6, " %10.3f");
    if (c->warm)
        print_row("first compile in child (s)", &cs->first_us, 1e-6, " %10.3f");
    print_row("artifact (KiB)", &cs->bytes, 1.0 / 1024, " %10.1f");
    print_row("RSS before compile (MiB)", &cs->before, 1.0 / 1024, " %10.1f");
    print_row("peak RSS (MiB)", &cs->peak, 1.0 / 1024, " %10.1f");
    print_row("peak - before (MiB)", &cs->delta, 1.0 / 1024, " %10.1f");
    print_slowest(g, n);
}

static json_t *j_col(const bench_summary *s, double scale) {
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "p50", (double)s->p50 * scale, "p90", (double)s->p90 * scale,
                     "p99", (double)s->p99 * scale, "max", (double)s->max * scale, "mean", s->mean * scale);
}

static bool write_json(const cli *c, const corpus_summary *cs) {
    json_t *counts = json_object();
    for (int k = 0; k < OUT_COUNT; k++) json_object_set_new(counts, OUTCOME_NAME[k], json_integer((json_int_t)cs->count[k]));
    json_t *o = json_pack("{s:s, s:s, s:b, s:b, s:I, s:o, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o}", "dir",
                          c->dir, "tokenizer", c->tokenizer, "embed_vocab", c->embed_vocab, "warm", c->warm,
                          "grammars", (json_int_t)cs->total, "outcomes", counts, "timeout_s",
                          c->timeout_s, "vocab_load_s", cs->vocab_s, "wall_s", cs->wall_s, "compile_s",
                          j_col(&cs->time_us, 1e-6), "first_compile_s", j_col(&cs->first_us, 1e-6),
                          "artifact_bytes", j_col(&cs->bytes, 1), "rss_before_kib",
                          j_col(&cs->before, 1), "peak_rss_kib", j_col(&cs->peak, 1), "peak_minus_before_kib",
                          j_col(&cs->delta, 1));
    json_t *root = json_pack("{s:o}", "compile_corpus", o);
    int rc = json_dump_file(root, c->json, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    json_decref(root);
    return rc == 0;
}

/* ---- main ---------------------------------------------------------------- */

static void usage(FILE *f) {
    fputs("usage: gcg_compile_corpus --tokenizer TOKENIZER.json [options] DIR\n"
          "  compiles every DIR/*.gbnf against the vocabulary (loaded once)\n"
          "  --timeout S      per-grammar compile timeout in seconds (default 60)\n"
          "  --budget S       stop starting new compiles after S seconds in all (default: none);\n"
          "                   the rest are counted as skipped_budget\n"
          "  --mem-limit MIB  address-space limit of each compile (default: none)\n"
          "  --tsv FILE       one line per grammar\n"
          "  --json FILE      the summary as {\"compile_corpus\": {...}}\n"
          "  --embed-vocab    write self-contained artifacts (the vocabulary copied into\n"
          "                   each); by default they name the prepared vocabulary by its\n"
          "                   fingerprint, as an engine holding one vocabulary compiles\n"
          "  --warm           compile each grammar twice in its child and time the second:\n"
          "                   what a serving process that has compiled before pays (the\n"
          "                   first compile in a fresh child also pays copy-on-write\n"
          "                   faults on the heap it inherits; reported beside it)\n"
          "  --quiet          no table on stdout\n",
          f);
}

static int parse_cli(int argc, char **argv, cli *c) {
    static const struct option opts[] = {{"tokenizer", 1, 0, 't'}, {"timeout", 1, 0, 'T'}, {"budget", 1, 0, 'b'},
                                         {"mem-limit", 1, 0, 'm'}, {"tsv", 1, 0, 's'},     {"json", 1, 0, 'j'},
                                         {"quiet", 0, 0, 'q'},     {"help", 0, 0, 'h'},    {"embed-vocab", 0, 0, 'e'},
                                         {"warm", 0, 0, 'w'},      {0, 0, 0, 0}};
    *c = (cli){.timeout_s = 60};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (o) {
        case 't': c->tokenizer = optarg; break;
        case 'T': c->timeout_s = strtod(optarg, NULL); break;
        case 'b': c->budget_s = strtod(optarg, NULL); break;
        case 'm': c->mem_limit_mib = strtoull(optarg, NULL, 10); break;
        case 's': c->tsv = optarg; break;
        case 'j': c->json = optarg; break;
        case 'q': c->quiet = true; break;
        case 'e': c->embed_vocab = true; break;
        case 'w': c->warm = true; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!c->tokenizer || optind + 1 != argc || c->timeout_s < 1 || c->budget_s < 0) {
        usage(stderr);
        return 2;
    }
    c->dir = argv[optind];
    return -1;
}

static int run(const cli *c, const gcgc_vocab *v, struct dirent **ents, int n, double vocab_s) {
    grammar_row *g = calloc(n > 0 ? (size_t)n : 1, sizeof *g);
    FILE *f = c->tsv ? fopen(c->tsv, "w") : NULL;
    if (!g || (c->tsv && !f)) {
        fprintf(stderr, "gcg_compile_corpus: %s\n", g ? "cannot write the TSV" : "out of memory");
        free(g);
        if (f) fclose(f);
        return 3;
    }
    if (f) tsv_header(f);
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < n; i++) {
        snprintf(g[i].name, sizeof g[i].name, "%s", ents[i]->d_name);
        if (c->budget_s > 0 && (double)(bench_now_ns() - t0) / 1e9 > c->budget_s) {
            g[i].out = OUT_SKIPPED;
        } else {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", c->dir, ents[i]->d_name);
            compile_one(c, v, path, &g[i]);
        }
        if (f) tsv_row(f, &g[i]);
    }
    corpus_summary cs = {.vocab_s = vocab_s, .wall_s = (double)(bench_now_ns() - t0) / 1e9};
    summarize(g, (size_t)n, &cs);
    int rc = 0;
    if (f && fclose(f)) rc = 3;
    if (c->json && !write_json(c, &cs)) rc = 3;
    if (rc) fprintf(stderr, "gcg_compile_corpus: cannot write the outputs\n");
    if (!c->quiet) print_table(c, &cs, g, (size_t)n);
    free(g);
    return rc;
}

int main(int argc, char **argv) {
    cli c;
    int rc = parse_cli(argc, argv, &c);
    if (rc >= 0) return rc;
    struct dirent **ents = NULL;
    int n = scandir(c.dir, &ents, gbnf_filter, alphasort);
    if (n < 0) {
        fprintf(stderr, "gcg_compile_corpus: %s: %s\n", c.dir, strerror(errno));
        return 3;
    }
    gcgc_vocab *v = NULL;
    gcg_error e = {0};
    uint64_t t0 = bench_now_ns();
    if (gcgc_vocab_load_hf(c.tokenizer, NULL, 0, &v, &e) != GCG_OK) {
        fprintf(stderr, "gcg_compile_corpus: %s: %s\n", c.tokenizer, e.msg[0] ? e.msg : gcg_status_str(e.code));
        rc = 3;
    } else {
        rc = run(&c, v, ents, n, (double)(bench_now_ns() - t0) / 1e9);
    }
    gcgc_vocab_free(v);
    for (int i = 0; i < n; i++) free(ents[i]);
    free(ents);
    return rc;
}
