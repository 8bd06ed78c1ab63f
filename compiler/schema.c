/*
 * schema.c — JSON Schema -> GBNF: the document, references ($ref, $defs,
 * definitions, $anchor), combinators (allOf by merging, anyOf, oneOf when
 * its branches are disjoint), enum/const and the dispatch on `type`.
 * Objects and arrays are in schema_struct.c, numbers and strings in
 * schema_scalar.c. See schema.h for the contract.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema_charset.h"
#include "schema_internal.h"

/* ---- errors, pointers, names --------------------------------------------- */

void sx_error(sctx *c, gcg_status st, const char *ptr, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (c->st == GCG_OK)
        c->st = st;
    if (c->diag)
        gcg_diag_add(c->diag, GCG_SEV_ERROR, 0, 0, "#%s: %s", ptr, msg);
}

bool sx_unsupported(sctx *c, const char *ptr, const char *kw, const char *why)
{
    if (c->opt.lenient) {
        if (c->diag)
            gcg_diag_add(c->diag, GCG_SEV_WARNING, 0, 0, "#%s: keyword \"%s\" dropped: %s", ptr, kw, why);
        return false;
    }
    sx_error(c, GCG_ERR_FORMAT, ptr, "keyword \"%s\" cannot be enforced: %s (--lenient drops it)", kw, why);
    return true;
}

char *sx_ptr(const char *ptr, const char *seg)
{
    gcg_buf b = {0};
    gcg_buf_puts(&b, ptr);
    gcg_buf_puts(&b, "/");
    for (const char *p = seg; *p; p++)
        gcg_buf_puts(&b, *p == '~' ? "~0" : *p == '/' ? "~1" : (char[]){*p, 0});
    return gcg_buf_take(&b);
}

char *sx_ptr_index(const char *ptr, const char *seg, size_t i)
{
    gcg_buf b = {0};
    gcg_buf_printf(&b, "%s/%s/%zu", ptr, seg, i);
    return gcg_buf_take(&b);
}

/* root + the pointer with every run of other characters as one "-". */
char *sx_rule_name_for(const char *ptr)
{
    gcg_buf b = {0};
    gcg_buf_puts(&b, "root");
    bool dash = false;
    for (const char *p = ptr; *p; p++) {
        char ch = *p;
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (ok) {
            if (dash)
                gcg_buf_puts(&b, "-");
            gcg_buf_putn(&b, &ch, 1);
            dash = false;
        } else {
            dash = true;
        }
    }
    return gcg_buf_take(&b);
}

/* A name not yet in use: base, base-2, base-3, ... A base's entry in
 * c->names holds the suffix to try next (every base-2 .. base-(k-1) is in
 * use, since names are never given back), so the search does not start
 * from 2 again: from 2, an object's hundreds of key-trie helpers cost a
 * quadratic number of lookups, a tenth of a Kubernetes schema's compile. */
static const char *unique_name(sctx *c, const char *base)
{
    char name[512], first[512];
    snprintf(name, sizeof name, "%s", base);
    json_t *used = json_object_get(c->names, name);
    if (used) {
        unsigned k = json_is_integer(used) ? (unsigned)json_integer_value(used) : 2;
        memcpy(first, name, sizeof name);
        do
            snprintf(name, sizeof name, "%.480s-%u", base, k++);
        while (json_object_get(c->names, name));
        json_object_set_new_nocheck(c->names, first, json_integer(k));
    }
    json_object_set_new_nocheck(c->names, name, json_true()); /* names are ASCII (sx_rule_name_for) */
    /* the key storage inside the object lives as long as the object (a
     * value replaced keeps its key) */
    return json_object_iter_key(json_object_iter_at(c->names, name));
}

static size_t reserve_rule(sctx *c)
{
    json_array_append_new(c->rules, json_null());
    return json_array_size(c->rules) - 1;
}

/* Rule text is the converter's own: ASCII names and GBNF, with characters
 * taken whole from the document (valid UTF-8, as jansson read it), so it
 * is stored without jansson's UTF-8 check. That check and formatting
 * bodies tens of kilobytes long with vsnprintf were nearly half of a
 * large schema's conversion. */
static void define_rule(sctx *c, size_t slot, const char *name, const char *body)
{
    gcg_buf b = {0};
    gcg_buf_puts(&b, name);
    gcg_buf_puts(&b, " ::= ");
    gcg_buf_puts(&b, body);
    json_t *text = b.oom ? NULL : json_stringn_nocheck(b.s ? b.s : "", b.len);
    gcg_buf_free(&b);
    if (!text || json_array_set_new(c->rules, slot, text) != 0)
        sx_error(c, GCG_ERR_NOMEM, "", "out of memory");
}

const char *sx_helper(sctx *c, const char *base, const char *suffix, const char *body)
{
    char want[512];
    snprintf(want, sizeof want, "%s-%s", base, suffix);
    const char *name = unique_name(c, want);
    define_rule(c, reserve_rule(c), name, body);
    return name;
}

sx_decl sx_declare(sctx *c, const char *base, const char *suffix)
{
    char want[512];
    snprintf(want, sizeof want, "%s-%s", base, suffix);
    sx_decl d = {unique_name(c, want), reserve_rule(c)};
    return d;
}

void sx_define(sctx *c, sx_decl d, const char *body)
{
    define_rule(c, d.slot, d.name, body ? body : "\"\"");
}

/* ---- references ---------------------------------------------------------- */

/* Finds "$anchor": name anywhere in the document; its pointer into *where. */
static json_t *find_anchor(json_t *s, const char *name, const char *ptr, char **where)
{
    if (json_is_object(s)) {
        json_t *a = json_object_get(s, "$anchor");
        if (json_is_string(a) && strcmp(json_string_value(a), name) == 0) {
            *where = strdup(ptr);
            return s;
        }
        const char *k;
        json_t *v;
        json_object_foreach(s, k, v) {
            char *p = sx_ptr(ptr, k);
            json_t *r = p ? find_anchor(v, name, p, where) : NULL;
            free(p);
            if (r)
                return r;
        }
    } else if (json_is_array(s)) {
        for (size_t i = 0; i < json_array_size(s); i++) {
            char buf[32];
            snprintf(buf, sizeof buf, "%zu", i);
            char *p = sx_ptr(ptr, buf);
            json_t *r = p ? find_anchor(json_array_get(s, i), name, p, where) : NULL;
            free(p);
            if (r)
                return r;
        }
    }
    return NULL;
}

