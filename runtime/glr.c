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
    free(p->ekeys), free(p->egen), free(p->intra), free(p->extra);
    memset(p, 0, sizeof *p);
}

size_t glr_size(const glr *p)
{
    return (size_t)gss_memory(&p->g) + 2 * (size_t)p->t->n_states * sizeof(uint32_t) +
           (size_t)p->cap_queue * sizeof *p->queue +
           ((size_t)p->cap_active + p->cap_made + p->cap_shifts + p->cap_layer + p->cap_next +
            3 * (size_t)p->cap_seen + p->cap_intra + p->cap_extra) * sizeof(uint32_t) +
           (size_t)p->ecap * (sizeof *p->ekeys + sizeof *p->egen) + glr_merge_size(&p->merge);
}

static bool enqueue(glr *p, uint32_t node, uint32_t prod, uint32_t via_from, uint32_t via_to)
{
    if (p->n_queue == p->cap_queue) {
        uint32_t c = p->cap_queue ? p->cap_queue * 2 : 64;
        glr_reduction *q = realloc(p->queue, (size_t)c * sizeof *q);
        if (!q)
            return false;
        p->queue = q, p->cap_queue = c;
    }
    p->queue[p->n_queue++] = (glr_reduction){node, prod, via_from, via_to};
    return true;
}

/* One action of node v on the current terminal. With a late edge
 * (via_from -> via_to) the node was already read: shifts and ε-reductions
 * (which use no edge) are not repeated, and reductions follow only paths
 * through the new edge. */
static bool act(glr *p, uint32_t v, uint32_t a, uint32_t term, uint32_t via_from, uint32_t via_to,
                bool *accept)
{
    uint32_t arg = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT)
        return via_from != GSS_NONE || (push_u32(&p->shifts, &p->n_shifts, &p->cap_shifts, v) &&
                                        push_u32(&p->shifts, &p->n_shifts, &p->cap_shifts, arg));
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE)
        return true;
    if (arg == 0) { /* start -> root: accept, on end of input only */
        *accept |= term == p->t->n_classes;
        return true;
    }
    if (via_from != GSS_NONE && p->t->prods[arg].len == 0)
        return true;
    return enqueue(p, v, arg, via_from, via_to);
}

