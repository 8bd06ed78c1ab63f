/*
 * test_lr.c — LALR(1) tables (gcg_lr_build) on textbook grammars, with
 * exact state counts, conflict counts and action rows:
 *
 *   - ARCHITECTURE.md's worked example S -> ( S ) | x: six states, each row
 *     exactly as the design describes;
 *   - the dragon book's S -> L = R | R, L -> * R | id, R -> L: ten states,
 *     no conflict (SLR would have one on "=");
 *   - S -> a A d | b B d | a B e | b A e, A -> c, B -> c: LR(1) but not
 *     LALR(1): merging the two {A -> c., B -> c.} states gives reduce/reduce
 *     conflicts on d and on e;
 *   - the ambiguous E -> E + E | a: one shift/reduce cell;
 *   - ε-productions, and ε reduce/reduce conflicts;
 *   - two reductions with the same lhs and length are merged, not counted;
 *   - a state whose shifts advance 64 items, and one with 65; a closure of
 *     600 items;
 *   - merging equivalent states (gcg_lr_minimize): root ::= "a" t | "b" t
 *     8 -> 6 states, its reductions of root made one production; with t and
 *     u of one body, only the two states reducing root merge (10 -> 9);
 *   - structural properties on the shipped grammars: every shift/goto target
 *     has the symbol it was reached by as its accessing symbol, every cell
 *     decodes to an existing state or production.
 *
 * States are named by the path of symbols that reaches them from state 0
 * (which determines the LR(0) kernel), never by their number.
 */
#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/artifact_format.h"
#include "byteclass.h"
#include "cfg.h"
#include "gbnf.h"
#include "lower.h"
#include "lr_build.h"
#include "lr_minimize.h"
#include "normalize.h"

typedef struct built {
    gbnf_grammar ast;
    cfg g;
    byteclass bc;
    lr_tables t;
    gcg_diag diag;
} built;

static void build_src(const char *src, built *b)
{
    memset(b, 0, sizeof *b);
    gcg_diag_init(&b->diag, "t.gbnf");
    ck_assert_int_eq(gcg_gbnf_parse(src, strlen(src), NULL, &b->ast, &b->diag), GCG_OK);
    ck_assert_int_eq(gcg_lower(&b->ast, &b->g, NULL, &b->diag), GCG_OK);
    ck_assert_int_eq(gcg_normalize(&b->g, &b->ast, &b->diag), GCG_OK);
    ck_assert_int_eq(gcg_byteclass_build(&b->g, &b->bc), GCG_OK);
    ck_assert_int_eq(gcg_lr_build(&b->g, &b->bc, NULL, &b->t, &b->diag), GCG_OK);
    ck_assert_uint_eq(b->diag.n_errors, 0);
}

static void built_free(built *b)
{
    gcg_lr_free(&b->t);
    gcg_byteclass_free(&b->bc);
    cfg_free(&b->g);
    gcg_gbnf_free(&b->ast);
    gcg_diag_free(&b->diag);
}

static uint32_t nt(const built *b, const char *name)
{
    for (uint32_t a = 0; a < b->g.n_nts; a++)
        if (strcmp(b->g.nts[a].name, name) == 0)
            return a;
    ck_abort_msg("no nonterminal %s", name);
    return UINT32_MAX;
}

static uint32_t term(const built *b, uint8_t byte)
{
    return b->bc.class_of[byte];
}

static uint32_t eoi(const built *b)
{
    return b->t.n_terms - 1;
}

static uint32_t cell(const built *b, uint32_t state, uint32_t t)
{
    ck_assert_uint_lt(state, b->t.n_states);
    ck_assert_uint_lt(t, b->t.n_terms);
    return lr_action(&b->t, state, t);
}

/* The production lhs -> items, items written as a string: a lowercase
 * letter or punctuation is that byte's singleton set, an uppercase letter
 * names a nonterminal through `map` ("A=a,B=b"), "" is ε. */
static uint32_t prod_of(const built *b, const char *lhs, const char *items, const char *map)
{
    uint32_t l = nt(b, lhs), n = (uint32_t)strlen(items);
    for (uint32_t p = 0; p < b->g.n_prods; p++) {
        const cfg_prod *pr = &b->g.prods[p];
        if (pr->lhs != l || pr->len != n)
            continue;
        bool same = true;
        for (uint32_t k = 0; k < n && same; k++) {
            uint32_t s = b->g.rhs[pr->rhs + k];
            char c = items[k];
            if (c >= 'A' && c <= 'Z') {
                const char *m = strchr(map, c);
                ck_assert_ptr_nonnull(m);
                char name[32];
                size_t i = 0;
                for (m += 2; *m && *m != ',' && i + 1 < sizeof name; m++)
                    name[i++] = *m;
                name[i] = 0;
                same = !CFG_IS_TERM(s) && s == nt(b, name);
            } else {
                bset256 want = {{0, 0, 0, 0}};
                bset_add(&want, (uint8_t)c);
                same = CFG_IS_TERM(s) && memcmp(&b->g.tsets[CFG_INDEX(s)], &want, sizeof want) == 0;
            }
        }
        if (same)
            return p;
    }
    ck_abort_msg("no production %s -> %s", lhs, items);
    return UINT32_MAX;
}

