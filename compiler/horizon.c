/* horizon.c — LR states whose root walks are equal (see horizon.h). */
#include <stdlib.h>
#include <string.h>

#include "horizon.h"
#include "vecmap.h"

#define NONE UINT32_MAX

/* A node of the check graph: a pair of states (a, b), or of nonterminals
 * (N, sigma(N)) when nt is set. Edges point at the pairs a node's check
 * demands, weighing the bytes between: 1 for a shift, minlen(N) for a goto
 * on N, 0 from a reduction to its nonterminal pair and on to its gotos. */
typedef struct hz {
    const cfg *g;
    const lr_tables *lr;
    uint32_t cap;                    /* distances of interest: 0..cap           */
    uint32_t *sigma;                 /* nonterminal -> the next one along its chain */
    uint32_t *minlen;                /* nonterminal -> shortest yield (<= cap)  */
    uint32_t *by_nt_first;           /* gotos by nonterminal (CSR): */
    uint32_t *by_nt_from, *by_nt_to; /*   (state, target), by state */
    map64 ids;                       /* pair key -> node                           */
    vec na, nb, nt, bad, todo;       /* per node: a, b, is a nonterminal pair, bad */
    vec efrom, eto, ew;              /* edges                                      */
    gcg_status st;
} hz;

static bool fail(hz *h, gcg_status st)
{
    if (h->st == GCG_OK)
        h->st = st;
    return false;
}

/* ---- the chains: sigma ---------------------------------------------------
 *
 * D_{j+1} -> D_j x with D_j -> D_{j-1} x (the same x): sigma(D_j) = D_{j+1},
 * and sigma(D) = D_1 for the chain's start D (is_start). Without the start's
 * pair the state after D_1 has no twin and walks the whole trie, though it
 * is the state after D renamed: two full walks per chain, each of a string
 * body's quarter million trie nodes. Nothing here is trusted, the checks
 * below decide. */

static bool is_link(const cfg *g, const cfg_index *ix, uint32_t nt, uint32_t *prev, uint32_t *x)
{
    if (g->nts[nt].kind != CFG_NT_COUNT || ix->first[nt + 1] - ix->first[nt] != 1)
        return false;
    const cfg_prod *p = &g->prods[ix->list[ix->first[nt]]];
    if (p->len != 2 || (g->rhs[p->rhs] & CFG_TERM))
        return false;
    *prev = g->rhs[p->rhs], *x = g->rhs[p->rhs + 1];
    return true;
}

/* Whether chain nonterminal nt starts a chain over x: D_0 -> ε, the first
 * link D_1 -> x once D_0 -> ε is gone, or the first link a fold kept
 * (count_fold.h: the counter enters it, so it has no production left). The
 * state after the next link behaves as the state after it, renamed, as far
 * from the end as the chain is. */
static bool is_start(const cfg *g, const cfg_index *ix, uint32_t nt, uint32_t x)
{
    uint32_t n = ix->first[nt + 1] - ix->first[nt];
    if (g->nts[nt].kind != CFG_NT_COUNT || n > 1)
        return false;
    const cfg_prod *p = n ? &g->prods[ix->list[ix->first[nt]]] : NULL;
    return !p || p->len == 0 || (p->len == 1 && g->rhs[p->rhs] == x);
}

static gcg_status build_sigma(hz *h, bool *moving)
{
    const cfg *g = h->g;
    cfg_index ix;
    gcg_status st = cfg_index_build(g, &ix);
    if (st != GCG_OK)
        return st;
    for (uint32_t m = 0; m < g->n_nts; m++) {
        uint32_t n, x, k, y;
        if (!is_link(g, &ix, m, &n, &x))
            continue;
        if (is_link(g, &ix, n, &k, &y) ? x != y : !is_start(g, &ix, n, x))
            continue;
        h->sigma[n] = h->sigma[n] == NONE ? m : NONE - 1; /* two claims: neither */
    }
    for (uint32_t n = 0; n < g->n_nts; n++) {
        if (h->sigma[n] == NONE - 1 || (h->sigma[n] != NONE && h->sigma[n] >= h->lr->n_nts))
            h->sigma[n] = NONE;
        moving[n] = h->sigma[n] != NONE;
    }
    cfg_index_free(&ix);
    return GCG_OK;
}

