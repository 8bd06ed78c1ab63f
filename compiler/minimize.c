/* minimize.c — merging equivalent mask-automaton states (see minimize.h).
 *
 * Partition refinement on signatures (Moore), driven by a worklist: a
 * state's signature is its transition list with each successor replaced by
 * the successor's block, and a block whose members' signatures differ
 * splits. Moore re-signs every state each round, and an automaton whose
 * states are told apart only far down a chain takes as many rounds as the
 * chain is long (93 rounds over 36k states for one schema grammar); here a
 * block is re-signed only when a successor of one of its members moved to a
 * new block, so the work follows the splits. A split keeps the old id for
 * the part holding the block's first member, so states whose successors
 * stayed keep equal signatures. At the end every block is stable: two
 * states in one block read the same LR states, decide the same token sets
 * and continue into equivalent states, so the walk from either ORs the same
 * sets; the result is the coarsest such partition, numbered by each block's
 * least state. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "minimize.h"

#define NONE UINT32_MAX

/* The partition: elems grouped by block, block b holding
 * elems[start[b] .. start[b] + len[b]). */
typedef struct refiner {
    const mask_automaton *a;
    uint32_t n_blocks;
    uint32_t *block, *elems, *start, *len;
    uint32_t *pred_first, *pred;  /* CSR: states with a transition into d   */
    uint32_t *queue, q_head, q_n; /* dirty blocks, a ring of n entries      */
    uint8_t *queued;
    uint32_t *group, *order;      /* per elem of the block in hand          */
    uint32_t *slot_rep, *slot_group, cap; /* signature -> group, by hash    */
    uint64_t *slot_hash;
    uint32_t *used, *sig, *sig2;
} refiner;

/* The signature of state d: (q, acc, block of next) triples. */
static uint32_t signature(const refiner *r, uint32_t d, uint32_t *out)
{
    const mask_automaton *a = r->a;
    uint32_t n = 0;
    for (uint32_t i = a->trans_start[d]; i < a->trans_start[d + 1]; i++) {
        const ma_trans *t = &a->trans[i];
        out[n++] = t->q, out[n++] = t->acc, out[n++] = t->next == NONE ? NONE : r->block[t->next];
    }
    return n;
}

static void mark_dirty(refiner *r, uint32_t b)
{
    if (r->queued[b] || r->len[b] < 2)
        return;
    r->queued[b] = 1;
    r->queue[(r->q_head + r->q_n++) % r->a->n_states] = b;
}

/* Groups the members of block b by signature: group[i] for the i-th member;
 * returns the number of groups. The table never fills: its capacity is at
 * least twice the number of states. */
static uint32_t group_members(refiner *r, uint32_t b)
{
    uint32_t n_groups = 0, n_used = 0, *el = r->elems + r->start[b];
    for (uint32_t i = 0; i < r->len[b]; i++) {
        uint32_t n = signature(r, el[i], r->sig);
        uint64_t h = XXH3_64bits(r->sig, (size_t)n * sizeof *r->sig);
        for (uint32_t s = (uint32_t)h & (r->cap - 1);; s = (s + 1) & (r->cap - 1)) {
            uint32_t rep = r->slot_rep[s];
            if (rep == NONE) {
                r->slot_rep[s] = el[i], r->slot_hash[s] = h, r->slot_group[s] = n_groups;
                r->used[n_used++] = s;
                r->group[i] = n_groups++;
                break;
            }
            if (r->slot_hash[s] == h && signature(r, rep, r->sig2) == n &&
                memcmp(r->sig, r->sig2, (size_t)n * sizeof *r->sig) == 0) {
                r->group[i] = r->slot_group[s];
                break;
            }
        }
    }
    for (uint32_t i = 0; i < n_used; i++)
        r->slot_rep[r->used[i]] = NONE;
    return n_groups;
}

/* Splits block b into its k signature groups (counting sort in place):
 * group 0 keeps b, the others take new ids, and the blocks of their
 * members' predecessors become dirty. */