/* Follows a path from state 0: "(" is a byte, "#S" the nonterminal S. */
static uint32_t walk(const built *b, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    uint32_t s = 0;
    for (int i = 0; i < n; i++) {
        const char *sym = va_arg(ap, const char *);
        if (sym[0] == '#') {
            uint32_t x = nt(b, sym + 1);
            s = lr_goto(&b->t, s, x);
            ck_assert_msg(s != GCG_NO_GOTO, "no goto on %s", sym);
            ck_assert_uint_eq(b->t.accessing[s], x);
        } else {
            uint32_t c = cell(b, s, term(b, (uint8_t)sym[0]));
            if (GCG_ACT_KIND(c) == GCG_ACT_MULTI) /* a conflict: its shift, listed first */
                c = b->t.multi[GCG_ACT_ARG(c) + 1];
            ck_assert_msg(GCG_ACT_KIND(c) == GCG_ACT_SHIFT, "no shift on %s", sym);
            s = GCG_ACT_ARG(c);
            ck_assert(CFG_IS_TERM(b->t.accessing[s]));
        }
    }
    va_end(ap);
    return s;
}

#define SHIFT(s) GCG_ACT(GCG_ACT_SHIFT, (s))
#define REDUCE(p) GCG_ACT(GCG_ACT_REDUCE, (p))

/* The whole action row of `state`: `bytes` lists the terminals with an
 * action (NUL-free; '$' stands for end of input), `acts` their cells;
 * every other terminal must be an error. */
static void expect_row(const built *b, uint32_t state, const char *bytes, const uint32_t *acts)
{
    uint32_t want[257];
    for (uint32_t t = 0; t < b->t.n_terms; t++)
        want[t] = GCG_ACT_ERROR;
    for (size_t i = 0; bytes[i]; i++)
        want[bytes[i] == '$' ? eoi(b) : term(b, (uint8_t)bytes[i])] = acts[i];
    for (uint32_t t = 0; t < b->t.n_terms; t++)
        ck_assert_msg(cell(b, state, t) == want[t], "state %u terminal %u: cell 0x%08x, want 0x%08x",
                      state, t, cell(b, state, t), want[t]);
}

/* The gotos of `state`: names of the nonterminals with a goto and their
 * targets; every other goto must be absent. */
static void expect_gotos(const built *b, uint32_t state, int n, const char *const *names,
                         const uint32_t *targets)
{
    for (uint32_t x = 0; x < b->t.n_nts; x++) {
        uint32_t want = GCG_NO_GOTO;
        for (int i = 0; i < n; i++)
            if (x == nt(b, names[i]))
                want = targets[i];
        ck_assert_msg(lr_goto(&b->t, state, x) == want, "state %u goto %s", state,
                      b->g.nts[x].name);
    }
}

/* ---- the worked example --------------------------------------------------- */

