/* mask_gss.c — symbolic stacks as a graph-structured stack (see mask_gss.h). */
#include <stdlib.h>
#include <string.h>

#include "mask_gss.h"

#define NONE UINT32_MAX
#define MARK_NODES 256              /* see edge_seen                        */
#define MARK_WORDS (MARK_NODES / 64)
#define GSS_COLUMN_CELLS (1u << 22) /* 16 MB of dense goto columns at most */

/* A node: its LR state (NONE for a real entry), the real entry's depth
 * below the reference and its first edge (NONE: none). */
enum { N_STATE, N_DEPTH, N_HEAD, GSS_NODE_WORDS };

static bool fail(sym_gss *g, gcg_status st)
{
    if (g->st == GCG_OK)
        g->st = st;
    return false;
}

gcg_status gcg_gss_init(sym_gss *g, const lr_tables *lr, uint32_t max_nodes)
{
    *g = (sym_gss){.lr = lr, .max_nodes = max_nodes, .level_lo = NONE};
    g->where = calloc((size_t)lr->n_states + 1, sizeof *g->where);
    g->column = calloc((size_t)lr->n_nts + 1, sizeof *g->column);
    return g->where && g->column ? GCG_OK : GCG_ERR_NOMEM;
}

void gcg_gss_free(sym_gss *g)
{
    free(g->where), free(g->mark_bits), free(g->mark_step);
    for (uint32_t i = 0; g->column && i < g->lr->n_nts; i++)
        free(g->column[i]);
    free(g->column);
    gcg_vec_free(&g->node), gcg_vec_free(&g->edge), gcg_vec_free(&g->reads);
    gcg_vec_free(&g->front), gcg_vec_free(&g->next), gcg_vec_free(&g->stamp);
    gcg_vec_free(&g->near), gcg_vec_free(&g->inner);
    gcg_map64_free(&g->edges);
    *g = (sym_gss){0};
}

gss_mark gcg_gss_mark(const sym_gss *g)
{
    return (gss_mark){g->node.n / GSS_NODE_WORDS, g->edge.n / 2};
}

void gcg_gss_rewind(sym_gss *g, gss_mark m)
{
    g->node.n = m.nodes * GSS_NODE_WORDS, g->edge.n = m.edges * 2;
}

static uint32_t n_nodes(const sym_gss *g)
{
    return g->node.n / GSS_NODE_WORDS;
}

static uint32_t *node_at(const sym_gss *g, uint32_t v)
{
    return g->node.v + (size_t)v * GSS_NODE_WORDS;
}

static bool room(sym_gss *g)
{
    if (n_nodes(g) + g->edge.n / 2 >= g->max_nodes)
        return fail(g, GCG_ERR_LIMIT);
    return true;
}

static uint32_t node_new(sym_gss *g, uint32_t state, uint32_t depth)
{
    if (!room(g) || !gcg_vec_reserve(&g->node, GSS_NODE_WORDS))
        return fail(g, g->st == GCG_OK ? GCG_ERR_NOMEM : g->st), NONE;
    uint32_t v = n_nodes(g), *x = g->node.v + g->node.n;
    x[N_STATE] = state, x[N_DEPTH] = depth, x[N_HEAD] = NONE;
    g->node.n += GSS_NODE_WORDS;
    if (state != NONE)
        g->where[state] = v;
    return v;
}

/* The node of `state` in the level starting at node lo, created if absent:
 * one node per state per level is what makes the graph small. */
static uint32_t level_state(sym_gss *g, uint32_t lo, uint32_t state)
{
    uint32_t v = g->where[state];
    if (v >= lo && v < n_nodes(g) && node_at(g, v)[N_STATE] == state)
        return v;
    return node_new(g, state, 0);
}

/* The real entry at `depth` in the level being built, created if absent
 * (kept in g->edges under a key no edge has: no node is numbered NONE - 1). */
static uint32_t level_entry(sym_gss *g, uint32_t depth)
{
    uint32_t *slot = gcg_map64_slot(&g->edges, ((uint64_t)(NONE - 1) << 32) | depth, true);
    if (!slot)
        return fail(g, GCG_ERR_NOMEM), NONE;
    if (*slot == NONE) {
        uint32_t v = node_new(g, NONE, depth);
        slot = gcg_map64_slot(&g->edges, ((uint64_t)(NONE - 1) << 32) | depth, false);
        *slot = v;
    }
    return *slot;
}