static void split(refiner *r, uint32_t b, uint32_t k)
{
    uint32_t m = r->len[b], base = r->start[b], *el = r->elems + base;
    uint32_t *cnt = r->used; /* k + 1 counters; the slots are free again */
    memset(cnt, 0, ((size_t)k + 1) * sizeof *cnt);
    for (uint32_t i = 0; i < m; i++)
        cnt[r->group[i] + 1]++;
    for (uint32_t g = 0; g < k; g++)
        cnt[g + 1] += cnt[g];
    for (uint32_t i = 0; i < m; i++)
        r->order[cnt[r->group[i]]++] = el[i];
    memcpy(el, r->order, (size_t)m * sizeof *el);
    uint32_t at = 0;
    for (uint32_t g = 0; g < k; g++) {
        uint32_t id = g == 0 ? b : r->n_blocks++, from = at;
        at = g + 1 < k ? cnt[g] : m;
        r->start[id] = base + from, r->len[id] = at - from;
        for (uint32_t i = from; i < at; i++)
            r->block[el[i]] = id;
    }
    for (uint32_t i = r->len[b]; i < m; i++) /* the moved states */
        for (uint32_t j = r->pred_first[el[i]]; j < r->pred_first[el[i] + 1]; j++)
            mark_dirty(r, r->block[r->pred[j]]);
}

static void refine(refiner *r)
{
    while (r->q_n) {
        uint32_t b = r->queue[r->q_head];
        r->q_head = (r->q_head + 1) % r->a->n_states, r->q_n--;
        r->queued[b] = 0;
        uint32_t k = group_members(r, b);
        if (k > 1)
            split(r, b, k);
    }
}

/* Renumbers the blocks by their least state, in place. */
static void number_by_least(refiner *r)
{
    uint32_t *id = r->order, next = 0; /* old block -> new number */
    memset(id, 0xff, (size_t)r->n_blocks * sizeof *id);
    for (uint32_t d = 0; d < r->a->n_states; d++) {
        if (id[r->block[d]] == NONE)
            id[r->block[d]] = next++;
        r->block[d] = id[r->block[d]];
    }
}

/* Rebuilds the automaton over blocks: block b's transitions are those of
 * its first state, with successors mapped. */
static gcg_status rebuild(mask_automaton *a, const uint32_t *block, uint32_t n_blocks, uint32_t n_lr_states)
{
    uint32_t *rep = malloc(((size_t)n_blocks + 1) * sizeof *rep);
    uint32_t *start = calloc((size_t)n_blocks + 1, sizeof *start);
    uint32_t *lhs = malloc(((size_t)n_blocks + 1) * sizeof *lhs);
    ma_trans *trans = malloc(((size_t)a->n_trans + 1) * sizeof *trans);
    if (!rep || !start || !lhs || !trans) {
        free(rep), free(start), free(lhs), free(trans);
        return GCG_ERR_NOMEM;
    }
    memset(rep, 0xff, (size_t)n_blocks * sizeof *rep);
    for (uint32_t d = 0; d < a->n_states; d++)
        if (rep[block[d]] == NONE)
            rep[block[d]] = d;
    uint32_t n = 0;
    for (uint32_t b = 0; b < n_blocks; b++) {
        uint32_t d = rep[b];
        start[b] = n;
        lhs[b] = a->state_lhs[d];
        for (uint32_t i = a->trans_start[d]; i < a->trans_start[d + 1]; i++) {
            trans[n] = a->trans[i];
            if (trans[n].next != NONE)
                trans[n].next = block[trans[n].next];
            n++;
        }
    }
    start[n_blocks] = n;
    for (uint32_t s = 0; s < n_lr_states; s++)
        if (a->root_d[s] != NONE)
            a->root_d[s] = block[a->root_d[s]];
    free(a->trans_start), free(a->trans), free(a->state_lhs), free(rep);
    a->trans_start = start, a->trans = trans, a->state_lhs = lhs;
    a->n_states = n_blocks, a->n_trans = n;
    return GCG_OK;
}