static int hexv(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
         : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

/* One reference token: %XX (URI fragment encoding) then ~1 -> /, ~0 -> ~. */
static bool unescape_token(const char *s, size_t n, char *out)
{
    size_t k = 0;
    char tmp[1024];
    if (n >= sizeof tmp)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n + 0 + 1 && i + 2 <= n - 1 + 1 && hexv(s[i + 1]) >= 0 && hexv(s[i + 2]) >= 0) {
            tmp[k++] = (char)(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
            i += 2;
        } else {
            tmp[k++] = s[i];
        }
    }
    size_t j = 0;
    for (size_t i = 0; i < k; i++) {
        if (tmp[i] == '~') {
            if (i + 1 >= k || (tmp[i + 1] != '0' && tmp[i + 1] != '1'))
                return false;
            out[j++] = tmp[i + 1] == '0' ? '~' : '/';
            i++;
        } else {
            out[j++] = tmp[i];
        }
    }
    out[j] = 0;
    return true;
}

bool sx_resolve(sctx *c, const char *ref, const char *ptr, json_t **target, char **tptr)
{
    const char *hash = strchr(ref, '#');
    if (!hash || hash != ref) {
        sx_unsupported(c, ptr, "$ref", "only local references (\"#...\") can be resolved");
        return false;
    }
    const char *frag = hash + 1;
    if (*frag && *frag != '/') {
        *target = find_anchor(c->doc, frag, "", tptr);
        if (!*target)
            sx_error(c, GCG_ERR_FORMAT, ptr, "$ref \"%s\": no such $anchor", ref);
        return *target != NULL;
    }
    json_t *cur = c->doc;
    gcg_buf canon = {0};
    gcg_buf_puts(&canon, "");
    while (*frag == '/') {
        const char *end = strchr(frag + 1, '/');
        size_t n = end ? (size_t)(end - frag - 1) : strlen(frag + 1);
        char tok[1024];
        if (!unescape_token(frag + 1, n, tok)) {
            sx_error(c, GCG_ERR_FORMAT, ptr, "$ref \"%s\": bad JSON pointer", ref);
            gcg_buf_free(&canon);
            return false;
        }
        if (json_is_object(cur)) {
            cur = json_object_get(cur, tok);
        } else if (json_is_array(cur)) {
            char *e;
            unsigned long i = strtoul(tok, &e, 10);
            cur = *tok && !*e ? json_array_get(cur, i) : NULL;
        } else {
            cur = NULL;
        }
        if (!cur) {
            sx_error(c, GCG_ERR_FORMAT, ptr, "$ref \"%s\": no such location", ref);
            gcg_buf_free(&canon);
            return false;
        }
        char *next = sx_ptr(canon.s ? canon.s : "", tok);
        gcg_buf_free(&canon);
        gcg_buf_puts(&canon, next ? next : "");
        free(next);
        frag += 1 + n;
    }
    *target = cur;
    *tptr = gcg_buf_take(&canon);
    return true;
}

/* ---- keywords ------------------------------------------------------------ */

/* Keywords that only annotate: ignored. Unknown keywords are annotations
 * too (2020-12, 4.3.1), so they are ignored as well. */
static const char *const annotations[] = {
    "title", "description", "default", "examples", "$comment", "$schema", "$id", "id", "$anchor",
    "$dynamicAnchor", "deprecated", "readOnly", "writeOnly", "contentEncoding", "contentMediaType",
    "contentSchema", "$defs", "definitions", "$vocabulary", "discriminator", "nullable_", NULL};

/* The keywords that assert or apply subschemas (2020-12 and the draft-04/06/07
 * spellings): any other keyword is an annotation (4.3.1), whatever its
 * value, and two allOf branches may disagree on it. */
static const char *const constraining[] = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "patternProperties",
    "propertyNames", "minProperties", "maxProperties", "dependentRequired", "dependentSchemas", "dependencies",
    "items", "prefixItems", "additionalItems", "contains", "minContains", "maxContains", "minItems", "maxItems",
    "uniqueItems", "unevaluatedItems", "unevaluatedProperties", "minLength", "maxLength", "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "allOf", "anyOf", "oneOf", "not",
    "if", "then", "else", "$ref", "$dynamicRef", "$recursiveRef", NULL};

/* Keywords that constrain but are not enforced. */
static const char *const unenforced[] = {
    "not", "if", "then", "else", "uniqueItems", "contains", "minContains", "maxContains",
    "dependentSchemas", "dependencies", "dependentRequired", "unevaluatedItems", "$dynamicRef",
    "$recursiveRef", NULL};

static bool in_list(const char *const *list, const char *k)
{
    for (; *list; list++)
        if (strcmp(*list, k) == 0)
            return true;
    return false;
}

/* Whether JSON array `names` holds a value equal to `name`. */
static bool names_have(json_t *names, json_t *name)
{
    size_t i;
    json_t *v;
    json_array_foreach(names, i, v) if (json_equal(v, name)) return true;
    return false;
}

/* Reports unenforced keywords; false when one is an error. */
static bool check_unenforced(sctx *c, json_t *s, const char *ptr)
{
    const char *k;
    json_t *v;
    bool ok = true;
    json_object_foreach(s, k, v) {
        if (!in_list(unenforced, k))
            continue;
        if (strcmp(k, "uniqueItems") == 0 && json_is_false(v))
            continue;
        if ((strcmp(k, "dependentRequired") == 0 || strcmp(k, "dependentSchemas") == 0 ||
             strcmp(k, "dependencies") == 0) && json_is_object(v) && json_object_size(v) == 0)
            continue;
        if (strcmp(k, "minContains") == 0 || strcmp(k, "maxContains") == 0)
            if (!json_object_get(s, "contains"))
                continue; /* without contains they do nothing */
        char *p = sx_ptr(ptr, k);
        ok &= !sx_unsupported(c, p ? p : ptr, k, "not a context-free constraint gcg enforces");
        free(p);
    }
    return ok;
}