/* Room for the marks of node v; false on out of memory. */
static bool marks_cover(sym_gss *g, uint32_t v)
{
    uint32_t cap = g->mark_cap ? g->mark_cap : 1024;
    while (cap <= v)
        cap *= 2;
    uint64_t *bits = realloc(g->mark_bits, (size_t)cap * MARK_WORDS * sizeof *bits);
    if (bits)
        g->mark_bits = bits;
    uint32_t *step = bits ? realloc(g->mark_step, (size_t)cap * sizeof *step) : NULL;
    if (!step)
        return fail(g, GCG_ERR_NOMEM);
    memset(step + g->mark_cap, 0, (size_t)(cap - g->mark_cap) * sizeof *step);
    g->mark_step = step, g->mark_cap = cap;
    return true;
}

/* Whether the edge u -> below is there already; notes it as there. An edge
 * from one of the first MARK_NODES nodes of the level being built is a bit
 * kept with the node below, valid for this step only (few steps make more
 * nodes, and a bit costs no hashing, which was most of a step); any other
 * is a key of g->edges. */
static bool edge_seen(sym_gss *g, uint32_t u, uint32_t below)
{
    if (g->level_lo != NONE && u - g->level_lo < MARK_NODES) {
        if (below >= g->mark_cap && !marks_cover(g, below))
            return true;
        uint64_t *bits = g->mark_bits + (size_t)below * MARK_WORDS;
        if (g->mark_step[below] != g->step_id) {
            g->mark_step[below] = g->step_id;
            memset(bits, 0, MARK_WORDS * sizeof *bits);
        }
        uint32_t i = u - g->level_lo;
        bool seen = bits[i / 64] >> (i % 64) & 1;
        bits[i / 64] |= 1ull << (i % 64);
        return seen;
    }
    uint32_t *slot = gcg_map64_slot(&g->edges, ((uint64_t)u << 32) | below, true);
    if (!slot)
        return fail(g, GCG_ERR_NOMEM), true;
    bool seen = *slot != NONE;
    *slot = 0;
    return seen;
}

/* Adds u -> below unless there; without `check`, it is known to be new. */
static void edge_put(sym_gss *g, uint32_t u, uint32_t below, bool check)
{
    if (u == NONE || below == NONE || (check && edge_seen(g, u, below)))
        return;
    if (!room(g) || !gcg_vec_reserve(&g->edge, 2))
        return (void)fail(g, g->st == GCG_OK ? GCG_ERR_NOMEM : g->st);
    uint32_t e = g->edge.n / 2;
    g->edge.v[g->edge.n++] = below;
    g->edge.v[g->edge.n++] = node_at(g, u)[N_HEAD];
    node_at(g, u)[N_HEAD] = e;
    g->changed = true;
    if (below >= g->level_lo && !(gcg_vec_push(&g->inner, u) && gcg_vec_push(&g->inner, below)))
        fail(g, GCG_ERR_NOMEM);
}

/* Adds the edge u -> below of the level being built unless it is there;
 * notes a change. */
static void edge_add(sym_gss *g, uint32_t u, uint32_t below)
{
    edge_put(g, u, below, true);
}

