/*
 * randgram.c — random grammars (randgram.h).
 *
 * A grammar is kept as a small tree of nodes (one array, kids by index) from
 * which both the GBNF text and random derivations are produced, so strings
 * never depend on the parser under test. Derivations are bounded by minimum
 * derivation heights (a least fixpoint): an alternative is only chosen if it
 * can still finish within the remaining depth budget, so a derivation never
 * fails once the start rule's height fits the budget.
 */
#include "randgram.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RG_INF UINT32_MAX
#define RG_MAX_NODES 512
#define RG_MAX_KIDS 1024
#define RG_MAX_ALTS 8
#define RG_DEPTH 12 /* derivation depth budget (rule expansions) */
#define RG_HUGE 1000000u

typedef enum rg_kind { RG_LIT, RG_CLASS, RG_ANY, RG_REF, RG_SEQ, RG_ALT, RG_REP } rg_kind;

typedef struct rg_node {
    rg_kind kind;
    uint32_t a;         /* LIT: literal index; CLASS: class index; REF: rule */
    uint32_t first, n;  /* SEQ, ALT: kids[first .. first+n); REP: kids[first] */
    uint32_t min, max;  /* REP; max may be RG_INF                           */
} rg_node;

/* Literals and classes come from fixed tables: a tiny alphabet with
 * multi-byte members. A class lists its members among the sample code
 * points, which is all a derivation needs. */
static const char *const lits[] = {"a", "b", "c", "ab", "ba", "abc", "é", "€", "a€", "😀"};
#define N_LITS (sizeof lits / sizeof *lits)

static const char *const samples[] = {"a", "b", "c", "x", "é", "ê", "€", "😀", "\n"};
#define N_SAMPLES (sizeof samples / sizeof *samples)

typedef struct rg_class {
    const char *text;
    const char *members; /* 1 per sample: is samples[i] in the class */
} rg_class;

static const rg_class classes[] = {
    {"[a-b]", "110000000"},   {"[^a]", "011111111"},  {"[bc]", "011000000"},
    {"[a-cé]", "111010000"},  {"[^a-c]", "000111111"}, {"[é-ê]", "000011000"},
    {"[€a]", "100000100"},    {"[^a\\n€]", "011111010"},
};
#define N_CLASSES (sizeof classes / sizeof *classes)

struct rg_grammar {
    rg_node nodes[RG_MAX_NODES];
    uint32_t n_nodes;
    uint32_t kids[RG_MAX_KIDS];
    uint32_t n_kids;
    uint32_t body[RG_MAX_RULES];
    uint32_t n_rules;
    uint32_t height[RG_MAX_NODES]; /* minimum derivation height, RG_HUGE = none */
    char *text;
    size_t len, cap;
    uint64_t rng;
    bool full; /* ran out of node or kid slots: stop growing */
};

