/* lower.c — GBNF AST to byte-level CFG (see lower.h for the shapes chosen). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "count_fold.h"
#include "lower.h"
#include "utf8_ranges.h"

/* A class already lowered: its normalized ranges and the symbol standing for it. */
typedef struct class_memo {
    gbnf_range *ranges;
    uint32_t n;
    uint32_t sym;
} class_memo;

/* Symbol-keyed helpers: X* lists (shared) and the counted chain in hand. */
typedef struct rep_memo {
    uint32_t x;        /* the repeated symbol                          */
    uint32_t list;     /* R -> R x | ε, or UINT32_MAX                  */
    uint32_t *chain;   /* chain[j] = D_j (D_0 -> ε, D_j -> D_{j-1} x)  */
    uint32_t n_chain;
} rep_memo;

typedef struct lower_ctx {
    const gbnf_grammar *ast;
    cfg *g;
    gcg_diag *diag;
    gcg_limits limits;
    uint32_t *stack;   /* right-hand sides under construction, nested */
    uint32_t n_stack, cap_stack;
    class_memo *classes;
    uint32_t n_classes, cap_classes;
    rep_memo *reps;
    uint32_t n_reps, cap_reps;
    uint32_t cur_rule; /* rule being lowered, for helper names */
    uint32_t window;   /* count_fold.h's window, or 0: every chain whole   */
    uint64_t omitted;  /* symbols of the chain links left out             */
    gcg_status st;     /* first failure; lowering stops at it  */
} lower_ctx;

static bool fail(lower_ctx *c, gcg_status st)
{
    if (c->st == GCG_OK)
        c->st = st;
    return false;
}

static bool push(lower_ctx *c, uint32_t sym)
{
    if (c->n_stack == c->cap_stack) {
        uint32_t cap = c->cap_stack ? c->cap_stack * 2 : 256;
        uint32_t *s = realloc(c->stack, (size_t)cap * sizeof *s);
        if (!s)
            return fail(c, GCG_ERR_NOMEM);
        c->stack = s;
        c->cap_stack = cap;
    }
    c->stack[c->n_stack++] = sym;
    return true;
}

/* Appends s to the name being built in b (at most cap - 1 bytes kept). */
static size_t name_put(char *b, size_t at, size_t cap, const char *s)
{
    while (*s && at + 1 < cap)
        b[at++] = *s++;
    b[at] = '\0';
    return at;
}

static size_t name_put_u32(char *b, size_t at, size_t cap, uint32_t v)
{
    char d[11];
    size_t n = sizeof d - 1;
    d[n] = '\0';
    do
        d[--n] = (char)('0' + v % 10);
    while (v /= 10);
    return name_put(b, at, cap, d + n);
}

/* A new nonterminal named RULE/WHAT[NUMBER]@LINE:COL (number NO_NUMBER:
 * none). Written by hand, not with snprintf: a counted repetition makes one
 * per copy, and formatting was a tenth of compiling a {1,131072}. */
#define NO_NUMBER UINT32_MAX

static uint32_t new_nt_n(lower_ctx *c, const char *what, uint32_t number, cfg_nt_kind kind, uint32_t line,
                         uint32_t col)
{
    char name[160];
    size_t at = name_put(name, 0, sizeof name, c->ast->rules[c->cur_rule].name);
    at = name_put(name, at, sizeof name, "/");
    at = name_put(name, at, sizeof name, what);
    if (number != NO_NUMBER)
        at = name_put_u32(name, at, sizeof name, number);
    at = name_put(name, at, sizeof name, "@");
    at = name_put_u32(name, at, sizeof name, line);
    at = name_put(name, at, sizeof name, ":");
    name_put_u32(name, at, sizeof name, col);
    uint32_t nt = cfg_add_nt(c->g, name, kind, c->cur_rule);
    if (nt == UINT32_MAX)
        fail(c, GCG_ERR_NOMEM);
    return nt;
}

