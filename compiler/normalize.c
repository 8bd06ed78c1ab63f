/* normalize.c — reduce the grammar, break ε-cycles and hidden left recursion,
 * collapse unit cycles, merge duplicates (see normalize.h for why). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "normalize.h"
#include "scc.h"

#define MAX_ROUNDS 16     /* ε-fix rounds; each removes every problem it sees */
#define CHUNK_NULLABLE 4  /* affected nullable symbols per alternative before splitting */

/* ---- productive and reachable ----------------------------------------- */

static void productive(const cfg *g, bool *prod_ok)
{
    memset(prod_ok, 0, g->n_nts);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            if (prod_ok[pr->lhs])
                continue;
            uint32_t k = 0;
            while (k < pr->len && (CFG_IS_TERM(g->rhs[pr->rhs + k]) || prod_ok[g->rhs[pr->rhs + k]]))
                k++;
            if (k == pr->len)
                prod_ok[pr->lhs] = changed = true;
        }
    }
}

/* Breadth-first from the start over kept productions. */
static gcg_status reachable(const cfg *g, const bool *keep, bool *seen)
{
    cfg_index ix;
    if (cfg_index_build(g, &ix) != GCG_OK)
        return GCG_ERR_NOMEM;
    uint32_t *queue = malloc((size_t)g->n_nts * sizeof *queue);
    if (!queue) {
        cfg_index_free(&ix);
        return GCG_ERR_NOMEM;
    }
    memset(seen, 0, g->n_nts);
    uint32_t head = 0, tail = 0;
    queue[tail++] = g->start;
    seen[g->start] = true;
    while (head < tail) {
        uint32_t a = queue[head++];
        for (uint32_t i = ix.first[a]; i < ix.first[a + 1]; i++) {
            const cfg_prod *pr = &g->prods[ix.list[i]];
            if (!keep[ix.list[i]])
                continue;
            for (uint32_t k = 0; k < pr->len; k++) {
                uint32_t s = g->rhs[pr->rhs + k];
                if (!CFG_IS_TERM(s) && !seen[s])
                    seen[s] = true, queue[tail++] = s;
            }
        }
    }
    free(queue);
    cfg_index_free(&ix);
    return GCG_OK;
}

/* Drops unproductive and unreachable symbols. With `ast`, warns about user
 * rules that can never match and fails if the start rule is one of them. */
static gcg_status reduce_grammar(cfg *g, const gbnf_grammar *ast, gcg_diag *diag)
{
    bool *ok = malloc(g->n_nts), *seen = malloc(g->n_nts);
    bool *keep = malloc(g->n_prods ? g->n_prods : 1);
    gcg_status st = ok && seen && keep ? GCG_OK : GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        productive(g, ok);
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            keep[p] = ok[pr->lhs];
            for (uint32_t k = 0; k < pr->len && keep[p]; k++)
                keep[p] = CFG_IS_TERM(g->rhs[pr->rhs + k]) || ok[g->rhs[pr->rhs + k]];
        }
        st = reachable(g, keep, seen);
    }
    if (st == GCG_OK && ast) {
        for (uint32_t a = 0; a < g->n_nts; a++)
            if (!ok[a] && g->nts[a].kind == CFG_NT_RULE && a != ast->root)
                gcg_diag_add(diag, GCG_SEV_WARNING, ast->rules[a].line, ast->rules[a].col,
                             "rule \"%s\" can never match (every alternative needs itself "
                             "or an empty class)", g->nts[a].name);
        if (!ok[g->start]) {
            gcg_diag_add(diag, GCG_SEV_ERROR, ast->rules[ast->root].line, ast->rules[ast->root].col,
                         "rule \"%s\" matches no text at all (the language is empty)",
                         ast->rules[ast->root].name);
            st = GCG_ERR_ARG;
        }
    }
    if (st == GCG_OK) {
        for (uint32_t p = 0; p < g->n_prods; p++)
            keep[p] = keep[p] && seen[g->prods[p].lhs];
        st = cfg_compact(g, keep);
    }
    free(ok), free(seen), free(keep);
    return st;
}

/* ---- ε-cycles and hidden left recursion -------------------------------- */

/* Edges A -> X_k of A -> X_1..X_n whose prefix X_1..X_{k-1} is nullable
 * (the left-corner relation) and, with `cyclic`, whose suffix is nullable
 * too (A => X_k, the relation whose cycles are A =>+ A). CSR form. */
static gcg_status corner_graph(const cfg *g, const bool *nullable, bool cyclic, uint32_t **firstp,
                               uint32_t **adjp)
{
    uint32_t n = g->n_nts;
    uint32_t *first = calloc((size_t)n + 2, sizeof *first);
    uint32_t *adj = malloc((size_t)(g->n_rhs ? g->n_rhs : 1) * sizeof *adj);
    if (!first || !adj) {
        free(first), free(adj);
        return GCG_ERR_NOMEM;
    }
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            const uint32_t *r = g->rhs + pr->rhs;
            uint32_t last_needed = pr->len; /* with `cyclic`: index of the last non-nullable item */
            for (uint32_t k = pr->len; cyclic && k > 0; k--)
                if (CFG_IS_TERM(r[k - 1]) || !nullable[r[k - 1]]) {
                    last_needed = k - 1;
                    break;
                }
            for (uint32_t k = 0; k < pr->len && !CFG_IS_TERM(r[k]); k++) {
                bool edge = !cyclic || last_needed == pr->len || last_needed == k;
                if (edge && pass == 0)
                    first[pr->lhs + 2]++;
                else if (edge)
                    adj[first[pr->lhs + 1]++] = r[k];
                if (!nullable[r[k]])
                    break;
            }
        }
        for (uint32_t a = 0; pass == 0 && a < n; a++)
            first[a + 2] += first[a + 1];
    }
    *firstp = first, *adjp = adj;
    return GCG_OK;
}

/* Strongly connected components of one corner graph. */
static gcg_status corner_sccs(const cfg *g, const bool *nullable, bool cyclic, uint32_t *comp)
{
    uint32_t *first, *adj, n_comp;
    gcg_status st = corner_graph(g, nullable, cyclic, &first, &adj);
    if (st != GCG_OK)
        return st;
    st = gcg_scc(g->n_nts, first, adj, comp, &n_comp);
    free(first), free(adj);
    return st;
}

/* Marks in `bad` the nullable symbols that stand in the context of a cycle:
 * the nullable prefix of a left-corner edge inside a left-corner cycle
 * (hidden left recursion), and the nullable rest of a production A -> ..X..
 * with X =>* A (A =>+ A). Returns the number marked. */
static uint32_t find_bad(const cfg *g, const bool *nullable, bool *bad, gcg_status *st)
{
    uint32_t n = g->n_nts, marked = 0;
    uint32_t *lc = malloc((size_t)(n ? n : 1) * sizeof *lc);
    uint32_t *cy = malloc((size_t)(n ? n : 1) * sizeof *cy);
    memset(bad, 0, n);
    *st = lc && cy ? corner_sccs(g, nullable, false, lc) : GCG_ERR_NOMEM;
    if (*st == GCG_OK)
        *st = corner_sccs(g, nullable, true, cy);
    for (uint32_t p = 0; p < g->n_prods && *st == GCG_OK; p++) {
        const cfg_prod *pr = &g->prods[p];
        const uint32_t *r = g->rhs + pr->rhs;
        for (uint32_t k = 0; k < pr->len && !CFG_IS_TERM(r[k]); k++) {
            bool rest_nullable = true;
            for (uint32_t j = k + 1; j < pr->len && rest_nullable; j++)
                rest_nullable = !CFG_IS_TERM(r[j]) && nullable[r[j]];
            bool hidden = k > 0 && lc[r[k]] == lc[pr->lhs];
            bool self = rest_nullable && pr->len > 1 && cy[r[k]] == cy[pr->lhs];
            for (uint32_t j = 0; j < pr->len; j++)
                if (((hidden && j < k) || (self && j != k)) && !CFG_IS_TERM(r[j]) && nullable[r[j]] &&
                    !bad[r[j]])
                    bad[r[j]] = true, marked++;
            if (!nullable[r[k]])
                break;
        }
    }
    free(lc), free(cy);
    return marked;
}

