/* mask_walk.c — fill_mask: read the GSS once with the mask automaton.
 *
 * For every frontier node, RootAcc[state] is OR-ed into the mask; then the
 * pairs (automaton state D, stack node) are walked down the GSS edges, each
 * step OR-ing Acc(D, q) for the state q read below and stopping where D is
 * done. Pairs already visited are skipped, so a shared stack is read once.
 * The walk does not allocate: the matcher sizes its scratch at every commit
 * for the most pairs a mask can push (matcher.c, mask_pairs_bound). */
#include <stdlib.h>
#include <string.h>

#include "matcher.h"
#include "token_ref_section.h"

/* words |= set. A dense set is OR-ed 64 bits at a time (the mask and the
 * sets are 64-byte aligned in practice; word order is the same). With
 * `first`, the mask is still undefined and a dense set is copied instead:
 * one pass over 16 KB instead of a clear and an OR. */
static void or_set(const gcg_mask_view *v, uint32_t set, uint32_t *restrict words, bool first)
{
    const gcg_set_entry *e = &v->sets[set];
    const uint32_t *restrict d = v->set_data + e->offset;
    if (e->kind == GCG_SET_DENSE) {
        if (first) {
            memcpy(words, d, (size_t)v->words * sizeof *words);
            return;
        }
        for (uint32_t i = 0; i < v->words; i++)
            words[i] |= d[i];
        return;
    }
    if (first)
        memset(words, 0, (size_t)v->words * sizeof *words);
    for (uint32_t i = 0; i < e->count; i++)
        words[d[i] >> 5] |= 1u << (d[i] & 31);
}

/* The transition of automaton state d on LR state q, or NULL. */
static const gcg_trans_entry *trans_of(const gcg_mask_view *v, uint32_t d, uint32_t q)
{
    uint32_t lo = v->trans_start[d], hi = v->trans_start[d + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->trans[mid].q < q)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->trans_start[d + 1] && v->trans[lo].q == q ? &v->trans[lo] : NULL;
}

/* Pushes a pair; the scratch was sized for the pairs of this mask at the
 * last commit (mask_scratch.h), so growing here means the artifact's
 * certificate was wrong: stay correct, at the price of an allocation. */
static bool push(mask_scratch *s, uint32_t *n, walk_item it)
{
    if (*n == s->cap_stack && !mask_scratch_reserve(s, s->cap_stack * 2))
        return false;
    s->stack[(*n)++] = it;
    return true;
}

/* ORs token set `set` unless this call OR-ed it already. Keyed by the set,
 * not by the root state or transition that names it: sets are hash-consed,
 * and transitions read deep in one stack often carry the same set (on
 * MaskBench's slowest schemas a quarter of the masks over 10 us went under
 * it). The certificate's bound (one union per root state and transition)
 * holds all the more. */
static void or_once(gcg_matcher *m, mask_scratch *s, uint32_t set, uint32_t *words, bool first)
{
    if (!mask_scratch_or_first(s, set))
        return;
    or_set(&m->art->mask, set, words, first);
    m->last.set_ops++;
}

/* Reads node `below` after automaton state d: ORs the transition's set and
 * pushes the pair it leads to, once. */
static gcg_status read_below(gcg_matcher *m, mask_scratch *s, uint32_t *words, uint32_t *n, uint32_t d,
                             uint32_t below, uint32_t depth)
{
    const gcg_mask_view *v = &m->art->mask;
    if (++m->last.edges > m->max_mask_work && m->max_mask_work)
        return GCG_ERR_LIMIT;
    const gcg_trans_entry *t = trans_of(v, d, m->p.g.nodes[below].state);
    if (!t)
        return GCG_OK;
    or_once(m, s, t->acc, words, false);
    if (depth + 1 > m->last.max_stack_reads)
        m->last.max_stack_reads = depth + 1;
    /* Keep the set at most half full (every pushed pair is marked, and a
     * dense stack pushes many more pairs than it pops). */
    if (2 * (s->n_seen + 1) > s->cap_seen && !mask_scratch_reserve(s, s->n_seen + 1))
        return GCG_ERR_NOMEM;
    if (t->next != GCG_NO_STATE && mask_scratch_mark(s, t->next, below) &&
        !push(s, n, (walk_item){t->next, below, depth + 1}))
        return GCG_ERR_NOMEM;
    return GCG_OK;
}