gss_level gcg_gss_seed(sym_gss *g, const uint32_t *data, const uint32_t *start, const uint32_t *ids, uint32_t n)
{
    /* each stack's entries below its top as a chain, equal chains shared
     * ((state, node below) interned), then the tops merged */
    vec below = {0};
    gcg_map64_clear(&g->edges);
    for (uint32_t i = 0; i < n && g->st == GCG_OK; i++) {
        const uint32_t *w = data + start[ids[i]];
        uint32_t v = level_entry(g, w[0]);
        for (uint32_t j = 0; j + 1 < w[1] && g->st == GCG_OK; j++) {
            uint32_t *slot = gcg_map64_slot(&g->edges, ((uint64_t)w[2 + j] << 32) | v, true);
            if (!slot) {
                fail(g, GCG_ERR_NOMEM);
                break;
            }
            if (*slot == NONE) {
                uint32_t u = node_new(g, w[2 + j], 0);
                edge_put(g, u, v, false);
                slot = gcg_map64_slot(&g->edges, ((uint64_t)w[2 + j] << 32) | v, false);
                *slot = u;
            }
            v = *slot;
        }
        if (!gcg_vec_push(&below, v))
            fail(g, GCG_ERR_NOMEM);
    }
    gcg_map64_clear(&g->edges);
    uint32_t top = n_nodes(g);
    for (uint32_t i = 0; i < n && g->st == GCG_OK; i++) {
        const uint32_t *w = data + start[ids[i]];
        edge_add(g, level_state(g, top, w[1 + w[1]]), below.v[i]);
    }
    gcg_vec_free(&below);
    return g->st == GCG_OK ? (gss_level){top, n_nodes(g)} : (gss_level){0, 0};
}

/* Records the read (lhs, depth) once. */
static void read_add(sym_gss *g, uint32_t lhs, uint32_t depth)
{
    for (uint32_t i = 0; i < g->reads.n; i += 2)
        if (g->reads.v[i] == lhs && g->reads.v[i + 1] == depth)
            return;
    if (!gcg_vec_push(&g->reads, lhs) || !gcg_vec_push(&g->reads, depth))
        fail(g, GCG_ERR_NOMEM);
}

typedef struct reduction {
    uint32_t lo, lhs; /* the level being built, the rule's left side */
    uint32_t node_cut, edge_cut; /* this pass: nodes and edges from these on
                                    are new (see gcg_gss_step)             */
    gss_below_fn below;
    void *ctx;
} reduction;

/* The goto on r->lhs from a real entry with `rem` more entries popped below
 * it: asked of r->below; a read where the real stack decides. */
static void goto_below(sym_gss *g, const reduction *r, uint32_t v, uint32_t rem)
{
    uint32_t depth = node_at(g, v)[N_DEPTH] + rem, to = r->below(r->ctx, depth, r->lhs);
    if (to == GSS_READ)
        read_add(g, r->lhs, depth);
    else if (to != GSS_DEAD)
        edge_add(g, level_state(g, r->lo, to), level_entry(g, depth));
}

/* A stamp for every node (nodes made during a reduction included). */
static bool stamps_cover(sym_gss *g)
{
    if (g->stamp.n >= n_nodes(g))
        return true;
    if (!gcg_vec_reserve(&g->stamp, n_nodes(g) - g->stamp.n))
        return fail(g, GCG_ERR_NOMEM);
    while (g->stamp.n < n_nodes(g))
        g->stamp.v[g->stamp.n++] = 0;
    return true;
}

/* A fresh frontier mark (all stamps reset when the counter wraps). A node's
 * stamp is 2 gen when it is in the frontier by old paths only, 2 gen + 1
 * when by a new one. */
static void frontier_next(sym_gss *g)
{
    if (++g->gen >= UINT32_MAX / 2) {
        for (uint32_t i = 0; i < g->stamp.n; i++)
            g->stamp.v[i] = 0;
        g->gen = 1;
    }
}

/* Adds node y to the frontier `next`, as reached by a new path or not: once
 * each way at most, and not by an old path after a new one, which covers
 * it. An entry is 2 y + fresh. */
static void frontier_add(sym_gss *g, vec *next, uint32_t y, bool fresh)
{
    if (!stamps_cover(g) || g->stamp.v[y] == 2 * g->gen + 1 || (!fresh && g->stamp.v[y] == 2 * g->gen))
        return;
    g->stamp.v[y] = 2 * g->gen + fresh;
    if (!gcg_vec_push(next, 2 * y + fresh))
        fail(g, GCG_ERR_NOMEM);
}

/* The goto of `state` on `lhs`: a pop ends on many nodes, each asking it,
 * so the column of a nonterminal the walk reduces is made dense once
 * (within GSS_COLUMN_CELLS cells in all; past them, the sparse row). */
