/*
 * compile.h — the whole compiler as one call: GBNF text (+ vocabulary) in,
 * .gcg artifact bytes out. gcgc, the tests and the benchmark all go through it.
 *
 * Phases (one file each): gbnf_parse -> lower -> byteclass -> normalize ->
 * lr_build -> [token_trie -> automaton -> certificate] -> emit.
 */
#ifndef GCG_COMPILE_H
#define GCG_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "compile_limits.h"
#include "gcg.h"
#include "gcgc.h"
#include "vocab.h"

typedef struct gcg_compile_options {
    const char *root_name;     /* start rule; NULL = "root"                         */
    const char *grammar_name;  /* recorded in the artifact's metadata (file name)   */
    const char *vocab_name;    /* recorded in the artifact's metadata (file name)   */
    const gcg_vocab *vocab;    /* NULL = the 256 single bytes                       */
    const struct token_trie *vocab_trie; /* the vocabulary's byte trie, prepared
                                            once (NULL: built per compile)     */
    const struct gcg_vocab_sections *vocab_sections; /* vocab's sections, prepared
                                  (emit.h); NULL = made for this compile         */
    bool vocab_by_reference;   /* store only the vocabulary's fingerprint          */
    bool strict_latency;       /* an unbounded certificate is an error              */
    bool no_automaton;         /* skip the mask automaton (byte-level matching only) */
    bool no_shared_walks;      /* walk every LR state (horizon.h off): for tests,
                                  which compare the two artifacts byte for byte */
    bool no_lr_merge;          /* keep the LALR(1) states as built (lr_minimize.h
                                  off): for tests, which compare the masks     */
    uint32_t resume_group_min; /* resume this many states below together, or
                                  more (automaton.c; 0: the default): for
                                  tests, which reach small groups             */
    gcg_limits limits;         /* zero fields: the defaults (compile_limits.h)     */
    const gcgc_tag *tags;      /* tagged regions around free text (tags.h)         */
    uint32_t n_tags;
    bool tags_eos_free_only;   /* EOS only from free text, every region closed      */
    const gcgc_trigger *triggers; /* lazy grammar triggers (triggers.h)           */
    uint32_t n_triggers;
} gcg_compile_options;

typedef struct gcg_compile_stats {
    uint32_t gbnf_rules;
    uint32_t nonterminals, productions, byte_classes;
    uint32_t lr_states, sr_conflicts, rr_conflicts;
    uint32_t lr_states_built;  /* LALR(1) states before equivalent ones merged  */
    uint32_t trie_nodes, dfa_states, dfa_states_built, token_sets;
    uint32_t walks_shared;     /* root walks and resumes taken from a twin      */
    uint32_t roots_replayed;   /* root runs taken from an equal replay          */
    uint32_t resumes_shared;   /* resumes a group's shared run gave (automaton.h) */
    uint32_t shared_dropped;   /* shared runs that touched and were dropped     */
    uint64_t trie_visits;      /* trie nodes entered by the mask simulation     */
    gcg_certificate certificate; /* as the artifact's reader reports it (zero
                                    without an automaton)                      */
    size_t artifact_bytes;
    double seconds_front, seconds_lr, seconds_automaton, seconds_total;
} gcg_compile_stats;

/* Compiles `src`. On success *out (malloc'ed) holds the artifact. Diagnostics,
 * warnings included, go to diag. `check_only` stops after the LR tables and
 * writes nothing (for `gcgc check`). */
gcg_status gcg_compile(const char *src, size_t len, const gcg_compile_options *opt, bool check_only,
                       uint8_t **out, size_t *out_size, gcg_compile_stats *stats, gcg_diag *diag);

#endif /* GCG_COMPILE_H */
