/*
 * report.c — table, JSON (jansson) and dump writers for benchmark results
 * (formats in report.h and bench/README.md).
 */
#include "report.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

bool bench_wide_spread(const bench_workload *w) {
    return w->m.repeats > 1 &&
           (w->m.mask.spread_p50 > BENCH_WIDE_SPREAD_P50 || w->m.mask.spread_p999 > BENCH_WIDE_SPREAD_P999);
}

size_t bench_workload_failures(const bench_workload *w) {
    size_t n = bench_failures_total(&w->m.fail) + (w->has_batch ? w->b.failures : 0);
    for (uint32_t k = 0; k < w->n_api; k++) n += w->api[k].failures;
    return n;
}

/* ---- table -------------------------------------------------------------- */

static double us(uint64_t ns) { return (double)ns / 1000.0; }

static void table_latency(FILE *out, const bench_workload *w, size_t n) {
    fprintf(out, "\n%-34s %9s | %-44s | %-30s\n", "mask latency (us, median of repeats)", "", "fill_mask", "commit");
    fprintf(out, "%-34s %9s | %7s %7s %7s %7s %7s %6s | %7s %7s %7s %7s\n", "workload", "steps", "p50", "p90", "p99",
            "p99.9", "max", "spread", "p50", "p99", "p99.9", "max");
    for (size_t i = 0; i < n; i++) {
        const bench_summary *m = &w[i].m.mask.median, *c = &w[i].m.commit.median;
        fprintf(out, "%-34s %9zu | %7.2f %7.2f %7.2f %7.2f %7.2f %5.0f%%%s| %7.2f %7.2f %7.2f %7.2f\n", w[i].name,
                w[i].m.steps, us(m->p50), us(m->p90), us(m->p99), us(m->p999), us(m->max),
                100 * w[i].m.mask.spread_p999, bench_wide_spread(&w[i]) ? "!" : " ", us(c->p50), us(c->p99),
                us(c->p999), us(c->max));
    }
}

/* The per-step minima over repeats: the engine's cost without host noise. */
static void table_minima(FILE *out, const bench_workload *w, size_t n) {
    fprintf(out, "\n%-34s %9s | %-44s | %-30s\n", "per-step minimum over repeats (us)", "", "fill_mask", "commit");
    fprintf(out, "%-34s %9s | %7s %7s %7s %7s %7s %6s | %7s %7s %7s %7s\n", "workload", "repeats", "p50", "p90", "p99",
            "p99.9", "max", "", "p50", "p99", "p99.9", "max");
    for (size_t i = 0; i < n; i++) {
        if (w[i].batch_only) continue;
        const bench_summary *m = &w[i].m.mask_min_sum, *c = &w[i].m.commit_min_sum;
        fprintf(out, "%-34s %9u | %7.2f %7.2f %7.2f %7.2f %7.2f %6s | %7.2f %7.2f %7.2f %7.2f\n", w[i].name,
                w[i].m.repeats, us(m->p50), us(m->p90), us(m->p99), us(m->p999), us(m->max), "", us(c->p50),
                us(c->p99), us(c->p999), us(c->max));
    }
}

static void table_details(FILE *out, const bench_workload *w, size_t n) {
    fprintf(out, "\n%-34s %8s %9s %8s | %6s %7s %6s | %9s %8s | %8s %8s | %s\n", "workload", "compile", "artifact",
            "mem", "allow", "allow", "allow", "reads", "", "brute", "", "failures");
    fprintf(out, "%-34s %8s %9s %8s | %6s %7s %6s | %9s %8s | %8s %8s |\n", "", "s", "KiB", "KiB", "min", "p50",
            "max", "max/cert", "frontier", "ratio", "every");
    for (size_t i = 0; i < n; i++) {
        const bench_workload *x = &w[i];
        char comp[16], cert[24], ratio[16];
        snprintf(comp, sizeof comp, x->compile_s < 0 ? "-" : "%.2f", x->compile_s);
        if (x->cert.bounded) snprintf(cert, sizeof cert, "%u/%u", x->m.max_reads, x->cert.max_stack_reads);
        else snprintf(cert, sizeof cert, "%u/inf", x->m.max_reads);
        snprintf(ratio, sizeof ratio, x->m.bf_steps ? "%.0fx" : "-", x->m.bf_ratio);
        fprintf(out, "%-34s %8s %9.0f %8.0f | %6llu %7llu %6llu | %9s %8u | %8s %8u | %zu\n", x->name, comp,
                (double)x->artifact_bytes / 1024.0, (double)x->m.memory_max / 1024.0,
                (unsigned long long)x->m.allowed.min, (unsigned long long)x->m.allowed.p50,
                (unsigned long long)x->m.allowed.max, cert, x->m.max_frontier, ratio, x->m.bf_stride,
                bench_workload_failures(x));
    }
}

