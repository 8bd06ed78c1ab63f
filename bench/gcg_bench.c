/*
 * gcg_bench — the latency benchmark: load a .gcg artifact, replay token
 * sequences (document traces and generated walks), time every fill_mask and
 * every commit on one pinned core, check each mask against the trace, brute
 * force and the certificate, and report the distribution (table, JSON, dumps).
 *
 * Exit status: 0 all checks passed; 1 a check failed (mask mismatch, stack
 * reads over the certificate, a rejected trace token, ...); 2 bad usage;
 * 3 the artifact or a trace could not be loaded or the run failed.
 * bench/README.md explains each workload, column and option.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "gcg.h"
#include "growth.h"
#include "hunt.h"
#include "measure.h"
#include "report.h"
#include "traces.h"
#include "walks.h"

#define MAX_WORKLOADS 8

typedef struct cli {
    const char *artifact, *traces, *json, *dump, *name, *grammar, *vocab;
    char workloads[256];
    char growth[512];                                           /* --growth-input */
    uint32_t growth_n[2], n_growth_n, growth_rounds;
    uint32_t api_sizes[BENCH_MAX_API_SIZES], n_api_sizes;      /* --batch-api  */
    uint32_t api_threads[BENCH_MAX_API_THREADS], n_api_threads; /* --batch-threads */
    double compile_s, bf_budget_s;
    size_t max_docs;
    uint32_t walks, walk_len, adv_walks, adv_len, repeats, warmup, bf_every, bf_samples, batch, threads;
    int cpu;
    bool bf_every_set, quiet, batch_only;
    uint64_t seed;
} cli;

static void usage(FILE *f) {
    fputs("usage: gcg_bench --artifact A.gcg [options]\n"
          "  --traces FILE       document traces (one line of token ids per document): workload docs\n"
          "  --workloads LIST    comma-separated: docs,random-uniform,random-long,adversarial\n"
          "                      (or just hunt: widest stacks vs the certificate, see hunt.h;\n"
          "                      or just growth: a step after a short and a long run, see growth.h)\n"
          "                      (default: docs if --traces, and the three generated ones)\n"
          "  --growth-input P|U|T  growth: the text is P, then U n times, then T n times\n"
          "  --growth-n S,L      growth: the short and the long n (default 40,4000)\n"
          "  --growth-rounds N   growth: timed rounds (default 2000)\n"
          "  --name PREFIX       workload names are PREFIX-docs, PREFIX-random, PREFIX-random-long,\n"
          "                      PREFIX-adversarial (default GRAMMAR-VOCAB)\n"
          "  --grammar NAME      grammar name for the report (default: artifact file name)\n"
          "  --vocab NAME        vocabulary name for the report (default: vocab)\n"
          "  --compile-s S       compile time measured by the caller, reported as is\n"
          "  --max-docs N        replay only the first N traces\n"
          "  --walks N           random walks per random workload (default 200)\n"
          "  --walk-len N        tokens per random walk at most (default 256)\n"
          "  --adv-walks N       adversarial walks (default 24), --adv-len N tokens each (default 192)\n"
          "  --seed S            random seed (default 1)\n"
          "  --repeats R         timed replays of each workload (default 5, at most 64)\n"
          "  --warmup N          untimed steps before timing (default 20000)\n"
          "  --bf-every K        brute-force mask on every K-th step of repeat 0 (0: never)\n"
          "  --bf-samples N      or: choose K so about N steps are compared (default 1000)\n"
          "  --bf-budget S       widen K so brute force takes about S seconds at most (default 10)\n"
          "  --cpu C             pin to CPU C (default: the last CPU allowed; -1: do not pin)\n"
          "  --batch B           also run B matchers in lock step per workload\n"
          "  --threads T         threads for --batch, the main one included (default min(B, CPUs))\n"
          "  --batch-only        with --batch: skip the single-matcher run; the report's mask and\n"
          "                      commit latencies are then the batch's per-step wall times\n"
          "  --batch-api LIST    also, per batch size B in LIST (e.g. 1,16,64,256): B single calls in a\n"
          "                      row, and gcg_batch_fill_masks/gcg_batch_commit on a gcg_pool\n"
          "  --batch-threads LIST  pool threads for --batch-api (default 1,2)\n"
          "  --json FILE         write the JSON report\n"
          "  --dump DIR          write per-step latencies and CDF points for bench/plot.sh\n"
          "  --quiet             no table on stdout\n",
          f);
}

