/*
 * normalize.h — make the byte-level grammar safe for GLR and for the
 * compile-time stack simulation, without giving up the ε-rules that keep
 * masks cheap.
 *
 * After normalization:
 *   - every nonterminal is productive and reachable from the start symbol
 *     (an unproductive root is an error: the grammar matches nothing);
 *   - no nonterminal derives itself (A =>+ A), and no rule is hidden-left-
 *     recursive (A -> α A β with α =>+ ε). Both make a GLR level grow a cycle
 *     of ε-reductions. They are removed by taking ε out of exactly the
 *     nullable symbols that sit in such a context (N becomes N' = N minus ε,
 *     each occurrence becomes "N' or nothing"), not out of the whole grammar:
 *     removing ε from list helpers R -> R X | ε would make the first element
 *     reduce differently from the rest and cost a stack read per mask;
 *   - unit-rule cycles are collapsed into one nonterminal;
 *   - duplicate productions are merged.
 * Every step is linear in the grammar size: an alternative with many
 * affected nullable symbols is split into chunks before expansion, so no
 * 2^k blowup occurs.
 */
#ifndef GCG_NORMALIZE_H
#define GCG_NORMALIZE_H

#include "cfg.h"
#include "diag.h"
#include "gbnf.h"

/* `ast` names rules in messages. Plain right-recursive lists A -> α A | β
 * become left-recursive; other recursion is kept as written. */
gcg_status gcg_normalize(cfg *g, const gbnf_grammar *ast, gcg_diag *diag);

/* gcg_normalize, and every group of rules that recurse in tail position
 * (mutual, unary-prefix: unary ::= "-" unary | primary) is rewritten into
 * the left-linear form of the same language, so no stack grows with a run
 * of prefixes and the mask automaton has no cycle from it; nonterminals
 * with equal productions are merged into one (the copies a schema converter
 * writes per property share their LR states). What the compiler uses: a
 * recognizer needs the language, not the parse tree. */
gcg_status gcg_normalize_latency(cfg *g, const gbnf_grammar *ast, gcg_diag *diag);

#endif /* GCG_NORMALIZE_H */
