/*
 * test_regex.c — the ECMAScript regex front end against a brute-force
 * reference: random patterns over a small alphabet (concatenation,
 * alternation, groups, * + ? {m,n} and lazy forms, classes and negated
 * classes, ., escapes, ^ and $) are compiled as a JSON Schema "pattern",
 * and every string over the alphabet up to length 4 must be accepted iff a
 * backtracking matcher finds the pattern in it (JSON Schema search
 * semantics). The alphabet holds `"`, which a JSON string must escape, so
 * escaped spellings are exercised too. Plus fixed cases for the syntax the
 * generator does not produce (\d \w \s, \uXXXX, named groups) and errors.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcg.h"
#include "gcgc.h"

/* ---- the reference: AST + backtracking with continuations ----------------- */

typedef enum { N_SET, N_CAT, N_ALT, N_REP, N_BOL, N_EOL, N_EMPTY } nkind;
typedef struct node {
    nkind k;
    bool set[128];
    const struct node *a, *b;
    int min, max; /* max < 0: no end */
} node;

typedef struct kont {
    const node *n;
    int min, max, start; /* for N_REP continuations */
    const struct kont *next;
} kont;

static const char *subject;
static int subject_len;

static bool run(const kont *k, int pos);

/* A continuation for node n: a repetition starts with its full counts. */
static kont at(const node *n, const kont *next)
{
    kont k = {n, n->min, n->max, -1, next};
    return k;
}

/* The repetition n with min..max iterations left, the last one started at
 * `start` (-1: none yet); an iteration that consumed nothing is dropped,
 * which changes no language. */
static bool rep(const node *n, int min, int max, int start, const kont *next, int pos)
{
    if (start == pos && min == 0)
        return run(next, pos);
    if (max != 0) {
        kont loop = {n, min > 0 ? min - 1 : 0, max < 0 ? -1 : max - 1, pos, next};
        kont body = at(n->a, &loop);
        if (run(&body, pos))
            return true;
    }
    return min == 0 && run(next, pos);
}

static bool run(const kont *k, int pos)
{
    if (!k)
        return true;
    const node *n = k->n;
    switch (n->k) {
    case N_EMPTY: return run(k->next, pos);
    case N_SET: return pos < subject_len && n->set[(unsigned char)subject[pos]] && run(k->next, pos + 1);
    case N_BOL: return pos == 0 && run(k->next, pos);
    case N_EOL: return pos == subject_len && run(k->next, pos);
    case N_CAT: {
        kont second = at(n->b, k->next);
        kont first = at(n->a, &second);
        return run(&first, pos);
    }
    case N_ALT: {
        kont l = at(n->a, k->next), r = at(n->b, k->next);
        return run(&l, pos) || run(&r, pos);
    }
    case N_REP: return rep(n, k->min, k->max, k->start, k->next, pos);
    }
    return false;
}

static bool ref_search(const node *root, const char *s)
{
    subject = s;
    subject_len = (int)strlen(s);
    for (int i = 0; i <= subject_len; i++) {
        kont k = at(root, NULL);
        if (run(&k, i))
            return true;
    }
    return false;
}

/* ---- random patterns ------------------------------------------------------ */

static node pool[4096];
static int n_pool;
static const char ALPHA[] = "ab\"";

/* The strings over ALPHA of at most 4 characters, N_WORDS in all: word w
 * (by length, then counting in base 3) into s; returns its index among the
 * strings of its length. */
#define N_WORDS 121
static int word(int w, char *s)
{
    int len = 0, total = 1;
    while (w >= total)
        w -= total, total *= 3, len++;
    for (int i = 0, v = w; i < len; i++)
        s[i] = ALPHA[v % 3], v /= 3;
    s[len] = 0;
    return w;
}

static node *mk(nkind k)
{
    node *n = &pool[n_pool++];
    memset(n, 0, sizeof *n);
    n->k = k;
    return n;
}

static void lit(node *n, char c, char *out)
{
    n->set[(unsigned char)c] = true;
    if (c == '"')
        strcat(out, "\\\""); /* \" in the schema's JSON string: the pattern character " */
    else
        strncat(out, &c, 1);
}

