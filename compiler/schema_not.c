/*
 * schema_not.c — `not` rewritten into keywords the converter enforces.
 *
 * A schema's keywords are a conjunction, each keyword vacuous outside the
 * type it constrains, so by De Morgan the complement of {c1, c2, ...} is
 * anyOf [¬c1, ¬c2, ...], where the complement of one keyword is again a
 * plain schema:
 *
 *   ¬{type: T}           the other types (not for "integer" without
 *                        "number": non-integral numbers have no keyword)
 *   ¬{minimum: m}        {type: number, exclusiveMaximum: m}, and so on for
 *                        maximum and the exclusive bounds (numbers only)
 *   ¬{minLength: n}      {type: string, maxLength: n - 1} (nothing for n = 0),
 *                        likewise maxLength, min/maxItems, min/maxProperties
 *   ¬{required: [k...]}  {type: object, properties: {k: false}} for each k
 *   ¬{not: Y}            Y
 *   ¬{anyOf: [Y...]}     {allOf: [¬Y...]}
 *   ¬{allOf: [Y...]}     ¬Y... as further alternatives
 *   ¬true, ¬{}           false;  ¬false: true
 *
 * Annotations are ignored. Any other keyword (enum, pattern, properties,
 * $ref, ...) leaves the `not` as it was, and the converter then refuses it
 * with its pointer. A rewritten `not` becomes one more allOf entry of its
 * schema, so the language is exactly the schema's.
 */
#include <string.h>

#include "schema_internal.h"

static json_t *negate(json_t *x, unsigned depth);

static bool is_annotation(const char *k)
{
    static const char *const names[] = {"title", "description", "default", "examples", "$comment", "$id",
                                        "id", "$anchor", "deprecated", "readOnly", "writeOnly", NULL};
    for (const char *const *n = names; *n; n++)
        if (!strcmp(*n, k))
            return true;
    return false;
}

/* ¬{type: t}: the other types (*none when t names them all), or NULL. */
static json_t *other_types(json_t *t, bool *none)
{
    static const char *const all[] = {"null", "boolean", "object", "array", "string", "number"};
    bool has[7] = {false}, integer = false;
    json_t *one = json_is_string(t) ? json_pack("[O]", t) : json_incref(t);
    size_t i;
    json_t *e;
    json_array_foreach(one, i, e) {
        const char *s = json_string_value(e);
        for (unsigned k = 0; s && k < 6; k++)
            has[k] |= !strcmp(s, all[k]);
        integer |= s && !strcmp(s, "integer");
    }
    bool ok = json_is_array(one);
    json_decref(one);
    if (!ok || (integer && !has[5]))
        return NULL;
    json_t *rest = json_array();
    for (unsigned k = 0; k < 6; k++)
        if (!has[k])
            json_array_append_new(rest, json_string(all[k]));
    if (json_array_size(rest) == 0) { /* every type: no instance */
        json_decref(rest);
        *none = true;
        return NULL;
    }
    return json_pack("{s:o}", "type", rest);
}

/* ¬ of one bound keyword: the bound's own type with the opposite bound. */
static json_t *other_side(const char *k, json_t *v, bool *none)
{
    static const struct { const char *kw, *type, *opposite; int shift; } bounds[] = {
        {"minimum", "number", "exclusiveMaximum", 0},      {"maximum", "number", "exclusiveMinimum", 0},
        {"exclusiveMinimum", "number", "maximum", 0},      {"exclusiveMaximum", "number", "minimum", 0},
        {"minLength", "string", "maxLength", -1},          {"maxLength", "string", "minLength", 1},
        {"minItems", "array", "maxItems", -1},             {"maxItems", "array", "minItems", 1},
        {"minProperties", "object", "maxProperties", -1}, {"maxProperties", "object", "minProperties", 1}};
    for (unsigned i = 0; i < sizeof bounds / sizeof *bounds; i++) {
        if (strcmp(bounds[i].kw, k))
            continue;
        if (!bounds[i].shift)
            return json_is_number(v) ? json_pack("{s:s, s:O}", "type", bounds[i].type, bounds[i].opposite, v)
                                     : NULL;
        if (!json_is_integer(v) || json_integer_value(v) < 0)
            return NULL;
        json_int_t n = json_integer_value(v) + bounds[i].shift;
        if (n < 0) { /* ¬{minLength: 0}: no instance */
            *none = true;
            return NULL;
        }
        return json_pack("{s:s, s:I}", "type", bounds[i].type, bounds[i].opposite, n);
    }
    return NULL;
}