uint64_t rg_rand(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t below(uint64_t *rng, uint32_t n)
{
    return (uint32_t)(rg_rand(rng) % n);
}

static bool chance(uint64_t *rng, uint32_t percent)
{
    return below(rng, 100) < percent;
}

/* ------------------------------------------------------------------ */
/* Building the tree                                                    */
/* ------------------------------------------------------------------ */

static uint32_t add_node(rg_grammar *g, rg_node nd)
{
    if (g->n_nodes == RG_MAX_NODES) {
        g->full = true;
        return 0; /* node 0 is always a literal: a safe stand-in */
    }
    g->nodes[g->n_nodes] = nd;
    return g->n_nodes++;
}

/* A SEQ or ALT over the given kids (copied). */
static uint32_t add_list(rg_grammar *g, rg_kind kind, const uint32_t *kids, uint32_t n)
{
    if (g->n_kids + n > RG_MAX_KIDS) {
        g->full = true;
        return 0;
    }
    if (n)
        memcpy(g->kids + g->n_kids, kids, n * sizeof *kids);
    uint32_t id = add_node(g, (rg_node){kind, 0, g->n_kids, n, 0, 0});
    g->n_kids += n;
    return id;
}

static uint32_t lit(rg_grammar *g, uint32_t i)
{
    return add_node(g, (rg_node){RG_LIT, i, 0, 0, 0, 0});
}

static uint32_t ref(rg_grammar *g, uint32_t rule)
{
    return add_node(g, (rg_node){RG_REF, rule, 0, 0, 0, 0});
}

static uint32_t rep(rg_grammar *g, uint32_t kid, uint32_t min, uint32_t max)
{
    if (g->n_kids == RG_MAX_KIDS) {
        g->full = true;
        return 0;
    }
    g->kids[g->n_kids] = kid;
    uint32_t id = add_node(g, (rg_node){RG_REP, 0, g->n_kids, 1, min, max});
    g->n_kids++;
    return id;
}

static uint32_t empty(rg_grammar *g)
{
    return add_list(g, RG_SEQ, NULL, 0);
}

static uint32_t gen_alt(rg_grammar *g, uint32_t depth);

/* item -> primary [suffix] */
static uint32_t gen_item(rg_grammar *g, uint32_t depth)
{
    uint64_t *r = &g->rng;
    uint32_t k = below(r, 100), p;
    if (k < 38 || g->full)
        p = lit(g, below(r, N_LITS));
    else if (k < 53)
        p = add_node(g, (rg_node){RG_CLASS, below(r, N_CLASSES), 0, 0, 0, 0});
    else if (k < 56)
        p = add_node(g, (rg_node){RG_ANY, 0, 0, 0, 0, 0});
    else if (k < 84 || depth >= 2)
        p = ref(g, below(r, g->n_rules));
    else
        p = gen_alt(g, depth + 1);
    k = below(r, 100);
    if (k < 55)
        return p;
    if (k < 65)
        return rep(g, p, 0, RG_INF);
    if (k < 75)
        return rep(g, p, 1, RG_INF);
    if (k < 85)
        return rep(g, p, 0, 1);
    uint32_t m = below(r, 3), n = m + below(r, 3);
    switch (below(r, 4)) {
    case 0: /* {m}; every fourth over a literal or class long enough to be
             * a chain (lower.c, EXACT_CHAIN), drawing nothing from r */
        if (g->nodes[p].kind <= RG_ANY && g->n_nodes % 4 == 1)
            return rep(g, p, 20 + g->n_nodes % 8, 20 + g->n_nodes % 8);
        return rep(g, p, m, m);
    case 1: return rep(g, p, m, RG_INF);    /* {m,}  */
    case 2: return rep(g, p, m, n);         /* {m,n} */
    default: /* {,n}; every fourth over a literal or class long enough to
              * count (count_fold.h), drawing nothing from r, so the other
              * grammars stay as they were */
        if (g->nodes[p].kind <= RG_ANY && g->n_nodes % 4 == 0)
            return rep(g, p, 0, 20 + g->n_nodes % 40);
        return rep(g, p, 0, n + 1);
    }
}

/* sequence -> item* (0..3 items; empty only where the printer allows it) */
static uint32_t gen_seq(rg_grammar *g, uint32_t depth, bool may_be_empty)
{
    uint32_t n = below(&g->rng, 4), v[3];
    if (n == 0 && !may_be_empty)
        n = 1;
    for (uint32_t i = 0; i < n; i++)
        v[i] = gen_item(g, depth);
    return n == 1 ? v[0] : add_list(g, RG_SEQ, v, n);
}

/* alternation -> sequence ("|" sequence)* (1..3 alternatives). An empty
 * alternative is never last: "x |" at the end of a line continues the rule. */
static uint32_t gen_alt(rg_grammar *g, uint32_t depth)
{
    uint32_t n = 1 + below(&g->rng, 3), v[3];
    for (uint32_t i = 0; i < n; i++)
        v[i] = gen_seq(g, depth, i + 1 < n && chance(&g->rng, 15));
    return n == 1 ? v[0] : add_list(g, RG_ALT, v, n);
}

/* A rule body: a random alternation, or one of the shapes that stress
 * parsers, as a list of alternatives (so unit cycles can be added later).
 * Every random choice is its own statement: C leaves the order of argument
 * evaluation open, and a seed must mean the same grammar for every compiler. */
static uint32_t gen_shape(rg_grammar *g, uint32_t self, uint32_t *alts)
{
    uint64_t *r = &g->rng;
    uint32_t other = below(r, g->n_rules), v[3];
    switch (below(r, 9)) {
    case 0: /* left recursion: X ::= X s | s' */
        v[0] = ref(g, self);
        v[1] = gen_seq(g, 1, false);
        alts[0] = add_list(g, RG_SEQ, v, 2);
        alts[1] = gen_seq(g, 1, false);
        return 2;
    case 1: /* right recursion: X ::= s X | s' */
        v[0] = gen_seq(g, 1, false);
        v[1] = ref(g, self);
        alts[0] = add_list(g, RG_SEQ, v, 2);
        alts[1] = gen_seq(g, 1, false);
        return 2;
    case 2: /* hidden left recursion: X ::= Y? X s | s' */
        v[0] = rep(g, ref(g, other), 0, 1);
        v[1] = ref(g, self);
        v[2] = gen_item(g, 1);
        alts[0] = add_list(g, RG_SEQ, v, 3);
        alts[1] = gen_seq(g, 1, false);
        return 2;
    case 3: { /* nullable under repetition: X ::= (s?)* s' or (s?)+ s' */
        uint32_t inner = rep(g, gen_item(g, 1), 0, 1);
        uint32_t min = below(r, 2);
        v[0] = rep(g, inner, min, RG_INF);
        v[1] = gen_item(g, 1);
        alts[0] = add_list(g, RG_SEQ, v, 2);
        return 1;
    }
    case 4: /* empty alternative: X ::= | s */
        alts[0] = empty(g);
        alts[1] = gen_seq(g, 1, false);
        return 2;
    case 5: /* recursion through the middle: X ::= "a" Y "b" | "c" */
        v[0] = lit(g, 0);
        v[1] = ref(g, other);
        v[2] = lit(g, 1);
        alts[0] = add_list(g, RG_SEQ, v, 3);
        alts[1] = lit(g, 2);
        return 2;
    default:
        alts[0] = gen_alt(g, 0);
        return 1;
    }
}

/* Unit cycles: X ::= ... | Y and Y ::= ... | X. */
static void add_unit_cycle(rg_grammar *g, uint32_t alts[][RG_MAX_ALTS], uint32_t *n_alts)
{
    uint32_t x = below(&g->rng, g->n_rules), y = below(&g->rng, g->n_rules);
    if (n_alts[x] < RG_MAX_ALTS)
        alts[x][n_alts[x]++] = ref(g, y);
    if (n_alts[y] < RG_MAX_ALTS)
        alts[y][n_alts[y]++] = ref(g, x);
}

static void gen_rules(rg_grammar *g)
{
    uint32_t alts[RG_MAX_RULES][RG_MAX_ALTS], n_alts[RG_MAX_RULES];
    g->n_rules = 1 + below(&g->rng, RG_MAX_RULES);
    for (uint32_t i = 0; i < g->n_rules; i++)
        n_alts[i] = gen_shape(g, i, alts[i]);
    if (chance(&g->rng, 20))
        add_unit_cycle(g, alts, n_alts);
    for (uint32_t i = 0; i < g->n_rules; i++)
        g->body[i] = n_alts[i] == 1 ? alts[i][0] : add_list(g, RG_ALT, alts[i], n_alts[i]);
}

/* ------------------------------------------------------------------ */
/* GBNF text                                                            */
/* ------------------------------------------------------------------ */

static void put(rg_grammar *g, const char *s)
{
    size_t n = strlen(s);
    if (g->len + n + 1 > g->cap) {
        size_t c = g->cap ? g->cap * 2 : 256;
        while (c < g->len + n + 1)
            c *= 2;
        char *t = realloc(g->text, c);
        if (!t)
            return; /* text stays short; rg_generate checks */
        g->text = t;
        g->cap = c;
    }
    memcpy(g->text + g->len, s, n + 1);
    g->len += n;
}

static void print_node(rg_grammar *g, uint32_t id);

static void print_rule_name(rg_grammar *g, uint32_t rule)
{
    char name[16];
    if (rule == 0)
        snprintf(name, sizeof name, "root");
    else
        snprintf(name, sizeof name, "r%u", rule);
    put(g, name);
}

/* A node as an item: parenthesized unless it is a primary. */
static void print_item(rg_grammar *g, uint32_t id)
{
    rg_kind k = g->nodes[id].kind;
    bool paren = k == RG_SEQ || k == RG_ALT || k == RG_REP;
    if (paren)
        put(g, "(");
    print_node(g, id);
    if (paren)
        put(g, ")");
}

static void print_repeat(rg_grammar *g, const rg_node *nd)
{
    char b[32];
    print_item(g, g->kids[nd->first]);
    if (nd->min == 0 && nd->max == RG_INF)
        put(g, "*");
    else if (nd->min == 1 && nd->max == RG_INF)
        put(g, "+");
    else if (nd->min == 0 && nd->max == 1)
        put(g, "?");
    else {
        if (nd->max == RG_INF)
            snprintf(b, sizeof b, "{%u,}", nd->min);
        else if (nd->min == nd->max)
            snprintf(b, sizeof b, "{%u}", nd->min);
        else if (nd->min == 0)
            snprintf(b, sizeof b, "{,%u}", nd->max);
        else
            snprintf(b, sizeof b, "{%u,%u}", nd->min, nd->max);
        put(g, b);
    }
}

static void print_node(rg_grammar *g, uint32_t id)
{
    const rg_node *nd = &g->nodes[id];
    switch (nd->kind) {
    case RG_LIT: put(g, "\""); put(g, lits[nd->a]); put(g, "\""); break;
    case RG_CLASS: put(g, classes[nd->a].text); break;
    case RG_ANY: put(g, "."); break;
    case RG_REF: print_rule_name(g, nd->a); break;
    case RG_REP: print_repeat(g, nd); break;
    case RG_SEQ:
        for (uint32_t i = 0; i < nd->n; i++) {
            if (i)
                put(g, " ");
            uint32_t kid = g->kids[nd->first + i];
            if (g->nodes[kid].kind == RG_SEQ || g->nodes[kid].kind == RG_ALT)
                print_item(g, kid);
            else
                print_node(g, kid);
        }
        break;
    case RG_ALT:
        for (uint32_t i = 0; i < nd->n; i++) {
            put(g, i ? " | " : "");
            uint32_t kid = g->kids[nd->first + i];
            if (g->nodes[kid].kind == RG_ALT)
                print_item(g, kid);
            else
                print_node(g, kid);
        }
        break;
    }
}

static void print_grammar(rg_grammar *g)
{
    for (uint32_t i = 0; i < g->n_rules; i++) {
        print_rule_name(g, i);
        put(g, " ::= ");
        print_node(g, g->body[i]);
        put(g, "\n");
    }
}

/* ------------------------------------------------------------------ */
/* Minimum derivation heights                                           */
/* ------------------------------------------------------------------ */

static uint32_t node_height(const rg_grammar *g, const uint32_t *rule_h, const rg_node *nd)
{
    uint32_t h = 0;
    switch (nd->kind) {
    case RG_REF: return rule_h[nd->a] == RG_HUGE ? RG_HUGE : rule_h[nd->a] + 1;
    case RG_SEQ:
        for (uint32_t i = 0; i < nd->n; i++)
            if (g->height[g->kids[nd->first + i]] > h)
                h = g->height[g->kids[nd->first + i]];
        return h;
    case RG_ALT:
        h = RG_HUGE;
        for (uint32_t i = 0; i < nd->n; i++)
            if (g->height[g->kids[nd->first + i]] < h)
                h = g->height[g->kids[nd->first + i]];
        return h;
    case RG_REP: return nd->min == 0 ? 0 : g->height[g->kids[nd->first]];
    default: return 0;
    }
}

/* Least fixpoint from "nothing derivable" (RG_HUGE) downwards. */
static void compute_heights(rg_grammar *g)
{
    uint32_t rule_h[RG_MAX_RULES];
    for (uint32_t i = 0; i < g->n_nodes; i++)
        g->height[i] = RG_HUGE;
    for (uint32_t i = 0; i < g->n_rules; i++)
        rule_h[i] = RG_HUGE;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t i = 0; i < g->n_nodes; i++) {
            uint32_t h = node_height(g, rule_h, &g->nodes[i]);
            if (h < g->height[i])
                changed = (g->height[i] = h, true);
        }
        for (uint32_t i = 0; i < g->n_rules; i++)
            if (g->height[g->body[i]] < rule_h[i])
                changed = (rule_h[i] = g->height[g->body[i]], true);
    }
}

