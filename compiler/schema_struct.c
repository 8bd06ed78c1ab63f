/*
 * schema_struct.c — objects and arrays for the JSON Schema converter.
 *
 * Objects: the named properties in schema order, each present or (when not
 * required) absent, then the additional properties. With F_i = "the
 * members from property i on, none written yet" and R_i = "the members
 * from property i on, after at least one": F_i = kv_i R_{i+1} | F_{i+1}
 * (the second only when i is optional) and R_i = ("," kv_i)? R_{i+1}, which
 * is linear in the number of properties but nests a stack level per member;
 * objects with few enough pairs of members that may follow one another are
 * written left-linear instead (see left_linear_members). Where additional
 * members may follow, every key, a property name or not, is read through
 * one left-linear trie of the names (see "keys beside additional members");
 * an additional key is one that ends at a node that ends no name or leaves
 * the trie on a character no child has.
 *
 * Arrays: prefixItems (items as an array in drafts before 2020-12), then
 * items (additionalItems before 2020-12), within minItems..maxItems.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "schema_charset.h"
#include "schema_internal.h"

/* Every member and element is followed by its whitespace, and a separator is
 * "," then whitespace: the parser then knows at "," or the closing bracket
 * which way to go, with no LR conflict on whitespace. */
#define COMMA " \",\" " SX_WS " "
#define TRAIL " " SX_WS

/* ---- keys beside additional members --------------------------------------- */

/* An object that allows additional members reads every key through one trie
 * of its property names, left to right: K_t, "the key so far spells trie
 * node t", is the opening quote at the root and K_p c below (p the parent,
 * c the edge's character). A property name is K_t "\"" at its node; any
 * other key either ends at a node that ends no name (K_t "\"") or takes a
 * character no child of t has and then any rest of a string.
 *
 * Read this way a key is parsed in the same LR states whatever member came
 * before it: each character reduces to K_t over the entry below. Written
 * right-recursive, or with the names as literals beside it, the states of
 * the trie paired with every set of names still allowed after a member
 * (Kubernetes schemas: 31,720 of 44,982 LR states), each with its own
 * vocabulary walk, and a key nested a stack entry per character. */

typedef struct trie {
    uint32_t *cp;        /* child code points                         */
    struct trie **kid;
    uint32_t n;
    bool terminal;       /* a property name ends here                 */
    bool raw;            /* its children are spelled raw (key_rules)  */
    uint32_t edge;       /* the code point from its parent            */
    struct trie *parent;
    struct trie *next;   /* the nodes still to visit, in a walk: names
                            as long as the input, so no recursion    */
    const char *rule;    /* K_t                                       */
} trie;

static void trie_free(trie *t)
{
    if (t)
        t->next = NULL;
    while (t) {
        trie *x = t;
        t = x->next;
        for (uint32_t i = 0; i < x->n; i++)
            x->kid[i]->next = t, t = x->kid[i];
        free(x->cp);
        free(x->kid);
        free(x);
    }
}

static bool trie_add(trie *t, const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t n = strlen(name);
    for (size_t i = 0; i < n;) {
        uint32_t c = cp_next_utf8(s, n, &i), k;
        for (k = 0; k < t->n && t->cp[k] != c; k++)
            ;
        if (k == t->n) {
            uint32_t *cp = realloc(t->cp, (t->n + 1) * sizeof *cp);
            if (cp)
                t->cp = cp;
            trie **kid = realloc(t->kid, (t->n + 1) * sizeof *kid);
            if (kid)
                t->kid = kid;
            trie *nt = calloc(1, sizeof *nt);
            if (!cp || !kid || !nt) {
                free(nt);
                return false;
            }
            nt->parent = t, nt->edge = c;
            t->cp[k] = c;
            t->kid[k] = nt;
            t->n++;
        }
        t = t->kid[k];
    }
    t->terminal = true;
    return true;
}

/* The node of `name` (which the trie holds). */
static const trie *trie_find(const trie *t, const char *name)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t n = strlen(name);
    for (size_t i = 0; i < n && t;) {
        uint32_t c = cp_next_utf8(s, n, &i), k;
        for (k = 0; k < t->n && t->cp[k] != c; k++)
            ;
        t = k < t->n ? t->kid[k] : NULL;
    }
    return t;
}

/* Whether every child of t is a printable ASCII character spelled raw (no
 * escape spells it where a name is meant, as in sx_string_literal). Then
 * the characters that leave the trie at t are the other raw ASCII ones,
 * every non-ASCII one and every escape: the last two read alike at every
 * such node, through one rule (key-any below). */
