/*
 * test_normalize.c — normalization of the byte-level grammar (gcg_normalize):
 *
 *   - unproductive rules are removed with a warning; an unproductive root is
 *     an error with an exact message and position; unreachable rules go;
 *   - nullable cycles ((a?)*, A -> A A | ε), hidden left recursion (direct
 *     and through two rules), unit cycles and self rules (a ::= a | "x")
 *     normalize, and the compiled matcher recognizes exactly the language
 *     the grammar means: every string over a small alphabet up to a length
 *     is classified complete / proper prefix / rejected and compared with a
 *     hand-written oracle for that language;
 *   - twelve optional symbols in a nullable cycle do not blow up (bound on
 *     the production count);
 *   - the invariants normalize.h promises, checked on the cfg by an
 *     independent checker written here: every nonterminal productive and
 *     reachable, no A =>+ A, no hidden left recursion, no duplicate
 *     productions, no unit self rule.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "compile.h"
#include "gbnf.h"
#include "gcg.h"
#include "lower.h"
#include "normalize.h"
#include "test_files.h"

/* ---- running the front end ---------------------------------------------- */

typedef struct normed {
    gbnf_grammar ast;
    cfg g;
    gcg_diag diag;
} normed;

static gcg_status normalize_any(const char *src, normed *n, bool latency)
{
    memset(n, 0, sizeof *n);
    gcg_diag_init(&n->diag, "t.gbnf");
    ck_assert_int_eq(gcg_gbnf_parse(src, strlen(src), NULL, &n->ast, &n->diag), GCG_OK);
    ck_assert_int_eq(gcg_lower(&n->ast, &n->g, NULL, &n->diag), GCG_OK);
    return latency ? gcg_normalize_latency(&n->g, &n->ast, &n->diag) : gcg_normalize(&n->g, &n->ast, &n->diag);
}

static gcg_status normalize_src(const char *src, normed *n)
{
    return normalize_any(src, n, false);
}

static uint32_t count_kind(const cfg *g, cfg_nt_kind kind)
{
    uint32_t n = 0;
    for (uint32_t a = 0; a < g->n_nts; a++)
        n += g->nts[a].kind == kind;
    return n;
}

static void normed_free(normed *n)
{
    cfg_free(&n->g);
    gcg_gbnf_free(&n->ast);
    gcg_diag_free(&n->diag);
}

static uint32_t nt_named(const cfg *g, const char *name)
{
    for (uint32_t a = 0; a < g->n_nts; a++)
        if (strcmp(g->nts[a].name, name) == 0)
            return a;
    return UINT32_MAX;
}

/* ---- the independent invariant checker ----------------------------------- */

/* Transitive closure of a relation on n nodes (row-major bool matrix). */
static void closure(bool *r, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        for (uint32_t i = 0; i < n; i++)
            if (r[(size_t)i * n + k])
                for (uint32_t j = 0; j < n; j++)
                    r[(size_t)i * n + j] |= r[(size_t)k * n + j];
}

static bool is_nullable_sym(const bool *nul, uint32_t s)
{
    return !CFG_IS_TERM(s) && nul[s];
}

/* Checks every invariant of normalize.h; reports the first violation. */
static void check_invariants(const cfg *g, const char *what)
{
    uint32_t n = g->n_nts;
    ck_assert_msg(g->start < n, "%s: start out of range", what);
    ck_assert_msg(g->n_prods > 0 && g->prods[0].lhs == g->start && g->prods[0].len == 1,
                  "%s: production 0 is not start -> root", what);
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        ck_assert_msg(pr->lhs < n && pr->rhs + pr->len <= g->n_rhs, "%s: production %u out of range",
                      what, p);
        for (uint32_t k = 0; k < pr->len; k++) {
            uint32_t s = g->rhs[pr->rhs + k];
            ck_assert_msg(CFG_IS_TERM(s) ? CFG_INDEX(s) < g->n_tsets : s < n,
                          "%s: production %u item %u out of range", what, p, k);
        }
    }

    /* Nullable and productive, by their own fixpoints. */
    bool *nul = calloc(n, 1), *prod = calloc(n, 1), *reach = calloc(n, 1);
    ck_assert(nul && prod && reach);
    for (bool ch = true; ch;) {
        ch = false;
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            bool all_nul = true, all_prod = true;
            for (uint32_t k = 0; k < pr->len; k++) {
                uint32_t s = g->rhs[pr->rhs + k];
                all_nul = all_nul && is_nullable_sym(nul, s);
                all_prod = all_prod && (CFG_IS_TERM(s) || prod[s]);
            }
            if (all_nul && !nul[pr->lhs])
                nul[pr->lhs] = ch = true;
            if (all_prod && !prod[pr->lhs])
                prod[pr->lhs] = ch = true;
        }
    }
    reach[g->start] = true;
    for (bool ch = true; ch;) {
        ch = false;
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            if (!reach[pr->lhs])
                continue;
            for (uint32_t k = 0; k < pr->len; k++) {
                uint32_t s = g->rhs[pr->rhs + k];
                if (!CFG_IS_TERM(s) && !reach[s])
                    reach[s] = ch = true;
            }
        }
    }
    for (uint32_t a = 0; a < n; a++) {
        ck_assert_msg(prod[a], "%s: %s is unproductive", what, g->nts[a].name);
        ck_assert_msg(reach[a], "%s: %s is unreachable", what, g->nts[a].name);
    }

    /* A => B (one step, everything else nullable) and the left corner
     * A -> α B β with α nullable. */
    bool *unit = calloc((size_t)n * n, 1), *lc = calloc((size_t)n * n, 1);
    ck_assert(unit && lc);
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        const uint32_t *r = g->rhs + pr->rhs;
        for (uint32_t k = 0; k < pr->len; k++) {
            if (CFG_IS_TERM(r[k]))
                continue;
            bool pre = true, post = true;
            for (uint32_t j = 0; j < k; j++)
                pre = pre && is_nullable_sym(nul, r[j]);
            for (uint32_t j = k + 1; j < pr->len; j++)
                post = post && is_nullable_sym(nul, r[j]);
            if (pre && post)
                unit[(size_t)pr->lhs * n + r[k]] = true;
            if (pre)
                lc[(size_t)pr->lhs * n + r[k]] = true;
        }
    }
    closure(unit, n);
    closure(lc, n);
    for (uint32_t a = 0; a < n; a++)
        ck_assert_msg(!unit[(size_t)a * n + a], "%s: %s =>+ %s", what, g->nts[a].name, g->nts[a].name);
    /* Hidden left recursion: A -> α B β, α non-empty and nullable, B =>* A γ. */
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        const uint32_t *r = g->rhs + pr->rhs;
        for (uint32_t k = 1; k < pr->len && is_nullable_sym(nul, r[k - 1]); k++) {
            if (CFG_IS_TERM(r[k]))
                break;
            bool back = r[k] == pr->lhs || lc[(size_t)r[k] * n + pr->lhs];
            ck_assert_msg(!back, "%s: production %u (%s -> ...) is hidden-left-recursive at item %u",
                          what, p, g->nts[pr->lhs].name, k);
        }
    }
    /* No duplicates, no A -> A. */
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *x = &g->prods[p];
        ck_assert_msg(!(x->len == 1 && g->rhs[x->rhs] == x->lhs), "%s: unit self rule %s -> %s", what,
                      g->nts[x->lhs].name, g->nts[x->lhs].name);
        for (uint32_t q = p + 1; q < g->n_prods; q++) {
            const cfg_prod *y = &g->prods[q];
            bool same = x->lhs == y->lhs && x->len == y->len &&
                        memcmp(g->rhs + x->rhs, g->rhs + y->rhs, x->len * sizeof(uint32_t)) == 0;
            ck_assert_msg(!same, "%s: productions %u and %u are equal", what, p, q);
        }
    }
    free(nul), free(prod), free(reach), free(unit), free(lc);
}