static uint32_t new_nt(lower_ctx *c, const char *what, cfg_nt_kind kind, uint32_t line, uint32_t col)
{
    return new_nt_n(c, what, NO_NUMBER, kind, line, col);
}

/* Adds lhs -> stack[mark..] and pops it. */
static bool emit_from(lower_ctx *c, uint32_t lhs, uint32_t mark)
{
    if (c->g->n_rhs + c->omitted + (c->n_stack - mark) > c->limits.max_grammar_symbols) {
        gcg_limit_error(c->diag, 0, 0, "grammar too large after expanding repetitions",
                        c->limits.max_grammar_symbols, "max-grammar-symbols");
        return fail(c, GCG_ERR_LIMIT);
    }
    if (cfg_add_prod(c->g, lhs, c->stack + mark, c->n_stack - mark) == UINT32_MAX)
        return fail(c, GCG_ERR_NOMEM);
    c->n_stack = mark;
    return true;
}

static bool emit(lower_ctx *c, uint32_t lhs, const uint32_t *items, uint32_t n)
{
    uint32_t mark = c->n_stack;
    for (uint32_t i = 0; i < n; i++)
        if (!push(c, items[i]))
            return false;
    return emit_from(c, lhs, mark);
}

static bool lower_into(lower_ctx *c, uint32_t node);
static uint32_t symbol_for(lower_ctx *c, uint32_t node);

/* ---- terminals ---------------------------------------------------------- */

static uint32_t tset_range(lower_ctx *c, unsigned lo, unsigned hi)
{
    bset256 s = {{0, 0, 0, 0}};
    for (unsigned b = lo; b <= hi; b++)
        bset_add(&s, b);
    uint32_t id = cfg_tset(c->g, &s);
    if (id == UINT32_MAX) {
        fail(c, GCG_ERR_NOMEM);
        return UINT32_MAX;
    }
    return CFG_TERM | id;
}

/* One production per UTF-8 sequence, with all one-byte sequences merged into
 * a single terminal set (so ASCII classes cost one shift, not an alternation). */
static bool emit_utf8_class(lower_ctx *c, uint32_t nt, const utf8_seq *seq, uint32_t n)
{
    bset256 ascii = {{0, 0, 0, 0}};
    bool any1 = false;
    for (uint32_t i = 0; i < n; i++) {
        if (seq[i].len != 1)
            continue;
        for (unsigned b = seq[i].lo[0]; b <= seq[i].hi[0]; b++)
            bset_add(&ascii, b);
        any1 = true;
    }
    if (any1) {
        uint32_t id = cfg_tset(c->g, &ascii);
        if (id == UINT32_MAX)
            return fail(c, GCG_ERR_NOMEM);
        uint32_t sym = CFG_TERM | id;
        if (!emit(c, nt, &sym, 1))
            return false;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (seq[i].len == 1)
            continue;
        uint32_t items[4];
        for (uint32_t k = 0; k < seq[i].len; k++)
            if ((items[k] = tset_range(c, seq[i].lo[k], seq[i].hi[k])) == UINT32_MAX)
                return false;
        if (!emit(c, nt, items, seq[i].len))
            return false;
    }
    return true;
}

/* The symbol for a normalized code point set: one terminal set when every
 * member is a single byte, else a shared nonterminal over UTF-8 sequences.
 * An empty set gets a nonterminal with no productions (it never matches;
 * normalization removes what depends on it). Takes ownership of `r`. */
