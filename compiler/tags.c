/* tags.c — tagged regions as GBNF rules over an Aho–Corasick automaton (see
 * tags.h). The automaton is the textbook one (Aho & Corasick 1975: trie,
 * failure links by breadth-first search, goto completed into a full
 * transition function) over the code points that occur in the begin tags;
 * every other code point leads back to the initial state. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tags.h"
#include "utf8_ranges.h"

#define NONE UINT32_MAX

/* The automaton: states are trie nodes; delta[q * n_sigma + k] is the state
 * after sigma[k] from q; out[q] the tag ending at q (longest), or NONE. */
typedef struct ac {
    uint32_t *sigma, n_sigma;   /* distinct code points of the tags, ascending */
    uint32_t n_states;
    uint32_t *delta, *fail, *out, *depth;
    bool *live;                 /* free-text states: no tag ends there and the
                                   initial state reaches them through such states */
} ac;

/* A growable text buffer; `failed` records an allocation failure. */
typedef struct sbuf {
    char *p;
    size_t n, cap;
    bool failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (b->failed || k < 0)
        return;
    if (b->n + (size_t)k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + (size_t)k + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = true;
            return;
        }
        b->p = q, b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)k;
}

static void sb_append(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < b->n + n + 1)
            cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            b->failed = true;
            return;
        }
        b->p = q, b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

/* Strict UTF-8 decoding (gcg_utf8_decode). Returns the number of code
 * points, or -1 if invalid. */
static long decode_utf8(const char *s, uint32_t *cps)
{
    const uint8_t *p = (const uint8_t *)s;
    size_t left = strlen(s);
    long n = 0;
    while (left) {
        uint32_t c;
        int len = gcg_utf8_decode(p, left, &c);
        if (len == 0)
            return -1;
        if (cps)
            cps[n] = c;
        n++, p += len, left -= (size_t)len;
    }
    return n;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t sigma_index(const ac *a, uint32_t c)
{
    const uint32_t *k = bsearch(&c, a->sigma, a->n_sigma, sizeof c, cmp_u32);
    return k ? (uint32_t)(k - a->sigma) : NONE;
}

static void ac_free(ac *a)
{
    free(a->sigma), free(a->delta), free(a->fail), free(a->out), free(a->depth), free(a->live);
}

/* Trie of the tags (goto function), with out[] for the tags themselves. */
static void ac_trie(ac *a, uint32_t **cps, const long *lens, uint32_t n)
{
    a->n_states = 1;
    memset(a->delta, 0xFF, (size_t)a->n_states * a->n_sigma * sizeof *a->delta);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t q = 0;
        for (long k = 0; k < lens[i]; k++) {
            uint32_t *d = &a->delta[(size_t)q * a->n_sigma + sigma_index(a, cps[i][k])];
            if (*d == NONE) {
                *d = a->n_states++;
                memset(a->delta + (size_t)*d * a->n_sigma, 0xFF, a->n_sigma * sizeof *a->delta);
                a->out[*d] = NONE;
                a->depth[*d] = (uint32_t)k + 1;
            }
            q = *d;
        }
        if (a->out[q] == NONE)
            a->out[q] = i; /* a tag given twice opens as its first copy */
    }
}

/* Failure links breadth-first (trie states are numbered so that a parent
 * precedes its children, which is all BFS order needs here when processed by
 * depth), completing delta and inheriting the longest output. */
static gcg_status ac_links(ac *a)
{
    uint32_t *order = malloc((size_t)a->n_states * sizeof *order);
    if (!order)
        return GCG_ERR_NOMEM;
    uint32_t head = 0, tail = 0;
    a->fail[0] = 0;
    for (uint32_t k = 0; k < a->n_sigma; k++) {
        uint32_t *d = &a->delta[k];
        if (*d == NONE)
            *d = 0;
        else
            a->fail[*d] = 0, order[tail++] = *d;
    }
    while (head < tail) {
        uint32_t q = order[head++];
        if (a->out[q] == NONE)
            a->out[q] = a->out[a->fail[q]];
        for (uint32_t k = 0; k < a->n_sigma; k++) {
            uint32_t *d = &a->delta[(size_t)q * a->n_sigma + k];
            uint32_t via = a->delta[(size_t)a->fail[q] * a->n_sigma + k];
            if (*d == NONE)
                *d = via;
            else
                a->fail[*d] = via, order[tail++] = *d;
        }
    }
    free(order);
    return GCG_OK;
}

/* live[]: the states free text can be in (a fixpoint over the transitions). */
static void ac_live(ac *a)
{
    memset(a->live, 0, a->n_states * sizeof *a->live);
    a->live[0] = a->out[0] == NONE;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < a->n_states; p++)
            for (uint32_t k = 0; a->live[p] && k < a->n_sigma; k++) {
                uint32_t q = a->delta[(size_t)p * a->n_sigma + k];
                if (!a->live[q] && a->out[q] == NONE)
                    a->live[q] = changed = true;
            }
    }
}

