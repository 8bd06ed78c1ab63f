/* mask_scratch.c — the mask walk's work list and seen-set (see mask_scratch.h). */
#include <stdlib.h>
#include <string.h>

#include "mask_scratch.h"

bool mask_scratch_init(mask_scratch *s, uint32_t n_or)
{
    memset(s, 0, sizeof *s);
    s->gen = 1;
    s->n_or = n_or;
    s->or_gen = calloc((size_t)n_or + 1, sizeof *s->or_gen);
    return s->or_gen != NULL && mask_scratch_reserve(s, 64);
}

void mask_scratch_free(mask_scratch *s)
{
    free(s->stack), free(s->seen), free(s->seen_gen), free(s->or_gen);
    memset(s, 0, sizeof *s);
}

static uint32_t seen_hash(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
}

/* Rehashes into `cap` slots, keeping the marks of the current call. */
static bool seen_resize(mask_scratch *s, uint32_t cap)
{
    uint64_t *k = malloc((size_t)cap * sizeof *k);
    uint32_t *g = calloc(cap, sizeof *g);
    if (!k || !g) {
        free(k), free(g);
        return false;
    }
    for (uint32_t i = 0; i < s->cap_seen; i++) {
        if (s->seen_gen[i] != s->gen)
            continue;
        uint32_t h = seen_hash(s->seen[i], cap);
        while (g[h] == s->gen)
            h = (h + 1) & (cap - 1);
        g[h] = s->gen, k[h] = s->seen[i];
    }
    free(s->seen), free(s->seen_gen);
    s->seen = k, s->seen_gen = g, s->cap_seen = cap;
    return true;
}

bool mask_scratch_reserve(mask_scratch *s, uint32_t pairs)
{
    if (pairs > UINT32_MAX / 4)
        return false;
    uint32_t cap = s->cap_seen ? s->cap_seen : 128;
    while (cap < 2 * pairs)
        cap *= 2;
    if (cap != s->cap_seen && !seen_resize(s, cap))
        return false;
    if (pairs > s->cap_stack) {
        walk_item *q = realloc(s->stack, (size_t)pairs * sizeof *q);
        if (!q)
            return false;
        s->stack = q, s->cap_stack = pairs;
    }
    return true;
}

void mask_scratch_begin(mask_scratch *s)
{
    s->n_seen = 0;
    if (++s->gen == 0) { /* wrapped: clear the stamps once */
        memset(s->seen_gen, 0, (size_t)s->cap_seen * sizeof *s->seen_gen);
        memset(s->or_gen, 0, ((size_t)s->n_or + 1) * sizeof *s->or_gen);
        s->gen = 1;
    }
}

bool mask_scratch_mark(mask_scratch *s, uint32_t d, uint32_t node)
{
    uint64_t key = ((uint64_t)d << 32) | node;
    uint32_t h = seen_hash(key, s->cap_seen);
    while (s->seen_gen[h] == s->gen) {
        if (s->seen[h] == key)
            return false;
        h = (h + 1) & (s->cap_seen - 1);
    }
    s->seen_gen[h] = s->gen, s->seen[h] = key;
    s->n_seen++;
    return true;
}

size_t mask_scratch_size(const mask_scratch *s)
{
    return (size_t)s->cap_stack * sizeof *s->stack +
           (size_t)s->cap_seen * (sizeof *s->seen + sizeof *s->seen_gen) +
           ((size_t)s->n_or + 1) * sizeof *s->or_gen;
}