/* Predecessor lists (CSR), one entry per transition. */
static bool build_pred(refiner *r)
{
    const mask_automaton *a = r->a;
    uint32_t n = a->n_states;
    r->pred_first = calloc((size_t)n + 2, sizeof *r->pred_first);
    r->pred = malloc(((size_t)a->n_trans + 1) * sizeof *r->pred);
    if (!r->pred_first || !r->pred)
        return false;
    for (uint32_t i = 0; i < a->n_trans; i++)
        if (a->trans[i].next != NONE)
            r->pred_first[a->trans[i].next + 2]++;
    for (uint32_t d = 0; d < n; d++)
        r->pred_first[d + 2] += r->pred_first[d + 1];
    for (uint32_t d = 0; d < n; d++)
        for (uint32_t i = a->trans_start[d]; i < a->trans_start[d + 1]; i++)
            if (a->trans[i].next != NONE)
                r->pred[r->pred_first[a->trans[i].next + 1]++] = d;
    return true;
}

/* Everything in one block, dirty. */
static bool refiner_init(refiner *r, const mask_automaton *a)
{
    uint32_t n = a->n_states, longest = 0;
    memset(r, 0, sizeof *r);
    r->a = a;
    for (uint32_t d = 0; d < n; d++) {
        uint32_t m = a->trans_start[d + 1] - a->trans_start[d];
        longest = m > longest ? m : longest;
    }
    for (r->cap = 16; r->cap < 2 * n; r->cap *= 2)
        ;
    uint32_t **u32[] = {&r->block, &r->elems, &r->start, &r->len, &r->queue, &r->group, &r->order};
    for (size_t i = 0; i < sizeof u32 / sizeof *u32; i++)
        if (!(*u32[i] = malloc((size_t)n * sizeof **u32[i])))
            return false;
    r->queued = calloc(n, 1);
    r->slot_rep = malloc((size_t)r->cap * sizeof *r->slot_rep);
    r->slot_group = malloc((size_t)r->cap * sizeof *r->slot_group);
    r->slot_hash = malloc((size_t)r->cap * sizeof *r->slot_hash);
    r->used = malloc(((size_t)n + 1) * sizeof *r->used);
    r->sig = malloc(((size_t)3 * longest + 1) * sizeof *r->sig);
    r->sig2 = malloc(((size_t)3 * longest + 1) * sizeof *r->sig2);
    if (!r->queued || !r->slot_rep || !r->slot_group || !r->slot_hash || !r->used || !r->sig || !r->sig2 ||
        !build_pred(r))
        return false;
    memset(r->slot_rep, 0xff, (size_t)r->cap * sizeof *r->slot_rep);
    for (uint32_t d = 0; d < n; d++)
        r->block[d] = 0, r->elems[d] = d;
    r->start[0] = 0, r->len[0] = n, r->n_blocks = 1;
    mark_dirty(r, 0);
    return true;
}

static void refiner_free(refiner *r)
{
    void *ps[] = {r->block, r->elems, r->start, r->len, r->queue, r->group, r->order, r->queued,
                  r->slot_rep, r->slot_group, r->slot_hash, r->used, r->sig, r->sig2, r->pred_first, r->pred};
    for (size_t i = 0; i < sizeof ps / sizeof *ps; i++)
        free(ps[i]);
}

gcg_status gcg_automaton_minimize(mask_automaton *a, uint32_t n_lr_states)
{
    a->n_states_built = a->n_states;
    if (a->n_states < 2)
        return GCG_OK;
    refiner r;
    gcg_status st = refiner_init(&r, a) ? GCG_OK : GCG_ERR_NOMEM;
    if (st == GCG_OK)
        refine(&r);
    if (st == GCG_OK && r.n_blocks < a->n_states) {
        number_by_least(&r);
        st = rebuild(a, r.block, r.n_blocks, n_lr_states);
    }
    refiner_free(&r);
    return st;
}