/* minlen[N]: the fewest bytes N derives, capped at h->cap (Knuth's
 * generalization of Dijkstra's algorithm to grammars, with a bucket queue:
 * a production's value is known once every nonterminal on its right is). */
static gcg_status build_minlen(hz *h)
{
    const cfg *g = h->g;
    uint32_t cap = h->cap, n = g->n_nts;
    uint32_t *pending = calloc((size_t)g->n_prods + 1, sizeof *pending);
    uint32_t *sum = calloc((size_t)g->n_prods + 1, sizeof *sum);
    uint32_t *occ_first = calloc((size_t)n + 2, sizeof *occ_first), *occ = malloc(((size_t)g->n_rhs + 1) * 4);
    vec *bucket = calloc((size_t)cap + 1, sizeof *bucket);
    gcg_status st = pending && sum && occ_first && occ && bucket ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t p = 0; p < g->n_prods && st == GCG_OK; p++)
        for (uint32_t i = 0; i < g->prods[p].len; i++) {
            uint32_t x = g->rhs[g->prods[p].rhs + i];
            if (x & CFG_TERM)
                sum[p]++;
            else
                pending[p]++, occ_first[x + 2]++;
        }
    for (uint32_t x = 0; x < n && st == GCG_OK; x++)
        occ_first[x + 2] += occ_first[x + 1];
    for (uint32_t p = 0; p < g->n_prods && st == GCG_OK; p++) {
        for (uint32_t i = 0; i < g->prods[p].len; i++) {
            uint32_t x = g->rhs[g->prods[p].rhs + i];
            if (!(x & CFG_TERM))
                occ[occ_first[x + 1]++] = p;
        }
        if (pending[p] == 0 && !gcg_vec_push(&bucket[sum[p] < cap ? sum[p] : cap], g->prods[p].lhs))
            st = GCG_ERR_NOMEM;
    }
    for (uint32_t x = 0; x < n; x++)
        h->minlen[x] = cap;
    uint8_t *final = calloc((size_t)n + 1, 1);
    if (!final)
        st = GCG_ERR_NOMEM;
    for (uint32_t d = 0; d <= cap && st == GCG_OK; d++)
        for (uint32_t k = 0; k < bucket[d].n && st == GCG_OK; k++) {
            uint32_t x = bucket[d].v[k];
            if (final[x])
                continue;
            final[x] = 1, h->minlen[x] = d;
            for (uint32_t i = occ_first[x]; i < occ_first[x + 1]; i++) {
                uint32_t p = occ[i];
                sum[p] = sum[p] + d < cap ? sum[p] + d : cap;
                if (--pending[p] == 0 && !gcg_vec_push(&bucket[sum[p]], g->prods[p].lhs))
                    st = GCG_ERR_NOMEM;
            }
        }
    for (uint32_t d = 0; bucket && d <= cap; d++)
        gcg_vec_free(&bucket[d]);
    free(pending), free(sum), free(occ_first), free(occ), free(bucket), free(final);
    return st;
}

/* Gotos grouped by nonterminal, each group by ascending state. */
static gcg_status build_by_nt(hz *h)
{
    const lr_tables *t = h->lr;
    h->by_nt_first = calloc((size_t)t->n_nts + 2, sizeof *h->by_nt_first);
    h->by_nt_from = malloc(((size_t)t->n_go + 1) * sizeof *h->by_nt_from);
    h->by_nt_to = malloc(((size_t)t->n_go + 1) * sizeof *h->by_nt_to);
    if (!h->by_nt_first || !h->by_nt_from || !h->by_nt_to)
        return GCG_ERR_NOMEM;
    for (uint32_t k = 0; k < t->n_go; k++)
        h->by_nt_first[t->go_nt[k] + 2]++;
    for (uint32_t n = 0; n < t->n_nts; n++)
        h->by_nt_first[n + 2] += h->by_nt_first[n + 1];
    for (uint32_t s = 0; s < t->n_states; s++)
        for (uint32_t k = t->go_start[s]; k < t->go_start[s + 1]; k++) {
            uint32_t i = h->by_nt_first[t->go_nt[k] + 1]++;
            h->by_nt_from[i] = s, h->by_nt_to[i] = t->go_to[k];
        }
    return GCG_OK;
}