static bool ascii_children(const trie *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (t->cp[i] < 0x20 || t->cp[i] >= 0x7F || t->cp[i] == '"' || t->cp[i] == '\\' || t->cp[i] == '/')
            return false;
    return true;
}

/* The raw ASCII characters none of t's children is, as a class; false when
 * there are none. */
static bool leaving_ascii(const trie *t, gcg_buf *out)
{
    bool taken[0x80] = {['"'] = true, ['\\'] = true}; /* never raw in a string */
    for (uint32_t i = 0; i < t->n; i++)
        if (t->cp[i] < 0x80)
            taken[t->cp[i]] = true;
    bool open = false;
    for (uint32_t lo = 0x20; lo < 0x80; lo++) {
        if (taken[lo])
            continue;
        uint32_t hi = lo;
        while (hi + 1 < 0x80 && !taken[hi + 1])
            hi++;
        gcg_buf_puts(out, open ? "" : "[");
        open = true;
        gcg_buf_gbnf_char(out, lo);
        if (hi > lo) {
            gcg_buf_puts(out, hi > lo + 1 ? "-" : "");
            gcg_buf_gbnf_char(out, hi);
        }
        lo = hi;
    }
    gcg_buf_puts(out, open ? "]" : "");
    return open;
}

/* The rules' alternatives, gathered over the trie. */
typedef struct key_alts {
    gcg_buf left;  /* K_t and a character leaving the trie at t           */
    gcg_buf any;   /* K_t where escapes and non-ASCII characters leave    */
    gcg_buf ended; /* K_t where the key may end: t ends no name           */
} key_alts;

static void alt_to(gcg_buf *b, const char *rule, const char *what)
{
    gcg_buf_printf(b, "%s%s%s%s", b->len ? " | " : "", rule, what[0] ? " " : "", what);
}

/* The unit of string content for child character ch: raw where escapes
 * leave the trie, else every spelling of it. */
static void child_unit(uint32_t ch, bool raw, gcg_buf *b)
{
    if (raw) {
        gcg_buf_puts(b, "\"");
        gcg_buf_gbnf_char(b, ch);
        gcg_buf_puts(b, "\"");
        return;
    }
    cp_set one = {0};
    cp_set_add(&one, ch, ch);
    cp_set_json_unit(&one, b);
    b->oom |= one.oom;
    cp_set_free(&one);
}

/* Node t's alternatives; its `raw` set for its children. */
static void node_alts(trie *t, key_alts *a, gcg_buf *b)
{
    t->raw = ascii_children(t);
    if (t->raw) {
        if (leaving_ascii(t, b))
            alt_to(&a->left, t->rule, b->s ? b->s : ""); /* NULL only out of memory */
        alt_to(&a->any, t->rule, "");
    } else { /* a child that is not printable ASCII spelled raw: every spelling */
        cp_set out = {0};
        for (uint32_t i = 0; i < t->n; i++)
            cp_set_add(&out, t->cp[i], t->cp[i]);
        cp_set_complement(&out);
        cp_set_json_unit(&out, b);
        b->oom |= out.oom;
        cp_set_free(&out);
        alt_to(&a->left, t->rule, b->s ? b->s : "");
    }
    if (!t->terminal)
        alt_to(&a->ended, t->rule, "");
}

/* K_t for every node below the root (whose K the caller defined), and
 * every node's alternatives, in preorder. */
static void key_rules(sctx *c, trie *root, const char *base, key_alts *a)
{
    gcg_buf b = {0};
    root->next = NULL;
    for (trie *t = root; t && c->st == GCG_OK && !b.oom;) {
        trie *x = t;
        t = x->next;
        gcg_buf_free(&b);
        if (x->parent) {
            gcg_buf_printf(&b, "%s ", x->parent->rule);
            child_unit(x->edge, x->parent->raw, &b);
            if (b.oom || !(x->rule = sx_helper(c, base, "key", b.s)))
                break;
            gcg_buf_free(&b);
        }
        node_alts(x, a, &b);
        for (uint32_t i = x->n; i-- > 0;)
            x->kid[i]->next = t, t = x->kid[i];
    }
    if (b.oom)
        sx_error(c, GCG_ERR_NOMEM, "", "out of memory");
    gcg_buf_free(&b);
}

/* The rules of the alternatives gathered: "\"" + any key but the names into
 * out, false after an error. */
