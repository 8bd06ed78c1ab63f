/* count.c — exact sentence and spelling counts by a subset construction
 * over the LR tables (method in count.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact_format.h"
#include "count.h"

#define DEAD UINT32_MAX          /* no configuration: the input is rejected */
#define UNKNOWN (UINT32_MAX - 1) /* transition not computed yet              */

/* ---- sets of uint32 sequences (stacks, configurations) ------------------- */

/* Interned sequences: ids in order of first insertion; seq(id) points into
 * a pool that moves on insertion (copy before adding). */
typedef struct seqset {
    uint32_t *pool;
    size_t n_pool, cap_pool;
    size_t *off;         /* n + 1 */
    uint32_t n, cap;
    uint32_t *slot;      /* open addressing: id + 1, 0 = empty */
    uint32_t n_slots;    /* power of two */
} seqset;

static void seqset_free(seqset *s)
{
    free(s->pool);
    free(s->off);
    free(s->slot);
    memset(s, 0, sizeof *s);
}

static void seqset_clear(seqset *s)
{
    s->n = 0;
    s->n_pool = 0;
    if (s->slot)
        memset(s->slot, 0, s->n_slots * sizeof *s->slot);
}

static const uint32_t *seq(const seqset *s, uint32_t id, uint32_t *len)
{
    *len = (uint32_t)(s->off[id + 1] - s->off[id]);
    return s->pool + s->off[id];
}

/* FNV-1a over the words. */
static uint32_t hash_words(const uint32_t *w, uint32_t n)
{
    uint32_t h = 2166136261u ^ n;
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ w[i]) * 16777619u;
    return h;
}

static bool seqset_rehash(seqset *s)
{
    uint32_t n_slots = s->n_slots ? s->n_slots * 2 : 64;
    uint32_t *slot = calloc(n_slots, sizeof *slot);
    if (!slot)
        return false;
    for (uint32_t id = 0; id < s->n; id++) {
        uint32_t len;
        const uint32_t *w = seq(s, id, &len);
        uint32_t h = hash_words(w, len) & (n_slots - 1);
        while (slot[h])
            h = (h + 1) & (n_slots - 1);
        slot[h] = id + 1;
    }
    free(s->slot);
    s->slot = slot;
    s->n_slots = n_slots;
    return true;
}

static bool seqset_grow(seqset *s, uint32_t len)
{
    if (s->n_pool + len > s->cap_pool) {
        size_t cap = s->cap_pool ? s->cap_pool * 2 : 1024;
        while (cap < s->n_pool + len)
            cap *= 2;
        uint32_t *p = realloc(s->pool, cap * sizeof *p);
        if (!p)
            return false;
        s->pool = p;
        s->cap_pool = cap;
    }
    if (s->n + 1 >= s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 64;
        size_t *o = realloc(s->off, ((size_t)cap + 1) * sizeof *o);
        if (!o)
            return false;
        s->off = o;
        s->cap = cap;
    }
    return (s->n + 1) * 2 <= s->n_slots || seqset_rehash(s);
}

/* Returns the id of w[0..len), adding it when new (*added); UINT32_MAX on
 * out of memory. */
static uint32_t seqset_add(seqset *s, const uint32_t *w, uint32_t len, bool *added)
{
    *added = false;
    if (!seqset_grow(s, len))
        return UINT32_MAX;
    if (s->n == 0)
        s->off[0] = 0;
    uint32_t h = hash_words(w, len) & (s->n_slots - 1);
    for (; s->slot[h]; h = (h + 1) & (s->n_slots - 1)) {
        uint32_t id = s->slot[h] - 1, l;
        const uint32_t *x = seq(s, id, &l);
        if (l == len && memcmp(x, w, len * sizeof *w) == 0)
            return id;
    }
    memcpy(s->pool + s->n_pool, w, len * sizeof *w);
    s->n_pool += len;
    s->slot[h] = s->n + 1;
    s->off[++s->n] = s->n_pool;
    *added = true;
    return s->n - 1;
}

/* ---- the configuration automaton ------------------------------------------- */

typedef struct counter {
    const lr_tables *lr;
    seqset configs;      /* a configuration: its stacks, each as [len, states...], sorted */
    uint32_t *trans;     /* configs.cap * n_classes: target, DEAD or UNKNOWN */
    int8_t *accepts;     /* per configuration: -1 unknown, 0, 1           */
    uint32_t cap_configs;
    seqset work, out;    /* scratch of one step                           */
    uint32_t *buf, cap_buf;
    uint32_t *order;     /* scratch: stack ids sorted                     */
    char *why;
    size_t why_len;
    gcg_status st;
} counter;