unsigned sx_value_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_NULL: return T_NULL;
    case JSON_TRUE: case JSON_FALSE: return T_BOOL;
    case JSON_OBJECT: return T_OBJECT;
    case JSON_ARRAY: return T_ARRAY;
    case JSON_STRING: return T_STRING;
    case JSON_INTEGER: return T_INTEGER;
    case JSON_REAL: {
        double d = json_real_value(v);
        return d == (double)(long long)d ? T_INTEGER : T_NUMBER;
    }
    }
    return 0;
}

static unsigned type_bit(const char *t)
{
    static const char *const names[] = {"null", "boolean", "object", "array", "string", "integer", "number"};
    for (unsigned i = 0; i < 7; i++)
        if (strcmp(t, names[i]) == 0)
            return i == 6 ? (T_NUMBER | T_INTEGER) : 1u << i;
    return 0;
}

/* The types `type` allows (T_ALL when absent); 0 with an error when bad. */
static unsigned declared_types(sctx *c, json_t *s, const char *ptr)
{
    json_t *t = json_object_get(s, "type");
    if (!t)
        return T_ALL;
    unsigned m = 0;
    if (json_is_string(t))
        m = type_bit(json_string_value(t));
    else if (json_is_array(t)) {
        size_t i;
        json_t *e;
        json_array_foreach(t, i, e) m |= json_is_string(e) ? type_bit(json_string_value(e)) : 0;
    }
    if (!m)
        sx_error(c, GCG_ERR_FORMAT, ptr, "bad \"type\"");
    return m;
}

/* ---- allOf: merging ------------------------------------------------------ */

static json_t *merge(sctx *c, json_t *a, json_t *b, const char *ptr);

/* The schema with its $ref (and $ref chains) replaced by the target merged
 * with the siblings. A new reference. */
static json_t *deref(sctx *c, json_t *s, const char *ptr)
{
    json_t *ref = json_is_object(s) ? json_object_get(s, "$ref") : NULL;
    if (!json_is_string(ref))
        return json_incref(s);
    json_t *target;
    char *tptr = NULL;
    if (!sx_resolve(c, json_string_value(ref), ptr, &target, &tptr))
        return NULL;
    free(tptr);
    if (++c->depth > SX_MAX_DEPTH) {
        c->depth--;
        sx_error(c, GCG_ERR_LIMIT, ptr, "$ref chain deeper than %u (recursive allOf?)", SX_MAX_DEPTH);
        return NULL;
    }
    json_t *rest = c->ref_alone ? json_object() : json_deep_copy(s);
    json_object_del(rest, "$ref");
    json_t *t = deref(c, target, ptr);
    json_t *m = t ? merge(c, t, rest, ptr) : NULL;
    json_decref(t);
    json_decref(rest);
    c->depth--;
    return m;
}

static bool is_min_kw(const char *k)
{
    return !strcmp(k, "minimum") || !strcmp(k, "minLength") || !strcmp(k, "minItems") ||
           !strcmp(k, "minProperties") || (!strcmp(k, "exclusiveMinimum"));
}

static bool is_max_kw(const char *k)
{
    return !strcmp(k, "maximum") || !strcmp(k, "maxLength") || !strcmp(k, "maxItems") ||
           !strcmp(k, "maxProperties") || (!strcmp(k, "exclusiveMaximum"));
}

static json_t *type_json(unsigned m)
{
    static const char *const names[] = {"null", "boolean", "object", "array", "string", "integer", "number"};
    json_t *a = json_array();
    if (m & T_NUMBER)
        m &= ~(unsigned)T_INTEGER;
    for (unsigned i = 0; i < 7; i++)
        if (m & (1u << i))
            json_array_append_new(a, json_string(names[i]));
    return a;
}

static json_t *all_of2(json_t *x, json_t *y)
{
    if (json_is_false(x) || json_is_false(y))
        return json_false();
    return json_pack("{s:[OO]}", "allOf", x, y);
}

/* Property-wise merge: a key only one side names meets the other side's
 * additionalProperties (absent or true: no constraint). */
static json_t *merge_properties(json_t *a, json_t *b)
{
    json_t *pa = json_object_get(a, "properties"), *pb = json_object_get(b, "properties");
    json_t *aa = json_object_get(a, "additionalProperties"), *ab = json_object_get(b, "additionalProperties");
    json_t *out = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(pa, k, v) {
        json_t *w = json_object_get(pb, k);
        json_t *other = w ? w : (ab && !json_is_true(ab) ? ab : NULL);
        json_object_set_new(out, k, other ? all_of2(v, other) : json_incref(v));
    }
    json_object_foreach(pb, k, v) {
        if (json_object_get(pa, k))
            continue;
        json_object_set_new(out, k, aa && !json_is_true(aa) ? all_of2(v, aa) : json_incref(v));
    }
    return out;
}

static json_t *merge_enum(json_t *x, json_t *y)
{
    json_t *out = json_array();
    size_t i, j;
    json_t *u, *w;
    json_array_foreach(x, i, u) json_array_foreach(y, j, w) if (json_equal(u, w)) {
        json_array_append(out, u);
        break;
    }
    return out;
}

