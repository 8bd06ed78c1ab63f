/* triggers.c — trigger words and patterns into byte DFAs (see triggers.h):
 * a recursive-descent parser of the regex subset into a small syntax tree,
 * Thompson's construction (1968) into an NFA — forwards, or backwards for
 * the reversed suffix DFA — and the subset construction (Rabin & Scott
 * 1959) into DFAs over the 256 bytes. */
#include <stdlib.h>
#include <string.h>

#include "../runtime/artifact_format.h"
#include "triggers.h"
#include "utf8_ranges.h"

#define NONE UINT32_MAX
#define INF UINT32_MAX
#define MAX_REPEAT 100

/* ---- syntax tree ---------------------------------------------------------- */

enum { RX_SET, RX_CAT, RX_ALT, RX_REP, RX_EMPTY };

/* A node; kids form a list through `next`. CAT uses its first `count` kids
 * (NONE: all). REP repeats its kid min..max times (max INF). */
typedef struct rx_node {
    uint8_t kind;
    bool cap;                  /* the first capture group                  */
    uint32_t kid, next, count;
    uint32_t min, max;
    uint32_t set;              /* RX_SET: index into sets                  */
} rx_node;

typedef struct bset { uint32_t w[8]; } bset;

typedef struct rx {
    rx_node *nodes;
    uint32_t n_nodes, cap_nodes;
    bset *sets;
    uint32_t n_sets, cap_sets;
    const char *s;             /* the pattern                              */
    size_t i, n;
    uint32_t depth, n_caps;
    uint32_t trigger;          /* 1-based, for messages                    */
    gcg_diag *diag;
    gcg_status st;
} rx;

static bool grow(void **p, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * elem);
    if (!q)
        return false;
    *p = q, *cap = c;
    return true;
}

static uint32_t rx_fail(rx *r, const char *what)
{
    if (r->st == GCG_OK) {
        gcg_diag_add(r->diag, GCG_SEV_ERROR, 0, 0, "trigger %u: pattern offset %zu: %s", r->trigger,
                     r->i, what);
        r->st = GCG_ERR_FORMAT;
    }
    return NONE;
}

static uint32_t new_node(rx *r, uint8_t kind)
{
    if (r->st != GCG_OK)
        return NONE;
    if (!grow((void **)&r->nodes, &r->cap_nodes, r->n_nodes + 1, sizeof *r->nodes)) {
        r->st = GCG_ERR_NOMEM;
        return NONE;
    }
    r->nodes[r->n_nodes] = (rx_node){kind, false, NONE, NONE, NONE, 1, 1, NONE};
    return r->n_nodes++;
}

static uint32_t new_set(rx *r, const bset *b)
{
    uint32_t k = new_node(r, RX_SET);
    if (k == NONE || !grow((void **)&r->sets, &r->cap_sets, r->n_sets + 1, sizeof *r->sets)) {
        r->st = r->st == GCG_OK ? GCG_ERR_NOMEM : r->st;
        return NONE;
    }
    r->sets[r->n_sets] = *b;
    r->nodes[k].set = r->n_sets++;
    return k;
}

static void bs_add(bset *b, unsigned lo, unsigned hi)
{
    for (unsigned c = lo; c <= hi; c++)
        b->w[c >> 5] |= 1u << (c & 31);
}

static void bs_not(bset *b)
{
    for (int k = 0; k < 8; k++)
        b->w[k] = ~b->w[k];
}

static bool bs_has(const bset *b, unsigned c)
{
    return b->w[c >> 5] >> (c & 31) & 1;
}

/* A CAT of the literal bytes s[0..n). */
static uint32_t literal(rx *r, const uint8_t *s, size_t n)
{
    uint32_t cat = new_node(r, RX_CAT), last = NONE;
    for (size_t k = 0; k < n && r->st == GCG_OK; k++) {
        bset b = {{0}};
        bs_add(&b, s[k], s[k]);
        uint32_t x = new_set(r, &b);
        if (x == NONE)
            break;
        if (last == NONE)
            r->nodes[cat].kid = x;
        else
            r->nodes[last].next = x;
        last = x;
    }
    return r->st == GCG_OK ? cat : NONE;
}