/* The checker itself must catch what it claims to: fed raw lowered grammars
 * that have the problems, it must find them. */
static bool invariants_hold_nofork(const cfg *g)
{
    /* Re-run the checks without ck_assert: count violations. */
    uint32_t n = g->n_nts;
    bool *nul = calloc(n, 1);
    bool *lc = calloc((size_t)n * n, 1), *unit = calloc((size_t)n * n, 1);
    for (bool ch = true; ch;) {
        ch = false;
        for (uint32_t p = 0; p < g->n_prods; p++) {
            const cfg_prod *pr = &g->prods[p];
            bool all = true;
            for (uint32_t k = 0; k < pr->len; k++)
                all = all && is_nullable_sym(nul, g->rhs[pr->rhs + k]);
            if (all && !nul[pr->lhs])
                nul[pr->lhs] = ch = true;
        }
    }
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        const uint32_t *r = g->rhs + pr->rhs;
        for (uint32_t k = 0; k < pr->len; k++) {
            if (CFG_IS_TERM(r[k]))
                continue;
            bool pre = true, post = true;
            for (uint32_t j = 0; j < k; j++)
                pre = pre && is_nullable_sym(nul, r[j]);
            for (uint32_t j = k + 1; j < pr->len; j++)
                post = post && is_nullable_sym(nul, r[j]);
            if (pre && post)
                unit[(size_t)pr->lhs * n + r[k]] = true;
            if (pre)
                lc[(size_t)pr->lhs * n + r[k]] = true;
        }
    }
    closure(unit, n);
    closure(lc, n);
    bool ok = true;
    for (uint32_t a = 0; a < n; a++)
        ok = ok && !unit[(size_t)a * n + a];
    for (uint32_t p = 0; p < g->n_prods; p++) {
        const cfg_prod *pr = &g->prods[p];
        const uint32_t *r = g->rhs + pr->rhs;
        for (uint32_t k = 1; k < pr->len && is_nullable_sym(nul, r[k - 1]) && !CFG_IS_TERM(r[k]); k++)
            ok = ok && !(r[k] == pr->lhs || lc[(size_t)r[k] * n + pr->lhs]);
    }
    free(nul), free(lc), free(unit);
    return ok;
}

/* ---- languages: hand-written oracles -------------------------------------- */

typedef enum verdict { V_COMPLETE = 'C', V_PREFIX = 'P', V_REJECT = 'R' } verdict;

typedef verdict (*oracle_fn)(const char *s, size_t n);

/* L_astar: a* over {a, b}. */
static verdict o_astar(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != 'a')
            return V_REJECT;
    return V_COMPLETE;
}

/* L_xstar: x* over {x, y}. */
static verdict o_xstar(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != 'x')
            return V_REJECT;
    return V_COMPLETE;
}

/* {x}: "" is a prefix. */
static verdict o_x(const char *s, size_t n)
{
    if (n == 0)
        return V_PREFIX;
    return n == 1 && s[0] == 'x' ? V_COMPLETE : V_REJECT;
}

/* {x, y, z}. */
static verdict o_xyz(const char *s, size_t n)
{
    if (n == 0)
        return V_PREFIX;
    return n == 1 && strchr("xyz", s[0]) ? V_COMPLETE : V_REJECT;
}

