/*
 * glr_merge.h — sharing equal stack nodes across levels.
 *
 * Tomita's GSS shares nodes within one level only. A node stands for the
 * set of stacks "its state on top of any stack its successors stand for",
 * so two nodes with the same state and the same successors stand for the
 * same stacks wherever they were made, and one can replace the other. At
 * the end of each step the nodes it made (now final) are compared, bottom
 * up, with earlier ones; the check is for nodes with a single successor, the
 * shape ε-reductions of the same rule produce at every level of a run
 * (`value ::= [0-9]+ ws` then `ws "}"`: one `value` node per space, all on
 * the same node below, which would give the `ws` node above them one edge
 * per space and every step and mask a read of all of them). Merging keeps
 * such a run a constant-width stack.
 *
 * Earlier nodes are found through a hash table keyed by (state, successor)
 * that holds every live node with one edge (open addressing with linear
 * probing; the GSS tells the table of each node it frees, whose entry is
 * deleted by backward shift, so the table holds live nodes only and is
 * rebuilt from the pool only when the pool grows): no merge is missed, which the latency certificate relies on (it
 * bounds stacks that differ only by where a run of equal nodes was split).
 * Nodes made in the same step are not merged with each other. Nodes never change once their step
 * is over, so a node merged into is left as it was: atomic commit and
 * rollback are unaffected.
 */
#ifndef GCG_GLR_MERGE_H
#define GCG_GLR_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gss.h"

typedef struct glr_merge {
    uint32_t *cache;        /* (state, successor) hash -> node, or GSS_NONE   */
    uint32_t cap_cache;     /* power of two, >= 2 x the node pool             */
    uint32_t *mark, *repl;  /* per node: step stamp (made / done), its stand-in */
    uint32_t *slot;         /* per node: its slot in cache, or GSS_NONE        */
    uint32_t cap_nodes, gen;
    uint32_t *dfs;          /* depth-first stack over the step's nodes         */
    uint32_t cap_dfs;
} glr_merge;

void glr_merge_init(glr_merge *mg);
void glr_merge_free(glr_merge *mg);
size_t glr_merge_size(const glr_merge *mg);

/* Replaces each node of made[0..n_made) equal to an earlier node by that
 * node: edges into it are redirected (duplicates dropped) and frontier
 * entries out[0..n_out) swapped, the stand-in taking the frontier's hold.
 * The replaced nodes keep only the step's hold, released by the caller.
 * Without memory for its tables it merges nothing. Returns the merges done. */
uint32_t glr_merge_step(glr_merge *mg, gss *g, const uint32_t *made, uint32_t n_made, uint32_t *out,
                        uint32_t n_out);

#endif /* GCG_GLR_MERGE_H */
