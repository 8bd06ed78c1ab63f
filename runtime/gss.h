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
} gss_node;

typedef struct gss_edge {
    uint32_t to;     /* node below                                */
    uint32_t next;   /* next edge of the same node, or GSS_NONE    */
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

/* A new node with no edges, count 0 and one reference (the creator's hold).
 * GSS_NONE when max_nodes live nodes exist or memory runs out. */
uint32_t gss_new(gss *g, uint32_t state);

/* Adds edge from -> to (taking a reference on `to`). False on OOM. */
bool gss_link(gss *g, uint32_t from, uint32_t to);

bool gss_linked(const gss *g, uint32_t from, uint32_t to);

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
