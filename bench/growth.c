/* growth.c — a step's cost after a short and a long run (see growth.h). */
#include <stdlib.h>
#include <string.h>

#include "growth.h"
#include "stats.h"

static gcg_status commit_str(gcg_matcher *m, const char *s)
{
    return gcg_matcher_commit_bytes(m, (const uint8_t *)s, strlen(s), NULL);
}

/* A matcher after prefix, unit x n, tail x n. */
static gcg_status prepare(const gcg_artifact *art, const bench_growth_input *in, uint32_t n, gcg_matcher **m)
{
    gcg_status st = gcg_matcher_new(art, NULL, m, NULL);
    if (st == GCG_OK)
        st = commit_str(*m, in->prefix);
    for (uint32_t i = 0; st == GCG_OK && i < n; i++)
        st = commit_str(*m, in->unit);
    for (uint32_t i = 0; st == GCG_OK && in->tail[0] && i < n; i++)
        st = commit_str(*m, in->tail);
    return st;
}

typedef struct side {
    gcg_matcher *m;
    bench_samples mask, commit;
} side;

/* One round on one side: the next mask, then the next byte, rolled back.
 * Timed into the side's samples; or, with r, the work of both (exact: the
 * same every round) into r's side k. */
static gcg_status step(side *s, const uint8_t *next, uint32_t *words, size_t n_words, bench_growth_result *r, int k)
{
    uint64_t t0 = bench_now_ns();
    gcg_status st = gcg_matcher_fill_mask(s->m, words, n_words);
    uint64_t t1 = bench_now_ns();
    if (st == GCG_OK)
        st = gcg_matcher_commit_bytes(s->m, next, 1, NULL);
    uint64_t t2 = bench_now_ns();
    if (r) {
        gcg_mask_stats ms;
        gcg_commit_stats cs;
        gcg_matcher_last_mask_stats(s->m, &ms);
        gcg_matcher_last_commit_stats(s->m, &cs);
        r->edges[k] = ms.edges, r->set_ops[k] = ms.set_ops, r->work[k] = cs.work;
    } else if (st == GCG_OK && !(bench_samples_push(&s->mask, t1 - t0) && bench_samples_push(&s->commit, t2 - t1))) {
        st = GCG_ERR_NOMEM;
    }
    return st == GCG_OK ? gcg_matcher_rollback(s->m, 1) : st;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : a > 0 ? 1e9 : 1;
}

static void print_table(const bench_growth_input *in, const bench_growth_result *r, const bench_summary sm[2],
                        const bench_summary sc[2], FILE *out)
{
    fprintf(out, "growth: prefix \"%s\", unit \"%s\" and tail \"%s\" n times; %u rounds of next mask + next commit\n",
            in->prefix, in->unit, in->tail, in->rounds);
    fprintf(out, "%-10s | %-33s | %-33s |\n", "", "fill_mask ns: p50 p99 p99.9 max", "commit ns: p50 p99 p99.9 max");
    for (int k = 0; k < 2; k++)
        fprintf(out, "n=%-8u | %7llu %7llu %7llu %9llu | %7llu %7llu %7llu %9llu | edges %u, set ops %u, work %llu\n",
                in->n[k], (unsigned long long)sm[k].p50, (unsigned long long)sm[k].p99,
                (unsigned long long)sm[k].p999, (unsigned long long)sm[k].max, (unsigned long long)sc[k].p50,
                (unsigned long long)sc[k].p99, (unsigned long long)sc[k].p999, (unsigned long long)sc[k].max,
                r->edges[k], r->set_ops[k], (unsigned long long)r->work[k]);
    fprintf(out, "%-10s | p50 %5.2f   p99.9 %5.2f%10s | p50 %5.2f   p99.9 %5.2f%10s | work %.2f\n", "long/short",
            ratio((double)sm[1].p50, (double)sm[0].p50), ratio((double)sm[1].p999, (double)sm[0].p999), "",
            ratio((double)sc[1].p50, (double)sc[0].p50), ratio((double)sc[1].p999, (double)sc[0].p999), "",
            r->work_ratio);
    fprintf(out, "growth: %s (work ratio %.2f, limit %.2f)\n", r->grows ? "GROWS with the run" : "independent of the run",
            r->work_ratio, in->max_ratio);
}

gcg_status bench_growth(const gcg_artifact *art, const bench_growth_input *in, FILE *out, bench_growth_result *r)
{
    memset(r, 0, sizeof *r);
    const char *nx = in->tail[0] ? in->tail : in->unit;
    const uint8_t *next = (const uint8_t *)nx;
    size_t n_words = gcg_artifact_mask_words(art);
    uint32_t *words = malloc(n_words * sizeof *words);
    side s[2] = {0};
    gcg_status st = words ? GCG_OK : GCG_ERR_NOMEM;
    for (int k = 0; k < 2; k++) {
        bench_samples_init(&s[k].mask), bench_samples_init(&s[k].commit);
        if (st == GCG_OK)
            st = prepare(art, in, in->n[k], &s[k].m);
        if (st == GCG_OK)
            st = step(&s[k], next, words, n_words, r, k);
    }
    for (uint32_t i = 0; st == GCG_OK && i < in->rounds; i++)
        for (int k = 0; st == GCG_OK && k < 2; k++)
            st = step(&s[k], next, words, n_words, NULL, k);
    bench_summary sm[2], sc[2];
    for (int k = 0; st == GCG_OK && k < 2; k++)
        if (!bench_summarize(&s[k].mask, &sm[k]) || !bench_summarize(&s[k].commit, &sc[k]))
            st = GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        for (int k = 0; k < 2; k++)
            r->mask_p50[k] = sm[k].p50, r->mask_p999[k] = sm[k].p999, r->commit_p50[k] = sc[k].p50,
            r->commit_p999[k] = sc[k].p999;
        double w[3] = {ratio(r->edges[1], r->edges[0]), ratio(r->set_ops[1], r->set_ops[0]),
                       ratio((double)r->work[1], (double)r->work[0])};
        r->work_ratio = w[0] > w[1] ? w[0] : w[1];
        r->work_ratio = r->work_ratio > w[2] ? r->work_ratio : w[2];
        r->grows = r->work_ratio > in->max_ratio;
        print_table(in, r, sm, sc, out);
    }
    for (int k = 0; k < 2; k++) {
        gcg_matcher_free(s[k].m);
        bench_samples_free(&s[k].mask), bench_samples_free(&s[k].commit);
    }
    free(words);
    return st;
}
