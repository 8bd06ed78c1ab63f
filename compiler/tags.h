/*
 * tags.h — tagged regions (structural tags): free text in which each begin
 * tag opens a region constrained by a grammar rule and closed by its end tag,
 * back to free text, any number of times. Compiled into ONE ordinary GBNF
 * grammar, so the LR tables, the mask automaton and its certificate cover
 * free text and regions alike.
 *
 * Free text is any valid UTF-8 text in which no begin tag occurs: it is
 * recognized by the Aho–Corasick automaton of the begin tags (over code
 * points), written as a left-linear grammar with one nonterminal per
 * automaton state that no tag ends in. The first time the automaton reaches
 * a state where a tag ends, that tag's region opens (the longest tag ending
 * there, when one begin tag is a suffix of another), so free text can never
 * spell a begin tag — not even straddling into the tag that opens a region.
 * After an end tag the automaton restarts from its initial state.
 *
 *   root   ::= s<q> ...                       (the text ends in free text)
 *            | open<i> RULE_i                 (unless eos_free_only: EOS may
 *                                              also end an unclosed region
 *                                              whose rule is complete)
 *   start  ::= "" | open<i> RULE_i END_i      (text before a free segment)
 *   s0     ::= start | s<p> [c : δ(p,c) = 0]
 *   s<q>   ::= s<p> [c : δ(p,c) = q]          (q > 0, no tag ends at q)
 *   open<i>::= s<p> [c : δ(p,c) ends tag i]
 *
 * The grammar is deterministic in its free-text part (the automaton is), so
 * free text adds no GLR forks.
 */
#ifndef GCG_TAGS_H
#define GCG_TAGS_H

#include <stddef.h>

#include "diag.h"
#include "gcg.h"
#include "gcgc.h"

#define GCG_TAGS_MAX_BYTES 4096 /* total bytes of the begin tags */

/* Appends the tagged-region rules for tags[0..n) to the grammar `src` and
 * returns the whole text in *out (malloc'ed, NUL-terminated, *out_len bytes)
 * and the name of its new start rule in *root (malloc'ed). Each tag's rule
 * must be a rule name of `src` (checked when the result is parsed). Errors go
 * to diag: an empty or non-UTF-8 begin tag, an invalid rule name, a begin
 * tag that can never open (another begin tag always ends inside it first),
 * more than GCG_TAGS_MAX_BYTES of begin tags. Returns GCG_ERR_FORMAT for
 * those, GCG_ERR_NOMEM. */
gcg_status gcg_tags_wrap(const char *src, size_t len, const gcgc_tag *tags, uint32_t n,
                         bool eos_free_only, char **out, size_t *out_len, char **root,
                         gcg_diag *diag);

#endif /* GCG_TAGS_H */
