/*
 * matcher.h — the matcher's state, shared by the commit path (matcher.c)
 * and the two mask builders (mask_walk.c, bruteforce.c).
 *
 * The frontier is the set of stack tops after the committed text (one node
 * per LR state). Every commit pushes the previous frontier on the history,
 * which keeps its nodes alive, so rollback is a pop: GSS nodes never change
 * once the step that made them is over.
 */
#ifndef GCG_MATCHER_H
#define GCG_MATCHER_H

#include "artifact.h"
#include "brute_scratch.h"
#include "glr.h"
#include "mask_scratch.h"

typedef struct hist_entry {
    uint32_t start, n;     /* nodes in hist_nodes                    */
    bool complete;
    bool terminated;
} hist_entry;

struct gcg_matcher {
    const gcg_artifact *art;
    glr p;
    uint32_t *front;       /* current frontier, each node held once   */
    uint32_t n_front;
    uint32_t *scratch[2];  /* frontiers inside a multi-byte commit    */
    uint32_t *unite;       /* with token references: the union of a
                              commit's paths (n_states), else NULL     */
    bool complete;         /* the committed text is a sentence         */
    bool terminated;       /* EOS committed                            */
    uint32_t max_rollback;
    hist_entry *hist;      /* max_rollback entries, oldest first      */
    uint32_t n_hist;
    uint32_t *hist_nodes;
    uint32_t n_hist_nodes, cap_hist_nodes;
    gcg_mask_stats last;   /* of the last fill_mask                   */
    gcg_commit_stats last_commit; /* of the last commit               */
    uint64_t max_commit_work; /* options; 0: no limit                 */
    uint32_t max_mask_work;
    mask_scratch mask;     /* fill_mask's walk (mask_walk.c)          */
    uint32_t *pair_weight; /* per LR state: automaton states a node of
                              it can be paired with in a mask walk     */
    brute_scratch brute;   /* fill_mask_bruteforce (bruteforce.c)     */
};

/* Runs bytes from frontier in[0..n_in) without committing anything: on
 * success out/n_out hold a new frontier with one hold per node (release with
 * matcher_release_frontier). *bad = index of the first byte that fails.
 * `max_step` (may be NULL) receives the most glr work of one byte. */
gcg_status matcher_run_bytes(gcg_matcher *m, const uint32_t *in, uint32_t n_in, const uint8_t *bytes,
                             size_t n, uint32_t **out, uint32_t *n_out, size_t *bad, uint64_t *max_step);

void matcher_release_frontier(gcg_matcher *m, const uint32_t *nodes, uint32_t n);

/* Whether the text ending at this frontier is a complete sentence. */
gcg_status matcher_accepts(gcg_matcher *m, const uint32_t *front, uint32_t n, bool *complete);

#endif /* GCG_MATCHER_H */
