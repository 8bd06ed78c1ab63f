/*
 * lr_build.h — LALR(1) tables over byte classes.
 *
 * LR(0) states are built from kernels over the grammar's terminal sets: the
 * transition of a state on byte class c advances every item whose next
 * symbol is a terminal set containing c. Lookaheads are LALR(1), computed by
 * propagation to a fixpoint over the LR(0) automaton (the "spontaneous /
 * propagated lookahead" method of Aho, Sethi and Ullman, §4.7). Conflicts
 * are kept as GLR forks; two reductions with the same left-hand side and
 * length are one action for a recognizer, so they are merged rather than
 * counted. The grammar's redirects (cfg.h) are applied to the finished
 * tables, and count in FIRST.
 */
#ifndef GCG_LR_BUILD_H
#define GCG_LR_BUILD_H

#include "byteclass.h"
#include "cfg.h"
#include "diag.h"
#include "compile_limits.h"
#include "../runtime/artifact_format.h"

typedef struct lr_tables {
    uint32_t n_states;
    uint32_t n_terms;      /* byte classes + 1 (end of input = n_terms - 1) */
    uint32_t n_nts;
    uint32_t n_prods;
    uint32_t *action;      /* n_states * n_terms cells (artifact_format.h)      */
    uint32_t *multi;       /* conflict lists                                    */
    uint32_t n_multi;
    uint32_t *go_start;    /* n_states + 1: state s's gotos are go_nt/go_to     */
    uint32_t *go_nt;       /*   [go_start[s], go_start[s + 1]), by ascending nt */
    uint32_t *go_to;       /*   (sparse: memory linear in the automaton)        */
    uint32_t n_go;
    uint32_t *prod_lhs;    /* n_prods */
    uint32_t *prod_len;    /* n_prods */
    uint32_t *accessing;   /* per state: nonterminal, or CFG_TERM | class of one
                              shift into it; the start state has UINT32_MAX
                              (after gcg_lr_minimize, only its kind is exact)  */
    uint32_t sr_conflicts; /* cells with a shift and a reduce                   */
    uint32_t rr_conflicts; /* cells with several distinct reduces               */
} lr_tables;

/* `limits` may be NULL for the defaults (max_lr_states). */
gcg_status gcg_lr_build(const cfg *g, const byteclass *bc, const gcg_limits *limits, lr_tables *out,
                        gcg_diag *diag);
/* The action cell of state s on terminal term; every reader of the tables
 * goes through lr_action and lr_goto. */
static inline uint32_t lr_action(const lr_tables *t, uint32_t s, uint32_t term)
{
    return t->action[(size_t)s * t->n_terms + term];
}

/* The goto of state s on nonterminal nt, or GCG_NO_GOTO: a binary search
 * of s's row. */
static inline uint32_t lr_goto(const lr_tables *t, uint32_t s, uint32_t nt)
{
    uint32_t lo = t->go_start[s], hi = t->go_start[s + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->go_nt[mid] < nt)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->go_start[s + 1] && t->go_nt[lo] == nt ? t->go_to[lo] : GCG_NO_GOTO;
}

/* Whether state s can top the runtime's frontier: the frontier holds the
 * start state and the nodes a shift made (runtime/glr.h), never a state
 * entered by a goto. */
static inline bool lr_frontier_state(const lr_tables *t, uint32_t s)
{
    return t->accessing[s] == UINT32_MAX || CFG_IS_TERM(t->accessing[s]);
}

void gcg_lr_free(lr_tables *t);

#endif /* GCG_LR_BUILD_H */
