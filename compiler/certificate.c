/* certificate.c — the latency bound of a mask automaton (see certificate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "certificate.h"
#include "scc.h"

#define NONE UINT32_MAX

/* Longest read chain, set operations and bytes per frontier node, or the rule
 * behind a cycle (right recursion makes the automaton cyclic). */
gcg_status gcg_certify(mask_automaton *a, const cfg *g, uint32_t n_lr_states, const char *const *rule_names)
{
    uint32_t n = a->n_states, *comp = malloc(((size_t)n + 1) * sizeof *comp), n_comp;
    uint32_t *adj = malloc(((size_t)a->n_trans + 1) * sizeof *adj);
    uint32_t *first = calloc((size_t)n + 1, sizeof *first);
    uint32_t *reads = calloc((size_t)n + 1, sizeof *reads);
    uint64_t *bytes = calloc((size_t)n + 1, sizeof *bytes);
    gcg_status st = comp && adj && first && reads && bytes ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < n && st == GCG_OK; d++) {
        first[d] = a->trans_start[d];
        for (uint32_t i = a->trans_start[d]; i < a->trans_start[d + 1]; i++)
            adj[i] = a->trans[i].next == NONE ? d : a->trans[i].next; /* self-edge marks nothing */
    }
    if (st == GCG_OK) {
        first[n] = a->n_trans;
        st = gcg_scc(n, first, adj, comp, &n_comp);
    }
    a->bounded = true;
    /* Components come in reverse topological order: successors first. */
    uint32_t *order = st == GCG_OK ? malloc(((size_t)n + 1) * sizeof *order) : NULL;
    if (st == GCG_OK && !order)
        st = GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < n && st == GCG_OK; d++)
        order[d] = d;
    for (uint32_t d = 0; d < n && st == GCG_OK; d++) /* counting sort by component */
        reads[d] = comp[d];
    if (st == GCG_OK) {
        uint32_t *cnt = calloc((size_t)n_comp + 1, sizeof *cnt);
        if (!cnt)
            st = GCG_ERR_NOMEM;
        for (uint32_t d = 0; cnt && d < n; d++)
            cnt[comp[d] + 1]++;
        for (uint32_t k = 0; cnt && k < n_comp; k++)
            cnt[k + 1] += cnt[k];
        for (uint32_t d = 0; cnt && d < n; d++)
            order[cnt[comp[d]]++] = d;
        free(cnt);
        memset(reads, 0, (size_t)n * sizeof *reads);
    }
    for (uint32_t i = 0; i < n && st == GCG_OK && a->bounded; i++) {
        uint32_t d = order[i];
        for (uint32_t k = a->trans_start[d]; k < a->trans_start[d + 1]; k++) {
            uint32_t nx = a->trans[k].next;
            if (nx != NONE && comp[nx] == comp[d]) {
                a->bounded = false;
                uint32_t lhs = a->state_lhs[d];
                uint32_t rule = g->nts[lhs].rule;
                snprintf(a->unbounded_rule, sizeof a->unbounded_rule, "%s",
                         rule != UINT32_MAX && rule_names ? rule_names[rule] : g->nts[lhs].name);
                break;
            }
            uint32_t r = 1 + (nx == NONE ? 0 : reads[nx]);
            uint64_t b = gcg_automaton_set_bytes(a, a->trans[k].acc) + (nx == NONE ? 0 : bytes[nx]);
            reads[d] = r > reads[d] ? r : reads[d];
            bytes[d] = b > bytes[d] ? b : bytes[d];
        }
    }
    for (uint32_t s = 0; s < n_lr_states && st == GCG_OK && a->bounded; s++) {
        uint32_t d = a->root_d[s], r = d == NONE ? 0 : reads[d];
        uint64_t b = gcg_automaton_set_bytes(a, a->root_acc[s]) + (d == NONE ? 0 : bytes[d]);
        a->max_reads = r > a->max_reads ? r : a->max_reads;
        a->max_bytes = b > a->max_bytes ? b : a->max_bytes;
    }
    a->max_set_ops = a->bounded ? a->max_reads + 1 : 0;
    free(comp), free(adj), free(first), free(reads), free(bytes), free(order);
    return st;
}
