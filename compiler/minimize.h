/*
 * minimize.h — the smallest mask automaton with the same masks: states with
 * equal transitions (the same LR states read, the same token sets decided)
 * into equivalent states are merged (partition refinement, as for DFA
 * minimization; a block is re-signed only when a successor of one of its
 * states moved, see minimize.c). Determinization names states by their read
 * configurations, so configurations that differ but decide the same tokens
 * the same way give duplicate states; this removes them.
 */
#ifndef GCG_MINIMIZE_H
#define GCG_MINIMIZE_H

#include <stdint.h>

#include "automaton.h"

/* Minimizes `a` in place (states, transitions, root_d of the n_lr_states LR
 * states, state_lhs); a->n_states_built keeps the count before. */
gcg_status gcg_automaton_minimize(mask_automaton *a, uint32_t n_lr_states);

#endif /* GCG_MINIMIZE_H */