static int peek(const rx *r)
{
    return r->i < r->n ? (unsigned char)r->s[r->i] : -1;
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static long parse_hex(rx *r, int digits)
{
    long v = 0;
    for (int k = 0; k < digits; k++) {
        int h = hexval(peek(r));
        if (h < 0)
            return -1;
        v = v * 16 + h, r->i++;
    }
    return v;
}

/* escape -> \d \D \w \W \s \S (a class, *cp = -1) or one code point. */
static bool parse_escape(rx *r, bset *cls, long *cp)
{
    int c = peek(r);
    r->i++;
    *cp = -1;
    memset(cls, 0, sizeof *cls);
    switch (c) {
    case 'd': case 'D': bs_add(cls, '0', '9'); break;
    case 'w': case 'W': bs_add(cls, '0', '9'), bs_add(cls, 'a', 'z'), bs_add(cls, 'A', 'Z'), bs_add(cls, '_', '_'); break;
    case 's': case 'S': bs_add(cls, '\t', '\r'), bs_add(cls, ' ', ' '); break;
    case 'n': *cp = '\n'; return true;
    case 'r': *cp = '\r'; return true;
    case 't': *cp = '\t'; return true;
    case 'f': *cp = '\f'; return true;
    case 'v': *cp = '\v'; return true;
    case '0': *cp = 0; return true;
    case 'x': *cp = parse_hex(r, 2); return *cp >= 0 || (rx_fail(r, "\\x needs two hex digits"), false);
    case 'u': *cp = parse_hex(r, 4); return *cp >= 0 || (rx_fail(r, "\\u needs four hex digits"), false);
    default:
        if (c > 0 && c < 0x80 && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) {
            *cp = c;
            return true;
        }
        r->i--;
        rx_fail(r, c < 0 ? "pattern ends in a backslash"
                   : c == 'b' || c == 'B' ? "word boundaries (\\b, \\B) are not supported"
                   : c >= '1' && c <= '9' ? "back references are not supported"
                                         : "unknown escape");
        return false;
    }
    if (c == 'D' || c == 'W' || c == 'S')
        bs_not(cls);
    return true;
}

/* class -> "[" ["^"] { item ["-" item] } "]" over ASCII. */
static uint32_t parse_class(rx *r)
{
    bset b = {{0}};
    bool neg = peek(r) == '^';
    if (neg)
        r->i++;
    bool first = true;
    while (r->st == GCG_OK && (peek(r) != ']' || first)) {
        first = false;
        int c = peek(r);
        if (c < 0)
            return rx_fail(r, "unterminated character class");
        long lo = c;
        r->i++;
        if (c == '\\') {
            bset e;
            if (!parse_escape(r, &e, &lo))
                return NONE;
            if (lo < 0) {
                for (int k = 0; k < 8; k++)
                    b.w[k] |= e.w[k];
                continue;
            }
        }
        long hi = lo;
        if (peek(r) == '-' && r->i + 1 < r->n && r->s[r->i + 1] != ']') {
            r->i++;
            int d = peek(r);
            r->i++;
            bset e;
            if (d == '\\' && (!parse_escape(r, &e, &hi) || hi < 0))
                return hi < 0 ? rx_fail(r, "a class escape cannot end a range") : NONE;
            if (d != '\\')
                hi = d;
            if (hi < lo)
                return rx_fail(r, "range out of order in a character class");
        }
        if (hi >= 0x80)
            return rx_fail(r, "non-ASCII characters in a class are not supported");
        bs_add(&b, (unsigned)lo, (unsigned)hi);
    }
    r->i++; /* ']' */
    if (neg)
        bs_not(&b);
    return new_set(r, &b);
}

static uint32_t parse_alt(rx *r);

/* group -> "(" ["?:"] alt ")" */
static uint32_t parse_group(rx *r)
{
    bool capture = true;
    if (peek(r) == '?') {
        if (r->i + 1 < r->n && r->s[r->i + 1] == ':')
            r->i += 2, capture = false;
        else
            return rx_fail(r, "lookaround and named groups are not supported");
    }
    bool first_cap = capture && r->n_caps++ == 0;
    if (first_cap && r->depth > 0)
        return rx_fail(r, "the first capture group must be at the top level of the pattern");
    r->depth++;
    uint32_t k = parse_alt(r);
    r->depth--;
    if (r->st != GCG_OK)
        return NONE;
    if (peek(r) != ')')
        return rx_fail(r, "missing )");
    r->i++;
    uint32_t g = new_node(r, RX_CAT); /* a one-kid CAT marks the group */
    if (g != NONE)
        r->nodes[g].kid = k, r->nodes[g].cap = first_cap;
    return g;
}

/* atom -> literal | "." | class | group | escape */
static uint32_t parse_atom(rx *r)
{
    int c = peek(r);
    r->i++;
    bset b = {{0}};
    long cp = c;
    switch (c) {
    case '.':
        bs_add(&b, 0, 255);
        b.w[0] &= ~(1u << '\n' | 1u << '\r');
        return new_set(r, &b);
    case '[': return parse_class(r);
    case '(': return parse_group(r);
    case '^': case '$': r->i--; return rx_fail(r, "anchors (^, $) are not supported");
    case '*': case '+': case '?': case '{': r->i--; return rx_fail(r, "nothing to repeat");
    case '\\':
        if (!parse_escape(r, &b, &cp))
            return NONE;
        if (cp < 0)
            return new_set(r, &b);
        break;
    default: { /* a literal byte; UTF-8 is matched byte by byte */
        uint8_t u = (uint8_t)c;
        return literal(r, &u, 1);
    }
    }
    uint8_t u[4];
    int len = gcg_utf8_encode((uint32_t)cp, u);
    return literal(r, u, (size_t)len);
}

static bool parse_uint(rx *r, uint32_t *v)
{
    if (peek(r) < '0' || peek(r) > '9')
        return false;
    *v = 0;
    while (peek(r) >= '0' && peek(r) <= '9') {
        *v = *v * 10 + (uint32_t)(peek(r) - '0'), r->i++;
        if (*v > MAX_REPEAT)
            return false;
    }
    return true;
}

/* quantifier -> "*" | "+" | "?" | "{" m ["," [n]] "}", each optionally "?" */
static bool parse_quant(rx *r, uint32_t *min, uint32_t *max)
{
    int c = peek(r);
    if (c == '*' || c == '+' || c == '?') {
        *min = c == '+', *max = c == '?' ? 1 : INF;
        r->i++;
    } else if (c == '{') {
        r->i++;
        if (!parse_uint(r, min))
            return rx_fail(r, "repetition counts are 0..100"), false;
        *max = *min;
        if (peek(r) == ',') {
            r->i++;
            *max = INF;
            if (peek(r) != '}' && (!parse_uint(r, max) || *max < *min))
                return rx_fail(r, "repetition counts are 0..100, m <= n"), false;
        }
        if (peek(r) != '}')
            return rx_fail(r, "missing }"), false;
        r->i++;
    } else {
        return false;
    }
    if (peek(r) == '?')
        r->i++; /* lazy: the same set of matches */
    return true;
}

/* item -> atom { quantifier } */
static uint32_t parse_item(rx *r)
{
    uint32_t a = parse_atom(r), min, max;
    while (a != NONE && parse_quant(r, &min, &max)) {
        if (r->nodes[a].cap)
            return rx_fail(r, "the first capture group cannot be repeated");
        uint32_t q = new_node(r, RX_REP);
        if (q == NONE)
            return NONE;
        r->nodes[q].kid = a, r->nodes[q].min = min, r->nodes[q].max = max;
        a = q;
    }
    return r->st == GCG_OK ? a : NONE;
}

/* seq -> { item } */
static uint32_t parse_seq(rx *r)
{
    uint32_t cat = new_node(r, RX_CAT), last = NONE;
    while (r->st == GCG_OK && peek(r) >= 0 && peek(r) != '|' && peek(r) != ')') {
        uint32_t x = parse_item(r);
        if (x == NONE)
            return NONE;
        if (last == NONE)
            r->nodes[cat].kid = x;
        else
            r->nodes[last].next = x;
        last = x;
    }
    return r->st == GCG_OK ? cat : NONE;
}

/* alt -> seq { "|" seq } */
static uint32_t parse_alt(rx *r)
{
    uint32_t first = parse_seq(r);
    if (first == NONE || peek(r) != '|')
        return first;
    uint32_t alt = new_node(r, RX_ALT), last = first;
    if (alt == NONE)
        return NONE;
    r->nodes[alt].kid = first;
    while (peek(r) == '|') {
        r->i++;
        uint32_t x = parse_seq(r);
        if (x == NONE)
            return NONE;
        r->nodes[last].next = x, last = x;
    }
    return alt;
}

/* ---- Thompson NFA ----------------------------------------------------------- */

/* A state: a byte edge (set != NONE: on a byte of sets[set] go to `to`) and
 * up to two empty edges. */
typedef struct nfa_state {
    uint32_t set, to, e[2];
} nfa_state;

typedef struct nfa {
    nfa_state *s;
    uint32_t n, cap;
    const bset *sets;
    gcg_status st;
} nfa;

typedef struct frag { uint32_t in, out; } frag;

static uint32_t nfa_new(nfa *a)
{
    if (a->st != GCG_OK)
        return 0;
    if (a->n >= GCG_TRIGGER_MAX_NFA) {
        a->st = GCG_ERR_LIMIT;
        return 0;
    }
    if (!grow((void **)&a->s, &a->cap, a->n + 1, sizeof *a->s)) {
        a->st = GCG_ERR_NOMEM;
        return 0;
    }
    a->s[a->n] = (nfa_state){NONE, NONE, {NONE, NONE}};
    return a->n++;
}

/* An empty edge from -> to (a state has two slots; a third goes through a
 * fresh state). */
static void eps(nfa *a, uint32_t from, uint32_t to)
{
    if (a->st != GCG_OK)
        return;
    if (a->s[from].e[0] == NONE)
        a->s[from].e[0] = to;
    else if (a->s[from].e[1] == NONE)
        a->s[from].e[1] = to;
    else {
        uint32_t x = nfa_new(a);
        if (a->st != GCG_OK)
            return;
        a->s[x].e[0] = a->s[from].e[1];
        a->s[x].e[1] = to;
        a->s[from].e[1] = x;
    }
}

static frag build(nfa *a, const rx *r, uint32_t node, bool rev);

/* The kids of a CAT, in order or reversed. */
static frag build_cat(nfa *a, const rx *r, const rx_node *x, bool rev)
{
    uint32_t kids[1024], n = 0;
    for (uint32_t k = x->kid; k != NONE && n < x->count; k = r->nodes[k].next) {
        if (n == 1024) {
            a->st = GCG_ERR_LIMIT;
            return (frag){0, 0};
        }
        kids[n++] = k;
    }
    uint32_t in = nfa_new(a), out = in;
    for (uint32_t j = 0; j < n && a->st == GCG_OK; j++) {
        frag f = build(a, r, kids[rev ? n - 1 - j : j], rev);
        eps(a, out, f.in);
        out = f.out;
    }
    return (frag){in, out};
}

static frag build_rep(nfa *a, const rx *r, const rx_node *x, bool rev)
{
    uint32_t in = nfa_new(a), out = in;
    for (uint32_t k = 0; k < x->min && a->st == GCG_OK; k++) {
        frag f = build(a, r, x->kid, rev);
        eps(a, out, f.in);
        out = f.out;
    }
    if (x->max == INF) { /* a loop: out -> f -> out */
        frag f = build(a, r, x->kid, rev);
        uint32_t end = nfa_new(a);
        eps(a, out, f.in), eps(a, f.out, f.in), eps(a, f.out, end), eps(a, out, end);
        return (frag){in, end};
    }
    uint32_t end = nfa_new(a);
    for (uint32_t k = x->min; k < x->max && a->st == GCG_OK; k++) { /* optional copies */
        frag f = build(a, r, x->kid, rev);
        eps(a, out, f.in), eps(a, out, end);
        out = f.out;
    }
    eps(a, out, end);
    return (frag){in, end};
}

static frag build(nfa *a, const rx *r, uint32_t node, bool rev)
{
    const rx_node *x = &r->nodes[node];
    if (a->st != GCG_OK)
        return (frag){0, 0};
    switch (x->kind) {
    case RX_SET: {
        uint32_t in = nfa_new(a), out = nfa_new(a);
        if (a->st == GCG_OK)
            a->s[in].set = x->set, a->s[in].to = out;
        return (frag){in, out};
    }
    case RX_CAT: return build_cat(a, r, x, rev);
    case RX_REP: return build_rep(a, r, x, rev);
    case RX_ALT: {
        uint32_t in = nfa_new(a), out = nfa_new(a);
        for (uint32_t k = x->kid; k != NONE && a->st == GCG_OK; k = r->nodes[k].next) {
            frag f = build(a, r, k, rev);
            eps(a, in, f.in), eps(a, f.out, out);
        }
        return (frag){in, out};
    }
    default: {
        uint32_t in = nfa_new(a);
        return (frag){in, in};
    }
    }
}

/* ---- subset construction ------------------------------------------------------ */

/* The DFAs of all triggers, numbered together: trans[q * 256 + b]. */
typedef struct dfa_out {
    uint32_t *trans;
    uint8_t *accept;
    uint32_t n, cap;
} dfa_out;

typedef struct subset {
    uint32_t *members;          /* all sets' members, concatenated          */
    uint32_t n_members, cap_members;
    uint32_t *start;            /* set k is members[start[k]..start[k+1])    */
    uint32_t n, cap_start;
    uint32_t *hash;             /* open addressing: set index + 1, 0 empty   */
    uint32_t hash_cap;
} subset;

static uint32_t set_hash(const uint32_t *m, uint32_t n)
{
    uint32_t h = 2166136261u;
    for (uint32_t k = 0; k < n; k++)
        h = (h ^ m[k]) * 16777619u;
    return h;
}

/* The sorted empty-edge closure of stack[0..n) (marks: scratch, n_nfa). */
static uint32_t closure(const nfa *a, uint32_t *stack, uint32_t n, uint8_t *mark, uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        mark[stack[i]] = 1;
    while (n) {
        uint32_t q = stack[--n];
        out[k++] = q;
        for (int j = 0; j < 2; j++) {
            uint32_t t = a->s[q].e[j];
            if (t != NONE && !mark[t])
                mark[t] = 1, stack[n++] = t;
        }
    }
    for (uint32_t i = 0; i < k; i++)
        mark[out[i]] = 0;
    return k;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* The index of the set m[0..n) (sorted), added when new; NONE on failure. */
static uint32_t intern(subset *s, const uint32_t *m, uint32_t n, bool *added)
{
    uint32_t h = set_hash(m, n) & (s->hash_cap - 1);
    for (;; h = (h + 1) & (s->hash_cap - 1)) {
        uint32_t k = s->hash[h];
        if (k == 0)
            break;
        k--;
        if (s->start[k + 1] - s->start[k] == n && memcmp(s->members + s->start[k], m, n * sizeof *m) == 0) {
            *added = false;
            return k;
        }
    }
    if (s->n >= GCG_TRIGGER_MAX_DFA)
        return NONE;
    if (!grow((void **)&s->members, &s->cap_members, s->n_members + n, sizeof *m) ||
        !grow((void **)&s->start, &s->cap_start, s->n + 2, sizeof *s->start))
        return NONE;
    memcpy(s->members + s->n_members, m, n * sizeof *m);
    s->start[s->n] = s->n_members;
    s->n_members += n;
    s->start[s->n + 1] = s->n_members;
    s->hash[h] = s->n + 1;
    *added = true;
    return s->n++;
}

/* Determinizes a (start state `in`, accepting state `acc`) into o; *start
 * receives the DFA's start state in o's numbering. */
static gcg_status determinize(const nfa *a, uint32_t in, uint32_t acc, dfa_out *o, uint32_t *start)
{
    subset s = {0};
    s.hash_cap = 2 * GCG_TRIGGER_MAX_DFA;
    s.hash = calloc(s.hash_cap, sizeof *s.hash);
    uint32_t *stack = malloc((size_t)a->n * sizeof *stack), *cl = malloc((size_t)a->n * sizeof *cl);
    uint8_t *mark = calloc(a->n, 1);
    gcg_status st = s.hash && stack && cl && mark ? GCG_OK : GCG_ERR_NOMEM;
    uint32_t base = o->n;
    bool added;
    if (st == GCG_OK) {
        stack[0] = in;
        uint32_t k = closure(a, stack, 1, mark, cl);
        qsort(cl, k, sizeof *cl, cmp_u32);
        if (intern(&s, cl, k, &added) == NONE)
            st = GCG_ERR_NOMEM;
    }
    for (uint32_t d = 0; st == GCG_OK && d < s.n; d++) {
        if (!grow((void **)&o->trans, &o->cap, (base + d + 1) * 256, sizeof *o->trans) ||
            !(o->accept = realloc(o->accept, (size_t)o->cap / 256 + 1))) {
            st = GCG_ERR_NOMEM;
            break;
        }
        o->accept[base + d] = 0;
        for (uint32_t i = s.start[d]; i < s.start[d + 1]; i++)
            o->accept[base + d] |= s.members[i] == acc;
        for (unsigned b = 0; b < 256 && st == GCG_OK; b++) {
            uint32_t n = 0;
            for (uint32_t i = s.start[d]; i < s.start[d + 1]; i++) {
                const nfa_state *q = &a->s[s.members[i]];
                if (q->set != NONE && bs_has(&a->sets[q->set], b) && !mark[q->to])
                    mark[q->to] = 1, stack[n++] = q->to;
            }
            for (uint32_t i = 0; i < n; i++)
                mark[stack[i]] = 0;
            uint32_t k = closure(a, stack, n, mark, cl);
            qsort(cl, k, sizeof *cl, cmp_u32);
            uint32_t t = intern(&s, cl, k, &added);
            if (t == NONE)
                st = s.n >= GCG_TRIGGER_MAX_DFA ? GCG_ERR_LIMIT : GCG_ERR_NOMEM;
            else
                o->trans[(size_t)(base + d) * 256 + b] = base + t;
        }
    }
    if (st == GCG_OK)
        o->n = base + s.n, *start = base;
    free(s.members), free(s.start), free(s.hash), free(stack), free(cl), free(mark);
    return st;
}

/* ---- one trigger ----------------------------------------------------------------- */

/* The DFA of `node` (reversed when rev), preceded by a loop on every byte
 * when searched; adds it to o, *start its start state. `count` limits a CAT
 * node to its first kids (NONE: all). */
static gcg_status dfa_of(const rx *r, uint32_t node, bool searched, bool rev, dfa_out *o,
                         uint32_t *start)
{
    nfa a = {0};
    a.sets = r->sets;
    uint32_t in = nfa_new(&a);
    frag f = build(&a, r, node, rev);
    eps(&a, in, f.in);
    if (searched && a.st == GCG_OK)
        a.s[in].set = r->n_sets, a.s[in].to = in; /* the extra "any byte" set */
    gcg_status st = a.st == GCG_OK ? determinize(&a, in, f.out, o, start) : a.st;
    free(a.s);
    return st;
}

/* Splits the pattern at its first capture group: *p = what precedes it
 * (a CAT limited to those kids), *q = the group and the rest. */
static void split(rx *r, uint32_t top, uint32_t *p, uint32_t *q)
{
    *p = new_node(r, RX_CAT), *q = top;
    if (*p == NONE || r->n_caps == 0)
        return;
    if (r->nodes[top].cap) { /* the whole pattern is the group */
        return;
    }
    uint32_t count = 0;
    for (uint32_t k = r->nodes[top].kid; k != NONE; k = r->nodes[k].next, count++)
        if (r->nodes[k].cap) {
            r->nodes[*p].kid = r->nodes[top].kid, r->nodes[*p].count = count;
            *q = new_node(r, RX_CAT);
            if (*q != NONE)
                r->nodes[*q].kid = k;
            return;
        }
}

/* Adds the three DFAs of one trigger (R = P (Q)) and its entry. */
static gcg_status add_trigger(rx *r, uint32_t top, bool anchored, dfa_out *o, gcg_trigger_entry *e)
{
    /* a one-byte set past the others: "any byte", for the search loops */
    bset all;
    memset(&all, 0xFF, sizeof all);
    if (!grow((void **)&r->sets, &r->cap_sets, r->n_sets + 1, sizeof *r->sets))
        return GCG_ERR_NOMEM;
    r->sets[r->n_sets] = all;
    uint32_t p, q;
    split(r, top, &p, &q);
    if (r->st != GCG_OK)
        return r->st;
    e->flags = anchored;
    gcg_status st = dfa_of(r, top, !anchored, false, o, &e->find);
    if (st == GCG_OK)
        st = dfa_of(r, p, !anchored, false, o, &e->prefix);
    if (st == GCG_OK)
        st = dfa_of(r, q, false, true, o, &e->suffix);
    return st;
}

/* Parses a pattern into r; the top node or NONE. */
static uint32_t parse_pattern(rx *r, const char *text)
{
    r->s = text, r->n = strlen(text), r->i = 0;
    uint32_t top = parse_alt(r);
    if (top != NONE && peek(r) == ')')
        return rx_fail(r, "unmatched )");
    if (top != NONE && r->n_caps && r->nodes[top].kind == RX_ALT)
        return rx_fail(r, "the first capture group must be at the top level of the pattern "
                          "(not inside an alternative)");
    return top;
}

/* Words w1|...|wn as literal alternatives. */
static uint32_t words_alt(rx *r, const gcgc_trigger *t, uint32_t n)
{
    uint32_t alt = new_node(r, RX_ALT), last = NONE;
    for (uint32_t i = 0; i < n && r->st == GCG_OK; i++) {
        if (t[i].kind != GCGC_TRIGGER_WORD)
            continue;
        uint32_t x = literal(r, (const uint8_t *)t[i].text, strlen(t[i].text));
        if (x == NONE)
            break;
        if (last == NONE)
            r->nodes[alt].kid = x;
        else
            r->nodes[last].next = x;
        last = x;
    }
    return r->st == GCG_OK ? alt : NONE;
}

static void rx_free(rx *r)
{
    free(r->nodes), free(r->sets);
    memset(r, 0, sizeof *r);
}

/* ---- the section ------------------------------------------------------------------ */

static gcg_status check_inputs(const gcgc_trigger *t, uint32_t n, uint32_t n_tokens, gcg_diag *diag)
{
    for (uint32_t i = 0; i < n; i++) {
        bool text = t[i].kind != GCGC_TRIGGER_TOKEN;
        const char *why = t[i].kind > GCGC_TRIGGER_TOKEN ? "unknown kind"
                        : text && (!t[i].text || !*t[i].text) ? "empty text"
                        : !text && t[i].token >= n_tokens ? "token id past the vocabulary"
                                                          : NULL;
        if (why) {
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "trigger %u: %s", i + 1, why);
            return GCG_ERR_FORMAT;
        }
    }
    return GCG_OK;
}

/* The first word (forced by a reasoning budget), or "". */
static const char *force_text(const gcgc_trigger *t, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (t[i].kind == GCGC_TRIGGER_WORD)
            return t[i].text;
    return "";
}

static gcg_status write_section(const gcgc_trigger *t, uint32_t n, const gcg_trigger_entry *e,
                                uint32_t n_e, const dfa_out *o, gcg_writer *w)
{
    uint32_t n_tok = 0;
    for (uint32_t i = 0; i < n; i++)
        n_tok += t[i].kind == GCGC_TRIGGER_TOKEN;
    const char *force = force_text(t, n);
    size_t flen = strlen(force);
    size_t size = 16 + 4 * (size_t)n_tok + sizeof *e * n_e + 1025 * (size_t)o->n + flen;
    size = (size + 3) / 4 * 4;
    uint8_t *buf = calloc(1, size);
    if (!buf)
        return GCG_ERR_NOMEM;
    uint32_t *h = (uint32_t *)buf;
    h[0] = n_e, h[1] = n_tok, h[2] = o->n, h[3] = (uint32_t)flen;
    uint32_t *tok = h + 4;
    for (uint32_t i = 0; i < n; i++)
        if (t[i].kind == GCGC_TRIGGER_TOKEN)
            *tok++ = t[i].token;
    memcpy(tok, e, sizeof *e * n_e);
    uint8_t *p = (uint8_t *)tok + sizeof *e * n_e;
    if (o->n) { /* none when every trigger is a token */
        memcpy(p, o->trans, 1024 * (size_t)o->n);
        memcpy(p + 1024 * (size_t)o->n, o->accept, o->n);
    }
    memcpy(p + 1025 * (size_t)o->n, force, flen);
    gcg_status st = gcg_writer_add(w, GCG_SEC_TRIGGERS, buf, size);
    free(buf);
    return st;
}

/* The entries: words first (one trigger), then each pattern. */
static gcg_status build_all(const gcgc_trigger *t, uint32_t n, gcg_trigger_entry *e, uint32_t *n_e,
                            dfa_out *o, gcg_diag *diag)
{
    gcg_status st = GCG_OK;
    *n_e = 0;
    bool words = false;
    for (uint32_t i = 0; i < n; i++)
        words |= t[i].kind == GCGC_TRIGGER_WORD;
    if (words) {
        rx r = {.diag = diag, .trigger = 1};
        uint32_t top = words_alt(&r, t, n);
        st = top == NONE ? r.st : add_trigger(&r, top, false, o, &e[(*n_e)++]);
        rx_free(&r);
    }
    for (uint32_t i = 0; i < n && st == GCG_OK; i++) {
        if (t[i].kind != GCGC_TRIGGER_PATTERN && t[i].kind != GCGC_TRIGGER_PATTERN_FULL)
            continue;
        rx r = {.diag = diag, .trigger = i + 1};
        uint32_t top = parse_pattern(&r, t[i].text);
        st = top == NONE ? r.st
                         : add_trigger(&r, top, t[i].kind == GCGC_TRIGGER_PATTERN_FULL, o, &e[(*n_e)++]);
        if (st == GCG_ERR_LIMIT)
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "trigger %u: pattern too large (limit %u NFA, %u DFA states)",
                         i + 1, GCG_TRIGGER_MAX_NFA, GCG_TRIGGER_MAX_DFA);
        rx_free(&r);
    }
    return st;
}

gcg_status gcg_triggers_emit(const gcgc_trigger *triggers, uint32_t n, uint32_t n_tokens,
                             gcg_writer *w, gcg_diag *diag)
{
    gcg_status st = check_inputs(triggers, n, n_tokens, diag);
    if (st != GCG_OK)
        return st;
    gcg_trigger_entry *e = calloc((size_t)n + 1, sizeof *e);
    dfa_out o = {0};
    uint32_t n_e = 0;
    st = e ? build_all(triggers, n, e, &n_e, &o, diag) : GCG_ERR_NOMEM;
    if (st == GCG_OK)
        st = write_section(triggers, n, e, n_e, &o, w);
    free(e), free(o.trans), free(o.accept);
    return st;
}
