/* glr.c — reductions and shifts of one terminal over the GSS (see glr.h). */
#include <stdlib.h>
#include <string.h>

#include "glr.h"

/* Room for one more element in a growable array of n elements of `size`
 * bytes: allocates only when it is full, doubling. */
static bool room(void **a, uint32_t n, uint32_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    uint32_t c = *cap ? *cap * 2 : 64;
    void *q = realloc(*a, (size_t)c * size);
    if (!q)
        return false;
    *a = q, *cap = c;
    return true;
}

static bool push_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
    if (!room((void **)a, *n, cap, sizeof **a))
        return false;
    (*a)[(*n)++] = v;
    return true;
}

/* Appends a position to the next layer of the reduction walk. */
static bool push_pos(glr *p, glr_pos x)
{
    if (!room((void **)&p->next, p->n_next, &p->cap_next, sizeof *p->next))
        return false;
    p->next[p->n_next++] = x;
    return true;
}

/* Counts n units of work; false once the step's budget is passed. */
static inline bool spend(glr *p, uint64_t n)
{
    p->work += n;
    return p->work <= p->work_limit;
}

gcg_status glr_init(glr *p, const gcg_tables *t, uint32_t initial_nodes, uint32_t max_nodes)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->work_limit = UINT64_MAX;
    glr_merge_init(&p->merge);
    pair_map_init(&p->edges_made);
    pair_map_init(&p->run_edges);
    p->map_node = malloc((size_t)t->n_states * sizeof *p->map_node);
    p->map_stamp = calloc(t->n_states, sizeof *p->map_stamp);
    if (!p->map_node || !p->map_stamp ||
        !gss_init(&p->g, initial_nodes, max_nodes)) {
        glr_free(p);
        return GCG_ERR_NOMEM;
    }
    return GCG_OK;
}

void glr_free(glr *p)
{
    gss_free(&p->g);
    glr_merge_free(&p->merge);
    free(p->map_node), free(p->map_stamp), free(p->queue), free(p->active);
    free(p->made), free(p->shifts), free(p->layer), free(p->next), free(p->seen0), free(p->seen1), free(p->anc);
    free(p->intra), free(p->extra), free(p->drop), free(p->aux);
    pair_map_free(&p->edges_made);
    pair_map_free(&p->run_edges);
    memset(p, 0, sizeof *p);
}

size_t glr_size(const glr *p)
{
    return (size_t)gss_memory(&p->g) + 2 * (size_t)p->t->n_states * sizeof(uint32_t) +
           (size_t)p->cap_queue * sizeof *p->queue +
           ((size_t)p->cap_layer + p->cap_next) * sizeof(glr_pos) +
           ((size_t)p->cap_active + p->cap_made + p->cap_shifts + 3 * (size_t)p->cap_seen + p->cap_intra +
            p->cap_extra + p->cap_drop + p->cap_aux) * sizeof(uint32_t) +
           pair_map_size(&p->edges_made) + pair_map_size(&p->run_edges) + glr_merge_size(&p->merge);
}

static bool enqueue(glr *p, uint32_t node, uint32_t prod, const uint32_t via[4])
{
    if (!room((void **)&p->queue, p->n_queue, &p->cap_queue, sizeof *p->queue))
        return false;
    p->queue[p->n_queue++] = (glr_reduction){node, prod, via[0], via[1], via[2], via[3]};
    return true;
}

/* One action of node v on the current terminal. With a late edge (via:
 * from, to and its copies) the node was already read: shifts and ε-reductions
 * (which use no edge) are not repeated, and reductions follow only paths
 * through the new edge. */
static bool act(glr *p, uint32_t v, uint32_t a, uint32_t term, const uint32_t via[4], bool *accept)
{
    uint32_t arg = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT)
        return via[0] != GSS_NONE || (push_u32(&p->shifts, &p->n_shifts, &p->cap_shifts, v) &&
                                      push_u32(&p->shifts, &p->n_shifts, &p->cap_shifts, arg));
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE)
        return true;
    if (arg == 0) { /* start -> root: accept, on end of input only */
        *accept |= term == p->t->n_classes;
        return true;
    }
    if (via[0] != GSS_NONE && p->t->prods[arg].len == 0)
        return true;
    return enqueue(p, v, arg, via);
}

