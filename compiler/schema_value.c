/*
 * schema_value.c — whether one concrete JSON value satisfies a schema: what
 * an enum or const meets beside other keywords. The grammar of such a
 * schema is just its values, so every other keyword (not, oneOf, properties,
 * uniqueItems...) can be decided on each value instead of in the grammar.
 *
 * Three answers: valid, invalid, or unknown when the schema uses a keyword
 * this evaluator does not decide (format, a pattern outside regex.h's simple
 * shape, a fractional multipleOf, contains counts...). The caller then falls
 * back to the grammar and its own refusals, so an unknown never widens the
 * language. Keywords no draft defines are ignored, as the specification
 * says.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "schema_internal.h"

#define UNKNOWN (-1)

static int valid(sctx *c, json_t *s, json_t *v, unsigned depth);

/* Numbers compare by value: 1 and 1.0 are the same instance. */
static bool same(json_t *a, json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return false;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return false;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same(json_array_get(a, i), json_array_get(b, i)))
                return false;
        return true;
    }
    if (json_is_object(a)) {
        const char *k;
        json_t *x;
        if (json_object_size(a) != json_object_size(b))
            return false;
        json_object_foreach(a, k, x) {
            json_t *y = json_object_get(b, k);
            if (!y || !same(x, y))
                return false;
        }
        return true;
    }
    return json_equal(a, b);
}

static bool is_integer(json_t *v)
{
    return json_is_integer(v) || (json_is_real(v) && floor(json_real_value(v)) == json_real_value(v));
}

static bool type_is(json_t *v, const char *t)
{
    if (!strcmp(t, "integer"))
        return is_integer(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    if (!strcmp(t, "string"))
        return json_is_string(v);
    if (!strcmp(t, "object"))
        return json_is_object(v);
    if (!strcmp(t, "array"))
        return json_is_array(v);
    if (!strcmp(t, "boolean"))
        return json_is_boolean(v);
    return !strcmp(t, "null") && json_is_null(v);
}

/* Combines verdicts of a conjunction: invalid wins, then unknown. */
static int and(int a, int b)
{
    return a == 0 || b == 0 ? 0 : a == UNKNOWN || b == UNKNOWN ? UNKNOWN : 1;
}

static size_t code_points(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static int pattern_ok(const char *pat, const char *str)
{
    gcg_regex_simple sp;
    if (!gcg_regex_simple_parse(pat, strlen(pat), &sp))
        return UNKNOWN;
    int m = sx_pattern_matches(&sp, str);
    gcg_regex_simple_free(&sp);
    return m;
}

static int numbers(json_t *s, json_t *v)
{
    if (!json_is_number(v))
        return 1;
    double x = json_number_value(v);
    json_t *mn = json_object_get(s, "minimum"), *mx = json_object_get(s, "maximum");
    json_t *emn = json_object_get(s, "exclusiveMinimum"), *emx = json_object_get(s, "exclusiveMaximum");
    if (json_is_boolean(emn) || json_is_boolean(emx))
        return UNKNOWN; /* draft-04 flags */
    if ((mn && x < json_number_value(mn)) || (mx && x > json_number_value(mx)) ||
        (emn && x <= json_number_value(emn)) || (emx && x >= json_number_value(emx)))
        return 0;
    json_t *mo = json_object_get(s, "multipleOf");
    if (mo) {
        if (!is_integer(mo) || !is_integer(v) || json_number_value(mo) <= 0)
            return UNKNOWN;
        return fmod(x, json_number_value(mo)) == 0;
    }
    return 1;
}

static int strings(json_t *s, json_t *v)
{
    if (!json_is_string(v))
        return 1;
    size_t n = code_points(json_string_value(v));
    json_t *mn = json_object_get(s, "minLength"), *mx = json_object_get(s, "maxLength");
    if ((mn && (double)n < json_number_value(mn)) || (mx && (double)n > json_number_value(mx)))
        return 0;
    json_t *p = json_object_get(s, "pattern");
    return json_is_string(p) ? pattern_ok(json_string_value(p), json_string_value(v)) : 1;
}

/* Member (k, x) against properties, every pattern that matches k, and
 * additionalProperties when neither names it. */
static int member(sctx *c, json_t *s, const char *k, json_t *x, unsigned depth)
{
    json_t *p = json_object_get(json_object_get(s, "properties"), k), *ps;
    bool named = p != NULL;
    int r = p ? valid(c, p, x, depth + 1) : 1;
    const char *pat;
    json_object_foreach(json_object_get(s, "patternProperties"), pat, ps) {
        int m = pattern_ok(pat, k);
        if (m == UNKNOWN)
            r = and(r, UNKNOWN);
        else if (m == 1)
            named = true, r = and(r, valid(c, ps, x, depth + 1));
    }
    json_t *ap = json_object_get(s, "additionalProperties");
    return named || !ap ? r : and(r, valid(c, ap, x, depth + 1));
}

static int objects(sctx *c, json_t *s, json_t *v, unsigned depth)
{
    if (!json_is_object(v))
        return 1;
    int r = 1;
    size_t i;
    json_t *x, *req = json_object_get(s, "required");
    json_array_foreach(req, i, x) if (json_is_string(x) && !json_object_get(v, json_string_value(x))) return 0;
    json_t *mn = json_object_get(s, "minProperties"), *mx = json_object_get(s, "maxProperties");
    double n = (double)json_object_size(v);
    if ((mn && n < json_number_value(mn)) || (mx && n > json_number_value(mx)))
        return 0;
    json_t *pn = json_object_get(s, "propertyNames"), *dep = json_object_get(s, "dependencies");
    const char *k;
    json_object_foreach(v, k, x) {
        r = and(r, member(c, s, k, x, depth));
        if (pn) {
            json_t *key = json_string(k);
            r = and(r, valid(c, pn, key, depth + 1));
            json_decref(key);
        }
        json_t *d = json_object_get(dep, k);
        if (json_is_array(d)) {
            json_array_foreach(d, i, req) if (json_is_string(req) && !json_object_get(v, json_string_value(req))) return 0;
        } else if (d) {
            r = and(r, valid(c, d, v, depth + 1));
        }
        if (r == 0)
            return 0;
    }
    return r;
}

static int arrays(sctx *c, json_t *s, json_t *v, unsigned depth)
{
    if (!json_is_array(v))
        return 1;
    size_t n = json_array_size(v), i, j;
    json_t *mn = json_object_get(s, "minItems"), *mx = json_object_get(s, "maxItems");
    if ((mn && (double)n < json_number_value(mn)) || (mx && (double)n > json_number_value(mx)))
        return 0;
    json_t *items = json_object_get(s, "items"), *pre = json_object_get(s, "prefixItems");
    json_t *rest = json_object_get(s, "additionalItems");
    if (json_is_array(items))
        pre = items, items = rest;
    int r = 1;
    for (i = 0; i < n && r != 0; i++) {
        json_t *sub = i < json_array_size(pre) ? json_array_get(pre, i) : items;
        if (sub)
            r = and(r, valid(c, sub, json_array_get(v, i), depth + 1));
    }
    if (json_is_true(json_object_get(s, "uniqueItems")))
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++)
                if (same(json_array_get(v, i), json_array_get(v, j)))
                    return 0;
    json_t *ct = json_object_get(s, "contains");
    if (ct && r != 0) {
        if (json_object_get(s, "minContains") || json_object_get(s, "maxContains"))
            return UNKNOWN;
        int any = 0;
        for (i = 0; i < n && any != 1; i++) {
            int m = valid(c, ct, json_array_get(v, i), depth + 1);
            any = m == 1 ? 1 : m == UNKNOWN ? UNKNOWN : any;
        }
        r = and(r, any);
    }
    return r;
}

/* anyOf, oneOf, allOf, not, if/then/else. */
static int combinators(sctx *c, json_t *s, json_t *v, unsigned depth)
{
    int r = 1;
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(s, "allOf"), i, b) r = and(r, valid(c, b, v, depth + 1));
    json_t *any = json_object_get(s, "anyOf");
    if (json_is_array(any)) {
        int a = 0;
        json_array_foreach(any, i, b) {
            int m = valid(c, b, v, depth + 1);
            a = m == 1 ? 1 : (m == UNKNOWN && a == 0) ? UNKNOWN : a;
        }
        r = and(r, a);
    }
    json_t *one = json_object_get(s, "oneOf");
    if (json_is_array(one)) {
        int hits = 0;
        bool unknown = false;
        json_array_foreach(one, i, b) {
            int m = valid(c, b, v, depth + 1);
            hits += m == 1, unknown |= m == UNKNOWN;
        }
        r = and(r, hits > 1 ? 0 : unknown ? UNKNOWN : hits == 1);
    }
    json_t *not = json_object_get(s, "not");
    if (not) {
        int m = valid(c, not, v, depth + 1);
        r = and(r, m == UNKNOWN ? UNKNOWN : !m);
    }
    json_t *cond = json_object_get(s, "if");
    if (cond) {
        int m = valid(c, cond, v, depth + 1);
        json_t *branch = json_object_get(s, m == 1 ? "then" : "else");
        r = and(r, m == UNKNOWN ? UNKNOWN : branch ? valid(c, branch, v, depth + 1) : 1);
    }
    return r;
}

