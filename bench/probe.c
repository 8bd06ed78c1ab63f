/*
 * probe.c — stack facts read from the runtime's internals (see probe.h).
 */
#include "probe.h"

#include "matcher.h"

uint32_t bench_probe_stack_depth(const gcg_matcher *m) {
    if (!m->n_front) return 0;
    const gss *g = &m->p.g;
    uint32_t depth = 0;
    for (uint32_t n = m->front[0]; g->nodes[n].edge != GSS_NONE; n = g->edges[g->nodes[n].edge].to) depth++;
    return depth;
}

uint32_t bench_probe_live_nodes(const gcg_matcher *m) { return m->p.g.live; }