/* One keyword present on both sides with different values. */
static bool merge_kw(sctx *c, json_t *m, const char *k, json_t *x, json_t *y, const char *ptr)
{
    if (is_min_kw(k) && json_is_number(x) && json_is_number(y)) {
        json_object_set(m, k, json_number_value(x) >= json_number_value(y) ? x : y);
    } else if (is_max_kw(k) && json_is_number(x) && json_is_number(y)) {
        json_object_set(m, k, json_number_value(x) <= json_number_value(y) ? x : y);
    } else if (!strcmp(k, "type")) {
        unsigned t = declared_types(c, m, ptr);
        json_t *one = json_pack("{s:O}", "type", y);
        unsigned u = declared_types(c, one, ptr);
        json_decref(one);
        unsigned both = t & u;
        if ((t & T_INTEGER) && (u & T_INTEGER))
            both |= T_INTEGER;
        json_object_set_new(m, "type", type_json(both));
    } else if (!strcmp(k, "required") && json_is_array(x) && json_is_array(y)) {
        json_t *r = json_deep_copy(x);
        size_t i;
        json_t *e;
        json_array_foreach(y, i, e) if (!names_have(r, e)) json_array_append(r, e);
        json_object_set_new(m, k, r);
    } else if (!strcmp(k, "enum") && json_is_array(x) && json_is_array(y)) {
        json_object_set_new(m, k, merge_enum(x, y));
    } else if (!strcmp(k, "additionalProperties") || !strcmp(k, "items") || !strcmp(k, "propertyNames") ||
               !strcmp(k, "additionalItems")) {
        json_object_set_new(m, k, json_is_true(x) ? json_incref(y) : json_is_true(y) ? json_incref(x)
                                                                   : all_of2(x, y));
    } else if (!strcmp(k, "allOf") || !strcmp(k, "anyOf") || !strcmp(k, "oneOf")) {
        /* both sides keep theirs: nest them */
        json_t *all = json_object_get(m, "allOf");
        if (!all || !json_is_array(all)) {
            all = json_array();
            json_object_set_new(m, "allOf", all);
        }
        json_array_append_new(all, json_pack("{s:O}", k, x));
        json_array_append_new(all, json_pack("{s:O}", k, y));
        if (strcmp(k, "allOf") != 0)
            json_object_del(m, k);
    } else if (!in_list(constraining, k)) {
        /* an annotation ("title", "help", "x-…"): keep the first */
    } else {
        char *p = sx_ptr(ptr, "allOf");
        sx_error(c, GCG_ERR_FORMAT, p ? p : ptr, "cannot intersect two different \"%s\" exactly", k);
        free(p);
        return false;
    }
    return true;
}

/* a ∧ b as one schema (new reference), or NULL after an error. */
static json_t *merge(sctx *c, json_t *a, json_t *b, const char *ptr)
{
    if (json_is_true(a) || (json_is_object(a) && json_object_size(a) == 0))
        return json_incref(b);
    if (json_is_true(b) || (json_is_object(b) && json_object_size(b) == 0))
        return json_incref(a);
    if (json_is_false(a) || json_is_false(b))
        return json_false();
    json_t *da = deref(c, a, ptr), *db = da ? deref(c, b, ptr) : NULL;
    if (!da || !db) {
        json_decref(da);
        return NULL;
    }
    json_t *m = json_deep_copy(da);
    const char *k;
    json_t *y;
    bool ok = true;
    json_object_foreach(db, k, y) {
        json_t *x = json_object_get(da, k);
        if (!x)
            json_object_set(m, k, y);
        else if (!json_equal(x, y) && strcmp(k, "properties") != 0)
            ok &= merge_kw(c, m, k, x, y, ptr);
    }
    if (json_object_get(da, "properties") || json_object_get(db, "properties"))
        json_object_set_new(m, "properties", merge_properties(da, db));
    json_decref(da);
    json_decref(db);
    if (!ok) {
        json_decref(m);
        return NULL;
    }
    return m;
}

/* Folds allOf (and a $ref with siblings) into one schema; new reference.
 * Each round counts as a level of depth while the fold lasts, so that allOf
 * reached again through $ref stops at SX_MAX_DEPTH. */
static json_t *flatten(sctx *c, json_t *s, const char *ptr)
{
    unsigned depth = c->depth;
    json_t *cur = deref(c, s, ptr);
    json_t *all;
    while (cur && json_is_object(cur) && json_is_array(all = json_object_get(cur, "allOf"))) {
        if (++c->depth > SX_MAX_DEPTH) {
            sx_error(c, GCG_ERR_LIMIT, ptr, "allOf nested deeper than %u", SX_MAX_DEPTH);
            json_decref(cur);
            cur = NULL;
            break;
        }
        json_t *rest = json_deep_copy(cur);
        json_incref(all);
        json_object_del(rest, "allOf");
        json_t *acc = rest;
        size_t i;
        json_t *e;
        json_array_foreach(all, i, e) { /* each branch folded first: its own
                                           allOf's properties in their place */
            json_t *f = acc ? flatten(c, e, ptr) : NULL;
            json_t *n = f ? merge(c, acc, f, ptr) : NULL;
            json_decref(f);
            json_decref(acc);
            acc = n;
        }
        json_decref(all);
        json_decref(cur);
        cur = acc;
        json_t *d = cur ? deref(c, cur, ptr) : NULL;
        json_decref(cur);
        cur = d;
    }
    c->depth = depth;
    return cur;
}

/* ---- oneOf: disjointness ------------------------------------------------- */

static unsigned possible_types(sctx *c, json_t *s, unsigned depth);

/* m narrowed by the types of the target of s's "$ref", if any. */
static unsigned possible_types_ref(sctx *c, json_t *s, unsigned m, unsigned depth)
{
    json_t *ref = json_object_get(s, "$ref");
    if (!json_is_string(ref))
        return m;
    json_t *target;
    char *tp = NULL;
    gcg_diag *d = c->diag;
    gcg_status st = c->st;
    c->diag = NULL;
    if (sx_resolve(c, json_string_value(ref), "", &target, &tp))
        m &= possible_types(c, target, depth + 1);
    c->st = st;
    c->diag = d;
    free(tp);
    return m;
}