/* [a-l]* over {a, f, l, m}. */
static verdict o_al_star(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < 'a' || s[i] > 'l')
            return V_REJECT;
    return V_COMPLETE;
}

/* u d c^k where u's blocks (greedy: "nm" is one block, any other letter of
 * `pre` is one) number at most k. Used for x ::= y? x "c" | "d" (pre = "y")
 * and for the mutual version with n? m? (pre = "nm"). */
static verdict o_blocks(const char *s, size_t n, const char *pre)
{
    size_t i = 0, blocks = 0;
    while (i < n && strchr(pre, s[i])) {
        if (i + 1 < n && s[i] == 'n' && s[i + 1] == 'm' && strchr(pre, 'm'))
            i += 2;
        else
            i++;
        blocks++;
    }
    if (i == n)
        return V_PREFIX;
    if (s[i] != 'd')
        return V_REJECT;
    size_t k = 0;
    for (i++; i < n; i++, k++)
        if (s[i] != 'c')
            return V_REJECT;
    return k >= blocks ? V_COMPLETE : V_PREFIX;
}

/* x{0,2} "!" x{0,2} "!" x{0,2} "?" over {x, !, ?}. */
static verdict o_merged(const char *s, size_t n)
{
    static const char ends[] = "!!?";
    size_t i = 0;
    for (int part = 0; part < 3; part++) {
        size_t k = 0;
        while (i < n && s[i] == 'x' && k < 2)
            i++, k++;
        if (i == n)
            return V_PREFIX;
        if (s[i++] != ends[part])
            return V_REJECT;
    }
    return i == n ? V_COMPLETE : V_REJECT;
}

/* "w" with w a nonempty string of [^"] other than a, ab and abc. */
static verdict o_keys(const char *s, size_t n)
{
    if (n == 0)
        return V_PREFIX;
    if (s[0] != '"')
        return V_REJECT;
    size_t i = 1;
    while (i < n && s[i] != '"')
        i++;
    if (i == n)
        return V_PREFIX;
    size_t len = i - 1;
    bool refused = len == 0 || (len <= 3 && memcmp(s + 1, "abc", len) == 0);
    if (refused)
        return V_REJECT;
    return i + 1 == n ? V_COMPLETE : V_REJECT;
}

static verdict o_hidden(const char *s, size_t n)
{
    return o_blocks(s, n, "y");
}

static verdict o_hidden_mutual(const char *s, size_t n)
{
    return o_blocks(s, n, "nm");
}

/* a+ over {a, b}. */
static verdict o_aplus(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != 'a')
            return V_REJECT;
    return n ? V_COMPLETE : V_PREFIX;
}

/* Only the empty string. */
static verdict o_empty(const char *s, size_t n)
{
    (void)s;
    return n == 0 ? V_COMPLETE : V_REJECT;
}

/* (ab|c)* d? over {a, b, c, d}. */
static verdict o_abc(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] == 'c') {
            i++;
        } else if (s[i] == 'a') {
            if (i + 1 == n)
                return V_PREFIX;
            if (s[i + 1] != 'b')
                return V_REJECT;
            i += 2;
        } else {
            break;
        }
    }
    if (i == n)
        return V_COMPLETE;
    return s[i] == 'd' && i + 1 == n ? V_COMPLETE : V_REJECT;
}

/* a and b are equal (merged with their chains); c's chain is the same but
 * sits in another place (kept apart). */
#define MERGE_SRC "root ::= a b c\na ::= \"x\"{0,2} \"!\"\nb ::= \"x\"{0,2} \"!\"\nc ::= \"x\"{0,2} \"?\"\n"

/* Keys other than a, ab, abc, written as a trie the way a schema converter
 * writes "no other property": an acyclic right-linear group whose exits all
 * end in x*. */
#define KEYS_SRC                                                                                         \
    "root ::= \"\\\"\" g1 \"\\\"\"\ng1 ::= \"a\" g2 | [^\"a] x*\ng2 ::= \"b\" g3 | [^\"b] x*\n" \
    "g3 ::= \"c\" x+ | [^\"c] x*\nx ::= [^\"]\n"

typedef struct lang_case {
    const char *name;
    const char *src;
    oracle_fn oracle;
    const char *alphabet;
    uint32_t max_len;
} lang_case;