static bool other_key_rules(sctx *c, const char *base, key_alts *a, gcg_buf *out)
{
    if (a->left.oom || a->any.oom || a->ended.oom)
        return sx_error(c, GCG_ERR_NOMEM, "", "out of memory"), false;
    if (a->any.len) {
        const char *any = sx_helper(c, base, "key-any", a->any.s);
        alt_to(&a->left, any, "( " JSON_NONASCII_NAME " | " JSON_ESC_NAME " )");
    }
    const char *left = sx_helper(c, base, "key-left", a->left.s), *end = NULL;
    if (a->ended.len) {
        gcg_buf b = {0};
        gcg_buf_printf(&b, "%s \"\\\"\"", sx_helper(c, base, "key-end-at", a->ended.s));
        end = b.oom ? NULL : sx_helper(c, base, "key-ended", b.s);
        gcg_buf_free(&b);
    }
    if (!left || (a->ended.len && !end)) {
        if (c->st == GCG_OK)
            sx_error(c, GCG_ERR_NOMEM, "", "out of memory");
        return false;
    }
    if (end)
        gcg_buf_printf(out, "( %s " SX_STRING_REST " | %s )", left, end);
    else
        gcg_buf_printf(out, "%s " SX_STRING_REST, left);
    return true;
}

/* The trie of the names and its rules; "\"" + any key but the names into
 * out. NULL without names (any string is another key) or after an error. */
static trie *other_key(sctx *c, json_t *names, const char *base, gcg_buf *out)
{
    if (json_array_size(names) == 0) {
        gcg_buf_puts(out, SX_STRING);
        return NULL;
    }
    trie *root = calloc(1, sizeof *root);
    size_t i;
    json_t *n;
    bool ok = root != NULL;
    json_array_foreach(names, i, n) ok = ok && trie_add(root, json_string_value(n));
    if (!ok) {
        sx_error(c, GCG_ERR_NOMEM, "", "out of memory");
        trie_free(root);
        return NULL;
    }
    key_alts a = {0};
    root->rule = sx_helper(c, base, "key", "\"\\\"\"");
    if (root->rule)
        key_rules(c, root, base, &a);
    ok = c->st == GCG_OK && other_key_rules(c, base, &a, out);
    gcg_buf_free(&a.left), gcg_buf_free(&a.any), gcg_buf_free(&a.ended);
    if (!ok) {
        trie_free(root);
        return NULL;
    }
    return root;
}

/* ---- objects ------------------------------------------------------------- */

static bool count_kw(sctx *c, json_t *s, const char *kw, const char *ptr, uint64_t *v)
{
    json_t *j = json_object_get(s, kw);
    if (!j)
        return false;
    if (!json_is_integer(j) && !(json_is_real(j) && json_real_value(j) == (double)(int64_t)json_real_value(j))) {
        sx_error(c, GCG_ERR_FORMAT, ptr, "\"%s\" must be a non-negative integer", kw);
        return false;
    }
    double d = json_number_value(j);
    *v = d < 0 ? 0 : d > 4e9 ? 4000000000u : (uint64_t)d;
    return true;
}

/* min..max repetitions of `item` separated by commas (max UINT64_MAX: no
 * end), as a sequence that may be empty when min is 0. */
static bool separated(sctx *c, const char *ptr, const char *item, uint64_t min, uint64_t max, gcg_buf *out)
{
    uint64_t big = max != UINT64_MAX ? max : min;
    if (big > GCG_REGEX_MAX_REPEAT + 1) {
        sx_error(c, GCG_ERR_LIMIT, ptr, "count bound %llu over the grammar's repetition limit %u",
                 (unsigned long long)big, GCG_REGEX_MAX_REPEAT);
        return false;
    }
    if (max == 0)
        return true;
    gcg_buf_printf(out, "%s%s" TRAIL " ( " COMMA "%s" TRAIL " )", min == 0 ? "( " : "", item, item);
    uint64_t lo = min ? min - 1 : 0;
    if (max == UINT64_MAX)
        gcg_buf_printf(out, lo == 0 ? "*" : lo == 1 ? "+" : "{%llu,}", (unsigned long long)lo);
    else
        gcg_buf_printf(out, "{%llu,%llu}", (unsigned long long)lo, (unsigned long long)(max - 1));
    if (min == 0)
        gcg_buf_puts(out, " )?");
    return true;
}

typedef struct member { const char *name; const char *value; bool required; } member;

/* "\"" key "\"" ":" value, the key a GBNF expression over string content. */
static void key_value(gcg_buf *kv, const char *key, const char *val)
{
    if (kv->len)
        gcg_buf_puts(kv, " | ");
    gcg_buf_printf(kv, "\"\\\"\" %s \"\\\"\" " SX_WS " \":\" " SX_WS " %s" TRAIL, key, val);
}