/* Splits alternatives with more than CHUNK_NULLABLE nullable symbols into a
 * sequence of chunk nonterminals, so the expansion below stays linear. */
static gcg_status chunk_long(cfg *g, const bool *nullable, bool *keep, bool *changed)
{
    uint32_t n0 = g->n_prods;
    for (uint32_t p = 0; p < n0; p++) {
        if (!keep[p])
            continue;
        uint32_t lhs = g->prods[p].lhs, len = g->prods[p].len, at = g->prods[p].rhs, k = 0;
        for (uint32_t i = 0; i < len; i++)
            k += !CFG_IS_TERM(g->rhs[at + i]) && nullable[g->rhs[at + i]];
        if (k <= CHUNK_NULLABLE)
            continue;
        uint32_t *heads = malloc((size_t)len * sizeof *heads), n_heads = 0;
        if (!heads)
            return GCG_ERR_NOMEM;
        for (uint32_t i = 0; i < len;) {
            uint32_t j = i, seen = 0;
            for (; j < len; j++) {
                uint32_t s = g->rhs[at + j];
                bool nul = !CFG_IS_TERM(s) && nullable[s];
                if (nul && seen == CHUNK_NULLABLE)
                    break;
                seen += nul;
            }
            char name[96];
            snprintf(name, sizeof name, "%s/chunk%u", g->nts[lhs].name, n_heads);
            uint32_t h = cfg_add_nt(g, name, CFG_NT_GROUP, g->nts[lhs].rule);
            if (h == UINT32_MAX || cfg_add_prod(g, h, g->rhs + at + i, j - i) == UINT32_MAX) {
                free(heads);
                return GCG_ERR_NOMEM;
            }
            heads[n_heads++] = h;
            i = j;
        }
        uint32_t np = cfg_add_prod(g, lhs, heads, n_heads);
        free(heads);
        if (np == UINT32_MAX)
            return GCG_ERR_NOMEM;
        keep[p] = false;
        *changed = true;
    }
    return GCG_OK;
}

/* Chunks until no alternative has more than CHUNK_NULLABLE nullable symbols
 * (the heads of one split can be nullable themselves, so this nests: each
 * pass divides the count by CHUNK_NULLABLE). *keepp grows with the grammar. */
static gcg_status chunk_all(cfg *g, bool **keepp)
{
    gcg_status st = GCG_OK;
    for (bool changed = true; changed && st == GCG_OK;) {
        changed = false;
        bool *nullable = malloc(g->n_nts ? g->n_nts : 1);
        if (!nullable)
            return GCG_ERR_NOMEM;
        cfg_nullable(g, nullable);
        uint32_t p0 = g->n_prods;
        st = chunk_long(g, nullable, *keepp, &changed);
        free(nullable);
        bool *k = realloc(*keepp, g->n_prods ? g->n_prods : 1);
        if (!k)
            return GCG_ERR_NOMEM;
        *keepp = k;
        for (uint32_t p = p0; p < g->n_prods; p++)
            k[p] = true;
    }
    return st;
}

/* Adds the variants of production p in which each item at a position with
 * sel[item] is either omitted or replaced by ne[item]; the others stay.
 * The left-hand side is `lhs`; with `nonempty`, the empty variant is left out. */
static gcg_status expand(cfg *g, cfg *out, uint32_t p, const bool *sel, const uint32_t *ne,
                         uint32_t lhs, bool nonempty)
{
    const cfg_prod pr = g->prods[p];
    uint32_t pos[CHUNK_NULLABLE + 1], k = 0, items[64];
    uint32_t *buf = pr.len <= 64 ? items : malloc((size_t)pr.len * sizeof *buf);
    if (!buf)
        return GCG_ERR_NOMEM;
    for (uint32_t i = 0; i < pr.len && k <= CHUNK_NULLABLE; i++) {
        uint32_t s = g->rhs[pr.rhs + i];
        if (!CFG_IS_TERM(s) && sel[s])
            pos[k++] = i;
    }
    gcg_status st = k > CHUNK_NULLABLE ? GCG_ERR_LIMIT : GCG_OK; /* chunk_long prevents it */
    for (uint32_t mask = 0; mask < (1u << k) && st == GCG_OK; mask++) {
        uint32_t n = 0, j = 0;
        for (uint32_t i = 0; i < pr.len; i++) {
            uint32_t s = g->rhs[pr.rhs + i];
            if (j < k && pos[j] == i) {
                if (mask & (1u << j))
                    buf[n++] = ne[s];
                j++;
            } else {
                buf[n++] = s;
            }
        }
        if (nonempty && n == 0)
            continue;
        if (cfg_add_prod(out, lhs, buf, n) == UINT32_MAX)
            st = GCG_ERR_NOMEM;
    }
    if (buf != items)
        free(buf);
    return st;
}

/* The symbols that need an ε-free twin: the bad ones, and every nullable
 * symbol in a production of a symbol that needs one (its twin's productions
 * use the twins of those). */
static gcg_status twin_closure(const cfg *g, const bool *nullable, bool *q)
{
    cfg_index ix;
    if (cfg_index_build(g, &ix) != GCG_OK)
        return GCG_ERR_NOMEM;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t a = 0; a < g->n_nts; a++) {
            for (uint32_t i = ix.first[a]; q[a] && i < ix.first[a + 1]; i++) {
                const cfg_prod *pr = &g->prods[ix.list[i]];
                for (uint32_t k = 0; k < pr->len; k++) {
                    uint32_t s = g->rhs[pr->rhs + k];
                    if (!CFG_IS_TERM(s) && nullable[s] && !q[s])
                        q[s] = changed = true;
                }
            }
        }
    }
    cfg_index_free(&ix);
    return GCG_OK;
}

/* One round of targeted ε-removal: every bad X gets an ε-free twin X', and
 * each occurrence of a bad X becomes "X' or nothing". X' is built by
 * classic ε-removal over its productions, which needs the twins of the
 * nullable symbols they use (twin_closure). */
static gcg_status remove_eps_of(cfg *g, const bool *bad_in)
{
    uint32_t n0 = g->n_nts, p0 = g->n_prods;
    bool *keep = malloc(p0 ? p0 : 1);
    if (!keep)
        return GCG_ERR_NOMEM;
    memset(keep, 1, p0 ? p0 : 1);
    gcg_status st = chunk_all(g, &keep);
    uint32_t n1 = g->n_nts;
    bool *bad = calloc(n1, 1), *q = calloc(n1, 1), *nullable = malloc(n1 ? n1 : 1);
    uint32_t *ne = malloc((size_t)n1 * sizeof *ne);
    if (st == GCG_OK && (!bad || !q || !nullable || !ne))
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        cfg_nullable(g, nullable);
        for (uint32_t a = 0; a < n0; a++)
            bad[a] = q[a] = bad_in[a];
        st = twin_closure(g, nullable, q);
    }
    for (uint32_t a = 0; a < n1 && st == GCG_OK; a++) {
        ne[a] = UINT32_MAX;
        if (!q[a])
            continue;
        char name[200];
        snprintf(name, sizeof name, "%s/nonempty", g->nts[a].name);
        ne[a] = cfg_add_nt(g, name, CFG_NT_NONEMPTY, g->nts[a].rule);
        st = ne[a] == UINT32_MAX ? GCG_ERR_NOMEM : GCG_OK;
    }
    cfg out;
    cfg_init(&out);
    for (uint32_t p = 0; p < g->n_prods && st == GCG_OK; p++) {
        if (!keep[p])
            continue;
        uint32_t lhs = g->prods[p].lhs;
        st = expand(g, &out, p, bad, ne, lhs, false);
        if (st == GCG_OK && q[lhs])
            st = expand(g, &out, p, q, ne, ne[lhs], true);
    }
    if (st == GCG_OK) {
        free(g->prods), free(g->rhs);
        g->prods = out.prods, g->n_prods = out.n_prods, g->cap_prods = out.cap_prods;
        g->rhs = out.rhs, g->n_rhs = out.n_rhs, g->cap_rhs = out.cap_rhs;
        out.prods = NULL, out.rhs = NULL;
    }
    cfg_free(&out);
    free(ne), free(keep), free(bad), free(q), free(nullable);
    return st;
}

