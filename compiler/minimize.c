/* minimize.c — merging equivalent mask-automaton states (see minimize.h).
 *
 * Moore's partition refinement: start with every state in one block; a
 * state's signature is its transition list with each successor replaced by
 * the successor's block; states with equal signatures stay together. Repeat
 * until the number of blocks stops growing: then two states in one block
 * read the same LR states, decide the same token sets and continue into
 * equivalent states, so the walk from either ORs the same sets. */
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "minimize.h"

#define NONE UINT32_MAX

/* Block ids by signature: open addressing on the signature's hash. */
typedef struct sig_table {
    uint64_t *hash;
    uint32_t *rep;    /* a state of the block, or NONE */
    uint32_t *block;
    uint32_t cap;
} sig_table;

/* The signature of state d under `block`: (q, acc, block of next) triples. */
static uint32_t signature(const mask_automaton *a, const uint32_t *block, uint32_t d, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t i = a->trans_start[d]; i < a->trans_start[d + 1]; i++) {
        const ma_trans *t = &a->trans[i];
        out[n++] = t->q, out[n++] = t->acc, out[n++] = t->next == NONE ? NONE : block[t->next];
    }
    return n;
}

/* One refinement round: the new blocks in `next`; returns their number. */
static uint32_t refine(const mask_automaton *a, const uint32_t *block, uint32_t *next, sig_table *tab,
                       uint32_t *sig, uint32_t *sig2)
{
    memset(tab->rep, 0xff, (size_t)tab->cap * sizeof *tab->rep);
    uint32_t n_blocks = 0;
    for (uint32_t d = 0; d < a->n_states; d++) {
        uint32_t n = signature(a, block, d, sig);
        uint64_t h = XXH3_64bits_withSeed(sig, (size_t)n * sizeof *sig, block[d]);
        uint32_t slot = (uint32_t)h & (tab->cap - 1);
        for (;; slot = (slot + 1) & (tab->cap - 1)) {
            uint32_t r = tab->rep[slot];
            if (r == NONE) {
                tab->rep[slot] = d, tab->hash[slot] = h, tab->block[slot] = n_blocks;
                next[d] = n_blocks++;
                break;
            }
            /* Same old block and same signature: the same new block. */
            if (tab->hash[slot] == h && block[r] == block[d] && signature(a, block, r, sig2) == n &&
                memcmp(sig, sig2, (size_t)n * sizeof *sig) == 0) {
                next[d] = tab->block[slot];
                break;
            }
        }
    }
    return n_blocks;
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

gcg_status gcg_automaton_minimize(mask_automaton *a, uint32_t n_lr_states)
{
    a->n_states_built = a->n_states;
    if (a->n_states < 2)
        return GCG_OK;
    uint32_t longest = 0;
    for (uint32_t d = 0; d < a->n_states; d++) {
        uint32_t m = a->trans_start[d + 1] - a->trans_start[d];
        longest = m > longest ? m : longest;
    }
    sig_table tab = {0};
    tab.cap = 16;
    while (tab.cap < 2 * a->n_states)
        tab.cap *= 2;
    tab.hash = malloc((size_t)tab.cap * sizeof *tab.hash);
    tab.rep = malloc((size_t)tab.cap * sizeof *tab.rep);
    tab.block = malloc((size_t)tab.cap * sizeof *tab.block);
    uint32_t *block = calloc(a->n_states, sizeof *block), *next = malloc((size_t)a->n_states * sizeof *next);
    uint32_t *sig = malloc(((size_t)3 * longest + 1) * sizeof *sig);
    uint32_t *sig2 = malloc(((size_t)3 * longest + 1) * sizeof *sig2);
    gcg_status st = tab.hash && tab.rep && tab.block && block && next && sig && sig2 ? GCG_OK : GCG_ERR_NOMEM;
    uint32_t n_blocks = 1;
    while (st == GCG_OK) {
        uint32_t m = refine(a, block, next, &tab, sig, sig2);
        memcpy(block, next, (size_t)a->n_states * sizeof *block);
        if (m == n_blocks)
            break;
        n_blocks = m;
    }
    if (st == GCG_OK && n_blocks < a->n_states)
        st = rebuild(a, block, n_blocks, n_lr_states);
    free(tab.hash), free(tab.rep), free(tab.block), free(block), free(next), free(sig), free(sig2);
    return st;
}