enum { O_TRACES = 256, O_WORKLOADS, O_NAME, O_GRAMMAR, O_VOCAB, O_COMPILE, O_MAXDOCS, O_WALKS, O_WALKLEN, O_ADVW,
       O_ADVLEN, O_SEED, O_REPEATS, O_WARMUP, O_BFEVERY, O_BFSAMPLES, O_BFBUDGET, O_CPU, O_BATCH, O_THREADS, O_JSON,
       O_DUMP,
       O_QUIET, O_BATCHONLY, O_ARTIFACT, O_BATCHAPI, O_BATCHTHREADS, O_GROWTH, O_GROWTHN, O_GROWTHR, O_HELP };

/* Parses "1,16,64" into out (at most max values, each >= 1); false if malformed. */
static bool parse_list(const char *s, uint32_t *out, uint32_t *n, uint32_t max) {
    *n = 0;
    for (const char *p = s; *p;) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(p, &end, 10);
        if (errno || end == p || v < 1 || v > 65536 || *n == max || (*end && *end != ',')) return false;
        out[(*n)++] = (uint32_t)v;
        p = *end ? end + 1 : end;
    }
    return *n > 0;
}

static bool parse_u32(const char *s, uint32_t *out) {
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || end == s || v > UINT32_MAX) return false;
    *out = (uint32_t)v;
    return true;
}

static bool parse_opt(cli *c, int o, const char *a) {
    uint32_t u;
    switch (o) {
    case O_ARTIFACT: c->artifact = a; return true;
    case O_TRACES: c->traces = a; return true;
    case O_WORKLOADS: snprintf(c->workloads, sizeof c->workloads, "%s", a); return true;
    case O_NAME: c->name = a; return true;
    case O_GRAMMAR: c->grammar = a; return true;
    case O_VOCAB: c->vocab = a; return true;
    case O_COMPILE: c->compile_s = strtod(a, NULL); return true;
    case O_MAXDOCS: if (!parse_u32(a, &u)) return false; c->max_docs = u; return true;
    case O_WALKS: return parse_u32(a, &c->walks);
    case O_WALKLEN: return parse_u32(a, &c->walk_len);
    case O_ADVW: return parse_u32(a, &c->adv_walks);
    case O_ADVLEN: return parse_u32(a, &c->adv_len);
    case O_SEED: c->seed = strtoull(a, NULL, 10); return true;
    case O_REPEATS: return parse_u32(a, &c->repeats) && c->repeats >= 1 && c->repeats <= BENCH_MAX_REPEATS;
    case O_WARMUP: return parse_u32(a, &c->warmup);
    case O_BFEVERY: c->bf_every_set = true; return parse_u32(a, &c->bf_every);
    case O_BFSAMPLES: return parse_u32(a, &c->bf_samples);
    case O_BFBUDGET: c->bf_budget_s = strtod(a, NULL); return c->bf_budget_s >= 0;
    case O_CPU: c->cpu = atoi(a); return true;
    case O_BATCH: return parse_u32(a, &c->batch) && c->batch >= 1;
    case O_THREADS: return parse_u32(a, &c->threads) && c->threads >= 1;
    case O_JSON: c->json = a; return true;
    case O_DUMP: c->dump = a; return true;
    case O_QUIET: c->quiet = true; return true;
    case O_BATCHONLY: c->batch_only = true; return true;
    case O_BATCHAPI: return parse_list(a, c->api_sizes, &c->n_api_sizes, BENCH_MAX_API_SIZES);
    case O_BATCHTHREADS: return parse_list(a, c->api_threads, &c->n_api_threads, BENCH_MAX_API_THREADS);
    case O_GROWTH: return strlen(a) < sizeof c->growth && strchr(a, '|') && strchr(strchr(a, '|') + 1, '|') &&
                          snprintf(c->growth, sizeof c->growth, "%s", a) > 0;
    case O_GROWTHN: return parse_list(a, c->growth_n, &c->n_growth_n, 2) && c->n_growth_n == 2 &&
                           c->growth_n[0] < c->growth_n[1];
    case O_GROWTHR: return parse_u32(a, &c->growth_rounds) && c->growth_rounds >= 1;
    }
    return false;
}