/* Every action of v (see act for the late-edge restriction). */
static bool actions(glr *p, uint32_t v, uint32_t term, uint32_t via_from, uint32_t via_to, bool *accept)
{
    uint32_t a = gcg_tables_action(p->t, p->g.nodes[v].state, term);
    if (GCG_ACT_KIND(a) != GCG_ACT_MULTI)
        return act(p, v, a, term, via_from, via_to, accept);
    const uint32_t *m = p->t->multi + GCG_ACT_ARG(a);
    for (uint32_t i = 1; i <= m[0]; i++)
        if (!act(p, v, m[i], term, via_from, via_to, accept))
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

static uint32_t edge_hash(uint64_t key, uint32_t cap)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* Edges made in this step, in a hash set: a node of this level can collect
 * an edge to every earlier level under ambiguity, and scanning its edge list
 * for each new path would make a step quadratic. */
static bool edge_grow(glr *p)
{
    uint32_t cap = p->ecap ? p->ecap * 2 : 1024;
    uint64_t *k = malloc((size_t)cap * sizeof *k);
    uint32_t *g = calloc(cap, sizeof *g);
    if (!k || !g) {
        free(k), free(g);
        return false;
    }
    for (uint32_t i = 0; i < p->ecap; i++)
        if (p->egen[i] == p->egen_cur) {
            uint32_t h = edge_hash(p->ekeys[i], cap);
            while (g[h] == p->egen_cur)
                h = (h + 1) & (cap - 1);
            g[h] = p->egen_cur, k[h] = p->ekeys[i];
        }
    free(p->ekeys), free(p->egen);
    p->ekeys = k, p->egen = g, p->ecap = cap;
    return true;
}

/* Links from -> to unless this step already did; *added says which. */
static bool link_once(glr *p, uint32_t from, uint32_t to, bool *added)
{
    *added = false;
    if (2 * (p->en + 1) > p->ecap && !edge_grow(p))
        return false;
    uint64_t key = (uint64_t)from << 32 | to;
    uint32_t h = edge_hash(key, p->ecap);
    for (; p->egen[h] == p->egen_cur; h = (h + 1) & (p->ecap - 1))
        if (p->ekeys[h] == key)
            return true;
    if (!gss_link(&p->g, from, to))
        return false;
    if (at_level(p, to) && /* an edge inside this level */
        (!push_u32(&p->intra, &p->n_intra, &p->cap_intra, from) ||
         !push_u32(&p->intra, &p->n_intra, &p->cap_intra, to)))
        return false;
    p->egen[h] = p->egen_cur, p->ekeys[h] = key;
    p->en++;
    *added = true;
    return true;
}

/* A late edge w -> u: the nodes of this level that reach w (w itself, and
 * nodes made above it by ε-reductions: Farshi's correction) redo their
 * reductions along paths through the new edge. Frontier nodes cannot reach
 * a node of this level, so only made nodes are candidates. */
static gcg_status redo_through(glr *p, uint32_t w, uint32_t u, uint32_t term, bool *accept)
{
    if (++p->anc_gen == 0) {
        memset(p->anc, 0, (size_t)p->cap_seen * sizeof *p->anc);
        p->anc_gen = 1;
    }
    p->anc[w] = p->anc_gen;
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
        if (p->anc[p->made[i]] == p->anc_gen && !actions(p, p->made[i], term, w, u, accept))
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

/* A reduction found a path ending at u: goto on nt, then share or make the
 * node of that state and count. */
static gcg_status reduce_goto(glr *p, uint32_t u, uint32_t nt, uint32_t count, uint32_t term, bool *accept)
{
    if (!spend(p, 1)) /* the edge it links */
        return GCG_ERR_LIMIT;
    uint32_t s = gcg_tables_goto(p->t, p->g.nodes[u].state, nt);
    if (s == GCG_NO_GOTO)
        return GCG_OK; /* cannot happen with tables from gcgc; a dead path otherwise */
    gcg_status st = GCG_OK;
    bool added;
    uint32_t w = level_node(p, s, count);
    if (w != GSS_NONE) {
        if (!link_once(p, w, u, &added) || !ensure_seen(p))
            return GCG_ERR_NOMEM;
        return added ? redo_through(p, w, u, term, accept) : GCG_OK;
    }
    bool other_counts = p->map_stamp[s] == p->stamp;
    if (other_counts && covered(p, s, count, u))
        return GCG_OK;
    if ((w = make_node(p, s, count, &st)) == GSS_NONE)
        return st;
    if (!link_once(p, w, u, &added) || !push_u32(&p->active, &p->n_active, &p->cap_active, w))
        return GCG_ERR_NOMEM;
    if (other_counts)
        drop_covered(p, s, count, u, w);
    return GCG_OK;
}

static gcg_status reduce_to(glr *p, uint32_t u, uint32_t prod, uint32_t term, bool *accept)
{
    return reduce_goto(p, u, p->t->prods[prod].lhs, 0, term, accept);
}

/* A counted production C -> C x (artifact_format.h, GCG_SEC_COUNTS): the
 * count is on C's node, one edge below the top, so the pairs (C's node, the
 * node below it) are followed rather than layers of nodes; with a late edge,
 * only paths through it. Below the largest count the goto is on C with one
 * more copy; at it, on the first link of the chain's end. */
static gcg_status reduce_counted(glr *p, glr_reduction r, const gcg_count_entry *ce, uint32_t term,
                                 bool *accept)
{
    const gss *g = &p->g;
    uint32_t lhs = p->t->prods[r.prod].lhs;
    for (uint32_t e = g->nodes[r.node].edge; e != GSS_NONE; e = g->edges[e].next) {
        uint32_t v = g->edges[e].to;
        bool used = r.via_from == GSS_NONE || (r.node == r.via_from && v == r.via_to);
        for (uint32_t f = g->nodes[v].edge; f != GSS_NONE; f = g->edges[f].next) {
            uint32_t u = g->edges[f].to, c = g->nodes[v].count;
            if (!spend(p, 1))
                return GCG_ERR_LIMIT;
            if (!used && !(v == r.via_from && u == r.via_to))
                continue;
            gcg_status st = c < ce->max ? reduce_goto(p, u, lhs, c + 1, term, accept)
                                        : reduce_goto(p, u, ce->exit, 0, term, accept);
            if (st != GCG_OK)
                return st;
        }
    }
    return GCG_OK;
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

/* The reduction needs the nodes at exactly `len` edges below r.node (through
 * the late edge if one is set), not the paths: a recognizer's result depends
 * only on where a path ends. So the walk goes breadth-first over distinct
 * (node, crossed-the-late-edge) pairs, one layer per popped symbol; the
 * number of paths can grow exponentially with ambiguity, the layers cannot. */
static gcg_status reduce_paths(glr *p, glr_reduction r, uint32_t term, bool *accept)
{
    uint32_t len = p->t->prods[r.prod].len;
    if (len == 0)
        return reduce_to(p, r.node, r.prod, term, accept);
    const gcg_count_entry *ce = p->t->n_counts ? gcg_tables_count(p->t, r.prod) : NULL;
    if (ce)
        return reduce_counted(p, r, ce, term, accept);
    if (r.via_from == GSS_NONE) { /* a plain stack: follow single edges */
        uint32_t v = r.node, d = 0;
        for (; d < len; d++) {
            if (!spend(p, 1))
                return GCG_ERR_LIMIT;
            uint32_t e = p->g.nodes[v].edge;
            if (e == GSS_NONE || p->g.edges[e].next != GSS_NONE)
                break;
            v = p->g.edges[e].to;
        }
        if (d == len)
            return reduce_to(p, v, r.prod, term, accept);
        if (p->g.nodes[v].edge == GSS_NONE)
            return GCG_OK; /* the stack is shorter than the rule: a dead path */
    }
    if (!ensure_seen(p))
        return GCG_ERR_NOMEM;
    const gss *g = &p->g;
    p->n_layer = 0;
    if (!push_u32(&p->layer, &p->n_layer, &p->cap_layer, r.node << 1 | (r.via_from == GSS_NONE)))
        return GCG_ERR_NOMEM;
    for (uint32_t d = 0; d < len; d++) {
        if (++p->seen_gen == 0) {
            memset(p->seen0, 0, (size_t)p->cap_seen * sizeof *p->seen0);
            memset(p->seen1, 0, (size_t)p->cap_seen * sizeof *p->seen1);
            p->seen_gen = 1;
        }
        p->n_next = 0;
        for (uint32_t i = 0; i < p->n_layer; i++) {
            uint32_t v = p->layer[i] >> 1;
            bool used = p->layer[i] & 1;
            if (!used && v == r.via_from) { /* the late edge is the only way on */
                if (mark(p, r.via_to, true) &&
                    !push_u32(&p->next, &p->n_next, &p->cap_next, r.via_to << 1 | 1))
                    return GCG_ERR_NOMEM;
                continue;
            }
            for (uint32_t e = g->nodes[v].edge; e != GSS_NONE; e = g->edges[e].next) {
                uint32_t to = g->edges[e].to;
                if (!spend(p, 1))
                    return GCG_ERR_LIMIT;
                /* A path that has not crossed the late edge yet must stay on
                 * this level, where the edge's source is: prune the others. */
                if (!used && !at_level(p, to))
                    continue;
                if (mark(p, to, used) && !push_u32(&p->next, &p->n_next, &p->cap_next, to << 1 | used))
                    return GCG_ERR_NOMEM;
            }
        }
        uint32_t *tmp = p->layer, cap = p->cap_layer;
        p->layer = p->next, p->cap_layer = p->cap_next, p->n_layer = p->n_next;
        p->next = tmp, p->cap_next = cap;
    }
    /* reduce_to may grow the pool, not these layers: read them as they are. */
    for (uint32_t i = 0; i < p->n_layer; i++) {
        if (!(p->layer[i] & 1))
            continue;
        gcg_status st = reduce_to(p, p->layer[i] >> 1, r.prod, term, accept);
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
    p->n_queue = p->n_active = p->n_made = p->n_shifts = p->en = p->n_intra = p->n_extra = 0;
    if (++p->egen_cur == 0) {
        memset(p->egen, 0, (size_t)p->ecap * sizeof *p->egen);
        p->egen_cur = 1;
    }
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; i < n_in && st == GCG_OK; i++)
        st = push_u32(&p->active, &p->n_active, &p->cap_active, in[i]) ? GCG_OK : GCG_ERR_NOMEM;
    /* Read actions of every active node; reductions may activate more. */
    for (uint32_t i = 0, q = 0; st == GCG_OK && (i < p->n_active || q < p->n_queue);) {
        if (!spend(p, 1))
            st = GCG_ERR_LIMIT;
        else if (i < p->n_active)
            st = actions(p, p->active[i++], term, GSS_NONE, GSS_NONE, accept) ? GCG_OK : GCG_ERR_NOMEM;
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
    release_made(p, st == GCG_OK && term < p->t->n_classes);
    if (st == GCG_OK)
        *n_out = n;
    return st;
}
