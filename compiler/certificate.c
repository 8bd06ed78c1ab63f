/* certificate.c — the latency bound of a mask automaton (see certificate.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_format.h"
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

/* Set operations of one mask: each frontier state's root set and each
 * transition's set are OR-ed at most once (mask_walk.c skips repeats), so
 * the roots plus the transitions reachable from roots bound every mask. */
static gcg_status dedupe_set_ops(const mask_automaton *a, uint32_t n_lr_states, uint64_t *out)
{
    bool *seen = calloc((size_t)a->n_states + 1, 1);
    uint32_t *queue = malloc(((size_t)a->n_states + 1) * sizeof *queue), n = 0;
    if (!seen || !queue) {
        free(seen), free(queue);
        return GCG_ERR_NOMEM;
    }
    uint64_t ops = n_lr_states;
    for (uint32_t s = 0; s < n_lr_states; s++)
        if (a->root_d[s] != NONE && !seen[a->root_d[s]])
            seen[a->root_d[s]] = true, queue[n++] = a->root_d[s];
    for (uint32_t h = 0; h < n; h++) {
        uint32_t d = queue[h];
        ops += a->trans_start[d + 1] - a->trans_start[d];
        for (uint32_t k = a->trans_start[d]; k < a->trans_start[d + 1]; k++) {
            uint32_t nx = a->trans[k].next;
            if (nx != NONE && !seen[nx])
                seen[nx] = true, queue[n++] = nx;
        }
    }
    free(seen), free(queue);
    *out = ops;
    return GCG_OK;
}

/* A rule with a GLR conflict: the lhs of the first reduce in a conflict cell. */
static void conflict_rule(mask_automaton *a, const lr_tables *lr, const cfg *g, const char *const *rule_names)
{
    for (size_t c = 0; c < (size_t)lr->n_states * lr->n_terms; c++) {
        uint32_t act = lr->action[c];
        if (GCG_ACT_KIND(act) != GCG_ACT_MULTI)
            continue;
        const uint32_t *m = lr->multi + GCG_ACT_ARG(act);
        for (uint32_t i = 1; i <= m[0]; i++) {
            if (GCG_ACT_KIND(m[i]) != GCG_ACT_REDUCE)
                continue;
            uint32_t lhs = lr->prod_lhs[GCG_ACT_ARG(m[i])], rule = g->nts[lhs].rule;
            snprintf(a->unbounded_rule, sizeof a->unbounded_rule, "%s",
                     rule != UINT32_MAX && rule_names ? rule_names[rule] : g->nts[lhs].name);
            return;
        }
    }
}

gcg_status gcg_certify_whole(mask_automaton *a, const lr_tables *lr, const cfg *g, const char *const *rule_names)
{
    uint64_t ops;
    gcg_status st = dedupe_set_ops(a, lr->n_states, &ops);
    if (st != GCG_OK)
        return st;
    bool deterministic = lr->sr_conflicts == 0 && lr->rr_conflicts == 0;
    a->unbounded_reason = GCG_CERT_UNBOUNDED_RECURSION;
    if (a->bounded && deterministic) {
        /* One stack: one frontier node, one edge per node read; a read
         * chain of max_reads transitions pops max_reads + 1 pairs (the
         * last reads its node's edge and finds no transition). */
        a->whole_reads = a->whole_edges = a->max_reads + 1;
        ops = ops < (uint64_t)a->max_set_ops ? ops : a->max_set_ops;
    } else if (a->bounded) {
        a->bounded = false;
        a->unbounded_reason = GCG_CERT_UNBOUNDED_AMBIGUITY;
        conflict_rule(a, lr, g, rule_names);
    }
    a->whole_set_ops = ops > UINT32_MAX ? UINT32_MAX : (uint32_t)ops;
    return GCG_OK;
}
