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

#endif /* GCG_REGEX_H */
