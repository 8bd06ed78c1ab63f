/* vecmap.c — growable uint32 vectors and a 64-bit-keyed map (see vecmap.h). */
#include <stdlib.h>
#include <string.h>

#include "vecmap.h"

bool gcg_vec_grow(vec *a)
{
    if (a->cap > UINT32_MAX / 2)
        return false;
    uint32_t c = a->cap ? a->cap * 2 : 256;
    uint32_t *q = realloc(a->v, (size_t)c * sizeof *q);
    if (!q)
        return false;
    a->v = q, a->cap = c;
    return true;
}

bool gcg_vec_reserve(vec *a, uint32_t extra)
{
    if (a->n + extra <= a->cap)
        return true;
    uint32_t c = a->cap ? a->cap : 256;
    while (c < a->n + extra)
        c *= 2;
    uint32_t *q = realloc(a->v, (size_t)c * sizeof *q);
    if (!q)
        return false;
    a->v = q, a->cap = c;
    return true;
}


bool gcg_map64_grow(map64 *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *k = malloc((size_t)cap * sizeof *k);
    uint32_t *v = malloc((size_t)cap * sizeof *v);
    if (!k || !v) {
        free(k), free(v);
        return false;
    }
    memset(k, 0xff, (size_t)cap * sizeof *k);
    for (uint32_t i = 0; i < m->cap; i++) {
        if (m->k[i] == UINT64_MAX)
            continue;
        uint32_t h = gcg_map64_mix(m->k[i]) & (cap - 1);
        while (k[h] != UINT64_MAX)
            h = (h + 1) & (cap - 1);
        k[h] = m->k[i], v[h] = m->v[i];
    }
    free(m->k), free(m->v);
    m->k = k, m->v = v, m->cap = cap;
    return true;
}

void gcg_vec_free(vec *a)
{
    free(a->v);
    *a = (vec){0};
}

void gcg_map64_free(map64 *m)
{
    free(m->k), free(m->v);
    *m = (map64){0};
}

void gcg_map64_clear(map64 *m)
{
    if (!m->n)
        return;
    if (m->cap > 1024 && (uint64_t)m->n * 8 < m->cap) {
        gcg_map64_free(m);
        return;
    }
    memset(m->k, 0xff, (size_t)m->cap * sizeof *m->k);
    m->n = 0;
}

static inline int rec_cmp(const uint32_t *a, const uint32_t *b, uint32_t words)
{
    for (uint32_t i = 0; i < words; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

static void insertion_sort(uint32_t *v, uint32_t n, uint32_t words)
{
    uint32_t t[4];
    for (uint32_t i = 1; i < n; i++) {
        uint32_t j = i;
        memcpy(t, v + (size_t)i * words, words * sizeof *t);
        for (; j > 0 && rec_cmp(v + (size_t)(j - 1) * words, t, words) > 0; j--)
            memcpy(v + (size_t)j * words, v + (size_t)(j - 1) * words, words * sizeof *t);
        memcpy(v + (size_t)j * words, t, words * sizeof *t);
    }
}

/* The end of the ascending run of records starting at i. */
static uint32_t run_end(const uint32_t *v, uint32_t i, uint32_t n, uint32_t words)
{
    for (i++; i < n && rec_cmp(v + (size_t)(i - 1) * words, v + (size_t)i * words, words) <= 0; i++)
        ;
    return i;
}

/* One pass: each pair of neighbouring runs of `from` merged into `to`;
 * returns the number of runs there were. */
static uint32_t merge_pass_runs(const uint32_t *from, uint32_t *to, uint32_t n, uint32_t words)
{
    uint32_t runs = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t mid = run_end(from, i, n, words), end = mid < n ? run_end(from, mid, n, words) : n;
        runs += mid < n ? 2 : 1;
        uint32_t a = i, b = mid, o = i;
        while (a < mid || b < end) {
            uint32_t *src = b >= end || (a < mid && rec_cmp(from + (size_t)a * words, from + (size_t)b * words,
                                                            words) <= 0) ? &a : &b;
            memcpy(to + (size_t)o++ * words, from + (size_t)*src * words, words * sizeof *to);
            (*src)++;
        }
        i = end;
    }
    return runs;
}

bool gcg_sort_records(uint32_t *v, uint32_t n, uint32_t words, vec *tmp)
{
    if (n <= 16) {
        insertion_sort(v, n, words);
        return true;
    }
    if (run_end(v, 0, n, words) == n)
        return true;
    if ((uint64_t)n * words > UINT32_MAX / 2)
        return false;
    tmp->n = 0;
    if (!gcg_vec_reserve(tmp, n * words))
        return false;
    uint32_t *a = v, *b = tmp->v;
    while (merge_pass_runs(a, b, n, words) > 2) {
        uint32_t *t = a;
        a = b, b = t;
    }
    if (b != v)
        memcpy(v, b, (size_t)n * words * sizeof *v);
    return true;
}