static const uint32_t no_via[4] = {GSS_NONE, GSS_NONE, 0, 0};

/* Every action of v (see act for the late-edge restriction). */
static bool actions(glr *p, uint32_t v, uint32_t term, const uint32_t via[4], bool *accept)
{
    uint32_t a = gcg_tables_action(p->t, p->g.nodes[v].state, term);
    if (GCG_ACT_KIND(a) != GCG_ACT_MULTI)
        return act(p, v, a, term, via, accept);
    const uint32_t *m = p->t->multi + GCG_ACT_ARG(a);
    for (uint32_t i = 1; i <= m[0]; i++)
        if (!act(p, v, m[i], term, via, accept))
            return false;
    return true;
}

/* A node made this step: held (+1) until the step ends. The level's first
 * node of a state is map_node's; one with another count goes to extra. */
static uint32_t make_node(glr *p, uint32_t state, uint32_t count, gcg_status *st)
{
    uint32_t n = gss_new(&p->g, state);
    if (n == GSS_NONE) {
        *st = p->g.live >= p->g.max_nodes ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
        return GSS_NONE;
    }
    p->g.nodes[n].count = count;
    bool mapped = p->map_stamp[state] == p->stamp;
    if (!push_u32(&p->made, &p->n_made, &p->cap_made, n) ||
        (mapped && !push_u32(&p->extra, &p->n_extra, &p->cap_extra, n))) {
        if (p->n_made && p->made[p->n_made - 1] == n)
            p->n_made--;
        gss_release(&p->g, n);
        *st = GCG_ERR_NOMEM;
        return GSS_NONE;
    }
    if (!mapped) {
        p->map_node[state] = n;
        p->map_stamp[state] = p->stamp;
    }
    return n;
}

/* The node of this level with state s and count c, or GSS_NONE. */
static uint32_t level_node(const glr *p, uint32_t s, uint32_t c)
{
    if (p->map_stamp[s] != p->stamp)
        return GSS_NONE;
    if (p->g.nodes[p->map_node[s]].count == c)
        return p->map_node[s];
    for (uint32_t i = 0; i < p->n_extra; i++)
        if (p->g.nodes[p->extra[i]].state == s && p->g.nodes[p->extra[i]].count == c)
            return p->extra[i];
    return GSS_NONE;
}

/* Whether node n was made by a reduction of this level. */
static bool at_level(const glr *p, uint32_t n)
{
    uint32_t s = p->g.nodes[n].state;
    if (p->map_stamp[s] != p->stamp)
        return false;
    if (p->map_node[s] == n)
        return true;
    for (uint32_t i = 0; i < p->n_extra; i++)
        if (p->extra[i] == n)
            return true;
    return false;
}

static bool ensure_seen(glr *p);

/* Links from -> to unless this step already did; *added says which. */
static bool link_once(glr *p, uint32_t from, uint32_t to, bool *added)
{
    bool found;
    *added = false;
    if (!pair_map_upsert(&p->edges_made, from, to, 0, &found))
        return false;
    if (found)
        return true;
    if (!gss_link(&p->g, from, to))
        return false;
    if (at_level(p, to) && /* an edge inside this level */
        (!push_u32(&p->intra, &p->n_intra, &p->cap_intra, from) ||
         !push_u32(&p->intra, &p->n_intra, &p->cap_intra, to)))
        return false;
    *added = true;
    return true;
}

/* A late edge via = (w, u, copies): the nodes of this level that reach w (w
 * itself, and nodes made above it by ε-reductions: Farshi's correction) redo
 * their reductions along paths through the new edge. Frontier nodes cannot
 * reach a node of this level, so only made nodes are candidates. */
