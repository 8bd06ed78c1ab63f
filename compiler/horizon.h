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
 * checks demand form a graph whose edges weigh one byte (shifts) or the
 * fewest bytes of the nonterminal (gotos: they follow its reduction). A pair
 * whose failing checks are all d bytes away or more (Dial's shortest paths
 * from the failures) has walks that agree on every token of at most d bytes:
 * when d > L, on all of them, and the walk is shared whole; when the chain's
 * end is nearer, the twin's results stand for the short tokens and only the
 * trie's subtrees holding longer ones are walked. The states below a walk's
 * top must agree too: the same predecessors, or single predecessors forming
 * a checked pair themselves.
 */
#ifndef GCG_HORIZON_H
#define GCG_HORIZON_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "lr_build.h"
#include "vecmap.h"
#include "../runtime/error.h"

#define HORIZON_ALL UINT32_MAX /* a twin's walk agrees at every depth */

typedef struct horizon {
    uint32_t *twin;   /* per LR state: a state whose root walk equals this one's
                         renamed, or UINT32_MAX; twins form chains, no cycles */
    uint32_t *reach;  /* per LR state with a twin: the walks agree on every
                         token of at most reach bytes (HORIZON_ALL: on all) */
    bool *moving;     /* per nonterminal: moved by the renaming (a walk whose
                         read configurations name one cannot be shared)      */
    map64 pairs;      /* checked pair (a, b) -> bytes its walks agree for  */
} horizon;

/* Builds the twins of lr's states; pred_first/pred list each state's
 * predecessors, ascending, each once (mask_sim.h); `max_token_bytes` is L,
 * the trie's depth. On failure *out is empty (every twin UINT32_MAX would
 * also be correct). */
gcg_status gcg_horizon_build(horizon *out, const cfg *g, const lr_tables *lr, const uint32_t *pred_first,
                             const uint32_t *pred, uint32_t max_token_bytes);

/* A horizon with no twins: every state walks. */
gcg_status gcg_horizon_none(horizon *out, const cfg *g, const lr_tables *lr);

/* For how many bytes a walk from state b, with known stack [b], agrees with
 * the walk from a renamed (the states below checked apart): HORIZON_ALL
 * when a == b or for every token, 0 for an unchecked pair. */
uint32_t gcg_horizon_pair_reach(horizon *hz, uint32_t a, uint32_t b);

void gcg_horizon_free(horizon *hz);

#endif /* GCG_HORIZON_H */
