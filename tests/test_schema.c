/*
 * test_schema.c — the JSON Schema converter, keyword by keyword: each schema
 * is compiled (single-byte vocabulary, byte-level matching) and must accept
 * exactly the listed valid instances and reject the invalid ones; a few
 * grammars are compared with their exact expected text; keywords that cannot
 * be enforced are errors naming the keyword and its JSON pointer, warnings
 * under lenient.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gcg.h"
#include "gcgc.h"

/* The artifact for a schema (with masks, or byte-level matching only), or
 * NULL with *msgs holding the messages. */
static gcg_artifact *compile_schema(const char *schema, const gcgc_schema_options *so, bool masks, char **msgs)
{
    gcgc_options o;
    gcgc_options_default(&o);
    o.no_automaton = !masks;
    gcgc_result *r = NULL;
    char *m = NULL;
    gcg_status st = gcgc_compile_schema(NULL, schema, strlen(schema), so, &o, &r, &m);
    gcg_artifact *art = NULL;
    if (st == GCG_OK) {
        size_t size;
        const uint8_t *bytes = gcgc_result_artifact(r, &size);
        ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    } else if (r) {
        fprintf(stderr, "%s", gcgc_result_messages_text(r));
    }
    gcgc_result_free(r);
    if (msgs)
        *msgs = m;
    else
        free(m);
    return art;
}

static gcg_artifact *compile_opt(const char *schema, const gcgc_schema_options *so, char **msgs)
{
    return compile_schema(schema, so, false, msgs);
}

static gcg_artifact *compile(const char *schema)
{
    char *msgs = NULL;
    gcg_artifact *a = compile_opt(schema, NULL, &msgs);
    if (!a)
        fprintf(stderr, "schema %s: %s\n", schema, msgs);
    free(msgs);
    ck_assert_ptr_nonnull(a);
    return a;
}

static bool accepts(const gcg_artifact *art, const char *text)
{
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    bool ok = gcg_matcher_commit_bytes(m, (const uint8_t *)text, strlen(text), NULL) == GCG_OK &&
              gcg_matcher_is_complete(m);
    gcg_matcher_free(m);
    return ok;
}

/* valid[] and invalid[] end with NULL. */
static void check_sets(const char *schema, const char *const *valid, const char *const *invalid)
{
    gcg_artifact *art = compile(schema);
    for (const char *const *v = valid; *v; v++)
        ck_assert_msg(accepts(art, *v), "%s must accept %s", schema, *v);
    for (const char *const *v = invalid; *v; v++)
        ck_assert_msg(!accepts(art, *v), "%s must reject %s", schema, *v);
    gcg_artifact_free(art);
}


#define V(...) (const char *const[]){__VA_ARGS__, NULL}

static char *gbnf(const char *schema)
{
    char *g = NULL, *m = NULL;
    ck_assert_int_eq(gcgc_schema_to_gbnf(schema, strlen(schema), NULL, &g, &m), GCG_OK);
    free(m);
    return g;
}

/* The second line of the grammar (the document's rule, after root ::= ws root-value ws). */
static void check_root(const char *schema, const char *want)
{
    char *g = gbnf(schema);
    static const char head[] = "root ::= ws root-value ws\n";
    ck_assert(strncmp(g, head, strlen(head)) == 0);
    const char *line = g + strlen(head);
    size_t len = strcspn(line, "\n");
    ck_assert_msg(len == strlen(want) && strncmp(line, want, len) == 0, "got \"%.*s\", want \"%s\"", (int)len,
                  line, want);
    free(g);
}

/* Conversion fails and the messages contain each needle. */
static void check_error(const char *schema, gcg_status want, const char *needle1, const char *needle2)
{
    char *g = NULL, *m = NULL;
    ck_assert_int_eq(gcgc_schema_to_gbnf(schema, strlen(schema), NULL, &g, &m), want);
    ck_assert_ptr_null(g);
    ck_assert_msg(strstr(m, needle1) != NULL, "'%s' not in: %s", needle1, m);
    if (needle2)
        ck_assert_msg(strstr(m, needle2) != NULL, "'%s' not in: %s", needle2, m);
    free(m);
}

START_TEST(types)
{
    check_sets("{\"type\":\"null\"}", V("null", " null"), V("nul", "0", "\"null\""));
    check_sets("{\"type\":\"boolean\"}", V("true", "false"), V("1", "null", "True"));
    check_sets("{\"type\":[\"string\",\"null\"]}", V("null", "\"\"", "\"a\\\"b\""), V("1", "[]", "\"a"));
    check_sets("{\"type\":\"integer\"}", V("0", "-12", "7.0", "120"), V("1.5", "01", "-", "1e3x"));
    check_sets("{\"type\":\"number\"}", V("0", "-1.5e-3", "2E+10", "3.25"), V("01", ".5", "1.", "+1"));
    check_sets("{}", V("{\"a\":[1,{\"b\":null}]}", "\"x\"", "-0"), V("{a:1}", "[1,]"));
    check_sets("true", V("1", "[]"), V("[", ""));
}
END_TEST

START_TEST(enum_const)
{
    check_sets("{\"enum\":[\"a/b\",1,null,[1,2],{\"k\":true}]}",
               V("\"a/b\"", "\"a\\/b\"", "\"a\\u002Fb\"", "1", "1.0", "null", "[1, 2]", "{ \"k\" : true }"),
               V("\"ab\"", "2", "[2,1]", "{\"k\":false}", "\"A/b\""));
    check_sets("{\"const\":\"\\n\"}", V("\"\\n\"", "\"\\u000a\"", "\"\\u000A\""), V("\"n\"", "\"\\\\n\""));
    check_sets("{\"type\":\"string\",\"enum\":[\"x\",1]}", V("\"x\""), V("1"));
}
END_TEST

