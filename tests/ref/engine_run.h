/*
 * engine_run.h — drives the real pipeline (gcg_compile, then a runtime
 * matcher) on one grammar and answers in the reference's terms
 * (ref_result), so tests compare engine and reference value for value.
 *
 * eng_match commits the text one byte at a time, the way a decoder meets
 * tokens that end inside code points; eng_match_whole commits it in one call
 * and reads the reject offset from `consumed`. Both reset the matcher first.
 */
#ifndef GCG_REF_ENGINE_RUN_H
#define GCG_REF_ENGINE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "compile.h"
#include "earley.h"

typedef struct eng eng;

/* Compiles `src` (root rule NULL = "root"; with_automaton false compiles
 * byte-level tables only) and opens a matcher. On failure returns the
 * compiler's or runtime's status, *out is NULL, and the first error message
 * (or the status name) is copied to msg. */
gcg_status eng_open(const char *src, size_t len, const char *root, bool with_automaton, eng **out,
                    char *msg, size_t msg_cap);

void eng_free(eng *e);

/* Byte by byte. REF_ERROR when the runtime answers something other than
 * OK/REJECTED, or when commit_eos disagrees with is_complete. */
ref_result eng_match(eng *e, const uint8_t *text, size_t n);

/* One gcg_matcher_commit_bytes call for the whole text. */
ref_result eng_match_whole(eng *e, const uint8_t *text, size_t n);

/* The matcher, for tests that drive it directly (e.g. in chunks). */
gcg_matcher *eng_matcher(eng *e);

#endif /* GCG_REF_ENGINE_RUN_H */
