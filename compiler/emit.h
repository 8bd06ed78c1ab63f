/*
 * emit.h — the compiler's results as artifact sections (artifact_format.h).
 */
#ifndef GCG_EMIT_H
#define GCG_EMIT_H

#include <stddef.h>

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
    const gcg_vocab *vocab;    /* NULL: no vocabulary section                     */
    const char *vocab_name;    /* for META                                       */
} gcg_emit_input;

/* Adds the META, GRAMMAR, table and vocabulary sections to w. */
gcg_status gcg_emit_tables(const gcg_emit_input *in, gcg_writer *w);

/* Adds the token trie section (used by the brute-force mask). */
gcg_status gcg_emit_trie(const token_trie *t, gcg_writer *w);

/* Adds the token sets, automaton, roots and certificate sections. */
gcg_status gcg_emit_automaton(const mask_automaton *a, uint32_t n_lr_states, gcg_writer *w);

#endif /* GCG_EMIT_H */