/* Beside enum or const, every keyword is decided on the values themselves. */
START_TEST(enum_checked_against_the_schema)
{
    check_root("{\"allOf\":[{\"enum\":[3,4,\"a\"]},{\"not\":{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":4}]}}]}",
               "root-value ::= \"4\" ( \".\" \"0\"+ )?");
    check_root("{\"enum\":[{\"a\":1},{\"a\":\"x\"},{\"b\":2}],\"properties\":{\"a\":{\"type\":\"integer\"}},"
               "\"required\":[\"a\"]}",
               "root-value ::= ( \"{\" ws \"\\\"a\\\"\" ws \":\" ws \"1\" ( \".\" \"0\"+ )? ws \"}\" )");
    check_sets("{\"enum\":[[1,1],[1,2],[\"aa\"],[\"abc\"]],\"uniqueItems\":true,\"items\":{\"maxLength\":2}}",
               V("[1, 2]", "[\"aa\"]"), V("[1, 1]", "[\"abc\"]"));
    check_sets("{\"enum\":[\"ab\",\"b1\",\"1\"],\"pattern\":\"^[a-z]\"}", V("\"ab\"", "\"b1\""), V("\"1\""));
    check_error("{\"const\":2,\"not\":{\"type\":\"integer\"}}", GCG_ERR_FORMAT, "no value of enum/const", NULL);
}
END_TEST

START_TEST(objects)
{
    const char *s = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"string\"}},"
                    "\"required\":[\"b\"]}";
    check_sets(s, V("{\"b\":\"x\"}", "{\"a\":1,\"b\":\"x\"}", "{ \"a\" : 1 ,\n \"b\" : \"\" }",
                    "{\"b\":\"x\",\"c\":[]}", "{\"b\":\"x\",\"ab\":1,\"\":2}"),
               V("{}", "{\"a\":1}", "{\"a\":\"s\",\"b\":\"x\"}", "{\"b\":\"x\",\"a\":\"s\"}",
                 "{\"b\":\"x\",\"b\":\"y\"}", "{\"b\":1}"));
    /* additionalProperties false and a schema */
    check_sets("{\"properties\":{\"a\":{}},\"additionalProperties\":false}", V("{}", "{\"a\":[]}"),
               V("{\"b\":1}", "{\"a\":1,\"c\":2}"));
    check_sets("{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"},\"minProperties\":1,"
               "\"maxProperties\":2}",
               V("{\"x\":1}", "{\"x\":1,\"y\":2}"), V("{}", "{\"x\":\"s\"}", "{\"x\":1,\"y\":2,\"z\":3}"));
    check_sets("{\"type\":\"object\",\"patternProperties\":{\"^x-\":{\"type\":\"integer\"}},"
               "\"additionalProperties\":false}",
               V("{}", "{\"x-a\":1}", "{\"x-\":1,\"x-b\":2}"), V("{\"y\":1}", "{\"x-a\":\"s\"}"));
    check_sets("{\"type\":\"object\",\"propertyNames\":{\"maxLength\":2}}", V("{\"ab\":1}", "{}"),
               V("{\"abc\":1}"));
    /* an optional property no value can satisfy cannot appear */
    check_sets("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"object\",\"enum\":[\"x\"]}}}", V("{}", "{\"b\":1}"),
               V("{\"a\":\"x\"}", "{\"a\":{}}"));
    check_sets("{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{}},\"minProperties\":1,"
               "\"additionalProperties\":false}",
               V("{\"a\":1}", "{\"b\":1}"), V("{}"));
    /* a required property between optional ones, in order */
    check_sets("{\"type\":\"object\",\"properties\":{\"a\":{},\"b\":{},\"c\":{}},\"required\":[\"b\"],"
               "\"additionalProperties\":{\"type\":\"null\"}}",
               V("{\"b\":1}", "{\"a\":1,\"b\":2}", "{\"b\":1,\"c\":2}", "{\"a\":1,\"b\":2,\"c\":3}",
                 "{\"b\":1,\"x\":null}", "{\"a\":1,\"b\":2,\"x\":null,\"y\":null}"),
               V("{}", "{\"a\":1}", "{\"c\":1}", "{\"a\":1,\"c\":2}", "{\"c\":1,\"b\":2}", "{\"x\":null,\"b\":1}",
                 "{\"b\":1,\"x\":null,\"c\":2}", "{\"b\":1,\"x\":1}"));
}
END_TEST

/* An object of n optional properties p0 .. p(n-1). */
static char *optional_properties(uint32_t n)
{
    size_t cap = 128 + (size_t)n * 40, len = 0;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    len += (size_t)snprintf(s + len, cap - len, "{\"type\":\"object\",\"additionalProperties\":false,\"properties\":{");
    for (uint32_t i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len, "%s\"p%u\":{\"type\":\"integer\"}", i ? "," : "", i);
    snprintf(s + len, cap - len, "}}");
    return s;
}

/* Up to 8,192 (previous, next) member pairs an object is written
 * left-linear (one stack entry per object), past them right-linear: both
 * forms hold the same instances. */
START_TEST(objects_either_form)
{
    uint32_t sizes[] = {120, 130}; /* 7,140 and 8,385 pairs */
    for (size_t i = 0; i < 2; i++) {
        char *s = optional_properties(sizes[i]), *g = gbnf(s);
        ck_assert_msg((strstr(g, "root-last0 ::=") != NULL) == (i == 0), "%u properties: wrong form", sizes[i]);
        char last[64];
        snprintf(last, sizeof last, "{\"p0\":1,\"p%u\":2}", sizes[i] - 1);
        check_sets(s, V("{}", "{\"p5\":1}", "{\"p1\":1,\"p2\":2,\"p40\":3}", last),
                   V("{\"p2\":1,\"p1\":2}", "{\"p1\":1,\"p1\":2}", "{\"q\":1}", "{\"p1\":\"s\"}", "{\"p1\":1,}"));
        free(g);
        free(s);
    }
}
END_TEST