static uint32_t gss_goto(sym_gss *g, uint32_t state, uint32_t lhs)
{
    const lr_tables *t = g->lr;
    uint32_t *col = g->column[lhs];
    if (!col && g->column_cells + t->n_states <= GSS_COLUMN_CELLS &&
        (col = malloc((size_t)t->n_states * sizeof *col))) {
        for (uint32_t s = 0; s < t->n_states; s++)
            col[s] = lr_goto(t, s, lhs);
        g->column[lhs] = col;
        g->column_cells += t->n_states;
    }
    return col ? col[state] : lr_goto(t, state, lhs);
}

/* Pops `len` entries from node v along every new path (see gcg_gss_step)
 * and takes the goto on r->lhs into the level. A path's outcome depends only
 * on where it ends, so the nodes `k` entries down are kept as a set, each
 * once (not the paths, which multiply by the edges of every node on the
 * way). An old path into an older level stays old, and is dropped there. */
static void pop(sym_gss *g, const reduction *r, uint32_t v, uint32_t len)
{
    g->front.n = 0;
    if (!gcg_vec_push(&g->front, 2 * v + (v >= r->node_cut)))
        return (void)fail(g, GCG_ERR_NOMEM);
    for (uint32_t k = 0; k < len && g->front.n && g->st == GCG_OK; k++) {
        frontier_next(g);
        g->next.n = 0;
        for (uint32_t i = 0; i < g->front.n; i++) {
            uint32_t x = g->front.v[i] / 2;
            bool fresh = g->front.v[i] & 1;
            if (node_at(g, x)[N_STATE] == NONE) {
                if (fresh)
                    goto_below(g, r, x, len - k);
                continue;
            }
            for (uint32_t e = node_at(g, x)[N_HEAD]; e != NONE; e = g->edge.v[2 * e + 1]) {
                uint32_t y = g->edge.v[2 * e];
                if (fresh || e >= r->edge_cut)
                    frontier_add(g, &g->next, y, true);
                else if (y >= r->lo)
                    frontier_add(g, &g->next, y, false);
            }
        }
        vec t = g->front;
        g->front = g->next, g->next = t;
    }
    for (uint32_t i = 0; i < g->front.n && g->st == GCG_OK; i++) {
        if (!(g->front.v[i] & 1))
            continue;
        uint32_t x = g->front.v[i] / 2, state = node_at(g, x)[N_STATE];
        if (state == NONE) {
            goto_below(g, r, x, 0);
            continue;
        }
        uint32_t to = gss_goto(g, state, r->lhs);
        if (to != GCG_NO_GOTO)
            edge_add(g, level_state(g, r->lo, to), x);
    }
}

/* Applies action a's reductions to node v, those that pop at least
 * `shortest` entries (the others have no new path from v). */
static void reduce_node(sym_gss *g, reduction *r, uint32_t v, uint32_t a, uint32_t shortest)
{
    const lr_tables *t = g->lr;
    const uint32_t *list = &a;
    uint32_t cnt = 1;
    if (GCG_ACT_KIND(a) == GCG_ACT_MULTI)
        list = t->multi + GCG_ACT_ARG(a) + 1, cnt = t->multi[GCG_ACT_ARG(a)];
    for (uint32_t i = 0; i < cnt && g->st == GCG_OK; i++) {
        uint32_t p = GCG_ACT_ARG(list[i]);
        if (GCG_ACT_KIND(list[i]) != GCG_ACT_REDUCE || p == 0 || t->prod_len[p] < shortest)
            continue;
        r->lhs = t->prod_lhs[p];
        pop(g, r, v, t->prod_len[p]);
    }
}

/* Shifts of action a from node v into the level starting at lo. */
static void shift_node(sym_gss *g, uint32_t lo, uint32_t v, uint32_t a)
{
    const lr_tables *t = g->lr;
    const uint32_t *list = &a;
    uint32_t cnt = 1;
    if (GCG_ACT_KIND(a) == GCG_ACT_MULTI)
        list = t->multi + GCG_ACT_ARG(a) + 1, cnt = t->multi[GCG_ACT_ARG(a)];
    for (uint32_t i = 0; i < cnt && g->st == GCG_OK; i++)
        if (GCG_ACT_KIND(list[i]) == GCG_ACT_SHIFT)
            edge_add(g, level_state(g, lo, GCG_ACT_ARG(list[i])), v);
}