/* Builds the automaton of the begin tags (already validated, decoded). */
static gcg_status ac_build(ac *a, uint32_t **cps, const long *lens, uint32_t n)
{
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += (size_t)lens[i];
    memset(a, 0, sizeof *a);
    a->sigma = malloc((total + 1) * sizeof *a->sigma);
    if (!a->sigma)
        return GCG_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        for (long k = 0; k < lens[i]; k++)
            a->sigma[a->n_sigma++] = cps[i][k];
    qsort(a->sigma, a->n_sigma, sizeof *a->sigma, cmp_u32);
    uint32_t u = 0;
    for (uint32_t k = 0; k < a->n_sigma; k++)
        if (u == 0 || a->sigma[u - 1] != a->sigma[k])
            a->sigma[u++] = a->sigma[k];
    a->n_sigma = u;
    size_t ns = total + 1;
    a->delta = malloc(ns * u * sizeof *a->delta);
    a->fail = malloc(ns * sizeof *a->fail);
    a->out = malloc(ns * sizeof *a->out);
    a->depth = malloc(ns * sizeof *a->depth);
    a->live = malloc(ns * sizeof *a->live);
    if (!a->delta || !a->fail || !a->out || !a->depth || !a->live)
        return GCG_ERR_NOMEM;
    a->out[0] = NONE, a->depth[0] = 0;
    ac_trie(a, cps, lens, n);
    gcg_status st = ac_links(a);
    if (st == GCG_OK)
        ac_live(a);
    return st;
}

/* ---- emitting the rules ------------------------------------------------- */

/* One code point inside a character class. */
static void put_cp(sbuf *b, uint32_t c)
{
    sb_printf(b, "\\U%08X", c);
}

/* The class of sigma members k with delta(p, sigma[k]) satisfying want(),
 * as runs of consecutive code points. Returns false when it is empty. */
static bool put_class(sbuf *b, const ac *a, uint32_t p, uint32_t target, bool negated)
{
    const uint32_t *row = a->delta + (size_t)p * a->n_sigma;
    bool any = false;
    for (uint32_t k = 0; k < a->n_sigma; k++) {
        bool hit = negated ? row[k] != 0 : row[k] == target;
        if (!hit)
            continue;
        uint32_t j = k;
        while (j + 1 < a->n_sigma && a->sigma[j + 1] == a->sigma[j] + 1 &&
               (negated ? row[j + 1] != 0 : row[j + 1] == target))
            j++;
        sb_printf(b, "%s", any ? "" : (negated ? "[^" : "["));
        put_cp(b, a->sigma[k]);
        if (j > k) {
            sb_printf(b, "-");
            put_cp(b, a->sigma[j]);
        }
        any = true;
        k = j;
    }
    if (any)
        sb_printf(b, "]");
    else if (negated)
        sb_printf(b, ".");
    return any || negated;
}

/* A GBNF literal of UTF-8 text (escaped code point by code point). */
static void put_literal(sbuf *b, const char *s)
{
    sb_printf(b, "\"");
    for (const uint8_t *p = (const uint8_t *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(b, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7F)
            sb_printf(b, "\\x%02X", *p);
        else
            sb_printf(b, "%c", *p);
    }
    sb_printf(b, "\"");
}

/* s<q> ::= alternatives over every predecessor p (free-text states only). */
static void emit_state(sbuf *b, const ac *a, const char *pre, uint32_t q)
{
    sb_printf(b, "%ss%u ::= %s", pre, q, q == 0 ? "" : "(");
    bool first = true;
    if (q == 0)
        sb_printf(b, "%sstart", pre), first = false;
    for (uint32_t p = 0; p < a->n_states; p++) {
        if (!a->live[p])
            continue;
        size_t mark = b->n;
        sb_printf(b, "%s%ss%u ", first ? "" : " | ", pre, p);
        if (put_class(b, a, p, q, q == 0))
            first = false;
        else
            b->n = mark;
    }
    sb_printf(b, "%s\n", q == 0 ? "" : ")");
}

/* open<i> ::= s<p> [c] for every step into a state whose tag is i. Returns
 * false when tag i can never open. */
static bool emit_open(sbuf *b, const ac *a, const char *pre, uint32_t i)
{
    size_t mark = b->n;
    sb_printf(b, "%sopen%u ::= (", pre, i);
    bool first = true;
    for (uint32_t p = 0; p < a->n_states; p++) {
        if (!a->live[p])
            continue;
        for (uint32_t q = 1; q < a->n_states; q++) {
            if (a->out[q] != i)
                continue;
            size_t m2 = b->n;
            sb_printf(b, "%s%ss%u ", first ? "" : " | ", pre, p);
            if (put_class(b, a, p, q, false))
                first = false;
            else
                b->n = m2;
        }
    }
    sb_printf(b, ")\n");
    if (first)
        b->n = mark;
    return !first;
}

/* A prefix for the generated names that no text of the grammar contains. */
static void pick_prefix(const char *src, size_t len, char pre[32])
{
    for (unsigned k = 0;; k++) {
        if (k)
            snprintf(pre, 32, "tags%u-", k);
        else
            snprintf(pre, 32, "tags-");
        size_t pl = strlen(pre);
        bool found = false;
        for (size_t i = 0; i + pl <= len && !found; i++)
            found = memcmp(src + i, pre, pl) == 0;
        if (!found)
            return;
    }
}

static bool valid_rule_name(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '-'))
            return false;
    return true;
}

