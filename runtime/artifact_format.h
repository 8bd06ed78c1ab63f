/*
 * artifact_format.h — what each section of a .gcg file holds (the container
 * itself is described in container.h). All integers little-endian; arrays
 * are tightly packed uint32 unless stated otherwise. The loader (artifact.c)
 * checks every count and every index below before the runtime follows it.
 *
 * Most sections are "packed": four uint32 counts, then arrays whose lengths
 * follow from the counts. gcg_section_layout() below is the one definition of
 * those layouts: the writer (compiler/emit.c) places its arrays with it and
 * the loader (artifact.c) checks sizes and finds its arrays with it.
 */
#ifndef GCG_ARTIFACT_FORMAT_H
#define GCG_ARTIFACT_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

enum gcg_section_id {
    /* UTF-8 text, one `key=value` per line: grammar (file name), grammar_xxh3,
     * root, vocab (file name or "bytes256" / "none"), vocab_xxh3, vocab_size,
     * compiler (version), options. Informational: nothing at runtime needs it. */
    GCG_SEC_META = 1,
    GCG_SEC_GRAMMAR = 2,     /* the GBNF source, verbatim                         */
    GCG_SEC_BYTECLASS = 3,   /* tables header + byte -> class map                 */
    GCG_SEC_PRODUCTIONS = 4, /* per production: lhs, rhs length                   */
    GCG_SEC_ACTION = 5,      /* LR action cells, row-displaced (packed)           */
    GCG_SEC_MULTI = 6,       /* GLR conflict action lists                         */
    GCG_SEC_GOTO = 7,        /* LR goto, row-displaced (packed)                   */
    GCG_SEC_SYMBOLS = 8,     /* nonterminal names (for reports and info)          */
    GCG_SEC_VOCAB = 9,       /* token bytes, flags, EOS ids                       */
    GCG_SEC_TOKENSETS = 10,  /* hash-consed token sets, dense or sparse           */
    GCG_SEC_AUTOMATON = 11,  /* mask automaton states and transitions             */
    GCG_SEC_ROOTS = 12,      /* per LR state: RootAcc set, RootD automaton state  */
    GCG_SEC_CERTIFICATE = 13,/* worst-case latency bound                          */
    GCG_SEC_TRIE = 14,       /* token trie over byte classes (brute-force mask)   */
    GCG_SEC_TRIGGERS = 15,   /* lazy grammar triggers (optional; see below)       */
    GCG_SEC_VOCAB_REF = 16,  /* which vocabulary: size and fingerprint (packed)   */
    GCG_SEC_TOKEN_REFS = 17, /* token references of the grammar (optional)        */
    GCG_SEC_COUNTS = 18,     /* counted repetitions (optional; see below)         */
    GCG_SEC_COMMIT = 19      /* worst-case work of one commit step (optional)     */
};

/* GCG_SEC_COUNTS (optional; present iff the grammar has a repetition folded
 * into a counter, compiler/count_fold.h): packed {n_counts, 0, 0, 0};
 * gcg_count_entry[n_counts], by ascending prod. Production `prod` is C -> C x
 * (length 2). Every stack node carries a count, zero unless made by such a
 * reduction: reducing prod over C's node with count c < max pushes the goto
 * on C with count c + 1; with c = max it pushes the goto on `exit` (count 0)
 * instead. */
typedef struct gcg_count_entry {
    uint32_t prod;     /* the counted production C -> C x           */
    uint32_t max;      /* the largest count a C node holds          */
    uint32_t exit;     /* nonterminal whose goto follows count max  */
    uint32_t reserved; /* zero                                      */
} gcg_count_entry;

/* GCG_SEC_TOKEN_REFS (optional; present iff the grammar has token references,
 * validated by token_ref_section.c, used by the matcher):
 *   uint32 {n_refs, n_tokens, 0, 0};
 *   gcg_token_ref_entry[n_refs]
 * Reference k is the terminal byte class `cls` of the tables (a class no
 * byte maps to). It matches token `token` alone, or with flags bit 0 every
 * token but it and the EOS tokens. A commit of a token it matches also reads
 * `cls` from the frontier it started from. The mask automaton's token sets
 * hold reference k at bit n_tokens + k (its sets' words cover
 * n_tokens + n_refs bits); fill_mask turns that bit into the tokens it
 * matches. */