START_TEST(test_worked_example)
{
    built b;
    build_src("root ::= \"(\" root \")\" | \"x\"\n", &b);
    ck_assert_uint_eq(b.bc.n_classes, 4); /* ( ) x and everything else */
    ck_assert_uint_eq(b.t.n_states, 6);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    ck_assert_uint_eq(b.t.rr_conflicts, 0);
    ck_assert_uint_eq(b.t.n_multi, 0);
    uint32_t p_paren = prod_of(&b, "root", "(S)", "S=root"), p_x = prod_of(&b, "root", "x", "");
    ck_assert_uint_eq(prod_of(&b, "$start", "S", "S=root"), 0);

    uint32_t s0 = 0;                              /* S' -> .S    */
    uint32_t s1 = walk(&b, 1, "#root");           /* S' -> S.    */
    uint32_t s2 = walk(&b, 1, "(");               /* S -> (.S)   */
    uint32_t s3 = walk(&b, 1, "x");               /* S -> x.     */
    uint32_t s4 = walk(&b, 2, "(", "#root");      /* S -> (S.)   */
    uint32_t s5 = walk(&b, 3, "(", "#root", ")"); /* S -> (S).   */
    uint32_t all[6] = {s0, s1, s2, s3, s4, s5};
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            ck_assert_uint_ne(all[i], all[j]);
    /* The same kernels again by other paths. */
    ck_assert_uint_eq(walk(&b, 2, "(", "("), s2);
    ck_assert_uint_eq(walk(&b, 2, "(", "x"), s3);
    ck_assert_uint_eq(walk(&b, 3, "(", "(", "#root"), s4);

    const char *S[] = {"root"};
    expect_row(&b, s0, "(x", (uint32_t[]){SHIFT(s2), SHIFT(s3)});
    expect_gotos(&b, s0, 1, S, (uint32_t[]){s1});
    expect_row(&b, s1, "$", (uint32_t[]){REDUCE(0)}); /* accept */
    expect_gotos(&b, s1, 0, NULL, NULL);
    expect_row(&b, s2, "(x", (uint32_t[]){SHIFT(s2), SHIFT(s3)});
    expect_gotos(&b, s2, 1, S, (uint32_t[]){s4});
    expect_row(&b, s3, ")$", (uint32_t[]){REDUCE(p_x), REDUCE(p_x)});
    expect_gotos(&b, s3, 0, NULL, NULL);
    expect_row(&b, s4, ")", (uint32_t[]){SHIFT(s5)});
    expect_gotos(&b, s4, 0, NULL, NULL);
    expect_row(&b, s5, ")$", (uint32_t[]){REDUCE(p_paren), REDUCE(p_paren)});
    expect_gotos(&b, s5, 0, NULL, NULL);

    /* Accessing symbols: the design's "below 2 and 3 lie 0 or 2". */
    ck_assert_uint_eq(b.t.accessing[s0], UINT32_MAX);
    ck_assert_uint_eq(b.t.accessing[s1], nt(&b, "root"));
    ck_assert_uint_eq(b.t.accessing[s4], nt(&b, "root"));
    ck_assert_uint_eq(b.t.accessing[s2], CFG_TERM | term(&b, '('));
    ck_assert_uint_eq(b.t.accessing[s3], CFG_TERM | term(&b, 'x'));
    ck_assert_uint_eq(b.t.accessing[s5], CFG_TERM | term(&b, ')'));
    ck_assert_uint_eq(b.t.prod_len[p_paren], 3);
    ck_assert_uint_eq(b.t.prod_lhs[p_paren], nt(&b, "root"));
    built_free(&b);
}
END_TEST

/* ---- dragon book 4.7: LALR(1) but not SLR(1) --------------------------------- */

START_TEST(test_dragon_lalr_not_slr)
{
    built b;
    build_src("root ::= l \"=\" r | r\nl ::= \"*\" r | \"i\"\nr ::= l\n", &b);
    ck_assert_uint_eq(b.t.n_states, 10);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    ck_assert_uint_eq(b.t.rr_conflicts, 0);
    ck_assert_uint_eq(b.t.n_multi, 0);
    const char *map = "S=root,L=l,R=r";
    uint32_t p_s1 = prod_of(&b, "root", "L=R", map), p_s2 = prod_of(&b, "root", "R", map);
    uint32_t p_l1 = prod_of(&b, "l", "*R", map), p_l2 = prod_of(&b, "l", "i", map);
    uint32_t p_r = prod_of(&b, "r", "L", map);

    uint32_t i0 = 0, i1 = walk(&b, 1, "#root"), i2 = walk(&b, 1, "#l"), i3 = walk(&b, 1, "#r");
    uint32_t i4 = walk(&b, 1, "*"), i5 = walk(&b, 1, "i"), i6 = walk(&b, 2, "#l", "=");
    uint32_t i7 = walk(&b, 2, "*", "#r"), i8 = walk(&b, 2, "*", "#l");
    uint32_t i9 = walk(&b, 3, "#l", "=", "#r");
    uint32_t all[10] = {i0, i1, i2, i3, i4, i5, i6, i7, i8, i9};
    for (int i = 0; i < 10; i++)
        for (int j = i + 1; j < 10; j++)
            ck_assert_uint_ne(all[i], all[j]);
    ck_assert_uint_eq(walk(&b, 3, "#l", "=", "*"), i4);
    ck_assert_uint_eq(walk(&b, 3, "#l", "=", "i"), i5);
    ck_assert_uint_eq(walk(&b, 3, "#l", "=", "#l"), i8);
    ck_assert_uint_eq(walk(&b, 2, "*", "*"), i4);

    const char *gn[] = {"root", "l", "r"};
    expect_row(&b, i0, "*i", (uint32_t[]){SHIFT(i4), SHIFT(i5)});
    expect_gotos(&b, i0, 3, gn, (uint32_t[]){i1, i2, i3});
    expect_row(&b, i1, "$", (uint32_t[]){REDUCE(0)});
    /* I2 = {S -> L.=R, R -> L.}: '=' is in FOLLOW(R) (I8 reduces on it),
     * so SLR would conflict here; the LALR lookahead of R -> L. is {$}. */
    expect_row(&b, i2, "=$", (uint32_t[]){SHIFT(i6), REDUCE(p_r)});
    expect_row(&b, i3, "$", (uint32_t[]){REDUCE(p_s2)});
    expect_row(&b, i4, "*i", (uint32_t[]){SHIFT(i4), SHIFT(i5)});
    expect_gotos(&b, i4, 2, (const char *[]){"l", "r"}, (uint32_t[]){i8, i7});
    expect_row(&b, i5, "=$", (uint32_t[]){REDUCE(p_l2), REDUCE(p_l2)});
    expect_row(&b, i6, "*i", (uint32_t[]){SHIFT(i4), SHIFT(i5)});
    expect_gotos(&b, i6, 2, (const char *[]){"l", "r"}, (uint32_t[]){i8, i9});
    expect_row(&b, i7, "=$", (uint32_t[]){REDUCE(p_l1), REDUCE(p_l1)});
    expect_row(&b, i8, "=$", (uint32_t[]){REDUCE(p_r), REDUCE(p_r)});
    expect_row(&b, i9, "$", (uint32_t[]){REDUCE(p_s1)});
    built_free(&b);
}
END_TEST