static void table_batch(FILE *out, const bench_workload *w, size_t n) {
    bool any = false;
    for (size_t i = 0; i < n; i++) any |= w[i].has_batch;
    if (!any) return;
    fprintf(out, "\n%-34s %5s %7s %8s | %-35s | %s\n", "batch (wall us per step)", "B", "threads", "steps",
            "fill all B masks", "commit all B");
    fprintf(out, "%-34s %5s %7s %8s | %7s %7s %7s %7s %3s | %7s %7s\n", "workload", "", "", "", "p50", "p99", "p99.9",
            "max", "", "p50", "p99.9");
    for (size_t i = 0; i < n; i++) {
        if (!w[i].has_batch) continue;
        const bench_batch_result *b = &w[i].b;
        fprintf(out, "%-34s %5u %7u %8zu | %7.2f %7.2f %7.2f %7.2f %3s | %7.2f %7.2f\n", w[i].name, b->batch,
                b->threads, b->steps, us(b->fill.median.p50), us(b->fill.median.p99), us(b->fill.median.p999),
                us(b->fill.median.max), "", us(b->commit.median.p50), us(b->commit.median.p999));
    }
}

/* The batch target: B x the single-matcher mask p99.9 / threads, both on
 * per-step minima over repeats (the engine's cost without host noise; the
 * medians of repeats are shown beside it). */
static double api_target_ns(const bench_workload *w, const bench_batch_result *b) {
    return (double)b->batch * (double)w->m.mask_min_sum.p999 / (double)b->threads;
}

static void table_api(FILE *out, const bench_workload *w, size_t n) {
    bool any = false;
    for (size_t i = 0; i < n; i++) any |= w[i].n_api > 0;
    if (!any) return;
    fprintf(out, "\n%-30s %4s %-6s %3s %8s | %-39s | %-15s | %-15s | %s\n", "batch API (wall us per step)", "B", "how",
            "thr", "steps", "fill all B masks (median of repeats)", "per-step min", "commit all B", "target p99.9");
    fprintf(out, "%-30s %4s %-6s %3s %8s | %9s %9s %9s %9s | %7s %7s | %7s %7s | %s\n", "workload", "", "", "", "",
            "p50", "p99", "p99.9", "max", "p50", "p99.9", "p50", "p99.9", "B*single/thr, minima");
    for (size_t i = 0; i < n; i++)
        for (uint32_t k = 0; k < w[i].n_api; k++) {
            const bench_batch_result *b = &w[i].api[k];
            const bench_summary *f = &b->fill.median;
            bool api = b->mode == BENCH_BATCH_API;
            char target[48] = "";
            if (api && !w[i].batch_only)
                snprintf(target, sizeof target, "%.2f %s", us((uint64_t)api_target_ns(&w[i], b)),
                         (double)b->fill_min.p999 <= api_target_ns(&w[i], b) ? "met" : "MISSED");
            fprintf(out, "%-30s %4u %-6s %3u %8zu | %9.2f %9.2f %9.2f %9.2f | %7.2f %7.2f | %7.2f %7.2f | %s\n",
                    w[i].name, b->batch, api ? "batch" : "single", b->threads, b->steps, us(f->p50), us(f->p99),
                    us(f->p999), us(f->max), us(b->fill_min.p50), us(b->fill_min.p999), us(b->commit.median.p50),
                    us(b->commit.median.p999), target);
        }
}

static void table_notes(FILE *out, const bench_workload *w, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const bench_workload *x = &w[i];
        if (bench_wide_spread(x))
            fprintf(out, "note: %s: wide spread between repeats (p50 %.0f%%, p99.9 %.0f%%): noisy machine?\n", x->name,
                    100 * x->m.mask.spread_p50, 100 * x->m.mask.spread_p999);
        if (x->m.bf_steps && x->m.bf_stride > 1)
            fprintf(out, "note: %s: brute force is slow: compared on %zu steps, about every %u-th\n", x->name,
                    x->m.bf_steps, x->m.bf_stride);
        if (!x->cert.bounded)
            fprintf(out, "note: %s: certificate unbounded (rule %s): stack reads not checked\n", x->name,
                    x->cert.unbounded_rule[0] ? x->cert.unbounded_rule : "?");
        if (x->has_tail) {
            bench_tail_print(out, x->name, "masks", &x->tail_mask);
            bench_tail_print(out, x->name, "commits", &x->tail_commit);
        }
        if (bench_workload_failures(x))
            fprintf(out, "FAIL: %s: %zu failure(s); first: %s\n", x->name, bench_workload_failures(x),
                    x->m.first_failure[0] ? x->m.first_failure : x->b.first_failure);
    }
}

