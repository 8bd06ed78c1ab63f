/*
 * brute_scratch.h — the working memory of the brute-force mask
 * (bruteforce.c): one frame per token-trie level being walked, and the GLR
 * frontiers those levels hold. Grows to the longest token once, then is
 * reused. Independent of the matcher.
 */
#ifndef GCG_BRUTE_SCRATCH_H
#define GCG_BRUTE_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One trie level being walked: the node, the child to try next, and the
 * frontier (with holds) after the node's prefix. */
typedef struct brute_frame {
    uint32_t node, child;
    uint32_t start, n;   /* frontier nodes in brute_scratch.nodes */
} brute_frame;

typedef struct brute_scratch {
    brute_frame *frames;
    uint32_t cap_frames;
    uint32_t *nodes;
    uint32_t cap_nodes;
} brute_scratch;

void brute_scratch_init(brute_scratch *b);
void brute_scratch_free(brute_scratch *b);

/* Room for `frames` frames and `nodes` frontier entries. */
bool brute_scratch_reserve(brute_scratch *b, uint32_t frames, uint32_t nodes);

/* Bytes held. */
size_t brute_scratch_size(const brute_scratch *b);

#endif /* GCG_BRUTE_SCRATCH_H */
