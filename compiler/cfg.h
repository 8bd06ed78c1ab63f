/*
 * cfg.h — the byte-level context-free grammar every phase after the front
 * end works on.
 *
 * Terminals are sets of bytes ("terminal sets"): a right-hand-side item is
 * either a nonterminal or one terminal set, and one input byte matches it
 * when the byte is in the set. After byte classes are computed (byteclass.c)
 * each terminal set is also a set of classes, and the LR tables are indexed
 * by class. Keeping sets as terminals (rather than one terminal per class)
 * keeps right-hand sides as long as the grammar wrote them, so a reduction
 * pops exactly what the user's rule spans.
 *
 * Invariants: productions of one nonterminal need not be contiguous; every
 * rhs index is < n_rhs; terminal set ids are < n_tsets.
 */
#ifndef GCG_CFG_H
#define GCG_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcg.h"

#define CFG_TERM 0x80000000u             /* rhs item bit: terminal set */
#define CFG_IS_TERM(s) (((s) & CFG_TERM) != 0)
#define CFG_INDEX(s) ((s) & ~CFG_TERM)

/* A 256-bit set: bytes, or byte classes once classes exist. */
typedef struct bset256 { uint64_t w[4]; } bset256;

static inline bool bset_has(const bset256 *s, unsigned i) { return (s->w[i >> 6] >> (i & 63)) & 1u; }
static inline void bset_add(bset256 *s, unsigned i) { s->w[i >> 6] |= (uint64_t)1 << (i & 63); }

typedef enum cfg_nt_kind {
    CFG_NT_RULE,      /* a rule the user wrote                        */
    CFG_NT_GROUP,     /* a parenthesized alternation or repeated item */
    CFG_NT_REPEAT,    /* left-recursive list helper R -> R x | ε      */
    CFG_NT_COUNT,     /* counted chain link of a bounded repetition   */
    CFG_NT_CLASS,     /* UTF-8 byte sequences of a code point class   */
    CFG_NT_NONEMPTY,  /* X minus ε, made by ε-removal                 */
    CFG_NT_START      /* the augmented start S' -> root               */
} cfg_nt_kind;

typedef struct cfg_nt {
    char *name;          /* owned; user rule name, or derived ("value*", "string#2") */
    cfg_nt_kind kind;
    uint32_t rule;       /* the GBNF rule it came from (for messages), or UINT32_MAX */
    uint32_t omitted;    /* a link of a counted chain whose middle the lowering
                            left out, for count_fold.c to fold: the links left
                            out (lower.h); else 0 */
} cfg_nt;

typedef struct cfg_prod {
    uint32_t lhs;
    uint32_t rhs;        /* index of the first item in cfg.rhs */
    uint32_t len;
} cfg_prod;

/* A counted repetition (count_fold.h): production `prod`, C -> C x, reduces
 * while the count on C's stack node is below `max`, each time adding one;
 * the reduction at `max` goes to nonterminal `exit` (the first explicit link
 * of the chain's end) instead of C. */
typedef struct cfg_count {
    uint32_t prod, max, exit;
} cfg_count;

/* A nonterminal entered as another (count_fold.h: a short chain entering a
 * shared tail at its link `to`): `from` has the one production from -> ε,
 * and the LR tables take the goto on `to` wherever they would take it on
 * `from`, reducing `from` on every byte class that `to`'s state acts on. */
typedef struct cfg_redirect {
    uint32_t from, to;
    uint32_t x;          /* the tail's repeated symbol: FIRST(from) is x's */
} cfg_redirect;

typedef struct cfg {
    cfg_nt *nts;
    uint32_t n_nts, cap_nts;
    cfg_prod *prods;
    uint32_t n_prods, cap_prods;
    uint32_t *rhs;       /* items: nonterminal index, or CFG_TERM | terminal set id */
    uint32_t n_rhs, cap_rhs;
    bset256 *tsets;      /* terminal sets over bytes (deduplicated)          */
    uint32_t n_tsets, cap_tsets;
    uint32_t start;      /* the augmented start symbol; production 0 is start -> root */
    cfg_count *counts;   /* counted repetitions, by ascending prod (count_fold.h) */
    uint32_t n_counts;
    cfg_redirect *redirects; /* entries into shared tails (count_fold.h)   */
    uint32_t n_redirects;
} cfg;

void cfg_init(cfg *g);
void cfg_free(cfg *g);

/* Adds a nonterminal (name is copied); returns its index or UINT32_MAX on OOM. */
uint32_t cfg_add_nt(cfg *g, const char *name, cfg_nt_kind kind, uint32_t rule);

/* Adds lhs -> items[0..len); returns the production index or UINT32_MAX on OOM.
 * `items` may point into g->rhs. */
uint32_t cfg_add_prod(cfg *g, uint32_t lhs, const uint32_t *items, uint32_t len);

/* Returns the id of terminal set `s`, adding it if new; UINT32_MAX on OOM. */
uint32_t cfg_tset(cfg *g, const bset256 *s);

/* Keeps only productions with keep[p] and the nonterminals they mention
 * (plus start), renumbering both in place (counts and redirects too, which
 * must name kept productions and mentioned nonterminals); both orders are
 * kept. Returns GCG_ERR_NOMEM on failure (g unchanged). */
gcg_status cfg_compact(cfg *g, const bool *keep_prod);

/* Productions grouped by lhs: first[nt]..first[nt+1] index into `list`. */
typedef struct cfg_index {
    uint32_t *first;     /* n_nts + 1 */
    uint32_t *list;      /* n_prods   */
} cfg_index;

gcg_status cfg_index_build(const cfg *g, cfg_index *ix);
void cfg_index_free(cfg_index *ix);

/* Nullable nonterminals (least fixpoint). `out` has n_nts entries. */
void cfg_nullable(const cfg *g, bool *out);

#endif /* GCG_CFG_H */