void bench_report_table(FILE *out, const bench_workload *w, size_t n, const bench_machine *mc) {
    fprintf(out, "gcg %s benchmark on %s (%d CPUs online, pinned to %d)\n", GCG_VERSION_STRING, mc->cpu_model,
            mc->cpus_online, mc->pinned_cpu);
    table_latency(out, w, n);
    table_minima(out, w, n);
    table_details(out, w, n);
    table_batch(out, w, n);
    table_api(out, w, n);
    fputc('\n', out);
    table_notes(out, w, n);
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *j_summary(const bench_summary *s) {
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:f}", "p50", (json_int_t)s->p50, "p90", (json_int_t)s->p90,
                     "p99", (json_int_t)s->p99, "p999", (json_int_t)s->p999, "max", (json_int_t)s->max, "min",
                     (json_int_t)s->min, "mean", s->mean);
}

static json_t *j_spread(const bench_combined *c) {
    return json_pack("{s:f, s:f, s:f, s:f, s:f}", "p50", c->spread_p50, "p99", c->spread_p99, "p999", c->spread_p999,
                     "max", c->spread_max, "mean", c->spread_mean);
}

static json_t *j_repeats(const bench_summary *reps, uint32_t n) {
    json_t *a = json_array();
    for (uint32_t i = 0; i < n; i++) json_array_append_new(a, j_summary(&reps[i]));
    return a;
}

static json_t *j_failures(const bench_workload *w) {
    const bench_failures *f = &w->m.fail;
    return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:s}", "total", (json_int_t)bench_workload_failures(w),
                     "rejected", (json_int_t)f->rejected, "not_in_mask", (json_int_t)f->not_in_mask, "eos_refused",
                     (json_int_t)f->eos_refused, "bruteforce_mismatch", (json_int_t)f->bf_mismatch,
                     "reads_over_certificate", (json_int_t)f->reads_over_cert, "other", (json_int_t)f->other, "batch",
                     (json_int_t)(w->has_batch ? w->b.failures : 0), "first",
                     w->m.first_failure[0] ? w->m.first_failure : w->b.first_failure);
}

static json_t *j_bruteforce(const bench_workload *w) {
    const bench_measure_result *m = &w->m;
    return json_pack("{s:i, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:I}", "every", (int)m->bf_stride, "steps",
                     (json_int_t)m->bf_steps, "mean_ns", m->bf_mean_ns, "p50_ns", m->bf_p50_ns, "automaton_mean_ns",
                     m->auto_mean_ns, "automaton_p50_ns", m->auto_p50_ns, "ratio_mean", m->bf_ratio, "ratio_p50",
                     m->bf_ratio_p50, "mismatches", (json_int_t)m->fail.bf_mismatch);
}

static json_t *j_stack(const bench_workload *w) {
    json_t *o = json_pack("{s:i, s:b, s:i, s:i}", "max_observed", (int)w->m.max_reads, "bounded", w->cert.bounded,
                          "max_frontier", (int)w->m.max_frontier, "max_set_ops", (int)w->m.max_set_ops);
    json_object_set_new(o, "certificate", w->cert.bounded ? json_integer(w->cert.max_stack_reads) : json_null());
    if (!w->cert.bounded) json_object_set_new(o, "unbounded_rule", json_string(w->cert.unbounded_rule));
    return o;
}

static json_t *j_batch(const bench_batch_result *b) {
    return json_pack("{s:i, s:i, s:I, s:o, s:o, s:o, s:o}", "batch", (int)b->batch, "threads", (int)b->threads,
                     "steps", (json_int_t)b->steps, "step_ns", j_summary(&b->fill.median), "step_spread",
                     j_spread(&b->fill), "commit_ns", j_summary(&b->commit.median), "commit_spread",
                     j_spread(&b->commit));
}