/* ---- unit cycles and duplicates ---------------------------------------- */

static gcg_status collapse_units(cfg *g)
{
    uint32_t n = g->n_nts;
    uint32_t *first = calloc((size_t)n + 1, sizeof *first);
    uint32_t *adj = malloc((size_t)(g->n_prods ? g->n_prods : 1) * sizeof *adj);
    uint32_t *comp = malloc((size_t)n * sizeof *comp), *rep = malloc((size_t)n * sizeof *rep);
    bool *keep = malloc(g->n_prods ? g->n_prods : 1);
    gcg_status st = first && adj && comp && rep && keep ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t p = 0; p < g->n_prods && st == GCG_OK; p++)
        if (g->prods[p].len == 1 && !CFG_IS_TERM(g->rhs[g->prods[p].rhs]))
            first[g->prods[p].lhs + 1]++;
    for (uint32_t a = 0; a < n && st == GCG_OK; a++)
        first[a + 1] += first[a];
    for (uint32_t p = 0; p < g->n_prods && st == GCG_OK; p++)
        if (g->prods[p].len == 1 && !CFG_IS_TERM(g->rhs[g->prods[p].rhs]))
            adj[first[g->prods[p].lhs]++] = g->rhs[g->prods[p].rhs];
    for (uint32_t a = n; a > 0 && st == GCG_OK; a--)
        first[a] = first[a - 1];
    if (st == GCG_OK) {
        first[0] = 0;
        uint32_t n_comp;
        st = gcg_scc(n, first, adj, comp, &n_comp);
    }
    if (st == GCG_OK) {
        /* Representative: a user rule if the cycle has one (names stay readable). */
        uint32_t *best = malloc((size_t)n * sizeof *best);
        st = best ? GCG_OK : GCG_ERR_NOMEM;
        for (uint32_t a = 0; a < n && best; a++)
            best[a] = UINT32_MAX;
        for (uint32_t a = 0; a < n && best; a++) {
            uint32_t c = comp[a];
            if (best[c] == UINT32_MAX || (g->nts[a].kind == CFG_NT_RULE && g->nts[best[c]].kind != CFG_NT_RULE))
                best[c] = a;
        }
        for (uint32_t a = 0; a < n && best; a++)
            rep[a] = best[comp[a]];
        free(best);
    }
    for (uint32_t p = 0; p < g->n_prods && st == GCG_OK; p++) {
        cfg_prod *pr = &g->prods[p];
        pr->lhs = rep[pr->lhs];
        for (uint32_t k = 0; k < pr->len; k++)
            if (!CFG_IS_TERM(g->rhs[pr->rhs + k]))
                g->rhs[pr->rhs + k] = rep[g->rhs[pr->rhs + k]];
        keep[p] = !(pr->len == 1 && g->rhs[pr->rhs] == pr->lhs);
    }
    if (st == GCG_OK)
        st = cfg_compact(g, keep);
    free(first), free(adj), free(comp), free(rep), free(keep);
    return st;
}

static uint64_t prod_hash(const cfg *g, uint32_t p)
{
    const cfg_prod *pr = &g->prods[p];
    return XXH3_64bits_withSeed(g->rhs + pr->rhs, (size_t)pr->len * sizeof(uint32_t), pr->lhs);
}

static bool prod_equal(const cfg *g, uint32_t a, uint32_t b)
{
    const cfg_prod *x = &g->prods[a], *y = &g->prods[b];
    return x->lhs == y->lhs && x->len == y->len &&
           memcmp(g->rhs + x->rhs, g->rhs + y->rhs, (size_t)x->len * sizeof(uint32_t)) == 0;
}

static gcg_status dedupe(cfg *g)
{
    uint32_t cap = 16;
    while (cap < 2 * g->n_prods)
        cap *= 2;
    uint32_t *table = malloc((size_t)cap * sizeof *table);
    bool *keep = malloc(g->n_prods ? g->n_prods : 1);
    if (!table || !keep) {
        free(table), free(keep);
        return GCG_ERR_NOMEM;
    }
    memset(table, 0xff, (size_t)cap * sizeof *table);
    for (uint32_t p = 0; p < g->n_prods; p++) {
        uint32_t h = (uint32_t)prod_hash(g, p) & (cap - 1);
        while (table[h] != UINT32_MAX && !prod_equal(g, table[h], p))
            h = (h + 1) & (cap - 1);
        keep[p] = table[h] == UINT32_MAX;
        if (keep[p])
            table[h] = p;
    }
    gcg_status st = cfg_compact(g, keep);
    free(table), free(keep);
    return st;
}

/* ---- equal nonterminals --------------------------------------------------
 *
 * Machine-written grammars repeat rules: a schema converter gives each string
 * property its own `p ::= "\"" char+ "\"" space`. Nonterminals with the same
 * productions derive the same strings, so one can stand for all of them:
 * hash-consing in one pass over the call graph, callees first, so a rule is
 * compared once its callees are merged. Merged, the rule has one set of LR
 * states, and the vocabulary is walked once inside it instead of once per
 * copy; what follows it is read from the stack at the rule's end.
 *
 * A counted chain merges only where every copy sits in the same places: a
 * chain shared by repetitions used in different places makes each link's
 * reduction read the stack below (see lower.c). So the members of a class
 * holding a chain link, or a rule over one, are told apart by where they
 * occur, and the pass is redone until every such class sits in one place.
 * Which classes merge only changes the cost of later phases; the language
 * is that of the grammar whatever they are. */

typedef struct mprod {
    uint64_t h;            /* hash of the mapped production                   */
    uint32_t p;
} mprod;

typedef struct merge_ctx {
    cfg *g;
    cfg_index ix;          /* productions by lhs                              */
    mprod *by_nt;          /* ix.list's order, each nt's sorted by hash       */
    uint32_t *order;       /* nonterminals, callees first                     */
    uint32_t *rep;         /* the class of each nonterminal: its first member */
    uint32_t *mrhs;        /* rhs items with nonterminals mapped to rep       */
    bool *blocked;         /* never merged                                    */
    bool *chained;         /* per class: holds a chain link or a rule over one */
    uint64_t *color;       /* equal only where the places are (chain classes) */
    uint64_t *place;       /* per nonterminal: its places in the pass, hashed */
    uint32_t *down;        /* chain link -> the link it extends (D_j -> D_{j-1}) */
    bool *extended;        /* a link some other link extends                  */
    uint8_t *step;         /* 1: a step of a left-linear walk (index_steps)   */
} merge_ctx;

static int mprod_cmp(const void *x, const void *y)
{
    const mprod *a = x, *b = y;
    if (a->h != b->h)
        return a->h < b->h ? -1 : 1;
    return (a->p > b->p) - (a->p < b->p);
}