/* Appends ¬kw to alternatives `alt`; false when it has no rewrite. */
static bool negate_keyword(const char *k, json_t *v, json_t *alt, unsigned depth)
{
    json_t *n = NULL;
    bool none = false;
    if (!strcmp(k, "type")) {
        n = other_types(v, &none);
        if (none)
            return true;
    } else if (!strcmp(k, "not")) {
        n = json_deep_copy(v);
    } else if (!strcmp(k, "required")) {
        /* an object missing one of the names: one alternative per name */
        if (!json_is_array(v))
            return false;
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            if (!json_is_string(e))
                return false;
            json_t *one = json_pack("{s:s, s:{s:b}}", "type", "object", "properties", json_string_value(e), 0);
            if (!one || json_array_append_new(alt, one) != 0)
                return false;
        }
        return true;
    } else if (!strcmp(k, "anyOf") || !strcmp(k, "allOf")) {
        if (!json_is_array(v) || json_array_size(v) == 0)
            return false;
        json_t *negs = json_array();
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            json_t *ne = negate(e, depth + 1);
            if (!ne) {
                json_decref(negs);
                return false;
            }
            json_array_append_new(negs, ne);
        }
        if (!strcmp(k, "allOf")) {
            bool ok = json_array_extend(alt, negs) == 0;
            json_decref(negs);
            return ok;
        }
        n = json_pack("{s:o}", "allOf", negs);
    } else {
        n = other_side(k, v, &none);
        if (none)
            return true;
    }
    return n && json_array_append_new(alt, n) == 0;
}

/* The complement of schema x (a new reference), or NULL. */
static json_t *negate(json_t *x, unsigned depth)
{
    if (json_is_boolean(x))
        return json_boolean(!json_is_true(x));
    if (!json_is_object(x) || depth > SX_MAX_DEPTH || json_is_boolean(json_object_get(x, "exclusiveMinimum")) ||
        json_is_boolean(json_object_get(x, "exclusiveMaximum")))
        return NULL; /* draft-04 exclusive flags change what minimum means */
    json_t *alt = json_array(), *v;
    const char *k;
    json_object_foreach(x, k, v) {
        if (!is_annotation(k) && !negate_keyword(k, v, alt, depth)) {
            json_decref(alt);
            return NULL;
        }
    }
    if (json_array_size(alt) <= 1) {
        json_t *only = json_array_size(alt) ? json_incref(json_array_get(alt, 0)) : json_false();
        json_decref(alt);
        return only;
    }
    return json_pack("{s:o}", "anyOf", alt);
}

void sx_rewrite_not(json_t *s)
{
    json_t *v;
    size_t i;
    const char *k;
    if (json_is_array(s))
        json_array_foreach(s, i, v) sx_rewrite_not(v);
    if (!json_is_object(s))
        return;
    json_object_foreach(s, k, v) sx_rewrite_not(v); /* inner ones first */
    json_t *x = json_object_get(s, "not");
    json_t *n = x ? negate(x, 0) : NULL;
    if (!n)
        return;
    json_t *all = json_object_get(s, "allOf");
    if (!json_is_array(all)) {
        if (all) { /* a malformed allOf: left for the converter to report */
            json_decref(n);
            return;
        }
        all = json_array();
        json_object_set_new(s, "allOf", all);
    }
    json_array_append_new(all, n);
    json_object_del(s, "not");
}