/* The types a schema's instances can have (upper bound), following $ref. */
static unsigned possible_types(sctx *c, json_t *s, unsigned depth)
{
    if (json_is_false(s))
        return 0;
    if (!json_is_object(s) || depth > 16)
        return T_ALL;
    unsigned m = T_ALL;
    if (c->ref_alone && json_is_string(json_object_get(s, "$ref")))
        return possible_types_ref(c, s, m, depth);
    json_t *t = json_object_get(s, "type");
    if (t) {
        gcg_diag *d = c->diag;
        c->diag = NULL;
        gcg_status st = c->st;
        m = declared_types(c, s, "");
        c->st = st;
        c->diag = d;
        if (m & T_NUMBER)
            m |= T_INTEGER;
    }
    json_t *e = json_object_get(s, "enum"), *k = json_object_get(s, "const");
    if (k)
        m &= sx_value_type(k) | (sx_value_type(k) == T_INTEGER ? T_NUMBER : 0);
    if (json_is_array(e)) {
        unsigned u = 0;
        size_t i;
        json_t *v;
        json_array_foreach(e, i, v) u |= sx_value_type(v) | (sx_value_type(v) == T_INTEGER ? T_NUMBER : 0);
        m &= u;
    }
    m = possible_types_ref(c, s, m, depth);
    json_t *any = json_object_get(s, "anyOf");
    if (!json_is_array(any))
        any = json_object_get(s, "oneOf");
    if (json_is_array(any)) {
        unsigned u = 0;
        size_t i;
        json_t *v;
        json_array_foreach(any, i, v) u |= possible_types(c, v, depth + 1);
        m &= u;
    }
    json_t *all = json_object_get(s, "allOf");
    if (json_is_array(all)) {
        size_t i;
        json_t *v;
        json_array_foreach(all, i, v) m &= possible_types(c, v, depth + 1);
    }
    /* integers are numbers: a branch that allows numbers overlaps integers */
    return m;
}

/* The values a schema allows when it is an enum or const (new array), else NULL. */
static json_t *value_set(json_t *s)
{
    if (!json_is_object(s))
        return NULL;
    json_t *k = json_object_get(s, "const");
    if (k)
        return json_pack("[O]", k);
    json_t *e = json_object_get(s, "enum");
    return json_is_array(e) ? json_incref(e) : NULL;
}

static bool values_disjoint(json_t *x, json_t *y)
{
    json_t *m = merge_enum(x, y);
    bool d = json_array_size(m) == 0;
    json_decref(m);
    return d;
}

/* Whether object schema f (flattened) rejects every object with member n:
 * its schema for n is false, or n is not among its properties and nothing
 * else is allowed (additionalProperties false, no patternProperties). */
static bool forbids(json_t *f, const char *n)
{
    json_t *pv = json_object_get(json_object_get(f, "properties"), n);
    if (pv)
        return json_is_false(pv);
    json_t *pp = json_object_get(f, "patternProperties");
    return json_is_false(json_object_get(f, "additionalProperties")) && json_object_size(pp) == 0;
}

/* Whether no value satisfies both x and y: disjoint value sets or types. */
static bool member_values_disjoint(sctx *c, json_t *x, json_t *y)
{
    json_t *va = value_set(x), *vb = va ? value_set(y) : NULL;
    bool d = va && vb && values_disjoint(va, vb);
    json_decref(va);
    json_decref(vb);
    return d || (x && y && !(possible_types(c, x, 0) & possible_types(c, y, 0)));
}

/* Objects fa requires a member of that fb cannot have: fb forbids the name,
 * or both require it with values that cannot meet. */
static bool required_apart(sctx *c, json_t *fa, json_t *fb)
{
    json_t *pa = json_object_get(fa, "properties"), *pb = json_object_get(fb, "properties");
    json_t *ra = json_object_get(fa, "required"), *rb = json_object_get(fb, "required");
    size_t i;
    json_t *name;
    json_array_foreach(ra, i, name) {
        if (!json_is_string(name))
            continue;
        const char *n = json_string_value(name);
        if (forbids(fb, n))
            return true;
        if (names_have(rb, name) && member_values_disjoint(c, json_object_get(pa, n), json_object_get(pb, n)))
            return true;
    }
    return false;
}

/* Objects told apart by their required members (see required_apart). */
static bool discriminated(sctx *c, json_t *a, json_t *b, const char *ptr)
{
    json_t *fa = flatten(c, a, ptr), *fb = fa ? flatten(c, b, ptr) : NULL;
    bool ok = json_is_object(fa) && json_is_object(fb) && (required_apart(c, fa, fb) || required_apart(c, fb, fa));
    json_decref(fa);
    json_decref(fb);
    return ok;
}

/* oneOf is anyOf when no instance can match two branches. */
static bool branches_disjoint(sctx *c, json_t *arr, const char *ptr)
{
    size_t n = json_array_size(arr);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            json_t *a = json_array_get(arr, i), *b = json_array_get(arr, j);
            unsigned ta = possible_types(c, a, 0), tb = possible_types(c, b, 0);
            if (!(ta & tb))
                continue;
            json_t *va = value_set(a), *vb = value_set(b);
            bool d = va && vb && values_disjoint(va, vb);
            json_decref(va);
            json_decref(vb);
            if (d)
                continue;
            if ((ta & tb) == T_OBJECT && discriminated(c, a, b, ptr))
                continue;
            return false;
        }
    return true;
}

bool sx_unsatisfiable(sctx *c, json_t *s)
{
    if (json_is_false(s))
        return true;
    if (!json_is_object(s) || json_object_get(s, "$ref") || json_object_get(s, "allOf") ||
        json_object_get(s, "anyOf") || json_object_get(s, "oneOf"))
        return false;
    json_t *vals = value_set(s);
    if (!json_is_array(vals)) {
        json_decref(vals);
        return false;
    }
    gcg_diag *d = c->diag;
    gcg_status st = c->st;
    c->diag = NULL;
    unsigned types = declared_types(c, s, "");
    c->diag = d;
    c->st = st;
    bool none = types != 0;
    size_t i;
    json_t *v;
    json_array_foreach(vals, i, v) {
        unsigned t = sx_value_type(v);
        none &= !(t & types) && !(t == T_INTEGER && (types & T_NUMBER));
    }
    json_decref(vals);
    return none;
}

/* ---- bodies -------------------------------------------------------------- */

static void body(sctx *c, json_t *s, const char *ptr, gcg_buf *out);