static bool same_mapped(const merge_ctx *m, uint32_t a, uint32_t b)
{
    const cfg_prod *x = &m->g->prods[a], *y = &m->g->prods[b];
    return x->len == y->len &&
           memcmp(m->mrhs + x->rhs, m->mrhs + y->rhs, (size_t)x->len * sizeof(uint32_t)) == 0;
}

/* Maps a's productions through rep and sorts them by their mapped hash, so
 * equal ones lie side by side. */
static void map_prods(merge_ctx *m, uint32_t a)
{
    const cfg *g = m->g;
    for (uint32_t i = m->ix.first[a]; i < m->ix.first[a + 1]; i++) {
        const cfg_prod *pr = &g->prods[m->ix.list[i]];
        for (uint32_t k = 0; k < pr->len; k++) {
            uint32_t s = g->rhs[pr->rhs + k];
            m->mrhs[pr->rhs + k] = CFG_IS_TERM(s) ? s : m->rep[s];
        }
        m->by_nt[i] = (mprod){XXH3_64bits_withSeed(m->mrhs + pr->rhs, (size_t)pr->len * 4, pr->len), m->ix.list[i]};
    }
    mprod *v = m->by_nt + m->ix.first[a];
    uint32_t n = m->ix.first[a + 1] - m->ix.first[a];
    if (n > 16) {
        qsort(v, n, sizeof *v, mprod_cmp);
        return;
    }
    /* most nonterminals have one or two productions: qsort's set-up would
     * cost more than the sort */
    for (uint32_t i = 1; i < n; i++) {
        mprod x = v[i];
        uint32_t j = i;
        for (; j > 0 && mprod_cmp(&v[j - 1], &x) > 0; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

/* The next distinct production of a nonterminal's sorted list after i. */
static uint32_t next_distinct(const merge_ctx *m, uint32_t i, uint32_t end)
{
    for (i++; i < end && m->by_nt[i].h == m->by_nt[i - 1].h && same_mapped(m, m->by_nt[i].p, m->by_nt[i - 1].p);)
        i++;
    return i;
}

/* The productions of a, as a set. */
static uint64_t nt_hash(const merge_ctx *m, uint32_t a)
{
    uint64_t h = m->color[a];
    for (uint32_t i = m->ix.first[a], e = m->ix.first[a + 1]; i < e; i = next_distinct(m, i, e))
        h = XXH3_64bits_withSeed(&m->by_nt[i].h, sizeof m->by_nt[i].h, h);
    return h;
}

static bool nt_equal(const merge_ctx *m, uint32_t a, uint32_t b)
{
    uint32_t i = m->ix.first[a], j = m->ix.first[b], ie = m->ix.first[a + 1], je = m->ix.first[b + 1];
    if (m->color[a] != m->color[b])
        return false;
    for (; i < ie && j < je; i = next_distinct(m, i, ie), j = next_distinct(m, j, je))
        if (m->by_nt[i].h != m->by_nt[j].h || !same_mapped(m, m->by_nt[i].p, m->by_nt[j].p))
            return false;
    return i == ie && j == je;
}

/* One pass, callees before callers (order): a nonterminal equal to one met
 * before joins its class. Recursive ones stay alone (what they derive
 * depends on themselves: hash-consing cannot compare them). */
static gcg_status merge_pass(merge_ctx *m)
{
    const cfg *g = m->g;
    uint32_t cap = 16;
    while (cap < 2 * g->n_nts)
        cap *= 2;
    uint32_t *table = malloc((size_t)cap * sizeof *table);
    if (!table)
        return GCG_ERR_NOMEM;
    memset(table, 0xff, (size_t)cap * sizeof *table);
    for (uint32_t i = 0; i < g->n_nts; i++)
        m->rep[i] = i;
    for (uint32_t i = 0; i < g->n_nts; i++) {
        uint32_t a = m->order[i];
        map_prods(m, a);
        if (m->blocked[a])
            continue;
        uint32_t h = (uint32_t)nt_hash(m, a) & (cap - 1);
        while (table[h] != UINT32_MAX && !nt_equal(m, table[h], a))
            h = (h + 1) & (cap - 1);
        if (table[h] == UINT32_MAX)
            table[h] = a;
        else
            m->rep[a] = table[h];
    }
    free(table);
    return GCG_OK;
}

/* The nonterminal b when a's one production is b c (c a terminal), else
 * NONE. */
static uint32_t step_below(const merge_ctx *m, uint32_t a)
{
    const cfg *g = m->g;
    if (m->ix.first[a + 1] - m->ix.first[a] != 1)
        return UINT32_MAX;
    const cfg_prod *pr = &g->prods[m->ix.list[m->ix.first[a]]];
    uint32_t b = pr->len == 2 ? g->rhs[pr->rhs] : UINT32_MAX;
    return b != UINT32_MAX && !CFG_IS_TERM(b) && b != a && CFG_IS_TERM(g->rhs[pr->rhs + 1]) ? b : UINT32_MAX;
}

/* Whether a's one production is a terminal. */
static bool step_base(const merge_ctx *m, uint32_t a)
{
    if (m->ix.first[a + 1] - m->ix.first[a] != 1)
        return false;
    const cfg_prod *pr = &m->g->prods[m->ix.list[m->ix.first[a]]];
    return pr->len == 1 && CFG_IS_TERM(m->g->rhs[pr->rhs]);
}

/* step[a]: a is a step of a left-linear walk, such as a key trie
 * (schema_struct.c): a -> b c down to a base of one terminal, every link of
 * one production. Like a chain link, a step reduces over the entry below
 * its walk, whose goto differs by place once equal steps of different walks
 * are merged; so steps, like links, merge only within one place. Computed
 * once (the passes map the grammar without changing it), each walk down
 * stopping at the first step already settled. */
static void index_steps(merge_ctx *m)
{
    uint32_t n = m->g->n_nts;
    memset(m->step, 0, n);
    for (uint32_t a = 0; a < n; a++) {
        uint32_t x = a, len = 0, b;
        while (m->step[x] == 0 && (b = step_below(m, x)) != UINT32_MAX && len < n)
            m->step[x] = 3, x = b, len++; /* 3: on the walk in hand */
        uint8_t v = m->step[x] == 1 || (m->step[x] == 0 && step_base(m, x) && x != a) ? 1 : 2;
        if (m->step[x] == 3) /* a cycle of one-production rules */
            v = 2;
        for (uint32_t y = a; m->step[y] == 3; y = step_below(m, y))
            m->step[y] = v;
    }
}

/* The classes that hold a chain link or a rule over one, or a left step. */
static void mark_chained(merge_ctx *m)
{
    const cfg *g = m->g;
    memset(m->chained, 0, g->n_nts);
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        bool link = g->nts[pr->lhs].kind == CFG_NT_COUNT || m->step[pr->lhs] == 1;
        for (uint32_t k = 0; k < pr->len && !link; k++) {
            uint32_t s = g->rhs[pr->rhs + k];
            link = !CFG_IS_TERM(s) && g->nts[s].kind == CFG_NT_COUNT;
        }
        if (link)
            m->chained[m->rep[pr->lhs]] = true;
    }
}

/* place[a]: the places where a occurs (its class's production, mapped, and
 * the position), hashed as a multiset (a sum of hashes: order-free). */
static void hash_places(merge_ctx *m)
{
    const cfg *g = m->g;
    memset(m->place, 0, (size_t)g->n_nts * sizeof *m->place);
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        for (uint32_t k = 0; k < pr->len; k++) {
            uint32_t s = g->rhs[pr->rhs + k];
            if (!CFG_IS_TERM(s) && m->chained[m->rep[s]])
                m->place[s] += XXH3_64bits_withSeed(m->mrhs + pr->rhs, (size_t)pr->len * 4,
                                                    ((uint64_t)m->rep[pr->lhs] << 20) ^ k);
        }
    }
}

/* down[a] = b for a chain link whose one production is a -> b x with b a
 * link (NONE otherwise), and which links are so extended. The passes map
 * the grammar without changing it, so this is computed once. */
static void index_links(merge_ctx *m)
{
    const cfg *g = m->g;
    memset(m->down, 0xff, (size_t)g->n_nts * sizeof *m->down);
    memset(m->extended, 0, g->n_nts);
    for (uint32_t a = 0; a < g->n_nts; a++) {
        uint32_t first = m->ix.first[a], n = m->ix.first[a + 1] - first;
        if (g->nts[a].kind != CFG_NT_COUNT || n != 1)
            continue;
        const cfg_prod *pr = &g->prods[m->ix.list[first]];
        uint32_t b = pr->len == 2 ? g->rhs[pr->rhs] : UINT32_MAX;
        if (b != UINT32_MAX && !CFG_IS_TERM(b) && g->nts[b].kind == CFG_NT_COUNT && b != a)
            m->down[a] = b, m->extended[b] = true;
    }
}

/* Hands each link's color down its chain, top first. A link's place is the
 * link that extends it (and U for X{0,n}), so a split at a chain's top
 * reaches its bottom in one pass instead of one link per pass: X{m}, whose
 * links only E and the next link use, would otherwise need m passes
 * whenever equal chains sit in different places. Colors that differ never
 * meet again, so this splits only what the passes would. */
static void color_down(merge_ctx *m)
{
    uint32_t n = m->g->n_nts;
    for (uint32_t t = 0; t < n; t++) {
        if (m->extended[t] || m->down[t] == UINT32_MAX)
            continue;
        /* links only extend earlier links (lower.c), so no walk loops; the
         * bound keeps it so whatever the grammar */
        uint32_t steps = 0;
        for (uint32_t x = t; m->down[x] != UINT32_MAX && steps++ < n; x = m->down[x]) {
            uint32_t b = m->down[x];
            m->color[b] = XXH3_64bits_withSeed(&m->color[x], sizeof m->color[x], m->color[b]);
        }
    }
}

/* Refines the colors of chain classes by places; returns whether some
 * class had members in different places (the pass must be redone). */
static bool refine_misplaced(merge_ctx *m)
{
    const cfg *g = m->g;
    mark_chained(m);
    hash_places(m);
    bool misplaced = false;
    for (uint32_t a = 0; a < g->n_nts; a++)
        misplaced |= m->chained[m->rep[a]] && m->place[a] != m->place[m->rep[a]];
    for (uint32_t a = 0; a < g->n_nts && misplaced; a++)
        if (m->chained[m->rep[a]])
            m->color[a] = XXH3_64bits_withSeed(&m->place[a], sizeof m->place[a], m->color[a]);
    if (misplaced)
        color_down(m);
    return misplaced;
}

/* order: nonterminals callees first (components of the call graph in
 * reverse topological order); recursive ones are blocked. */
static gcg_status merge_order(merge_ctx *m)
{
    const cfg *g = m->g;
    uint32_t n = g->n_nts, *first = calloc((size_t)n + 2, sizeof *first);
    uint32_t *adj = malloc(((size_t)g->n_rhs + 1) * sizeof *adj), *comp = malloc(((size_t)n + 1) * sizeof *comp);
    uint32_t n_comp = 0;
    gcg_status st = first && adj && comp ? GCG_OK : GCG_ERR_NOMEM;
    for (int pass = 0; pass < 2 && st == GCG_OK; pass++) {
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            for (uint32_t k = 0; k < pr->len; k++) {
                uint32_t s = g->rhs[pr->rhs + k];
                if (CFG_IS_TERM(s))
                    continue;
                if (pass == 0)
                    first[pr->lhs + 2]++;
                else
                    adj[first[pr->lhs + 1]++] = s;
                if (s == pr->lhs)
                    m->blocked[s] = true; /* a self-loop is a component of one */
            }
        }
        for (uint32_t a = 0; pass == 0 && a < n; a++)
            first[a + 2] += first[a + 1];
    }
    if (st == GCG_OK)
        st = gcg_scc(n, first, adj, comp, &n_comp);
    if (st == GCG_OK) { /* counting sort by component; members of big ones blocked */
        memset(first, 0, ((size_t)n + 2) * sizeof *first);
        for (uint32_t a = 0; a < n; a++)
            first[comp[a] + 1]++;
        for (uint32_t a = 0; a < n; a++)
            if (first[comp[a] + 1] > 1)
                m->blocked[a] = true;
        for (uint32_t c = 0; c < n_comp; c++)
            first[c + 1] += first[c];
        for (uint32_t a = 0; a < n; a++)
            m->order[first[comp[a]]++] = a;
    }
    free(first), free(adj), free(comp);
    return st;
}

