/* schema_charset.c — code point sets and JSON string character units (see
 * schema_charset.h). */
#include <stdlib.h>

#include "schema_charset.h"
#include "utf8_ranges.h"

void cp_set_free(cp_set *s)
{
    free(s->r);
    *s = (cp_set){0};
}

void cp_set_add(cp_set *s, uint32_t lo, uint32_t hi)
{
    if (lo > hi || s->oom)
        return;
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 8;
        cp_range *r = realloc(s->r, cap * sizeof *r);
        if (!r) {
            s->oom = true;
            return;
        }
        s->r = r;
        s->cap = cap;
    }
    s->r[s->n++] = (cp_range){lo, hi};
}

void cp_set_add_set(cp_set *s, const cp_set *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        cp_set_add(s, t->r[i].lo, t->r[i].hi);
    s->oom |= t->oom;
}

static int cmp_range(const void *a, const void *b)
{
    const cp_range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

void cp_set_normalize(cp_set *s)
{
    if (s->n == 0)
        return;
    qsort(s->r, s->n, sizeof *s->r, cmp_range);
    uint32_t k = 0;
    for (uint32_t i = 1; i < s->n; i++) {
        if (s->r[i].lo <= s->r[k].hi + 1) {
            if (s->r[i].hi > s->r[k].hi)
                s->r[k].hi = s->r[i].hi;
        } else {
            s->r[++k] = s->r[i];
        }
    }
    s->n = k + 1;
}

void cp_set_complement(cp_set *s)
{
    cp_set_normalize(s);
    cp_set c = {0};
    uint32_t next = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->r[i].lo > next)
            cp_set_add(&c, next, s->r[i].lo - 1);
        next = s->r[i].hi + 1;
    }
    if (next <= CP_MAX)
        cp_set_add(&c, next, CP_MAX);
    c.oom |= s->oom;
    cp_set_free(s);
    *s = c;
}

uint32_t cp_next_utf8(const unsigned char *s, size_t n, size_t *i)
{
    uint32_t c = s[*i];
    int len = gcg_utf8_decode(s + *i, n - *i, &c);
    *i += len ? (size_t)len : 1;
    return c;
}

bool cp_set_has(const cp_set *s, uint32_t c)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (c >= s->r[i].lo && c <= s->r[i].hi)
            return true;
    return false;
}

bool cp_set_empty(const cp_set *s)
{
    return s->n == 0;
}

/* The raw part: s minus the characters that must be escaped, minus
 * surrogates (not characters). */
static void raw_class(const cp_set *s, gcg_buf *out, bool *any)
{
    static const cp_range raw[] = {{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0xD7FF}, {0xE000, CP_MAX}};
    bool open = false;
    for (uint32_t i = 0; i < s->n; i++)
        for (uint32_t k = 0; k < 4; k++) {
            uint32_t lo = s->r[i].lo > raw[k].lo ? s->r[i].lo : raw[k].lo;
            uint32_t hi = s->r[i].hi < raw[k].hi ? s->r[i].hi : raw[k].hi;
            if (lo > hi)
                continue;
            if (!open) {
                gcg_buf_puts(out, *any ? " | [" : "[");
                open = *any = true;
            }
            gcg_buf_gbnf_char(out, lo);
            if (hi > lo) {
                if (hi > lo + 1)
                    gcg_buf_puts(out, "-");
                gcg_buf_gbnf_char(out, hi);
            }
        }
    if (open)
        gcg_buf_puts(out, "]");
}

static void alt(gcg_buf *out, bool *any, const char *text)
{
    gcg_buf_puts(out, *any ? " | " : "");
    gcg_buf_puts(out, text);
    *any = true;
}

/* One hex digit of a \u escape, both cases. */
static void hex_digit(gcg_buf *out, uint32_t d)
{
    if (d < 10)
        gcg_buf_printf(out, "\"%u\"", d);
    else
        gcg_buf_printf(out, "[%c%c]", "abcdef"[d - 10], "ABCDEF"[d - 10]);
}

