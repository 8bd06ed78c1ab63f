/*
 * compile_limits.h — the compiler's resource limits, each named, with a default, an
 * option to raise it (gcgc flag and gcgc_options field) and one message.
 *
 * A limit stops a compile that would take absurd time or memory with an
 * error that says which limit was reached and how to raise it; running out
 * of memory below every limit is reported as out of memory, never as a limit.
 */
#ifndef GCG_COMPILE_LIMITS_H
#define GCG_COMPILE_LIMITS_H

#include <stdint.h>

#include "diag.h"

typedef struct gcg_limits {
    uint32_t max_repeat;           /* largest m or n in X{m,n}           (--max-repeat)           */
    uint32_t max_grammar_symbols;  /* right-hand-side symbols after lowering (--max-grammar-symbols) */
    uint32_t max_lr_states;        /* LALR(1) states                     (--max-lr-states)        */
    uint32_t max_automaton_states; /* mask automaton states              (--max-automaton-states) */
    uint32_t max_stacks;           /* distinct symbolic stacks the mask simulation may hold
                                      (--max-sim-stacks)                                          */
} gcg_limits;

#define GCG_DEFAULT_MAX_REPEAT 1048576u /* 2^20: long chains fold (count_fold.h) */
#define GCG_DEFAULT_MAX_GRAMMAR_SYMBOLS 4000000u
#define GCG_DEFAULT_MAX_LR_STATES 1000000u
#define GCG_DEFAULT_MAX_AUTOMATON_STATES 2000000u
#define GCG_DEFAULT_MAX_STACKS 4000000u

/* Fills *l with the defaults above. */
void gcg_limits_default(gcg_limits *l);

/* *l with every zero field replaced by its default. */
gcg_limits gcg_limits_or_default(const gcg_limits *l);

/* Adds the error "WHAT (limit N; raise it with --FLAG)" at line:col. */
void gcg_limit_error(gcg_diag *d, uint32_t line, uint32_t col, const char *what, uint32_t limit,
                     const char *flag);

#endif /* GCG_COMPILE_LIMITS_H */