/* Appends the pattern's JSON-string spelling to out. */
static node *gen(int depth, char *out)
{
    int r = rand() % (depth > 3 ? 4 : 10);
    node *n;
    switch (r) {
    case 0: case 1: case 2:
        n = mk(N_SET);
        lit(n, ALPHA[rand() % 3], out);
        return n;
    case 3:
        n = mk(N_SET);
        if (rand() % 2) {
            strcat(out, ".");
            for (int c = 0; c < 128; c++)
                n->set[c] = c != '\n' && c != '\r';
        } else {
            bool neg = rand() % 2;
            strcat(out, neg ? "[^" : "[");
            for (int c = 0; c < 128; c++)
                n->set[c] = neg;
            int k = 1 + rand() % 2;
            for (int i = 0; i < k; i++) {
                char c = ALPHA[rand() % 3];
                n->set[(unsigned char)c] = !neg;
                if (c == '"')
                    strcat(out, "\\\"");
                else
                    strncat(out, &c, 1);
            }
            strcat(out, "]");
        }
        return n;
    case 4: case 5:
        n = mk(N_CAT);
        n->a = gen(depth + 1, out);
        n->b = gen(depth + 1, out);
        return n;
    case 6:
        n = mk(N_ALT);
        strcat(out, "(?:");
        n->a = gen(depth + 1, out);
        strcat(out, "|");
        n->b = gen(depth + 1, out);
        strcat(out, ")");
        return n;
    default: {
        n = mk(N_REP);
        strcat(out, "(");
        n->a = gen(depth + 1, out);
        strcat(out, ")");
        static const char *const q[] = {"*", "+", "?", "{2}", "{1,2}", "{0,}", "*?", "{2,}"};
        static const int qmin[] = {0, 1, 0, 2, 1, 0, 0, 2}, qmax[] = {-1, -1, 1, 2, 2, -1, -1, -1};
        int i = rand() % 8;
        strcat(out, q[i]);
        n->min = qmin[i], n->max = qmax[i];
        return n;
    }
    }
}

/* ---- the grammar side ----------------------------------------------------- */

/* A schema's grammar compiled (byte-level, no automaton); NULL with the
 * converter's message in *err (when given) if the conversion fails. */
static gcg_artifact *compile_schema_or(const char *schema, char **err)
{
    char *g = NULL, *m = NULL;
    gcg_status st = gcgc_schema_to_gbnf(schema, strlen(schema), NULL, &g, &m);
    if (st != GCG_OK) {
        if (err)
            *err = m;
        else
            free(m);
        return NULL;
    }
    free(m);
    gcgc_options o;
    gcgc_options_default(&o);
    o.no_automaton = true;
    gcgc_result *r;
    ck_assert_int_eq(gcgc_compile(NULL, g, strlen(g), &o, &r), GCG_OK);
    free(g);
    size_t n;
    const uint8_t *b = gcgc_result_artifact(r, &n);
    gcg_artifact *a;
    ck_assert_int_eq(gcg_artifact_open_memory(b, n, &a, NULL), GCG_OK);
    gcgc_result_free(r);
    return a;
}

static gcg_artifact *compile_pattern(const char *json_pattern, char **err)
{
    char schema[4096];
    snprintf(schema, sizeof schema, "{\"type\":\"string\",\"pattern\":\"%s\"}", json_pattern);
    return compile_schema_or(schema, err);
}

static bool accepts(const gcg_artifact *a, const char *json_text)
{
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(a, NULL, &m, NULL), GCG_OK);
    bool ok = gcg_matcher_commit_bytes(m, (const uint8_t *)json_text, strlen(json_text), NULL) == GCG_OK &&
              gcg_matcher_is_complete(m);
    gcg_matcher_free(m);
    return ok;
}

/* s as a JSON string; `"` spelled \" or \u0022 in turn. */
static void json_quote(const char *s, char *out, bool alt)
{
    strcpy(out, "\"");
    for (; *s; s++)
        strcat(out, *s == '"' ? (alt ? "\\u0022" : "\\\"") : (char[]){*s, 0});
    strcat(out, "\"");
}

START_TEST(random_patterns)
{
    srand(7);
    unsigned compared = 0;
    for (int p = 0; p < 400; p++) {
        n_pool = 0;
        char pat[2048] = "";
        bool bol = rand() % 4 == 0, eol = rand() % 4 == 0;
        if (bol)
            strcat(pat, "^");
        node *body = gen(0, pat);
        if (eol)
            strcat(pat, "$");
        node *root = body;
        if (bol) {
            node *c = mk(N_CAT);
            c->a = mk(N_BOL), c->b = root, root = c;
        }
        if (eol) {
            node *c = mk(N_CAT);
            c->a = root, c->b = mk(N_EOL), root = c;
        }
        char *err = NULL;
        gcg_artifact *a = compile_pattern(pat, &err);
        ck_assert_msg(a != NULL, "pattern %s: %s", pat, err ? err : "");
        char s[8];
        for (int w = 0; w < N_WORDS; w++) {
            int x = word(w, s);
            bool want = ref_search(root, s);
            char q[64];
            json_quote(s, q, x % 2);
            ck_assert_msg(accepts(a, q) == want, "pattern %s on %s: grammar %d, reference %d", pat, q, !want,
                          want);
            compared++;
        }
        gcg_artifact_free(a);
    }
    ck_assert_uint_eq(compared, 400u * N_WORDS);
}
END_TEST

