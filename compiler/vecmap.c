/* vecmap.c — growable uint32 vectors and a 64-bit-keyed map (see vecmap.h). */
#include <stdlib.h>
#include <string.h>

#include "vecmap.h"

bool gcg_vec_push(vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        uint32_t c = a->cap ? a->cap * 2 : 256;
        uint32_t *q = realloc(a->v, (size_t)c * sizeof *q);
        if (!q)
            return false;
        a->v = q, a->cap = c;
    }
    a->v[a->n++] = x;
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


/* A 64-bit finalizer (from MurmurHash3): keys here are small structured
 * integers or hashes already, so a full hash of 8 bytes is wasted work. */
static uint32_t mix64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (uint32_t)k;
}

uint32_t *gcg_map64_slot(map64 *m, uint64_t key, bool insert)
{
    if (insert && 2 * (m->n + 1) > m->cap) {
        uint32_t cap = m->cap ? m->cap * 2 : 1024;
        uint64_t *k = malloc((size_t)cap * sizeof *k);
        uint32_t *v = malloc((size_t)cap * sizeof *v);
        if (!k || !v) {
            free(k), free(v);
            return NULL;
        }
        memset(k, 0xff, (size_t)cap * sizeof *k);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (m->k[i] == UINT64_MAX)
                continue;
            uint32_t h = mix64(m->k[i]) & (cap - 1);
            while (k[h] != UINT64_MAX)
                h = (h + 1) & (cap - 1);
            k[h] = m->k[i], v[h] = m->v[i];
        }
        free(m->k), free(m->v);
        m->k = k, m->v = v, m->cap = cap;
    }
    if (!m->cap)
        return NULL;
    uint32_t h = mix64(key) & (m->cap - 1);
    while (m->k[h] != UINT64_MAX && m->k[h] != key)
        h = (h + 1) & (m->cap - 1);
    if (m->k[h] == key)
        return &m->v[h];
    if (!insert)
        return NULL;
    m->k[h] = key, m->v[h] = UINT32_MAX;
    m->n++;
    return &m->v[h];
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

int gcg_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}
