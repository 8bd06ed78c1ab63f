/*
 * token_ref_section.h — the token references of a grammar (GCG_SEC_TOKEN_REFS,
 * encoding in artifact_format.h): validation at load into a->refs, and what
 * the matcher asks of them.
 */
#ifndef GCG_TOKEN_REF_SECTION_H
#define GCG_TOKEN_REF_SECTION_H

#include <stdbool.h>

#include "artifact.h"

/* Checks the section, if present, against the tables and the vocabulary and
 * sets a->refs (n = 0 without one). GCG_ERR_FORMAT with a message otherwise.
 * Call after the tables and the vocabulary, before the token sets. */
gcg_status gcg_token_ref_section_load(gcg_artifact *a, gcg_error *err);

/* Whether reference e matches `token` (EOS tokens match no negated one). */
bool gcg_token_ref_matches(const gcg_artifact *a, const gcg_token_ref_entry *e, uint32_t token);

/* Turns the references' bits (n_tokens + k) of a filled mask into the
 * tokens they match, clearing them. */
void gcg_token_refs_expand(const gcg_artifact *a, uint32_t *words);

#endif /* GCG_TOKEN_REF_SECTION_H */