rg_grammar *rg_generate(uint64_t seed)
{
    rg_grammar *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->rng = seed;
    lit(g, 0); /* node 0: the stand-in used when the arrays are full */
    gen_rules(g);
    compute_heights(g);
    print_grammar(g);
    if (!g->text) {
        rg_free(g);
        return NULL;
    }
    return g;
}

void rg_free(rg_grammar *g)
{
    if (g)
        free(g->text);
    free(g);
}

const char *rg_text(const rg_grammar *g)
{
    return g->text;
}

/* ------------------------------------------------------------------ */
/* Derivations                                                          */
/* ------------------------------------------------------------------ */

/* Derivation output. `steps` bounds the nodes visited: nested nullable
 * repetitions can take exponentially many steps while emitting nothing. */
typedef struct out_buf {
    uint8_t *p;
    size_t n, cap;
    uint32_t steps;
    bool overflow;
} out_buf;

#define RG_MAX_STEPS 20000u

static void emit(out_buf *o, const char *s)
{
    size_t k = strlen(s);
    if (o->n + k > o->cap) {
        o->overflow = true;
        return;
    }
    memcpy(o->p + o->n, s, k);
    o->n += k;
}

static const char *class_member(const rg_class *c, uint64_t *rng)
{
    uint32_t pick[N_SAMPLES], n = 0;
    for (uint32_t i = 0; i < N_SAMPLES; i++)
        if (c->members[i] == '1')
            pick[n++] = i;
    return samples[pick[below(rng, n)]];
}