/* ---- LR(1) but not LALR(1) ------------------------------------------------ */

START_TEST(test_lr1_not_lalr1)
{
    built b;
    build_src("root ::= \"a\" x \"d\" | \"b\" y \"d\" | \"a\" y \"e\" | \"b\" x \"e\"\n"
              "x ::= \"c\"\ny ::= \"c\"\n",
              &b);
    /* Canonical LR(1) has 14 states; LALR merges the two {A -> c., B -> c.}. */
    ck_assert_uint_eq(b.t.n_states, 13);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    ck_assert_uint_eq(b.t.rr_conflicts, 2);
    uint32_t merged = walk(&b, 2, "a", "c");
    ck_assert_uint_eq(walk(&b, 2, "b", "c"), merged);
    uint32_t px = prod_of(&b, "x", "c", ""), py = prod_of(&b, "y", "c", "");
    for (const char *t = "de"; *t; t++) {
        uint32_t c = cell(&b, merged, term(&b, (uint8_t)*t));
        ck_assert_uint_eq(GCG_ACT_KIND(c), GCG_ACT_MULTI);
        const uint32_t *m = b.t.multi + GCG_ACT_ARG(c);
        ck_assert_uint_lt(GCG_ACT_ARG(c) + 2, b.t.n_multi);
        ck_assert_uint_eq(m[0], 2);
        ck_assert_uint_eq(m[1], REDUCE(px < py ? px : py));
        ck_assert_uint_eq(m[2], REDUCE(px < py ? py : px));
    }
    ck_assert_uint_eq(cell(&b, merged, eoi(&b)), GCG_ACT_ERROR);
    ck_assert_uint_eq(cell(&b, merged, term(&b, 'c')), GCG_ACT_ERROR);
    ck_assert_uint_eq(b.t.n_multi, 6);
    /* After the merged state, each context still takes only its own path. */
    expect_row(&b, walk(&b, 2, "a", "#x"), "d", (uint32_t[]){SHIFT(walk(&b, 3, "a", "#x", "d"))});
    expect_row(&b, walk(&b, 2, "a", "#y"), "e", (uint32_t[]){SHIFT(walk(&b, 3, "a", "#y", "e"))});
    built_free(&b);
}
END_TEST

/* ---- ambiguity ------------------------------------------------------------- */

START_TEST(test_ambiguous_sum)
{
    built b;
    build_src("root ::= root \"+\" root | \"a\"\n", &b);
    ck_assert_uint_eq(b.t.n_states, 5);
    ck_assert_uint_eq(b.t.sr_conflicts, 1);
    ck_assert_uint_eq(b.t.rr_conflicts, 0);
    ck_assert_uint_eq(b.t.n_multi, 3);
    uint32_t p_sum = prod_of(&b, "root", "E+E", "E=root"), p_a = prod_of(&b, "root", "a", "");
    uint32_t s_a = walk(&b, 1, "a"), s_e = walk(&b, 1, "#root"), s_plus = walk(&b, 2, "#root", "+");
    uint32_t s_sum = walk(&b, 3, "#root", "+", "#root");
    expect_row(&b, 0, "a", (uint32_t[]){SHIFT(s_a)});
    expect_row(&b, s_a, "+$", (uint32_t[]){REDUCE(p_a), REDUCE(p_a)});
    expect_row(&b, s_e, "+$", (uint32_t[]){SHIFT(s_plus), REDUCE(0)});
    expect_row(&b, s_plus, "a", (uint32_t[]){SHIFT(s_a)});
    ck_assert_uint_eq(walk(&b, 4, "#root", "+", "#root", "+"), s_plus);
    /* E -> E + E . | E . + E: shift and reduce on "+", reduce on $. */
    uint32_t c = cell(&b, s_sum, term(&b, '+'));
    ck_assert_uint_eq(GCG_ACT_KIND(c), GCG_ACT_MULTI);
    const uint32_t *m = b.t.multi + GCG_ACT_ARG(c);
    ck_assert_uint_eq(m[0], 2);
    ck_assert_uint_eq(m[1], SHIFT(s_plus));
    ck_assert_uint_eq(m[2], REDUCE(p_sum));
    ck_assert_uint_eq(cell(&b, s_sum, eoi(&b)), REDUCE(p_sum));
    built_free(&b);
}
END_TEST

