/*
 * pair_map.h — a map from a pair of 32-bit ids to a 32-bit value, emptied in
 * O(1): every slot carries the generation that filled it, and a new
 * generation forgets them all. Open addressing with linear probing, grown to
 * stay at most half full. The GLR step keeps two: the edges it made (a node
 * of one level can collect an edge to every earlier level under ambiguity,
 * so a scan of its edge list per path would make a step quadratic) and, per
 * node and run base, the edge standing for that run.
 */
#ifndef GCG_PAIR_MAP_H
#define GCG_PAIR_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pair_map {
    uint64_t *keys;
    uint32_t *vals, *gen;
    uint32_t cap, n, cur;
} pair_map;

/* Empty, no memory held. */
void pair_map_init(pair_map *m);
void pair_map_free(pair_map *m);

/* Forgets every entry (a stamp, not a clear). */
void pair_map_clear(pair_map *m);

static inline uint32_t pair_map_slot(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* The value of (a, b), or NULL. */
static inline uint32_t *pair_map_find(const pair_map *m, uint32_t a, uint32_t b)
{
    if (!m->cap)
        return NULL;
    uint64_t key = (uint64_t)a << 32 | b;
    for (uint32_t h = pair_map_slot(key, m->cap); m->gen[h] == m->cur; h = (h + 1) & (m->cap - 1))
        if (m->keys[h] == key)
            return &m->vals[h];
    return NULL;
}

/* Doubles the table (pair_map_upsert calls it at half load). */
bool pair_map_grow(pair_map *m);

/* The value of (a, b), entered as `val` if absent (*found says which); NULL
 * on OOM (the map is unchanged). One probe either way: the GLR step makes
 * one per edge, so it is inline. */
static inline uint32_t *pair_map_upsert(pair_map *m, uint32_t a, uint32_t b, uint32_t val, bool *found)
{
    if (2 * (m->n + 1) > m->cap && !pair_map_grow(m))
        return NULL;
    uint64_t key = (uint64_t)a << 32 | b;
    uint32_t h = pair_map_slot(key, m->cap);
    for (; m->gen[h] == m->cur; h = (h + 1) & (m->cap - 1))
        if (m->keys[h] == key) {
            *found = true;
            return &m->vals[h];
        }
    m->gen[h] = m->cur, m->keys[h] = key, m->vals[h] = val;
    m->n++;
    *found = false;
    return &m->vals[h];
}

/* Sets (a, b) to val. False on OOM (the map is unchanged). */
bool pair_map_put(pair_map *m, uint32_t a, uint32_t b, uint32_t val);

/* Bytes held. */
size_t pair_map_size(const pair_map *m);

#endif /* GCG_PAIR_MAP_H */
