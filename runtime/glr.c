/* glr.c — reductions and shifts of one terminal over the GSS (see glr.h). */
#include <stdlib.h>
#include <string.h>

#include "glr.h"

/* Appends to a growable uint32 array; allocates only when it must grow. */
static bool push_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
    if (*n == *cap) {
        uint32_t c = *cap ? *cap * 2 : 64;
        uint32_t *q = realloc(*a, (size_t)c * sizeof *q);
        if (!q)
            return false;
        *a = q, *cap = c;
    }
    (*a)[(*n)++] = v;
    return true;
}

gcg_status glr_init(glr *p, const gcg_tables *t, uint32_t initial_nodes, uint32_t max_nodes)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->map_node = malloc((size_t)t->n_states * sizeof *p->map_node);
    p->map_stamp = calloc(t->n_states, sizeof *p->map_stamp);
    p->path = malloc(((size_t)t->max_rhs + 1) * sizeof *p->path);
    p->path_edge = malloc(((size_t)t->max_rhs + 1) * sizeof *p->path_edge);
    if (!p->map_node || !p->map_stamp || !p->path || !p->path_edge ||
        !gss_init(&p->g, initial_nodes, max_nodes)) {
        glr_free(p);
        return GCG_ERR_NOMEM;
    }
    return GCG_OK;
}

void glr_free(glr *p)
{
    gss_free(&p->g);
    free(p->map_node), free(p->map_stamp), free(p->queue), free(p->active);
    free(p->made), free(p->shifts), free(p->path), free(p->path_edge);
    memset(p, 0, sizeof *p);
}

static bool enqueue(glr *p, uint32_t node, uint32_t prod, uint32_t via)
{
    if (p->n_queue == p->cap_queue) {
        uint32_t c = p->cap_queue ? p->cap_queue * 2 : 64;
        glr_reduction *q = realloc(p->queue, (size_t)c * sizeof *q);
        if (!q)
            return false;
        p->queue = q, p->cap_queue = c;
    }
    p->queue[p->n_queue++] = (glr_reduction){node, prod, via};
    return true;
}

/* One action of node v on the current terminal. */
static bool act(glr *p, uint32_t v, uint32_t a, uint32_t term, uint32_t via, bool *accept)
{
    uint32_t arg = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT)
        return via != GSS_NONE || (push_u32(&p->shifts, &p->n_shifts, &p->cap_shifts, v) &&
                                   push_u32(&p->shifts, &p->n_shifts, &p->cap_shifts, arg));
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE)
        return true;
    if (arg == 0) { /* start -> root: accept, on end of input only */
        *accept |= term == p->t->n_classes;
        return true;
    }
    if (via != GSS_NONE && p->t->prods[arg].len == 0)
        return true; /* an ε-reduction does not depend on edges */
    return enqueue(p, v, arg, via);
}

/* Every action of v; with `via`, only the reductions through the edge v -> via. */
static bool actions(glr *p, uint32_t v, uint32_t term, uint32_t via, bool *accept)
{
    uint32_t a = p->t->action[(size_t)p->g.nodes[v].state * p->t->n_terms + term];
    if (GCG_ACT_KIND(a) != GCG_ACT_MULTI)
        return act(p, v, a, term, via, accept);
    const uint32_t *m = p->t->multi + GCG_ACT_ARG(a);
    for (uint32_t i = 1; i <= m[0]; i++)
        if (!act(p, v, m[i], term, via, accept))
            return false;
    return true;
}

/* A node made this step: held (+1) until the step ends. */
static uint32_t make_node(glr *p, uint32_t state, gcg_status *st)
{
    uint32_t n = gss_new(&p->g, state);
    if (n == GSS_NONE) {
        *st = p->g.live >= p->g.max_nodes ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
        return GSS_NONE;
    }
    if (!push_u32(&p->made, &p->n_made, &p->cap_made, n)) {
        gss_release(&p->g, n);
        *st = GCG_ERR_NOMEM;
        return GSS_NONE;
    }
    p->map_node[state] = n;
    p->map_stamp[state] = p->stamp;
    return n;
}