/* Derives node `id` with `budget` rule expansions left; only nodes whose
 * height fits the budget are ever chosen, so this always succeeds. */
static void derive(const rg_grammar *g, uint32_t id, uint32_t budget, uint64_t *rng, out_buf *o)
{
    const rg_node *nd = &g->nodes[id];
    if (++o->steps > RG_MAX_STEPS)
        o->overflow = true;
    if (o->overflow)
        return;
    switch (nd->kind) {
    case RG_LIT: emit(o, lits[nd->a]); return;
    case RG_CLASS: emit(o, class_member(&classes[nd->a], rng)); return;
    case RG_ANY: emit(o, samples[below(rng, N_SAMPLES)]); return;
    case RG_REF: derive(g, g->body[nd->a], budget - 1, rng, o); return;
    case RG_SEQ:
        for (uint32_t i = 0; i < nd->n; i++)
            derive(g, g->kids[nd->first + i], budget, rng, o);
        return;
    case RG_ALT: {
        uint32_t ok[RG_MAX_ALTS * 2], n = 0;
        for (uint32_t i = 0; i < nd->n && n < RG_MAX_ALTS * 2; i++)
            if (g->height[g->kids[nd->first + i]] <= budget)
                ok[n++] = g->kids[nd->first + i];
        derive(g, ok[below(rng, n)], budget, rng, o);
        return;
    }
    case RG_REP: {
        uint32_t kid = g->kids[nd->first], extra = nd->max == RG_INF ? 3 : nd->max - nd->min;
        uint32_t count = nd->min;
        if (g->height[kid] <= budget)
            count += below(rng, extra + 1);
        for (uint32_t i = 0; i < count; i++)
            derive(g, kid, budget, rng, o);
        return;
    }
    }
}