START_TEST(object_grammar_exact)
{
    /* Left-linear members: L_k is the list so far ending with property k,
     * from any earlier one with only optional properties between. */
    char *g = gbnf("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"null\"},\"b\":{\"type\":\"null\"},"
                   "\"c\":{\"type\":\"null\"}},\"required\":[\"b\"],\"additionalProperties\":false}");
    ck_assert_str_eq(g, "root ::= ws root-value ws\n"
                        "root-value ::= \"{\" ws root-members \"}\"\n"
                        "root-properties-a ::= \"null\"\n"
                        "root-properties-b ::= \"null\"\n"
                        "root-properties-c ::= \"null\"\n"
                        "root-kv0 ::= \"\\\"a\\\"\" ws \":\" ws root-properties-a ws\n"
                        "root-last0 ::= root-kv0\n"
                        "root-kv1 ::= \"\\\"b\\\"\" ws \":\" ws root-properties-b ws\n"
                        "root-last1 ::= root-kv1 | root-last0 \",\" ws root-kv1\n"
                        "root-kv2 ::= \"\\\"c\\\"\" ws \":\" ws root-properties-c ws\n"
                        "root-last2 ::= root-last1 \",\" ws root-kv2\n"
                        "root-members ::= root-last1 | root-last2\n"
                        "ws ::= [ \\t\\n\\r]*\n");
    free(g);
}
END_TEST

START_TEST(arrays)
{
    check_sets("{\"type\":\"array\",\"items\":{\"type\":\"integer\"},\"minItems\":1,\"maxItems\":3}",
               V("[1]", "[ 1 , 2 ,3 ]"), V("[]", "[1,2,3,4]", "[1,\"a\"]", "[1,]"));
    check_sets("{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"integer\"}],\"items\":false}",
               V("[]", "[\"a\"]", "[\"a\",1]"), V("[1]", "[\"a\",1,2]"));
    check_sets("{\"items\":[{\"type\":\"string\"}],\"additionalItems\":{\"type\":\"null\"},\"minItems\":2}",
               V("[\"a\",null]", "[\"a\",null,null]"), V("[\"a\"]", "[\"a\",1]"));
}
END_TEST

START_TEST(strings)
{
    /* lengths count code points: an escape is one, a surrogate pair is one */
    check_sets("{\"type\":\"string\",\"minLength\":2,\"maxLength\":3}",
               V("\"ab\"", "\"\\n\\t\"", "\"\\uD83D\\uDE00x\"", "\"\xc3\xa9\xc3\xa9\xc3\xa9\""),
               V("\"a\"", "\"abcd\"", "\"\\uD83D\\uDE00\"", "\"a\\uD83D\"", "\"a\nb\""));
    check_sets("{\"type\":\"string\",\"pattern\":\"b+c\"}", V("\"bc\"", "\"xxbbcyy\""), V("\"b\"", "\"cb\""));
    check_sets("{\"type\":\"string\",\"pattern\":\"^a\\\\d{2}$\"}", V("\"a12\""), V("\"a1\"", "\"a123\"", "\"xa12\""));
    /* a length bound the pattern or format implies is dropped; any other is an error */
    check_sets("{\"type\":\"string\",\"pattern\":\"^[a-z]{2,4}$|^x$\",\"minLength\":1,\"maxLength\":10}",
               V("\"ab\"", "\"x\""), V("\"a\"", "\"abcde\""));
    check_sets("{\"type\":\"string\",\"format\":\"date\",\"maxLength\":10}", V("\"2020-01-01\""), V("\"x\""));
    check_error("{\"type\":\"string\",\"pattern\":\"^a+$\",\"maxLength\":3}", GCG_ERR_FORMAT, "#: keyword \"pattern\"",
                "intersection");
    check_error("{\"type\":\"string\",\"pattern\":\"a\",\"maxLength\":3}", GCG_ERR_FORMAT, "intersection", NULL);
    check_error("{\"type\":\"string\",\"maxLength\":1048577}", GCG_ERR_LIMIT, "#: string length bound 1048577",
                "limit 1048576");
}
END_TEST

/* The stats of compiling a schema (masks included). */
static gcgc_stats schema_stats(const char *schema)
{
    gcgc_options o;
    gcgc_options_default(&o);
    gcgc_result *r = NULL;
    char *m = NULL;
    ck_assert_int_eq(gcgc_compile_schema(NULL, schema, strlen(schema), NULL, &o, &r, &m), GCG_OK);
    gcgc_stats st;
    gcgc_result_stats(r, &st);
    gcgc_result_free(r), free(m);
    return st;
}

/* A pattern is written as its minimal DFA, one left-linear rule per state:
 * no GLR conflict, a bounded certificate (the transcription any* a b any*
 * forks at every a). Past PATTERN_DFA_STATES, or anchored and counting past
 * 16, the pattern keeps its own shape. */