/* Whether branch b only requires names (annotations aside): its names. */
static json_t *required_only(json_t *b)
{
    if (!json_is_object(b))
        return NULL;
    const char *k;
    json_t *v, *req = NULL;
    json_object_foreach(b, k, v) {
        if (!strcmp(k, "required") && json_is_array(v))
            req = v;
        else if (!in_list(annotations, k))
            return NULL;
    }
    size_t i;
    json_array_foreach(req, i, v) if (!json_is_string(v)) return NULL;
    return req;
}

/* oneOf over branches that only require names, as disjoint branches: branch
 * i holds alone when every other branch j misses one of its names R_j. With
 * R_i present that is "the one name of R_j \ R_i is absent" (properties:
 * {name: false}) when R_j \ R_i has one name, and impossible when it has
 * none (branch i dropped; also when an absent name is required beside the
 * oneOf). A new array, or NULL when some R_j \ R_i has two names or more. */
static json_t *exclusive_required(json_t *arr, json_t *sibling_required)
{
    size_t n = json_array_size(arr);
    for (size_t i = 0; i < n; i++)
        if (!required_only(json_array_get(arr, i)))
            return NULL;
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *ri = required_only(json_array_get(arr, i)), *absent = json_object();
        bool possible = true;
        for (size_t j = 0; j < n && possible; j++) {
            json_t *rj = required_only(json_array_get(arr, j)), *only = NULL, *v;
            size_t k, missing = 0;
            if (j == i)
                continue;
            json_array_foreach(rj, k, v) if (!names_have(ri, v)) missing++, only = v;
            if (missing > 1) {
                json_decref(absent);
                json_decref(out);
                return NULL;
            }
            possible = missing == 1 && !names_have(sibling_required, only);
            if (possible)
                json_object_set_new(absent, json_string_value(only), json_false());
        }
        if (possible)
            json_array_append_new(out, json_pack("{s:O, s:O}", "required", ri, "properties", absent));
        json_decref(absent);
    }
    return out;
}

/* anyOf / oneOf: one alternative per branch, each with the siblings. */
static void alternatives(sctx *c, json_t *s, const char *kw, const char *ptr, gcg_buf *out)
{
    json_t *arr = json_object_get(s, kw);
    char *kptr = sx_ptr(ptr, kw);
    if (!json_is_array(arr) || json_array_size(arr) == 0) {
        sx_error(c, GCG_ERR_FORMAT, kptr, "\"%s\" must be a non-empty array", kw);
        free(kptr);
        return;
    }
    json_t *excl = NULL;
    if (!strcmp(kw, "oneOf") && !c->opt.oneof_as_anyof && !branches_disjoint(c, arr, ptr)) {
        excl = exclusive_required(arr, json_object_get(s, "required"));
        if (!excl) {
            sx_error(c, GCG_ERR_FORMAT, kptr,
                     "oneOf branches may overlap and exclusivity cannot be enforced (--oneof-as-anyof "
                     "accepts instances matching several)");
            free(kptr);
            return;
        }
        arr = excl;
    }
    json_t *rest = json_deep_copy(s);
    json_object_del(rest, kw);
    bool siblings = false;
    const char *k;
    json_t *v;
    json_object_foreach(rest, k, v) siblings |= !in_list(annotations, k);
    size_t i;
    json_t *e;
    bool first = true;
    json_array_foreach(arr, i, e) {
        char *bp = sx_ptr_index(ptr, kw, i);
        json_t *branch = siblings ? merge(c, rest, e, bp) : json_incref(e);
        /* a branch no value can satisfy is left out, not an error */
        const char *r = branch && !sx_unsatisfiable(c, branch) ? sx_rule(c, branch, bp) : NULL;
        if (r) {
            gcg_buf_printf(out, "%s%s", first ? "" : " | ", r);
            first = false;
        }
        json_decref(branch);
        free(bp);
    }
    if (first && c->st == GCG_OK)
        sx_error(c, GCG_ERR_FORMAT, kptr, "no branch of \"%s\" can be satisfied", kw);
    json_decref(rest);
    json_decref(excl);
    free(kptr);
}

/* enum / const: the listed values that `type` allows. */
static void enumeration(sctx *c, json_t *s, const char *ptr, unsigned types, gcg_buf *out)
{
    json_t *vals = value_set(s);
    json_t *en = json_object_get(s, "enum");
    if (json_object_get(s, "const") && json_is_array(en)) {
        json_t *m = merge_enum(vals, en);
        json_decref(vals);
        vals = m;
    }
    if (!json_is_array(vals)) {
        sx_error(c, GCG_ERR_FORMAT, ptr, "\"enum\" must be an array");
        json_decref(vals);
        return;
    }
    static const char *const value_kws[] = {
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
        "pattern", "format", "properties", "required", "additionalProperties", "items", "prefixItems",
        "minItems", "maxItems", "minProperties", "maxProperties", "patternProperties", "propertyNames", NULL};
    const char *k;
    json_t *v;
    json_object_foreach(s, k, v) if (in_list(value_kws, k) && strcmp(k, "format") != 0) {
        char *kp = sx_ptr(ptr, k);
        sx_unsupported(c, kp, k, "constraints beside enum/const are not checked against the values");
        free(kp);
    }
    bool first = true;
    size_t i;
    json_array_foreach(vals, i, v) {
        unsigned t = sx_value_type(v);
        if (!(t & types) && !(t == T_INTEGER && (types & T_NUMBER)))
            continue;
        gcg_buf_puts(out, first ? "" : " | ");
        sx_literal(c, v, out);
        first = false;
    }
    if (first)
        sx_error(c, GCG_ERR_FORMAT, ptr, "no value of enum/const is allowed: no instance is valid");
    json_decref(vals);
}

/* A schema with enum or const allows only those values: each is checked
 * against the whole schema (not, oneOf, properties... included) and the
 * valid ones are the grammar. False when some check is undecided (the
 * caller then goes on as for any schema). */