static int parse_cli(int argc, char **argv, cli *c) {
    static const struct option opts[] = {
        {"artifact", 1, 0, O_ARTIFACT}, {"traces", 1, 0, O_TRACES}, {"workloads", 1, 0, O_WORKLOADS},
        {"name", 1, 0, O_NAME}, {"grammar", 1, 0, O_GRAMMAR}, {"vocab", 1, 0, O_VOCAB},
        {"compile-s", 1, 0, O_COMPILE}, {"max-docs", 1, 0, O_MAXDOCS}, {"walks", 1, 0, O_WALKS},
        {"walk-len", 1, 0, O_WALKLEN}, {"adv-walks", 1, 0, O_ADVW}, {"adv-len", 1, 0, O_ADVLEN},
        {"seed", 1, 0, O_SEED}, {"repeats", 1, 0, O_REPEATS}, {"warmup", 1, 0, O_WARMUP},
        {"bf-every", 1, 0, O_BFEVERY}, {"bf-samples", 1, 0, O_BFSAMPLES}, {"bf-budget", 1, 0, O_BFBUDGET},
        {"cpu", 1, 0, O_CPU},
        {"batch", 1, 0, O_BATCH}, {"threads", 1, 0, O_THREADS}, {"json", 1, 0, O_JSON}, {"dump", 1, 0, O_DUMP},
        {"quiet", 0, 0, O_QUIET}, {"batch-only", 0, 0, O_BATCHONLY},
        {"batch-api", 1, 0, O_BATCHAPI}, {"batch-threads", 1, 0, O_BATCHTHREADS}, {"growth-input", 1, 0, O_GROWTH},
        {"growth-n", 1, 0, O_GROWTHN}, {"growth-rounds", 1, 0, O_GROWTHR}, {"help", 0, 0, O_HELP}, {0, 0, 0, 0}};
    *c = (cli){.compile_s = -1, .bf_budget_s = 10, .walks = 200, .walk_len = 256, .adv_walks = 24, .adv_len = 192,
               .repeats = 5, .warmup = 20000, .bf_samples = 1000, .cpu = -2, .seed = 1,
               .growth_n = {40, 4000}, .growth_rounds = 2000};
    int o;
    while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (o == O_HELP) { usage(stdout); return 0; }
        if (o == '?' || !parse_opt(c, o, optarg)) {
            if (o != '?') fprintf(stderr, "gcg_bench: bad value for option: %s\n", optarg);
            usage(stderr);
            return 2;
        }
    }
    if (!c->artifact || optind != argc) {
        fprintf(stderr, "gcg_bench: %s\n", c->artifact ? "unexpected argument" : "--artifact is required");
        usage(stderr);
        return 2;
    }
    if (c->batch_only && !c->batch) {
        fprintf(stderr, "gcg_bench: --batch-only needs --batch\n");
        return 2;
    }
    if (!c->n_api_threads) {
        c->api_threads[0] = 1;
        c->api_threads[1] = 2;
        c->n_api_threads = 2;
    }
    if (!c->workloads[0])
        snprintf(c->workloads, sizeof c->workloads, "%srandom-uniform,random-long,adversarial",
                 c->traces ? "docs," : "");
    return -1;
}

/* ---- machine ------------------------------------------------------------- */

/* CPUs this process may run on, in order; returns the count. */
static size_t allowed_cpus(int *cpus, size_t max) {
    cpu_set_t set;
    size_t n = 0;
    if (sched_getaffinity(0, sizeof set, &set)) return 0;
    for (int i = 0; i < CPU_SETSIZE && n < max; i++)
        if (CPU_ISSET(i, &set)) cpus[n++] = i;
    return n;
}

static void cpu_model(char *out, size_t len) {
    snprintf(out, len, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) || !colon) continue;
        colon += 2;
        colon[strcspn(colon, "\n")] = 0;
        snprintf(out, len, "%s", colon);
        break;
    }
    fclose(f);
}

/* Pins the main thread; orders cpus so that the pinned one comes first (batch
 * workers take the others). Returns the pinned CPU or -1. */