/* ---- patternProperties: a simple pattern and its complement --------------- */

/* One class for a simple pattern: a literal, ".", or a (negated) class. */
static node *gen_class(char *out)
{
    int saved = n_pool;
    for (;;) {
        char tmp[64] = "";
        node *n = gen(4, tmp); /* depth 4: a literal or a class, never a group */
        if (n->k == N_SET) {
            strcat(out, tmp);
            return n;
        }
        n_pool = saved;
    }
}

static gcg_artifact *compile_schema(const char *schema)
{
    char *err = NULL;
    gcg_artifact *a = compile_schema_or(schema, &err);
    ck_assert_msg(a != NULL, "%s: %s", schema, err ? err : "");
    return a;
}

/* Random simple patterns (^? classes, the last one maybe repeated, $?) as
 * patternProperties with integer values beside any additional property:
 * for every key over the alphabet up to length 4, {"key": 1} is an instance
 * and {"key": "x"} is one iff the reference finds no match in the key, so
 * the grammar's keys outside the pattern are exactly its complement. */
START_TEST(pattern_properties_complement)
{
    srand(11);
    unsigned compared = 0, shapes = 0;
    for (int p = 0; p < 150; p++) {
        n_pool = 0;
        char pat[512] = "";
        bool bol = rand() % 3 != 0, eol = rand() % 2;
        int k = bol ? rand() % 3 : 0;
        if (bol)
            strcat(pat, "^");
        node *root = bol ? mk(N_BOL) : mk(N_EMPTY);
        for (int i = 0; i < k; i++) {
            node *c = mk(N_CAT);
            c->a = root, c->b = gen_class(pat), root = c;
        }
        if (k == 0 || rand() % 3) { /* the repeated last class */
            static const char *const q[] = {"*", "+", "?", "{2}", "{1,2}", "{2,}", "{0,3}"};
            static const int qmin[] = {0, 1, 0, 2, 1, 2, 0}, qmax[] = {-1, -1, 1, 2, 2, -1, 3};
            int i = rand() % 7;
            node *r = mk(N_REP);
            r->a = gen_class(pat);
            strcat(pat, q[i]);
            r->min = qmin[i], r->max = qmax[i];
            node *c = mk(N_CAT);
            c->a = root, c->b = r, root = c;
        }
        if (eol) {
            strcat(pat, "$");
            node *c = mk(N_CAT);
            c->a = root, c->b = mk(N_EOL), root = c;
        }
        char schema[1024];
        snprintf(schema, sizeof schema,
                 "{\"type\":\"object\",\"patternProperties\":{\"%s\":{\"type\":\"integer\"}}}", pat);
        gcg_artifact *a = compile_schema(schema);
        shapes++;
        char s[8];
        for (int w = 0; w < N_WORDS; w++) {
            word(w, s);
            bool match = ref_search(root, s);
            char q[64], inst[128];
            json_quote(s, q, false);
            snprintf(inst, sizeof inst, "{%s: 1}", q);
            ck_assert_msg(accepts(a, inst), "pattern %s: %s rejected", pat, inst);
            snprintf(inst, sizeof inst, "{%s: \"x\"}", q);
            ck_assert_msg(accepts(a, inst) == !match, "pattern %s on key %s: grammar %d, reference %d", pat, q,
                          accepts(a, inst), !match);
            compared++;
        }
        gcg_artifact_free(a);
    }
    ck_assert_uint_eq(shapes, 150);
    ck_assert_uint_eq(compared, 150u * N_WORDS);
}
END_TEST

/* A pattern beside named properties: allowed when additionalProperties is
 * false and no name matches it (its keys then never meet a name); refused
 * when a name matches (the value would need both schemas) or when other
 * keys are allowed too (they would have to leave out the names). */