START_TEST(test_ambiguous_concat)
{
    built b;
    build_src("root ::= root root | \"a\"\n", &b);
    /* S' -> .S; S -> a.; S' -> S., S -> S.S; S -> S S., S -> S.S */
    ck_assert_uint_eq(b.t.n_states, 4);
    ck_assert_uint_eq(b.t.sr_conflicts, 1);
    ck_assert_uint_eq(b.t.rr_conflicts, 0);
    built_free(&b);
}
END_TEST

/* ---- ε-productions ----------------------------------------------------------- */

START_TEST(test_epsilon_productions)
{
    built b;
    build_src("root ::= a b \"c\"\na ::= | \"a\"\nb ::= | \"b\"\n", &b);
    ck_assert_uint_eq(b.t.n_states, 7);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    ck_assert_uint_eq(b.t.rr_conflicts, 0);
    const char *map = "A=a,B=b";
    uint32_t pa0 = prod_of(&b, "a", "", map), pa1 = prod_of(&b, "a", "a", map);
    uint32_t pb0 = prod_of(&b, "b", "", map), pb1 = prod_of(&b, "b", "b", map);
    uint32_t pr = prod_of(&b, "root", "ABc", map);
    uint32_t s_a = walk(&b, 1, "a"), s_A = walk(&b, 1, "#a"), s_B = walk(&b, 2, "#a", "#b");
    uint32_t s_b = walk(&b, 2, "#a", "b"), s_c = walk(&b, 3, "#a", "#b", "c");
    uint32_t s_R = walk(&b, 1, "#root");
    /* State 0 reduces a -> ε on FIRST(b c) = {b, c}; not on $ or "a". */
    expect_row(&b, 0, "abc", (uint32_t[]){SHIFT(s_a), REDUCE(pa0), REDUCE(pa0)});
    expect_gotos(&b, 0, 2, (const char *[]){"root", "a"}, (uint32_t[]){s_R, s_A});
    expect_row(&b, s_a, "bc", (uint32_t[]){REDUCE(pa1), REDUCE(pa1)});
    expect_row(&b, s_A, "bc", (uint32_t[]){SHIFT(s_b), REDUCE(pb0)});
    expect_gotos(&b, s_A, 1, (const char *[]){"b"}, (uint32_t[]){s_B});
    expect_row(&b, s_b, "c", (uint32_t[]){REDUCE(pb1)});
    expect_row(&b, s_B, "c", (uint32_t[]){SHIFT(s_c)});
    expect_row(&b, s_c, "$", (uint32_t[]){REDUCE(pr)});
    expect_row(&b, s_R, "$", (uint32_t[]){REDUCE(0)});
    built_free(&b);
}
END_TEST

START_TEST(test_epsilon_reduce_reduce)
{
    built b;
    /* Two different empty nonterminals before "x": one r/r cell in state 0. */
    build_src("root ::= a \"x\" | b \"x\" \"y\"\na ::= \"\"\nb ::= ()\n", &b);
    ck_assert_uint_eq(b.t.rr_conflicts, 1);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    uint32_t c = cell(&b, 0, term(&b, 'x'));
    ck_assert_uint_eq(GCG_ACT_KIND(c), GCG_ACT_MULTI);
    const uint32_t *m = b.t.multi + GCG_ACT_ARG(c);
    ck_assert_uint_eq(m[0], 2);
    uint32_t pa = prod_of(&b, "a", "", ""), pb = prod_of(&b, "b", "", "");
    ck_assert_uint_eq(m[1], REDUCE(pa < pb ? pa : pb));
    ck_assert_uint_eq(m[2], REDUCE(pa < pb ? pb : pa));
    built_free(&b);
}
END_TEST

/* ---- merged reductions ------------------------------------------------------- */

