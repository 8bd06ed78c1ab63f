/*
 * glr.h — one GLR step: a frontier of stack tops reads one terminal.
 *
 * Tomita-style GLR over the graph-structured stack with node sharing per
 * level: all reductions the terminal triggers are applied (each path of the
 * production's length, once), creating nodes at the current level; when a
 * reduction adds an edge to a node that already exists, the reductions of
 * every node of the level are redone along paths through that edge only
 * (Farshi's correction: with ε-rules, nodes made above the old node by
 * ε-reductions reach it too). Then every top that can shift the terminal
 * does, and the shifted nodes form the next frontier.
 *
 * A counted repetition (GCG_SEC_COUNTS) keeps its count on the node of its
 * list symbol, so a level holds one node per state and count; of two paths
 * to one node below that differ only by the count, the lower count's
 * language contains the other's, and only it is kept.
 *
 * Runs of equal frames. In `e ::= e e "c" | e "c" | "a"` every `c` may pop
 * one frame of a run of equal `e` frames or two, so after n `c`s the top
 * stands on the run at n depths; as separate edges a step and a mask would
 * read all of them. So an edge carries an interval of copies (gss.h): where
 * a node of state q gets a second edge into the run of q frames below its
 * first one (each node keeps its run form: base and copies), the two become
 * one edge to the run's base with the union of the copies, when it is an
 * interval. A pop reaching inside a run is a position (base, q, copies); its
 * goto on q itself widens the new node's run again, on another state it is
 * made a node of its own. The language of every node is unchanged: only how
 * many edges stand for it. Off unless `runs` is set.
 *
 * The step never changes the nodes of the input frontier: reduction nodes
 * are new (their states are reached by a nonterminal, the frontier's by a
 * terminal, so the two never coincide), which is what makes commit atomic.
 */
#ifndef GCG_GLR_H
#define GCG_GLR_H

#include <stdbool.h>
#include <stdint.h>

#include "artifact.h"
#include "gcg.h"
#include "glr_merge.h"
#include "gss.h"
#include "pair_map.h"

typedef struct glr_reduction {
    uint32_t node;      /* node to reduce from                               */
    uint32_t prod;      /* production                                        */
    uint32_t via_from;  /* GSS_NONE, or: only paths through the edge         */
    uint32_t via_to;    /*   via_from -> via_to with copies [via_lo, via_hi] */
    uint32_t via_lo, via_hi; /* (an edge added late, or widened)           */
} glr_reduction;

/* Where a pop can be: node `node` (lo == 0), or inside a run edge: `state`
 * repeated k times, k in [lo, hi], on node `node`. `used`: the path crossed
 * the step's late edge (or none is set). */
typedef struct glr_pos {
    uint32_t node, state, lo, hi;
    bool used;
} glr_pos;

typedef struct glr {
    const gcg_tables *t;
    gss g;
    uint32_t *map_node, *map_stamp, stamp; /* per state: node at this level */
    glr_reduction *queue;
    uint32_t n_queue, cap_queue;
    uint32_t *active;    /* nodes whose actions are read, this level          */
    uint32_t n_active, cap_active;
    uint32_t *made;      /* nodes made this step (each with a hold)           */
    uint32_t n_made, cap_made;
    uint32_t *shifts;    /* pairs (node, target state)                        */
    uint32_t n_shifts, cap_shifts;
    glr_pos *layer, *next;   /* reduction walk: positions at one depth        */
    uint32_t n_layer, cap_layer, n_next, cap_next;
    uint32_t *drop;          /* nodes an edge let go of: released at step end  */
    uint32_t n_drop, cap_drop;
    uint32_t *aux;           /* nodes made for positions inside runs, this step */
    uint32_t n_aux, cap_aux;
    uint32_t *seen0, *seen1; /* per node: layer stamp, without / with the edge */
    uint32_t *anc;           /* per node: stamp of "reaches the late edge"    */
    uint32_t cap_seen, seen_gen, anc_gen;
    pair_map edges_made;     /* (from, to) of the plain edges made this step   */
    pair_map run_edges;      /* (node, run base) -> the node's edge on that run */
    uint32_t *intra;         /* edges between nodes of this level (pairs)     */
    uint32_t n_intra, cap_intra;
    uint32_t *extra;         /* nodes of this level whose state map_node holds
                                with another count (counted repetitions)      */
    uint32_t n_extra, cap_extra;
    /* Work: one unit per action read, stack edge followed or edge made. The
     * caller zeroes `work` and sets `work_limit` (UINT64_MAX: none); a step
     * that would pass the limit fails with GCG_ERR_LIMIT, changing nothing. */
    uint64_t work, work_limit;
    glr_merge merge;         /* equal nodes across levels (glr_merge.h)       */
    bool runs;               /* join edges into runs of equal frames (above);
                                off: every edge is plain                      */
    bool no_merge;           /* skip merging: steps whose nodes are dropped at
                                once (the brute-force mask), where entering
                                thousands of short-lived nodes would only fill
                                the merge table                               */
    uint64_t merged;         /* nodes replaced by an earlier equal one, in all */
} glr;

gcg_status glr_init(glr *p, const gcg_tables *t, uint32_t initial_nodes, uint32_t max_nodes);
void glr_free(glr *p);

/* Bytes held: the GSS pools and every work array of the step. */
size_t glr_size(const glr *p);

/* Reads terminal `term` (a byte class, or t->n_classes for end of input)
 * from the frontier in[0..n_in). On success `out` receives the new frontier
 * (each node holding one reference for the caller) and *n_out its size; for
 * end of input *n_out is 0 and *accept says whether the text is complete.
 * GCG_ERR_REJECTED when nothing can shift; GCG_ERR_LIMIT when a pool or the
 * work limit is exhausted, GCG_ERR_NOMEM when memory is. On any error nothing changes. `out` must have room for
 * t->n_states entries. */
gcg_status glr_step(glr *p, const uint32_t *in, uint32_t n_in, uint32_t term, uint32_t *out,
                    uint32_t *n_out, bool *accept);

#endif /* GCG_GLR_H */