typedef struct gcg_token_ref_entry {
    uint32_t cls;      /* terminal byte class                      */
    uint32_t token;    /* token id (< n_tokens)                    */
    uint32_t flags;    /* bit 0: negated; others zero              */
    uint32_t reserved; /* zero                                     */
} gcg_token_ref_entry;
#define GCG_TOKEN_REF_NEGATED 1u

/* GCG_SEC_TRIGGERS (optional; present iff the artifact was compiled with
 * triggers, validated by trigger_section.c, used by lazy.c):
 *   uint32 {n_triggers, n_tokens, n_states, force_len};
 *   uint32 tokens[n_tokens]            trigger token ids (< vocabulary size)
 *   gcg_trigger_entry[n_triggers]
 *   uint32 trans[n_states][256]        byte DFAs, one shared numbering
 *   uint8  accept[n_states]            0 or 1
 *   uint8  force[force_len]            the text a reasoning budget forces
 *   zero padding to a multiple of 4 bytes.
 * A trigger fires at the first byte where its `find` DFA (run from `find`
 * over the free text, one step per byte) is accepting; its match ends there
 * (at e). The grammar starts at the smallest s such that the `suffix` DFA,
 * run from `suffix` over text[s..e) read backwards, accepts, and the
 * `prefix` DFA, run from `prefix` over text[0..s) forwards, accepts. */
typedef struct gcg_trigger_entry {
    uint32_t find;     /* start state: ".*R" (searched) or "R" (anchored)   */
    uint32_t prefix;   /* start state: what precedes the grammar's start    */
    uint32_t suffix;   /* start state: the grammar's part, reversed         */
    uint32_t flags;    /* bit 0: anchored (pattern_full); others zero       */
} gcg_trigger_entry;

/*
 * LR action cells. A cell is one uint32:
 *   0                      error
 *   SHIFT  | target state  shift the byte, go to the target
 *   REDUCE | production    reduce; production 0 (start -> root) on end of
 *                          input is accept
 *   MULTI  | index         a GLR conflict: multi[index] = count k, then k
 *                          SHIFT/REDUCE entries
 * Terminal t is a byte class (0..n_classes-1) or end of input (n_classes).
 */
#define GCG_ACT_ERROR 0u
#define GCG_ACT_SHIFT 1u
#define GCG_ACT_REDUCE 2u
#define GCG_ACT_MULTI 3u
#define GCG_ACT_KIND(a) ((a) >> 30)
#define GCG_ACT_ARG(a) ((a) & 0x3FFFFFFFu)
#define GCG_ACT(kind, arg) (((uint32_t)(kind) << 30) | (uint32_t)(arg))
#define GCG_NO_GOTO UINT32_MAX

/* GCG_SEC_BYTECLASS: the table dimensions, then the byte -> class map. */
typedef struct gcg_tables_header {
    uint32_t n_classes;   /* 1..256; terminals are classes + end of input      */
    uint32_t n_states;    /* LR states; state 0 is the start state              */
    uint32_t n_nts;       /* nonterminals                                       */
    uint32_t n_prods;     /* productions; production 0 is start -> root         */
    uint32_t n_multi;     /* uint32 words in GCG_SEC_MULTI                      */
    uint32_t max_rhs;     /* longest right-hand side                            */
    uint32_t reserved[2];
    uint8_t class_of[256];
} gcg_tables_header;

/* GCG_SEC_PRODUCTIONS: n_prods entries. */
typedef struct gcg_prod_entry {
    uint32_t lhs;
    uint32_t len;
} gcg_prod_entry;