START_TEST(pattern_properties_with_names)
{
    gcg_artifact *a = compile_schema("{\"type\":\"object\",\"properties\":{\"id\":{\"type\":\"string\"}},"
                                     "\"patternProperties\":{\"^[1-5][0-9]{2}$\":{\"type\":\"integer\"}},"
                                     "\"additionalProperties\":false}");
    ck_assert(accepts(a, "{\"id\": \"x\", \"404\": 1}"));
    ck_assert(accepts(a, "{\"500\": 2}"));
    ck_assert(!accepts(a, "{\"404\": \"x\"}"));
    ck_assert(!accepts(a, "{\"600\": 1}"));
    ck_assert(!accepts(a, "{\"id\": 1}"));
    gcg_artifact_free(a);
    static const char *const refused[] = {
        "{\"properties\":{\"ab\":{}},\"patternProperties\":{\"^a\":{}},\"additionalProperties\":false}",
        "{\"properties\":{\"x\":{}},\"patternProperties\":{\"^a\":{\"type\":\"integer\"}}}",
        "{\"patternProperties\":{\"^(ab)+$\":{\"type\":\"integer\"}}}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        char *g = NULL, *m = NULL;
        ck_assert_int_ne(gcgc_schema_to_gbnf(refused[i], strlen(refused[i]), NULL, &g, &m), GCG_OK);
        ck_assert_msg(m && strstr(m, "patternProperties"), "%s: %s", refused[i], m ? m : "");
        free(g), free(m);
    }
}
END_TEST

static void fixed(const char *pat, const char *const *yes, const char *const *no)
{
    char *err = NULL;
    gcg_artifact *a = compile_pattern(pat, &err);
    ck_assert_msg(a != NULL, "%s: %s", pat, err ? err : "");
    for (; *yes; yes++)
        ck_assert_msg(accepts(a, *yes), "%s must match %s", pat, *yes);
    for (; *no; no++)
        ck_assert_msg(!accepts(a, *no), "%s must not match %s", pat, *no);
    gcg_artifact_free(a);
}

#define L(...) (const char *const[]){__VA_ARGS__, NULL}

START_TEST(escapes_and_classes)
{
    fixed("^\\\\d+$", L("\"0\"", "\"123\""), L("\"\"", "\"1a\"", "\"\xd9\xa3\""));
    fixed("^\\\\w\\\\s\\\\W$", L("\"a -\"", "\"_\\t!\""), L("\"a b\"", "\"-a-\""));
    fixed("^[\\\\D]$", L("\"x\""), L("\"5\""));
    fixed("^\\\\u00e9\\\\x41$", L("\"\xc3\xa9" "A\""), L("\"eA\""));
    fixed("^(?<year>\\\\d{4})-(\\\\d{2})$", L("\"2024-01\""), L("\"24-01\""));
    fixed("^a{2,3}?$", L("\"aa\"", "\"aaa\""), L("\"a\"", "\"aaaa\""));
    fixed("^[a-c-]$", L("\"b\"", "\"-\""), L("\"d\""));
    fixed("^\\\\n$", L("\"\\n\"", "\"\\u000a\""), L("\"n\""));
    fixed("^.$", L("\"x\"", "\"\\\"\"", "\"\xf0\x9f\x98\x80\""), L("\"\\n\"", "\"\""));
    fixed("^x{$", L("\"x{\""), L("\"x\""));
    fixed("", L("\"\"", "\"anything\""), L("1"));
}
END_TEST

static void bad(const char *pat, const char *needle)
{
    char *err = NULL;
    gcg_artifact *a = compile_pattern(pat, &err);
    ck_assert_ptr_null(a);
    ck_assert_msg(err && strstr(err, needle), "%s: expected '%s' in: %s", pat, needle, err ? err : "(none)");
    ck_assert_msg(strstr(err, "#/pattern: pattern offset") != NULL, "%s", err);
    free(err);
}

START_TEST(errors)
{
    bad("a(?=b)", "lookaround");
    bad("a(?<!b)", "lookaround");
    bad("(a)\\\\1", "backreferences");
    bad("\\\\bword", "word boundary");
    bad("a^b", "supported only at the start");
    bad("(a$)", "supported only at the start");
    bad("[b-a]", "out of order");
    bad("(ab", "missing )");
    bad("ab)", "unbalanced");
    bad("*a", "nothing to repeat");
    bad("[ab", "unterminated");
    bad("a{1048577}", "over the limit");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("regex");
    TCase *tc = tcase_create("regex");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, random_patterns);
    tcase_add_test(tc, pattern_properties_complement);
    tcase_add_test(tc, pattern_properties_with_names);
    tcase_add_test(tc, escapes_and_classes);
    tcase_add_test(tc, errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
