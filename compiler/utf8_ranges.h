/*
 * utf8_ranges.h — a set of code points as the UTF-8 byte sequences that
 * encode it: each sequence is a list of byte ranges, one per byte position,
 * and the sequences are disjoint. This is the range splitting regex engines
 * use (RE2, Rust's utf8-ranges). Surrogates (U+D800–U+DFFF) are not valid
 * UTF-8 and are never produced; overlong forms never are either.
 */
#ifndef GCG_UTF8_RANGES_H
#define GCG_UTF8_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "gbnf.h"

typedef struct utf8_seq {
    uint8_t len;          /* 1..4 */
    uint8_t lo[4], hi[4]; /* byte i lies in [lo[i], hi[i]] */
} utf8_seq;

/* Normalizes ranges (sort, merge, apply negation over U+0000..U+10FFFF,
 * drop surrogates) into *out (malloc'ed, caller frees), returning the count.
 * An empty result is still a non-NULL allocation: 0 with *out == NULL means
 * out of memory. */
uint32_t gcg_cp_set_normalize(const gbnf_range *in, uint32_t n, bool negated, gbnf_range **out);

/* Splits normalized code point ranges into UTF-8 byte-range sequences
 * (malloc'ed *out, caller frees); returns the count. */
uint32_t gcg_utf8_split(const gbnf_range *ranges, uint32_t n, utf8_seq **out);

/* Encodes one code point (<= 0x10FFFF) as UTF-8; returns the length (1..4).
 * Surrogates are encoded as their 3-byte form (literals keep what was written). */
int gcg_utf8_encode(uint32_t cp, uint8_t out[4]);

/* A UTF-8 decoder's states, one byte at a time (RFC 3629's table of
 * well-formed sequences): at a boundary, waiting for 1-3 more continuation
 * bytes (80-BF), waiting for the restricted second byte after E0 (A0-BF),
 * ED (80-9F), F0 (90-BF) or F4 (80-8F), or failed (for good). */
enum { GCG_U8_START, GCG_U8_NEED1, GCG_U8_NEED2, GCG_U8_NEED3, GCG_U8_E0, GCG_U8_ED, GCG_U8_F0, GCG_U8_F4,
       GCG_U8_BAD };

/* The decoder's state after byte b in state st. */
uint8_t gcg_utf8_next(uint8_t st, uint8_t b);

/* Decodes the code point that starts s[0..n) into *cp: its length in bytes
 * (1..4), or 0 when the bytes there are not UTF-8 (a bad or cut-off
 * sequence, an overlong form, a surrogate, a value past U+10FFFF). */
int gcg_utf8_decode(const uint8_t *s, size_t n, uint32_t *cp);

#endif /* GCG_UTF8_RANGES_H */
