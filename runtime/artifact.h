/*
 * artifact.h — internal view of a loaded artifact, for the runtime modules
 * and the command-line tools (the public API is in gcg.h).
 */
#ifndef GCG_ARTIFACT_H
#define GCG_ARTIFACT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "artifact_format.h"
#include "container.h"
#include "gcg.h"

/* Typed views into the validated sections. Every index stored in them has
 * been checked by the loader: actions and gotos name existing states and
 * productions, multi lists stay inside multi, class_of < n_classes, and
 * every row's base + width stays inside its slots. */
typedef struct gcg_tables {
    uint32_t n_classes, n_terms, n_states, n_nts, n_prods, n_multi, max_rhs;
    const uint8_t *class_of;       /* 256 */
    const gcg_prod_entry *prods;   /* n_prods */
    const gcg_disp_row *act_rows;  /* n_states (artifact_format.h)         */
    const gcg_disp_slot *act_slots;/* n_act_slots                          */
    const uint32_t *multi;         /* n_multi */
    const gcg_disp_row *go_rows;   /* n_states                             */
    const gcg_disp_slot *go_slots; /* n_go_slots                           */
    uint32_t n_act_slots, n_go_slots;
    const char *symbols;           /* n_nts NUL-terminated names, or NULL */
    uint32_t symbols_size;
    const gcg_count_entry *counts; /* n_counts, by ascending prod (optional) */
    uint32_t n_counts;
} gcg_tables;

/* The counted repetition of production p, or NULL: a binary search, and
 * none at all for grammars without counters. */
static inline const gcg_count_entry *gcg_tables_count(const gcg_tables *t, uint32_t p)
{
    uint32_t lo = 0, hi = t->n_counts;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t->counts[mid].prod < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n_counts && t->counts[lo].prod == p ? &t->counts[lo] : NULL;
}

/* The action cell of state s on terminal term (a class, or n_classes for end
 * of input). Every read of the tables goes through these two accessors, so
 * the encoding of the sections can change without touching their users. */
static inline uint32_t gcg_tables_action(const gcg_tables *t, uint32_t s, uint32_t term)
{
    gcg_disp_row r = t->act_rows[s];
    gcg_disp_slot e = t->act_slots[r.base + term];
    return e.tag == r.tag ? e.value : GCG_ACT_ERROR;
}

/* The goto of state s on nonterminal nt, or GCG_NO_GOTO. */
static inline uint32_t gcg_tables_goto(const gcg_tables *t, uint32_t s, uint32_t nt)
{
    gcg_disp_row r = t->go_rows[s];
    gcg_disp_slot e = t->go_slots[r.base + nt];
    return e.tag == r.tag ? e.value : GCG_NO_GOTO;
}

typedef struct gcg_vocab_view {
    uint32_t n_tokens, n_eos;
    const uint32_t *offsets;       /* n_tokens + 1 */
    const uint32_t *eos;           /* n_eos, ascending */
    const uint8_t *flags;          /* n_tokens */
    const uint8_t *bytes;
} gcg_vocab_view;

typedef struct gcg_trie_view {
    uint32_t n_nodes, n_listed;    /* 0 nodes: no trie                          */
    const uint32_t *end, *tok_start, *tokens;
    const uint8_t *byte;
} gcg_trie_view;

typedef struct gcg_mask_view {
    uint32_t n_sets, words, n_states, n_trans; /* n_sets = 0: no automaton */
    const gcg_set_entry *sets;
    const uint32_t *set_data;
    const uint32_t *trans_start;
    const gcg_trans_entry *trans;
    const uint32_t *root_acc, *root_d;         /* per LR state            */
    const gcg_cert_entry *cert;
    const gcg_commit_entry *commit; /* NULL: no commit bound stated          */
} gcg_mask_view;

/* GCG_SEC_TOKEN_REFS (token_ref_section.c); n = 0 when absent. */
typedef struct gcg_token_ref_view {
    uint32_t n;
    const gcg_token_ref_entry *e;
} gcg_token_ref_view;

struct gcg_artifact {
    uint8_t *mem;                  /* the file's bytes (mapped or owned)      */
    size_t size;
    bool mapped;                   /* mem came from mmap                      */
    gcg_container c;
    gcg_tables t;
    gcg_vocab_view v;              /* n_tokens = 0 when there is no vocabulary;
                                      borrowed from a gcg_vocabulary when the
                                      artifact was compiled by reference      */
    gcg_trie_view trie;
    gcg_mask_view mask;
    gcg_token_ref_view refs;       /* token references of the grammar         */
    uint64_t vocab_fp;             /* 0: no vocabulary                        */
    bool vocab_embedded;
};

/* A prepared vocabulary (.gcgv: GCG_SEC_VOCAB, GCG_SEC_TRIE, GCG_SEC_VOCAB_REF). */
struct gcg_vocabulary {
    uint8_t *mem;
    size_t size;
    bool mapped;
    gcg_container c;
    gcg_vocab_view v;
    gcg_trie_view trie;
    uint64_t fingerprint;
};

/* Shared by the artifact and vocabulary loaders (artifact.c). */
gcg_status gcg_load_vocab_view(const gcg_container *c, gcg_vocab_view *v, gcg_error *err);
gcg_status gcg_load_trie_view(const gcg_container *c, uint32_t n_tokens, gcg_trie_view *t,
                              gcg_error *err);
/* GCG_SEC_VOCAB_REF's size and fingerprint; zeros when absent. */
gcg_status gcg_load_vocab_ref(const gcg_container *c, uint32_t *n_tokens, uint64_t *fp, gcg_error *err);
/* The fingerprint of c's GCG_SEC_VOCAB (its checksum), or 0 without one. */
uint64_t gcg_vocab_fingerprint_of(const gcg_container *c);
/* A file mapped read-only, or bytes copied to 64-byte-aligned storage;
 * gcg_release frees either. */
gcg_status gcg_map_file(const char *path, uint8_t **mem, size_t *size, gcg_error *err);
gcg_status gcg_copy_aligned(const void *data, size_t size, uint8_t **mem, gcg_error *err);
void gcg_release(uint8_t *mem, size_t size, bool mapped);

/* A GCG_SEC_CERTIFICATE entry as gcg_artifact_certificate reports it (the
 * compiler reports the certificate it wrote through the same decoding). */
void gcg_cert_entry_decode(const gcg_cert_entry *e, gcg_certificate *out);
/* Adds a GCG_SEC_COMMIT entry (NULL: none stated) to *out. */
void gcg_commit_entry_decode(const gcg_commit_entry *e, gcg_certificate *out);

/* The validated container behind an artifact (section table, sizes). */
const gcg_container *gcg_artifact_container(const gcg_artifact *art);

/* The value of `key` in the META section (not NUL-terminated; *len bytes),
 * or NULL when absent. */
const char *gcg_artifact_meta(const gcg_artifact *art, const char *key, size_t *len);

/* A printable name for a section id ("meta", "action", ...), or "unknown". */
const char *gcg_section_name(uint32_t id);

#endif /* GCG_ARTIFACT_H */