/* Checks every tag; decodes the begin tags into cps[i] (lens[i] code points). */
static gcg_status check_tags(const gcgc_tag *tags, uint32_t n, uint32_t **cps, long *lens,
                             gcg_diag *diag)
{
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        const gcgc_tag *t = &tags[i];
        if (!t->begin || !t->end || !valid_rule_name(t->rule)) {
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "tag %u: %s", i + 1,
                         !t->begin || !t->end ? "begin and end tags must be given"
                                              : "the rule must be a rule name ([a-zA-Z0-9_-]+)");
            return GCG_ERR_FORMAT;
        }
        total += strlen(t->begin);
        lens[i] = decode_utf8(t->begin, NULL);
        if (lens[i] <= 0 || decode_utf8(t->end, NULL) < 0 || total > GCG_TAGS_MAX_BYTES) {
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "tag %u (\"%s\"): %s", i + 1, t->begin,
                         lens[i] == 0 ? "the begin tag is empty"
                         : total > GCG_TAGS_MAX_BYTES ? "begin tags too long (limit 4096 bytes in all)"
                                                      : "tags must be valid UTF-8");
            return GCG_ERR_FORMAT;
        }
        if (!(cps[i] = malloc((size_t)lens[i] * sizeof **cps)))
            return GCG_ERR_NOMEM;
        decode_utf8(t->begin, cps[i]);
    }
    return GCG_OK;
}

/* The rules themselves, appended to the user's grammar text in b. */
static gcg_status emit_rules(sbuf *b, const ac *a, const gcgc_tag *tags, uint32_t n,
                             bool eos_free_only, const char *pre, gcg_diag *diag)
{
    sb_printf(b, "\n%sroot ::= (", pre);
    bool first = true;
    for (uint32_t q = 0; q < a->n_states; q++)
        if (a->live[q])
            sb_printf(b, "%s%ss%u", first ? "" : " | ", pre, q), first = false;
    for (uint32_t i = 0; !eos_free_only && i < n; i++)
        sb_printf(b, " | %sopen%u %s", pre, i, tags[i].rule);
    sb_printf(b, ")\n%sstart ::= (\"\"", pre);
    for (uint32_t i = 0; i < n; i++) {
        sb_printf(b, " | %sopen%u %s ", pre, i, tags[i].rule);
        put_literal(b, tags[i].end);
    }
    sb_printf(b, ")\n");
    for (uint32_t q = 0; q < a->n_states; q++)
        if (a->live[q])
            emit_state(b, a, pre, q);
    for (uint32_t i = 0; i < n; i++) {
        if (!emit_open(b, a, pre, i)) {
            uint32_t j = 0;
            while (j < n && (j == i || !strstr(tags[i].begin, tags[j].begin)))
                j++;
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0,
                         "tag %u (\"%s\") can never open: begin tag \"%s\" always ends inside it first",
                         i + 1, tags[i].begin, j < n ? tags[j].begin : "?");
            return GCG_ERR_FORMAT;
        }
    }
    return b->failed ? GCG_ERR_NOMEM : GCG_OK;
}

gcg_status gcg_tags_wrap(const char *src, size_t len, const gcgc_tag *tags, uint32_t n,
                         bool eos_free_only, char **out, size_t *out_len, char **root,
                         gcg_diag *diag)
{
    *out = NULL, *root = NULL, *out_len = 0;
    if (n == 0 || !tags)
        return GCG_ERR_ARG;
    uint32_t **cps = calloc(n, sizeof *cps);
    long *lens = calloc(n, sizeof *lens);
    ac a;
    memset(&a, 0, sizeof a);
    sbuf b = {0};
    gcg_status st = cps && lens ? check_tags(tags, n, cps, lens, diag) : GCG_ERR_NOMEM;
    if (st == GCG_OK)
        st = ac_build(&a, cps, lens, n);
    char pre[32];
    pick_prefix(src, len, pre);
    if (st == GCG_OK) {
        sb_append(&b, src, len);
        st = b.failed ? GCG_ERR_NOMEM : emit_rules(&b, &a, tags, n, eos_free_only, pre, diag);
    }
    if (st == GCG_OK) {
        size_t pl = strlen(pre);
        *root = malloc(pl + 5);
        if (*root)
            snprintf(*root, pl + 5, "%sroot", pre);
        else
            st = GCG_ERR_NOMEM;
    }
    for (uint32_t i = 0; cps && i < n; i++)
        free(cps[i]);
    free(cps), free(lens);
    ac_free(&a);
    if (st != GCG_OK) {
        free(b.p);
        return st;
    }
    *out = b.p, *out_len = b.n;
    return GCG_OK;
}