/* \u00XX spellings of every escapable character of s. */
static void u_escapes(const cp_set *s, gcg_buf *out, bool *any)
{
    bool all_ctl = true;
    for (uint32_t c = 0; c < 0x20; c++)
        all_ctl &= cp_set_has(s, c);
    if (all_ctl)
        alt(out, any, "\"\\\\u00\" [01] [0-9a-fA-F]");
    static const uint32_t extra[] = {'"', '/', '\\'};
    for (uint32_t c = all_ctl ? 0x20 : 0; c < 0x20 + 3; c++) {
        uint32_t ch = c < 0x20 ? c : extra[c - 0x20];
        if (!cp_set_has(s, ch))
            continue;
        alt(out, any, "\"\\\\u00\" ");
        hex_digit(out, ch >> 4);
        gcg_buf_puts(out, " ");
        hex_digit(out, ch & 15);
    }
}

/* Whether s holds every character that has an escaped spelling. */
static bool has_all_escapable(const cp_set *s)
{
    for (uint32_t c = 0; c < 0x20; c++)
        if (!cp_set_has(s, c))
            return false;
    return cp_set_has(s, '"') && cp_set_has(s, '\\') && cp_set_has(s, '/');
}

/* Whether s holds every non-ASCII character. */
static bool cp_set_has_nonascii(const cp_set *s)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->r[i].lo <= 0x80 && s->r[i].hi >= CP_MAX)
            return true;
    return false;
}

bool cp_set_json_unit(const cp_set *s, gcg_buf *out)
{
    if (s->n == 0)
        return false;
    gcg_buf tmp = {0};
    bool any = false;
    raw_class(s, &tmp, &any);
    if (has_all_escapable(s) && cp_set_has_nonascii(s)) {
        /* every non-ASCII character: the shared rule, so each use does not
         * lower its own UTF-8 sequences */
        cp_set ascii = {0};
        for (uint32_t i = 0; i < s->n; i++)
            if (s->r[i].lo < 0x80)
                cp_set_add(&ascii, s->r[i].lo, s->r[i].hi < 0x7F ? s->r[i].hi : 0x7F);
        any = false;
        gcg_buf_free(&tmp);
        raw_class(&ascii, &tmp, &any);
        cp_set_free(&ascii);
        alt(&tmp, &any, JSON_NONASCII_NAME);
        alt(&tmp, &any, JSON_ESC_NAME);
        gcg_buf_printf(out, "( %s )", tmp.s);
        out->oom |= tmp.oom || s->oom;
        gcg_buf_free(&tmp);
        return true;
    }
    if (has_all_escapable(s)) {
        /* the shared rule of every escape: smaller grammars, shared LR states */
        alt(&tmp, &any, JSON_ESC_NAME);
        gcg_buf_printf(out, "%s%s%s", any ? "( " : "", tmp.s, any ? " )" : "");
        out->oom |= tmp.oom || s->oom;
        gcg_buf_free(&tmp);
        return true;
    }
    static const struct { uint32_t c; const char *lit; } short_esc[] = {
        {'"', "\"\\\\\\\"\""}, {'\\', "\"\\\\\\\\\""}, {'/', "\"\\\\/\""}, {8, "\"\\\\b\""},
        {12, "\"\\\\f\""},     {10, "\"\\\\n\""},      {13, "\"\\\\r\""},  {9, "\"\\\\t\""}};
    for (uint32_t i = 0; i < sizeof short_esc / sizeof *short_esc; i++)
        if (cp_set_has(s, short_esc[i].c))
            alt(&tmp, &any, short_esc[i].lit);
    u_escapes(s, &tmp, &any);
    bool multi = false;
    for (size_t i = 0; i < tmp.len; i++)
        multi |= tmp.s[i] == '|' && i > 0 && tmp.s[i - 1] == ' ';
    if (multi)
        gcg_buf_puts(out, "( ");
    gcg_buf_putn(out, tmp.s ? tmp.s : "", tmp.len);
    if (multi)
        gcg_buf_puts(out, " )");
    out->oom |= tmp.oom || s->oom;
    gcg_buf_free(&tmp);
    return true;
}
