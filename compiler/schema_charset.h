/*
 * schema_charset.h — sets of Unicode code points and the GBNF for "one
 * character of a JSON string whose decoded value lies in the set".
 *
 * RFC 8259 section 7: a character is written raw unless it is `"`, `\` or a
 * control character (U+0000..U+001F), which must be escaped; `/` may be
 * escaped as `\/`; the short escapes are \b \f \n \r \t; any character that
 * must or may be escaped here can also be written \u00XX (hex digits of
 * either case). A set's unit accepts exactly those spellings. Characters
 * that need no escape are accepted raw only: \uXXXX spellings of ordinary
 * characters are accepted by the unconstrained string rule (JSON_CHAR_RULE)
 * but not inside pattern, format, enum or const strings.
 */
#ifndef GCG_SCHEMA_CHARSET_H
#define GCG_SCHEMA_CHARSET_H

#include <stdbool.h>
#include <stdint.h>

#include "schema_buf.h"

#define CP_MAX 0x10FFFFu

typedef struct cp_range { uint32_t lo, hi; } cp_range;

/* Sorted, disjoint, non-adjacent ranges once normalized. */
typedef struct cp_set {
    cp_range *r;
    uint32_t n, cap;
    bool oom;
} cp_set;

void cp_set_free(cp_set *s);
void cp_set_add(cp_set *s, uint32_t lo, uint32_t hi);
void cp_set_add_set(cp_set *s, const cp_set *t);
/* Sorts and merges. */
void cp_set_normalize(cp_set *s);
/* Replaces s by its complement in [0, CP_MAX] (normalizes first). */
void cp_set_complement(cp_set *s);
bool cp_set_has(const cp_set *s, uint32_t c);

/* The code point of the valid UTF-8 (as jansson holds strings) at s[*i]
 * (i < n), advancing *i past it (a byte that is not UTF-8 stands alone). */
uint32_t cp_next_utf8(const unsigned char *s, size_t n, size_t *i);
bool cp_set_empty(const cp_set *s);

/* Appends a GBNF expression matching one JSON-string character with a value
 * in s (normalized). An empty set appends nothing and returns false. */
bool cp_set_json_unit(const cp_set *s, gcg_buf *out);

/* The rule every escape sequence a unit accepts, when the set holds all
 * escapable characters: JSON_ESC_NAME ::= JSON_ESC_RULE. */
#define JSON_ESC_NAME "json-esc"
/* Every non-ASCII character, written raw (the surrogates are not characters). */
#define JSON_NONASCII_NAME "json-nonascii"
#define JSON_NONASCII_RULE "[\\x80-\\uD7FF\\uE000-\\U0010FFFF]"
#define JSON_ESC_RULE                                                                        \
    "\"\\\\\" [\"\\\\/bfnrt] | \"\\\\u00\" [01] [0-9a-fA-F] | \"\\\\u00\" ( \"2\" ( \"2\" | [fF] ) | \"5\" [cC] )"

/* The GBNF body of the rule for any one JSON string character (any code
 * point, every RFC 8259 spelling; a surrogate pair escape is one character;
 * a lone surrogate escape is not accepted). */
#define JSON_CHAR_RULE                                                                      \
    "[^\"\\\\\\x00-\\x1F] | \"\\\\\" [\"\\\\/bfnrt] | \"\\\\u\" ( [0-9a-cA-Ce-fE-F] "      \
    "[0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2} ) | \"\\\\u\" [dD] [89abAB] [0-9a-fA-F]{2} " \
    "\"\\\\u\" [dD] [c-fC-F] [0-9a-fA-F]{2}"

#endif /* GCG_SCHEMA_CHARSET_H */
