/*
 * probe.c — stack facts read from the runtime's internals (see probe.h).
 */
#include "probe.h"

#include "matcher.h"

uint32_t bench_probe_stack_depth(const gcg_matcher *m) {
    if (!m->n_front) return 0;
    const gss *g = &m->p.g;
    uint32_t depth = 0; /* along first edges, a run edge at its fewest copies */
    for (uint32_t n = m->front[0]; g->nodes[n].edge != GSS_NONE; n = g->edges[g->nodes[n].edge].to)
        depth += g->edges[g->nodes[n].edge].lo;
    return depth;
}

uint32_t bench_probe_live_nodes(const gcg_matcher *m) { return m->p.g.live; }

uint32_t bench_probe_n_sets(const gcg_artifact *art) { return art->mask.n_sets; }

/* The automaton's transition of state d on LR state q (binary search, as the
 * runtime does), or NULL. */
static const gcg_trans_entry *trans_of(const gcg_mask_view *v, uint32_t d, uint32_t q) {
    for (uint32_t i = v->trans_start[d]; i < v->trans_start[d + 1]; i++)
        if (v->trans[i].q == q) return &v->trans[i];
    return NULL;
}

static uint64_t set_bytes(const gcg_mask_view *v, uint32_t set) {
    const gcg_set_entry *e = &v->sets[set];
    return (uint64_t)(e->kind == GCG_SET_DENSE ? v->words : e->count) * sizeof(uint32_t);
}

uint32_t bench_probe_sets(const gcg_matcher *m, uint32_t *ids, uint32_t max, uint64_t *bytes) {
    const gcg_mask_view *v = &m->art->mask;
    const gss *g = &m->p.g;
    uint32_t n = 0;
    *bytes = 0;
    if (m->terminated || !v->n_sets) return 0;
    for (uint32_t f = 0; f < m->n_front; f++) {
        uint32_t node = m->front[f], st = g->nodes[node].state, d = v->root_d[st], set = v->root_acc[st];
        uint32_t copies = 0, q = 0; /* copies of state q still to read, inside a run edge */
        for (;;) {
            if (n < max) ids[n] = set;
            n++;
            *bytes += set_bytes(v, set);
            if (d == GCG_NO_STATE) break;
            if (!copies) {
                uint32_t e = g->nodes[node].edge;
                if (e == GSS_NONE) break;
                q = g->nodes[node].state, copies = g->edges[e].lo;
                node = g->edges[e].to;
            }
            const gcg_trans_entry *t = trans_of(v, d, --copies ? q : g->nodes[node].state);
            if (!t) break;
            set = t->acc;
            d = t->next;
        }
    }
    return n;
}