static int pin(int want, int *cpus, size_t n) {
    if (want == -1 || n == 0) return -1;
    size_t k = n - 1;
    for (size_t i = 0; i < n && want >= 0; i++)
        if (cpus[i] == want) k = i;
    if (want >= 0 && cpus[k] != want) {
        fprintf(stderr, "gcg_bench: CPU %d is not available; using %d\n", want, cpus[k]);
    }
    int c = cpus[k];
    cpus[k] = cpus[0];
    cpus[0] = c;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(c, &set);
    if (sched_setaffinity(0, sizeof set, &set)) {
        fprintf(stderr, "gcg_bench: cannot pin to CPU %d: %s\n", c, strerror(errno));
        return -1;
    }
    return c;
}

/* ---- workloads ----------------------------------------------------------- */

typedef struct kind_info {
    const char *workload, *suffix;
} kind_info;

static const kind_info KINDS[] = {
    {"docs", "docs"}, {"random-uniform", "random"}, {"random-long", "random-long"}, {"adversarial", "adversarial"}};

static int kind_index(const char *s, size_t len) {
    for (int i = 0; i < 4; i++)
        if (strlen(KINDS[i].workload) == len && !strncmp(KINDS[i].workload, s, len)) return i;
    return -1;
}

static gcg_status make_sequences(const cli *c, const gcg_artifact *art, int kind, bench_seqset *s, char *err,
                                 size_t len) {
    if (kind == 0) {
        if (!c->traces) {
            snprintf(err, len, "workload docs needs --traces");
            return GCG_ERR_ARG;
        }
        return bench_traces_read(c->traces, c->max_docs, s, err, len) ? GCG_OK : GCG_ERR_IO;
    }
    bench_walk_options wo;
    bench_walk_options_default(kind == 1 ? BENCH_WALK_UNIFORM : kind == 2 ? BENCH_WALK_LONG : BENCH_WALK_ADVERSARIAL,
                               &wo);
    wo.walks = kind == 3 ? c->adv_walks : c->walks;
    wo.max_len = kind == 3 ? c->adv_len : c->walk_len;
    wo.seed = c->seed + (uint64_t)kind;
    return bench_walks_generate(art, &wo, s, err, len);
}

static void describe(const cli *c, const gcg_artifact *art, int kind, const bench_seqset *s, bench_workload *w) {
    const char *base = strrchr(c->artifact, '/');
    base = base ? base + 1 : c->artifact;
    snprintf(w->grammar, sizeof w->grammar, "%.*s", (int)strcspn(base, "."), base);
    if (c->grammar) snprintf(w->grammar, sizeof w->grammar, "%s", c->grammar);
    snprintf(w->vocab, sizeof w->vocab, "%s", c->vocab ? c->vocab : "vocab");
    if (c->name) snprintf(w->name, sizeof w->name, "%s-%s", c->name, KINDS[kind].suffix);
    else snprintf(w->name, sizeof w->name, "%s-%s-%s", w->grammar, w->vocab, KINDS[kind].suffix);
    snprintf(w->workload, sizeof w->workload, "%s", KINDS[kind].workload);
    w->vocab_size = gcg_artifact_vocab_size(art);
    w->sequences = s->n_seq;
    w->tokens = s->n_tok;
    w->compile_s = c->compile_s;
    struct stat st;
    w->artifact_bytes = stat(c->artifact, &st) == 0 ? (uint64_t)st.st_size : 0;
    if (gcg_artifact_certificate(art, &w->cert) != GCG_OK) w->cert.bounded = false;
    size_t steps = s->n_tok + s->n_seq;
    w->bf_every = c->bf_every_set ? c->bf_every
                  : c->bf_samples ? (uint32_t)(steps / c->bf_samples > 0 ? steps / c->bf_samples : 1)
                                  : 0;
}

static gcg_status run_single(const cli *c, const gcg_artifact *art, const bench_seqset *s, bench_workload *w,
                             char *err, size_t len) {
    bench_measure_options mo = {.repeats = c->repeats, .warmup_steps = c->warmup, .bf_every = w->bf_every,
                                .bf_budget_s = c->bf_budget_s, .keep_steps = c->dump != NULL};
    gcg_status st = bench_measure_run(art, s, &mo, &w->m);
    if (st != GCG_OK) snprintf(err, len, "%s: %s", w->name, gcg_status_str(st));
    else w->has_tail = bench_tail_find(art, &w->m, false, &w->tail_mask) &&
                       bench_tail_find(art, &w->m, true, &w->tail_commit);
    return st;
}

/* With --batch-only the batch's per-step wall times stand in for the
 * single-matcher latencies, so the report's mask_ns/commit_ns show them. */