/* Keywords that constrain values but are not decided here. */
static const char *const undecided[] = {"format", "unevaluatedProperties", "unevaluatedItems", "$dynamicRef",
                                        "$recursiveRef", "dependentSchemas", "dependentRequired", NULL};

static int valid(sctx *c, json_t *s, json_t *v, unsigned depth)
{
    if (json_is_boolean(s))
        return json_is_true(s);
    if (!json_is_object(s) || depth > SX_MAX_DEPTH)
        return UNKNOWN;
    for (const char *const *k = undecided; *k; k++)
        if (json_object_get(s, *k))
            return UNKNOWN;
    json_t *t = json_object_get(s, "type"), *e = json_object_get(s, "enum"), *k = json_object_get(s, "const");
    if (json_is_string(t) && !type_is(v, json_string_value(t)))
        return 0;
    if (json_is_array(t)) {
        bool ok = false;
        size_t i;
        json_t *x;
        json_array_foreach(t, i, x) ok |= json_is_string(x) && type_is(v, json_string_value(x));
        if (!ok)
            return 0;
    }
    if (k && !same(k, v))
        return 0;
    if (json_is_array(e)) {
        bool in = false;
        size_t i;
        json_t *x;
        json_array_foreach(e, i, x) in |= same(x, v);
        if (!in)
            return 0;
    }
    int r = and(numbers(s, v), strings(s, v));
    r = and(r, objects(c, s, v, depth));
    r = and(r, arrays(c, s, v, depth));
    r = and(r, combinators(c, s, v, depth));
    json_t *ref = json_object_get(s, "$ref");
    if (json_is_string(ref) && r != 0) {
        json_t *target;
        char *tp = NULL;
        gcg_diag *d = c->diag;
        gcg_status st = c->st;
        c->diag = NULL;
        bool ok = sx_resolve(c, json_string_value(ref), "", &target, &tp);
        c->diag = d, c->st = st;
        r = and(r, ok ? valid(c, target, v, depth + 1) : UNKNOWN);
        free(tp);
    }
    return r;
}

int sx_value_valid(sctx *c, json_t *s, json_t *v)
{
    return valid(c, s, v, 0);
}
