/*
 * stats.c — sample arrays, nearest-rank percentiles, medians and spreads
 * (see stats.h for the definitions used).
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void bench_samples_init(bench_samples *s) {
    s->v = NULL;
    s->n = 0;
    s->cap = 0;
}

bool bench_samples_reserve(bench_samples *s, size_t n) {
    if (n <= s->cap) return true;
    uint64_t *v = realloc(s->v, n * sizeof *v);
    if (!v) return false;
    s->v = v;
    s->cap = n;
    return true;
}

bool bench_samples_push(bench_samples *s, uint64_t v) {
    if (s->n == s->cap && !bench_samples_reserve(s, s->cap ? 2 * s->cap : 1024)) return false;
    s->v[s->n++] = v;
    return true;
}

void bench_samples_clear(bench_samples *s) { s->n = 0; }

void bench_samples_free(bench_samples *s) {
    free(s->v);
    bench_samples_init(s);
}

uint64_t bench_percentile_sorted(const uint64_t *sorted, size_t n, double q) {
    if (n == 0) return 0;
    if (q <= 0) return sorted[0];
    /* rank = ceil(q·n), computed in a way that keeps q·n exact for q = k/1000 */
    double r = ceil(q * (double)n - 1e-9);
    size_t rank = r < 1 ? 1 : (size_t)r;
    if (rank > n) rank = n;
    return sorted[rank - 1];
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

bool bench_summarize(const bench_samples *s, bench_summary *out) {
    memset(out, 0, sizeof *out);
    if (s->n == 0) return true;
    uint64_t *c = malloc(s->n * sizeof *c);
    if (!c) return false;
    memcpy(c, s->v, s->n * sizeof *c);
    qsort(c, s->n, sizeof *c, cmp_u64);
    double sum = 0;
    for (size_t i = 0; i < s->n; i++) sum += (double)c[i];
    out->n = s->n;
    out->min = c[0];
    out->p50 = bench_percentile_sorted(c, s->n, 0.50);
    out->p90 = bench_percentile_sorted(c, s->n, 0.90);
    out->p99 = bench_percentile_sorted(c, s->n, 0.99);
    out->p999 = bench_percentile_sorted(c, s->n, 0.999);
    out->max = c[s->n - 1];
    out->mean = sum / (double)s->n;
    free(c);
    return true;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n) {
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_spread(double *v, size_t n) {
    double med = bench_median(v, n);  /* sorts v */
    if (n == 0 || med == 0) return 0;
    return (v[n - 1] - v[0]) / med;
}

/* Median and spread of one field across the repeats. */
static double field(const bench_summary *reps, size_t n, size_t off, bool as_double, double *spread) {
    double v[64];
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)&reps[i] + off;
        v[i] = as_double ? *(const double *)p : (double)*(const uint64_t *)p;
    }
    double med = bench_median(v, n);
    *spread = bench_spread(v, n);
    return med;
}

void bench_combine(const bench_summary *reps, size_t n, bench_combined *out) {
    memset(out, 0, sizeof *out);
    if (n == 0) return;
    if (n > 64) n = 64;
    double sp;
    bench_summary *m = &out->median;
    m->n = reps[0].n;
#define U64(f, sdst)                                                            \
    do {                                                                        \
        m->f = (uint64_t)llround(field(reps, n, offsetof(bench_summary, f), false, &sp)); \
        sdst = sp;                                                              \
    } while (0)
    double unused;
    U64(min, unused);
    U64(p50, out->spread_p50);
    U64(p90, unused);
    U64(p99, out->spread_p99);
    U64(p999, out->spread_p999);
    U64(max, out->spread_max);
#undef U64
    (void)unused;
    m->mean = field(reps, n, offsetof(bench_summary, mean), true, &out->spread_mean);
}