static void merge_ctx_free(merge_ctx *m)
{
    cfg_index_free(&m->ix);
    free(m->by_nt), free(m->order), free(m->rep), free(m->mrhs), free(m->blocked), free(m->chained);
    free(m->color), free(m->place), free(m->down), free(m->extended), free(m->step);
}

/* Passes until no chain class has members in different places: each pass
 * after the first tells apart the members the last one found in different
 * places (partition refinement: classes only split, so this ends). Past
 * MERGE_PASSES, chain classes are not merged at all. */
#define MERGE_PASSES 8

static gcg_status merge_classes(merge_ctx *m)
{
    for (uint32_t pass = 0;; pass++) {
        gcg_status st = merge_pass(m);
        if (st != GCG_OK || !refine_misplaced(m))
            return st;
        if (pass + 1 == MERGE_PASSES) {
            for (uint32_t a = 0; a < m->g->n_nts; a++)
                m->blocked[a] |= m->chained[m->rep[a]];
            return merge_pass(m);
        }
    }
}

static gcg_status merge_equal_nts(cfg *g)
{
    merge_ctx m = {.g = g};
    size_t nn = (size_t)g->n_nts + 1, nr = (size_t)g->n_rhs + 1;
    gcg_status st = cfg_index_build(g, &m.ix);
    m.by_nt = malloc(((size_t)g->n_prods + 1) * sizeof *m.by_nt), m.order = malloc(nn * sizeof *m.order);
    m.rep = malloc(nn * sizeof *m.rep), m.mrhs = malloc(nr * sizeof *m.mrhs);
    m.blocked = calloc(nn, 1), m.chained = malloc(nn);
    m.color = calloc(nn, sizeof *m.color), m.place = malloc(nn * sizeof *m.place);
    m.down = malloc(nn * sizeof *m.down), m.extended = malloc(nn);
    m.step = malloc(nn);
    if (st == GCG_OK && (!m.by_nt || !m.order || !m.rep || !m.mrhs || !m.blocked || !m.chained || !m.color ||
                         !m.place || !m.down || !m.extended || !m.step))
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK) {
        /* links of chains left short by different counts never merge */
        for (uint32_t a = 0; a < g->n_nts; a++)
            m.color[a] = g->nts[a].omitted;
        index_links(&m);
        index_steps(&m);
    }
    if (st == GCG_OK) {
        m.blocked[g->start] = true;
        st = merge_order(&m);
    }
    if (st == GCG_OK)
        st = merge_classes(&m);
    bool any = false;
    for (uint32_t a = 0; st == GCG_OK && a < g->n_nts; a++)
        any |= m.rep[a] != a;
    bool *keep = any ? malloc(g->n_prods ? g->n_prods : 1) : NULL;
    if (any && !keep)
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK && any) {
        memcpy(g->rhs, m.mrhs, (size_t)g->n_rhs * sizeof *g->rhs);
        for (uint32_t p = 0; p < g->n_prods; p++)
            keep[p] = m.rep[g->prods[p].lhs] == g->prods[p].lhs;
        st = cfg_compact(g, keep);
    }
    free(keep);
    merge_ctx_free(&m);
    return st == GCG_OK && any ? dedupe(g) : st;
}

