/* brute_scratch.c — frames and frontiers of the brute-force mask (see brute_scratch.h). */
#include <stdlib.h>
#include <string.h>

#include "brute_scratch.h"

void brute_scratch_init(brute_scratch *b)
{
    memset(b, 0, sizeof *b);
}

void brute_scratch_free(brute_scratch *b)
{
    free(b->frames), free(b->nodes);
    memset(b, 0, sizeof *b);
}

/* Doubles *cap (from `first`) until it holds `need` elements of `size`. */
static bool grow(void **p, uint32_t *cap, uint32_t need, uint32_t first, size_t size)
{
    if (need <= *cap)
        return true;
    uint32_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return false;
    *p = q, *cap = c;
    return true;
}

bool brute_scratch_reserve(brute_scratch *b, uint32_t frames, uint32_t nodes)
{
    return grow((void **)&b->frames, &b->cap_frames, frames, 64, sizeof *b->frames) &&
           grow((void **)&b->nodes, &b->cap_nodes, nodes, 256, sizeof *b->nodes);
}

size_t brute_scratch_size(const brute_scratch *b)
{
    return (size_t)b->cap_frames * sizeof *b->frames + (size_t)b->cap_nodes * sizeof *b->nodes;
}
