/*
 * test_bench.c — unit tests of the benchmark's own machinery: percentiles,
 * medians and spreads, the trace reader, and an end-to-end replay (walks,
 * measurement, batch, JSON report) on a tiny grammar compiled in memory with
 * a hand-made vocabulary, where every count is known exactly.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch.h"
#include "compile.h"
#include "growth.h"
#include "measure.h"
#include "report.h"
#include "stats.h"
#include "traces.h"
#include "walks.h"

/* ---- stats ---------------------------------------------------------------- */

START_TEST(percentiles_of_1_to_1000) {
    bench_samples s;
    bench_samples_init(&s);
    for (uint64_t v = 1000; v >= 1; v--) ck_assert(bench_samples_push(&s, v));
    bench_summary m;
    ck_assert(bench_summarize(&s, &m));
    ck_assert_uint_eq(m.n, 1000);
    ck_assert_uint_eq(m.min, 1);
    ck_assert_uint_eq(m.p50, 500);
    ck_assert_uint_eq(m.p90, 900);
    ck_assert_uint_eq(m.p99, 990);
    ck_assert_uint_eq(m.p999, 999);
    ck_assert_uint_eq(m.max, 1000);
    ck_assert_double_eq_tol(m.mean, 500.5, 1e-9);
    ck_assert_uint_eq(s.v[0], 1000); /* summarize does not reorder the samples */
    bench_samples_free(&s);
}
END_TEST

START_TEST(percentiles_small_sets) {
    uint64_t one[] = {7};
    ck_assert_uint_eq(bench_percentile_sorted(one, 1, 0.999), 7);
    uint64_t ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 100};
    ck_assert_uint_eq(bench_percentile_sorted(ten, 10, 0.5), 5);
    ck_assert_uint_eq(bench_percentile_sorted(ten, 10, 0.9), 9);
    ck_assert_uint_eq(bench_percentile_sorted(ten, 10, 0.99), 100);
    ck_assert_uint_eq(bench_percentile_sorted(ten, 10, 0.0), 1);
    ck_assert_uint_eq(bench_percentile_sorted(ten, 0, 0.5), 0);
    bench_samples e;
    bench_samples_init(&e);
    bench_summary m;
    ck_assert(bench_summarize(&e, &m));
    ck_assert_uint_eq(m.n, 0);
    ck_assert_uint_eq(m.max, 0);
}
END_TEST

START_TEST(median_and_spread) {
    double odd[] = {3, 1, 2};
    ck_assert_double_eq(bench_median(odd, 3), 2);
    double even[] = {4, 1, 3, 2};
    ck_assert_double_eq(bench_median(even, 4), 2.5);
    double sp[] = {12, 10, 11};
    ck_assert_double_eq_tol(bench_spread(sp, 3), 2.0 / 11.0, 1e-12);
    double zero[] = {0, 0, 5};
    ck_assert_double_eq(bench_spread(zero, 3), 0);
}
END_TEST

START_TEST(combine_repeats) {
    bench_summary r[3] = {{.n = 9, .p50 = 10, .p999 = 100, .max = 300, .mean = 11},
                          {.n = 9, .p50 = 12, .p999 = 90, .max = 200, .mean = 13},
                          {.n = 9, .p50 = 11, .p999 = 120, .max = 250, .mean = 12}};
    bench_combined c;
    bench_combine(r, 3, &c);
    ck_assert_uint_eq(c.median.n, 9);
    ck_assert_uint_eq(c.median.p50, 11);
    ck_assert_uint_eq(c.median.p999, 100);
    ck_assert_uint_eq(c.median.max, 250);
    ck_assert_double_eq_tol(c.median.mean, 12, 1e-12);
    ck_assert_double_eq_tol(c.spread_p50, 2.0 / 11.0, 1e-12);
    ck_assert_double_eq_tol(c.spread_p999, 30.0 / 100.0, 1e-12);
    ck_assert_double_eq_tol(c.spread_max, 100.0 / 250.0, 1e-12);
}
END_TEST

/* ---- traces --------------------------------------------------------------- */