/* One pattern P with value schema S beside additional properties (or beside
 * named properties none of which P matches): members whose key P matches
 * take S, the others the additional schema, and the keys P does not match
 * are P's complement (simple patterns only, regex.h). Returns 0 when this
 * case does not apply (the caller refuses), else 1 + whether any additional
 * member is allowed. */
static int one_pattern(sctx *c, json_t *s, const char *ptr, json_t *names, json_t *addl, gcg_buf *kv)
{
    json_t *pp = json_object_get(s, "patternProperties");
    const char *pat = json_object_iter_key(json_object_iter(pp));
    json_t *val = json_object_iter_value(json_object_iter(pp));
    bool named = json_array_size(names) > 0, closed = json_is_false(addl);
    if (json_object_size(pp) != 1 || json_object_get(s, "propertyNames") || (!named && closed) || (named && !closed))
        return 0;
    gcg_regex_simple sp;
    if (!gcg_regex_simple_parse(pat, strlen(pat), &sp))
        return 0;
    size_t i;
    json_t *n;
    int hit = 0;
    json_array_foreach(names, i, n) if (hit == 0) hit = sx_pattern_matches(&sp, json_string_value(n));
    gcg_buf comp = {0};
    sx_complement cm = closed ? SX_COMPLEMENT_EMPTY : sx_pattern_complement(&sp, &comp);
    gcg_regex_simple_free(&sp);
    if (hit != 0 || cm == SX_COMPLEMENT_UNSUPPORTED) {
        gcg_buf_free(&comp);
        if (hit < 0)
            sx_error(c, GCG_ERR_NOMEM, ptr, "out of memory");
        return 0;
    }
    char *p = sx_ptr(ptr, "patternProperties"), *vp = p ? sx_ptr(p, pat) : NULL;
    gcg_buf key = {0};
    char err[300];
    gcg_status st = gcg_regex_to_gbnf(pat, strlen(pat), SX_CHAR, &key, err, sizeof err, NULL, NULL);
    if (st != GCG_OK)
        sx_error(c, st, p, "%s", err);
    const char *v = st != GCG_OK || json_is_false(val) ? NULL : sx_rule(c, val, vp ? vp : ptr);
    if (v && !key.oom)
        key_value(kv, key.s, v);
    if (cm == SX_COMPLEMENT_SOME) {
        char *ap = sx_ptr(ptr, "additionalProperties");
        const char *av = !addl || json_is_true(addl) ? SX_VALUE : sx_rule(c, addl, ap);
        if (av && !comp.oom)
            key_value(kv, comp.s, av);
        free(ap);
    }
    free(p), free(vp);
    gcg_buf_free(&key), gcg_buf_free(&comp);
    return 1 + (kv->len > 0);
}

/* Key and value of the additional members into *kv; false when none are
 * allowed. *keys: the trie the named keys are read through, or NULL. */
