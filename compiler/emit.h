/*
 * emit.h — the compiler's results as artifact sections (artifact_format.h).
 */
#ifndef GCG_EMIT_H
#define GCG_EMIT_H

#include <stdbool.h>
#include <stddef.h>

#include "../runtime/artifact_format.h"
#include "automaton.h"
#include "byteclass.h"
#include "cfg.h"
#include "container_write.h"
#include "lr_build.h"
#include "token_trie.h"
#include "vocab.h"

typedef struct gcg_emit_input {
    const char *grammar_src;
    size_t grammar_len;
    const char *root;          /* start rule name                               */
    const char *grammar_name;  /* for META                                       */
    const cfg *g;
    const byteclass *bc;
    const lr_tables *lr;
    const gcg_vocab *vocab;    /* for META; NULL: none                            */
    const char *vocab_name;    /* for META                                       */
} gcg_emit_input;

/* Adds the META, GRAMMAR, table and symbol sections to w. */
gcg_status gcg_emit_tables(const gcg_emit_input *in, gcg_writer *w);

/* A vocabulary's GCG_SEC_VOCAB and GCG_SEC_TRIE bytes, made once and added
 * to every artifact compiled against it (or to a .gcgv file). */
typedef struct gcg_vocab_sections {
    uint8_t *vocab, *trie;
    size_t vocab_size, trie_size;
    uint32_t n_tokens;
    uint64_t fingerprint;      /* XXH3-64 of the vocab bytes (artifact_format.h) */
    bool borrowed;             /* vocab and trie point into memory owned elsewhere */
} gcg_vocab_sections;

gcg_status gcg_vocab_sections_build(const gcg_vocab *v, gcg_vocab_sections *out);
void gcg_vocab_sections_free(gcg_vocab_sections *s);

/* Adds GCG_SEC_VOCAB_REF, then (unless by_reference) GCG_SEC_VOCAB and
 * GCG_SEC_TRIE. */
gcg_status gcg_emit_vocab(const gcg_vocab_sections *s, bool by_reference, gcg_writer *w);

/* The GCG_SEC_CERTIFICATE entry of a's certificate. */
void gcg_cert_entry_of(const mask_automaton *a, gcg_cert_entry *ce);
/* The GCG_SEC_COMMIT entry of the automaton's commit bound. */
void gcg_commit_entry_of(const mask_automaton *a, gcg_commit_entry *e);

/* Adds the token sets, automaton, roots, certificate and commit sections. */
gcg_status gcg_emit_automaton(const mask_automaton *a, uint32_t n_lr_states, gcg_writer *w);

#endif /* GCG_EMIT_H */