static gcg_status redo_through(glr *p, const uint32_t via[4], uint32_t term, bool *accept)
{
    if (++p->anc_gen == 0) {
        memset(p->anc, 0, (size_t)p->cap_seen * sizeof *p->anc);
        p->anc_gen = 1;
    }
    p->anc[via[0]] = p->anc_gen;
    /* Ancestors of w over this level's own edges (few: ε-chains). */
    for (bool grew = true; grew;) {
        grew = false;
        if (!spend(p, p->n_intra / 2))
            return GCG_ERR_LIMIT;
        for (uint32_t i = 0; i < p->n_intra; i += 2)
            if (p->anc[p->intra[i + 1]] == p->anc_gen && p->anc[p->intra[i]] != p->anc_gen) {
                p->anc[p->intra[i]] = p->anc_gen;
                grew = true;
            }
    }
    if (!spend(p, p->n_made))
        return GCG_ERR_LIMIT;
    for (uint32_t i = 0; i < p->n_made; i++)
        if (p->anc[p->made[i]] == p->anc_gen && !actions(p, p->made[i], term, via, accept))
            return GCG_ERR_NOMEM;
    return GCG_OK;
}

/* Whether a path to u through a node of state s with count c is covered by
 * one this level has: a node of s and a count at most c on an edge to u (a
 * lower count's list can only go on longer). A covered node whose only edge
 * is to u takes the lower count instead: its count is read no earlier than
 * the next level. */
static bool covered(glr *p, uint32_t s, uint32_t c, uint32_t u)
{
    gss *g = &p->g;
    for (uint32_t i = 0; i <= p->n_extra; i++) {
        uint32_t w = i == p->n_extra ? p->map_node[s] : p->extra[i];
        if (g->nodes[w].state != s || !gss_linked(g, w, u))
            continue;
        if (g->nodes[w].count > c && g->edges[g->nodes[w].edge].next == GSS_NONE)
            g->nodes[w].count = c;
        if (g->nodes[w].count <= c)
            return true;
    }
    return false;
}

/* The new node n (state s, count c) stands on u: the edges to u of this
 * level's nodes of s with higher counts go, so one path is left where the
 * fork model of the certificate counts one. The step's edge set keeps their
 * keys: a later path to u with such a count is covered by n all the same. */
static void drop_covered(glr *p, uint32_t s, uint32_t c, uint32_t u, uint32_t n)
{
    gss *g = &p->g;
    for (uint32_t i = 0; i <= p->n_extra; i++) {
        uint32_t w = i == p->n_extra ? p->map_node[s] : p->extra[i];
        if (w == n || g->nodes[w].state != s || g->nodes[w].count <= c)
            continue;
        for (uint32_t e = g->nodes[w].edge, prev = GSS_NONE; e != GSS_NONE; prev = e, e = g->edges[e].next)
            if (g->edges[e].to == u) {
                gss_unlink(g, w, prev, e);
                gss_release(g, u); /* n's edge holds u */
                break;
            }
    }
}

/* ---- runs of equal frames (glr.h) ---------------------------------------- */

/* The run one copy of state s with count c makes on node t: on a node of s
 * with a run form (final: not of this level) that run one longer, else one
 * copy on t. Counted nodes take no part in runs. */
static void run_on(const glr *p, uint32_t s, uint32_t c, uint32_t t, uint32_t run[3])
{
    const gss_node *n = &p->g.nodes[t];
    run[0] = t, run[1] = run[2] = 1;
    if (c == 0 && n->state == s && n->count == 0 && n->run_base != GSS_NONE && !at_level(p, t))
        run[0] = n->run_base, run[1] = n->run_lo + 1, run[2] = n->run_hi + 1;
}

/* The run w's edge e stands for, w the top copy: a run edge is one, a plain
 * edge the run of w on its target. */
static void edge_run(const glr *p, uint32_t w, uint32_t e, uint32_t run[3])
{
    const gss_edge *ed = &p->g.edges[e];
    if (ed->hi == 1)
        run_on(p, p->g.nodes[w].state, p->g.nodes[w].count, ed->to, run);
    else
        run[0] = ed->to, run[1] = ed->lo, run[2] = ed->hi;
}

/* Gives w the stacks of the run (base, [lo, hi]): w's edge on the same base
 * widens when the copies join into one interval; otherwise a new edge, plain
 * to node `tgt` or, with tgt GSS_NONE, a run edge to the base. *added: w
 * stands for more stacks, through the edge `via` (from, to, copies). */