static uint32_t class_symbol(lower_ctx *c, gbnf_range *r, uint32_t n, uint32_t line, uint32_t col)
{
    for (uint32_t i = 0; i < c->n_classes; i++)
        if (c->classes[i].n == n && memcmp(c->classes[i].ranges, r, n * sizeof *r) == 0) {
            free(r);
            return c->classes[i].sym;
        }
    utf8_seq *seq = NULL;
    uint32_t n_seq = n ? gcg_utf8_split(r, n, &seq) : 0;
    bool single = n_seq > 0;
    for (uint32_t i = 0; i < n_seq; i++)
        single = single && seq[i].len == 1;
    uint32_t sym = UINT32_MAX;
    if (single) {
        bset256 s = {{0, 0, 0, 0}};
        for (uint32_t i = 0; i < n_seq; i++)
            for (unsigned b = seq[i].lo[0]; b <= seq[i].hi[0]; b++)
                bset_add(&s, b);
        uint32_t id = cfg_tset(c->g, &s);
        sym = id == UINT32_MAX ? UINT32_MAX : (CFG_TERM | id);
        if (id == UINT32_MAX)
            fail(c, GCG_ERR_NOMEM);
    } else {
        sym = new_nt(c, "class", CFG_NT_CLASS, line, col);
        if (sym != UINT32_MAX && !emit_utf8_class(c, sym, seq, n_seq))
            sym = UINT32_MAX;
    }
    free(seq);
    if (c->n_classes == c->cap_classes) {
        uint32_t cap = c->cap_classes ? c->cap_classes * 2 : 16;
        class_memo *m = realloc(c->classes, cap * sizeof *m);
        if (!m) {
            free(r);
            fail(c, GCG_ERR_NOMEM);
            return UINT32_MAX;
        }
        c->classes = m;
        c->cap_classes = cap;
    }
    c->classes[c->n_classes++] = (class_memo){r, n, sym};
    return sym;
}

static uint32_t lower_class(lower_ctx *c, const gbnf_node *nd)
{
    static const gbnf_range all = {0, GBNF_MAX_CODEPOINT};
    gbnf_range *r = NULL;
    uint32_t n = nd->kind == GBNF_ANY ? gcg_cp_set_normalize(&all, 1, false, &r)
                                      : gcg_cp_set_normalize(nd->ranges, nd->n_ranges, nd->negated, &r);
    if (n > 0 && !r) {
        fail(c, GCG_ERR_NOMEM);
        return UINT32_MAX;
    }
    return class_symbol(c, r, n, nd->line, nd->col);
}

/* ---- repetition --------------------------------------------------------- */

static rep_memo *rep_for(lower_ctx *c, uint32_t x)
{
    for (uint32_t i = 0; i < c->n_reps; i++)
        if (c->reps[i].x == x)
            return &c->reps[i];
    if (c->n_reps == c->cap_reps) {
        uint32_t cap = c->cap_reps ? c->cap_reps * 2 : 16;
        rep_memo *m = realloc(c->reps, cap * sizeof *m);
        if (!m) {
            fail(c, GCG_ERR_NOMEM);
            return NULL;
        }
        c->reps = m;
        c->cap_reps = cap;
    }
    c->reps[c->n_reps] = (rep_memo){x, UINT32_MAX, NULL, 0};
    return &c->reps[c->n_reps++];
}

/* R -> R x | ε, shared by every x* of the same x. */
static uint32_t list_of(lower_ctx *c, uint32_t x, const gbnf_node *nd)
{
    rep_memo *m = rep_for(c, x);
    if (!m)
        return UINT32_MAX;
    if (m->list != UINT32_MAX)
        return m->list;
    uint32_t r = new_nt(c, "list", CFG_NT_REPEAT, nd->line, nd->col);
    if (r == UINT32_MAX)
        return UINT32_MAX;
    uint32_t rx[2] = {r, x};
    if (!emit(c, r, rx, 2) || !emit(c, r, NULL, 0))
        return UINT32_MAX;
    m = rep_for(c, x); /* emit() cannot move reps, but keep the lookup honest */
    m->list = r;
    return r;
}

/* D_j for j = 0..k: D_0 -> ε, D_j -> D_{j-1} x (the chain in hand for x).
 * With `skip`, link j > 0 stands for link j + skip of the whole chain (its
 * name says so) and every link records the skip (cfg_nt.omitted). */