static const lang_case lang_cases[] = {
    {"(a?)*", "root ::= (a?)*\na ::= \"a\"\n", o_astar, "ab", 8},
    {"(\"a\"?)* inline", "root ::= (\"a\"?)*\n", o_astar, "ab", 8},
    {"(a*)*", "root ::= (a*)*\na ::= \"a\"\n", o_astar, "ab", 8},
    {"(a*)+", "root ::= (a*)+\na ::= \"a\"\n", o_astar, "ab", 8},
    {"(a? a?)*", "root ::= (\"a\"? \"a\"?)*\n", o_astar, "ab", 8},
    {"A -> A A | x | e", "root ::= a\na ::= a a | \"x\" |\n", o_xstar, "xy", 8},
    {"root -> root root | x | e", "root ::= root root | \"x\" |\n", o_xstar, "xy", 8},
    {"root nullable under its own list", "root ::= (\"x\" | root)*\n", o_xstar, "xy", 8},
    {"hidden left recursion", "root ::= x\nx ::= y? x \"c\" | \"d\"\ny ::= \"y\"\n", o_hidden,
     "ydcx", 7},
    {"hidden, y optional inline", "root ::= x\nx ::= \"y\"? x \"c\" | \"d\"\n", o_hidden, "ydcx", 7},
    {"hidden through two rules",
     "root ::= x\nx ::= n? y \"c\" | \"d\"\ny ::= m? x\nn ::= \"n\"\nm ::= \"m\"\n", o_hidden_mutual,
     "nmdcx", 6},
    {"unit cycle a -> b -> a", "root ::= a\na ::= b | \"x\"\nb ::= a\n", o_x, "xy", 4},
    {"unit cycle of three", "root ::= a\na ::= b | \"x\"\nb ::= c | \"y\"\nc ::= a | \"z\"\n", o_xyz,
     "xyzw", 4},
    {"root in a unit cycle", "root ::= a | \"x\"\na ::= root\n", o_x, "xy", 4},
    {"a ::= a | x", "root ::= a\na ::= a | \"x\"\n", o_x, "xy", 4},
    {"a ::= a (unproductive)", "root ::= a | \"x\"\na ::= a\n", o_x, "xy", 4},
    {"twelve optionals in a cycle",
     "root ::= r\nr ::= \"a\"? \"b\"? \"c\"? \"d\"? \"e\"? \"f\"? \"g\"? \"h\"? \"i\"? \"j\"? \"k\"? "
     "\"l\"? r |\n",
     o_al_star, "aflm", 6},
    {"twelve optionals starred",
     "root ::= (\"a\"? \"b\"? \"c\"? \"d\"? \"e\"? \"f\"? \"g\"? \"h\"? \"i\"? \"j\"? \"k\"? "
     "\"l\"?)*\n",
     o_al_star, "aflm", 6},
    {"x ::= x? a", "root ::= x\nx ::= x? \"a\"\n", o_aplus, "ab", 8},
    {"x ::= x{0,3} a", "root ::= x\nx ::= x{0,3} \"a\"\n", o_aplus, "ab", 8},
    {"a ::= b?, b ::= a?", "root ::= a b\na ::= b?\nb ::= a?\n", o_empty, "ab", 4},
    {"nullable list of lists", "root ::= ((\"a\" \"b\")* \"c\"?)* \"d\"?\n", o_abc, "abcd", 7},
    {"equal rules, chains in other places", MERGE_SRC, o_merged, "x!?", 9},
    {"key trie, left-linear", KEYS_SRC, o_keys, "abcd\"", 7},
};

typedef struct lang {
    gcg_artifact *art;
    gcg_matcher *m;
} lang;

static void lang_open(const char *src, lang *l)
{
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_compile_options opt = {0};
    opt.no_automaton = true;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
    if (st != GCG_OK)
        gcg_diag_print(&d, stderr);
    ck_assert_int_eq(st, GCG_OK);
    gcg_diag_free(&d);
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &l->art, &err), GCG_OK);
    free(bytes);
    ck_assert_int_eq(gcg_matcher_new(l->art, NULL, &l->m, NULL), GCG_OK);
}

static void lang_close(lang *l)
{
    gcg_matcher_free(l->m);
    gcg_artifact_free(l->art);
}

static verdict lang_verdict(lang *l, const char *s, size_t n)
{
    gcg_matcher_reset(l->m);
    size_t consumed = 0;
    gcg_status st = gcg_matcher_commit_bytes(l->m, (const uint8_t *)s, n, &consumed);
    if (st == GCG_ERR_REJECTED)
        return V_REJECT;
    ck_assert_int_eq(st, GCG_OK);
    ck_assert_uint_eq(consumed, n);
    return gcg_matcher_is_complete(l->m) ? V_COMPLETE : V_PREFIX;
}

START_TEST(test_language)
{
    const lang_case *lc = &lang_cases[_i];
    lang l;
    lang_open(lc->src, &l);
    size_t k = strlen(lc->alphabet);
    char s[32];
    uint32_t idx[32];
    uint32_t checked = 0;
    for (uint32_t len = 0; len <= lc->max_len; len++) {
        memset(idx, 0, sizeof idx);
        for (;;) {
            for (uint32_t i = 0; i < len; i++)
                s[i] = lc->alphabet[idx[i]];
            s[len] = 0;
            verdict want = lc->oracle(s, len), got = lang_verdict(&l, s, len);
            ck_assert_msg(got == want, "%s: \"%s\": got %c, want %c", lc->name, s, got, want);
            checked++;
            uint32_t i = 0;
            while (i < len && ++idx[i] == k)
                idx[i++] = 0;
            if (i == len)
                break;
        }
    }
    ck_assert_uint_gt(checked, 15);
    lang_close(&l);
}
END_TEST

/* Some fixed strings per language, so a broken oracle cannot hide a bug. */
START_TEST(test_oracles_fixed_points)
{
    ck_assert_int_eq(o_hidden("yydcc", 5), V_COMPLETE);
    ck_assert_int_eq(o_hidden("yydc", 4), V_PREFIX);
    ck_assert_int_eq(o_hidden("dcc", 3), V_COMPLETE);
    ck_assert_int_eq(o_hidden("cd", 2), V_REJECT);
    ck_assert_int_eq(o_hidden_mutual("nmdc", 4), V_COMPLETE);
    ck_assert_int_eq(o_hidden_mutual("mndc", 4), V_PREFIX);
    ck_assert_int_eq(o_hidden_mutual("mndcc", 5), V_COMPLETE);
    ck_assert_int_eq(o_hidden_mutual("nnmdcc", 6), V_COMPLETE);
    ck_assert_int_eq(o_hidden_mutual("nmndc", 5), V_PREFIX);
    ck_assert_int_eq(o_abc("abcabd", 6), V_COMPLETE);
    ck_assert_int_eq(o_abc("aba", 3), V_PREFIX);
    ck_assert_int_eq(o_abc("dc", 2), V_REJECT);

    lang l;
    lang_open(lang_cases[8].src, &l); /* hidden left recursion */
    ck_assert_int_eq(lang_verdict(&l, "yydcc", 5), V_COMPLETE);
    ck_assert_int_eq(lang_verdict(&l, "yydc", 4), V_PREFIX);
    ck_assert_int_eq(lang_verdict(&l, "ydcc", 4), V_COMPLETE);
    ck_assert_int_eq(lang_verdict(&l, "yd", 2), V_PREFIX);
    ck_assert_int_eq(lang_verdict(&l, "ddc", 3), V_REJECT);
    lang_close(&l);
}
END_TEST