static void batch_as_single(bench_workload *w) {
    bench_measure_result *m = &w->m;
    m->steps = w->b.steps;
    m->commits = w->b.steps;
    m->repeats = w->b.repeats;
    m->mask = w->b.fill;
    m->commit = w->b.commit;
    memcpy(m->mask_rep, w->b.fill_rep, sizeof m->mask_rep);
    memcpy(m->commit_rep, w->b.commit_rep, sizeof m->commit_rep);
}

static gcg_status run_batch(const cli *c, const gcg_artifact *art, const bench_seqset *s, const int *cpus,
                            size_t n_cpus, bench_workload *w, char *err, size_t len) {
    uint32_t threads = c->threads ? c->threads : (c->batch < n_cpus ? c->batch : (uint32_t)n_cpus);
    bench_batch_options bo = {.batch = c->batch, .threads = threads ? threads : 1, .repeats = c->repeats,
                              .warmup_steps = c->warmup / c->batch, .cpus = cpus, .n_cpus = n_cpus};
    gcg_status st = bench_batch_run(art, s, &bo, &w->b);
    w->has_batch = st == GCG_OK;
    if (st != GCG_OK) snprintf(err, len, "%s: batch: %s", w->name, gcg_status_str(st));
    else if (c->batch_only) batch_as_single(w);
    w->batch_only = c->batch_only;
    return st;
}

/* --batch-api: per size B, B single calls in a row, then the batch API on
 * each thread count. */
static gcg_status run_batch_api(const cli *c, const gcg_artifact *art, const bench_seqset *s, const int *cpus,
                                size_t n_cpus, bench_workload *w, char *err, size_t len) {
    for (uint32_t i = 0; i < c->n_api_sizes; i++)
        for (uint32_t k = 0; k <= c->n_api_threads && w->n_api < BENCH_MAX_API_RUNS; k++) {
            bench_batch_options bo = {.mode = k ? BENCH_BATCH_API : BENCH_BATCH_SINGLE, .batch = c->api_sizes[i],
                                      .threads = k ? c->api_threads[k - 1] : 1, .repeats = c->repeats,
                                      .warmup_steps = c->warmup / c->api_sizes[i], .cpus = cpus, .n_cpus = n_cpus};
            gcg_status st = bench_batch_run(art, s, &bo, &w->api[w->n_api]);
            if (st != GCG_OK) {
                snprintf(err, len, "%s: batch API B=%u: %s", w->name, bo.batch, gcg_status_str(st));
                return st;
            }
            w->n_api++;
        }
    return GCG_OK;
}

static gcg_status run_workload(const cli *c, const gcg_artifact *art, int kind, const int *cpus, size_t n_cpus,
                               bench_workload *w, char *err, size_t len) {
    bench_seqset s;
    bench_seqset_init(&s);
    uint64_t t0 = bench_now_ns();
    gcg_status st = make_sequences(c, art, kind, &s, err, len);
    memset(w, 0, sizeof *w);
    w->generate_s = (double)(bench_now_ns() - t0) / 1e9;
    if (st == GCG_OK) describe(c, art, kind, &s, w);
    if (st == GCG_OK && !c->batch_only) st = run_single(c, art, &s, w, err, len);
    if (st == GCG_OK && c->batch) st = run_batch(c, art, &s, cpus, n_cpus, w, err, len);
    if (st == GCG_OK && c->n_api_sizes) st = run_batch_api(c, art, &s, cpus, n_cpus, w, err, len);
    bench_seqset_free(&s);
    return st;
}

/* Runs every requested workload into w; returns how many, or -1 on error. */
static int run_all(const cli *c, const gcg_artifact *art, const int *cpus, size_t n_cpus, bench_workload *w) {
    int n = 0;
    char err[512];
    for (const char *p = c->workloads; *p && n < MAX_WORKLOADS;) {
        size_t len = strcspn(p, ",");
        int kind = kind_index(p, len);
        if (kind < 0) {
            fprintf(stderr, "gcg_bench: unknown workload '%.*s'\n", (int)len, p);
            return -1;
        }
        if (!c->quiet) fprintf(stderr, "gcg_bench: running %.*s...\n", (int)len, p);
        if (run_workload(c, art, kind, cpus, n_cpus, &w[n], err, sizeof err) != GCG_OK) {
            fprintf(stderr, "gcg_bench: %s\n", err);
            return -1;
        }
        n++;
        p += len + (p[len] == ',');
    }
    return n;
}