/* ---- the check graph ------------------------------------------------------ */

/* The node of pair (a, b) (nonterminals when nt), created and queued if new. */
static uint32_t node(hz *h, uint32_t a, uint32_t b, bool nt)
{
    uint64_t key = ((uint64_t)nt << 63) | ((uint64_t)a << 32) | b;
    uint32_t *slot = gcg_map64_slot(&h->ids, key, true);
    if (!slot)
        return fail(h, GCG_ERR_NOMEM), NONE;
    if (*slot == NONE) {
        *slot = h->na.n;
        if (!gcg_vec_push(&h->na, a) || !gcg_vec_push(&h->nb, b) || !gcg_vec_push(&h->nt, nt) ||
            !gcg_vec_push(&h->bad, 0) || !gcg_vec_push(&h->todo, h->na.n - 1))
            return fail(h, GCG_ERR_NOMEM), NONE;
    }
    return *slot;
}

/* Node `from` demands pair (a, b) at `w` bytes further (no edge when a == b:
 * the same state behaves as itself). A goto on N comes after N's bytes: it
 * weighs minlen(N). */
static void demand(hz *h, uint32_t from, uint32_t a, uint32_t b, bool nt, uint32_t w)
{
    if (a == b)
        return;
    uint32_t to = node(h, a, b, nt);
    if (to != NONE && (!gcg_vec_push(&h->efrom, from) || !gcg_vec_push(&h->eto, to) || !gcg_vec_push(&h->ew, w)))
        fail(h, GCG_ERR_NOMEM);
}

/* One action of each row: shifts pair their targets, reductions need equal
 * lengths and equal or sigma-related left sides. False when they differ. */
static bool same_action(hz *h, uint32_t id, uint32_t p, uint32_t q)
{
    const lr_tables *t = h->lr;
    if (p == q)
        return true;
    if (GCG_ACT_KIND(p) != GCG_ACT_KIND(q))
        return false;
    if (GCG_ACT_KIND(p) == GCG_ACT_SHIFT) {
        demand(h, id, GCG_ACT_ARG(p), GCG_ACT_ARG(q), false, 1);
        return true;
    }
    if (GCG_ACT_KIND(p) != GCG_ACT_REDUCE || GCG_ACT_ARG(p) == 0 || GCG_ACT_ARG(q) == 0)
        return false;
    uint32_t pp = GCG_ACT_ARG(p), qq = GCG_ACT_ARG(q);
    uint32_t la = t->prod_lhs[pp], lb = t->prod_lhs[qq];
    if (t->prod_len[pp] != t->prod_len[qq] || (la != lb && h->sigma[la] != lb))
        return false;
    demand(h, id, la, lb, true, 0);
    return true;
}

static bool same_cell(hz *h, uint32_t id, uint32_t p, uint32_t q)
{
    const lr_tables *t = h->lr;
    if (GCG_ACT_KIND(p) != GCG_ACT_MULTI || GCG_ACT_KIND(q) != GCG_ACT_MULTI)
        return same_action(h, id, p, q);
    const uint32_t *m = t->multi + GCG_ACT_ARG(p), *n = t->multi + GCG_ACT_ARG(q);
    if (m[0] != n[0])
        return false;
    for (uint32_t i = 1; i <= m[0]; i++)
        if (!same_action(h, id, m[i], n[i]))
            return false;
    return true;
}

/* State pair (a, b): equal action rows up to the pairing, the same goto
 * nonterminals, and for a chain nonterminal N of a, b's goto on sigma(N)
 * (a reduction to the pair (N, sigma(N)) may expose them). */