/* ---- reduction: unproductive and unreachable ---------------------------- */

START_TEST(test_unproductive_removed_with_warning)
{
    normed n;
    ck_assert_int_eq(normalize_src("root ::= \"a\" | b\nb ::= b \"x\"\n", &n), GCG_OK);
    ck_assert_uint_eq(n.diag.n_errors, 0);
    ck_assert_uint_eq(n.diag.n, 1);
    ck_assert_int_eq(n.diag.v[0].severity, GCG_SEV_WARNING);
    ck_assert_str_eq(n.diag.v[0].msg,
                     "rule \"b\" can never match (every alternative needs itself or an empty class)");
    ck_assert_uint_eq(n.diag.v[0].line, 2);
    ck_assert_uint_eq(n.diag.v[0].col, 1);
    ck_assert_uint_eq(nt_named(&n.g, "b"), UINT32_MAX);
    ck_assert_uint_eq(n.g.n_nts, 2);
    ck_assert_uint_eq(n.g.n_prods, 2);
    ck_assert_str_eq(n.g.nts[n.g.prods[1].lhs].name, "root");
    ck_assert_uint_eq(n.g.prods[1].len, 1);
    check_invariants(&n.g, "unproductive");
    normed_free(&n);
}
END_TEST

START_TEST(test_unproductive_chain_and_empty_class)
{
    normed n;
    /* c needs an empty class; b needs c; both go, each with a warning. */
    ck_assert_int_eq(normalize_src("root ::= \"a\" | b \"z\"\nb ::= c\nc ::= [^\\x00-\\U0010FFFF]\n", &n),
                     GCG_OK);
    ck_assert_uint_eq(n.diag.n_errors, 0);
    ck_assert_uint_eq(n.diag.n, 2);
    ck_assert_str_eq(n.diag.v[0].msg,
                     "rule \"b\" can never match (every alternative needs itself or an empty class)");
    ck_assert_uint_eq(n.diag.v[0].line, 2);
    ck_assert_str_eq(n.diag.v[1].msg,
                     "rule \"c\" can never match (every alternative needs itself or an empty class)");
    ck_assert_uint_eq(n.diag.v[1].line, 3);
    ck_assert_uint_eq(n.g.n_nts, 2);
    ck_assert_uint_eq(n.g.n_prods, 2);
    check_invariants(&n.g, "unproductive chain");
    normed_free(&n);
}
END_TEST

START_TEST(test_root_unproductive_is_error)
{
    normed n;
    ck_assert_int_eq(normalize_src("# comment\nroot ::= root \"a\" | b\nb ::= root\n", &n), GCG_ERR_ARG);
    ck_assert_uint_eq(n.diag.n_errors, 1);
    const gcg_diag_entry *e = &n.diag.v[n.diag.n - 1];
    ck_assert_int_eq(e->severity, GCG_SEV_ERROR);
    ck_assert_str_eq(e->msg, "rule \"root\" matches no text at all (the language is empty)");
    ck_assert_uint_eq(e->line, 2);
    ck_assert_uint_eq(e->col, 1);
    normed_free(&n);
}
END_TEST

START_TEST(test_root_unproductive_through_compile)
{
    gcg_diag d;
    gcg_diag_init(&d, "g.gbnf");
    const char *src = "root ::= [^\\x00-\\U0010FFFF]\n";
    uint8_t *out = (uint8_t *)1;
    size_t size = 1;
    ck_assert_int_eq(gcg_compile(src, strlen(src), NULL, false, &out, &size, NULL, &d), GCG_ERR_ARG);
    ck_assert_ptr_null(out);
    ck_assert_uint_eq(size, 0);
    ck_assert_uint_eq(d.n_errors, 1);
    ck_assert_str_eq(d.v[d.n - 1].msg, "rule \"root\" matches no text at all (the language is empty)");
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_unreachable_removed)
{
    normed n;
    ck_assert_int_eq(normalize_src("root ::= \"a\" v\nu ::= w \"b\"\nw ::= u | \"c\"\nv ::= \"v\"*\n", &n),
                     GCG_OK);
    ck_assert_uint_eq(nt_named(&n.g, "u"), UINT32_MAX);
    ck_assert_uint_eq(nt_named(&n.g, "w"), UINT32_MAX);
    ck_assert_uint_ne(nt_named(&n.g, "v"), UINT32_MAX);
    /* $start, root, v, v's list. */
    ck_assert_uint_eq(n.g.n_nts, 4);
    ck_assert_uint_eq(n.g.n_prods, 5);
    check_invariants(&n.g, "unreachable");
    normed_free(&n);
}
END_TEST

/* ---- shapes after normalization ----------------------------------------- */

