/* lr_report.c — states, items and conflicts as text (see lr_report.h). */
#include <stdlib.h>
#include <string.h>

#include "artifact_format.h"
#include "lr_report.h"

/* An LR(0) item: production and dot position, packed for sorting. */
#define ITEM(p, d) (((uint64_t)(p) << 32) | (uint32_t)(d))
#define ITEM_PROD(i) ((uint32_t)((i) >> 32))
#define ITEM_DOT(i) ((uint32_t)(i))

/* A set of items (sorted, no duplicates once closed). */
typedef struct items {
    uint64_t *v;
    uint32_t n, cap;
} items;

typedef struct report {
    const cfg *g;
    const byteclass *bc;
    const lr_tables *lr;
    cfg_index ix;
    items *kernel;       /* per state; v NULL until the state is reached */
    uint32_t *queue;
    FILE *out;
} report;

static bool items_add(items *s, uint64_t it)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->v[i] == it)
            return true;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        uint64_t *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return false;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = it;
    return true;
}

/* The symbol after the dot, or UINT32_MAX at the end. */
static uint32_t next_symbol(const cfg *g, uint64_t it)
{
    const cfg_prod *p = &g->prods[ITEM_PROD(it)];
    return ITEM_DOT(it) < p->len ? g->rhs[p->rhs + ITEM_DOT(it)] : UINT32_MAX;
}

/* Closure: every production of a nonterminal after a dot, at dot 0. */
static bool closure(const report *r, items *s)
{
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t x = next_symbol(r->g, s->v[i]);
        if (x == UINT32_MAX || CFG_IS_TERM(x))
            continue;
        for (uint32_t k = r->ix.first[x]; k < r->ix.first[x + 1]; k++)
            if (!items_add(s, ITEM(r->ix.list[k], 0)))
                return false;
    }
    return true;
}

static int cmp_item(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Whether symbol x is matched by byte class `cls` (term) or is nonterminal
 * `nt` (cls == UINT32_MAX). */
static bool moves_on(const report *r, uint32_t x, uint32_t cls, uint32_t nt)
{
    if (x == UINT32_MAX)
        return false;
    if (cls == UINT32_MAX)
        return x == nt;
    return CFG_IS_TERM(x) && bset_has(&r->bc->csets[CFG_INDEX(x)], cls);
}

/* Reaches state `to` from `from`'s closure on a class or a nonterminal:
 * its kernel is the items that move, advanced. */
static bool reach(report *r, const items *from, uint32_t to, uint32_t cls, uint32_t nt,
                  uint32_t *n_queue)
{
    if (to >= r->lr->n_states || r->kernel[to].v)
        return true;
    items *k = &r->kernel[to];
    for (uint32_t i = 0; i < from->n; i++)
        if (moves_on(r, next_symbol(r->g, from->v[i]), cls, nt) &&
            !items_add(k, from->v[i] + 1))
            return false;
    if (!k->v && !items_add(k, ITEM(0, 0))) /* no item moved: keep it marked reached */
        return false;
    qsort(k->v, k->n, sizeof *k->v, cmp_item);
    r->queue[(*n_queue)++] = to;
    return true;
}

/* The shift targets of one action cell. */
static uint32_t shifts(const lr_tables *lr, uint32_t a, uint32_t *to, uint32_t max)
{
    uint32_t n = 0;
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT)
        to[n++] = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_MULTI) {
        const uint32_t *m = lr->multi + GCG_ACT_ARG(a);
        for (uint32_t k = 1; k <= m[0] && n < max; k++)
            if (GCG_ACT_KIND(m[k]) == GCG_ACT_SHIFT)
                to[n++] = GCG_ACT_ARG(m[k]);
    }
    return n;
}

/* Breadth-first over the tables' transitions from state 0. */
static bool build_kernels(report *r)
{
    const lr_tables *lr = r->lr;
    uint32_t n_queue = 0, to[64];
    items from = {0};
    bool ok = items_add(&r->kernel[0], ITEM(0, 0));
    if (ok)
        r->queue[n_queue++] = 0;
    for (uint32_t h = 0; ok && h < n_queue; h++) {
        uint32_t q = r->queue[h];
        from.n = 0;
        for (uint32_t i = 0; ok && i < r->kernel[q].n; i++)
            ok = items_add(&from, r->kernel[q].v[i]);
        ok = ok && closure(r, &from);
        for (uint32_t c = 0; ok && c + 1 < lr->n_terms; c++) {
            uint32_t n = shifts(lr, lr_action(lr, q, c), to, 64);
            for (uint32_t k = 0; ok && k < n; k++)
                ok = reach(r, &from, to[k], c, UINT32_MAX, &n_queue);
        }
        for (uint32_t x = 0; ok && x < lr->n_nts; x++) {
            uint32_t t = lr_goto(lr, q, x);
            if (t != GCG_NO_GOTO)
                ok = reach(r, &from, t, UINT32_MAX, x, &n_queue);
        }
    }
    free(from.v);
    return ok;
}

/* ---- printing ----------------------------------------------------------------- */

static void print_byte(FILE *f, unsigned b)
{
    if (b > 0x20 && b < 0x7F && !strchr("[]\\-^", (int)b))
        fputc((int)b, f);
    else
        fprintf(f, "\\x%02X", b);
}

