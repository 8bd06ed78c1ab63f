/*
 * gss.h — the graph-structured stack: a pool of stack nodes (an LR state
 * each) and edges to the nodes below them.
 *
 * Nodes are reference counted: an edge into a node, and every frontier that
 * lists it (the current one and those kept for rollback), hold one reference.
 * A node whose count drops to zero returns to the free list together with
 * its edges, releasing the nodes below in turn (iteratively, so a stack of
 * any depth is freed without recursion). Memory is thus the live stacks only,
 * and after warm-up the pools recycle instead of allocating.
 */
#ifndef GCG_GSS_H
#define GCG_GSS_H

#include <stdbool.h>
#include <stdint.h>

#define GSS_NONE UINT32_MAX

typedef struct gss_node {
    uint32_t state;  /* LR state                                   */
    uint32_t refs;   /* edges into it + frontiers and holds on it  */
    uint32_t edge;   /* first outgoing edge, or GSS_NONE; also the free-list link */
    uint32_t count;  /* copies of a counted repetition (GCG_SEC_COUNTS), else 0 */
    /* Its run form, once its step is over (glr.c): the node stands for
     * `state` repeated k times, itself the top copy, k in [run_lo, run_hi],
     * on run_base; GSS_NONE when it has several edges or a count. */
    uint32_t run_base, run_lo, run_hi;
} gss_node;

/* An edge from a node of state q to `to` stands for the stacks q^k on `to`,
 * k in [lo, hi], the node itself the top copy: a plain edge has [1, 1]. A
 * wider run stands for a node that was reached at several depths of one
 * run of equal frames (glr.h). */
typedef struct gss_edge {
    uint32_t to;     /* node below                                */
    uint32_t next;   /* next edge of the same node, or GSS_NONE    */
    uint32_t lo, hi; /* copies of the source's state, >= 1         */
} gss_edge;

typedef struct gss {
    gss_node *nodes;
    uint32_t n_nodes, cap_nodes, free_node, live;
    gss_edge *edges;
    uint32_t n_edges, cap_edges, free_edge;
    uint32_t max_nodes;
    uint32_t *work;  /* release cascade stack */
    uint32_t cap_work;
    const uint32_t *weight; /* per LR state, or NULL; borrowed               */
    uint64_t weight_live;   /* sum of weight[state] over the live nodes      */
    /* Called with each node about to be freed, its edges still in place (an
     * index of the nodes, such as glr_merge's, forgets it), or NULL. */
    void (*on_free)(void *ctx, const struct gss *g, uint32_t node);
    void *on_free_ctx;
} gss;

bool gss_init(gss *g, uint32_t initial_nodes, uint32_t max_nodes);
void gss_free(gss *g);

/* Double the node or edge pool (gss_new and gss_link_run call them when
 * the free list is empty and the pool full). False on OOM. */
bool gss_grow_nodes(gss *g);
bool gss_grow_edges(gss *g);

/* A new node with no edges, count 0, no run form and one reference (the
 * creator's hold). GSS_NONE when max_nodes live nodes exist or memory runs
 * out. Inline, as gss_link_run: a GLR step makes one per node and edge. */
static inline uint32_t gss_new(gss *g, uint32_t state)
{
    if (g->live >= g->max_nodes)
        return GSS_NONE;
    uint32_t n = g->free_node;
    if (n != GSS_NONE) {
        g->free_node = g->nodes[n].edge;
    } else {
        if (g->n_nodes == g->cap_nodes && !gss_grow_nodes(g))
            return GSS_NONE;
        n = g->n_nodes++;
    }
    g->nodes[n] = (gss_node){state, 1, GSS_NONE, 0, GSS_NONE, 0, 0};
    g->live++;
    g->weight_live += g->weight ? g->weight[state] : 0;
    return n;
}

/* Adds edge from -> to with copies [lo, hi] (taking a reference on `to`).
 * False on OOM. */
static inline bool gss_link_run(gss *g, uint32_t from, uint32_t to, uint32_t lo, uint32_t hi)
{
    uint32_t e = g->free_edge;
    if (e != GSS_NONE) {
        g->free_edge = g->edges[e].next;
    } else {
        if (g->n_edges == g->cap_edges && !gss_grow_edges(g))
            return false;
        e = g->n_edges++;
    }
    g->edges[e] = (gss_edge){to, g->nodes[from].edge, lo, hi};
    g->nodes[from].edge = e;
    g->nodes[to].refs++;
    return true;
}

/* A plain edge: [1, 1]. */
static inline bool gss_link(gss *g, uint32_t from, uint32_t to) { return gss_link_run(g, from, to, 1, 1); }

/* Whether from has a plain edge to `to`. */
bool gss_linked(const gss *g, uint32_t from, uint32_t to);

/* Whether from has an edge to `to` with exactly copies [lo, hi]. */
bool gss_linked_run(const gss *g, uint32_t from, uint32_t to, uint32_t lo, uint32_t hi);

/* Removes edge e from `from`'s list (prev: the edge before it, or GSS_NONE)
 * and frees it; the reference it held is the caller's to drop. */
void gss_unlink(gss *g, uint32_t from, uint32_t prev, uint32_t e);

static inline void gss_retain(gss *g, uint32_t n) { g->nodes[n].refs++; }

/* Drops one reference; frees the node (and, transitively, what only it
 * held) when none remain. */
void gss_release(gss *g, uint32_t n);

/* Bytes held by the pools. */
uint64_t gss_memory(const gss *g);

/* Keeps weight_live = the sum of weight[state] over live nodes (the mask
 * walk sizes its scratch by it). Call while only `weight`-less nodes, or
 * none, are live: the sum starts from the nodes live now. */
void gss_set_weight(gss *g, const uint32_t *weight);

#endif /* GCG_GSS_H */