static int finish(const cli *c, bench_workload *w, int n, const bench_machine *mc) {
    char err[512];
    int rc = 0;
    if (!c->quiet) bench_report_table(stdout, w, (size_t)n, mc);
    if (c->json && !bench_report_json(c->json, w, (size_t)n, mc, err, sizeof err)) {
        fprintf(stderr, "gcg_bench: %s\n", err);
        rc = 3;
    }
    for (int i = 0; c->dump && i < n; i++)
        if (!bench_report_dump(c->dump, &w[i], err, sizeof err)) {
            fprintf(stderr, "gcg_bench: %s\n", err);
            rc = 3;
        }
    for (int i = 0; i < n; i++) {
        if (!bench_workload_failures(&w[i])) continue;
        fprintf(stderr, "gcg_bench: FAILED: %s: %zu check(s) failed; first: %s\n", w[i].name,
                bench_workload_failures(&w[i]), w[i].m.first_failure[0] ? w[i].m.first_failure : w[i].b.first_failure);
        if (!rc) rc = 1;
    }
    return rc;
}

/* The growth workload; 1 when a step's work grows with the run. */
static int run_growth(cli *c, gcg_artifact *art) {
    if (!c->growth[0]) {
        fprintf(stderr, "gcg_bench: --workloads growth needs --growth-input PREFIX|UNIT|TAIL\n");
        gcg_artifact_free(art);
        return 2;
    }
    char *unit = strchr(c->growth, '|');
    *unit++ = 0;
    char *tail = strchr(unit, '|');
    *tail++ = 0;
    bench_growth_input in = {c->growth, unit, tail, {c->growth_n[0], c->growth_n[1]}, c->growth_rounds, 2.0};
    bench_growth_result r;
    gcg_status st = unit[0] ? bench_growth(art, &in, stdout, &r) : GCG_ERR_ARG;
    gcg_artifact_free(art);
    if (st != GCG_OK)
        fprintf(stderr, "gcg_bench: growth: %s\n", unit[0] ? gcg_status_str(st) : "the unit is empty");
    return st != GCG_OK ? 3 : r.grows ? 1 : 0;
}

int main(int argc, char **argv) {
    cli c;
    int rc = parse_cli(argc, argv, &c);
    if (rc >= 0) return rc;
    gcg_artifact *art = NULL;
    gcg_error e;
    if (gcg_artifact_open_file(c.artifact, &art, &e) != GCG_OK) {
        fprintf(stderr, "gcg_bench: %s: %s\n", c.artifact, e.msg[0] ? e.msg : gcg_status_str(e.code));
        return 3;
    }
    if (gcg_artifact_vocab_size(art) == 0) {
        fprintf(stderr, "gcg_bench: %s: compiled without a vocabulary; nothing to mask\n", c.artifact);
        gcg_artifact_free(art);
        return 3;
    }
    int cpus[CPU_SETSIZE];
    size_t n_cpus = allowed_cpus(cpus, CPU_SETSIZE);
    bench_machine mc = {.cpus_online = (int)sysconf(_SC_NPROCESSORS_ONLN)};
    cpu_model(mc.cpu_model, sizeof mc.cpu_model);
    mc.pinned_cpu = pin(c.cpu == -2 ? (n_cpus ? cpus[n_cpus - 1] : -1) : c.cpu, cpus, n_cpus);
    if (c.dump) mkdir(c.dump, 0777);
    if (strcmp(c.workloads, "hunt") == 0) {
        bench_hunt_result hr;
        gcg_status hs = bench_hunt(art, c.walks, c.walk_len, 16, c.seed, stdout, &hr);
        gcg_artifact_free(art);
        return hs != GCG_OK ? 3 : hr.over ? 1 : 0;
    }
    if (strcmp(c.workloads, "growth") == 0)
        return run_growth(&c, art);
    bench_workload *w = calloc(MAX_WORKLOADS, sizeof *w);  /* large: on the heap */
    int n = w ? run_all(&c, art, cpus, n_cpus, w) : -1;
    rc = n < 0 ? 3 : finish(&c, w, n, &mc);
    for (int i = 0; w && i < n; i++) bench_measure_free(&w[i].m);
    free(w);
    gcg_artifact_free(art);
    return rc;
}
