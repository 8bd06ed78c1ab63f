/*
 * vecmap.h — the compiler's two workhorse containers: a growable vector of
 * uint32 and an open-addressing map from 64-bit keys to uint32 values. Both
 * are plain data, zero-initialized to empty; each push or insert may
 * allocate and reports failure instead of aborting.
 */
#ifndef GCG_VECMAP_H
#define GCG_VECMAP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct vec { uint32_t *v; uint32_t n, cap; } vec;

/* Keys are any 64-bit value but UINT64_MAX (the empty mark); a new slot's
 * value is UINT32_MAX. */
typedef struct map64 { uint64_t *k; uint32_t *v; uint32_t n, cap; } map64;

/* Doubles a full vector's room; false on out of memory. */
bool gcg_vec_grow(vec *a);

/* Appends x (inline: the compiler's walks push on every step). */
static inline bool gcg_vec_push(vec *a, uint32_t x)
{
    if (a->n == a->cap && !gcg_vec_grow(a))
        return false;
    a->v[a->n++] = x;
    return true;
}

/* Room for `extra` more entries; false on out of memory. */
bool gcg_vec_reserve(vec *a, uint32_t extra);
void gcg_vec_free(vec *a);

/* Makes room for one more key (doubling, rehashing); false on out of memory. */
bool gcg_map64_grow(map64 *m);

/* A 64-bit finalizer (from MurmurHash3): keys here are small structured
 * integers or hashes already, so a full hash of 8 bytes is wasted work. */
static inline uint32_t gcg_map64_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ull;
    k ^= k >> 33;
    return (uint32_t)k;
}

/* The value slot of `key`: with `insert`, created if absent (NULL only on out
 * of memory); without, NULL when absent. Slots move when the map grows.
 * Inline: the symbolic simulation looks keys up hundreds of millions of
 * times on large grammars, and a call costs as much as the probe. */
static inline uint32_t *gcg_map64_slot(map64 *m, uint64_t key, bool insert)
{
    if (insert && 2 * (m->n + 1) > m->cap && !gcg_map64_grow(m))
        return NULL;
    if (!m->cap)
        return NULL;
    uint32_t h = gcg_map64_mix(key) & (m->cap - 1);
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

/* The value of `key`, or UINT32_MAX when absent (a read-only look-up). */
static inline uint32_t gcg_map64_get(const map64 *m, uint64_t key)
{
    if (!m->cap)
        return UINT32_MAX;
    uint32_t h = gcg_map64_mix(key) & (m->cap - 1);
    while (m->k[h] != UINT64_MAX && m->k[h] != key)
        h = (h + 1) & (m->cap - 1);
    return m->k[h] == key ? m->v[h] : UINT32_MAX;
}

void gcg_map64_free(map64 *m);
/* Empties the map for reuse. One much larger than what it holds is given
 * back instead of cleared slot by slot, so that emptying a map that one big
 * use grew costs no more than its next use. */
void gcg_map64_clear(map64 *m);

/* Sorts n records of `words` uint32 each (1 to 4) ascending, comparing
 * their words in order, with `tmp` as scratch. A natural merge sort (short
 * lists by insertion): the walks' logs are a few sorted runs end to end, and
 * most lists are short, where qsort's calls cost more than the sorting.
 * false on out of memory. */
bool gcg_sort_records(uint32_t *v, uint32_t n, uint32_t words, vec *tmp);

#endif /* GCG_VECMAP_H */