size_t rg_derive(const rg_grammar *g, uint64_t *rng, uint8_t *buf, size_t cap)
{
    if (g->height[g->body[0]] > RG_DEPTH)
        return SIZE_MAX;
    for (int attempt = 0; attempt < 8; attempt++) {
        out_buf o = {buf, 0, cap, 0, false};
        derive(g, g->body[0], RG_DEPTH, rng, &o);
        if (!o.overflow)
            return o.n;
    }
    return SIZE_MAX;
}

/* ------------------------------------------------------------------ */
/* Mutations                                                            */
/* ------------------------------------------------------------------ */

/* Bytes worth inserting: the alphabet, UTF-8 leads and continuations,
 * bytes that are never valid (C0, F5, FF), a surrogate lead (ED). */
static const uint8_t pool[] = {'a', 'b', 'c', 'x', '\n', 0xC3, 0xA9, 0xE2, 0x82, 0xAC,
                               0x80, 0xBF, 0xC0, 0xED, 0xA0, 0xF0, 0x9F, 0xF5, 0xFF};

static size_t mutate(uint64_t *rng, uint8_t *buf, size_t n, size_t cap)
{
    size_t at = n ? below(rng, (uint32_t)n + 1) : 0;
    switch (below(rng, 4)) {
    case 0: /* insert */
        if (n < cap) {
            memmove(buf + at + 1, buf + at, n - at);
            buf[at] = pool[below(rng, sizeof pool)];
            return n + 1;
        }
        return n;
    case 1: /* delete */
        if (at < n) {
            memmove(buf + at, buf + at + 1, n - at - 1);
            return n - 1;
        }
        return n;
    case 2: /* replace */
        if (at < n)
            buf[at] = pool[below(rng, sizeof pool)];
        return n;
    default: /* truncate, often inside a multi-byte sequence */
        return at;
    }
}

static size_t random_bytes(uint64_t *rng, uint8_t *buf, size_t cap)
{
    size_t n = below(rng, 7);
    if (n > cap)
        n = cap;
    for (size_t i = 0; i < n; i++)
        buf[i] = chance(rng, 70) ? "abc"[below(rng, 3)] : pool[below(rng, sizeof pool)];
    return n;
}

size_t rg_string(const rg_grammar *g, uint64_t *rng, uint8_t *buf, size_t cap)
{
    uint32_t mode = below(rng, 100);
    size_t n = mode < 90 ? rg_derive(g, rng, buf, cap) : SIZE_MAX;
    if (n == SIZE_MAX)
        return random_bytes(rng, buf, cap);
    if (mode < 45)
        return n;
    if (mode < 80) {
        for (uint32_t k = 1 + below(rng, 2); k > 0; k--)
            n = mutate(rng, buf, n, cap);
        return n;
    }
    return n ? below(rng, (uint32_t)n) : 0; /* a proper prefix */
}