/* ---- tail recursion ---------------------------------------------------- */

#define TAIL_MAX_PRODS 4096 /* new productions one component may add */

/* A group of nonterminals that call each other only in tail position
 * (A -> α B with B in the group, α free of the group; or A -> β with β free
 * of it) is a right-linear system: L(E) for an entry E is α1 .. αk β along a
 * walk E = B0 -> B1 .. -> Bk -> β. The left-linear form reads the same words
 * with the stack kept shallow: X[E,B] derives the α's of walks from E to B,
 * (α may use members of the group: the equations L(B) = ∪ α L(C) ∪ β have
 * the least solution L(E) = walks, whatever the α's languages are),
 *     X[E,E] -> ε        X[E,C] -> X[E,B] α   for B -> α C
 *     E -> X[E,B] β      for B -> β,
 * so a run of prefixes ("- - - 1", "a, b, c") is reduced as it is read and
 * the mask never reads through it. A plain list A -> α A | β is the case of
 * one symbol and one entry. Recursion in the middle (brackets) stays: its
 * depth is the input's, and a mask reads it only as deep as a token closes. */
typedef struct tail_ctx {
    cfg *g;
    cfg_index ix;
    uint32_t *comp;       /* tail-graph component of each nonterminal */
    uint32_t *x;          /* per nonterminal: X[E, it] for the entry in work, or NONE */
    uint32_t *queue;
    bool *drop;           /* per production: replaced */
    uint32_t n0, p0;      /* nonterminals and productions before the rewrite */
    bool general;         /* groups and α using members; else plain lists only */
    bool *joined;         /* acyclic groups: the productions whose last item is
                             a member (the others end the group)             */
    uint32_t *mfirst, *members; /* members of each component: mfirst[c]..   */
    bool *entry;          /* see tail_entries                                */
} tail_ctx;

#define TNONE UINT32_MAX

/* The last item of p if it is a nonterminal of component c, else TNONE. */
static uint32_t tail_member(const tail_ctx *t, uint32_t p, uint32_t c)
{
    const cfg_prod *pr = &t->g->prods[p];
    if (pr->len == 0 || (t->joined && (p >= t->p0 || !t->joined[p])))
        return TNONE;
    uint32_t s = t->g->rhs[pr->rhs + pr->len - 1];
    return !CFG_IS_TERM(s) && t->comp[s] == c ? s : TNONE;
}

/* Whether component c has a tail cycle (two members, or a member ending a
 * production of its own) and does not hold the start symbol. */
static bool tail_cyclic(const tail_ctx *t, uint32_t c, uint32_t *n_prods)
{
    bool self = false;
    *n_prods = 0;
    for (uint32_t m = t->mfirst[c]; m < t->mfirst[c + 1]; m++) {
        uint32_t a = t->members[m];
        if (a == t->g->start)
            return false;
        for (uint32_t i = t->ix.first[a]; i < t->ix.first[a + 1]; i++, (*n_prods)++)
            self |= tail_member(t, t->ix.list[i], c) == a;
    }
    return t->mfirst[c + 1] - t->mfirst[c] > 1 || self;
}

/* entry[a]: a is used other than as the last item of a production of its
 * own component (through a joined production, for acyclic groups): the
 * rewrite must keep its language. Members inside α are such uses too: α is
 * copied as it is, so they stay (as entries). */
static void tail_entries(tail_ctx *t)
{
    const cfg *g = t->g;
    memset(t->entry, 0, t->n0);
    for (uint32_t p = 0; p < t->p0; p++) {
        const cfg_prod *pr = &g->prods[p];
        for (uint32_t k = 0; k < pr->len; k++) {
            uint32_t s = g->rhs[pr->rhs + k];
            if (CFG_IS_TERM(s))
                continue;
            bool tail = k + 1 == pr->len && t->comp[pr->lhs] == t->comp[s] && (!t->joined || t->joined[p]);
            t->entry[s] |= !tail;
        }
    }
}

/* mfirst/members: the members of each of the n_comp components. */
static void tail_members(tail_ctx *t, uint32_t n_comp)
{
    memset(t->mfirst, 0, ((size_t)n_comp + 2) * sizeof *t->mfirst);
    for (uint32_t a = 0; a < t->n0; a++)
        t->mfirst[t->comp[a] + 2]++;
    for (uint32_t c = 0; c < n_comp; c++)
        t->mfirst[c + 2] += t->mfirst[c + 1];
    for (uint32_t a = 0; a < t->n0; a++)
        t->members[t->mfirst[t->comp[a] + 1]++] = a;
}

/* A one-member group A -> α A | β with A nowhere in α or β: the only
 * rewrite gcg_normalize does on its own (it keeps the grammar's ambiguity
 * and LR states as written; gcg_normalize_latency does the rest). */
static bool tail_plain_list(const tail_ctx *t, uint32_t c)
{
    const cfg *g = t->g;
    for (uint32_t m = t->mfirst[c]; m < t->mfirst[c + 1]; m++) {
        uint32_t a = t->members[m];
        for (uint32_t i = t->ix.first[a]; i < t->ix.first[a + 1]; i++) {
            const cfg_prod *pr = &g->prods[t->ix.list[i]];
            for (uint32_t k = 0; k + 1 < pr->len; k++)
                if (g->rhs[pr->rhs + k] == a)
                    return false;
            if (pr->len == 1 && g->rhs[pr->rhs] == a)
                return false;
        }
    }
    return t->mfirst[c + 1] - t->mfirst[c] == 1;
}

/* X[e, b], made on first use. */
static uint32_t tail_x(tail_ctx *t, uint32_t e, uint32_t b, uint32_t *n_q)
{
    if (t->x[b] != TNONE)
        return t->x[b];
    char name[200];
    if (b == e)
        snprintf(name, sizeof name, "%s/list", t->g->nts[e].name);
    else
        snprintf(name, sizeof name, "%s/list>%s", t->g->nts[e].name, t->g->nts[b].name);
    uint32_t x = cfg_add_nt(t->g, name, CFG_NT_REPEAT, t->g->nts[e].rule);
    if (x != TNONE) {
        t->x[b] = x;
        t->queue[(*n_q)++] = b;
    }
    return x;
}

/* head followed by the first `len` items of production p (copied: adding
 * productions may move g->rhs). */
static gcg_status tail_add(cfg *g, uint32_t lhs, uint32_t head, uint32_t p, uint32_t len)
{
    uint32_t *buf = malloc(((size_t)len + 1) * sizeof *buf);
    if (!buf)
        return GCG_ERR_NOMEM;
    buf[0] = head;
    memcpy(buf + 1, g->rhs + g->prods[p].rhs, (size_t)len * sizeof *buf);
    gcg_status st = cfg_add_prod(g, lhs, buf, len + 1) == UINT32_MAX ? GCG_ERR_NOMEM : GCG_OK;
    free(buf);
    return st;
}

/* The left-linear productions of entry e of component c (see above). x[]
 * is all TNONE between calls: the ones set here are reset at the end. */