START_TEST(trace_lines) {
    bench_seqset s;
    bench_seqset_init(&s);
    char err[128];
    ck_assert(bench_traces_parse_line("5018 64\t794  7\n", &s, err, sizeof err));
    ck_assert(bench_traces_parse_line("\n", &s, err, sizeof err));
    ck_assert_uint_eq(s.n_seq, 2);
    ck_assert_uint_eq(s.seq[0].n, 4);
    ck_assert(s.seq[0].eos);
    ck_assert_uint_eq(bench_seqset_tokens(&s, 0)[2], 794);
    ck_assert_uint_eq(s.seq[1].n, 0);
    ck_assert(!bench_traces_parse_line("1 x", &s, err, sizeof err));
    ck_assert_str_eq(err, "column 3: expected a token id, found 'x'");
    ck_assert(!bench_traces_parse_line("4294967296", &s, err, sizeof err));
    ck_assert_str_eq(err, "column 1: token id out of range");
    bench_seqset_free(&s);
}
END_TEST

START_TEST(trace_file) {
    char path[] = "/tmp/gcg_bench_trace_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char *text = "1 2 3\n4\n\n5 6\n-1\n";
    ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
    close(fd);
    bench_seqset s;
    bench_seqset_init(&s);
    char err[256];
    ck_assert(bench_traces_read(path, 4, &s, err, sizeof err));
    ck_assert_uint_eq(s.n_seq, 4);
    ck_assert_uint_eq(s.n_tok, 6);
    ck_assert_uint_eq(s.seq[3].start, 4);
    bench_seqset_free(&s);
    ck_assert(!bench_traces_read(path, 0, &s, err, sizeof err));
    char want[512];
    snprintf(want, sizeof want, "%s:5: column 1: expected a token id, found '-'", path);
    ck_assert_str_eq(err, want);
    bench_seqset_free(&s);
    unlink(path);
    ck_assert(!bench_traces_read(path, 0, &s, err, sizeof err));
}
END_TEST

/* ---- end to end on a tiny grammar ------------------------------------------ */

/* Lists of digits; the vocabulary is the 256 bytes, EOS (256) and four
 * multi-byte tokens. */
static const char *TINY = "root ::= \"[\" ( [0-9] ( \",\" [0-9] )* )? \"]\"\n";
enum { T_EOS = 256, T_OPEN1 = 257, T_COMMA2 = 258, T_3CLOSE = 259, T_CLOSE2 = 260, N_TOK = 261 };

/* `src` compiled against the tiny vocabulary: the 256 bytes, an EOS and four
 * multi-byte tokens. */
static gcg_artifact *artifact_of(const char *src) {
    static const char *multi[] = {"[1", ",2", "3]", "]]"};
    gcg_vocab v = {.n_tokens = N_TOK};
    v.offsets = calloc(N_TOK + 1, sizeof *v.offsets);
    v.bytes = malloc(256 + 8);
    v.flags = calloc(N_TOK, 1);
    uint32_t eos = T_EOS;
    v.eos = &eos;
    v.n_eos = 1;
    uint32_t off = 0;
    for (uint32_t i = 0; i < N_TOK; i++) {
        v.offsets[i] = off;
        if (i < 256) v.bytes[off++] = (uint8_t)i;
        else if (i == T_EOS) v.flags[i] = GCG_TOKEN_SPECIAL | GCG_TOKEN_EOS;
        else for (const char *p = multi[i - T_OPEN1]; *p; p++) v.bytes[off++] = (uint8_t)*p;
    }
    v.offsets[N_TOK] = off;
    gcg_compile_options opt = {.vocab = &v};
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_diag d;
    gcg_diag_init(&d, "tiny.gbnf");
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
    if (st != GCG_OK) gcg_diag_print(&d, stderr);
    ck_assert_int_eq(st, GCG_OK);
    gcg_artifact *art = NULL;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    gcg_diag_free(&d);
    free(bytes);
    free(v.offsets);
    free(v.bytes);
    free(v.flags);
    return art;
}

static gcg_artifact *tiny_artifact(void) {
    return artifact_of(TINY);
}

static void seq_of(bench_seqset *s, const uint32_t *tok, size_t n, bool eos) {
    ck_assert(bench_seqset_begin(s));
    s->seq[s->n_seq - 1].eos = eos;
    for (size_t i = 0; i < n; i++) ck_assert(bench_seqset_push(s, tok[i]));
}