START_TEST(test_same_lhs_and_length_merged)
{
    built b;
    /* a -> [x] and a -> [x-y] both complete after "x": one action. */
    build_src("root ::= a\na ::= \"x\" | [x-y]\n", &b);
    ck_assert_uint_eq(b.t.rr_conflicts, 0);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    ck_assert_uint_eq(b.t.n_multi, 0);
    uint32_t sx = walk(&b, 1, "x"), sy = walk(&b, 1, "y");
    ck_assert_uint_ne(sx, sy);
    uint32_t c = cell(&b, sx, eoi(&b));
    ck_assert_uint_eq(GCG_ACT_KIND(c), GCG_ACT_REDUCE);
    ck_assert_uint_eq(b.t.prod_lhs[GCG_ACT_ARG(c)], nt(&b, "a"));
    ck_assert_uint_eq(b.t.prod_len[GCG_ACT_ARG(c)], 1);
    built_free(&b);

    /* Different left-hand sides are a real conflict. */
    build_src("root ::= a | b\na ::= \"x\"\nb ::= [x-y]\n", &b);
    ck_assert_uint_eq(b.t.rr_conflicts, 1);
    ck_assert_uint_eq(b.t.n_multi, 3);
    ck_assert_uint_eq(GCG_ACT_KIND(cell(&b, walk(&b, 1, "x"), eoi(&b))), GCG_ACT_MULTI);
    ck_assert_uint_eq(GCG_ACT_KIND(cell(&b, walk(&b, 1, "y"), eoi(&b))), GCG_ACT_REDUCE);
    built_free(&b);

    /* Same lhs, different lengths (a -> x y. and a -> y. after "x y"):
     * they pop different amounts, so they are a conflict. */
    build_src("root ::= \"x\" a | a\na ::= \"x\" \"y\" | \"y\"\n", &b);
    ck_assert_uint_eq(b.t.rr_conflicts, 1);
    ck_assert_uint_eq(b.t.sr_conflicts, 0);
    uint32_t c2 = cell(&b, walk(&b, 2, "x", "y"), eoi(&b));
    ck_assert_uint_eq(GCG_ACT_KIND(c2), GCG_ACT_MULTI);
    ck_assert_uint_eq(b.t.multi[GCG_ACT_ARG(c2)], 2);
    built_free(&b);
}
END_TEST

/* ---- many items shifting in one state ---------------------------------------- */

/* "q" and two letters, in 64 alternatives (a-h by a-h) or 65 ("qia" too):
 * the start state and the state after "q" hold 64 or 65 items with a byte
 * next, the most lr_build.c groups by item mask (MASK_ITEMS) and one over.
 * Either way the same shape: the start, root's goto, after "q", one state
 * per first letter and one per alternative, each alternative reduced on
 * end of input and nothing else. */
START_TEST(test_many_items_per_state)
{
    for (int extra = 0; extra <= 1; extra++) {
        char src[2048] = "root ::= ";
        for (int i = 0; i < 64 + extra; i++) {
            char alt[16];
            snprintf(alt, sizeof alt, "%s\"q%c%c\"", i ? " | " : "", i < 64 ? 'a' + i / 8 : 'i',
                     i < 64 ? 'a' + i % 8 : 'a');
            strcat(src, alt);
        }
        strcat(src, "\n");
        built b;
        build_src(src, &b);
        ck_assert_uint_eq(b.t.n_states, 3 + (8 + extra) + (64 + extra));
        uint32_t after_q = walk(&b, 1, "q"), after_qc = walk(&b, 2, "q", "c");
        ck_assert_uint_ne(after_qc, walk(&b, 2, "q", "d"));
        ck_assert_uint_eq(cell(&b, after_q, term(&b, 'j')), GCG_ACT_ERROR);
        ck_assert_uint_eq(cell(&b, after_q, term(&b, 'i')), extra ? SHIFT(walk(&b, 2, "q", "i")) : GCG_ACT_ERROR);
        ck_assert_uint_eq(cell(&b, after_qc, term(&b, 'i')), GCG_ACT_ERROR);
        uint32_t r = walk(&b, 3, "q", "c", "h");
        ck_assert_uint_eq(cell(&b, r, eoi(&b)), REDUCE(prod_of(&b, "root", "qch", "")));
        ck_assert_uint_ne(r, walk(&b, 3, "q", "c", "g"));
        built_free(&b);
    }
}
END_TEST

/* 300 rules a0..a299, aK the string "q" and K's three octal digits as
 * letters: state 0 has 300 items with a rule next and 300 with a byte next,
 * a closure whose pairs lr_build.c sorts by radix. States: the start,
 * root's goto, one goto per rule, after "q", per first digit (5), per two
 * digits (38) and per string (300). The pairs' order also numbers the
 * states, which the artifact's bytes depend on. */
START_TEST(test_many_rules_per_state)
{
    static char src[16384];
    int at = snprintf(src, sizeof src, "root ::= a0");
    for (int k = 1; k < 300; k++)
        at += snprintf(src + at, sizeof src - (size_t)at, " | a%d", k);
    at += snprintf(src + at, sizeof src - (size_t)at, "\n");
    for (int k = 0; k < 300; k++)
        at += snprintf(src + at, sizeof src - (size_t)at, "a%d ::= \"q%c%c%c\"\n", k, 'a' + k / 64,
                       'a' + k / 8 % 8, 'a' + k % 8);
    built b;
    build_src(src, &b);
    ck_assert_uint_eq(b.t.n_states, 1 + 1 + 300 + 1 + 5 + 38 + 300);
    uint32_t r = walk(&b, 4, "q", "e", "f", "d"); /* 4 * 64 + 5 * 8 + 3 = 299 */
    ck_assert_uint_eq(cell(&b, r, eoi(&b)), REDUCE(prod_of(&b, "a299", "qefd", "")));
    ck_assert_uint_eq(cell(&b, walk(&b, 2, "q", "e"), term(&b, 'g')), GCG_ACT_ERROR); /* 4 * 64 + 6 * 8 > 299 */
    ck_assert_uint_ne(walk(&b, 1, "#a7"), walk(&b, 1, "#a8"));
    /* targets are made in pair order, classes before rules, each ascending */
    ck_assert_uint_eq(walk(&b, 1, "q"), 1);
    ck_assert_uint_lt(walk(&b, 1, "#a0"), walk(&b, 1, "#a1"));
    ck_assert_uint_lt(walk(&b, 1, "#a1"), walk(&b, 1, "#a299"));
    built_free(&b);
}
END_TEST