static bool additional(sctx *c, json_t *s, const char *ptr, json_t *names, const char *base, gcg_buf *kv,
                       trie **keys)
{
    *keys = NULL;
    json_t *addl = json_object_get(s, "additionalProperties");
    if (!addl)
        addl = json_object_get(s, "unevaluatedProperties");
    json_t *pp = json_object_get(s, "patternProperties"), *pn = json_object_get(s, "propertyNames");
    bool has_pp = json_is_object(pp) && json_object_size(pp) > 0;
    int one = has_pp ? one_pattern(c, s, ptr, names, addl, kv) : 0;
    if (one)
        return one == 2;
    if (has_pp) {
        /* exactly supported: no named properties and nothing else additional */
        const char *k;
        json_t *v, *first = NULL;
        bool same = true;
        json_object_foreach(pp, k, v) same &= !first || json_equal(first, v), first = first ? first : v;
        if (json_array_size(names) > 0 || !json_is_false(addl) || !same || pn) {
            char *p = sx_ptr(ptr, "patternProperties");
            sx_unsupported(c, p, "patternProperties",
                           "supported with one simple pattern (classes, the last one repeated, ^ and $), "
                           "or alone: no properties, additionalProperties false, one value schema");
            free(p);
            return false;
        }
        gcg_buf key = {0};
        bool firstk = true;
        json_object_foreach(pp, k, v) {
            char err[300];
            gcg_buf_puts(&key, firstk ? "\"\\\"\" ( " : " | ");
            gcg_status st = gcg_regex_to_gbnf(k, strlen(k), SX_CHAR, &key, err, sizeof err, NULL, NULL);
            if (st != GCG_OK) {
                char *p = sx_ptr(ptr, "patternProperties");
                sx_error(c, st, p, "%s", err);
                free(p);
            }
            firstk = false;
        }
        gcg_buf_puts(&key, " ) \"\\\"\"");
        char *vp = sx_ptr(ptr, "patternProperties");
        char *vp2 = vp ? sx_ptr(vp, json_object_iter_key(json_object_iter(pp))) : NULL;
        const char *val = json_is_false(first) ? NULL : sx_rule(c, first, vp2 ? vp2 : ptr);
        free(vp);
        free(vp2);
        if (val && !key.oom)
            gcg_buf_printf(kv, "%s " SX_WS " \":\" " SX_WS " %s" TRAIL, key.s, val);
        gcg_buf_free(&key);
        return val != NULL;
    }
    if (json_is_false(addl))
        return false;
    char *ap = sx_ptr(ptr, "additionalProperties");
    const char *val = !addl || json_is_true(addl) ? SX_VALUE : sx_rule(c, addl, ap);
    free(ap);
    if (!val)
        return false;
    if (pn && !json_is_true(pn)) {
        char *np = sx_ptr(ptr, "propertyNames");
        if (json_array_size(names) > 0) {
            sx_unsupported(c, np, "propertyNames", "supported only without named properties");
            free(np);
            return false;
        }
        json_t *str = json_pack("{s:s}", "type", "string");
        json_t *m = json_is_object(pn) ? json_pack("{s:[OO]}", "allOf", pn, str) : json_incref(pn);
        const char *key = json_is_false(m) ? NULL : sx_rule(c, m, np);
        json_decref(m);
        json_decref(str);
        free(np);
        if (!key)
            return false;
        gcg_buf_printf(kv, "%s " SX_WS " \":\" " SX_WS " %s" TRAIL, key, val);
        return true;
    }
    *keys = other_key(c, names, base, kv);
    gcg_buf_printf(kv, " " SX_WS " \":\" " SX_WS " %s" TRAIL, val);
    return true;
}

/* The named members in schema order, then required names not in properties. */
static member *named_members(sctx *c, json_t *s, const char *ptr, json_t *names, uint32_t *n)
{
    json_t *props = json_object_get(s, "properties"), *req = json_object_get(s, "required");
    json_t *addl = json_object_get(s, "additionalProperties");
    size_t cap = json_object_size(props) + json_array_size(req) + 1;
    member *m = calloc(cap, sizeof *m);
    *n = 0;
    if (!m)
        return NULL;
    const char *k;
    json_t *v;
    json_object_foreach(props, k, v) {
        bool required = false;
        size_t i;
        json_t *r;
        json_array_foreach(req, i, r) required |= json_is_string(r) && !strcmp(json_string_value(r), k);
        json_array_append_new(names, json_string(k));
        char *p = sx_ptr(ptr, "properties");
        char *pp = p ? sx_ptr(p, k) : NULL;
        if (sx_unsatisfiable(c, v)) {
            if (required)
                sx_error(c, GCG_ERR_FORMAT, pp, "required property with schema false: no instance is valid");
        } else {
            const char *rule = sx_rule(c, v, pp ? pp : ptr);
            if (rule)
                m[(*n)++] = (member){k, rule, required};
        }
        free(p);
        free(pp);
    }
    size_t i;
    json_t *r;
    json_array_foreach(req, i, r) {
        if (!json_is_string(r) || json_object_get(props, json_string_value(r)))
            continue;
        /* required but not described: its value follows additionalProperties */
        if (json_is_false(addl) || json_object_get(s, "patternProperties")) {
            char *p = sx_ptr_index(ptr, "required", i);
            if (json_is_false(addl))
                sx_error(c, GCG_ERR_FORMAT, p, "required property \"%s\" is not allowed: no instance is valid",
                         json_string_value(r));
            else
                sx_unsupported(c, p, "required", "required names outside properties with patternProperties");
            free(p);
            continue;
        }
        char *ap = sx_ptr(ptr, "additionalProperties");
        const char *rule = !addl || json_is_true(addl) ? SX_VALUE : sx_rule(c, addl, ap);
        free(ap);
        json_array_append(names, r);
        if (rule)
            m[(*n)++] = (member){json_string_value(r), rule, true};
    }
    return m;
}

/* "\"" name "\"" ":" value; the name read through the key trie if any. */
static void member_text(const member *m, const trie *keys, gcg_buf *out)
{
    const trie *at = keys ? trie_find(keys, m->name) : NULL;
    if (at)
        gcg_buf_printf(out, "%s \"\\\"\"", at->rule);
    else
        sx_string_literal(m->name, strlen(m->name), out);
    gcg_buf_printf(out, " " SX_WS " \":\" " SX_WS " %s" TRAIL, m->value);
}

