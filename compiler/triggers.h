/*
 * triggers.h — lazy grammar triggers compiled into byte DFAs (the
 * GCG_SEC_TRIGGERS section, see runtime/artifact_format.h).
 *
 * Every trigger is a pattern R = P (Q), where the grammar starts at Q:
 *   - words w1..wn: one searched trigger, P empty, Q = w1|...|wn; its find
 *     DFA, the determinized ".*(w1|...|wn)", is their Aho–Corasick automaton;
 *   - a pattern: searched (".*R"); a pattern_full: anchored ("R" must match
 *     the whole free text up to the byte it fires at). When R has a capture
 *     group, P is what precedes the first one and Q starts with it;
 *     otherwise P is empty (the grammar starts at the start of the match).
 *
 * Regular expressions: a documented subset of ECMAScript, over bytes:
 *   literals (UTF-8 text is matched byte by byte), escapes \n \r \t \f \v \0
 *   \xHH \uHHHH and \ before any punctuation, . (any byte but \n and \r),
 *   classes [...] and [^...] of ASCII characters, ranges and \d \D \w \W \s
 *   \S (inside or outside classes; \s is ASCII whitespace), groups (...) and
 *   (?:...), alternation |, quantifiers * + ? {m} {m,} {m,n} (n <= 100),
 *   each optionally lazy (*? ...: the same set of matches, see lazy.c).
 * Refused with an error naming the offset: anchors ^ $, \b \B, back
 * references, lookaround (?= (?! (?<, named groups, non-ASCII in a class,
 * a first capture group that is not at the top level of the pattern's
 * sequence (inside an alternative or a repetition).
 */
#ifndef GCG_TRIGGERS_H
#define GCG_TRIGGERS_H

#include "container_write.h"
#include "diag.h"
#include "gcgc.h"

#define GCG_TRIGGER_MAX_NFA 20000   /* NFA states of one pattern         */
#define GCG_TRIGGER_MAX_DFA 4096    /* DFA states of one pattern's DFA    */

/* Compiles triggers[0..n) and adds the section to w. Token ids must be
 * < n_tokens. Errors go to diag ("trigger N: ..."); GCG_ERR_FORMAT,
 * GCG_ERR_LIMIT (a DFA past GCG_TRIGGER_MAX_DFA states), GCG_ERR_NOMEM. */
gcg_status gcg_triggers_emit(const gcgc_trigger *triggers, uint32_t n, uint32_t n_tokens,
                             gcg_writer *w, gcg_diag *diag);

#endif /* GCG_TRIGGERS_H */
