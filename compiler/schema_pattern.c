/*
 * schema_pattern.c — the keys a simple pattern does not match, for
 * patternProperties beside additional properties (see regex.h for the shape
 * ^? A1 .. Ak B{m,n}? $?).
 *
 * Every expression here is unambiguous: a string outside the language is
 * split at the first place it leaves it (the first class it misses, or the
 * first character after a run of B that is not B), so GLR meets no fork that
 * lives past the key. Characters are JSON string units of code point sets
 * (schema_charset.h), so whatever spelling a unit accepts decodes to a
 * character of its set, and "any character" is SX_CHAR.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "schema_charset.h"
#include "schema_internal.h"

#define MAX_PREFIX 64u /* classes before the tail: nested parentheses */

/* One unit of `set`, or of its complement; false (nothing written) when
 * that set is empty. */
static bool unit(const cp_set *set, bool complement, gcg_buf *out)
{
    cp_set t = {0};
    cp_set_add_set(&t, set);
    if (complement)
        cp_set_complement(&t);
    cp_set_normalize(&t);
    bool some = !cp_set_empty(&t) && cp_set_json_unit(&t, out);
    out->oom |= t.oom;
    cp_set_free(&t);
    return some;
}

/* Strings of B not of length in m..max (max UINT32_MAX: none): shorter,
 * longer, or with a character outside B after a run of B. */
static bool tail_outside(const gcg_regex_simple *sp, bool end, gcg_buf *out)
{
    const char *sep = "";
    uint32_t m = sp->min;
    if (!end) { /* outside B{m} any*: fewer than m B, then the end or a non-B */
        if (m == 0)
            return false;
        gcg_buf nb = {0};
        bool any_nb = unit(&sp->tail, true, &nb);
        gcg_buf_puts(out, "( ( ");
        unit(&sp->tail, false, out);
        gcg_buf_printf(out, " ){0,%u}", m - 1);
        if (any_nb)
            gcg_buf_printf(out, " ( \"\" | %s " SX_CHAR "* )", nb.s);
        gcg_buf_puts(out, " )");
        out->oom |= nb.oom;
        gcg_buf_free(&nb);
        return true;
    }
    gcg_buf_puts(out, "( ");
    if (m > 0) {
        gcg_buf_puts(out, "( ");
        unit(&sp->tail, false, out);
        gcg_buf_printf(out, " ){0,%u}", m - 1);
        sep = " | ";
    }
    if (sp->max != UINT32_MAX) {
        gcg_buf_printf(out, "%s( ", sep);
        unit(&sp->tail, false, out);
        gcg_buf_printf(out, " ){%u} ( ", sp->max + 1);
        unit(&sp->tail, false, out);
        gcg_buf_puts(out, " )*");
        sep = " | ";
    }
    gcg_buf tmp = {0};
    if (unit(&sp->tail, true, &tmp)) {
        gcg_buf_printf(out, "%s( ", sep);
        unit(&sp->tail, false, out);
        gcg_buf_printf(out, " )* %s " SX_CHAR "*", tmp.s);
        sep = " | ";
    }
    out->oom |= tmp.oom;
    gcg_buf_free(&tmp);
    gcg_buf_puts(out, " )");
    return *sep != 0;
}

/* Anchored at the start: F(i) = "" | not-A_i any* | A_i F(i+1), and F(k)
 * the strings the tail does not match. Returns whether F(i) is non-empty. */
static bool from_class(const gcg_regex_simple *sp, uint32_t i, gcg_buf *out)
{
    if (i == sp->n_pos) {
        if (sp->has_tail)
            return tail_outside(sp, sp->end, out);
        if (!sp->end)
            return false; /* the prefix matched: any rest matches */
        gcg_buf_puts(out, "( " SX_CHAR "+ )");
        return true;
    }
    gcg_buf_puts(out, "( \"\"");
    gcg_buf miss = {0}, hit = {0}, rest = {0};
    if (unit(&sp->pos[i], true, &miss))
        gcg_buf_printf(out, " | %s " SX_CHAR "*", miss.s);
    if (unit(&sp->pos[i], false, &hit) && from_class(sp, i + 1, &rest))
        gcg_buf_printf(out, " | %s %s", hit.s, rest.s);
    out->oom |= miss.oom || hit.oom || rest.oom;
    gcg_buf_free(&miss), gcg_buf_free(&hit), gcg_buf_free(&rest);
    gcg_buf_puts(out, " )");
    return true;
}

/* Not anchored at the start, nothing before the tail: the strings with no
 * run of m characters of B (or, anchored at the end, not ending in one):
 * runs of fewer than m separated by non-B, or (at the end only) runs of
 * any length before a non-B. */
static bool runs_outside(const gcg_regex_simple *sp, gcg_buf *out)
{
    uint32_t m = sp->has_tail ? sp->min : 0;
    if (m == 0)
        return false; /* the empty run matches everywhere */
    gcg_buf b = {0}, nb = {0};
    unit(&sp->tail, false, &b);
    bool any_nb = unit(&sp->tail, true, &nb);
    if (any_nb && sp->end)
        gcg_buf_printf(out, "( ( %s )* %s )* ( %s ){0,%u}", b.s, nb.s, b.s, m - 1);
    else if (any_nb)
        gcg_buf_printf(out, "( ( %s ){0,%u} %s )* ( %s ){0,%u}", b.s, m - 1, nb.s, b.s, m - 1);
    else
        gcg_buf_printf(out, "( %s ){0,%u}", b.s, m - 1);
    out->oom |= b.oom || nb.oom;
    gcg_buf_free(&b);
    gcg_buf_free(&nb);
    return true;
}

sx_complement sx_pattern_complement(const gcg_regex_simple *sp, gcg_buf *out)
{
    bool some;
    if (sp->has_tail && cp_set_empty(&sp->tail))
        return SX_COMPLEMENT_UNSUPPORTED; /* B matches nothing: not written for */
    if (sp->start) {
        if (sp->n_pos > MAX_PREFIX)
            return SX_COMPLEMENT_UNSUPPORTED;
        some = from_class(sp, 0, out);
    } else if (sp->n_pos == 0) {
        some = runs_outside(sp, out);
    } else if (sp->n_pos == 1 && !sp->has_tail) { /* one class anywhere: B{1} */
        gcg_regex_simple one = *sp;
        one.n_pos = 0, one.has_tail = true, one.tail = sp->pos[0], one.min = one.max = 1;
        some = runs_outside(&one, out);
    } else {
        return SX_COMPLEMENT_UNSUPPORTED; /* classes that may start anywhere */
    }
    return some ? SX_COMPLEMENT_SOME : SX_COMPLEMENT_EMPTY;
}

/* Decodes a UTF-8 name into code points. */
static uint32_t *decode(const char *s, size_t *n)
{
    size_t len = strlen(s), k = 0;
    uint32_t *cps = malloc((len + 1) * sizeof *cps);
    for (size_t i = 0; cps && i < len;)
        cps[k++] = cp_next_utf8((const unsigned char *)s, len, &i);
    *n = k;
    return cps;
}

int sx_pattern_matches(const gcg_regex_simple *sp, const char *name)
{
    size_t n;
    uint32_t *cps = decode(name, &n);
    if (!cps)
        return -1;
    bool m = gcg_regex_simple_matches(sp, cps, n);
    free(cps);
    return m;
}
