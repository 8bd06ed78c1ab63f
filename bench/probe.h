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

#endif /* GCG_BENCH_PROBE_H */