/* GCG_SEC_ACTION: packed {n_states, n_slots, width = n_classes + 1, 0};
 *                 gcg_disp_row rows[n_states]; gcg_disp_slot slots[n_slots].
 *                 Row displacement with a check tag (Tarjan and Yao 1979, as
 *                 in yacc): the cell of state s on terminal t is
 *                 slots[rows[s].base + t].value when that slot's tag equals
 *                 rows[s].tag, else GCG_ACT_ERROR. States with identical rows
 *                 share one tag and base; rows[s].base + width <= n_slots, so
 *                 a lookup is two loads and no bounds test.
 * GCG_SEC_MULTI:  uint32 multi[n_multi].
 * GCG_SEC_GOTO:   packed {n_states, n_slots, width = n_nts, 0}, the same
 *                 encoding as the actions; a missing slot is GCG_NO_GOTO.
 * GCG_SEC_SYMBOLS: n_nts NUL-terminated names, in order.
 * GCG_SEC_VOCAB:  packed {n_tokens, n_eos, n_bytes, 0}; uint32 offsets[n_tokens+1]
 *                 (offsets[0] = 0, non-decreasing, offsets[n_tokens] = n_bytes);
 *                 uint32 eos[n_eos] (ascending ids); uint8 flags[n_tokens]
 *                 (1 special, 2 EOS); uint8 bytes[n_bytes].
 * GCG_SEC_TRIE:   packed {n_nodes, n_listed, 0, 0}; uint32 end[n_nodes];
 *                 uint32 tok_start[n_nodes + 1]; uint32 tokens[n_listed];
 *                 uint8 byte[n_nodes]. Nodes in depth-first preorder, children
 *                 by ascending byte: node n's subtree is [n, end[n]); its first
 *                 child is n + 1 (if end[n] > n + 1), the next sibling of child
 *                 c is end[c]; byte[c] labels the edge into c.
 * GCG_SEC_TOKENSETS: packed {n_sets, words, n_data, 0}; gcg_set_entry[n_sets];
 *                 uint32 data[n_data]. A dense set is `words` words of bitmap
 *                 (bit i % 32 of word i / 32 = token i); a sparse set is
 *                 `count` ascending token ids.
 * GCG_SEC_AUTOMATON: packed {n_states, n_trans, 0, 0}; uint32
 *                 trans_start[n_states + 1]; gcg_trans_entry[n_trans], each
 *                 state's transitions by ascending q.
 * GCG_SEC_ROOTS:  packed {n_lr_states, 0, 0, 0}; uint32 root_acc[n_lr_states]
 *                 (set ids); uint32 root_d[n_lr_states] (automaton state or
 *                 GCG_NO_STATE).
 * GCG_SEC_CERTIFICATE: gcg_cert_entry.
 * GCG_SEC_VOCAB_REF: packed {n_tokens, 0, fingerprint low, high word}, no
 *                 arrays. The fingerprint of a vocabulary is the XXH3-64 of
 *                 its GCG_SEC_VOCAB section bytes (counts, offsets, EOS ids,
 *                 flags, bytes: a canonical encoding), which is also that
 *                 section's checksum in the section table. An artifact with
 *                 VOCAB_REF and without VOCAB and TRIE was compiled "by
 *                 reference": it opens only with a vocabulary (a .gcgv file:
 *                 VOCAB, TRIE and VOCAB_REF alone) of that fingerprint. */
#define GCG_SET_DENSE 0u
#define GCG_SET_SPARSE 1u
#define GCG_NO_STATE UINT32_MAX

typedef struct gcg_set_entry {
    uint32_t kind;    /* GCG_SET_DENSE or GCG_SET_SPARSE */
    uint32_t count;   /* tokens in the set              */
    uint32_t offset;  /* into data                      */
} gcg_set_entry;

typedef struct gcg_trans_entry {
    uint32_t q;       /* LR state read below          */
    uint32_t acc;     /* tokens decided: set id        */
    uint32_t next;    /* automaton state or GCG_NO_STATE */
} gcg_trans_entry;

/* The bound of one whole fill_mask (every frontier node, every edge). `bounded`
 * is GCG_CERT_BOUNDED or the reason there is no bound; set operations are
 * bounded always (each automaton transition's set is OR-ed at most once per
 * mask), so max_set_ops is meaningful in every case. */
#define GCG_CERT_UNBOUNDED_RECURSION 0u /* a cycle of the automaton: a run read through */
#define GCG_CERT_BOUNDED 1u
#define GCG_CERT_UNBOUNDED_AMBIGUITY 2u /* GLR conflicts: frontier and fan-out may grow */
typedef struct gcg_cert_entry {
    uint32_t bounded;         /* GCG_CERT_*                                     */
    uint32_t max_stack_reads; /* stack nodes whose edges one mask reads         */
    uint32_t max_set_ops;     /* token-set unions of one mask                   */
    uint32_t max_edges;       /* GSS edges one mask follows                     */
    uint64_t max_bytes;       /* per frontier node                              */
    char unbounded_rule[64];
} gcg_cert_entry;