static gcg_status link_run(glr *p, uint32_t w, uint32_t tgt, const uint32_t run[3], bool *added, uint32_t via[4])
{
    gss *g = &p->g;
    *added = false;
    bool runs = g->nodes[w].count == 0;
    uint32_t *e = runs ? pair_map_find(&p->run_edges, w, run[0]) : NULL;
    if (e) {
        uint32_t have[3];
        edge_run(p, w, *e, have);
        if (run[1] <= have[2] + 1 && have[1] <= run[2] + 1) {
            if (have[1] <= run[1] && run[2] <= have[2])
                return GCG_OK; /* w has these stacks already */
            gss_edge *ed = &g->edges[*e];
            if (ed->to != run[0]) { /* a plain edge into the run becomes a run edge */
                if (!push_u32(&p->drop, &p->n_drop, &p->cap_drop, ed->to))
                    return GCG_ERR_NOMEM;
                gss_retain(g, run[0]);
                ed->to = run[0];
            }
            ed->lo = have[1] < run[1] ? have[1] : run[1];
            ed->hi = have[2] > run[2] ? have[2] : run[2];
            *added = true;
            via[0] = w, via[1] = run[0], via[2] = ed->lo, via[3] = ed->hi;
            return GCG_OK;
        }
    }
    if (tgt == GSS_NONE ? !gss_link_run(g, w, run[0], run[1], run[2]) : !link_once(p, w, tgt, added))
        return GCG_ERR_NOMEM;
    *added |= tgt == GSS_NONE;
    const gss_edge *ed = &g->edges[g->nodes[w].edge]; /* the new edge, if added */
    via[0] = w, via[1] = ed->to, via[2] = ed->lo, via[3] = ed->hi;
    if (*added && runs && !pair_map_put(&p->run_edges, w, run[0], g->nodes[w].edge))
        return GCG_ERR_NOMEM;
    return GCG_OK;
}

/* Links w as link_run does; without runs every edge is plain (the common
 * case, kept to one call). */
static inline gcg_status link_to(glr *p, uint32_t w, uint32_t tgt, const uint32_t run[3], bool *added,
                                 uint32_t via[4])
{
    if (p->runs)
        return link_run(p, w, tgt, run, added, via);
    via[0] = w, via[1] = tgt, via[2] = via[3] = 1;
    return link_once(p, w, tgt, added) ? GCG_OK : GCG_ERR_NOMEM;
}

/* A node for a position inside a run whose goto leaves the run's state: the
 * state on the run's base with the position's copies; one per position and
 * step. Not a node of this level: it stands where the position is. */
static uint32_t run_node(glr *p, glr_pos u, gcg_status *st)
{
    gss *g = &p->g;
    if (!spend(p, p->n_aux)) {
        *st = GCG_ERR_LIMIT;
        return GSS_NONE;
    }
    for (uint32_t i = 0; i < p->n_aux; i++) {
        const gss_edge *ed = &g->edges[g->nodes[p->aux[i]].edge];
        if (g->nodes[p->aux[i]].state == u.state && ed->to == u.node && ed->lo == u.lo && ed->hi == u.hi)
            return p->aux[i];
    }
    uint32_t n = gss_new(g, u.state);
    *st = GCG_ERR_NOMEM;
    if (n == GSS_NONE) {
        *st = g->live >= g->max_nodes ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
        return GSS_NONE;
    }
    if (!push_u32(&p->made, &p->n_made, &p->cap_made, n)) {
        gss_release(g, n);
        return GSS_NONE;
    }
    if (!gss_link_run(g, n, u.node, u.lo, u.hi) || !push_u32(&p->aux, &p->n_aux, &p->cap_aux, n) ||
        !ensure_seen(p))
        return GSS_NONE; /* made: released with the step */
    *st = GCG_OK;
    return n;
}


/* A reduction found a path ending at u: goto on nt, then share or make the
 * node of that state and count. */
