/*
 * lr_minimize.h — merge LR states that no input can tell apart.
 *
 * A recognizer needs of a reduction only its left side and length (and, for
 * a counted production, which one it is: count_fold.h), so LR(0)'s states
 * split by the items they stand for are often equivalent: the same actions
 * on every byte class, reductions alike, shifts and gotos leading to
 * equivalent states. Schema grammars are full of them (`more ::= last3 ","
 * ws kv | more "," ws kv`: one state after each comma), and every state
 * costs the mask simulation a root walk and resumes. The states are merged
 * into the coarsest such partition, as a DFA is minimized: an initial
 * partition by row shape (the actions with shift targets blanked, reductions
 * by their canonical production, the gotos' nonterminals and how the state
 * is entered: by a shift, a goto or neither), then refined by the blocks of
 * the successors until stable (Moore), redoing only the states whose
 * successors moved, the largest part of a split keeping its number
 * (Hopcroft 1971: each state moves O(log n) times).
 *
 * A stack of merged states accepts exactly what a stack of the originals
 * did: each original run maps to a run of their classes, and each run of
 * classes lifts back, the transitions being deterministic per class.
 */
#ifndef GCG_LR_MINIMIZE_H
#define GCG_LR_MINIMIZE_H

#include "cfg.h"
#include "lr_build.h"

/* Replaces t by its quotient (state 0 stays the start; the others are
 * numbered by their smallest member) and every reduction by the first
 * production of its left side and length (counted productions stand for
 * themselves). A merged state's accessing symbol is that of its smallest
 * member: the same kind (terminal, nonterminal, none) as every member's,
 * not always the same symbol. The conflict counts stay those of the
 * LALR(1) tables. GCG_ERR_NOMEM leaves t recognizing what it did, its
 * states unmerged. */
gcg_status gcg_lr_minimize(lr_tables *t, const cfg *g);

#endif /* GCG_LR_MINIMIZE_H */
