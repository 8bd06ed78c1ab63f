/*
 * probe.h — facts about a matcher's stack that the public API does not give,
 * read from the runtime's internal structures (runtime/matcher.h, gss.h) for
 * the benchmark's slow-step analysis only. Never called inside a timed region.
 */
#ifndef GCG_BENCH_PROBE_H
#define GCG_BENCH_PROBE_H

#include <stdint.h>

#include "gcg.h"

/* Stack depth below the first frontier node, following first edges: for a
 * plain (unforked) stack, the number of entries on the LR stack. */
uint32_t bench_probe_stack_depth(const gcg_matcher *m);

/* Live graph-structured-stack nodes (every frontier and rollback history). */
uint32_t bench_probe_live_nodes(const gcg_matcher *m);

/* The token sets the last fill_mask OR-ed, replayed from the artifact's mask
 * automaton along first edges below each frontier node (exact for a plain
 * stack; a lower bound where the stack forks). Writes up to max set ids to
 * ids and returns how many sets were OR-ed; *bytes receives the bytes of set
 * data they span (a dense set: the whole bitmap; a sparse one: its ids). */
uint32_t bench_probe_sets(const gcg_matcher *m, uint32_t *ids, uint32_t max, uint64_t *bytes);

/* Number of token sets in the artifact (0: no mask automaton). */
uint32_t bench_probe_n_sets(const gcg_artifact *art);

#endif /* GCG_BENCH_PROBE_H */
