/*
 * regex.h — ECMAScript regular expressions (JSON Schema `pattern`,
 * `patternProperties`) translated into GBNF over the characters of a JSON
 * string, as written between its quotes (see schema_charset.h for which
 * spellings of a character are accepted).
 *
 * Supported (ECMA-262 Pattern grammar, `u` flag semantics): alternation,
 * groups (capturing, named, non-capturing), quantifiers * + ? {m} {m,} {m,n}
 * and their lazy forms (the language is the same), classes with ranges and
 * negation, `.` (any character but line terminators), \d \w \s \D \W \S,
 * \t \n \r \v \f \0 \cX \xHH \uHHHH \u{H...} and identity escapes. Anchors:
 * `^` first in a top-level alternative and `$` last in one. Without them the
 * pattern matches anywhere in the string (JSON Schema search semantics).
 * Lookaround, backreferences, \b \B and anchors elsewhere are errors.
 */
#ifndef GCG_REGEX_H
#define GCG_REGEX_H

#include <stddef.h>
#include <stdint.h>

#include "compile_limits.h"
#include "gcg.h"
#include "schema_buf.h"
#include "schema_charset.h"

#define GCG_REGEX_MAX_REPEAT GCG_DEFAULT_MAX_REPEAT /* the grammar's {m,n} limit */
#define GCG_REGEX_MAX_DEPTH 200u      /* nesting of groups                */

/* Appends to `out` a GBNF expression (no rule definitions) matching exactly
 * the contents of the JSON strings whose value the pattern matches.
 * `any_char` names a rule matching any one JSON string character; it pads
 * unanchored ends. Returns GCG_OK; GCG_ERR_FORMAT for a syntax error or an
 * unsupported construct, GCG_ERR_LIMIT for a repetition over the limit, with
 * a message naming the offset in `err`. *min_len and *max_len (when not
 * NULL) receive the least and greatest length in characters of a matching
 * string (UINT64_MAX: no greatest), so a caller can tell when a length
 * bound beside the pattern is implied by it. */
gcg_status gcg_regex_to_gbnf(const char *pat, size_t len, const char *any_char, gcg_buf *out, char *err,
                             size_t err_len, uint64_t *min_len, uint64_t *max_len);

/* The pattern's language (the decoded string's code points, search
 * semantics included) as a minimal DFA of at most max_states states
 * (regex_dfa.h); in *searches whether some top-level alternative is
 * unanchored at an end (its GBNF transcription is then ambiguous), in
 * *most_count the largest count of its {m,n} quantifiers (0: none).
 * GCG_ERR_LIMIT when the NFA (GCG_REGEX_NFA_LIMIT states) or the DFA would be
 * larger, or the language is empty; the errors of gcg_regex_to_gbnf
 * otherwise (without the message: ask gcg_regex_to_gbnf for it). */
#define GCG_REGEX_NFA_LIMIT 2048u
struct gcg_regex_dfa;
gcg_status gcg_regex_to_dfa(const char *pat, size_t len, uint32_t max_states, struct gcg_regex_dfa *out,
                            bool *searches, uint32_t *most_count);

/* A pattern of the shape ^? A1 .. Ak B{m,n}? $? where every A and B is one
 * character class (a character, an escape, [...] or .): the shape a schema
 * converter can test names against and complement (patternProperties). */
typedef struct gcg_regex_simple {
    bool start, end;        /* anchored by ^, by $                         */
    uint32_t n_pos;
    cp_set *pos;            /* A1 .. Ak, each matching one character       */
    bool has_tail;
    cp_set tail;            /* B                                           */
    uint32_t min, max;      /* B's bounds; max UINT32_MAX: none            */
} gcg_regex_simple;

/* Parses pat into *sp when it has the simple shape (true); false otherwise
 * (then *sp holds nothing to free). */
bool gcg_regex_simple_parse(const char *pat, size_t len, gcg_regex_simple *sp);
void gcg_regex_simple_free(gcg_regex_simple *sp);
/* Whether the pattern matches the string of code points s[0..n), with
 * ECMAScript search semantics (anywhere unless anchored). */
bool gcg_regex_simple_matches(const gcg_regex_simple *sp, const uint32_t *s, size_t n);

#endif /* GCG_REGEX_H */