static bool check_states(hz *h, uint32_t id, uint32_t a, uint32_t b)
{
    const lr_tables *t = h->lr;
    for (uint32_t x = 0; x < t->n_terms; x++)
        if (!same_cell(h, id, lr_action(t, a, x), lr_action(t, b, x)))
            return false;
    uint32_t i = t->go_start[a], j = t->go_start[b];
    if (t->go_start[a + 1] - i != t->go_start[b + 1] - j)
        return false;
    for (; i < t->go_start[a + 1]; i++, j++) {
        uint32_t n = t->go_nt[i];
        if (n != t->go_nt[j])
            return false;
        demand(h, id, t->go_to[i], t->go_to[j], false, h->minlen[n]);
        if (h->sigma[n] != NONE) {
            uint32_t to = lr_goto(t, b, h->sigma[n]);
            if (to == GCG_NO_GOTO)
                return false;
            demand(h, id, t->go_to[i], to, false, h->minlen[n]);
        }
    }
    return true;
}

static int cmp_pair(const void *x, const void *y)
{
    const uint32_t *a = x, *b = y;
    return a[0] != b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] != b[1] ? (a[1] < b[1] ? -1 : 1) : 0;
}

/* Whether the (from, to) pairs are a one-to-one map (sorted here). */
static bool one_to_one(uint32_t *pairs, uint32_t n)
{
    for (int pass = 0; pass < 2 && n > 1; pass++) {
        qsort(pairs, n, 2 * sizeof *pairs, cmp_pair);
        for (uint32_t i = 1; i < n; i++)
            if (pairs[2 * i] == pairs[2 * i - 2] && pairs[2 * i + 1] != pairs[2 * i - 1])
                return false;
        for (uint32_t i = 0; i < n; i++) { /* swap sides for the second pass */
            uint32_t tmp = pairs[2 * i];
            pairs[2 * i] = pairs[2 * i + 1], pairs[2 * i + 1] = tmp;
        }
    }
    return true;
}

/* Nonterminal pair (N, M): every state has a goto on both or neither, and
 * the targets pair up one to one (so a path consensus over any set of states
 * agrees, or not, on both). */
static bool check_nts(hz *h, uint32_t id, uint32_t n, uint32_t m)
{
    uint32_t i = h->by_nt_first[n], ie = h->by_nt_first[n + 1];
    uint32_t j = h->by_nt_first[m], je = h->by_nt_first[m + 1];
    if (ie - i != je - j)
        return false;
    uint32_t cnt = ie - i, *pairs = malloc(((size_t)cnt + 1) * 2 * sizeof *pairs);
    if (!pairs)
        return fail(h, GCG_ERR_NOMEM);
    bool ok = true;
    for (uint32_t k = 0; k < cnt && ok; k++) {
        ok = h->by_nt_from[i + k] == h->by_nt_from[j + k];
        pairs[2 * k] = h->by_nt_to[i + k], pairs[2 * k + 1] = h->by_nt_to[j + k];
        demand(h, id, h->by_nt_to[i + k], h->by_nt_to[j + k], false, 0);
    }
    ok = ok && one_to_one(pairs, cnt);
    free(pairs);
    return ok;
}

static void build_graph(hz *h)
{
    for (uint32_t n = 0; n < h->g->n_nts && h->st == GCG_OK; n++)
        if (h->sigma[n] != NONE)
            node(h, n, h->sigma[n], true);
    while (h->todo.n && h->st == GCG_OK) {
        uint32_t id = h->todo.v[--h->todo.n], a = h->na.v[id], b = h->nb.v[id];
        bool ok = h->nt.v[id] ? check_nts(h, id, a, b) : check_states(h, id, a, b);
        h->bad.v[id] = !ok;
    }
}

/* ---- distances to a failing check (Dial's bucket queue) -------------------- */

/* dist[node]: the fewest bytes from the node to a bad one along the edges,
 * or more than h->cap when none is that close. */