static uint32_t chain_link(lower_ctx *c, uint32_t x, uint32_t j, uint32_t skip, const gbnf_node *nd)
{
    rep_memo *m = rep_for(c, x);
    if (!m)
        return UINT32_MAX;
    if (j < m->n_chain)
        return m->chain[j];
    uint32_t *ch = realloc(m->chain, (size_t)(j + 1) * sizeof *ch);
    if (!ch) {
        fail(c, GCG_ERR_NOMEM);
        return UINT32_MAX;
    }
    m->chain = ch;
    for (uint32_t i = m->n_chain; i <= j; i++) {
        uint32_t d = new_nt_n(c, "count", i ? i + skip : 0, CFG_NT_COUNT, nd->line, nd->col);
        if (d == UINT32_MAX)
            return UINT32_MAX;
        c->g->nts[d].omitted = skip;
        uint32_t items[2] = {i ? ch[i - 1] : 0, x};
        if (!(i ? emit(c, d, items, 2) : emit(c, d, NULL, 0)))
            return UINT32_MAX;
        ch[i] = d;
        m->n_chain = i + 1;
    }
    return ch[j];
}

/* A chain of its own for x up to D_k, less `skip` links out of its middle
 * (the memo's chain is dropped, not extended: see upto), and a new group
 * nonterminal NAMEk to hold it. */
static uint32_t chain_group(lower_ctx *c, uint32_t x, uint32_t k, uint32_t skip, const char *name,
                            const gbnf_node *nd)
{
    rep_memo *m = rep_for(c, x);
    if (!m)
        return UINT32_MAX;
    free(m->chain);
    m->chain = NULL, m->n_chain = 0;
    if (chain_link(c, x, k - skip, skip, nd) == UINT32_MAX)
        return UINT32_MAX;
    return new_nt_n(c, name, k, CFG_NT_GROUP, nd->line, nd->col);
}

/* Links of X{0,k} that need not be built: count_fold.c keeps only a chain's
 * last window + 1 links and its D_0, so links from the middle of a longer
 * chain are left out here (and counted against max-grammar-symbols as if
 * built: each is D_j -> D_{j-1} x and U -> D_j). The chain kept is still
 * long enough to fold, and the fold counts the links left out (cfg_nt.
 * omitted); a chain that does not fold after all is lowered again whole
 * (compile.c). One spare link over the least that folds. */
static uint32_t upto_skip(lower_ctx *c, uint32_t k)
{
    uint64_t keep = (uint64_t)c->window + 1 + COUNT_FOLD_MIN + 1;
    if (c->window == 0 || k <= keep)
        return 0;
    c->omitted += 3 * (k - keep);
    return (uint32_t)(k - keep);
}

/* X{0,k}: U -> D_0 | D_1 | ... | D_k, over a chain of its own: where two
 * repetitions shared one, the states after D_j differ by place, so reducing
 * a link needed the stack below (a read configuration per link, and a
 * vocabulary walk for each). */
static uint32_t upto(lower_ctx *c, uint32_t x, uint32_t k, const gbnf_node *nd)
{
    uint32_t skip = upto_skip(c, k);
    uint32_t u = chain_group(c, x, k, skip, "upto", nd);
    if (u == UINT32_MAX)
        return UINT32_MAX;
    for (uint32_t j = 0; j <= k - skip; j++) {
        uint32_t d = rep_for(c, x)->chain[j];
        if (!emit(c, u, &d, 1))
            return UINT32_MAX;
    }
    return u;
}

/* X{m} for m of at least EXACT_CHAIN: D_m over a chain of its own, not m
 * copies in the production. The LR states inside the copies are as many, but
 * as chain links the horizon (horizon.h) can show that a state behaves as the
 * next one renamed for as many bytes as separate it from the chain's end, and
 * share its vocabulary walk; the states of inline copies differ by their
 * place in one production and each walk is its own. Below the threshold the
 * copies are too few to share much, and inline they cost no unit reductions:
 * converters expand integer bounds into alternatives such as
 * [1-8] [0-9]{17} | 9 [0-8] [0-9]{16}, whose inline copies advance side by
 * side in one LR state where chains would each need their own (a Snowplow
 * schema: 1,123 LR states and 17 ms inline, 2,323 and 117 ms as chains). */
#define EXACT_CHAIN 20