static bool finite_values(sctx *c, json_t *s, const char *ptr, gcg_buf *out)
{
    json_t *vals = value_set(s), *en = json_object_get(s, "enum");
    if (json_object_get(s, "const") && json_is_array(en)) {
        json_t *m = merge_enum(vals, en);
        json_decref(vals);
        vals = m;
    }
    if (!json_is_array(vals)) {
        json_decref(vals);
        return false;
    }
    json_t *keep = json_array();
    size_t i;
    json_t *v;
    int r = 1;
    json_array_foreach(vals, i, v) {
        if ((r = sx_value_valid(c, s, v)) < 0)
            break;
        if (r)
            json_array_append(keep, v);
    }
    json_decref(vals);
    if (r >= 0 && json_array_size(keep) == 0)
        sx_error(c, GCG_ERR_FORMAT, ptr, "no value of enum/const satisfies the schema: no instance is valid");
    bool first = true;
    json_array_foreach(keep, i, v) {
        if (r < 0)
            break;
        gcg_buf_puts(out, first ? "" : " | ");
        sx_literal(c, v, out);
        first = false;
    }
    json_decref(keep);
    return r >= 0;
}

/* The alternatives for each allowed type. */
static void typed(sctx *c, json_t *s, const char *ptr, unsigned types, gcg_buf *out)
{
    bool first = true;
#define ALT() (gcg_buf_puts(out, first ? "" : " | "), first = false)
    if (types & T_NULL)
        ALT(), gcg_buf_puts(out, "\"null\"");
    if (types & T_BOOL)
        ALT(), gcg_buf_puts(out, "\"true\" | \"false\"");
    if (types & T_OBJECT)
        ALT(), sx_object_body(c, s, ptr, out);
    if (types & T_ARRAY)
        ALT(), sx_array_body(c, s, ptr, out);
    if (types & T_STRING)
        ALT(), sx_string_body(c, s, ptr, out);
    if (types & (T_NUMBER | T_INTEGER))
        ALT(), sx_number_body(c, s, ptr, !(types & T_NUMBER), out);
#undef ALT
}

static void body(sctx *c, json_t *s0, const char *ptr, gcg_buf *out)
{
    if (json_is_true(s0)) {
        gcg_buf_puts(out, SX_VALUE);
        return;
    }
    if (json_is_false(s0)) {
        sx_error(c, GCG_ERR_FORMAT, ptr, "schema false: no instance is valid");
        return;
    }
    if (!json_is_object(s0)) {
        sx_error(c, GCG_ERR_FORMAT, ptr, "a schema must be an object or a boolean");
        return;
    }
    json_t *ref = json_object_get(s0, "$ref");
    bool ref_only = json_is_string(ref);
    const char *k;
    json_t *v;
    json_object_foreach(s0, k, v) ref_only &= c->ref_alone || !strcmp(k, "$ref") || in_list(annotations, k);
    if (ref_only) {
        json_t *target;
        char *tptr = NULL;
        if (sx_resolve(c, json_string_value(ref), ptr, &target, &tptr)) {
            const char *r = sx_rule(c, target, tptr);
            gcg_buf_puts(out, r ? r : SX_VALUE);
        }
        free(tptr);
        return;
    }
    json_t *s = flatten(c, s0, ptr);
    if (!s)
        return;
    if (json_is_object(s) && (json_object_get(s, "enum") || json_object_get(s, "const")) &&
        finite_values(c, s, ptr, out)) {
        json_decref(s);
        return;
    }
    if (json_is_boolean(s) || !check_unenforced(c, s, ptr)) {
        if (json_is_boolean(s))
            body(c, s, ptr, out);
        json_decref(s);
        return;
    }
    unsigned types = declared_types(c, s, ptr);
    if (json_object_get(s, "anyOf"))
        alternatives(c, s, "anyOf", ptr, out);
    else if (json_object_get(s, "oneOf"))
        alternatives(c, s, "oneOf", ptr, out);
    else if (json_object_get(s, "enum") || json_object_get(s, "const"))
        enumeration(c, s, ptr, types, out);
    else if (types)
        typed(c, s, ptr, types, out);
    json_decref(s);
}

const char *sx_rule(sctx *c, json_t *s, const char *ptr)
{
    json_t *m = json_object_get(c->memo, ptr);
    if (m)
        return json_string_value(m);
    if (c->st != GCG_OK)
        return NULL;
    if (json_is_true(s) || (json_is_object(s) && json_object_size(s) == 0))
        return SX_VALUE;
    if (c->depth >= SX_MAX_DEPTH) {
        sx_error(c, GCG_ERR_LIMIT, ptr, "schema nested deeper than %u", SX_MAX_DEPTH);
        return NULL;
    }
    char *want = sx_rule_name_for(ptr);
    const char *name = want ? unique_name(c, want) : NULL;
    free(want);
    if (!name) {
        sx_error(c, GCG_ERR_NOMEM, ptr, "out of memory");
        return NULL;
    }
    json_object_set_new(c->memo, ptr, json_string(name));
    size_t slot = reserve_rule(c);
    gcg_buf b = {0};
    c->depth++;
    body(c, s, ptr, &b);
    c->depth--;
    if (b.oom)
        sx_error(c, GCG_ERR_NOMEM, ptr, "out of memory");
    define_rule(c, slot, name, b.len ? b.s : "\"\"");
    gcg_buf_free(&b);
    return c->st == GCG_OK ? name : NULL;
}

/* ---- the document -------------------------------------------------------- */

void gcg_schema_options_default(gcg_schema_options *opt)
{
    memset(opt, 0, sizeof *opt);
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || (c >= 'A' && c <= 'Z') || c == '_';
}

/* Marks in `used` which of names[0..n) occur in `text` as whole rule names,
 * true when it marked one: one pass over the text's words (a search per name
 * read a megabytes-long grammar a few dozen times). */
static bool mark_mentions(const char *text, const char *const *names, size_t n, bool *used)
{
    bool first[256] = {0}, grew = false; /* the names' first bytes: other words are passed over */
    for (size_t i = 0; i < n; i++)
        first[(unsigned char)names[i][0]] = true;
    for (const char *p = text; p && *p;) {
        if (!is_word_char(*p)) {
            p++;
            continue;
        }
        const char *w = p;
        while (is_word_char(*p))
            p++;
        for (size_t i = 0; first[(unsigned char)*w] && i < n; i++)
            if (!used[i] && strncmp(names[i], w, (size_t)(p - w)) == 0 && names[i][p - w] == 0)
                used[i] = grew = true;
    }
    return grew;
}