/* GCG_SEC_COMMIT (optional; absent in artifacts of compilers before it, and
 * then no bound is stated): gcg_commit_entry. `bounded` is GCG_CERT_BOUNDED,
 * GCG_CERT_UNBOUNDED_RECURSION (a chain of reductions one terminal can run
 * through a whole stack) or GCG_CERT_UNBOUNDED_AMBIGUITY (conflicts or token
 * references fork the stack: not analysed); compiler/commit_bound.h. */
typedef struct gcg_commit_entry {
    uint32_t bounded;         /* GCG_CERT_*                                     */
    uint32_t max_step_work;   /* work units of one GLR step (runtime/glr.h)     */
    char unbounded_rule[64];
} gcg_commit_entry;
#define GCG_MAX_STATES 0x3FFFFFFFu

/* A row of a displaced table (GCG_SEC_ACTION, GCG_SEC_GOTO), per LR state. */
typedef struct gcg_disp_row {
    uint32_t base;    /* slot of column 0                               */
    uint32_t tag;     /* the slots of this row carry it                  */
} gcg_disp_row;

typedef struct gcg_disp_slot {
    uint32_t tag;     /* owning row's tag; GCG_DISP_FREE for none         */
    uint32_t value;   /* action cell or goto target                      */
} gcg_disp_slot;
#define GCG_DISP_FREE UINT32_MAX

/* ---- the layout of packed sections ------------------------------------------ */

#define GCG_LAYOUT_MAX 4
typedef struct gcg_layout {
    uint32_t n;                     /* arrays after the 16 count bytes        */
    uint64_t off[GCG_LAYOUT_MAX];   /* byte offset of each, from the section  */
    uint64_t size;                  /* the whole section, counts included     */
} gcg_layout;

static inline void gcg_layout_add(gcg_layout *l, uint64_t count, uint64_t elem)
{
    l->off[l->n++] = l->size;
    l->size += count * elem;
}

/* Bytes of array i of a layout. */
static inline uint64_t gcg_layout_len(const gcg_layout *l, uint32_t i)
{
    return (i + 1 < l->n ? l->off[i + 1] : l->size) - l->off[i];
}

/* The layout of packed section `id` with counts c (false: `id` is not a
 * packed section). Arrays of uint32 come before byte arrays, so every array
 * is aligned for its elements. Counts are uint32, so sizes cannot overflow. */
static inline bool gcg_section_layout(uint32_t id, const uint32_t c[4], gcg_layout *l)
{
    l->n = 0, l->size = 16;
    switch (id) {
    case GCG_SEC_ACTION: /* fall through: the same encoding */
    case GCG_SEC_GOTO:
        gcg_layout_add(l, c[0], sizeof(gcg_disp_row));
        gcg_layout_add(l, c[1], sizeof(gcg_disp_slot));
        return true;
    case GCG_SEC_VOCAB:
        gcg_layout_add(l, (uint64_t)c[0] + 1, 4); /* offsets */
        gcg_layout_add(l, c[1], 4);               /* eos     */
        gcg_layout_add(l, c[0], 1);               /* flags   */
        gcg_layout_add(l, c[2], 1);               /* bytes   */
        return true;
    case GCG_SEC_TRIE:
        gcg_layout_add(l, c[0], 4);               /* end       */
        gcg_layout_add(l, (uint64_t)c[0] + 1, 4); /* tok_start */
        gcg_layout_add(l, c[1], 4);               /* tokens    */
        gcg_layout_add(l, c[0], 1);               /* byte      */
        return true;
    case GCG_SEC_TOKENSETS:
        gcg_layout_add(l, c[0], sizeof(gcg_set_entry));
        gcg_layout_add(l, c[2], 4);
        return true;
    case GCG_SEC_AUTOMATON:
        gcg_layout_add(l, (uint64_t)c[0] + 1, 4);
        gcg_layout_add(l, c[1], sizeof(gcg_trans_entry));
        return true;
    case GCG_SEC_ROOTS:
        gcg_layout_add(l, c[0], 4);               /* root_acc */
        gcg_layout_add(l, c[0], 4);               /* root_d   */
        return true;
    case GCG_SEC_VOCAB_REF:
        return true;
    case GCG_SEC_COUNTS:
        gcg_layout_add(l, c[0], sizeof(gcg_count_entry));
        return true;
    default:
        return false;
    }
}

#endif /* GCG_ARTIFACT_FORMAT_H */