/* E -> D_k, as U is for X{0,k}: the rule that holds E is not a rule over a
 * chain, and merges with its equals wherever they are used (normalize.c);
 * only E must sit in the same place as its equals. */
static uint32_t exact(lower_ctx *c, uint32_t x, uint32_t k, const gbnf_node *nd)
{
    uint32_t e = chain_group(c, x, k, 0, "exactly", nd);
    if (e == UINT32_MAX)
        return UINT32_MAX;
    uint32_t d = rep_for(c, x)->chain[k];
    return emit(c, e, &d, 1) ? e : UINT32_MAX;
}

/* X{m,n}: m copies of x (or their chain), then x* (n infinite) or X{0,n-m}. */
static bool lower_repeat(lower_ctx *c, const gbnf_node *nd)
{
    uint32_t min = nd->min, max = nd->max, limit = c->limits.max_repeat;
    if (min > limit || (max != GBNF_INF && max > limit)) {
        uint32_t big = max == GBNF_INF || min > limit ? min : max;
        char what[64];
        snprintf(what, sizeof what, "repetition bound %s%u too large", big >= GBNF_INF - 1 ? "over " : "",
                 big >= GBNF_INF - 1 ? GBNF_INF - 2 : big);
        gcg_limit_error(c->diag, nd->line, nd->col, what, limit, "max-repeat");
        return fail(c, GCG_ERR_LIMIT);
    }
    if (max == 0)
        return true;
    uint32_t x = symbol_for(c, nd->kids[0]);
    if (x == UINT32_MAX)
        return false;
    if (min >= EXACT_CHAIN) {
        uint32_t d = exact(c, x, min, nd);
        if (d == UINT32_MAX || !push(c, d))
            return false;
    }
    for (uint32_t i = 0; min < EXACT_CHAIN && i < min; i++)
        if (!push(c, x))
            return false;
    if (max == min)
        return true;
    uint32_t tail = max == GBNF_INF ? list_of(c, x, nd) : upto(c, x, max - min, nd);
    return tail != UINT32_MAX && push(c, tail);
}

/* ---- sequences and groups ----------------------------------------------- */

/* A nonterminal whose productions are the node's alternatives. */
static uint32_t group_of(lower_ctx *c, uint32_t node)
{
    const gbnf_node *nd = &c->ast->nodes[node];
    uint32_t nt = new_nt(c, "group", CFG_NT_GROUP, nd->line, nd->col);
    if (nt == UINT32_MAX)
        return UINT32_MAX;
    uint32_t n_alt = nd->kind == GBNF_ALT ? nd->n_kids : 1;
    for (uint32_t i = 0; i < n_alt; i++) {
        uint32_t mark = c->n_stack;
        if (!lower_into(c, nd->kind == GBNF_ALT ? nd->kids[i] : node) || !emit_from(c, nt, mark))
            return UINT32_MAX;
    }
    return nt;
}

/* One symbol standing for the node (its own when it is one, else a group). */
static uint32_t symbol_for(lower_ctx *c, uint32_t node)
{
    const gbnf_node *nd = &c->ast->nodes[node];
    switch (nd->kind) {
    case GBNF_REF:
        return nd->rule;
    case GBNF_CLASS:
    case GBNF_ANY:
        return lower_class(c, nd);
    case GBNF_LIT:
        if (nd->n_bytes == 1)
            return tset_range(c, nd->bytes[0], nd->bytes[0]);
        return group_of(c, node);
    case GBNF_TOKEN:
        return tset_range(c, nd->term_byte, nd->term_byte);
    case GBNF_SEQ:
        if (nd->n_kids == 1)
            return symbol_for(c, nd->kids[0]);
        return group_of(c, node);
    default:
        return group_of(c, node);
    }
}

