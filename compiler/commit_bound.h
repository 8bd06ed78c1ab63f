/*
 * commit_bound.h — the most work one commit step can do, proved from the LR
 * tables.
 *
 * The runtime's GLR step (runtime/glr.c) reads one terminal, a byte class or
 * the end of input, and counts its work: one unit per stack node whose
 * actions it reads and per reduction it dequeues, one per stack edge a
 * reduction pops and one for the edge it links, one for the shift. Without
 * conflicts no cell forks the stack, so it stays a single stack (a node
 * would get a second edge only from a reduction chain that reached the same
 * state twice in one step, which is a cycle below) and a step is a chain of
 * reductions: from top state s, a reduction A -> α exposes some state q that
 * can lie |α| below s and goes on from goto(q, A). The costliest chain over
 * every state the LR automaton allows below (an over-approximation of the
 * stacks that occur) bounds every step from every top. A chain that can
 * come back to a state (right recursion that one terminal closes) pops as
 * deep as the stack goes: no bound, naming the rule.
 *
 * Tables with conflicts fork the stack. Where the fork analysis
 * (certificate.c) bounded the forks, it also bounds the work of the steps it
 * simulates: the fork's own step from a conflict cell's single stack, and
 * every step from a forked frontier (commit_forks). A chain that meets a
 * conflict cell then costs that cell's own step, plus, for each goto of the
 * fork that may land on a node the chain made (a GLR late edge), the chain's
 * work again: glr.c redoes the reductions of the nodes above it. Without
 * that analysis no bound is stated for such tables.
 */
#ifndef GCG_COMMIT_BOUND_H
#define GCG_COMMIT_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "lr_build.h"
#include "vecmap.h"

typedef struct commit_bound {
    bool bounded;
    uint32_t unbounded_reason; /* GCG_CERT_UNBOUNDED_* (artifact_format.h)  */
    uint32_t max_step_work;    /* when bounded: work units of one step      */
    uint32_t nt;               /* when !bounded: a nonterminal of the cause  */
} commit_bound;

/* The steps of bounded forks (certificate.c): the most work of the fork's
 * own step from each conflict cell, the most late edges such a step may
 * add, and the most work of a step from a forked frontier. */
typedef struct commit_forks {
    map64 first;        /* (state << 32 | terminal) -> work of the cell's step */
    uint32_t late;      /* gotos of one such step that may be late edges     */
    uint32_t intra;     /* edges between nodes one such step made           */
    uint32_t forked;    /* any step from two or more stacks                  */
} commit_forks;

/* pred_first/pred list each state's predecessors (mask_sim.h). `forks` is
 * NULL where no fork analysis bounded the conflicts: tables with conflicts
 * then get no bound (GCG_CERT_UNBOUNDED_AMBIGUITY). */
gcg_status gcg_commit_bound(const lr_tables *lr, const cfg *g, const uint32_t *pred_first, const uint32_t *pred,
                            const commit_forks *forks, commit_bound *out);

#endif /* GCG_COMMIT_BOUND_H */