/* ---- structural checks on the shipped grammars ------------------------------- */

static const char *const shipped[] = {"json", "arith", "markdown", "chess", "ambiguous", "unicode",
                                      "c_subset"};

START_TEST(test_tables_consistent)
{
    char path[512];
    snprintf(path, sizeof path, "%s/grammars/%s.gbnf", GCG_SOURCE_ROOT, shipped[_i]);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    static char src[1 << 16];
    size_t n = fread(src, 1, sizeof src - 1, f);
    fclose(f);
    src[n] = 0;
    built b;
    build_src(src, &b);
    const lr_tables *t = &b.t;
    ck_assert_uint_eq(t->n_terms, b.bc.n_classes + 1);
    ck_assert_uint_eq(t->accessing[0], UINT32_MAX);
    uint32_t sr = 0, rr = 0, accepts = 0;
    for (uint32_t s = 0; s < t->n_states; s++) {
        for (uint32_t x = 0; x < t->n_terms; x++) {
            uint32_t c = lr_action(t, s, x);
            const uint32_t *list = &c;
            uint32_t k = 1;
            if (GCG_ACT_KIND(c) == GCG_ACT_MULTI) {
                ck_assert_uint_lt(GCG_ACT_ARG(c), t->n_multi);
                list = t->multi + GCG_ACT_ARG(c) + 1;
                k = list[-1];
                ck_assert_uint_ge(k, 2);
                ck_assert_uint_le(GCG_ACT_ARG(c) + 1 + k, t->n_multi);
                uint32_t shifts = 0, reduces = 0;
                for (uint32_t i = 0; i < k; i++) {
                    shifts += GCG_ACT_KIND(list[i]) == GCG_ACT_SHIFT;
                    reduces += GCG_ACT_KIND(list[i]) == GCG_ACT_REDUCE;
                }
                ck_assert_uint_eq(shifts + reduces, k);
                ck_assert_uint_le(shifts, 1);
                sr += shifts == 1;
                rr += reduces > 1;
            }
            for (uint32_t i = 0; i < k; i++) {
                uint32_t a = list[i];
                if (GCG_ACT_KIND(a) == GCG_ACT_SHIFT) {
                    ck_assert_uint_lt(x, b.bc.n_classes); /* never shift end of input */
                    ck_assert_uint_lt(GCG_ACT_ARG(a), t->n_states);
                    /* Reached by a terminal (set): its accessing symbol is
                     * one of the classes of that set, never a nonterminal. */
                    uint32_t acc = t->accessing[GCG_ACT_ARG(a)];
                    ck_assert(CFG_IS_TERM(acc));
                    ck_assert_uint_lt(CFG_INDEX(acc), b.bc.n_classes);
                } else if (GCG_ACT_KIND(a) == GCG_ACT_REDUCE) {
                    ck_assert_uint_lt(GCG_ACT_ARG(a), t->n_prods);
                    if (GCG_ACT_ARG(a) == 0) {
                        ck_assert_uint_eq(x, t->n_terms - 1);
                        accepts++;
                    }
                }
            }
        }
        for (uint32_t a = 0; a < t->n_nts; a++) {
            uint32_t to = lr_goto(t, s, a);
            if (to != GCG_NO_GOTO) {
                ck_assert_uint_lt(to, t->n_states);
                ck_assert_uint_eq(t->accessing[to], a);
            }
        }
    }
    ck_assert_uint_eq(sr, t->sr_conflicts);
    ck_assert_uint_eq(rr, t->rr_conflicts);
    ck_assert_uint_eq(accepts, 1); /* only S' -> root. accepts */
    if (strcmp(shipped[_i], "json") == 0) {
        ck_assert_uint_eq(t->sr_conflicts, 0);
        ck_assert_uint_eq(t->rr_conflicts, 0);
    }
    built_free(&b);
}
END_TEST

/* ---- merged states (lr_minimize.h) ------------------------------------------ */

/* The state reached from 0 by shifting `bytes` (no conflicts on the way). */
static uint32_t after(const built *b, const char *bytes)
{
    uint32_t s = 0;
    for (const char *p = bytes; *p; p++) {
        uint32_t a = lr_action(&b->t, s, b->bc.class_of[(uint8_t)*p]);
        ck_assert_uint_eq(GCG_ACT_KIND(a), GCG_ACT_SHIFT);
        s = GCG_ACT_ARG(a);
    }
    return s;
}