/* min/maxProperties against named members: only when they cannot bind. */
static bool counts_hold(sctx *c, json_t *s, const char *ptr, const member *m, uint32_t n, bool addl,
                        uint64_t *min, uint64_t *max)
{
    bool has_min = count_kw(c, s, "minProperties", ptr, min), has_max = count_kw(c, s, "maxProperties", ptr, max);
    if (!has_min)
        *min = 0;
    if (!has_max)
        *max = UINT64_MAX;
    if (n == 0)
        return true;
    uint32_t req = 0;
    for (uint32_t i = 0; i < n; i++)
        req += m[i].required;
    /* at least one member: the member list is not optional (handled by the caller) */
    bool min_ok = *min <= req || *min == 1;
    bool max_ok = *max == UINT64_MAX || (!addl && *max >= n);
    if (min_ok && max_ok)
        return true;
    bool err = sx_unsupported(c, ptr, !min_ok ? "minProperties" : "maxProperties",
                              "a property count that binds beside named properties is not supported");
    if (!min_ok)
        *min = 0;
    *max = UINT64_MAX;
    return !err;
}

/* Objects whose (previous member, next member) pairs are few enough are
 * written left-linear instead: L_k, "the members so far, the last one
 * property k", is kv_k or L_j "," kv_k for each j before k with only
 * optional properties between; A, "the last one additional", is akv,
 * L_k "," akv or A "," akv. Each member is reduced as soon as it is read,
 * so an object holds one stack entry whatever its members, and a mask
 * never reads down a chain of them: the right-linear form (F_i, R_i above)
 * nests a level per member, and on MaskBench's largest schemas masks read
 * over a thousand entries deep. A run of r optional properties makes r^2/2
 * pairs, hence the bound. */
#define LEFT_LINEAR_PAIRS 8192u

/* The first property of the run of optional ones right before k. */
static uint32_t optional_run(const member *m, uint32_t k)
{
    while (k > 0 && !m[k - 1].required)
        k--;
    return k;
}

static uint64_t left_linear_pairs(const member *m, uint32_t n)
{
    uint64_t pairs = 0;
    for (uint32_t k = 0; k < n; k++)
        pairs += k - optional_run(m, k) + 1;
    return pairs;
}

/* Member k's rule in a place where additional members may follow (`open`):
 * its key read through the key trie; elsewhere (a required property still
 * to come) spelled out, since the names allowed there are not all the trie
 * allows. Each made once, in kv[2 * k + open]. */
static const char *kv_rule(sctx *c, const char *base, const member *m, uint32_t k, const trie *keys, bool open,
                           const char **kv)
{
    uint32_t at = 2 * k + (keys && open);
    if (kv[at])
        return kv[at];
    gcg_buf b = {0};
    char sfx[32];
    member_text(&m[k], keys && open ? keys : NULL, &b);
    snprintf(sfx, sizeof sfx, keys && !open ? "kv%u-named" : "kv%u", k);
    if (b.oom)
        sx_error(c, GCG_ERR_NOMEM, "", "out of memory");
    kv[at] = b.oom ? NULL : sx_helper(c, base, sfx, b.s);
    gcg_buf_free(&b);
    return kv[at] ? kv[at] : "\"\""; /* after an error, which the caller reports */
}

/* The members of an object, left-linear (see above): the rule's name.
 * req_after[i]: a property from i on is required. */