static json_t *j_tail_cols(const bench_tail_cols *c) {
    const bench_tail_col *v[] = {&c->frontier, &c->reads,     &c->set_ops,   &c->depth,
                                 &c->allowed,  &c->token_len, &c->set_bytes, &c->cold_uses};
    const char *names[] = {"frontier", "stack_reads", "set_ops", "stack_depth", "allowed", "token_bytes",
                           "set_bytes", "cold_set_uses"};
    json_t *o = json_object();
    for (int k = 0; k < 8; k++)
        json_object_set_new(o, names[k], json_pack("{s:I, s:I}", "p50", (json_int_t)v[k]->p50, "max",
                                                   (json_int_t)v[k]->max));
    return o;
}

static json_t *j_tail(const bench_tail *t) {
    json_t *top = json_array(), *ex = json_array();
    for (uint32_t k = 0; k < t->n_top; k++)
        json_array_append_new(top, json_pack("{s:I, s:s, s:I}", "token", (json_int_t)(int32_t)t->top_token[k], "text",
                                             t->top_text[k], "count", (json_int_t)t->top_count[k]));
    for (uint32_t i = 0; i < t->n_examples; i++) {
        const bench_step_info *e = &t->example[i];
        json_array_append_new(ex, json_pack("{s:I, s:I, s:I, s:I, s:s, s:I, s:I, s:I, s:I, s:I, s:I}", "ns_min",
                                            (json_int_t)t->example_ns[i], "sequence", (json_int_t)e->seq, "position",
                                            (json_int_t)e->pos, "token", (json_int_t)(int32_t)e->token, "text",
                                            t->example_text[i], "frontier", (json_int_t)e->frontier, "stack_reads",
                                            (json_int_t)e->reads, "set_ops", (json_int_t)e->set_ops, "stack_depth",
                                            (json_int_t)e->depth, "allowed", (json_int_t)e->allowed, "set_bytes",
                                            (json_int_t)e->set_bytes));
    }
    return json_pack("{s:I, s:I, s:o, s:o, s:o, s:o}", "steps", (json_int_t)t->n, "threshold_ns",
                     (json_int_t)t->threshold_ns, "slow", j_tail_cols(&t->slow), "all", j_tail_cols(&t->all),
                     "top_tokens", top, "slowest", ex);
}

static json_t *j_api(const bench_workload *w) {
    json_t *a = json_array();
    for (uint32_t k = 0; k < w->n_api; k++) {
        const bench_batch_result *b = &w->api[k];
        bool api = b->mode == BENCH_BATCH_API;
        json_t *o = json_pack("{s:i, s:s, s:i, s:I, s:o, s:o, s:o, s:o, s:o}", "batch", (int)b->batch, "mode",
                              api ? "batch" : "single", "threads", (int)b->threads, "steps", (json_int_t)b->steps,
                              "step_ns", j_summary(&b->fill.median), "step_ns_min", j_summary(&b->fill_min),
                              "step_spread", j_spread(&b->fill), "commit_ns", j_summary(&b->commit.median),
                              "commit_ns_min", j_summary(&b->commit_min));
        json_object_set_new(o, "target_p999_ns", api && !w->batch_only ? json_real(api_target_ns(w, b)) : json_null());
        json_array_append_new(a, o);
    }
    return a;
}

