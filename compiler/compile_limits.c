/* compile_limits.c — default limits and the one message a limit gives (see compile_limits.h). */
#include <string.h>

#include "compile_limits.h"

void gcg_limits_default(gcg_limits *l)
{
    *l = (gcg_limits){
        .max_repeat = GCG_DEFAULT_MAX_REPEAT,
        .max_grammar_symbols = GCG_DEFAULT_MAX_GRAMMAR_SYMBOLS,
        .max_lr_states = GCG_DEFAULT_MAX_LR_STATES,
        .max_automaton_states = GCG_DEFAULT_MAX_AUTOMATON_STATES,
        .max_stacks = GCG_DEFAULT_MAX_STACKS,
    };
}

gcg_limits gcg_limits_or_default(const gcg_limits *l)
{
    gcg_limits d;
    gcg_limits_default(&d);
    if (!l)
        return d;
    return (gcg_limits){
        .max_repeat = l->max_repeat ? l->max_repeat : d.max_repeat,
        .max_grammar_symbols = l->max_grammar_symbols ? l->max_grammar_symbols : d.max_grammar_symbols,
        .max_lr_states = l->max_lr_states ? l->max_lr_states : d.max_lr_states,
        .max_automaton_states = l->max_automaton_states ? l->max_automaton_states : d.max_automaton_states,
        .max_stacks = l->max_stacks ? l->max_stacks : d.max_stacks,
    };
}

void gcg_limit_error(gcg_diag *d, uint32_t line, uint32_t col, const char *what, uint32_t limit,
                     const char *flag)
{
    gcg_diag_add(d, GCG_SEV_ERROR, line, col, "%s (limit %u; raise it with --%s)", what, limit, flag);
}