START_TEST(replay_counts_exactly) {
    gcg_artifact *art = tiny_artifact();
    bench_seqset s;
    bench_seqset_init(&s);
    /* "[1,2,3]" as bytes, then as multi-byte tokens "[1" ",2" "," "3]" */
    const uint32_t bytes[] = {'[', '1', ',', '2', ',', '3', ']'};
    const uint32_t multi[] = {T_OPEN1, T_COMMA2, ',', T_3CLOSE};
    seq_of(&s, bytes, 7, true);
    seq_of(&s, multi, 4, true);
    bench_measure_options mo = {.repeats = 3, .warmup_steps = 10, .bf_every = 1, .keep_steps = true};
    bench_measure_result r;
    ck_assert_int_eq(bench_measure_run(art, &s, &mo, &r), GCG_OK);
    ck_assert_uint_eq(bench_failures_total(&r.fail), 0);
    ck_assert_uint_eq(r.repeats, 3);
    ck_assert_uint_eq(r.steps, 8 + 5);
    ck_assert_uint_eq(r.commits, 7 + 4 + 2);
    ck_assert_uint_eq(r.mask0.n, 13);
    ck_assert_uint_eq(r.commit0.n, 13);
    ck_assert_uint_eq(r.bf_steps, 13);
    ck_assert_uint_eq(r.fail.bf_mismatch, 0);
    /* Allowed counts: at the start '[' and "[1" (2); after '[': 10 digits, ']'
     * and "3]" (12); after a digit: ',' ']' ",2" (3); after ',': 10 digits and
     * "3]" (11); when complete: EOS alone (1). */
    ck_assert_uint_eq(r.allowed.min, 1);
    ck_assert_uint_eq(r.allowed.max, 12);
    ck_assert_uint_gt(r.memory_max, 0);
    /* per-step minima: one per step and per commit, none above repeat 0's time */
    ck_assert_uint_eq(r.mask_min.n, 13);
    ck_assert_uint_eq(r.commit_min.n, 13);
    uint64_t most = 0;
    for (size_t i = 0; i < 13; i++) {
        ck_assert_uint_le(r.mask_min.v[i], r.mask0.v[i]);
        ck_assert_uint_le(r.commit_min.v[i], r.commit0.v[i]);
        if (r.mask_min.v[i] > most) most = r.mask_min.v[i];
    }
    ck_assert_uint_eq(r.mask_min_sum.max, most);
    /* what repeat 0 saw at each step: the token committed after the mask */
    ck_assert_uint_eq(r.info[0].token, '[');
    ck_assert_uint_eq(r.info[0].allowed, 2);
    ck_assert_uint_eq(r.info[1].allowed, 12);
    ck_assert_uint_eq(r.info[7].token, T_EOS);
    ck_assert_uint_eq(r.info[7].pos, 7);
    ck_assert_uint_eq(r.info[8].seq, 1);
    ck_assert_uint_eq(r.info[8].token, T_OPEN1);
    ck_assert_uint_eq(r.info[1].depth, 1);
    ck_assert_uint_eq(r.info[1].frontier, 1);
    ck_assert_uint_eq(r.commit_step[7], 7);
    ck_assert_uint_eq(r.commit_step[8], 8);
    /* the tail of 13 steps is the one slowest step */
    bench_tail t;
    ck_assert(bench_tail_find(art, &r, false, &t));
    ck_assert_uint_eq(t.n, 1);
    ck_assert_uint_eq(t.threshold_ns, most);
    ck_assert_uint_eq(t.n_examples, 1);
    ck_assert_uint_eq(t.n_top, 1);
    ck_assert_uint_eq(t.top_count[0], 1);
    ck_assert_uint_eq(t.all.allowed.max, 12);
    ck_assert(bench_tail_find(art, &r, true, &t));
    ck_assert_uint_eq(t.n, 1);
    bench_measure_free(&r);
    bench_seqset_free(&s);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(bruteforce_stride_widens_to_fit_budget) {
    gcg_artifact *art = tiny_artifact();
    bench_seqset s;
    bench_seqset_init(&s);
    const uint32_t bytes[] = {'[', '1', ',', '2', ',', '3', ']'};
    for (int i = 0; i < 4; i++) seq_of(&s, bytes, 7, true);
    /* 32 steps; a budget of 1 ns cannot fit a second brute-force mask */
    bench_measure_options mo = {.repeats = 1, .bf_every = 1, .bf_budget_s = 1e-9};
    bench_measure_result r;
    ck_assert_int_eq(bench_measure_run(art, &s, &mo, &r), GCG_OK);
    ck_assert_uint_eq(r.steps, 32);
    ck_assert_uint_eq(r.bf_steps, 1);
    ck_assert_uint_gt(r.bf_stride, 32);
    bench_measure_free(&r);
    /* without a budget every step is compared */
    mo.bf_budget_s = 0;
    ck_assert_int_eq(bench_measure_run(art, &s, &mo, &r), GCG_OK);
    ck_assert_uint_eq(r.bf_steps, 32);
    ck_assert_uint_eq(r.bf_stride, 1);
    bench_measure_free(&r);
    bench_seqset_free(&s);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(replay_reports_rejected_token) {
    gcg_artifact *art = tiny_artifact();
    bench_seqset s;
    bench_seqset_init(&s);
    const uint32_t bad[] = {'[', '1', ']', ']'};
    const uint32_t unfinished[] = {'[', '1'};
    seq_of(&s, bad, 4, true);
    seq_of(&s, unfinished, 2, true);
    bench_measure_options mo = {.repeats = 2};
    bench_measure_result r;
    ck_assert_int_eq(bench_measure_run(art, &s, &mo, &r), GCG_OK);
    ck_assert_uint_eq(r.fail.rejected, 1);
    ck_assert_uint_eq(r.fail.eos_refused, 1);
    ck_assert_uint_eq(bench_failures_total(&r.fail), 2);
    char want[256];
    snprintf(want, sizeof want, "sequence 0, token 3 (id 93): commit: %s", gcg_status_str(GCG_ERR_REJECTED));
    ck_assert_str_eq(r.first_failure, want);
    bench_measure_free(&r);
    bench_seqset_free(&s);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(walks_are_valid_and_deterministic) {
    gcg_artifact *art = tiny_artifact();
    for (int k = BENCH_WALK_UNIFORM; k <= BENCH_WALK_LONG; k++) {
        bench_walk_options wo;
        bench_walk_options_default((bench_walk_kind)k, &wo);
        wo.walks = 30;
        wo.max_len = 12;
        bench_seqset a, b;
        bench_seqset_init(&a);
        bench_seqset_init(&b);
        char err[256];
        ck_assert_int_eq(bench_walks_generate(art, &wo, &a, err, sizeof err), GCG_OK);
        ck_assert_int_eq(bench_walks_generate(art, &wo, &b, err, sizeof err), GCG_OK);
        ck_assert_uint_eq(a.n_seq, 30);
        ck_assert_uint_eq(a.n_tok, b.n_tok);
        ck_assert_mem_eq(a.tok, b.tok, a.n_tok * sizeof *a.tok);
        for (size_t i = 0; i < a.n_seq; i++) ck_assert_uint_le(a.seq[i].n, 12);
        bench_measure_options mo = {.repeats = 1, .bf_every = 1};
        bench_measure_result r;
        ck_assert_int_eq(bench_measure_run(art, &a, &mo, &r), GCG_OK);
        ck_assert_uint_eq(bench_failures_total(&r.fail), 0);
        ck_assert_uint_eq(r.steps, a.n_tok + a.n_seq);
        bench_measure_free(&r);
        bench_seqset_free(&a);
        bench_seqset_free(&b);
    }
    gcg_artifact_free(art);
}
END_TEST

START_TEST(adversarial_walks_replay_cleanly) {
    gcg_artifact *art = tiny_artifact();
    bench_walk_options wo;
    bench_walk_options_default(BENCH_WALK_ADVERSARIAL, &wo);
    wo.walks = 5;
    wo.max_len = 10;
    bench_seqset a;
    bench_seqset_init(&a);
    char err[256];
    ck_assert_int_eq(bench_walks_generate(art, &wo, &a, err, sizeof err), GCG_OK);
    ck_assert_uint_eq(a.n_seq, 5);
    bench_measure_options mo = {.repeats = 1, .bf_every = 1};
    bench_measure_result r;
    ck_assert_int_eq(bench_measure_run(art, &a, &mo, &r), GCG_OK);
    ck_assert_uint_eq(bench_failures_total(&r.fail), 0);
    bench_measure_free(&r);
    bench_seqset_free(&a);
    gcg_artifact_free(art);
}
END_TEST

START_TEST(batch_steps_and_json_report) {
    gcg_artifact *art = tiny_artifact();
    bench_seqset s;
    bench_seqset_init(&s);
    const uint32_t doc[] = {'[', '1', ',', '2', ']'};
    for (int i = 0; i < 5; i++) seq_of(&s, doc, 5, true);
    /* 5 sequences of 6 steps on 2 lanes: 30 masks, so a pass stops after
     * 30 / 2 = 15 steps (the fifth sequence is then half replayed) */
    int cpus[1] = {-1};
    bench_batch_options bo = {.batch = 2, .threads = 2, .repeats = 2, .cpus = cpus, .n_cpus = 0};
    bench_workload w;
    memset(&w, 0, sizeof w);
    ck_assert_int_eq(bench_batch_run(art, &s, &bo, &w.b), GCG_OK);
    ck_assert_uint_eq(w.b.failures, 0);
    ck_assert_uint_eq(w.b.steps, 15);
    /* the batch API, and B single calls in a row, replay the same steps */
    for (int mode = BENCH_BATCH_API; mode <= BENCH_BATCH_SINGLE; mode++) {
        bench_batch_options ao = bo;
        ao.mode = (bench_batch_mode)mode;
        ck_assert_int_eq(bench_batch_run(art, &s, &ao, &w.api[w.n_api]), GCG_OK);
        ck_assert_uint_eq(w.api[w.n_api].failures, 0);
        ck_assert_uint_eq(w.api[w.n_api].steps, 15);
        ck_assert_uint_eq(w.api[w.n_api].threads, mode == BENCH_BATCH_API ? 2 : 1);
        ck_assert_uint_le(w.api[w.n_api].fill_min.max, w.api[w.n_api].fill.median.max);
        w.n_api++;
    }
    w.has_batch = true;
    bench_measure_options mo = {.repeats = 2};
    ck_assert_int_eq(bench_measure_run(art, &s, &mo, &w.m), GCG_OK);
    snprintf(w.name, sizeof w.name, "tiny-bytes-docs");
    snprintf(w.workload, sizeof w.workload, "docs");
    snprintf(w.grammar, sizeof w.grammar, "tiny");
    snprintf(w.vocab, sizeof w.vocab, "bytes");
    w.compile_s = 0.25;
    w.artifact_bytes = 1234;
    bench_machine mc = {.cpu_model = "test", .cpus_online = 1, .pinned_cpu = -1};
    char path[] = "/tmp/gcg_bench_json_XXXXXX";
    close(mkstemp(path));
    char err[256];
    ck_assert(bench_report_json(path, &w, 1, &mc, err, sizeof err));
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    ck_assert_ptr_nonnull(root);
    json_t *w0 = json_array_get(json_object_get(root, "workloads"), 0);
    ck_assert_str_eq(json_string_value(json_object_get(w0, "name")), "tiny-bytes-docs");
    ck_assert_str_eq(json_string_value(json_object_get(w0, "grammar")), "tiny");
    ck_assert_int_eq(json_integer_value(json_object_get(w0, "steps")), 30);
    ck_assert_int_eq(json_integer_value(json_object_get(w0, "artifact_bytes")), 1234);
    ck_assert_double_eq_tol(json_real_value(json_object_get(w0, "compile_s")), 0.25, 1e-9);
    json_t *mask = json_object_get(w0, "mask_ns");
    ck_assert_int_eq(json_integer_value(json_object_get(mask, "max")), (json_int_t)w.m.mask.median.max);
    ck_assert_ptr_nonnull(json_object_get(mask, "p999"));
    ck_assert(json_is_null(json_object_get(w0, "bruteforce_ratio")));
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(w0, "batch"), "steps")), 15);
    json_t *api = json_object_get(w0, "batch_api");
    ck_assert_uint_eq(json_array_size(api), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(api, 0), "mode")), "batch");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(api, 1), "mode")), "single");
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(w0, "mask_ns_min"), "max")),
                     (json_int_t)w.m.mask_min_sum.max);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(w0, "failures"), "total")), 0);
    json_decref(root);
    unlink(path);
    bench_measure_free(&w.m);
    bench_seqset_free(&s);
    gcg_artifact_free(art);
}
END_TEST