static bool limit(counter *c, const char *what, uint32_t n)
{
    snprintf(c->why, c->why_len, "more than %u %s; the grammar is too ambiguous to count", n,
             what);
    c->st = GCG_ERR_LIMIT;
    return false;
}

static bool nomem(counter *c)
{
    snprintf(c->why, c->why_len, "out of memory");
    c->st = GCG_ERR_NOMEM;
    return false;
}

/* Copies stack `id` of c->work into c->buf with one free slot after it. */
static bool load_stack(counter *c, uint32_t id, uint32_t *len)
{
    const uint32_t *w = seq(&c->work, id, len);
    if (*len + 1 > c->cap_buf) {
        uint32_t cap = (*len + 1) * 2;
        uint32_t *b = realloc(c->buf, cap * sizeof *b);
        if (!b)
            return nomem(c);
        c->buf = b;
        c->cap_buf = cap;
        w = seq(&c->work, id, len);
    }
    memcpy(c->buf, w, *len * sizeof *w);
    return true;
}

static bool add_to(counter *c, seqset *s, uint32_t len)
{
    bool added;
    if (seqset_add(s, c->buf, len, &added) == UINT32_MAX)
        return nomem(c);
    return s->n <= GCG_COUNT_MAX_STACKS || limit(c, "stacks", GCG_COUNT_MAX_STACKS);
}

/* One action on the stack in c->buf (len states) under terminal t: a shift
 * goes to c->out, a reduction back to c->work; *accept on accept. */
static bool apply(counter *c, uint32_t a, uint32_t len, uint32_t t, bool *accept)
{
    const lr_tables *lr = c->lr;
    uint32_t arg = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT) {
        c->buf[len] = arg;
        return add_to(c, &c->out, len + 1);
    }
    if (GCG_ACT_KIND(a) != GCG_ACT_REDUCE)
        return true;
    if (arg == 0) {
        *accept |= t == lr->n_terms - 1;
        return true;
    }
    uint32_t pop = lr->prod_len[arg];
    if (pop >= len)
        return true;
    uint32_t go = lr_goto(lr, c->buf[len - pop - 1], lr->prod_lhs[arg]);
    if (go == GCG_NO_GOTO)
        return true;
    uint32_t saved = c->buf[len - pop];
    c->buf[len - pop] = go;
    bool ok = add_to(c, &c->work, len - pop + 1);
    c->buf[len - pop] = saved;
    return ok;
}

/* The GLR closure of configuration `cfg` under terminal t: reductions to
 * a fixpoint (each distinct stack once), shifts into c->out. */
static bool closure(counter *c, uint32_t cfg, uint32_t t, bool *accept)
{
    seqset_clear(&c->work);
    seqset_clear(&c->out);
    *accept = false;
    uint32_t n;
    const uint32_t *w = seq(&c->configs, cfg, &n);
    for (size_t i = 0; i < n;) {
        bool added;
        uint32_t len = w[i];
        if (seqset_add(&c->work, w + i + 1, len, &added) == UINT32_MAX)
            return nomem(c);
        w = seq(&c->configs, cfg, &n);
        i += 1 + len;
    }
    const lr_tables *lr = c->lr;
    for (uint32_t id = 0; id < c->work.n; id++) {
        uint32_t len;
        if (!load_stack(c, id, &len))
            return false;
        uint32_t a = lr_action(lr, c->buf[len - 1], t);
        if (GCG_ACT_KIND(a) != GCG_ACT_MULTI) {
            if (!apply(c, a, len, t, accept))
                return false;
            continue;
        }
        const uint32_t *m = lr->multi + GCG_ACT_ARG(a);
        for (uint32_t k = 1; k <= m[0]; k++)
            if (!apply(c, m[k], len, t, accept))
                return false;
    }
    return true;
}

