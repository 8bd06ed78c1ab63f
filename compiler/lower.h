/*
 * lower.h — GBNF AST to byte-level CFG.
 *
 * Rule i of the AST becomes nonterminal i. Literals become byte sequences;
 * code point classes and "." become UTF-8 byte-range sequences (utf8_ranges.h)
 * under one shared nonterminal per distinct class; X* becomes the left-
 * recursive list R -> R X | ε (kept: a list built this way reduces the same
 * way for its first element as for the rest, so masks rarely read the stack);
 * X+ is X X*; X{m,n} is X^m followed by a counted left chain
 * D_j -> D_{j-1} X (D_0 -> ε) with U -> D_0 | ... | D_{n-m}: the chain records
 * the count, so the parser never has to guess it (C_k -> C_{k-1} X | ε would
 * not be LR(1)). Production 0 is start -> root.
 */
#ifndef GCG_LOWER_H
#define GCG_LOWER_H

#include "cfg.h"
#include "diag.h"
#include "gbnf.h"
#include "compile_limits.h"

/* `limits` may be NULL for the defaults (max_repeat, max_grammar_symbols). */
gcg_status gcg_lower(const gbnf_grammar *ast, cfg *out, const gcg_limits *limits, gcg_diag *diag);

/* As gcg_lower, for a grammar count_fold.c then folds with `window`: the
 * middle links of X{0,k} that the fold would drop are not built (a chain
 * of k links keeps window + 2 + COUNT_FOLD_MIN, each recording in
 * cfg_nt.omitted how many were left out), so lowering and normalization
 * cost what the folded grammar does, not k. The folded grammar is the same;
 * when gcg_count_fold reports a chain left short and not folded (its shape
 * changed in normalization), the caller lowers again with gcg_lower. */
gcg_status gcg_lower_folding(const gbnf_grammar *ast, cfg *out, const gcg_limits *limits, uint32_t window,
                             gcg_diag *diag);

#endif /* GCG_LOWER_H */