static gcg_status tail_rewrite_entry(tail_ctx *t, uint32_t e, uint32_t c)
{
    cfg *g = t->g;
    uint32_t n_q = 0;
    uint32_t xe = tail_x(t, e, e, &n_q);
    gcg_status st = xe == TNONE || cfg_add_prod(g, xe, NULL, 0) == UINT32_MAX ? GCG_ERR_NOMEM : GCG_OK;
    for (uint32_t h = 0; h < n_q && st == GCG_OK; h++) {
        uint32_t b = t->queue[h], xb = t->x[b];
        for (uint32_t i = t->ix.first[b]; i < t->ix.first[b + 1] && st == GCG_OK; i++) {
            uint32_t p = t->ix.list[i], len = g->prods[p].len, m = tail_member(t, p, c);
            if (m == TNONE) {
                st = tail_add(g, e, xb, p, len);
            } else if (!(m == b && len == 1)) { /* X -> X says nothing */
                uint32_t xm = tail_x(t, e, m, &n_q);
                st = xm == TNONE ? GCG_ERR_NOMEM : tail_add(g, xm, xb, p, len - 1);
            }
        }
    }
    for (uint32_t h = 0; h < n_q; h++)
        t->x[t->queue[h]] = TNONE;
    return st;
}

/* The entry's productions E -> X β added from index `from` on that end in
 * the same nonterminal s (two or more) become H -> X β' with E -> H s. */
static gcg_status tail_hoist(cfg *g, uint32_t e, uint32_t from)
{
    uint32_t to = g->n_prods;
    for (uint32_t p = from; p < to; p++) {
        const cfg_prod *pr = &g->prods[p];
        uint32_t s = pr->len >= 2 ? g->rhs[pr->rhs + pr->len - 1] : TNONE;
        if (pr->lhs != e || s == TNONE || CFG_IS_TERM(s))
            continue;
        uint32_t n = 0;
        for (uint32_t q = p; q < to; q++)
            n += g->prods[q].lhs == e && g->prods[q].len >= 2 && g->rhs[g->prods[q].rhs + g->prods[q].len - 1] == s;
        if (n < 2)
            continue;
        char name[200];
        snprintf(name, sizeof name, "%s/tail>%s", g->nts[e].name, g->nts[s].name);
        uint32_t h = cfg_add_nt(g, name, CFG_NT_GROUP, g->nts[e].rule), item[2] = {h, s};
        if (h == TNONE || cfg_add_prod(g, e, item, 2) == UINT32_MAX)
            return GCG_ERR_NOMEM;
        for (uint32_t q = p; q < to; q++) {
            cfg_prod *qr = &g->prods[q];
            if (qr->lhs == e && qr->len >= 2 && g->rhs[qr->rhs + qr->len - 1] == s)
                qr->lhs = h, qr->len--;
        }
    }
    return GCG_OK;
}

/* Rewrites group c: every entry gets the left-linear productions of what it
 * reaches in the group (hoisted, for acyclic groups), the members' own
 * productions go. */
static gcg_status tail_rewrite_members(tail_ctx *t, uint32_t c, bool hoist)
{
    for (uint32_t m = t->mfirst[c]; m < t->mfirst[c + 1]; m++) {
        uint32_t a = t->members[m], from = t->g->n_prods;
        if (t->entry[a]) {
            gcg_status st = tail_rewrite_entry(t, a, c);
            if (st == GCG_OK && hoist)
                st = tail_hoist(t->g, a, from);
            if (st != GCG_OK)
                return st;
        }
        for (uint32_t k = t->ix.first[a]; k < t->ix.first[a + 1]; k++)
            t->drop[t->ix.list[k]] = true;
    }
    return GCG_OK;
}

/* Rewrites component c if it is right-linear and small enough. */
static gcg_status tail_rewrite(tail_ctx *t, uint32_t c)
{
    uint32_t n_prods, n_entries = 0;
    if (!tail_cyclic(t, c, &n_prods) || (!t->general && !tail_plain_list(t, c)))
        return GCG_OK;
    for (uint32_t m = t->mfirst[c]; m < t->mfirst[c + 1]; m++)
        n_entries += t->entry[t->members[m]];
    if ((uint64_t)n_entries * n_prods > TAIL_MAX_PRODS)
        return GCG_OK;
    return tail_rewrite_members(t, c, false);
}

/* ---- acyclic tail groups ------------------------------------------------
 *
 * A right-linear rule that does not recurse still nests: a key trie written
 * as G1 ::= "a" G2 | [^"a] rest, G2 ::= "b" G3 | [^"b] rest, ... keeps one
 * stack entry per matched byte, and every LR state inside `rest` knows which
 * G it will reduce, so the vocabulary is walked once per trie node. The
 * left-linear form (the same rewrite as above, on a group without a cycle)
 * reduces each prefix as it is read, and the productions of the entry that
 * end in the same symbol share it through one nonterminal (E -> H rest,
 * H -> X[E,Gj] [^"x]): `rest` then has one set of LR states for all of them.
 * Groups join A and B over A -> α B with α not nullable: a read prefix moves
 * nothing to lookahead (an empty α would make the rewrite choose the branch
 * before reading it). Chains and lists keep their own shapes. */

static uint32_t uf_find(uint32_t *uf, uint32_t a)
{
    while (uf[a] != a)
        a = uf[a] = uf[uf[a]];
    return a;
}

static bool tail_candidate(const cfg *g, const bool *chained, uint32_t a)
{
    cfg_nt_kind k = g->nts[a].kind;
    return a != g->start && !chained[a] && (k == CFG_NT_RULE || k == CFG_NT_GROUP || k == CFG_NT_NONEMPTY);
}

/* Whether the first len items of p can derive ε. */
static bool prefix_nullable(const cfg *g, const bool *nullable, uint32_t p, uint32_t len)
{
    for (uint32_t k = 0; k < len; k++) {
        uint32_t s = g->rhs[g->prods[p].rhs + k];
        if (CFG_IS_TERM(s) || !nullable[s])
            return false;
    }
    return true;
}

/* comp[a]: a's acyclic group (its own id when alone); joined[p]: p's last
 * item is in p's group through p. */
static gcg_status tail_groups(tail_ctx *t)
{
    cfg *g = t->g;
    bool *nullable = malloc((size_t)g->n_nts + 1), *chained = calloc((size_t)g->n_nts + 1, 1);
    if (!nullable || !chained) {
        free(nullable), free(chained);
        return GCG_ERR_NOMEM;
    }
    cfg_nullable(g, nullable);
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        for (uint32_t k = 0; k < pr->len; k++) {
            uint32_t s = g->rhs[pr->rhs + k];
            chained[pr->lhs] |= !CFG_IS_TERM(s) && g->nts[s].kind == CFG_NT_COUNT;
        }
    }
    for (uint32_t a = 0; a < g->n_nts; a++)
        t->comp[a] = a;
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        uint32_t b = pr->len ? g->rhs[pr->rhs + pr->len - 1] : TNONE;
        if (b == TNONE || CFG_IS_TERM(b) || b == pr->lhs || !tail_candidate(g, chained, pr->lhs) ||
            !tail_candidate(g, chained, b) || prefix_nullable(g, nullable, p, pr->len - 1))
            continue;
        uint32_t x = uf_find(t->comp, pr->lhs), y = uf_find(t->comp, b);
        if (x != y)
            t->comp[x > y ? x : y] = x < y ? x : y;
        t->joined[p] = true;
    }
    for (uint32_t a = 0; a < g->n_nts; a++)
        t->comp[a] = uf_find(t->comp, a);
    free(nullable), free(chained);
    return GCG_OK;
}

/* Whether two productions that end group c (not joined) end in the same
 * nonterminal: what the entry's productions share once rewritten. Without
 * that, the rewrite would only move reductions around. */
static bool tail_shared_end(const tail_ctx *t, uint32_t c, uint32_t *seen)
{
    const cfg *g = t->g;
    bool shared = false;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t m = t->mfirst[c]; m < t->mfirst[c + 1]; m++)
            for (uint32_t k = t->ix.first[t->members[m]]; k < t->ix.first[t->members[m] + 1]; k++) {
                const cfg_prod *pr = &g->prods[t->ix.list[k]];
                uint32_t s = pr->len ? g->rhs[pr->rhs + pr->len - 1] : TNONE;
                if (s == TNONE || CFG_IS_TERM(s) || t->joined[t->ix.list[k]])
                    continue;
                if (pass == 0)
                    seen[s] = 0;
                else
                    shared |= ++seen[s] == 2;
            }
    return shared;
}

