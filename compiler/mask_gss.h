/*
 * mask_gss.h — symbolic stacks as a graph-structured stack, for the forms
 * that forks have made large.
 *
 * The symbolic simulation (mask_sim.h) keeps a form's stacks as a list of
 * explicit stacks. On an ambiguous grammar each byte can multiply them by
 * the number of ways to parse it, tenfold per byte on some, though they
 * share almost all their entries. A graph-structured stack (Tomita 1985)
 * keeps one node per LR state per level and one edge per distinct entry
 * below, so it stays as small as the states times the levels while the
 * stacks it stands for do not.
 *
 * A node is a known LR state or a real entry: the real stack's entry `depth`
 * levels below the reference set (the bottom of a symbolic stack [o, k, K...]
 * is the real entry at depth o). A level is a range of nodes, the tops after
 * one byte. A step takes a level through one byte class: its tops are
 * copied, the reductions are applied to a fixpoint (again whenever the
 * level gains an edge, as Nozohoor-Farshi's correction of Tomita's
 * algorithm does for empty reductions, but each pass only along the paths
 * that an edge of the pass before made: semi-naive evaluation, as in
 * Datalog), then the shifts make the next level. A reduction that pops
 * into the real stack asks `below` for the goto there; where that depends
 * on the real stack it is a read, (lhs, depth), as in the explicit
 * simulation, and the path ends.
 *
 * Nodes live in one array used as a stack: gcg_gss_mark before a step and
 * gcg_gss_rewind after the walk below it give the room back.
 */
#ifndef GCG_MASK_GSS_H
#define GCG_MASK_GSS_H

#include <stdbool.h>
#include <stdint.h>

#include "lr_build.h"
#include "vecmap.h"

#define GSS_DEAD (UINT32_MAX - 1) /* below: no state there takes the goto */
#define GSS_READ (UINT32_MAX - 2) /* below: the outcome depends on the stack */

/* The goto on `lhs` of the states at `depth` below the reference: a state,
 * GSS_DEAD or GSS_READ (the caller's consensus). */
typedef uint32_t (*gss_below_fn)(void *ctx, uint32_t depth, uint32_t lhs);

typedef struct gss_level { uint32_t lo, hi; } gss_level; /* node range */
typedef struct gss_mark { uint32_t nodes, edges; } gss_mark;

typedef struct sym_gss {
    const lr_tables *lr;
    vec node;         /* GSS_NODE_WORDS each, see mask_gss.c                */
    vec edge;         /* 2 words each: the node below, the next edge or NONE */
    uint32_t *where;  /* per state: its node in the level being built, if the
                         node there says so (stale entries are harmless)   */
    vec reads;        /* the last step's reads: (lhs, depth) pairs, each once */
    map64 edges;      /* (node, node below) of the level being built past
                         its first MARK_NODES nodes, and of the seed's
                         chains: (state, node below) -> node               */
    uint64_t *mark_bits; /* per node below, MARK_NODES / 64 words: the edges
                         to it from the level's first MARK_NODES nodes     */
    uint32_t *mark_step; /* per node below: the step its bits are of        */
    uint32_t mark_cap, step_id;
    vec front, next;  /* scratch of a reduction: the nodes k entries down   */
    vec stamp;        /* per node: the frontier it was last added to        */
    uint32_t gen;
    uint32_t **column; /* per nonterminal: its gotos by state, or NULL      */
    uint32_t column_cells;
    uint32_t level_lo; /* the first node of the level being built, or NONE  */
    vec inner;        /* the step's edges within its level: (node, node)    */
    vec near;         /* per node of the level: see nearest_new             */
    uint32_t max_nodes;
    bool changed;
    gcg_status st;    /* first failure: GCG_ERR_NOMEM or GCG_ERR_LIMIT      */
} sym_gss;

/* Sets up a graph over `lr` of at most max_nodes nodes and edges. */
gcg_status gcg_gss_init(sym_gss *g, const lr_tables *lr, uint32_t max_nodes);
void gcg_gss_free(sym_gss *g);

gss_mark gcg_gss_mark(const sym_gss *g);
void gcg_gss_rewind(sym_gss *g, gss_mark m);

/* A level holding the n explicit stacks w = data + start[ids[i]], each
 * [o, k, K...] with k >= 1. */
gss_level gcg_gss_seed(sym_gss *g, const uint32_t *data, const uint32_t *start, const uint32_t *ids, uint32_t n);

/* The level after byte class `cls` from level `from` (empty when every
 * stack dies); its reads in g->reads. */
gss_level gcg_gss_step(sym_gss *g, gss_level from, uint32_t cls, gss_below_fn below, void *ctx);

#endif /* GCG_MASK_GSS_H */
