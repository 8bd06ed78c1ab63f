/* pair_map.c — a generation-stamped hash map of id pairs (see pair_map.h). */
#include <stdlib.h>
#include <string.h>

#include "pair_map.h"

void pair_map_init(pair_map *m)
{
    memset(m, 0, sizeof *m);
}

void pair_map_free(pair_map *m)
{
    free(m->keys), free(m->vals), free(m->gen);
    memset(m, 0, sizeof *m);
}

void pair_map_clear(pair_map *m)
{
    m->n = 0;
    if (++m->cur == 0) { /* wrapped: old stamps could read as current */
        if (m->gen)
            memset(m->gen, 0, (size_t)m->cap * sizeof *m->gen);
        m->cur = 1;
    }
}

/* Re-enters this generation's entries. */
bool pair_map_grow(pair_map *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 1024;
    uint64_t *k = malloc((size_t)cap * sizeof *k);
    uint32_t *v = malloc((size_t)cap * sizeof *v), *g = calloc(cap, sizeof *g);
    if (!k || !v || !g) {
        free(k), free(v), free(g);
        return false;
    }
    uint32_t cur = m->cur ? m->cur : 1;
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->gen[i] == m->cur) {
            uint32_t h = pair_map_slot(m->keys[i], cap);
            while (g[h] == cur)
                h = (h + 1) & (cap - 1);
            g[h] = cur, k[h] = m->keys[i], v[h] = m->vals[i];
        }
    free(m->keys), free(m->vals), free(m->gen);
    m->keys = k, m->vals = v, m->gen = g, m->cap = cap, m->cur = cur;
    return true;
}

bool pair_map_put(pair_map *m, uint32_t a, uint32_t b, uint32_t val)
{
    bool found;
    uint32_t *v = pair_map_upsert(m, a, b, val, &found);
    if (v)
        *v = val;
    return v != NULL;
}

size_t pair_map_size(const pair_map *m)
{
    return (size_t)m->cap * (sizeof *m->keys + sizeof *m->vals + sizeof *m->gen);
}
