/*
 * regex_dfa.h — a pattern's language as a minimal DFA over code point
 * classes, for patterns whose GBNF transcription would be ambiguous.
 *
 * A pattern with JSON Schema search semantics pads its unanchored ends with
 * "any character*" (regex.h). Written as GBNF, `any* alpha any*` lets every
 * occurrence of `alpha` be the one matched, so GLR keeps a stack per
 * candidate and the certificate's fork exploration meets thousands of
 * configurations; the language itself is regular and deterministic. The
 * parser (regex.c) builds a Thompson NFA beside the GBNF text (Thompson,
 * "Regular expression search algorithm", CACM 1968); this module turns it
 * into a DFA by the subset construction over the classes of code points the
 * NFA cannot tell apart, and minimizes it (Moore's partition refinement).
 * The schema converter writes the DFA as a left-linear grammar (one rule per
 * state: P_q ::= P_p unit | ...), which LR parses without forks.
 *
 * Contract: the NFA's fragments occupy contiguous state ranges in build
 * order (a repetition copies the fragment just built); every builder is a
 * no-op once the NFA is over its limit or out of memory, and the DFA build
 * then reports GCG_ERR_LIMIT or GCG_ERR_NOMEM. The DFA is deterministic,
 * every state reachable from state 0 (the start) and able to reach an
 * accepting state; a missing transition is GCG_REGEX_DEAD.
 */
#ifndef GCG_REGEX_DFA_H
#define GCG_REGEX_DFA_H

#include <stdbool.h>
#include <stdint.h>

#include "gcg.h"
#include "schema_charset.h"

#define GCG_REGEX_DEAD UINT32_MAX

typedef struct rx_nfa_state {
    uint32_t eps[2];  /* ε-successors (n_eps of them)                  */
    uint32_t n_eps;
    uint32_t set;     /* index into sets of the character edge, or
                         GCG_REGEX_DEAD for none                       */
    uint32_t to;      /* the character edge's target                   */
} rx_nfa_state;

typedef struct rx_nfa {
    rx_nfa_state *st;
    uint32_t n, cap, limit; /* states; the most allowed                */
    cp_set *sets;           /* normalized character sets               */
    uint32_t n_sets, cap_sets;
    bool over, oom;
} rx_nfa;

/* A fragment: one entry, one exit (with no edges of its own yet), built
 * in the state range [first, nfa->n at the time it was finished). */
typedef struct rx_frag {
    uint32_t start, end, first;
} rx_frag;

void rx_nfa_init(rx_nfa *a, uint32_t limit);
void rx_nfa_free(rx_nfa *a);
rx_frag rx_nfa_empty(rx_nfa *a);
rx_frag rx_nfa_set(rx_nfa *a, const cp_set *set); /* one character of set */
rx_frag rx_nfa_cat(rx_nfa *a, rx_frag x, rx_frag y);
rx_frag rx_nfa_alt(rx_nfa *a, rx_frag x, rx_frag y);
/* x{min,max} (max UINT32_MAX: unbounded); x must be the last fragment built. */
rx_frag rx_nfa_repeat(rx_nfa *a, rx_frag x, uint32_t min, uint32_t max);

typedef struct gcg_regex_dfa {
    uint32_t n_states, n_classes;
    cp_set *classes;  /* disjoint code point sets, covering every code
                         point some transition reads                    */
    uint32_t *next;   /* [state * n_classes + class]: state or GCG_REGEX_DEAD */
    bool *accept;
} gcg_regex_dfa;

/* The minimal DFA of fragment f of a (its start entered, its end accepting);
 * GCG_ERR_LIMIT when the NFA went over its limit or the DFA needs more than
 * max_states states; GCG_ERR_NOMEM. On failure *out is empty. */
gcg_status gcg_regex_dfa_build(const rx_nfa *a, rx_frag f, uint32_t max_states, gcg_regex_dfa *out);
void gcg_regex_dfa_free(gcg_regex_dfa *d);

#endif /* GCG_REGEX_DFA_H */