static size_t count_lines(const char *path, size_t *data_lines) {
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    size_t n = 0, data = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        if (line[0] >= '0' && line[0] <= '9') data++;
    }
    fclose(f);
    if (data_lines) *data_lines = data;
    return n;
}

START_TEST(dumps_hold_every_step) {
    gcg_artifact *art = tiny_artifact();
    bench_seqset s;
    bench_seqset_init(&s);
    const uint32_t doc[] = {'[', '1', ',', '2', ']'};
    seq_of(&s, doc, 5, true);
    bench_workload w;
    memset(&w, 0, sizeof w);
    snprintf(w.name, sizeof w.name, "tiny");
    bench_measure_options mo = {.repeats = 2, .keep_steps = true};
    ck_assert_int_eq(bench_measure_run(art, &s, &mo, &w.m), GCG_OK);
    char dir[] = "/tmp/gcg_bench_dump_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char err[256], path[512];
    ck_assert(bench_report_dump(dir, &w, err, sizeof err));
    snprintf(path, sizeof path, "%s/tiny.mask.txt", dir);
    ck_assert_uint_eq(count_lines(path, NULL), 6);  /* 6 fills */
    unlink(path);
    snprintf(path, sizeof path, "%s/tiny.commit.txt", dir);
    ck_assert_uint_eq(count_lines(path, NULL), 6);  /* 5 tokens and EOS */
    unlink(path);
    size_t data;
    snprintf(path, sizeof path, "%s/tiny.cdf.tsv", dir);
    count_lines(path, &data);
    ck_assert_uint_eq(data, 12);                    /* every rank of both blocks */
    unlink(path);
    rmdir(dir);
    bench_measure_free(&w.m);
    bench_seqset_free(&s);
    gcg_artifact_free(art);
}
END_TEST