static const char *left_linear_members(sctx *c, const char *base, const member *m, uint32_t n,
                                       const bool *req_after, const char *akv, const trie *keys)
{
    sx_decl *L = calloc(n, sizeof *L);
    const char **kv = calloc(2 * (size_t)n, sizeof *kv);
    gcg_buf b = {0}, ends = {0};
    char sfx[32];
    const char *name = NULL;
    if (!L || !kv)
        goto done;
    for (uint32_t k = 0; k < n; k++) {
        if (!keys) /* each before its list rule, as the grammar reads best */
            kv_rule(c, base, m, k, NULL, false, kv);
        snprintf(sfx, sizeof sfx, "last%u", k);
        L[k] = sx_declare(c, base, sfx);
    }
    for (uint32_t k = 0; k < n; k++) {
        gcg_buf_free(&b);
        uint32_t lo = optional_run(m, k);
        if (lo == 0)
            gcg_buf_puts(&b, kv_rule(c, base, m, k, keys, !req_after[0], kv));
        for (uint32_t j = lo ? lo - 1 : 0; j < k; j++)
            gcg_buf_printf(&b, "%s%s" COMMA "%s", b.len ? " | " : "", L[j].name,
                           kv_rule(c, base, m, k, keys, !req_after[j + 1], kv));
        sx_define(c, L[k], b.s);
        if (!req_after[k + 1])
            gcg_buf_printf(&ends, "%s%s", ends.len ? " | " : "", L[k].name);
    }
    if (akv) {
        sx_decl A = sx_declare(c, base, "more");
        gcg_buf_free(&b);
        if (!req_after[0])
            gcg_buf_puts(&b, akv);
        for (uint32_t k = 0; k < n; k++)
            if (!req_after[k + 1])
                gcg_buf_printf(&b, "%s%s" COMMA "%s", b.len ? " | " : "", L[k].name, akv);
        gcg_buf_printf(&b, " | %s" COMMA "%s", A.name, akv);
        sx_define(c, A, b.s);
        gcg_buf_printf(&ends, " | %s", A.name);
    }
    name = sx_helper(c, base, "members", ends.s);
done:
    gcg_buf_free(&b);
    gcg_buf_free(&ends);
    free(L);
    free(kv);
    return name;
}

void sx_object_body(sctx *c, json_t *s, const char *ptr, gcg_buf *out)
{
    json_t *names = json_array();
    uint32_t n;
    member *m = named_members(c, s, ptr, names, &n);
    char *base = sx_rule_name_for(ptr);
    gcg_buf kv = {0};
    trie *keys;
    bool addl = additional(c, s, ptr, names, base ? base : "root", &kv, &keys);
    uint64_t min, max;
    if (!m || !counts_hold(c, s, ptr, m, n, addl, &min, &max) || c->st != GCG_OK)
        goto done;
    const char *akv = addl ? sx_helper(c, base, "additional", kv.s) : NULL;
    if (n == 0) {
        gcg_buf_puts(out, "\"{\" " SX_WS " ");
        if (akv) {
            gcg_buf_puts(out, "( ");
            separated(c, ptr, akv, min ? min : 1, max, out);
            gcg_buf_puts(out, " )");
            if (min == 0)
                gcg_buf_puts(out, "?");
        } else if (min > 0) {
            sx_error(c, GCG_ERR_FORMAT, ptr, "minProperties > 0 with no property allowed");
        }
        gcg_buf_puts(out, " \"}\"");
        goto done;
    }
    /* S_i: the next member is property i, or (when i is optional) a later
     * one; S_n: an additional member. T_i: what follows member i-1: "," and
     * S_i, or the end when no property from i on is required. */
    sx_decl *S = calloc(n + 1, sizeof *S), *T = calloc(n + 2, sizeof *T);
    bool *req_after = calloc(n + 1, sizeof *req_after);
    if (!S || !T || !req_after)
        goto objects_done;
    for (uint32_t i = n; i-- > 0;)
        req_after[i] = req_after[i + 1] || m[i].required;
    bool empty_ok = !req_after[0] && min == 0;
    if (left_linear_pairs(m, n) <= LEFT_LINEAR_PAIRS) {
        const char *members = left_linear_members(c, base, m, n, req_after, akv, keys);
        if (members)
            gcg_buf_printf(out, "\"{\" " SX_WS " %s%s \"}\"", members, empty_ok ? "?" : "");
        goto objects_done;
    }
    char sfx[32];
    for (uint32_t i = 0; i <= n + 1; i++) {
        if (i <= n && (i < n || akv)) {
            snprintf(sfx, sizeof sfx, "from%u", i);
            S[i] = sx_declare(c, base, sfx);
        }
        if (i >= 1 && (i <= n || akv)) {
            snprintf(sfx, sizeof sfx, "next%u", i);
            T[i] = sx_declare(c, base, sfx);
        }
    }
    gcg_buf b = {0};
    for (uint32_t i = 0; i <= n; i++) {
        gcg_buf_free(&b);
        if (i < n) {
            member_text(&m[i], req_after[i] ? NULL : keys, &b);
            gcg_buf_printf(&b, " %s", T[i + 1].name);
            if (!m[i].required && S[i + 1].name)
                gcg_buf_printf(&b, " | %s", S[i + 1].name);
        } else if (akv) {
            gcg_buf_printf(&b, "%s %s", akv, T[n + 1].name);
        }
        if (S[i].name)
            sx_define(c, S[i], b.s);
    }
    for (uint32_t i = 1; i <= n + (akv != NULL); i++) {
        gcg_buf_free(&b);
        uint32_t next = i <= n ? i : n; /* after an additional member: another one */
        if (S[next].name)
            gcg_buf_printf(&b, "\",\" " SX_WS " %s", S[next].name);
        if (i > n || !req_after[i])
            gcg_buf_puts(&b, b.len ? " | \"\"" : "\"\"");
        sx_define(c, T[i], b.s);
    }
    gcg_buf_free(&b);
    gcg_buf_printf(out, "\"{\" " SX_WS " %s%s \"}\"", S[0].name, empty_ok ? "?" : "");
objects_done:
    free(S);
    free(T);
    free(req_after);
done:
    trie_free(keys);
    gcg_buf_free(&kv);
    free(base);
    free(m);
    json_decref(names);
}

