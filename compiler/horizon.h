/*
 * horizon.h — LR states whose root walks are equal, found without walking.
 *
 * A counted repetition x{0,n} lowers to a chain of nonterminals D_j -> D_{j-1} x
 * and so to Θ(n) LR states A_j ("after j copies of x"). The mask simulation
 * walks the whole vocabulary trie from every LR state, and no token is longer
 * than the trie is deep (L bytes): the walk from A_j cannot tell it from
 * A_{j+1} unless the chain's end (or some other difference) lies within L
 * bytes. So the walk of A_{j+1} is the walk of A_j with every state and
 * nonterminal renamed one step along the chain, and when no read
 * configuration names a chain nonterminal, the two have the same RootAcc and
 * RootD.
 *
 * This is checked, not assumed. sigma maps a chain nonterminal D_j to D_{j+1}
 * (from the grammar's shape). A pair (a, b) of states claims "b behaves as a
 * renamed"; its local check compares the two action rows (shift targets must
 * pair up, reductions must have equal lengths and equal or sigma-related left
 * sides) and goto rows, and a nonterminal pair (N, sigma(N)) requires every
 * state's gotos on N and sigma(N) to pair up one to one. The pairs that the
 * checks demand form a graph whose edges weigh one byte (shifts) or none
 * (gotos); a pair is safe when every failing check is more than L bytes away
 * from it (0-1 breadth-first search from the failures). States below a walk's
 * top must also be the same: the two states need equal predecessor sets.
 */
#ifndef GCG_HORIZON_H
#define GCG_HORIZON_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "lr_build.h"
#include "vecmap.h"
#include "../runtime/error.h"

typedef struct horizon {
    uint32_t *twin;   /* per LR state: a state whose root walk equals this one's
                         renamed, or UINT32_MAX; twins form chains, no cycles */
    bool *moving;     /* per nonterminal: moved by the renaming (a walk whose
                         read configurations name one cannot be shared)      */
    map64 far;        /* the checked pairs (a, b), every failure > L bytes away */
} horizon;

/* Builds the twins of lr's states; `max_token_bytes` is L, the trie's depth.
 * On failure *out is empty (every twin UINT32_MAX would also be correct). */
gcg_status gcg_horizon_build(horizon *out, const cfg *g, const lr_tables *lr, uint32_t max_token_bytes);

/* A horizon with no twins: every state walks. */
gcg_status gcg_horizon_none(horizon *out, const cfg *g, const lr_tables *lr);

/* Whether a walk from state b (over the same real stack, renamed) equals the
 * walk from a renamed: a == b, or (a, b) is a checked far pair. */
bool gcg_horizon_pairs(horizon *hz, uint32_t a, uint32_t b);

void gcg_horizon_free(horizon *hz);

#endif /* GCG_HORIZON_H */