/* Runs the growth workload on `src` (its table to a scratch file). */
static gcg_status growth_of(const char *src, const bench_growth_input *in, bench_growth_result *r) {
    gcg_artifact *art = artifact_of(src);
    FILE *out = tmpfile();
    ck_assert_ptr_nonnull(out);
    gcg_status st = bench_growth(art, in, out, r);
    fclose(out);
    gcg_artifact_free(art);
    return st;
}

/* e ::= e e "c" | e "c" | "a" after a^n c^n: the step after the long run
 * does exactly the work of the short one (run edges, glr.h). */
START_TEST(growth_counting_ambiguity_is_flat) {
    bench_growth_input in = {"", "a", "c", {40, 4000}, 50, 2.0};
    bench_growth_result r;
    ck_assert_int_eq(growth_of("root ::= e\ne ::= e e \"c\" | e \"c\" | \"a\"\n", &in, &r), GCG_OK);
    for (int k = 0; k < 2; k++) {
        ck_assert_uint_eq(r.edges[k], 6);
        ck_assert_uint_eq(r.set_ops[k], 2);
        ck_assert_uint_eq(r.work[k], 55);
    }
    ck_assert_double_eq(r.work_ratio, 1.0);
    ck_assert(!r.grows);
}
END_TEST

/* A run that every mask must read (the empty e keeps l out of tail
 * position, so only the run's bottom tells ")" from ";"): the workload says
 * the step grows, and how much. */