/* Reduction by `prod` found a path ending at u: goto, then share or make the node. */
static gcg_status reduce_to(glr *p, uint32_t u, uint32_t prod, uint32_t term, bool *accept)
{
    const gcg_tables *t = p->t;
    uint32_t s = t->go[(size_t)p->g.nodes[u].state * t->n_nts + t->prods[prod].lhs];
    if (s == GCG_NO_GOTO)
        return GCG_OK; /* cannot happen with tables from gcgc; a dead path otherwise */
    gcg_status st = GCG_OK;
    if (p->map_stamp[s] == p->stamp) {
        uint32_t w = p->map_node[s];
        if (gss_linked(&p->g, w, u))
            return GCG_OK;
        if (!gss_link(&p->g, w, u) || !actions(p, w, term, u, accept))
            return GCG_ERR_NOMEM;
        return GCG_OK;
    }
    uint32_t w = make_node(p, s, &st);
    if (w == GSS_NONE)
        return st;
    if (!gss_link(&p->g, w, u) || !push_u32(&p->active, &p->n_active, &p->cap_active, w))
        return GCG_ERR_NOMEM;
    return GCG_OK;
}

/* Every path of the production's length from r.node (first edge to r.via if
 * set), depth-first with an explicit stack. */
static gcg_status reduce_paths(glr *p, glr_reduction r, uint32_t term, bool *accept)
{
    uint32_t len = p->t->prods[r.prod].len;
    if (len == 0)
        return reduce_to(p, r.node, r.prod, term, accept);
    const gss *g = &p->g;
    uint32_t d = 0;
    p->path[0] = r.node;
    p->path_edge[0] = g->nodes[r.node].edge;
    while (1) {
        uint32_t e = p->path_edge[d];
        if (e == GSS_NONE) {
            if (d == 0)
                return GCG_OK;
            d--;
            continue;
        }
        p->path_edge[d] = g->edges[e].next;
        uint32_t to = g->edges[e].to;
        if (d == 0 && r.via != GSS_NONE && to != r.via)
            continue;
        if (d + 1 == len) {
            gcg_status st = reduce_to(p, to, r.prod, term, accept);
            if (st != GCG_OK)
                return st;
            continue;
        }
        d++;
        p->path[d] = to;
        p->path_edge[d] = g->nodes[to].edge;
    }
}

/* Shifts into the next level; the new frontier goes to out. */
static gcg_status shift_all(glr *p, uint32_t *out, uint32_t *n_out)
{
    p->stamp++; /* a fresh level for the shifted nodes */
    gcg_status st = GCG_OK;
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->n_shifts; i += 2) {
        uint32_t v = p->shifts[i], s = p->shifts[i + 1], x;
        if (p->map_stamp[s] == p->stamp) {
            x = p->map_node[s];
        } else {
            if ((x = make_node(p, s, &st)) == GSS_NONE)
                return st;
            out[n++] = x;
        }
        if (!gss_linked(&p->g, x, v) && !gss_link(&p->g, x, v))
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
    p->n_queue = p->n_active = p->n_made = p->n_shifts = 0;
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; i < n_in && st == GCG_OK; i++)
        st = push_u32(&p->active, &p->n_active, &p->cap_active, in[i]) ? GCG_OK : GCG_ERR_NOMEM;
    /* Read actions of every active node; reductions may activate more. */
    for (uint32_t i = 0, q = 0; st == GCG_OK && (i < p->n_active || q < p->n_queue);) {
        if (i < p->n_active)
            st = actions(p, p->active[i++], term, GSS_NONE, accept) ? GCG_OK : GCG_ERR_NOMEM;
        else
            st = reduce_paths(p, p->queue[q++], term, accept);
    }
    uint32_t n = 0;
    if (st == GCG_OK && term < p->t->n_classes) {
        st = shift_all(p, out, &n);
        if (st == GCG_OK && n == 0)
            st = GCG_ERR_REJECTED;
    }
    release_made(p, st == GCG_OK && term < p->t->n_classes);
    if (st == GCG_OK)
        *n_out = n;
    return st;
}