/* A run edge (gss.h): below the node read with state d lie k-1 more copies
 * of its state q, k in [lo, hi], then `to`. The copies are read one by one,
 * and `to` from the state held after each k-1 in range. The states after j
 * copies follow d_{j+1} = next(d_j, q): once one repeats they cycle, so the
 * run costs at most the automaton's path on q, not the run's length. The
 * cycle is found without memory (Brent), and then the copies still before
 * the range are skipped a whole number of cycles at a time; once a whole
 * cycle lies in the range, every state it can hold has read `to`. */
static gcg_status walk_run(gcg_matcher *m, mask_scratch *s, uint32_t *words, uint32_t *n, walk_item it,
                           const gss_edge *ed)
{
    const gcg_mask_view *v = &m->art->mask;
    uint32_t q = m->p.g.nodes[it.node].state, d = it.d, first = ed->lo - 1, last = ed->hi - 1;
    uint32_t tort = d, tort_j = 0, power = 1, cycle = 0, stop = last;
    for (uint32_t j = 0;; j++) {
        if (j >= first) {
            gcg_status st = read_below(m, s, words, n, d, ed->to, it.depth + j);
            if (st != GCG_OK)
                return st;
        }
        if (j >= stop)
            return GCG_OK;
        if (++m->last.edges > m->max_mask_work && m->max_mask_work)
            return GCG_ERR_LIMIT;
        const gcg_trans_entry *t = trans_of(v, d, q);
        if (!t)
            return GCG_OK;
        or_once(m, s, t->acc, words, false);
        if (t->next == GCG_NO_STATE)
            return GCG_OK;
        m->last.stack_reads++;
        d = t->next;
        if (cycle) /* known: nothing to look for */
            continue;
        if (d == tort) { /* d_{j+1} = d_{tort_j}: period j + 1 - tort_j */
            cycle = j + 1 - tort_j;
            if (j + 1 < first) /* skip whole cycles before the range */
                j += (first - (j + 1)) / cycle * cycle;
            uint32_t from = j + 1 > first ? j + 1 : first;
            if (from - 1 + cycle < stop)
                stop = from - 1 + cycle; /* one cycle in range, then repeats */
        } else if (j + 1 - tort_j == power) {
            tort = d, tort_j = j + 1, power *= 2;
        }
    }
}

/* Walks the pairs reachable from the frontier's roots. */
static gcg_status walk(gcg_matcher *m, mask_scratch *s, uint32_t *words)
{
    const gcg_mask_view *v = &m->art->mask;
    const gss *g = &m->p.g;
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_front; i++) {
        uint32_t st = g->nodes[m->front[i]].state;
        or_once(m, s, v->root_acc[st], words, i == 0);
        if (v->root_d[st] != GCG_NO_STATE && !push(s, &n, (walk_item){v->root_d[st], m->front[i], 0}))
            return GCG_ERR_NOMEM;
    }
    while (n) {
        walk_item it = s->stack[--n];
        m->last.stack_reads++;
        for (uint32_t e = g->nodes[it.node].edge; e != GSS_NONE; e = g->edges[e].next) {
            gcg_status st = g->edges[e].hi == 1 ? read_below(m, s, words, &n, it.d, g->edges[e].to, it.depth)
                                                : walk_run(m, s, words, &n, it, &g->edges[e]);
            if (st != GCG_OK)
                return st;
        }
    }
    return GCG_OK;
}

gcg_status gcg_matcher_fill_mask(gcg_matcher *m, uint32_t *words, size_t n_words)
{
    if (!m || !words)
        return GCG_ERR_ARG;
    const gcg_artifact *a = m->art;
    if (a->v.n_tokens == 0 || a->mask.n_sets == 0)
        return GCG_ERR_NO_VOCAB;
    size_t need = gcg_artifact_mask_words(a);
    if (n_words < need)
        return GCG_ERR_ARG;
    memset(&m->last, 0, sizeof m->last);
    m->last.frontier_nodes = m->n_front;
    if (m->terminated || m->n_front == 0) {
        memset(words, 0, need * sizeof *words);
        return GCG_OK;
    }
    mask_scratch *s = &m->mask; /* sized by gcg_matcher_new and every commit */
    mask_scratch_begin(s);
    gcg_status st = walk(m, s, words);
    if (st != GCG_OK)
        return st;
    if (a->refs.n)
        gcg_token_refs_expand(a, words);
    for (uint32_t i = 0; m->complete && i < a->v.n_eos; i++)
        words[a->v.eos[i] >> 5] |= 1u << (a->v.eos[i] & 31);
    return GCG_OK;
}