START_TEST(growth_reports_a_growing_step) {
    const char *src = "root ::= \"(\" l \")\" | l \";\"\nl ::= \"x\" l e | \"x\"\ne ::= \"\"\n";
    bench_growth_input in = {"(", "x", "", {40, 400}, 20, 2.0};
    bench_growth_result r;
    ck_assert_int_eq(growth_of(src, &in, &r), GCG_OK);
    ck_assert_uint_eq(r.edges[0], 40);
    ck_assert_uint_eq(r.edges[1], 400);
    ck_assert(r.grows);
    in.prefix = "y"; /* not in the language */
    ck_assert_int_eq(growth_of(src, &in, &r), GCG_ERR_REJECTED);
}
END_TEST

static Suite *suite(void) {
    Suite *s = suite_create("bench");
    TCase *t = tcase_create("stats");
    tcase_add_test(t, percentiles_of_1_to_1000);
    tcase_add_test(t, percentiles_small_sets);
    tcase_add_test(t, median_and_spread);
    tcase_add_test(t, combine_repeats);
    suite_add_tcase(s, t);
    t = tcase_create("traces");
    tcase_add_test(t, trace_lines);
    tcase_add_test(t, trace_file);
    suite_add_tcase(s, t);
    t = tcase_create("replay");
    tcase_set_timeout(t, 60);
    tcase_add_test(t, replay_counts_exactly);
    tcase_add_test(t, replay_reports_rejected_token);
    tcase_add_test(t, bruteforce_stride_widens_to_fit_budget);
    tcase_add_test(t, walks_are_valid_and_deterministic);
    tcase_add_test(t, adversarial_walks_replay_cleanly);
    tcase_add_test(t, batch_steps_and_json_report);
    tcase_add_test(t, dumps_hold_every_step);
    tcase_add_test(t, growth_counting_ambiguity_is_flat);
    tcase_add_test(t, growth_reports_a_growing_step);
    suite_add_tcase(s, t);
    return s;
}

int main(void) {
    SRunner *r = srunner_create(suite());
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