static gcg_status reduce_goto(glr *p, glr_pos u, uint32_t nt, uint32_t count, uint32_t term, bool *accept)
{
    if (!spend(p, 1)) /* the edge it links */
        return GCG_ERR_LIMIT;
    uint32_t q = u.lo ? u.state : p->g.nodes[u.node].state, s = gcg_tables_goto(p->t, q, nt);
    if (s == GCG_NO_GOTO)
        return GCG_OK; /* cannot happen with tables from gcgc; a dead path otherwise */
    gcg_status st = GCG_OK;
    if (u.lo && (s != q || count)) { /* leaves the run: a node where u is */
        if ((u.node = run_node(p, u, &st)) == GSS_NONE)
            return st;
        u.lo = u.hi = 0;
    }
    /* The run the new edge stands for: one copy on node u (or u's run one
     * longer: run_on), or, inside a run of s, that run one copy longer with
     * no node to link (tgt GSS_NONE). */
    uint32_t tgt = u.lo ? GSS_NONE : u.node, run[3] = {u.node, u.lo + 1, u.hi + 1}, via[4];
    if (!u.lo && p->runs)
        run_on(p, s, count, u.node, run);
    bool added;
    uint32_t w = level_node(p, s, count);
    if (w != GSS_NONE) {
        if ((st = link_to(p, w, tgt, run, &added, via)) != GCG_OK)
            return st;
        if (!added)
            return GCG_OK;
        return ensure_seen(p) ? redo_through(p, via, term, accept) : GCG_ERR_NOMEM;
    }
    bool other_counts = p->map_stamp[s] == p->stamp && tgt != GSS_NONE; /* counts: never in runs */
    if (other_counts && covered(p, s, count, tgt))
        return GCG_OK;
    if ((w = make_node(p, s, count, &st)) == GSS_NONE)
        return st;
    if ((st = link_to(p, w, tgt, run, &added, via)) != GCG_OK)
        return st;
    if (!push_u32(&p->active, &p->n_active, &p->cap_active, w))
        return GCG_ERR_NOMEM;
    if (other_counts)
        drop_covered(p, s, count, tgt, w);
    return GCG_OK;
}

static glr_pos at_node(uint32_t node, bool used)
{
    return (glr_pos){node, 0, 0, 0, used};
}

/* The positions one symbol below a position inside a run: its base when one
 * copy is left, and the run one copy shorter. */
static uint32_t below_run(glr_pos x, glr_pos out[2])
{
    uint32_t n = 0;
    if (x.lo == 1)
        out[n++] = at_node(x.node, x.used);
    if (x.hi >= 2)
        out[n++] = (glr_pos){x.node, x.state, x.lo > 1 ? x.lo - 1 : 1, x.hi - 1, x.used};
    return n;
}

/* ... and under node v along edge ed: ed is the run of v's state on its
 * target, v the top copy. */
static uint32_t below_edge(const glr *p, uint32_t v, const gss_edge *ed, bool used, glr_pos out[2])
{
    return below_run((glr_pos){ed->to, p->g.nodes[v].state, ed->lo, ed->hi, used}, out);
}

/* Whether ed is the late edge of r (its source checked by the caller). */
static bool is_via(const gss_edge *ed, glr_reduction r)
{
    return ed->to == r.via_to && ed->lo == r.via_lo && ed->hi == r.via_hi;
}

/* The gotos of a counted reduction from the positions under[0..n), below
 * C's copy with count c: on C with one more copy below the largest count,
 * on the first link of the chain's end at it. Only paths through the late
 * edge, if one is set. */