/* The fixed rules the grammar uses (directly or through each other). */
static void fixed_rules(sctx *c, gcg_buf *out)
{
    const gcg_schema_options *o = &c->opt;
    char ws[64];
    if (o->ws == GCG_SCHEMA_WS_COMPACT)
        snprintf(ws, sizeof ws, "\"\"");
    else if (o->ws == GCG_SCHEMA_WS_MAX)
        snprintf(ws, sizeof ws, "[ \\t\\n\\r]{0,%u}", o->ws_max);
    else
        snprintf(ws, sizeof ws, "[ \\t\\n\\r]*");
    const struct { const char *name, *body; } fixed[] = {
        {SX_VALUE, "json-object | json-array | " SX_STRING " | " SX_NUMBER " | \"true\" | \"false\" | \"null\""},
        {"json-object", "\"{\" " SX_WS " ( json-member ( " SX_WS " \",\" " SX_WS " json-member )* " SX_WS " )? \"}\""},
        {"json-member", SX_STRING " " SX_WS " \":\" " SX_WS " " SX_VALUE},
        {"json-array", "\"[\" " SX_WS " ( " SX_VALUE " ( " SX_WS " \",\" " SX_WS " " SX_VALUE " )* " SX_WS " )? \"]\""},
        {SX_STRING, "\"\\\"\" " SX_STRING_REST},
        {SX_STRING_REST, SX_CHAR "* \"\\\"\""},
        {JSON_ESC_NAME, JSON_ESC_RULE},
        {JSON_NONASCII_NAME, JSON_NONASCII_RULE},
        {SX_CHAR, JSON_CHAR_RULE},
        {SX_NUMBER, "\"-\"? ( \"0\" | [1-9] [0-9]* ) ( \".\" [0-9]+ )? ( [eE] [+-]? [0-9]+ )?"},
        {SX_WS, ws},
    };
    enum { N = sizeof fixed / sizeof *fixed };
    /* the fixed rules, then the formats' (each after those that may name it) */
    const char *names[N + SX_FORMATS_MAX], *bodies[N + SX_FORMATS_MAX];
    size_t n = 0;
    for (; n < N; n++)
        names[n] = fixed[n].name, bodies[n] = fixed[n].body;
    while (sx_format_nth(n - N, &names[n], &bodies[n]))
        n++;
    bool used[N + SX_FORMATS_MAX] = {0};
    mark_mentions(out->s, names, n, used);
    /* to a fixed point: a rule is used when a used rule's body names it */
    for (bool grew = true; grew;) {
        grew = false;
        for (size_t i = 0; i < n; i++)
            grew = (used[i] && mark_mentions(bodies[i], names, n, used)) || grew;
    }
    for (size_t i = 0; i < n; i++)
        if (used[i])
            gcg_buf_printf(out, "%s ::= %s\n", names[i], bodies[i]);
}

/* Drafts 04, 06 and 07 say a schema with "$ref" is that reference alone:
 * its other keywords are ignored. 2019-09 and later (and a document that
 * names no draft) apply them beside the reference. */
static bool ref_overrides_siblings(json_t *doc)
{
    const char *d = json_string_value(json_object_get(doc, "$schema"));
    if (!d)
        return false;
    return strstr(d, "json-schema.org/draft-04/") || strstr(d, "json-schema.org/draft-06/") ||
           strstr(d, "json-schema.org/draft-07/") || strstr(d, "json-schema.org/draft-03/");
}

gcg_status gcg_schema_to_gbnf(const char *json, size_t len, const gcg_schema_options *opt, char **gbnf_out,
                              gcg_diag *diag)
{
    if (!json || !gbnf_out)
        return GCG_ERR_ARG;
    *gbnf_out = NULL;
    json_error_t je;
    json_t *doc = json_loadb(json, len, JSON_DECODE_ANY, &je);
    if (!doc) {
        if (diag)
            gcg_diag_add(diag, GCG_SEV_ERROR, (uint32_t)(je.line > 0 ? je.line : 0),
                         (uint32_t)(je.column > 0 ? je.column : 0), "invalid JSON: %s", je.text);
        return GCG_ERR_FORMAT;
    }
    sctx c = {doc, {0}, diag, json_array(), json_object(), json_object(), GCG_OK, 0, false};
    if (opt)
        c.opt = *opt;
    c.ref_alone = ref_overrides_siblings(doc);
    sx_rewrite_not(doc);
    /* RFC 8259: JSON-text = ws value ws; the document's own rule is root-value */
    json_object_set_new(c.names, "root", json_true());
    json_object_set_new(c.names, "root-value", json_true());
    json_object_set_new(c.memo, "", json_string("root-value"));
    define_rule(&c, reserve_rule(&c), "root", SX_WS " root-value " SX_WS);
    size_t slot = reserve_rule(&c);
    gcg_buf b = {0};
    c.depth = 1;
    body(&c, doc, "", &b);
    define_rule(&c, slot, "root-value", b.len ? b.s : "\"\"");
    gcg_buf_free(&b);
    gcg_buf out = {0};
    if (c.st == GCG_OK) {
        size_t i;
        json_t *r;
        json_array_foreach(c.rules, i, r) {
            gcg_buf_puts(&out, json_string_value(r) ? json_string_value(r) : "");
            gcg_buf_puts(&out, "\n");
        }
        fixed_rules(&c, &out);
        if (out.oom)
            sx_error(&c, GCG_ERR_NOMEM, "", "out of memory");
    }
    gcg_status st = c.st;
    if (st == GCG_OK)
        *gbnf_out = gcg_buf_take(&out);
    gcg_buf_free(&out);
    json_decref(c.rules);
    json_decref(c.names);
    json_decref(c.memo);
    json_decref(doc);
    return st;
}