START_TEST(test_list_keeps_epsilon)
{
    /* A plain X* list is safe: R -> R x | ε stays as it is. */
    normed n;
    ck_assert_int_eq(normalize_src("root ::= \"[\" x* \"]\"\nx ::= \"x\"\n", &n), GCG_OK);
    uint32_t r = nt_named(&n.g, "root/list@1:14");
    ck_assert_uint_ne(r, UINT32_MAX);
    uint32_t eps = 0, rec = 0;
    for (uint32_t p = 0; p < n.g.n_prods; p++) {
        if (n.g.prods[p].lhs != r)
            continue;
        eps += n.g.prods[p].len == 0;
        rec += n.g.prods[p].len == 2 && n.g.rhs[n.g.prods[p].rhs] == r;
    }
    ck_assert_uint_eq(eps, 1);
    ck_assert_uint_eq(rec, 1);
    ck_assert_uint_eq(n.g.n_prods, 5);
    for (uint32_t a = 0; a < n.g.n_nts; a++)
        ck_assert_int_ne(n.g.nts[a].kind, CFG_NT_NONEMPTY);
    check_invariants(&n.g, "list");
    normed_free(&n);
}
END_TEST

START_TEST(test_nullable_star_gets_nonempty_twin)
{
    normed n;
    ck_assert_int_eq(normalize_src("root ::= (a?)*\na ::= \"a\"\n", &n), GCG_OK);
    /* The list's element loses ε: R -> R X' | ε, X' non-nullable. */
    uint32_t r = nt_named(&n.g, "root/list@1:11");
    ck_assert_uint_ne(r, UINT32_MAX);
    uint32_t twins = 0;
    for (uint32_t a = 0; a < n.g.n_nts; a++)
        twins += n.g.nts[a].kind == CFG_NT_NONEMPTY;
    ck_assert_uint_ge(twins, 1);
    bool nul[64];
    ck_assert_uint_le(n.g.n_nts, 64);
    cfg_nullable(&n.g, nul);
    for (uint32_t p = 0; p < n.g.n_prods; p++)
        if (n.g.prods[p].lhs == r && n.g.prods[p].len == 2) {
            uint32_t x = n.g.rhs[n.g.prods[p].rhs + 1];
            ck_assert(!CFG_IS_TERM(x));
            ck_assert(!nul[x]);
        }
    check_invariants(&n.g, "(a?)*");
    normed_free(&n);
}
END_TEST

START_TEST(test_unit_cycle_collapsed)
{
    normed n;
    ck_assert_int_eq(normalize_src("root ::= a\na ::= b | \"x\"\nb ::= a\n", &n), GCG_OK);
    /* a and b become one nonterminal (named after a user rule). */
    ck_assert_uint_eq(n.g.n_nts, 3);
    ck_assert_uint_eq(n.g.n_prods, 3);
    bool has_a = nt_named(&n.g, "a") != UINT32_MAX, has_b = nt_named(&n.g, "b") != UINT32_MAX;
    ck_assert(has_a != has_b);
    check_invariants(&n.g, "unit cycle");
    normed_free(&n);
}
END_TEST

START_TEST(test_duplicates_merged)
{
    normed n;
    ck_assert_int_eq(normalize_src("root ::= \"ab\" | \"ab\" | a | a\na ::= \"c\"\n", &n), GCG_OK);
    ck_assert_uint_eq(n.g.n_prods, 4); /* start, root -> a b, root -> a, a -> c */
    check_invariants(&n.g, "duplicates");
    normed_free(&n);
}
END_TEST

START_TEST(test_equal_rules_merged)
{
    normed n;
    ck_assert_int_eq(normalize_any(MERGE_SRC, &n, false), GCG_OK);
    ck_assert_uint_eq(count_kind(&n.g, CFG_NT_COUNT), 9); /* x{0,2}: links 0..2, three times */
    normed_free(&n);
    ck_assert_int_eq(normalize_any(MERGE_SRC, &n, true), GCG_OK);
    bool has_a = nt_named(&n.g, "a") != UINT32_MAX, has_b = nt_named(&n.g, "b") != UINT32_MAX;
    ck_assert(has_a != has_b);
    ck_assert(nt_named(&n.g, "c") != UINT32_MAX);
    ck_assert_uint_eq(count_kind(&n.g, CFG_NT_COUNT), 6); /* a's chain (b's merged), c's own */
    check_invariants(&n.g, "merged");
    normed_free(&n);
}
END_TEST

/* Two key tries of the same shape in different places (the schema
 * converter writes one per object, left-linear): equal steps merge only
 * within a place, since a step reduces over the entry below its walk and
 * the goto there differs by place. The bases, one terminal each, merge. */
START_TEST(test_left_steps_split_by_place)
{
    normed n;
    const char *src = "root ::= \"{\" ka2 \"1\" | \"[\" kb2 \"2\"\nka ::= \"'\"\nka2 ::= ka \"a\"\n"
                      "kb ::= \"'\"\nkb2 ::= kb \"a\"\n";
    ck_assert_int_eq(normalize_any(src, &n, true), GCG_OK);
    ck_assert(nt_named(&n.g, "ka2") != UINT32_MAX);
    ck_assert(nt_named(&n.g, "kb2") != UINT32_MAX);
    check_invariants(&n.g, "left steps");
    normed_free(&n);
}
END_TEST

/* Exact counts of one x in different places: their links start merged and
 * the places tell them apart from the top down. Handed down each chain in
 * one pass, that takes a few passes; one link a pass, it would run out of
 * passes and block every chain from merging, a and b's included. */
START_TEST(test_exact_chains_split_in_few_passes)
{
    normed n;
    const char *src = "root ::= a b c d\na ::= \"x\"{0,2} \"!\"\nb ::= \"x\"{0,2} \"!\"\n"
                      "c ::= \"[\" \"x\"{25} \"]\"\nd ::= \"(\" \"x\"{30} \")\"\n";
    ck_assert_int_eq(normalize_any(src, &n, true), GCG_OK);
    bool has_a = nt_named(&n.g, "a") != UINT32_MAX, has_b = nt_named(&n.g, "b") != UINT32_MAX;
    ck_assert(has_a != has_b);
    ck_assert_uint_eq(count_kind(&n.g, CFG_NT_COUNT), 3 + 26 + 31); /* a's (b's merged), c's, d's */
    check_invariants(&n.g, "exact chains");
    normed_free(&n);
}
END_TEST