static uint32_t *distances(hz *h)
{
    uint32_t n = h->na.n, e = h->efrom.n, cap = h->cap;
    uint32_t *dist = malloc(((size_t)n + 1) * sizeof *dist);
    uint32_t *first = calloc((size_t)n + 2, sizeof *first), *rev = malloc(((size_t)e + 1) * sizeof *rev);
    vec *bucket = calloc((size_t)cap + 1, sizeof *bucket);
    bool ok = dist && first && rev && bucket;
    for (uint32_t k = 0; k < e && ok; k++)
        first[h->eto.v[k] + 2]++;
    for (uint32_t v = 0; v < n && ok; v++)
        first[v + 2] += first[v + 1];
    for (uint32_t k = 0; k < e && ok; k++)
        rev[first[h->eto.v[k] + 1]++] = k;
    for (uint32_t v = 0; v < n && ok; v++) {
        dist[v] = h->bad.v[v] ? 0 : cap + 1;
        ok = !h->bad.v[v] || gcg_vec_push(&bucket[0], v);
    }
    for (uint32_t d = 0; d <= cap && ok; d++)
        for (uint32_t i = 0; i < bucket[d].n && ok; i++) {
            uint32_t v = bucket[d].v[i];
            if (dist[v] != d)
                continue; /* a stale entry */
            for (uint32_t k = first[v]; k < first[v + 1] && ok; k++) {
                uint32_t edge = rev[k], u = h->efrom.v[edge], du = d + h->ew.v[edge];
                if (du < dist[u] && du <= cap) {
                    dist[u] = du;
                    ok = gcg_vec_push(&bucket[du], u);
                }
            }
        }
    for (uint32_t d = 0; bucket && d <= cap; d++)
        gcg_vec_free(&bucket[d]);
    free(first), free(rev), free(bucket);
    if (!ok) {
        free(dist);
        return fail(h, GCG_ERR_NOMEM), NULL;
    }
    return dist;
}

/* ---- twins -------------------------------------------------------------------- */

static bool same_preds(const uint32_t *first, const uint32_t *list, uint32_t a, uint32_t b)
{
    uint32_t n = first[a + 1] - first[a];
    return n == first[b + 1] - first[b] && memcmp(list + first[a], list + first[b], (size_t)n * 4) == 0;
}

/* How many bytes the states that can lie below a and below b (at every
 * depth) agree for: all of them when a and b have the same predecessors; else
 * a and b must have one each, forming a checked pair, and the agreement is
 * the smaller of that pair's distance and what lies below it. 0: they do not
 * agree. */
static uint32_t below_reach(hz *h, const uint32_t *dist, const uint32_t *first, const uint32_t *list, uint32_t a,
                            uint32_t b)
{
    uint32_t reach = UINT32_MAX;
    for (uint32_t level = 0; level < 64; level++) {
        if (same_preds(first, list, a, b))
            return reach;
        if (first[a + 1] - first[a] != 1 || first[b + 1] - first[b] != 1)
            return 0;
        a = list[first[a]], b = list[first[b]];
        uint32_t *slot = gcg_map64_slot(&h->ids, ((uint64_t)a << 32) | b, false);
        if (!slot)
            return 0;
        reach = dist[*slot] < reach ? dist[*slot] : reach;
    }
    return 0;
}

/* Cuts any cycle of twins (a renaming that maps a state back onto itself
 * would still be exact, but the automaton needs an order to fill results). */
static void cut_cycles(uint32_t *twin, uint32_t n, uint32_t *mark)
{
    for (uint32_t s = 0; s < n; s++) {
        uint32_t x = s;
        while (x != NONE && mark[x] == 0)
            mark[x] = s + 1, x = twin[x];
        if (x != NONE && mark[x] == s + 1)
            twin[x] = NONE; /* x was reached twice in this walk: a cycle */
        for (uint32_t y = s; y != NONE && mark[y] == s + 1; y = twin[y])
            mark[y] = n + 1; /* settled */
    }
}

/* Every checked state pair's distance into hz->pairs (HORIZON_ALL beyond
 * L), and the twins among them. */
