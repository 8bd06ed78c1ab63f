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
 * deep as the stack goes: no bound, naming the rule. Tables with conflicts
 * fork the stack and are not analysed here: no bound is stated.
 */
#ifndef GCG_COMMIT_BOUND_H
#define GCG_COMMIT_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "lr_build.h"

typedef struct commit_bound {
    bool bounded;
    uint32_t unbounded_reason; /* GCG_CERT_UNBOUNDED_* (artifact_format.h)  */
    uint32_t max_step_work;    /* when bounded: work units of one step      */
    uint32_t nt;               /* when !bounded: a nonterminal of the cause  */
} commit_bound;

/* pred_first/pred list each state's predecessors (mask_sim.h). */
gcg_status gcg_commit_bound(const lr_tables *lr, const cfg *g, const uint32_t *pred_first, const uint32_t *pred,
                            commit_bound *out);

#endif /* GCG_COMMIT_BOUND_H */