/* Appends the node's symbols to the right-hand side being built. */
static bool lower_into(lower_ctx *c, uint32_t node)
{
    const gbnf_node *nd = &c->ast->nodes[node];
    switch (nd->kind) {
    case GBNF_SEQ:
        for (uint32_t i = 0; i < nd->n_kids; i++)
            if (!lower_into(c, nd->kids[i]))
                return false;
        return true;
    case GBNF_LIT:
        for (uint32_t i = 0; i < nd->n_bytes; i++) {
            uint32_t t = tset_range(c, nd->bytes[i], nd->bytes[i]);
            if (t == UINT32_MAX || !push(c, t))
                return false;
        }
        return true;
    case GBNF_REPEAT:
        return lower_repeat(c, nd);
    default: {
        uint32_t s = symbol_for(c, node);
        return s != UINT32_MAX && push(c, s);
    }
    }
}

/* rule -> alternatives of its body, each lowered in place. */
static bool lower_rule(lower_ctx *c, uint32_t r)
{
    c->cur_rule = r;
    const gbnf_node *body = &c->ast->nodes[c->ast->rules[r].body];
    uint32_t n_alt = body->kind == GBNF_ALT ? body->n_kids : 1;
    for (uint32_t i = 0; i < n_alt; i++) {
        uint32_t kid = body->kind == GBNF_ALT ? body->kids[i] : c->ast->rules[r].body;
        uint32_t mark = c->n_stack;
        if (!lower_into(c, kid) || !emit_from(c, r, mark))
            return false;
    }
    return true;
}

static void ctx_free(lower_ctx *c)
{
    free(c->stack);
    for (uint32_t i = 0; i < c->n_classes; i++)
        free(c->classes[i].ranges);
    free(c->classes);
    for (uint32_t i = 0; i < c->n_reps; i++)
        free(c->reps[i].chain);
    free(c->reps);
}

/* A token reference is lowered to the byte token_refs.h gave it; one that
 * was not resolved (no vocabulary) is an error at its position, so no
 * grammar silently loses it. */
static gcg_status refuse_token_refs(const gbnf_grammar *ast, gcg_diag *diag)
{
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; i < ast->n_nodes; i++) {
        const gbnf_node *nd = &ast->nodes[i];
        if (nd->kind != GBNF_TOKEN || nd->term_byte)
            continue;
        gcg_diag_add(diag, GCG_SEV_ERROR, nd->line, nd->col,
                     "a token reference needs a tokenizer vocabulary (--tokenizer, --tiktoken, --vocab-hex or --vocab)");
        st = GCG_ERR_FORMAT;
    }
    return st;
}

gcg_status gcg_lower_folding(const gbnf_grammar *ast, cfg *out, const gcg_limits *limits, uint32_t window,
                             gcg_diag *diag)
{
    gcg_status refused = refuse_token_refs(ast, diag);
    if (refused != GCG_OK) {
        cfg_init(out);
        return refused;
    }
    lower_ctx c = {.ast = ast, .g = out, .diag = diag, .limits = gcg_limits_or_default(limits), .window = window};
    cfg_init(out);
    for (uint32_t r = 0; r < ast->n_rules; r++)
        if (cfg_add_nt(out, ast->rules[r].name, CFG_NT_RULE, r) == UINT32_MAX)
            fail(&c, GCG_ERR_NOMEM);
    uint32_t start = c.st == GCG_OK ? cfg_add_nt(out, "$start", CFG_NT_START, UINT32_MAX) : UINT32_MAX;
    if (start == UINT32_MAX) {
        fail(&c, GCG_ERR_NOMEM);
    } else {
        out->start = start;
        uint32_t root = ast->root;
        if (cfg_add_prod(out, start, &root, 1) == UINT32_MAX)
            fail(&c, GCG_ERR_NOMEM);
    }
    for (uint32_t r = 0; r < ast->n_rules && c.st == GCG_OK; r++)
        if (ast->rules[r].body != UINT32_MAX)
            lower_rule(&c, r);
    ctx_free(&c);
    if (c.st != GCG_OK)
        cfg_free(out);
    return c.st;
}

gcg_status gcg_lower(const gbnf_grammar *ast, cfg *out, const gcg_limits *limits, gcg_diag *diag)
{
    return gcg_lower_folding(ast, out, limits, 0, diag);
}