static json_t *j_workload(const bench_workload *w) {
    const bench_measure_result *m = &w->m;
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:I, s:I, s:I, s:I, s:i}", "name", w->name, "workload",
                          w->workload, "grammar", w->grammar, "vocab", w->vocab, "vocab_size", (int)w->vocab_size,
                          "sequences", (json_int_t)w->sequences, "tokens", (json_int_t)w->tokens, "steps",
                          (json_int_t)m->steps, "commits", (json_int_t)m->commits, "repeats", (int)m->repeats);
    json_object_set_new(o, "mask_ns", j_summary(&m->mask.median));
    json_object_set_new(o, "mask_spread", j_spread(&m->mask));
    json_object_set_new(o, "mask_ns_repeats", j_repeats(m->mask_rep, m->repeats));
    json_object_set_new(o, "commit_ns", j_summary(&m->commit.median));
    json_object_set_new(o, "commit_spread", j_spread(&m->commit));
    json_object_set_new(o, "commit_ns_repeats", j_repeats(m->commit_rep, m->repeats));
    if (!w->batch_only) {
        json_object_set_new(o, "mask_ns_min", j_summary(&m->mask_min_sum));
        json_object_set_new(o, "commit_ns_min", j_summary(&m->commit_min_sum));
    }
    if (w->has_tail) {
        json_object_set_new(o, "slow_masks", j_tail(&w->tail_mask));
        json_object_set_new(o, "slow_commits", j_tail(&w->tail_commit));
    }
    json_object_set_new(o, "wide_spread", json_boolean(bench_wide_spread(w)));
    json_object_set_new(o, "batch_only", json_boolean(w->batch_only));
    json_object_set_new(o, "allowed", json_pack("{s:I, s:I, s:I, s:f}", "min", (json_int_t)m->allowed.min, "p50",
                                                (json_int_t)m->allowed.p50, "max", (json_int_t)m->allowed.max, "mean",
                                                m->allowed.mean));
    json_object_set_new(o, "stack_reads", j_stack(w));
    json_object_set_new(o, "memory_bytes", json_integer((json_int_t)m->memory_max));
    json_object_set_new(o, "compile_s", w->compile_s < 0 ? json_null() : json_real(w->compile_s));
    json_object_set_new(o, "artifact_bytes", json_integer((json_int_t)w->artifact_bytes));
    json_object_set_new(o, "generate_s", json_real(w->generate_s));
    json_object_set_new(o, "bruteforce_ratio", m->bf_steps ? json_real(m->bf_ratio) : json_null());
    json_object_set_new(o, "bruteforce", j_bruteforce(w));
    json_object_set_new(o, "failures", j_failures(w));
    if (w->has_batch) json_object_set_new(o, "batch", j_batch(&w->b));
    if (w->n_api) json_object_set_new(o, "batch_api", j_api(w));
    return o;
}

bool bench_report_json(const char *path, const bench_workload *w, size_t n, const bench_machine *mc, char *err,
                       size_t err_len) {
    json_t *root = json_object(), *arr = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(arr, j_workload(&w[i]));
    json_object_set_new(root, "workloads", arr);
    json_object_set_new(root, "machine", json_pack("{s:s, s:i, s:i, s:s}", "cpu", mc->cpu_model, "cpus_online",
                                                   mc->cpus_online, "pinned_cpu", mc->pinned_cpu, "gcg_version",
                                                   GCG_VERSION_STRING));
    int rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    json_decref(root);
    if (rc) snprintf(err, err_len, "%s: cannot write the JSON report", path);
    return rc == 0;
}

/* ---- dumps -------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static bool dump_values(const char *path, const bench_samples *s) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    for (size_t i = 0; i < s->n; i++) fprintf(f, "%llu\n", (unsigned long long)s->v[i]);
    return fclose(f) == 0;
}

/* One gnuplot block of CDF points: 2000 evenly spaced ranks and the last 1000. */
static bool dump_cdf_block(FILE *f, const char *label, const bench_samples *s) {
    fprintf(f, "# %s: ns fraction_at_or_below\n", label);
    if (s->n == 0) {
        fprintf(f, "1 0\n\n\n");
        return true;
    }
    uint64_t *c = malloc(s->n * sizeof *c);
    if (!c) return false;
    memcpy(c, s->v, s->n * sizeof *c);
    qsort(c, s->n, sizeof *c, cmp_u64);
    size_t every = s->n / 2000 + 1, tail = s->n > 1000 ? s->n - 1000 : 0;
    for (size_t i = 0; i < s->n; i++)
        if (i % every == 0 || i >= tail || i + 1 == s->n)
            fprintf(f, "%llu %.9f\n", (unsigned long long)(c[i] ? c[i] : 1), (double)(i + 1) / (double)s->n);
    fprintf(f, "\n\n");
    free(c);
    return true;
}

bool bench_report_dump(const char *dir, const bench_workload *w, char *err, size_t err_len) {
    char path[4096];
    bool ok = true;
    snprintf(path, sizeof path, "%s/%s.mask.txt", dir, w->name);
    ok = ok && dump_values(path, &w->m.mask0);
    snprintf(path, sizeof path, "%s/%s.commit.txt", dir, w->name);
    ok = ok && dump_values(path, &w->m.commit0);
    snprintf(path, sizeof path, "%s/%s.cdf.tsv", dir, w->name);
    FILE *f = ok ? fopen(path, "w") : NULL;
    ok = f && dump_cdf_block(f, "fill_mask", &w->m.mask0) && dump_cdf_block(f, "commit", &w->m.commit0);
    if (f && fclose(f)) ok = false;
    if (!ok) snprintf(err, err_len, "%s: %s", path, strerror(errno));
    return ok;
}