/* Rewrites acyclic group c if it has two members or more, it pays and it
 * is small enough. */
static gcg_status tail_rewrite_acyclic(tail_ctx *t, uint32_t c)
{
    uint32_t n_prods = 0, n_entries = 0;
    if (t->mfirst[c + 1] - t->mfirst[c] < 2)
        return GCG_OK;
    for (uint32_t m = t->mfirst[c]; m < t->mfirst[c + 1]; m++) {
        uint32_t a = t->members[m];
        n_prods += t->ix.first[a + 1] - t->ix.first[a];
        n_entries += t->entry[a];
    }
    if (n_entries == 0 || (uint64_t)n_entries * n_prods > TAIL_MAX_PRODS || !tail_shared_end(t, c, t->queue))
        return GCG_OK;
    return tail_rewrite_members(t, c, true);
}

/* Components of the tail graph (A -> B when a production of A ends in B). */
static gcg_status tail_components(tail_ctx *t, uint32_t *n_comp)
{
    const cfg *g = t->g;
    uint32_t n = g->n_nts;
    uint32_t *first = calloc((size_t)n + 1, sizeof *first);
    uint32_t *adj = malloc((size_t)(g->n_prods ? g->n_prods : 1) * sizeof *adj);
    gcg_status st = first && adj ? GCG_OK : GCG_ERR_NOMEM;
    for (uint32_t a = 0; a < n && st == GCG_OK; a++) {
        first[a + 1] = first[a];
        for (uint32_t i = t->ix.first[a]; i < t->ix.first[a + 1]; i++) {
            const cfg_prod *pr = &g->prods[t->ix.list[i]];
            if (pr->len && !CFG_IS_TERM(g->rhs[pr->rhs + pr->len - 1]))
                adj[first[a + 1]++] = g->rhs[pr->rhs + pr->len - 1];
        }
    }
    if (st == GCG_OK)
        st = gcg_scc(n, first, adj, t->comp, n_comp);
    free(first), free(adj);
    return st;
}

static void tail_ctx_free(tail_ctx *t)
{
    free(t->comp), free(t->x), free(t->queue), free(t->drop), free(t->joined), free(t->mfirst), free(t->members);
    free(t->entry);
    cfg_index_free(&t->ix);
}

/* One rewrite pass over the groups found by `groups` (cyclic components, or
 * acyclic groups): each group `rewrite` takes is replaced by the left-linear
 * productions of its entries. */
static gcg_status tail_pass(cfg *g, bool general, bool acyclic)
{
    tail_ctx t = {.g = g, .n0 = g->n_nts, .p0 = g->n_prods, .general = general};
    size_t n = (size_t)g->n_nts + 1, p0 = g->n_prods;
    uint32_t n_comp = g->n_nts;
    gcg_status st = cfg_index_build(g, &t.ix);
    t.comp = malloc(n * sizeof *t.comp), t.x = malloc(n * sizeof *t.x), t.queue = malloc(n * sizeof *t.queue);
    t.mfirst = malloc((n + 2) * sizeof *t.mfirst), t.members = malloc(n * sizeof *t.members);
    t.entry = malloc(n), t.drop = calloc(p0 + 1, 1), t.joined = acyclic ? calloc(p0 + 1, 1) : NULL;
    if (st == GCG_OK && (!t.comp || !t.x || !t.queue || !t.mfirst || !t.members || !t.entry || !t.drop ||
                         (acyclic && !t.joined)))
        st = GCG_ERR_NOMEM;
    if (st == GCG_OK)
        memset(t.x, 0xff, n * sizeof *t.x); /* TNONE */
    if (st == GCG_OK)
        st = acyclic ? tail_groups(&t) : tail_components(&t, &n_comp);
    if (st == GCG_OK) {
        tail_members(&t, n_comp);
        tail_entries(&t);
    }
    for (uint32_t c = 0; c < n_comp && st == GCG_OK; c++)
        st = acyclic ? tail_rewrite_acyclic(&t, c) : tail_rewrite(&t, c);
    bool *keep = st == GCG_OK ? malloc((size_t)g->n_prods + 1) : NULL;
    if (st == GCG_OK && !keep)
        st = GCG_ERR_NOMEM;
    for (uint32_t p = 0; st == GCG_OK && p < g->n_prods; p++)
        keep[p] = p >= p0 || !t.drop[p];
    if (st == GCG_OK)
        st = cfg_compact(g, keep);
    free(keep);
    tail_ctx_free(&t);
    return st;
}

static gcg_status tail_recursion_to_left(cfg *g, bool general)
{
    gcg_status st = tail_pass(g, general, false);
    return st == GCG_OK && general ? tail_pass(g, true, true) : st;
}

/* The LR tables need production 0 to be the only production of the start
 * symbol (its reduction on end of input is accept). ε-removal can give the
 * start several productions: put a fresh start above it. */
static gcg_status single_start(cfg *g)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < g->n_prods; p++)
        n += g->prods[p].lhs == g->start;
    if (n == 1 && g->prods[0].lhs == g->start)
        return GCG_OK;
    uint32_t old = g->start, top = cfg_add_nt(g, "$accept", CFG_NT_START, UINT32_MAX);
    if (top == UINT32_MAX || cfg_add_prod(g, top, &old, 1) == UINT32_MAX)
        return GCG_ERR_NOMEM;
    g->nts[old].kind = CFG_NT_GROUP;
    cfg_prod last = g->prods[g->n_prods - 1];
    memmove(g->prods + 1, g->prods, (size_t)(g->n_prods - 1) * sizeof *g->prods);
    g->prods[0] = last;
    g->start = top;
    return GCG_OK;
}

static gcg_status normalize(cfg *g, const gbnf_grammar *ast, gcg_diag *diag, bool general)
{
    gcg_status st = reduce_grammar(g, ast, diag);
    if (st == GCG_OK)
        st = tail_recursion_to_left(g, general);
    for (uint32_t round = 0; st == GCG_OK; round++) {
        if (round == MAX_ROUNDS) {
            gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0,
                         "could not remove nullable cycles in %u rounds (please report this grammar)",
                         MAX_ROUNDS);
            return GCG_ERR_LIMIT;
        }
        bool *nullable = malloc(g->n_nts), *bad = malloc(g->n_nts);
        if (!nullable || !bad) {
            free(nullable), free(bad);
            return GCG_ERR_NOMEM;
        }
        cfg_nullable(g, nullable);
        uint32_t marked = find_bad(g, nullable, bad, &st);
        free(nullable);
        if (st != GCG_OK || marked == 0) {
            free(bad);
            break;
        }
        st = remove_eps_of(g, bad);
        free(bad);
        if (st == GCG_OK)
            st = collapse_units(g);
        if (st == GCG_OK)
            st = reduce_grammar(g, NULL, diag);
    }
    if (st == GCG_OK)
        st = collapse_units(g);
    if (st == GCG_OK)
        st = dedupe(g);
    if (st == GCG_OK && general)
        st = merge_equal_nts(g);
    if (st == GCG_OK)
        st = reduce_grammar(g, NULL, diag);
    if (st == GCG_OK)
        st = single_start(g);
    return st;
}

gcg_status gcg_normalize(cfg *g, const gbnf_grammar *ast, gcg_diag *diag)
{
    return normalize(g, ast, diag, false);
}

gcg_status gcg_normalize_latency(cfg *g, const gbnf_grammar *ast, gcg_diag *diag)
{
    return normalize(g, ast, diag, true);
}
