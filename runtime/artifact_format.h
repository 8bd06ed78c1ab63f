/*
 * artifact_format.h — what each section of a .gcg file holds (the container
 * itself is described in container.h). All integers little-endian; arrays
 * are tightly packed uint32 unless stated otherwise. The loader (artifact.c)
 * checks every count and every index below before the runtime follows it.
 */
#ifndef GCG_ARTIFACT_FORMAT_H
#define GCG_ARTIFACT_FORMAT_H

#include <stdint.h>

enum gcg_section_id {
    /* UTF-8 text, one `key=value` per line: grammar (file name), grammar_xxh3,
     * root, vocab (file name or "bytes256" / "none"), vocab_xxh3, vocab_size,
     * compiler (version), options. Informational: nothing at runtime needs it. */
    GCG_SEC_META = 1,
    GCG_SEC_GRAMMAR = 2,     /* the GBNF source, verbatim                         */
    GCG_SEC_BYTECLASS = 3,   /* tables header + byte -> class map                 */
    GCG_SEC_PRODUCTIONS = 4, /* per production: lhs, rhs length                   */
    GCG_SEC_ACTION = 5,      /* LR action cells, states x terminals               */
    GCG_SEC_MULTI = 6,       /* GLR conflict action lists                         */
    GCG_SEC_GOTO = 7,        /* LR goto, states x nonterminals                    */
    GCG_SEC_SYMBOLS = 8,     /* nonterminal names (for reports and info)          */
    GCG_SEC_VOCAB = 9,       /* token bytes, flags, EOS ids                       */
    GCG_SEC_TOKENSETS = 10,  /* hash-consed token sets, dense or sparse           */
    GCG_SEC_AUTOMATON = 11,  /* mask automaton states and transitions             */
    GCG_SEC_ROOTS = 12,      /* per LR state: RootAcc set, RootD automaton state  */
    GCG_SEC_CERTIFICATE = 13,/* worst-case latency bound                          */
    GCG_SEC_TRIE = 14,       /* token trie over byte classes (brute-force mask)   */
    GCG_SEC_TRIGGERS = 15    /* lazy grammar triggers (optional; see below)       */
};

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

/* GCG_SEC_ACTION: uint32 action[n_states][n_classes + 1].
 * GCG_SEC_MULTI:  uint32 multi[n_multi].
 * GCG_SEC_GOTO:   uint32 go[n_states][n_nts], GCG_NO_GOTO where undefined.
 * GCG_SEC_SYMBOLS: n_nts NUL-terminated names, in order.
 * GCG_SEC_VOCAB:  uint32 {n_tokens, n_eos, n_bytes, 0}; uint32 offsets[n_tokens+1]
 *                 (offsets[0] = 0, non-decreasing, offsets[n_tokens] = n_bytes);
 *                 uint32 eos[n_eos] (ascending ids); uint8 flags[n_tokens]
 *                 (1 special, 2 EOS); uint8 bytes[n_bytes].
 * GCG_SEC_TRIE:   uint32 {n_nodes, n_listed, 0, 0}; uint32 end[n_nodes];
 *                 uint32 tok_start[n_nodes + 1]; uint32 tokens[n_listed];
 *                 uint8 byte[n_nodes]. Nodes in depth-first preorder, children
 *                 by ascending byte: node n's subtree is [n, end[n]); its first
 *                 child is n + 1 (if end[n] > n + 1), the next sibling of child
 *                 c is end[c]; byte[c] labels the edge into c.
 * GCG_SEC_TOKENSETS: uint32 {n_sets, words, n_data, 0}; gcg_set_entry[n_sets];
 *                 uint32 data[n_data]. A dense set is `words` words of bitmap
 *                 (bit i % 32 of word i / 32 = token i); a sparse set is
 *                 `count` ascending token ids.
 * GCG_SEC_AUTOMATON: uint32 {n_states, n_trans, 0, 0}; uint32
 *                 trans_start[n_states + 1]; gcg_trans_entry[n_trans], each
 *                 state's transitions by ascending q.
 * GCG_SEC_ROOTS:  uint32 root_acc[n_lr_states] (set ids); uint32
 *                 root_d[n_lr_states] (automaton state or GCG_NO_STATE).
 * GCG_SEC_CERTIFICATE: gcg_cert_entry. */
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
#define GCG_MAX_STATES 0x3FFFFFFFu

#endif /* GCG_ARTIFACT_FORMAT_H */