/* Rules that derive themselves are not compared (hash-consing cannot):
 * two equal lists stay two. */
START_TEST(test_recursive_rules_kept)
{
    normed n;
    ck_assert_int_eq(normalize_any("root ::= a \"!\" b\na ::= \"(\" a \")\" | \"x\"\n"
                                   "b ::= \"(\" b \")\" | \"x\"\n", &n, true), GCG_OK);
    ck_assert(nt_named(&n.g, "a") != UINT32_MAX);
    ck_assert(nt_named(&n.g, "b") != UINT32_MAX);
    normed_free(&n);
}
END_TEST

/* The key trie becomes left-linear: g2 and g3 are read as prefixes of g1,
 * and g1's exits share x* through one nonterminal. */
START_TEST(test_key_trie_left_linear)
{
    normed n;
    ck_assert_int_eq(normalize_any(KEYS_SRC, &n, false), GCG_OK);
    ck_assert(nt_named(&n.g, "g2") != UINT32_MAX);
    normed_free(&n);
    ck_assert_int_eq(normalize_any(KEYS_SRC, &n, true), GCG_OK);
    ck_assert(nt_named(&n.g, "g1") != UINT32_MAX);
    ck_assert(nt_named(&n.g, "g2") == UINT32_MAX);
    ck_assert(nt_named(&n.g, "g3") == UINT32_MAX);
    uint32_t hoist = UINT32_MAX;
    for (uint32_t a = 0; a < n.g.n_nts; a++)
        if (strncmp(n.g.nts[a].name, "g1/tail>", 8) == 0)
            hoist = a;
    ck_assert_uint_ne(hoist, UINT32_MAX);
    check_invariants(&n.g, "key trie");
    normed_free(&n);
}
END_TEST

/* A group whose exits end in different symbols stays as written. */
START_TEST(test_tail_group_without_shared_end_kept)
{
    normed n;
    ck_assert_int_eq(normalize_any("root ::= \"{\" g \"}\"\ng ::= \"a\" r1 | \"b\" r2\nr1 ::= \"1\" s\n"
                                   "r2 ::= \"2\" t\ns ::= \"s\"*\nt ::= \"t\"*\n", &n, true), GCG_OK);
    ck_assert(nt_named(&n.g, "r1") != UINT32_MAX);
    ck_assert(nt_named(&n.g, "r2") != UINT32_MAX);
    normed_free(&n);
}
END_TEST

START_TEST(test_twelve_nullables_no_blowup)
{
    static const char *const srcs[] = {
        "root ::= r\nr ::= \"a\"? \"b\"? \"c\"? \"d\"? \"e\"? \"f\"? \"g\"? \"h\"? \"i\"? \"j\"? \"k\"? "
        "\"l\"? r |\n",
        "root ::= (\"a\"? \"b\"? \"c\"? \"d\"? \"e\"? \"f\"? \"g\"? \"h\"? \"i\"? \"j\"? \"k\"? \"l\"?)*\n",
        "root ::= r\nr ::= r \"a\"? \"b\"? \"c\"? \"d\"? \"e\"? \"f\"? \"g\"? \"h\"? \"i\"? \"j\"? \"k\"? "
        "\"l\"? |\n",
    };
    for (size_t i = 0; i < sizeof srcs / sizeof *srcs; i++) {
        normed n;
        ck_assert_int_eq(normalize_src(srcs[i], &n), GCG_OK);
        /* 2^12 = 4096 variants would be the blowup; a linear expansion of
         * 12 optionals (lowered to ~40 productions) stays under 200. */
        ck_assert_msg(n.g.n_prods <= 200, "case %zu: %u productions", i, n.g.n_prods);
        ck_assert_msg(n.g.n_rhs <= 600, "case %zu: %u rhs items", i, n.g.n_rhs);
        check_invariants(&n.g, srcs[i]);
        normed_free(&n);
    }
}
END_TEST

/* root ::= ("A"? "B"? ... k optionals)* */
static void optionals_src(char *src, size_t cap, int k)
{
    size_t len = (size_t)snprintf(src, cap, "root ::= (");
    for (int i = 0; i < k; i++)
        len += (size_t)snprintf(src + len, cap - len, "\"%c\"? ", 'A' + (i % 26));
    snprintf(src + len, cap - len, ")*\n");
}

/* 16 optionals split into 4 chunks of 4; 17 need a fifth chunk, and the
 * production of chunk heads then has 5 nullable symbols itself. */
START_TEST(test_seventeen_nullables_in_cycle)
{
    char src[2048];
    optionals_src(src, sizeof src, 16);
    normed n;
    ck_assert_int_eq(normalize_src(src, &n), GCG_OK);
    check_invariants(&n.g, "sixteen");
    normed_free(&n);
    optionals_src(src, sizeof src, 17);
    gcg_status st = normalize_src(src, &n);
    ck_assert_msg(st == GCG_OK, "17 optionals in a nullable cycle: status %d, %u errors", st,
                  n.diag.n_errors);
    ck_assert_msg(n.g.n_prods <= 300, "%u productions", n.g.n_prods);
    check_invariants(&n.g, "seventeen");
    normed_free(&n);
}
END_TEST

