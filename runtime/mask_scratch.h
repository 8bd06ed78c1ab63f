/*
 * mask_scratch.h — the working memory of one fill_mask walk (mask_walk.c):
 * the depth-first work list of (automaton state, stack node) pairs, the set
 * of pairs already pushed, and a per-set stamp that lets each token set be
 * OR-ed at most once per mask.
 *
 * The matcher sizes it after every commit for the most pairs the next mask
 * can push (mask_scratch_reserve), so fill_mask itself does not allocate.
 * Every function here is independent of the matcher.
 */
#ifndef GCG_MASK_SCRATCH_H
#define GCG_MASK_SCRATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct walk_item {
    uint32_t d, node, depth; /* automaton state, stack node, edges below a top */
} walk_item;

typedef struct mask_scratch {
    walk_item *stack;      /* work list: room for `cap_stack` pushes          */
    uint32_t cap_stack;
    uint64_t *seen;        /* open addressing, (d << 32 | node), half full at most */
    uint32_t *seen_gen;    /* per slot: the call that filled it               */
    uint32_t cap_seen, gen;
    uint32_t n_seen;       /* pairs marked in this call                       */
    uint32_t *or_gen;      /* per token set: the call that OR-ed it           */
    uint32_t n_or;
} mask_scratch;

/* `n_or` keys (the artifact's token sets); no pairs yet. */
bool mask_scratch_init(mask_scratch *s, uint32_t n_or);
void mask_scratch_free(mask_scratch *s);

/* Room for `pairs` pushes in one call: the work list and the seen-set at
 * half load. Allocates only when it must grow; keeps this call's marks. */
bool mask_scratch_reserve(mask_scratch *s, uint32_t pairs);

/* Starts a call: forgets every mark (a stamp, not a clear). */
void mask_scratch_begin(mask_scratch *s);

/* Marks the pair; false if this call marked it already. The caller keeps
 * n_seen below the reserved pairs (mask_scratch_reserve grows it if not). */
bool mask_scratch_mark(mask_scratch *s, uint32_t d, uint32_t node);

/* True the first time `key` is seen in this call. */
static inline bool mask_scratch_or_first(mask_scratch *s, uint32_t key)
{
    if (s->or_gen[key] == s->gen)
        return false;
    s->or_gen[key] = s->gen;
    return true;
}

/* Bytes held. */
size_t mask_scratch_size(const mask_scratch *s);

#endif /* GCG_MASK_SCRATCH_H */
