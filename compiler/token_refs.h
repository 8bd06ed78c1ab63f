/*
 * token_refs.h — token references in a grammar (`<[ID]>`, `<TEXT>`, and
 * their negations `!<...>`), as llama.cpp's GBNF has them: each matches one
 * whole token, by id, whatever its bytes (`!`: any token but that one).
 *
 * The byte grammar gets one terminal per distinct reference: a byte that
 * UTF-8 never uses (C1, F5-FF), which no grammar text can contain, so each
 * becomes a byte class of its own and the LR tables need no other alphabet.
 * The runtime maps those bytes to a dead class for the tokens' own bytes
 * and reads the reference's class only when a token it matches is
 * committed (the union of that step and the token's byte path). The mask
 * automaton walks the vocabulary with one virtual token per reference (id
 * n_tokens + k, its one byte the reference's); the runtime turns that bit
 * into the tokens the reference matches.
 */
#ifndef GCG_TOKEN_REFS_H
#define GCG_TOKEN_REFS_H

#include <stdbool.h>
#include <stdint.h>

#include "container_write.h"
#include "diag.h"
#include "gbnf.h"
#include "lr_build.h"
#include "vocab.h"

#define GCG_TOKEN_REFS_MAX 12u   /* distinct (token, negated) pairs per grammar */
#define GCG_TOKEN_REF_DEAD 0xC0u /* stands for every byte UTF-8 never uses     */

typedef struct gcg_token_ref {
    uint32_t token;   /* the token id                                  */
    bool negated;     /* "!": every token but this one (not EOS)       */
    uint8_t byte;     /* the terminal byte standing for the reference */
} gcg_token_ref;

typedef struct gcg_token_refs {
    uint32_t n;
    gcg_token_ref ref[GCG_TOKEN_REFS_MAX];
} gcg_token_refs;

/* Resolves every TOKEN node of `ast` against `v` (NULL when the grammar is
 * compiled without a vocabulary: the nodes stay unresolved and lowering
 * refuses them): `<TEXT>` must be the text of exactly one ordinary token,
 * `<[ID]>` an id of the vocabulary. Sets each node's term_byte and fills
 * *out. Errors at the reference's line:col. */
gcg_status gcg_token_refs_resolve(gbnf_grammar *ast, const gcg_vocab *v, gcg_token_refs *out, gcg_diag *diag);

/* The vocabulary the mask automaton walks: v's tokens with every byte that
 * UTF-8 never uses replaced by GCG_TOKEN_REF_DEAD (no grammar text can
 * shift it), then one virtual token per reference, id v->n_tokens + k,
 * whose one byte is the reference's. */
gcg_status gcg_token_refs_vocab(const gcg_vocab *v, const gcg_token_refs *r, gcg_vocab *out);

/* Whether one token can be matched both by a reference and by its bytes,
 * so that a commit may follow two paths at once (the latency certificate
 * then cannot bound the stack's width): a negated reference, or one whose
 * token has text. */
bool gcg_token_refs_overlap_text(const gcg_token_refs *r, const gcg_vocab *v);

/* Whether every commit follows one path: LR tables without conflicts (the
 * stack stays one stack) and no state that acts on two things one token can
 * be at once, its text and a reference it matches, or two references it
 * matches (`class_of` gives each reference its own class). From such a
 * state all but one of a commit's paths die on their first byte, so the
 * frontier never becomes a union and the certificates hold as without
 * references. */
bool gcg_token_refs_one_path(const gcg_token_refs *r, const gcg_vocab *v, const lr_tables *lr,
                             const uint8_t class_of[256]);

/* Writes GCG_SEC_TOKEN_REFS (artifact_format.h): each reference with the
 * class its byte has in `class_of` (the tables' map before the terminal
 * bytes were pointed at the dead class). */
gcg_status gcg_token_refs_emit(const gcg_token_refs *r, const uint8_t class_of[256], uint32_t n_tokens,
                               gcg_writer *w);

#endif /* GCG_TOKEN_REFS_H */