static int cmp_seq(const seqset *s, uint32_t x, uint32_t y)
{
    uint32_t lx, ly;
    const uint32_t *a = seq(s, x, &lx), *b = seq(s, y, &ly);
    for (uint32_t i = 0; i < lx && i < ly; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return (lx > ly) - (lx < ly);
}

static bool reserve_configs(counter *c, uint32_t n_classes)
{
    if (c->configs.n <= c->cap_configs)
        return true;
    if (c->configs.n > GCG_COUNT_MAX_CONFIGS)
        return limit(c, "configurations", GCG_COUNT_MAX_CONFIGS);
    uint32_t cap = c->cap_configs ? c->cap_configs * 2 : 256;
    uint32_t *tr = realloc(c->trans, (size_t)cap * n_classes * sizeof *tr);
    int8_t *acc = tr ? realloc(c->accepts, cap) : NULL;
    if (tr)
        c->trans = tr;
    if (!acc)
        return nomem(c);
    c->accepts = acc;
    for (size_t i = (size_t)c->cap_configs * n_classes; i < (size_t)cap * n_classes; i++)
        tr[i] = UNKNOWN;
    memset(acc + c->cap_configs, -1, cap - c->cap_configs);
    c->cap_configs = cap;
    return true;
}

/* Interns c->out (sorted: a set has one spelling) as a configuration. */
static uint32_t intern_out(counter *c)
{
    if (c->out.n == 0)
        return DEAD;
    uint32_t *ord = realloc(c->order, c->out.n * sizeof *ord);
    size_t words = c->out.n_pool + c->out.n;
    uint32_t *flat = ord ? malloc(words * sizeof *flat) : NULL;
    if (ord)
        c->order = ord;
    if (!flat)
        return nomem(c), DEAD;
    for (uint32_t i = 0; i < c->out.n; i++) { /* insertion sort: configurations are small */
        uint32_t j = i;
        for (; j > 0 && cmp_seq(&c->out, ord[j - 1], i) > 0; j--)
            ord[j] = ord[j - 1];
        ord[j] = i;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < c->out.n; i++) {
        uint32_t len;
        const uint32_t *w = seq(&c->out, ord[i], &len);
        flat[k++] = len;
        memcpy(flat + k, w, len * sizeof *w);
        k += len;
    }
    bool added;
    uint32_t id = seqset_add(&c->configs, flat, (uint32_t)words, &added);
    free(flat);
    if (id == UINT32_MAX)
        return nomem(c), DEAD;
    return id;
}

/* The configuration after one byte of class `cls`, or DEAD. */
static uint32_t step(counter *c, uint32_t cfg, uint32_t cls, uint32_t n_classes)
{
    uint32_t *slot = &c->trans[(size_t)cfg * n_classes + cls];
    if (*slot != UNKNOWN)
        return *slot;
    bool accept;
    if (!closure(c, cfg, cls, &accept))
        return DEAD;
    uint32_t next = intern_out(c);
    if (c->st != GCG_OK || !reserve_configs(c, n_classes))
        return DEAD;
    c->trans[(size_t)cfg * n_classes + cls] = next; /* trans may have moved */
    return next;
}

/* Adds `count` to `total` when configuration `cfg` accepts at the end of
 * input; false when the closure hit a limit. */
static bool add_if_accepting(counter *c, uint32_t cfg, const mpz_t count, mpz_t total)
{
    if (c->accepts[cfg] < 0) {
        bool accept = false;
        if (!closure(c, cfg, c->lr->n_terms - 1, &accept))
            return false;
        c->accepts[cfg] = accept;
    }
    if (c->accepts[cfg] == 1)
        mpz_add(total, total, count);
    return true;
}

/* ---- the dynamic programs ------------------------------------------------------ */

/* Counts per configuration for one length; grown (and initialized) on use. */
typedef struct level {
    mpz_t *v;
    uint32_t n;
} level;

static bool level_at(level *l, uint32_t id, mpz_t **out)
{
    if (id >= l->n) {
        uint32_t n = id + 1 > l->n * 2 ? id + 1 : l->n * 2;
        mpz_t *v = realloc(l->v, n * sizeof *v);
        if (!v)
            return false;
        for (uint32_t i = l->n; i < n; i++)
            mpz_init(v[i]);
        l->v = v;
        l->n = n;
    }
    *out = &l->v[id];
    return true;
}

static void level_free(level *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        mpz_clear(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

/* sentences: levels[k][C] = number of k-byte strings leading to C. */
static bool count_sentences(counter *c, const byteclass *bc, uint32_t n, mpz_t total)
{
    uint32_t weight[256] = {0};
    for (int b = 0; b < 256; b++)
        weight[bc->class_of[b]]++;
    level cur = {0}, next = {0};
    mpz_t *x, *y;
    bool ok = level_at(&cur, 0, &x);
    if (ok)
        mpz_set_ui(*x, 1);
    for (uint32_t k = 0; ok && k <= n; k++) {
        for (uint32_t id = 0; ok && id < cur.n; id++) {
            if (mpz_sgn(cur.v[id]) == 0)
                continue;
            ok = add_if_accepting(c, id, cur.v[id], total);
            for (uint32_t cls = 0; ok && k < n && cls < bc->n_classes; cls++) {
                uint32_t d = weight[cls] ? step(c, id, cls, bc->n_classes) : DEAD;
                ok = c->st == GCG_OK && (d == DEAD || level_at(&next, d, &y) || nomem(c));
                if (ok && d != DEAD)
                    mpz_addmul_ui(*y, cur.v[id], weight[cls]);
            }
        }
        level t = cur;
        cur = next;
        next = t;
        for (uint32_t i = 0; i < next.n; i++)
            mpz_set_ui(next.v[i], 0);
    }
    level_free(&cur);
    level_free(&next);
    return ok && c->st == GCG_OK;
}

/* The configuration after a token's bytes, or DEAD. */
static uint32_t walk(counter *c, const byteclass *bc, uint32_t cfg, const uint8_t *s, uint32_t len)
{
    for (uint32_t i = 0; i < len && cfg != DEAD; i++)
        cfg = step(c, cfg, bc->class_of[s[i]], bc->n_classes);
    return cfg;
}

/* spellings: w[k][C] = number of token sequences of k bytes leading to C. */
static bool count_spellings(counter *c, const byteclass *bc, const gcg_vocab *v, uint32_t n,
                            mpz_t total)
{
    level *w = calloc((size_t)n + 1, sizeof *w);
    mpz_t *x;
    bool ok = w && level_at(&w[0], 0, &x);
    if (ok)
        mpz_set_ui(*x, 1);
    for (uint32_t k = 0; ok && k <= n; k++) {
        for (uint32_t id = 0; ok && id < w[k].n; id++) {
            if (mpz_sgn(w[k].v[id]) == 0)
                continue;
            ok = add_if_accepting(c, id, w[k].v[id], total);
            for (uint32_t t = 0; ok && t < v->n_tokens; t++) {
                uint32_t len = v->offsets[t + 1] - v->offsets[t];
                if (len == 0 || len > n - k)
                    continue;
                uint32_t d = walk(c, bc, id, v->bytes + v->offsets[t], len);
                ok = c->st == GCG_OK && (d == DEAD || level_at(&w[k + len], d, &x) || nomem(c));
                if (ok && d != DEAD)
                    mpz_add(*x, *x, w[k].v[id]);
            }
        }
        level_free(&w[k]);
    }
    for (uint32_t k = 0; w && k <= n; k++)
        level_free(&w[k]);
    free(w);
    return ok && c->st == GCG_OK;
}

gcg_status gcg_count(const lr_tables *lr, const byteclass *bc, const gcg_vocab *vocab, uint32_t n,
                     gcg_count_result *out, char *why, size_t why_len)
{
    counter c = {.lr = lr, .why = why, .why_len = why_len, .st = GCG_OK};
    why[0] = '\0';
    if (n > GCG_COUNT_MAX_LEN) {
        snprintf(why, why_len, "length %u above the limit %u", n, GCG_COUNT_MAX_LEN);
        return GCG_ERR_LIMIT;
    }
    mpz_init(out->sentences);
    mpz_init(out->spellings);
    uint32_t start[2] = {1, 0}; /* one stack: the start state */
    bool added, ok = seqset_add(&c.configs, start, 2, &added) == 0 || nomem(&c);
    ok = ok && reserve_configs(&c, bc->n_classes);
    ok = ok && count_sentences(&c, bc, n, out->sentences);
    ok = ok && (!vocab || count_spellings(&c, bc, vocab, n, out->spellings));
    seqset_free(&c.configs);
    seqset_free(&c.work);
    seqset_free(&c.out);
    free(c.trans);
    free(c.accepts);
    free(c.buf);
    free(c.order);
    if (!ok) {
        gcg_count_result_free(out);
        return c.st == GCG_OK ? GCG_ERR_NOMEM : c.st;
    }
    return GCG_OK;
}

void gcg_count_result_free(gcg_count_result *r)
{
    mpz_clear(r->sentences);
    mpz_clear(r->spellings);
}