START_TEST(search_patterns_as_dfa)
{
    char *g = gbnf("{\"type\":\"string\",\"pattern\":\"ab\"}");
    ck_assert_str_eq(g, "root ::= ws root-value ws\n"
                        "root-value ::= \"\\\"\" ( root-pattern2 ) \"\\\"\"\n"
                        "root-pattern0 ::= \"\" | root-pattern0 ( [ !#-\\[\\]-`b-\\x7F] | json-nonascii | json-esc ) | "
                        "root-pattern1 ( [ !#-\\[\\]-`c-\\x7F] | json-nonascii | json-esc )\n"
                        "root-pattern1 ::= root-pattern0 [a] | root-pattern1 [a]\n"
                        "root-pattern2 ::= root-pattern1 [b] | root-pattern2 ( [ !#-\\[\\]-\\x7F] | json-nonascii | json-esc )\n"
                        "json-esc ::= \"\\\\\" [\"\\\\/bfnrt] | \"\\\\u00\" [01] [0-9a-fA-F] | \"\\\\u00\" ( \"2\" ( \"2\" | [fF] ) | \"5\" [cC] )\n"
                        "json-nonascii ::= [\\x80-\\uD7FF\\uE000-\\U0010FFFF]\n"
                        "ws ::= [ \\t\\n\\r]*\n");
    free(g);
    gcgc_stats st = schema_stats("{\"type\":\"string\",\"pattern\":\"^dev|alpha|beta|rc|RC|stable$\"}");
    ck_assert_uint_eq(st.sr_conflicts, 0);
    ck_assert_uint_eq(st.rr_conflicts, 0);
    ck_assert(st.certificate.bounded);
    check_sets("{\"type\":\"string\",\"pattern\":\"^dev|alpha|beta|rc|RC|stable$\"}",
               V("\"dev\"", "\"dev1\"", "\"1.0-alpha2\"", "\"xbeta\"", "\"RC\"", "\"stable\"", "\"un-stable\"",
                 "\"\\u0022rc\""),
               V("\"\"", "\"xdev\"", "\"alph\"", "\"stable!\"", "\"Rc\""));
    /* anchored: a DFA when the transcription may fork, the pattern's shape
     * when it counts past 16 (chains share walks) */
    g = gbnf("{\"type\":\"string\",\"pattern\":\"^(a|ab)(c|bcd)$\"}");
    ck_assert_ptr_nonnull(strstr(g, "root-pattern0 ::= \"\"\n"));
    free(g);
    st = schema_stats("{\"type\":\"string\",\"pattern\":\"^(a|ab)(c|bcd)$\"}");
    ck_assert_uint_eq(st.sr_conflicts + st.rr_conflicts, 0);
    check_sets("{\"type\":\"string\",\"pattern\":\"^(a|ab)(c|bcd)$\"}", V("\"ac\"", "\"abcd\"", "\"abc\""),
               V("\"ab\"", "\"abcdx\"", "\"bcd\""));
    g = gbnf("{\"type\":\"string\",\"pattern\":\"^[a-z]{1,40}$\"}");
    ck_assert_ptr_null(strstr(g, "-pattern0"));
    free(g);
    /* "an a, seventy characters, a b" needs 2^70 states: the pattern's shape */
    g = gbnf("{\"type\":\"string\",\"pattern\":\"a.{70}b\"}");
    ck_assert_ptr_null(strstr(g, "-pattern0"));
    ck_assert_ptr_nonnull(strstr(g, "\"\\\"\" ( json-char* ( [a] (("));
    free(g);
}
END_TEST

START_TEST(numbers)
{
    check_root("{\"type\":\"integer\",\"minimum\":10,\"maximum\":25}",
               "root-value ::= ( ( \"1\" [0-9] | \"2\" [0-4] ) ( \".\" \"0\"+ )? | \"25\" ( \".\" \"0\"+ )? )");
    check_sets("{\"type\":\"integer\",\"minimum\":-5,\"exclusiveMaximum\":100}",
               V("-5", "0", "-0", "99", "42.00"), V("-6", "100", "1000", "99.5"));
    check_sets("{\"type\":\"number\",\"exclusiveMinimum\":0}", V("0.001", "3", "1.5"), V("0", "0.0", "-1", "-0.5"));
    check_sets("{\"type\":\"number\",\"minimum\":-1,\"maximum\":1}", V("-1", "-0.5", "0", "1", "1.000"),
               V("1.01", "-1.5", "2"));
    /* decimal bounds: exact decimal comparison of the written digits */
    check_sets("{\"type\":\"number\",\"minimum\":0.5,\"maximum\":2.25}",
               V("0.5", "0.50001", "1", "2.2", "2.25", "2.2500", "0.751"), V("0", "0.49", "0.4999", "2.251", "3", "-1"));
    check_sets("{\"type\":\"number\",\"exclusiveMinimum\":-1.5,\"exclusiveMaximum\":0.5}",
               V("-1.4999", "-0", "0", "0.49", "-1"), V("-1.5", "-1.50", "0.5", "0.5000", "-2", "1"));
    check_sets("{\"type\":\"number\",\"maximum\":0.75}", V("-100", "0.7500", "0.7", "-0.9"), V("0.751", "0.76", "1"));
    check_sets("{\"type\":\"number\",\"maximum\":3,\"exclusiveMaximum\":true}", V("2.99", "-7"), V("3", "3.0"));
    check_sets("{\"type\":\"number\",\"multipleOf\":0.01,\"minimum\":0}", V("0", "1.5", "2.25", "3.100", "0.01"),
               V("-1", "0.001", "1.234"));
    check_sets("{\"type\":\"number\",\"multipleOf\":0.1}", V("-3", "0.1", "2.50"), V("0.05", "1e1"));
    check_sets("{\"type\":\"integer\",\"multipleOf\":3}", V("0", "3", "-12", "999"), V("1", "10", "-4"));
}
END_TEST

START_TEST(refs)
{
    check_sets("{\"$defs\":{\"node\":{\"type\":\"object\",\"properties\":{\"next\":{\"$ref\":\"#/$defs/node\"}},"
               "\"additionalProperties\":false}},\"$ref\":\"#/$defs/node\"}",
               V("{}", "{\"next\":{\"next\":{}}}"), V("{\"next\":1}"));
    check_sets("{\"definitions\":{\"a/b\":{\"type\":\"integer\"},\"c~d\":{\"type\":\"null\"}},"
               "\"anyOf\":[{\"$ref\":\"#/definitions/a~1b\"},{\"$ref\":\"#/definitions/c~0d\"}]}",
               V("1", "null"), V("\"x\""));
    check_sets("{\"$defs\":{\"x\":{\"$anchor\":\"pos\",\"type\":\"integer\",\"minimum\":1}},\"$ref\":\"#pos\"}",
               V("1", "7"), V("0"));
    /* drafts 04-07: a schema with "$ref" is the reference alone; later drafts
     * (and no "$schema") apply the siblings beside it */
    check_sets("{\"$schema\":\"http://json-schema.org/draft-04/schema#\",\"properties\":{\"a\":"
               "{\"type\":\"string\",\"$ref\":\"#/d\"}},\"d\":{\"type\":\"object\"}}",
               V("{\"a\":{}}", "{\"a\":{\"b\":1}}"), V("{\"a\":\"x\"}", "{\"a\":1}"));
    check_sets("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"properties\":{\"a\":"
               "{\"maximum\":3,\"$ref\":\"#/d\"}},\"d\":{\"type\":\"integer\"}}",
               V("{\"a\":7}", "{\"a\":1}"), V("{\"a\":1.5}"));
    check_sets("{\"properties\":{\"a\":{\"maximum\":3,\"$ref\":\"#/d\"}},\"d\":{\"type\":\"integer\"}}",
               V("{\"a\":1}"), V("{\"a\":7}", "{\"a\":1.5}"));
    check_error("{\"$ref\":\"other.json#/a\"}", GCG_ERR_FORMAT, "#: keyword \"$ref\"", "local");
    check_error("{\"$ref\":\"#/nowhere\"}", GCG_ERR_FORMAT, "no such location", NULL);
}
END_TEST