/* The reduction state s makes at end of input: its production. */
static uint32_t reduce_at_end(const built *b, uint32_t s)
{
    uint32_t a = lr_action(&b->t, s, b->t.n_terms - 1);
    ck_assert_uint_eq(GCG_ACT_KIND(a), GCG_ACT_REDUCE);
    return GCG_ACT_ARG(a);
}

/* 0, $start ::= root ., after "a", after "b", t ::= x . y, t ::= x y .,
 * root ::= a t ., root ::= b t .: eight states; "a" and "b" lead to one
 * state, and so do "a" t and "b" t, both reducing by root's first
 * production of length 2. */
START_TEST(merges_equivalent_states)
{
    built b;
    build_src("root ::= \"a\" t | \"b\" t\nt ::= \"x\" \"y\"\n", &b);
    ck_assert_uint_eq(b.t.n_states, 8);
    ck_assert_uint_ne(after(&b, "a"), after(&b, "b"));
    uint32_t t = nt(&b, "t");
    uint32_t at = lr_goto(&b.t, after(&b, "a"), t), bt = lr_goto(&b.t, after(&b, "b"), t);
    ck_assert_uint_ne(reduce_at_end(&b, at), reduce_at_end(&b, bt));
    uint32_t first = reduce_at_end(&b, at) < reduce_at_end(&b, bt) ? reduce_at_end(&b, at) : reduce_at_end(&b, bt);
    uint32_t sr = b.t.sr_conflicts, rr = b.t.rr_conflicts;

    ck_assert_int_eq(gcg_lr_minimize(&b.t, &b.g), GCG_OK);
    ck_assert_uint_eq(b.t.n_states, 6);
    ck_assert_uint_eq(after(&b, "a"), after(&b, "b"));
    at = lr_goto(&b.t, after(&b, "a"), t);
    ck_assert_uint_eq(at, lr_goto(&b.t, after(&b, "b"), t));
    ck_assert_uint_eq(reduce_at_end(&b, at), first);
    ck_assert_uint_eq(after(&b, "ax"), after(&b, "bx"));
    ck_assert_uint_eq(GCG_ACT_KIND(lr_action(&b.t, after(&b, "axy"), b.t.n_terms - 1)), GCG_ACT_REDUCE);
    /* the start state stays 0, and accepts only what it did */
    ck_assert_uint_eq(b.t.accessing[0], UINT32_MAX);
    ck_assert_uint_eq(lr_action(&b.t, 0, b.bc.class_of['x']), GCG_ACT_ERROR);
    ck_assert_uint_eq(b.t.sr_conflicts, sr);
    ck_assert_uint_eq(b.t.rr_conflicts, rr);
    built_free(&b);
}
END_TEST

/* t and u have one body but are different nonterminals: the states of
 * their bodies reduce different left sides, and so do the states after "a"
 * and "b" by their gotos; only root ::= a t . and root ::= b u ., which
 * both reduce root by two, merge: 10 states, then 9. */
START_TEST(keeps_different_left_sides)
{
    built b;
    build_src("root ::= \"a\" t | \"b\" u\nt ::= \"x\" \"y\"\nu ::= \"x\" \"y\"\n", &b);
    ck_assert_uint_eq(b.t.n_states, 10);
    ck_assert_int_eq(gcg_lr_minimize(&b.t, &b.g), GCG_OK);
    ck_assert_uint_eq(b.t.n_states, 9);
    ck_assert_uint_ne(after(&b, "a"), after(&b, "b"));
    ck_assert_uint_ne(after(&b, "ax"), after(&b, "bx"));
    ck_assert_uint_ne(after(&b, "axy"), after(&b, "bxy"));
    ck_assert_uint_eq(lr_goto(&b.t, after(&b, "a"), nt(&b, "t")), lr_goto(&b.t, after(&b, "b"), nt(&b, "u")));
    built_free(&b);
}
END_TEST

static Suite *lr_suite(void)
{
    Suite *s = suite_create("lr");
    TCase *tc = tcase_create("textbook");
    tcase_add_test(tc, test_worked_example);
    tcase_add_test(tc, test_dragon_lalr_not_slr);
    tcase_add_test(tc, test_lr1_not_lalr1);
    tcase_add_test(tc, test_ambiguous_sum);
    tcase_add_test(tc, test_ambiguous_concat);
    tcase_add_test(tc, test_epsilon_productions);
    tcase_add_test(tc, test_epsilon_reduce_reduce);
    tcase_add_test(tc, test_same_lhs_and_length_merged);
    tcase_add_test(tc, test_many_items_per_state);
    tcase_add_test(tc, test_many_rules_per_state);
    tcase_add_test(tc, merges_equivalent_states);
    tcase_add_test(tc, keeps_different_left_sides);
    suite_add_tcase(s, tc);
    tc = tcase_create("shipped");
    tcase_add_loop_test(tc, test_tables_consistent, 0, sizeof shipped / sizeof *shipped);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(lr_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