static gcg_status counted_gotos(glr *p, const gcg_count_entry *ce, uint32_t lhs, uint32_t c, const glr_pos *under,
                                uint32_t n, uint32_t term, bool *accept)
{
    for (uint32_t k = 0; k < n; k++) {
        if (!spend(p, 1))
            return GCG_ERR_LIMIT;
        if (!under[k].used)
            continue;
        gcg_status st = c < ce->max ? reduce_goto(p, under[k], lhs, c + 1, term, accept)
                                    : reduce_goto(p, under[k], ce->exit, 0, term, accept);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

/* A counted production C -> C x (artifact_format.h, GCG_SEC_COUNTS): the
 * count is on C's node, one edge below the top, so the pairs (C's node, the
 * node below it) are followed rather than layers of nodes; with a late edge,
 * only paths through it. (A position inside a run has no count.) */
static gcg_status reduce_counted(glr *p, glr_reduction r, const gcg_count_entry *ce, uint32_t term,
                                 bool *accept)
{
    const gss *g = &p->g;
    uint32_t lhs = p->t->prods[r.prod].lhs;
    glr_pos mid[2], under[2];
    gcg_status st = GCG_OK;
    for (uint32_t e = g->nodes[r.node].edge; e != GSS_NONE && st == GCG_OK; e = g->edges[e].next) {
        bool used = r.via_from == GSS_NONE || (r.node == r.via_from && is_via(&g->edges[e], r));
        for (uint32_t i = 0, n_mid = below_edge(p, r.node, &g->edges[e], used, mid); i < n_mid && st == GCG_OK; i++) {
            glr_pos v = mid[i];
            if (v.lo) {
                st = counted_gotos(p, ce, lhs, 0, under, below_run(v, under), term, accept);
                continue;
            }
            for (uint32_t f = g->nodes[v.node].edge; f != GSS_NONE && st == GCG_OK; f = g->edges[f].next) {
                bool through = v.used || (v.node == r.via_from && is_via(&g->edges[f], r));
                uint32_t n = below_edge(p, v.node, &g->edges[f], through, under);
                st = counted_gotos(p, ce, lhs, g->nodes[v.node].count, under, n, term, accept);
            }
        }
    }
    return st;
}

/* Marks (node, used) as reached at the current depth; false if it was. */
static bool mark(glr *p, uint32_t node, bool used)
{
    uint32_t *seen = used ? p->seen1 : p->seen0;
    if (seen[node] == p->seen_gen)
        return false;
    seen[node] = p->seen_gen;
    return true;
}

static bool ensure_seen(glr *p)
{
    if (p->cap_seen >= p->g.cap_nodes)
        return true;
    uint32_t cap = p->g.cap_nodes;
    uint32_t *a = realloc(p->seen0, (size_t)cap * sizeof *a);
    if (a)
        p->seen0 = a;
    uint32_t *b = a ? realloc(p->seen1, (size_t)cap * sizeof *b) : NULL;
    if (b)
        p->seen1 = b;
    uint32_t *c = b ? realloc(p->anc, (size_t)cap * sizeof *c) : NULL;
    if (c)
        p->anc = c;
    if (!a || !b || !c)
        return false;
    memset(p->seen0 + p->cap_seen, 0, (size_t)(cap - p->cap_seen) * sizeof *a);
    memset(p->seen1 + p->cap_seen, 0, (size_t)(cap - p->cap_seen) * sizeof *b);
    memset(p->anc + p->cap_seen, 0, (size_t)(cap - p->cap_seen) * sizeof *c);
    p->cap_seen = cap;
    return true;
}

/* Adds x to the next layer once: a node by its mark, a position inside a run
 * by joining one on the same base whose copies it meets. */
static bool add_pos(glr *p, glr_pos x)
{
    if (!x.lo)
        return !mark(p, x.node, x.used) || push_pos(p, x);
    for (uint32_t i = 0; i < p->n_next; i++) {
        glr_pos *y = &p->next[i];
        if (y->lo && y->node == x.node && y->state == x.state && y->used == x.used && x.lo <= y->hi + 1 &&
            y->lo <= x.hi + 1) {
            y->lo = y->lo < x.lo ? y->lo : x.lo;
            y->hi = y->hi > x.hi ? y->hi : x.hi;
            return true;
        }
    }
    return push_pos(p, x);
}

static bool add_all(glr *p, const glr_pos *x, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (!add_pos(p, x[i]))
            return false;
    return true;
}

/* The next layer becomes the layer (the old one's memory is reused). */
static void swap_layers(glr *p)
{
    glr_pos *tmp = p->layer;
    uint32_t cap = p->cap_layer;
    p->layer = p->next, p->cap_layer = p->cap_next, p->n_layer = p->n_next;
    p->next = tmp, p->cap_next = cap;
}

/* One layer of the walk: the positions one symbol below those of p->layer. */
static gcg_status next_layer(glr *p, glr_reduction r)
{
    const gss *g = &p->g;
    glr_pos out[2];
    p->n_next = 0;
    for (uint32_t i = 0; i < p->n_layer; i++) {
        glr_pos x = p->layer[i];
        if (x.lo) { /* inside a run: reached through the late edge, if any */
            if (!spend(p, 1))
                return GCG_ERR_LIMIT;
            if (!add_all(p, out, below_run(x, out)))
                return GCG_ERR_NOMEM;
            continue;
        }
        if (!x.used && x.node == r.via_from) { /* the late edge is the only way on */
            const gss_edge via = {r.via_to, GSS_NONE, r.via_lo, r.via_hi};
            if (!add_all(p, out, below_edge(p, x.node, &via, true, out)))
                return GCG_ERR_NOMEM;
            continue;
        }
        for (uint32_t e = g->nodes[x.node].edge; e != GSS_NONE; e = g->edges[e].next) {
            if (!spend(p, 1))
                return GCG_ERR_LIMIT;
            /* A path that has not crossed the late edge yet must stay on
             * this level, where the edge's source is: prune the others. */
            if (!x.used && !at_level(p, g->edges[e].to))
                continue;
            if (!add_all(p, out, below_edge(p, x.node, &g->edges[e], x.used, out)))
                return GCG_ERR_NOMEM;
        }
    }
    swap_layers(p);
    return GCG_OK;
}

/* The reduction needs the positions at exactly `len` symbols below r.node
 * (through the late edge if one is set), not the paths: a recognizer's
 * result depends only on where a path ends. So the walk goes breadth-first
 * over distinct positions, one layer per popped symbol; the number of paths
 * can grow exponentially with ambiguity, the layers cannot. */
static gcg_status reduce_paths(glr *p, glr_reduction r, uint32_t term, bool *accept)
{
    uint32_t len = p->t->prods[r.prod].len, lhs = p->t->prods[r.prod].lhs;
    if (len == 0)
        return reduce_goto(p, at_node(r.node, true), lhs, 0, term, accept);
    const gcg_count_entry *ce = p->t->n_counts ? gcg_tables_count(p->t, r.prod) : NULL;
    if (ce)
        return reduce_counted(p, r, ce, term, accept);
    if (r.via_from == GSS_NONE) { /* a plain stack: follow single plain edges */
        uint32_t v = r.node, d = 0;
        for (; d < len; d++) {
            if (!spend(p, 1))
                return GCG_ERR_LIMIT;
            uint32_t e = p->g.nodes[v].edge;
            if (e == GSS_NONE || p->g.edges[e].next != GSS_NONE || p->g.edges[e].hi != 1)
                break;
            v = p->g.edges[e].to;
        }
        if (d == len)
            return reduce_goto(p, at_node(v, true), lhs, 0, term, accept);
        if (p->g.nodes[v].edge == GSS_NONE)
            return GCG_OK; /* the stack is shorter than the rule: a dead path */
    }
    if (!ensure_seen(p))
        return GCG_ERR_NOMEM;
    p->n_layer = 0;
    p->n_next = 0;
    if (!push_pos(p, at_node(r.node, r.via_from == GSS_NONE)))
        return GCG_ERR_NOMEM;
    swap_layers(p); /* push_pos filled next */
    for (uint32_t d = 0; d < len; d++) {
        if (++p->seen_gen == 0) {
            memset(p->seen0, 0, (size_t)p->cap_seen * sizeof *p->seen0);
            memset(p->seen1, 0, (size_t)p->cap_seen * sizeof *p->seen1);
            p->seen_gen = 1;
        }
        gcg_status st = next_layer(p, r);
        if (st != GCG_OK)
            return st;
    }
    /* reduce_goto may grow the pool, not these layers: read them as they are. */
    for (uint32_t i = 0; i < p->n_layer; i++) {
        if (!p->layer[i].used)
            continue;
        gcg_status st = reduce_goto(p, p->layer[i], lhs, 0, term, accept);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

/* Shifts into the next level; the new frontier goes to out. */
static gcg_status shift_all(glr *p, uint32_t *out, uint32_t *n_out)
{
    p->stamp++; /* a fresh level for the shifted nodes */
    p->n_extra = 0;
    gcg_status st = GCG_OK;
    uint32_t n = 0;
    if (!spend(p, p->n_shifts / 2))
        return GCG_ERR_LIMIT;
    for (uint32_t i = 0; i < p->n_shifts; i += 2) {
        uint32_t v = p->shifts[i], s = p->shifts[i + 1], x;
        if (p->map_stamp[s] == p->stamp) {
            x = p->map_node[s];
        } else {
            if ((x = make_node(p, s, 0, &st)) == GSS_NONE)
                return st;
            out[n++] = x;
        }
        bool added;
        if (!link_once(p, x, v, &added))
            return GCG_ERR_NOMEM;
    }
    *n_out = n;
    return GCG_OK;
}

/* Drops the step's holds; with keep_out, the frontier's holds stay (they
 * become the caller's references). */
static void release_made(glr *p, bool keep_out)
{
    for (uint32_t i = 0; i < p->n_made; i++) {
        uint32_t n = p->made[i], s = p->g.nodes[n].state;
        /* The frontier's nodes are exactly those mapped at the shift level. */
        bool is_out = keep_out && p->map_stamp[s] == p->stamp && p->map_node[s] == n;
        if (!is_out)
            gss_release(&p->g, n);
    }
    p->n_made = 0;
}

/* Each node the step made gets its run form (gss.h), its edges now final.
 * A node whose successor of its own state has none yet (one made this step
 * and not reached first) is one copy on it: true, if shorter than it could
 * be, and a shorter form only finds fewer edges to join. */
static void set_run_forms(glr *p)
{
    gss *g = &p->g;
    for (uint32_t i = 0; i < p->n_made; i++) {
        gss_node *v = &g->nodes[p->made[i]];
        uint32_t run[3] = {GSS_NONE, 0, 0};
        if (!v->count && v->edge != GSS_NONE && g->edges[v->edge].next == GSS_NONE)
            edge_run(p, p->made[i], v->edge, run);
        v->run_base = run[0], v->run_lo = run[1], v->run_hi = run[2];
    }
}

gcg_status glr_step(glr *p, const uint32_t *in, uint32_t n_in, uint32_t term, uint32_t *out,
                    uint32_t *n_out, bool *accept)
{
    *n_out = 0;
    *accept = false;
    p->stamp++;
    if (p->stamp == 0) { /* wrapped: forget every old mark */
        memset(p->map_stamp, 0, (size_t)p->t->n_states * sizeof *p->map_stamp);
        p->stamp = 1;
    }
    p->n_queue = p->n_active = p->n_made = p->n_shifts = p->n_intra = p->n_extra = p->n_drop = p->n_aux = 0;
    pair_map_clear(&p->edges_made);
    if (p->runs)
        pair_map_clear(&p->run_edges);
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; i < n_in && st == GCG_OK; i++)
        st = push_u32(&p->active, &p->n_active, &p->cap_active, in[i]) ? GCG_OK : GCG_ERR_NOMEM;
    /* Read actions of every active node; reductions may activate more. */
    for (uint32_t i = 0, q = 0; st == GCG_OK && (i < p->n_active || q < p->n_queue);) {
        if (!spend(p, 1))
            st = GCG_ERR_LIMIT;
        else if (i < p->n_active)
            st = actions(p, p->active[i++], term, no_via, accept) ? GCG_OK : GCG_ERR_NOMEM;
        else
            st = reduce_paths(p, p->queue[q++], term, accept);
    }
    uint32_t n = 0;
    if (st == GCG_OK && term < p->t->n_classes) {
        st = shift_all(p, out, &n);
        if (st == GCG_OK && n == 0)
            st = GCG_ERR_REJECTED;
    }
    if (st == GCG_OK && term < p->t->n_classes && !p->no_merge &&
        glr_merge_step(&p->merge, &p->g, p->made, p->n_made, out, n)) {
        for (uint32_t i = 0; i < n; i++) /* the frontier's holds: on the stand-ins */
            p->map_node[p->g.nodes[out[i]].state] = out[i];
    }
    if (st == GCG_OK && p->runs)
        set_run_forms(p);
    for (uint32_t i = 0; i < p->n_drop; i++)
        gss_release(&p->g, p->drop[i]);
    release_made(p, st == GCG_OK && term < p->t->n_classes);
    if (st == GCG_OK)
        *n_out = n;
    return st;
}