START_TEST(combinators)
{
    check_sets("{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},\"required\":[\"a\"]},"
               "{\"properties\":{\"a\":{\"minimum\":2}}}]}",
               V("{\"a\":2}"), V("{\"a\":1}", "{}"));
    check_sets("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}", V("\"a\"", "1"), V("null"));
    check_sets("{\"oneOf\":[{\"properties\":{\"k\":{\"const\":\"a\"},\"v\":{\"type\":\"integer\"}},\"required\":[\"k\"],"
               "\"type\":\"object\"},{\"properties\":{\"k\":{\"const\":\"b\"}},\"required\":[\"k\"],\"type\":\"object\"}]}",
               V("{\"k\":\"a\",\"v\":1}", "{\"k\":\"b\",\"v\":\"s\"}"), V("{\"k\":\"a\",\"v\":\"s\"}", "{\"k\":\"c\"}"));
    check_error("{\"oneOf\":[{\"type\":\"integer\"},{\"minimum\":3}]}", GCG_ERR_FORMAT, "#/oneOf:", "oneOf");
    /* a branch no value satisfies is left out; with none left, an error */
    check_sets("{\"anyOf\":[{\"type\":\"string\",\"enum\":[1]},{\"type\":\"integer\"}]}", V("1"), V("\"1\"", "1.5"));
    check_error("{\"anyOf\":[{\"type\":\"string\",\"enum\":[1]},{\"type\":\"null\",\"const\":0}]}", GCG_ERR_FORMAT,
                "#/anyOf:", "no branch");
    gcgc_schema_options so = {0};
    so.oneof_as_anyof = true;
    gcg_artifact *a = compile_opt("{\"oneOf\":[{\"type\":\"integer\"},{\"type\":\"number\"}]}", &so, NULL);
    ck_assert_ptr_nonnull(a);
    ck_assert(accepts(a, "1.5"));
    gcg_artifact_free(a);
    check_error("{\"allOf\":[{\"pattern\":\"a\"},{\"pattern\":\"b\"}]}", GCG_ERR_FORMAT, "#/allOf:",
                "\"pattern\"");
    /* a branch's own allOf is folded in its place: its properties come first */
    check_sets("{\"allOf\":[{\"allOf\":[{\"properties\":{\"a\":{\"type\":\"integer\"}}}]},"
               "{\"properties\":{\"b\":{\"type\":\"integer\"}}}]}",
               V("{\"a\":1,\"b\":2}", "{\"b\":2}"), V("{\"b\":2,\"a\":1}", "{\"a\":\"x\"}"));
    /* folding one allOf leaves no depth behind: 80 of them side by side */
    char wide[4096];
    int at = snprintf(wide, sizeof wide, "{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < 80; i++)
        at += snprintf(wide + at, sizeof wide - (size_t)at, "%s\"p%d\":{\"allOf\":[{\"type\":\"integer\"}]}",
                       i ? "," : "", i);
    snprintf(wide + at, sizeof wide - (size_t)at, "}}");
    check_sets(wide, V("{\"p0\":1,\"p79\":2}"), V("{\"p79\":\"x\"}"));
    /* keywords outside the vocabulary annotate: branches may disagree on them */
    check_sets("{\"allOf\":[{\"type\":\"string\",\"help\":\"a\",\"x-doc\":{\"k\":1}},"
               "{\"maxLength\":2,\"help\":\"b\",\"x-doc\":[2]}]}",
               V("\"\"", "\"ab\""), V("\"abc\"", "1", "null"));
}
END_TEST

/* Additional keys are every key but the names: ending early on a name's
 * path, leaving it, or running past a name's end. */
START_TEST(additional_keys)
{
    check_sets("{\"type\":\"object\",\"properties\":{\"ab\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
               "\"additionalProperties\":{\"type\":\"string\"}}",
               V("{\"a\":\"x\"}", "{\"abc\":\"x\"}", "{\"\":\"x\"}", "{\"ab\":1,\"c\":\"y\"}", "{\"ba\":\"z\"}",
                 "{\"b\":2,\"bb\":\"\"}", "{\"a\\\"\":\"q\"}"),
               V("{\"ab\":\"x\"}", "{\"b\":\"x\"}", "{\"a\":1}", "{\"abc\":1}"));
}
END_TEST

/* Where additional members may follow, every key is read through one
 * left-linear trie of the names; before a required property, where only
 * names may come, members keep the literal. */
START_TEST(keys_through_one_trie)
{
    const char *schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"null\"},\"ab\":{\"type\":\"boolean\"},"
                         "\"b\":{\"type\":\"null\"}},\"required\":[\"ab\"]}";
    char *g = gbnf(schema);
    const char *want[] = {
        "\nroot-key ::= \"\\\"\"\n",
        "\nroot-key-2 ::= root-key \"a\"\n",
        "\nroot-key-3 ::= root-key-2 \"b\"\n",
        "\nroot-key-4 ::= root-key \"b\"\n",
        "\nroot-key-any ::= root-key | root-key-2 | root-key-3 | root-key-4\n",
        "\nroot-key-left ::= root-key [ !#-\\[\\]-`c-\\x7F] | root-key-2 [ !#-\\[\\]-ac-\\x7F] | "
        "root-key-3 [ !#-\\[\\]-\\x7F] | root-key-4 [ !#-\\[\\]-\\x7F] | root-key-any ( json-nonascii | json-esc )\n",
        "\nroot-key-end-at ::= root-key\n",
        "\nroot-key-ended ::= root-key-end-at \"\\\"\"\n",
        "\nroot-additional ::= ( root-key-left json-string-rest | root-key-ended ) ws \":\" ws json-value ws\n",
        "\nroot-last0 ::= root-kv0-named\n",
        "\nroot-last1 ::= root-kv1-named | root-last0 \",\" ws root-kv1-named\n",
        "\nroot-last2 ::= root-last1 \",\" ws root-kv2\n",
        "\nroot-kv0-named ::= \"\\\"a\\\"\" ws \":\" ws root-properties-a ws\n",
        "\nroot-kv2 ::= root-key-4 \"\\\"\" ws \":\" ws root-properties-b ws\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(strstr(g, want[i]) != NULL, "missing %s in:\n%s", want[i], g);
    free(g);
    check_sets(schema,
               V("{\"ab\":true}", "{\"a\":null,\"ab\":false}", "{\"ab\":true,\"b\":null}", "{\"ab\":true,\"\":1}",
                 "{\"ab\":true,\"abc\":[]}", "{\"ab\":true,\"b\":null,\"a\\\"\":2,\"ba\":{}}"),
               V("{}", "{\"a\":null}", "{\"ab\":1}", "{\"ab\":true,\"b\":1}", "{\"ab\":true,\"ab\":true}",
                 "{\"ab\":true,\"a\":null}", "{\"ab\":true,\"b\":null,\"b\":null}", "{\"x\":1,\"ab\":true}"));
}
END_TEST

/* A property name as long as the input: its trie is walked without
 * recursion (a recursive walk overflowed the stack at 200,000 characters). */
START_TEST(long_property_name)
{
    enum { LEN = 100000 };
    static char schema[LEN + 128];
    size_t n = (size_t)snprintf(schema, sizeof schema, "{\"type\":\"object\",\"properties\":{\"");
    memset(schema + n, 'a', LEN);
    snprintf(schema + n + LEN, sizeof schema - n - LEN, "\":{\"type\":\"integer\"}}}");
    char *g = gbnf(schema);
    ck_assert_ptr_nonnull(strstr(g, "\nroot-key-100001 ::= root-key-100000 \"a\"\n"));
    ck_assert_ptr_nonnull(strstr(g, "\nroot-kv0 ::= root-key-100001 \"\\\"\" ws \":\" ws root-properties-"));
    free(g);
}
END_TEST

/* Forty objects of eight optional properties with additional ones open.
 * When each declared key's literal met a right-recursive trie of the other
 * keys, two stacks lived for the length of every key and the forks reached
 * 28,000 configurations, so the certificate had to bound configurations per
 * conflict cell (it bounded this schema at 60 reads). Every key, declared or
 * not, is now read left to right through one trie per object: no fork, and
 * the deepest read is 14 entries. */
START_TEST(many_small_forks_bounded)
{
    static char schema[32768];
    size_t n = 0;
    n += snprintf(schema + n, sizeof schema - n, "{\"type\":\"object\",\"properties\":{");
    for (int i = 0; i < 40; i++) {
        n += snprintf(schema + n, sizeof schema - n, "%s\"o%d\":{\"type\":\"object\",\"properties\":{",
                      i ? "," : "", i);
        for (int j = 0; j < 8; j++)
            n += snprintf(schema + n, sizeof schema - n, "%s\"field%dx%dabcdefgh\":{\"type\":\"integer\"}",
                          j ? "," : "", i, j);
        n += snprintf(schema + n, sizeof schema - n, "}}");
    }
    n += snprintf(schema + n, sizeof schema - n, "}}");
    ck_assert_uint_lt(n, sizeof schema);
    gcg_artifact *art = compile_schema(schema, NULL, true, NULL);
    ck_assert_ptr_nonnull(art);
    gcg_certificate c;
    ck_assert_int_eq(gcg_artifact_certificate(art, &c), GCG_OK);
    ck_assert(c.bounded);
    ck_assert_uint_eq(c.max_stack_reads, 14);
    ck_assert(accepts(art, "{\"o3\":{\"field3x1abcdefgh\":1,\"field3x1abcdefgi\":[]},\"o39\":{}}"));
    ck_assert(!accepts(art, "{\"o3\":{\"field3x1abcdefgh\":1,\"field3x1abcdefgh\":[]}}"));
    gcg_artifact_free(art);
}
END_TEST

/* oneOf over branches that only require names: exactly one branch's names */
START_TEST(one_of_required)
{
    static const char props[] = "\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},"
                                "\"b\":{\"type\":\"string\"},\"c\":{\"type\":\"boolean\"}}";
    char schema[512];
    snprintf(schema, sizeof schema, "{%s,\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}", props);
    check_sets(schema, V("{\"a\":1}", "{\"b\":\"x\",\"c\":true}", "{\"a\":1,\"c\":false,\"z\":[]}"),
               V("{}", "{\"a\":1,\"b\":\"x\"}", "{\"c\":true}", "{\"b\":\"x\",\"z\":1,\"a\":2}"));
    /* {a, b} implies {a}: only "a without b" is exactly one */
    snprintf(schema, sizeof schema, "{%s,\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"a\",\"b\"]}]}",
             props);
    check_sets(schema, V("{\"a\":1}", "{\"a\":1,\"c\":true}"), V("{\"a\":1,\"b\":\"x\"}", "{}"));
    /* b required beside the oneOf: the branch that needs b absent is dropped */
    snprintf(schema, sizeof schema,
             "{%s,\"required\":[\"b\"],\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\"]}]}", props);
    check_sets(schema, V("{\"b\":\"x\"}"), V("{\"a\":1,\"b\":\"x\"}", "{\"a\":1}"));
    /* missing one of two names is not "a name is absent": refused */
    snprintf(schema, sizeof schema, "{%s,\"oneOf\":[{\"required\":[\"a\"]},{\"required\":[\"b\",\"c\"]}]}",
             props);
    check_error(schema, GCG_ERR_FORMAT, "#/oneOf:", "overlap");
}
END_TEST

/* not: rewritten by De Morgan into keywords the converter enforces */
START_TEST(negation)
{
    check_sets("{\"not\":{\"type\":\"null\"}}", V("1", "\"x\"", "[]", "{}", "true", "1.5"), V("null"));
    check_sets("{\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":\"integer\"}},"
               "\"not\":{\"required\":[\"a\",\"b\"]}}",
               V("{\"a\":1}", "{\"b\":2}", "{}", "{\"c\":[]}"), V("{\"a\":1,\"b\":2}", "\"x\"", "null", "[]"));
    check_sets("{\"not\":{\"type\":[\"string\",\"number\"]}}", V("null", "[1]", "{}", "false"),
               V("\"a\"", "3", "2.5"));
    check_sets("{\"not\":{\"minimum\":-2}}", V("-3", "-2.5", "-100"), V("-2", "0", "\"x\"", "null"));
    check_sets("{\"not\":{\"exclusiveMaximum\":3}}", V("3", "3.5", "10"), V("2.9", "-1", "[]"));
    check_sets("{\"type\":\"string\",\"not\":{\"maxLength\":2}}", V("\"abc\"", "\"abcd\""),
               V("\"\"", "\"ab\"", "5"));
    check_sets("{\"not\":{\"minItems\":1}}", V("[]"), V("[1]", "1", "{}"));
    check_sets("{\"not\":{\"type\":\"string\",\"maxLength\":2}}", V("1", "null", "\"abc\""),
               V("\"ab\"", "\"\""));
    check_sets("{\"not\":{\"not\":{\"type\":\"boolean\"}}}", V("true", "false"), V("0", "null"));
    check_sets("{\"not\":{\"anyOf\":[{\"type\":\"number\"},{\"maxProperties\":0}]}}", V("{\"a\":1}"),
               V("null", "\"s\"", "1", "{}"));
    check_sets("{\"not\":{\"allOf\":[{\"type\":\"array\"},{\"maxItems\":1}]}}", V("[1,2]", "3", "{}"),
               V("[]", "[1]"));
    check_error("{\"not\":{\"minLength\":0}}", GCG_ERR_FORMAT, "#: schema false", NULL);
    check_sets("{\"type\":\"number\",\"not\":false}", V("1"), V("null"));
    /* a type list naming every type has an empty complement */
    check_sets("{\"type\":\"string\",\"not\":{\"anyOf\":[{\"type\":[\"null\",\"boolean\",\"object\","
               "\"array\",\"string\",\"number\"],\"maxLength\":1}]}}",
               V("\"ab\"", "\"abc\""), V("\"a\"", "\"\"", "1"));
}
END_TEST

START_TEST(unenforced_keywords)
{
    check_error("{\"properties\":{\"a\":{\"not\":{\"enum\":[1,2]}}}}", GCG_ERR_FORMAT,
                "#/properties/a/not: keyword \"not\" cannot be enforced", NULL);
    check_error("{\"not\":{\"type\":\"integer\"}}", GCG_ERR_FORMAT, "#/not: keyword \"not\"", NULL);
    check_error("{\"type\":\"array\",\"uniqueItems\":true}", GCG_ERR_FORMAT, "#/uniqueItems", NULL);
    check_error("{\"if\":{},\"then\":{}}", GCG_ERR_FORMAT, "keyword \"if\"", NULL);
    gcgc_schema_options so = {0};
    so.lenient = true;
    char *m = NULL;
    gcg_artifact *a = compile_opt("{\"type\":\"array\",\"uniqueItems\":true}", &so, &m);
    ck_assert_ptr_nonnull(a);
    ck_assert_msg(strstr(m, "warning: #/uniqueItems: keyword \"uniqueItems\" dropped") != NULL, "%s", m);
    ck_assert(accepts(a, "[1,1]"));
    gcg_artifact_free(a);
    free(m);
    /* annotations and unknown keywords are ignored */
    check_sets("{\"title\":\"t\",\"description\":\"d\",\"x-vendor\":1,\"type\":\"null\",\"examples\":[1]}",
               V("null"), V("1"));
}
END_TEST

START_TEST(formats)
{
    check_sets("{\"type\":\"string\",\"format\":\"date\"}", V("\"2024-02-29\"", "\"2000-02-29\"", "\"2023-12-31\""),
               V("\"2023-02-29\"", "\"1900-02-29\"", "\"2023-04-31\"", "\"2023-13-01\"", "\"23-01-01\""));
    check_sets("{\"format\":\"date-time\",\"type\":\"string\"}", V("\"2024-01-02T03:04:05Z\"",
               "\"2024-01-02t03:04:05.123+05:30\""), V("\"2024-01-02T03:04:05\"", "\"2024-01-02T24:00:00Z\""));
    check_sets("{\"type\":\"string\",\"format\":\"ipv4\"}", V("\"192.168.0.1\"", "\"0.0.0.0\""),
               V("\"256.1.1.1\"", "\"01.1.1.1\"", "\"1.1.1\""));
    check_sets("{\"type\":\"string\",\"format\":\"ipv6\"}", V("\"::1\"", "\"fe80::1:2\"", "\"1:2:3:4:5:6:7:8\"",
               "\"::ffff:1.2.3.4\""), V("\"1:2:3:4:5:6:7:8:9\"", "\":::\"", "\"1::2::3\""));
    check_sets("{\"type\":\"string\",\"format\":\"uuid\"}", V("\"123e4567-e89b-12d3-a456-426614174000\""),
               V("\"123e4567e89b12d3a456426614174000\""));
    check_sets("{\"type\":\"string\",\"format\":\"email\"}", V("\"a.b@example.com\""), V("\"a@\"", "\"@b.c\""));
    check_sets("{\"type\":\"string\",\"format\":\"uri\"}", V("\"https://example.com/a?b=1#c\"",
               "\"https:\\/\\/x.org\"", "\"urn:isbn:1\""), V("\"/relative\"", "\"a b:c\""));
    check_sets("{\"type\":\"string\",\"format\":\"duration\"}", V("\"P1Y2M\"", "\"PT1H\"", "\"P3W\""),
               V("\"P\"", "\"PT\"", "\"1Y\""));
    check_sets("{\"type\":\"string\",\"format\":\"made-up\"}", V("\"anything\""), V("1"));
}
END_TEST

#define LABEL_63 "abcdefghij-bcdefghij-bcdefghij-bcdefghij-bcdefghij-bcdefghij-b3"

/* Counts the occurrences of needle in hay. */
static unsigned count_of(const char *hay, const char *needle)
{
    unsigned n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* A format is one rule however many strings use it, and only the formats
 * used are defined. */
START_TEST(format_rule_shared)
{
    const char *schema = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"format\":\"uri\"},"
                         "\"b\":{\"type\":\"array\",\"items\":{\"type\":\"string\",\"format\":\"uri\"}},"
                         "\"c\":{\"type\":\"string\",\"format\":\"hostname\"}},\"additionalProperties\":false}";
    char *g = gbnf(schema);
    ck_assert_uint_eq(count_of(g, "\njson-format-uri ::= "), 1);
    ck_assert_uint_eq(count_of(g, "\"\\\"\" json-format-uri \"\\\"\""), 2);
    ck_assert_uint_eq(count_of(g, "\njson-format-hostname ::= "), 1);
    ck_assert_uint_eq(count_of(g, "json-format-email"), 0);
    free(g);
    check_sets(schema, V("{\"a\":\"https://x.org\",\"b\":[\"urn:a\",\"s:\"],\"c\":\"a-b.example\"}", "{}"),
               V("{\"a\":\"x\"}", "{\"b\":[\"urn:a\",\"/p\"]}", "{\"c\":\"-a.example\"}"));
    /* email and hostname name one DNS label rule: 63 characters at most,
     * no hyphen first or last */
    schema = "{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\",\"format\":\"email\"},"
             "{\"type\":\"string\",\"format\":\"hostname\"}],\"items\":false}";
    g = gbnf(schema);
    ck_assert_uint_eq(count_of(g, "\njson-format-label ::= "), 1);
    ck_assert_uint_eq(count_of(g, "json-format-label"), 5);
    free(g);
    char ok[200], long_label[200];
    snprintf(ok, sizeof ok, "[\"a@b-c.%.63s\",\"%.63s.x\"]", LABEL_63, LABEL_63);
    snprintf(long_label, sizeof long_label, "[\"a@b.c\",\"%.63sa\"]", LABEL_63);
    check_sets(schema, V(ok, "[\"a@b.c\",\"x\"]", "[\"a@b.c\",\"x.y.\"]"),
               V(long_label, "[\"a@b-.c\",\"x\"]", "[\"a@b.c\",\"x-\"]", "[\"a@b\",\"x\"]"));
}
END_TEST

START_TEST(whitespace_modes)
{
    gcgc_schema_options so = {0};
    so.ws = 1;
    const char *s = "{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}";
    gcg_artifact *a = compile_opt(s, &so, NULL);
    ck_assert(accepts(a, "[1,2]"));
    ck_assert(!accepts(a, "[1, 2]"));
    gcg_artifact_free(a);
    so.ws = 2;
    so.ws_max = 2;
    a = compile_opt(s, &so, NULL);
    ck_assert(accepts(a, "[1,\n 2]"));
    ck_assert(!accepts(a, "[1,   2]"));
    gcg_artifact_free(a);
}
END_TEST

START_TEST(bad_input)
{
    check_error("{\"type\":", GCG_ERR_FORMAT, "invalid JSON", NULL);
    check_error("{\"type\":\"nothing\"}", GCG_ERR_FORMAT, "bad \"type\"", NULL);
    check_error("{\"type\":\"string\",\"pattern\":\"(?=a)\"}", GCG_ERR_FORMAT, "#/pattern", "lookaround");
    check_error("{\"type\":\"string\",\"pattern\":\"(a)\\\\1\"}", GCG_ERR_FORMAT, "backreferences", NULL);
    check_error("false", GCG_ERR_FORMAT, "no instance is valid", NULL);
    check_error("{\"enum\":[1],\"type\":\"string\"}", GCG_ERR_FORMAT, "no value of enum", NULL);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("schema");
    TCase *tc = tcase_create("keywords");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, types);
    tcase_add_test(tc, search_patterns_as_dfa);
    tcase_add_test(tc, enum_const);
    tcase_add_test(tc, enum_checked_against_the_schema);
    tcase_add_test(tc, objects);
    tcase_add_test(tc, object_grammar_exact);
    tcase_add_test(tc, objects_either_form);
    tcase_add_test(tc, arrays);
    tcase_add_test(tc, strings);
    tcase_add_test(tc, numbers);
    tcase_add_test(tc, refs);
    tcase_add_test(tc, combinators);
    tcase_add_test(tc, one_of_required);
    tcase_add_test(tc, additional_keys);
    tcase_add_test(tc, keys_through_one_trie);
    tcase_add_test(tc, long_property_name);
    tcase_add_test(tc, many_small_forks_bounded);
    tcase_add_test(tc, negation);
    tcase_add_test(tc, unenforced_keywords);
    tcase_add_test(tc, formats);
    tcase_add_test(tc, format_rule_shared);
    tcase_add_test(tc, whitespace_modes);
    tcase_add_test(tc, bad_input);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