/* ---- arrays -------------------------------------------------------------- */

void sx_array_body(sctx *c, json_t *s, const char *ptr, gcg_buf *out)
{
    json_t *prefix = json_object_get(s, "prefixItems"), *rest = json_object_get(s, "items");
    const char *rest_kw = "items";
    if (!prefix && json_is_array(rest)) {
        prefix = rest;
        rest = json_object_get(s, "additionalItems");
        rest_kw = "additionalItems";
    }
    if (!rest && json_object_get(s, "unevaluatedItems") && !prefix)
        rest = json_object_get(s, "unevaluatedItems");
    uint64_t min = 0, max = UINT64_MAX;
    count_kw(c, s, "minItems", ptr, &min);
    count_kw(c, s, "maxItems", ptr, &max);
    size_t k = json_array_size(prefix);
    const char **e = calloc(k + 1, sizeof *e);
    const char *pkw = json_object_get(s, "prefixItems") ? "prefixItems" : "items";
    for (size_t i = 0; i < k && e; i++) {
        json_t *sub = json_array_get(prefix, i);
        if (json_is_false(sub)) {
            if (max > i)
                max = i;
            break;
        }
        char *p = sx_ptr_index(ptr, pkw, i);
        e[i] = sx_rule(c, sub, p);
        free(p);
    }
    const char *item = NULL;
    if (json_is_false(rest)) {
        if (max > k)
            max = k;
    } else {
        char *p = sx_ptr(ptr, rest_kw);
        item = !rest || json_is_true(rest) ? SX_VALUE : sx_rule(c, rest, p);
        free(p);
    }
    if (c->st != GCG_OK || !e)
        goto done;
    if (min > max) {
        sx_error(c, GCG_ERR_FORMAT, ptr, "minItems > maxItems: no array is valid");
        goto done;
    }
    gcg_buf_puts(out, "\"[\" " SX_WS " ");
    if (max > 0) {
        gcg_buf_puts(out, "( ");
        /* positions 0..k-1 nested, each further one optional once min is met */
        size_t opened = 0;
        size_t i;
        for (i = 0; i < k && i < max; i++) {
            bool optional = i >= min;
            if (i > 0) /* position 0 is optional through the whole body's "?" */
                gcg_buf_puts(out, optional ? "( " COMMA : COMMA);
            gcg_buf_puts(out, e[i]);
            gcg_buf_puts(out, TRAIL " ");
            opened += i > 0 && optional;
        }
        if (i == k && max > k && item) {
            uint64_t lo = min > k ? min - k : 0, hi = max == UINT64_MAX ? UINT64_MAX : max - k;
            if (k == 0) {
                separated(c, ptr, item, lo ? lo : 1, hi, out);
            } else {
                gcg_buf_printf(out, "( " COMMA "%s" TRAIL " )", item);
                if (hi == UINT64_MAX)
                    gcg_buf_printf(out, lo == 0 ? "*" : lo == 1 ? "+" : "{%llu,}", (unsigned long long)lo);
                else if (hi > GCG_REGEX_MAX_REPEAT)
                    sx_error(c, GCG_ERR_LIMIT, ptr, "maxItems over the grammar's repetition limit %u",
                             GCG_REGEX_MAX_REPEAT);
                else
                    gcg_buf_printf(out, "{%llu,%llu}", (unsigned long long)lo, (unsigned long long)hi);
            }
        } else if (k == 0) {
            sx_error(c, GCG_ERR_FORMAT, ptr, "no items allowed but minItems > 0");
        }
        for (size_t j = 0; j < opened; j++)
            gcg_buf_puts(out, " )?");
        gcg_buf_printf(out, " )%s", min == 0 ? "?" : "");
    }
    gcg_buf_puts(out, " \"]\"");
done:
    free(e);
}