/* A set of bytes as a class, ranges collapsed: [a-z_]. */
static void print_bytes(FILE *f, const bool in[256])
{
    fputc('[', f);
    for (unsigned b = 0; b < 256; b++) {
        if (!in[b])
            continue;
        unsigned e = b;
        while (e + 1 < 256 && in[e + 1])
            e++;
        print_byte(f, b);
        if (e > b) {
            if (e > b + 1)
                fputc('-', f);
            print_byte(f, e);
        }
        b = e;
    }
    fputc(']', f);
}

static void print_symbol(const report *r, uint32_t x)
{
    if (!CFG_IS_TERM(x)) {
        fputs(r->g->nts[x].name, r->out);
        return;
    }
    bool in[256];
    for (unsigned b = 0; b < 256; b++)
        in[b] = bset_has(&r->g->tsets[CFG_INDEX(x)], b);
    print_bytes(r->out, in);
}

/* lhs ::= a b . c */
static void print_item(const report *r, uint32_t p, uint32_t dot)
{
    const cfg_prod *pr = &r->g->prods[p];
    fprintf(r->out, "%s ::=", r->g->nts[pr->lhs].name);
    for (uint32_t i = 0; i <= pr->len; i++) {
        if (i == dot)
            fputs(" .", r->out);
        if (i < pr->len) {
            fputc(' ', r->out);
            print_symbol(r, r->g->rhs[pr->rhs + i]);
        }
    }
}

static void print_entry(const report *r, uint32_t a)
{
    uint32_t arg = GCG_ACT_ARG(a);
    if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT) {
        fprintf(r->out, "shift %u", arg);
    } else if (arg == 0) {
        fputs("accept", r->out);
    } else {
        fprintf(r->out, "reduce %u (", arg);
        print_item(r, arg, UINT32_MAX);
        fputc(')', r->out);
    }
}

/* The classes (or $end) whose cell equals cell `t`, as one label. */
static void print_terminals(const report *r, uint32_t q, uint32_t t)
{
    const lr_tables *lr = r->lr;
    uint32_t a = lr_action(lr, q, t);
    bool in[256] = {false};
    for (uint32_t c = 0; c + 1 < lr->n_terms; c++)
        if (lr_action(lr, q, c) == a)
            for (unsigned b = 0; b < 256; b++)
                in[b] |= r->bc->class_of[b] == c;
    print_bytes(r->out, in);
    if (lr_action(lr, q, lr->n_terms - 1) == a)
        fputs(" $end", r->out);
}

/* One line per distinct action of the state, conflicts marked. */
static void print_actions(const report *r, uint32_t q)
{
    const lr_tables *lr = r->lr;
    for (uint32_t t = 0; t < lr->n_terms; t++) {
        uint32_t a = lr_action(lr, q, t);
        bool first = a != 0;
        for (uint32_t u = 0; first && u < t; u++)
            first = lr_action(lr, q, u) != a;
        if (!first)
            continue;
        fputs("    on ", r->out);
        if (t + 1 == lr->n_terms)
            fputs("$end", r->out);
        else
            print_terminals(r, q, t);
        if (GCG_ACT_KIND(a) != GCG_ACT_MULTI) {
            fputs(": ", r->out);
            print_entry(r, a);
            fputc('\n', r->out);
            continue;
        }
        fputs(": ** conflict **\n", r->out);
        const uint32_t *m = lr->multi + GCG_ACT_ARG(a);
        for (uint32_t k = 1; k <= m[0]; k++) {
            fputs("        ", r->out);
            print_entry(r, m[k]);
            fputc('\n', r->out);
        }
    }
}

static void print_state(const report *r, uint32_t q)
{
    const lr_tables *lr = r->lr;
    fprintf(r->out, "State %u:\n", q);
    if (!r->kernel[q].v)
        fputs("    (not reached from state 0)\n", r->out);
    for (uint32_t i = 0; i < r->kernel[q].n; i++) {
        fputs("    ", r->out);
        print_item(r, ITEM_PROD(r->kernel[q].v[i]), ITEM_DOT(r->kernel[q].v[i]));
        fputc('\n', r->out);
    }
    fputc('\n', r->out);
    print_actions(r, q);
    for (uint32_t x = 0; x < lr->n_nts; x++) {
        uint32_t t = lr_goto(lr, q, x);
        if (t != GCG_NO_GOTO)
            fprintf(r->out, "    goto %s: %u\n", r->g->nts[x].name, t);
    }
    fputc('\n', r->out);
}

gcg_status gcg_lr_report(const cfg *g, const byteclass *bc, const lr_tables *lr, FILE *out)
{
    report r = {.g = g, .bc = bc, .lr = lr, .out = out};
    if (cfg_index_build(g, &r.ix) != GCG_OK)
        return GCG_ERR_NOMEM;
    r.kernel = calloc(lr->n_states, sizeof *r.kernel);
    r.queue = malloc(((size_t)lr->n_states + 1) * sizeof *r.queue);
    bool ok = r.kernel && r.queue && build_kernels(&r);
    if (ok) {
        fprintf(out, "%u states, %u shift/reduce and %u reduce/reduce conflict cells\n\n",
                lr->n_states, lr->sr_conflicts, lr->rr_conflicts);
        for (uint32_t q = 0; q < lr->n_states; q++)
            print_state(&r, q);
    }
    for (uint32_t q = 0; r.kernel && q < lr->n_states; q++)
        free(r.kernel[q].v);
    free(r.kernel);
    free(r.queue);
    cfg_index_free(&r.ix);
    if (!ok)
        return GCG_ERR_NOMEM;
    return ferror(out) ? GCG_ERR_IO : GCG_OK;
}
