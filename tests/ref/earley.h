/*
 * earley.h — a reference recognizer for GBNF grammars, for tests only.
 *
 * Works on the GBNF syntax tree (gbnf.h), not on the engine's lowered
 * grammar, so it shares no code with lowering, normalization or LR: every
 * SEQ/ALT/REPEAT/literal node becomes a fresh nonterminal of a plain CFG,
 * {m,n} expands naively, classes and "." stay code-point sets, literals are
 * their UTF-8 bytes. Recognition is Earley's algorithm with Aycock and
 * Horspool's nullable completion ("Practical Earley Parsing", 2002).
 *
 * Input is bytes. A set terminal scans one strictly decoded UTF-8 code point
 * (no overlongs, no surrogates, <= U+10FFFF) that lies in the set; surrogates
 * are never members of a set. Correctness over speed: fine for a few hundred
 * bytes.
 */
#ifndef GCG_REF_EARLEY_H
#define GCG_REF_EARLEY_H

#include <stddef.h>
#include <stdint.h>

#include "gbnf.h"

typedef struct ref_grammar ref_grammar;

typedef enum ref_status {
    REF_OK = 0,
    REF_EMPTY_LANGUAGE = 1, /* the start rule derives no string at all         */
    REF_TOO_BIG = 2,        /* a repetition bound over REF_MAX_REPEAT            */
    REF_NOMEM = 3
} ref_status;

#define REF_MAX_REPEAT 100000u

typedef enum ref_verdict {
    REF_COMPLETE = 0,  /* the text is a sentence                               */
    REF_PREFIX = 1,    /* a proper prefix of a sentence (possibly ending inside
                          a UTF-8 sequence that can still be completed)      */
    REF_REJECT = 2,    /* no sentence starts with the text                     */
    REF_ERROR = 3      /* out of memory                                        */
} ref_verdict;

typedef struct ref_result {
    ref_verdict verdict;
    size_t offset;     /* REF_REJECT: the first byte that cannot be consumed,
                          i.e. text[0..offset) is a prefix of a sentence and
                          text[0..offset+1) is not; otherwise the text length */
} ref_result;

/* Builds the recognizer's CFG from a parsed grammar (start rule g->root).
 * Rules that derive no string are dropped; if the start rule is one of them
 * the result is REF_EMPTY_LANGUAGE. *out is NULL unless REF_OK. */
ref_status ref_grammar_build(const gbnf_grammar *g, ref_grammar **out);

void ref_grammar_free(ref_grammar *rg);

/* Classifies text[0..n). */
ref_result ref_match(const ref_grammar *rg, const uint8_t *text, size_t n);

/* Size of the CFG, for reports. */
uint32_t ref_grammar_nonterminals(const ref_grammar *rg);
uint32_t ref_grammar_productions(const ref_grammar *rg);

const char *ref_status_str(ref_status s);
const char *ref_verdict_str(ref_verdict v);

#endif /* GCG_REF_EARLEY_H */