START_TEST(test_forty_nullables_linear)
{
    /* 40 optional symbols in a nullable cycle: 2^40 would never finish. */
    char src[2048];
    optionals_src(src, sizeof src, 40);
    normed n;
    ck_assert_int_eq(normalize_src(src, &n), GCG_OK);
    ck_assert_msg(n.g.n_prods <= 700, "%u productions", n.g.n_prods);
    check_invariants(&n.g, "forty");
    normed_free(&n);
}
END_TEST

START_TEST(test_seventeen_nullables_language)
{
    /* Through the whole compiler: the language is [A-Q]*. */
    char src[2048];
    optionals_src(src, sizeof src, 17);
    gcg_diag d;
    gcg_diag_init(&d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    gcg_compile_options opt = {0};
    opt.no_automaton = true;
    gcg_status st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, &d);
    ck_assert_msg(st == GCG_OK, "compile: status %d: %s", st, d.n ? d.v[0].msg : "");
    gcg_diag_free(&d);
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    free(bytes);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"QAPBBQ", 6, NULL), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"R", 1, NULL), GCG_ERR_REJECTED);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
}
END_TEST

/* The checker finds the problems it checks for (on un-normalized grammars). */
START_TEST(test_checker_detects)
{
    static const char *const bad[] = {
        "root ::= (\"a\"?)*\n",                                  /* A =>+ A            */
        "root ::= x\nx ::= \"y\"? x \"c\" | \"d\"\n",            /* hidden left rec.   */
        "root ::= a\na ::= a a | \"x\" |\n",                     /* A -> A A, nullable */
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        normed n;
        memset(&n, 0, sizeof n);
        gcg_diag_init(&n.diag, NULL);
        ck_assert_int_eq(gcg_gbnf_parse(bad[i], strlen(bad[i]), NULL, &n.ast, &n.diag), GCG_OK);
        ck_assert_int_eq(gcg_lower(&n.ast, &n.g, NULL, &n.diag), GCG_OK);
        ck_assert_msg(!invariants_hold_nofork(&n.g), "checker missed case %zu", i);
        ck_assert_int_eq(gcg_normalize(&n.g, &n.ast, &n.diag), GCG_OK);
        ck_assert_msg(invariants_hold_nofork(&n.g), "case %zu not fixed", i);
        normed_free(&n);
    }
}
END_TEST

START_TEST(test_invariants_lang_cases)
{
    normed n;
    ck_assert_int_eq(normalize_src(lang_cases[_i].src, &n), GCG_OK);
    check_invariants(&n.g, lang_cases[_i].name);
    normed_free(&n);
}
END_TEST

static const char *const shipped[] = {"json", "arith", "markdown", "chess", "ambiguous", "unicode",
                                      "c_subset"};

START_TEST(test_invariants_shipped)
{
    char path[512];
    snprintf(path, sizeof path, "%s/grammars/%s.gbnf", GCG_SOURCE_ROOT, shipped[_i]);
    size_t len;
    char *src = test_read_file(path, &len);
    normed n;
    memset(&n, 0, sizeof n);
    gcg_diag_init(&n.diag, path);
    ck_assert_int_eq(gcg_gbnf_parse(src, len, NULL, &n.ast, &n.diag), GCG_OK);
    ck_assert_int_eq(gcg_lower(&n.ast, &n.g, NULL, &n.diag), GCG_OK);
    ck_assert_int_eq(gcg_normalize(&n.g, &n.ast, &n.diag), GCG_OK);
    ck_assert_uint_eq(n.diag.n_errors, 0);
    check_invariants(&n.g, shipped[_i]);
    normed_free(&n);
    free(src);
}
END_TEST

static Suite *normalize_suite(void)
{
    Suite *s = suite_create("normalize");
    TCase *tc = tcase_create("reduce");
    tcase_add_test(tc, test_unproductive_removed_with_warning);
    tcase_add_test(tc, test_unproductive_chain_and_empty_class);
    tcase_add_test(tc, test_root_unproductive_is_error);
    tcase_add_test(tc, test_root_unproductive_through_compile);
    tcase_add_test(tc, test_unreachable_removed);
    suite_add_tcase(s, tc);
    tc = tcase_create("shapes");
    tcase_add_test(tc, test_list_keeps_epsilon);
    tcase_add_test(tc, test_nullable_star_gets_nonempty_twin);
    tcase_add_test(tc, test_unit_cycle_collapsed);
    tcase_add_test(tc, test_duplicates_merged);
    tcase_add_test(tc, test_equal_rules_merged);
    tcase_add_test(tc, test_exact_chains_split_in_few_passes);
    tcase_add_test(tc, test_left_steps_split_by_place);
    tcase_add_test(tc, test_recursive_rules_kept);
    tcase_add_test(tc, test_key_trie_left_linear);
    tcase_add_test(tc, test_tail_group_without_shared_end_kept);
    tcase_add_test(tc, test_twelve_nullables_no_blowup);
    tcase_add_test(tc, test_seventeen_nullables_in_cycle);
    tcase_add_test(tc, test_forty_nullables_linear);
    tcase_add_test(tc, test_seventeen_nullables_language);
    suite_add_tcase(s, tc);
    tc = tcase_create("invariants");
    tcase_add_test(tc, test_checker_detects);
    tcase_add_loop_test(tc, test_invariants_lang_cases, 0, sizeof lang_cases / sizeof *lang_cases);
    tcase_add_loop_test(tc, test_invariants_shipped, 0, sizeof shipped / sizeof *shipped);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    tc = tcase_create("language");
    tcase_add_test(tc, test_oracles_fixed_points);
    tcase_add_loop_test(tc, test_language, 0, sizeof lang_cases / sizeof *lang_cases);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(normalize_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