/* For each node of the level from r->lo, the fewest entries a pop from it
 * takes to follow a new path (0: the node is new, NONE: none), into
 * g->near: 1 when the node has a new edge (its newest edge is its first),
 * else one more than the nearest node of the level it has an edge to,
 * relaxed over those edges (g->inner: they come from empty reductions, few,
 * and may form cycles) to a fixpoint. */
static bool nearest_new(sym_gss *g, const reduction *r)
{
    uint32_t lo = r->lo;
    uint32_t n = n_nodes(g) - lo, *near;
    g->near.n = 0;
    if (!gcg_vec_reserve(&g->near, n))
        return fail(g, GCG_ERR_NOMEM);
    near = g->near.v, g->near.n = n;
    for (uint32_t v = lo; v < lo + n; v++) {
        uint32_t head = node_at(g, v)[N_HEAD];
        near[v - lo] = v >= r->node_cut ? 0 : head != NONE && head >= r->edge_cut ? 1 : NONE;
    }
    for (bool again = true; again;) {
        again = false;
        for (uint32_t i = 0; i < g->inner.n; i += 2) {
            uint32_t u = g->inner.v[i] - lo, y = g->inner.v[i + 1] - lo;
            if (near[y] != NONE && near[y] + 1 < near[u])
                near[u] = near[y] + 1, again = true;
        }
    }
    return true;
}

gss_level gcg_gss_step(sym_gss *g, gss_level from, uint32_t cls, gss_below_fn below, void *ctx)
{
    const lr_tables *t = g->lr;
    g->reads.n = 0, g->inner.n = 0;
    uint32_t lo = n_nodes(g);
    g->level_lo = lo;
    if (++g->step_id == 0) { /* the step marks wrapped: none is of this step */
        for (uint32_t i = 0; i < g->mark_cap; i++)
            g->mark_step[i] = 0;
        g->step_id = 1;
    }
    /* the tops, copied so that this class's reductions do not touch them */
    gcg_map64_clear(&g->edges);
    for (uint32_t v = from.lo; v < from.hi && g->st == GCG_OK; v++) {
        uint32_t u = node_new(g, node_at(g, v)[N_STATE], 0);
        for (uint32_t e = node_at(g, v)[N_HEAD]; e != NONE && g->st == GCG_OK; e = g->edge.v[2 * e + 1])
            edge_add(g, u, g->edge.v[2 * e]);
    }
    /* The reductions to a fixpoint, semi-naively: a pass follows only the
     * paths that are new since the pass before the last, those from a node
     * or through an edge made since it began (at the cuts); every other path
     * was whole when that pass ran and has been followed. The first pass
     * follows all. */
    reduction r = {.lo = lo, .below = below, .ctx = ctx};
    uint32_t last_nodes = 0, last_edges = 0; /* where the last pass began */
    for (bool first = true; first || (g->changed && g->st == GCG_OK); first = false) {
        g->changed = false;
        r.node_cut = last_nodes, r.edge_cut = last_edges;
        last_nodes = n_nodes(g), last_edges = g->edge.n / 2;
        if (!first && !nearest_new(g, &r))
            break;
        for (uint32_t v = lo; v < n_nodes(g) && g->st == GCG_OK; v++) {
            uint32_t shortest = first || v >= last_nodes ? 0 : g->near.v[v - lo];
            if (node_at(g, v)[N_STATE] != NONE && shortest != NONE)
                reduce_node(g, &r, v, lr_action(t, node_at(g, v)[N_STATE], cls), shortest);
        }
    }
    g->level_lo = NONE;
    uint32_t mid = n_nodes(g);
    for (uint32_t v = lo; v < mid && g->st == GCG_OK; v++)
        if (node_at(g, v)[N_STATE] != NONE)
            shift_node(g, mid, v, lr_action(t, node_at(g, v)[N_STATE], cls));
    return g->st == GCG_OK ? (gss_level){mid, n_nodes(g)} : (gss_level){0, 0};
}
