/*
 * count_fold.h — a long counted repetition as one LR state and a counter;
 * repetitions that end alike share their end.
 *
 * X{0,k} lowers to a chain D_0 -> ε, D_j -> D_{j-1} x, U -> D_0 | ... | D_k
 * (lower.c): Θ(k) LR states, each with its rows and its mask walk. A mask
 * tells "after j copies" from "after j+1" only where the chain's end lies
 * within one token: x reads at least one byte, so a token of at most L bytes
 * starts at most L copies. With W = L + 1, the first k - W links fold into
 * one list C = D_0 with C -> ε | C x; the runtime keeps the number of copies
 * on C's stack node, and the reduction C -> C x at count max = k - W - 1
 * takes the goto on D_{max+1} (the first link kept explicit) instead of C.
 *
 * The LR tables, the mask simulation and the certificate see C -> C x as an
 * unbounded list, and that is exact for masks: a C node holds a count
 * c <= max, so k - c >= W + 1 copies remain, more than any token can start.
 * Only commits (glr.c) read the count, and they run the real chain's end.
 *
 * The fold applies where the chain kept its shape through normalization, x
 * is not nullable and at least COUNT_FOLD_MIN links go.
 *
 * Shared tails. Chains of at least TAIL_MIN links over the same x, each
 * followed by the same terminal wherever its U is used, end in one tail
 * T -> R_0 | ... | R_M, R_{m-1} -> R_m x (R_m: m more copies allowed), and
 * U -> D_0 | T. A chain of k > W links folds as above with the count handing
 * over to R_W (even when fewer than COUNT_FOLD_MIN links go); a shorter one
 * keeps only D_0 -> ε and enters the tail at R_k: a redirect (cfg.h) makes
 * the LR tables take the goto on R_k for D_0 and reduce D_0 wherever R_k's
 * state acts. T's states are the same in every place, so the mask walks
 * near the ends, the deepest of a string grammar, are made once for all the
 * chains; the terminal after U gives T the lookaheads each chain alone had.
 */
#ifndef GCG_COUNT_FOLD_H
#define GCG_COUNT_FOLD_H

#include "cfg.h"

#define COUNT_FOLD_MIN 16u

/* Folds every chain of g longer than `window` + COUNT_FOLD_MIN links, and
 * ends the chains that share a tail in it, recording g->counts and
 * g->redirects. A chain whose middle the lowering left out
 * (gcg_lower_folding) is folded as the whole chain would be; *short_left
 * (when not NULL) tells whether such a chain kept links unfolded, and then g
 * lacks them: the caller lowers again in full. After GCG_ERR_NOMEM g may be
 * half folded: the caller only frees it. */
gcg_status gcg_count_fold(cfg *g, uint32_t window, bool *short_left);

#endif /* GCG_COUNT_FOLD_H */