static gcg_status settle(hz *h, const uint32_t *dist, const uint32_t *pfirst, const uint32_t *plist, horizon *out)
{
    const lr_tables *lr = h->lr;
    uint32_t *mark = calloc((size_t)lr->n_states + 1, sizeof *mark);
    gcg_status st = mark ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t id = 0; id < h->na.n && st == GCG_OK; id++) {
        uint32_t a = h->na.v[id], b = h->nb.v[id];
        if (h->nt.v[id])
            continue;
        uint32_t *slot = gcg_map64_slot(&out->pairs, ((uint64_t)a << 32) | b, true);
        if (!slot)
            st = GCG_ERR_NOMEM;
        else
            *slot = dist[id] >= h->cap ? HORIZON_ALL : dist[id];
    }
    for (uint32_t id = 0; id < h->na.n && st == GCG_OK; id++) {
        uint32_t a = h->na.v[id], b = h->nb.v[id];
        if (h->nt.v[id] || dist[id] < 2)
            continue;
        uint32_t below = below_reach(h, dist, pfirst, plist, a, b), reach = dist[id] < below ? dist[id] : below;
        reach = reach >= h->cap ? HORIZON_ALL : reach;
        if (reach >= 2 && (out->twin[b] == NONE || reach > out->reach[b]))
            out->twin[b] = a, out->reach[b] = reach;
    }
    if (st == GCG_OK)
        cut_cycles(out->twin, lr->n_states, mark);
    free(mark);
    return st;
}

gcg_status gcg_horizon_build(horizon *out, const cfg *g, const lr_tables *lr, const uint32_t *pred_first,
                             const uint32_t *pred, uint32_t max_token_bytes)
{
    memset(out, 0, sizeof *out);
    hz h = {.g = g, .lr = lr, .cap = max_token_bytes + 1};
    out->twin = malloc(((size_t)lr->n_states + 1) * sizeof *out->twin);
    out->reach = calloc((size_t)lr->n_states + 1, sizeof *out->reach);
    out->moving = calloc((size_t)g->n_nts + 1, sizeof *out->moving);
    h.sigma = malloc(((size_t)g->n_nts + 1) * sizeof *h.sigma);
    h.minlen = malloc(((size_t)g->n_nts + 1) * sizeof *h.minlen);
    h.st = out->twin && out->reach && out->moving && h.sigma && h.minlen ? GCG_OK : GCG_ERR_NOMEM;
    if (h.st == GCG_OK) {
        memset(out->twin, 0xff, (size_t)lr->n_states * sizeof *out->twin);
        memset(h.sigma, 0xff, (size_t)g->n_nts * sizeof *h.sigma);
        h.st = build_sigma(&h, out->moving);
    }
    if (h.st == GCG_OK)
        h.st = build_minlen(&h);
    if (h.st == GCG_OK)
        h.st = build_by_nt(&h);
    if (h.st == GCG_OK)
        build_graph(&h);
    uint32_t *dist = h.st == GCG_OK ? distances(&h) : NULL;
    if (dist)
        h.st = settle(&h, dist, pred_first, pred, out);
    free(dist);
    free(h.sigma), free(h.minlen), free(h.by_nt_first), free(h.by_nt_from), free(h.by_nt_to);
    gcg_map64_free(&h.ids);
    vec *vs[] = {&h.na, &h.nb, &h.nt, &h.bad, &h.todo, &h.efrom, &h.eto, &h.ew};
    for (size_t i = 0; i < sizeof vs / sizeof *vs; i++)
        gcg_vec_free(vs[i]);
    if (h.st != GCG_OK)
        gcg_horizon_free(out);
    return h.st;
}

gcg_status gcg_horizon_none(horizon *out, const cfg *g, const lr_tables *lr)
{
    memset(out, 0, sizeof *out);
    out->twin = malloc(((size_t)lr->n_states + 1) * sizeof *out->twin);
    out->reach = calloc((size_t)lr->n_states + 1, sizeof *out->reach);
    out->moving = calloc((size_t)g->n_nts + 1, sizeof *out->moving);
    if (!out->twin || !out->reach || !out->moving) {
        gcg_horizon_free(out);
        return GCG_ERR_NOMEM;
    }
    memset(out->twin, 0xff, (size_t)lr->n_states * sizeof *out->twin);
    return GCG_OK;
}

uint32_t gcg_horizon_pair_reach(horizon *hz, uint32_t a, uint32_t b)
{
    if (a == b)
        return HORIZON_ALL;
    uint32_t *slot = gcg_map64_slot(&hz->pairs, ((uint64_t)a << 32) | b, false);
    return slot ? *slot : 0;
}

void gcg_horizon_free(horizon *hz)
{
    free(hz->twin), free(hz->reach), free(hz->moving);
    gcg_map64_free(&hz->pairs);
    memset(hz, 0, sizeof *hz);
}
