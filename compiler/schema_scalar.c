/*
 * schema_scalar.c — numbers, strings and literal values (enum, const) for
 * the JSON Schema converter.
 *
 * Integer bounds become exact digit-range grammars: a range of decimal
 * strings of one length splits on the first digit that differs into
 * "low end", "whole middle digits", "high end" (the classic regular
 * expression construction for numeric ranges). Numbers with bounds use the
 * same ranges on the integer part, with the fraction free strictly inside
 * and all zeros on an inclusive bound.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "regex_dfa.h"
#include "schema_charset.h"
#include "schema_internal.h"

#define ZFRAC "( \".\" \"0\"+ )?"
#define FRAC "( \".\" [0-9]+ )?"
#define MAX_BOUND 1000000000000000000ULL   /* 10^18: bounds beyond are a limit error */
#define MAX_MODULUS 1000u                  /* multipleOf automaton states           */

/* ---- literal values ------------------------------------------------------ */

void sx_string_literal(const char *str, size_t n, gcg_buf *out)
{
    const unsigned char *s = (const unsigned char *)str;
    gcg_buf_puts(out, "\"\\\"");
    bool in_lit = true;
    for (size_t i = 0; i < n;) {
        uint32_t c = cp_next_utf8(s, n, &i);
        bool plain = c >= 0x20 && c != '"' && c != '\\' && c != '/';
        if (plain) {
            if (!in_lit)
                gcg_buf_puts(out, " \"");
            gcg_buf_gbnf_char(out, c);
            in_lit = true;
            continue;
        }
        if (in_lit)
            gcg_buf_puts(out, "\"");
        in_lit = false;
        cp_set one = {0};
        cp_set_add(&one, c, c);
        gcg_buf_puts(out, " ");
        cp_set_json_unit(&one, out);
        cp_set_free(&one);
    }
    gcg_buf_puts(out, in_lit ? "\\\"\"" : " \"\\\"\"");
}

/* The shortest decimal that reads back as d (what JavaScript and Python print). */
static void shortest_double(double d, char *buf, size_t n)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            return;
    }
}

void sx_literal(sctx *c, const json_t *v, gcg_buf *out)
{
    switch (json_typeof(v)) {
    case JSON_NULL: gcg_buf_puts(out, "\"null\""); return;
    case JSON_TRUE: gcg_buf_puts(out, "\"true\""); return;
    case JSON_FALSE: gcg_buf_puts(out, "\"false\""); return;
    case JSON_INTEGER:
        gcg_buf_printf(out, "\"%lld\" " ZFRAC, (long long)json_integer_value(v));
        return;
    case JSON_REAL: {
        double d = json_real_value(v);
        char buf[40];
        if (d == floor(d) && fabs(d) < 1e18) {
            gcg_buf_printf(out, "\"%lld\" " ZFRAC, (long long)d);
            return;
        }
        shortest_double(d, buf, sizeof buf);
        gcg_buf_printf(out, "\"%s\"", buf);
        return;
    }
    case JSON_STRING:
        sx_string_literal(json_string_value(v), json_string_length(v), out);
        return;
    case JSON_ARRAY: {
        gcg_buf_puts(out, "( \"[\" " SX_WS);
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e) {
            gcg_buf_puts(out, i ? " \",\" " SX_WS " " : " ");
            sx_literal(c, e, out);
            gcg_buf_puts(out, " " SX_WS);
        }
        gcg_buf_puts(out, " \"]\" )");
        return;
    }
    case JSON_OBJECT: {
        gcg_buf_puts(out, "( \"{\" " SX_WS);
        const char *k;
        json_t *e;
        bool first = true;
        json_object_foreach((json_t *)v, k, e) {
            gcg_buf_puts(out, first ? " " : " \",\" " SX_WS " ");
            sx_string_literal(k, strlen(k), out);
            gcg_buf_puts(out, " " SX_WS " \":\" " SX_WS " ");
            sx_literal(c, e, out);
            gcg_buf_puts(out, " " SX_WS);
            first = false;
        }
        gcg_buf_puts(out, " \"}\" )");
        return;
    }
    }
}

/* ---- digit ranges -------------------------------------------------------- */

/* Decimal strings of equal length n in [xs, ys] (digit-wise recursion). */
static void range_same(const char *xs, const char *ys, size_t n, gcg_buf *out)
{
    if (n == 0)
        return;
    if (xs[0] == ys[0]) {
        gcg_buf_printf(out, "\"%c\" ", xs[0]);
        range_same(xs + 1, ys + 1, n - 1, out);
        return;
    }
    bool low_full = strspn(xs + 1, "0") >= n - 1, high_full = strspn(ys + 1, "9") >= n - 1;
    char start = (char)(xs[0] + !low_full), end = (char)(ys[0] - !high_full);
    char nines[24], zeros[24];
    memset(nines, '9', n - 1), memset(zeros, '0', n - 1);
    nines[n - 1] = zeros[n - 1] = 0;
    int parts = !low_full + (start <= end) + !high_full;
    gcg_buf_puts(out, parts > 1 ? "( " : "");
    const char *sep = "";
    if (!low_full) {
        gcg_buf_printf(out, "\"%c\" ", xs[0]);
        range_same(xs + 1, nines, n - 1, out);
        sep = "| ";
    }
    if (start <= end) {
        if (start == end)
            gcg_buf_printf(out, "%s\"%c\"", sep, start);
        else
            gcg_buf_printf(out, "%s[%c-%c]", sep, start, end);
        if (n == 2)
            gcg_buf_puts(out, " [0-9]");
        else if (n > 2)
            gcg_buf_printf(out, " [0-9]{%zu}", n - 1);
        gcg_buf_puts(out, " ");
        sep = "| ";
    }
    if (!high_full) {
        gcg_buf_printf(out, "%s\"%c\" ", sep, ys[0]);
        range_same(zeros, ys + 1, n - 1, out);
    }
    gcg_buf_puts(out, parts > 1 ? ") " : "");
}

static uint64_t pow10u(unsigned d)
{
    uint64_t p = 1;
    while (d--)
        p *= 10;
    return p;
}

static unsigned ndigits(uint64_t v)
{
    unsigned d = 1;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

/* Canonical decimals (no leading zeros) in [a, b]; b = UINT64_MAX: no end.
 * Appends "( ... )". Requires a <= b. */
static void digit_range(uint64_t a, uint64_t b, gcg_buf *out)
{
    unsigned da = ndigits(a);
    bool inf = b == UINT64_MAX;
    unsigned db = inf ? da : ndigits(b);
    bool group = db > da || inf;
    gcg_buf_puts(out, group ? "( " : "");
    for (unsigned d = da; d <= db; d++) {
        uint64_t lo = d == da ? a : pow10u(d - 1), hi = pow10u(d) - 1;
        if (!inf && d == db)
            hi = b;
        char xs[24], ys[24];
        snprintf(xs, sizeof xs, "%llu", (unsigned long long)lo);
        snprintf(ys, sizeof ys, "%llu", (unsigned long long)hi);
        gcg_buf_puts(out, d == da ? "" : "| ");
        range_same(xs, ys, d, out);
    }
    if (inf)
        gcg_buf_printf(out, "| [1-9] [0-9]{%u,} ", da);
    while (out->len && out->s[out->len - 1] == ' ')
        out->s[--out->len] = 0;
    if (group)
        gcg_buf_puts(out, " )");
}

/* ---- numbers ------------------------------------------------------------- */

typedef struct bound { bool has, excl; int64_t v; } bound;

/* Magnitudes y >= 0 (the digits after an optional "-") with lo <= y <= hi
 * (each possibly exclusive; hi optional). Appends alternatives; returns
 * false when none. */
typedef struct fracs {
    const char *any;      /* an optional fraction allowed strictly inside a bound       */
    const char *nonzero;  /* the digits of a fraction that is not zero, after "."      */
} fracs;

static bool magnitude(uint64_t lo, bool lo_excl, bool hi_has, uint64_t hi, bool hi_excl, bool integer,
                      const fracs *fr, gcg_buf *out)
{
    bool any = false;
    uint64_t a = lo + (lo_excl ? 1 : 0);
    if (!hi_has || (hi > 0 && a <= hi - 1)) {
        digit_range(a, hi_has ? hi - 1 : UINT64_MAX, out);
        gcg_buf_printf(out, " %s", integer ? ZFRAC : fr->any);
        any = true;
    }
    if (lo_excl && !integer && (!hi_has || lo < hi)) {
        gcg_buf_printf(out, "%s\"%llu.\" %s", any ? " | " : "", (unsigned long long)lo, fr->nonzero);
        any = true;
    }
    if (hi_has && !hi_excl && hi >= lo && !(lo_excl && hi == lo)) {
        gcg_buf_printf(out, "%s\"%llu\" " ZFRAC, any ? " | " : "", (unsigned long long)hi);
        any = true;
    }
    return any;
}

/* Reads minimum/maximum/exclusive* (numbers, or draft-04 booleans). For
 * integers, fractional bounds are rounded inward. false after an error. */
static bool read_bounds(sctx *c, json_t *s, const char *ptr, bool integer, bound *lo, bound *hi,
                        bool *fractional)
{
    *lo = *hi = (bound){0};
    *fractional = false;
    json_t *kws[4] = {json_object_get(s, "minimum"), json_object_get(s, "exclusiveMinimum"),
                      json_object_get(s, "maximum"), json_object_get(s, "exclusiveMaximum")};
    for (int side = 0; side < 2; side++) {
        bound *b = side ? hi : lo;
        json_t *incl = kws[2 * side], *excl = kws[2 * side + 1];
        double v = 0;
        bool is_excl = false, has = false;
        if (json_is_number(incl))
            v = json_number_value(incl), has = true, is_excl = json_is_true(excl);
        if (json_is_number(excl)) {
            double e = json_number_value(excl);
            if (!has || (side ? e <= v : e >= v))
                v = e, is_excl = true;
            has = true;
        }
        if (!has)
            continue;
        if (integer) {
            double r = side ? floor(v) : ceil(v);
            if (r != v)
                is_excl = false;
            v = r;
        } else if (v != floor(v)) {
            *fractional = true;
            continue; /* read again by the decimal path */
        }
        if (fabs(v) > (double)MAX_BOUND) {
            sx_error(c, GCG_ERR_LIMIT, ptr, "bound %g beyond the supported limit 1e18", v);
            return false;
        }
        if (integer && is_excl)
            v += side ? -1 : 1, is_excl = false;
        *b = (bound){true, is_excl, (int64_t)v};
    }
    return true;
}

/* Non-negative integers that are multiples of k: an automaton over the
 * remainder of the digits read so far, one rule per remainder. */
static void multiple_of(sctx *c, uint64_t k, const char *ptr, gcg_buf *out)
{
    char *base = sx_rule_name_for(ptr);
    sx_decl *r = calloc(k, sizeof *r);
    if (!base || !r) {
        sx_error(c, GCG_ERR_NOMEM, ptr, "out of memory");
        free(base);
        free(r);
        return;
    }
    for (uint64_t i = 0; i < k; i++) { /* names first: the rules refer to each other */
        char sfx[32];
        snprintf(sfx, sizeof sfx, "mod%llu", (unsigned long long)i);
        r[i] = sx_declare(c, base, sfx);
    }
    gcg_buf b = {0};
    for (uint64_t i = 0; i < k; i++) {
        gcg_buf_free(&b);
        gcg_buf_puts(&b, i == 0 ? "\"\"" : "");
        for (uint64_t t = 0; t < k; t++) {
            char cls[16];
            size_t m = 0;
            for (unsigned d = 0; d < 10; d++)
                if ((10 * i + d) % k == t)
                    cls[m++] = (char)('0' + d);
            cls[m] = 0;
            if (m)
                gcg_buf_printf(&b, "%s[%s] %s", b.len ? " | " : "", cls, r[t].name);
        }
        sx_define(c, r[i], b.s);
    }
    gcg_buf_free(&b);
    gcg_buf_puts(out, "( \"0\" | ");
    for (unsigned d = 1; d < 10; d++)
        gcg_buf_printf(out, "%s\"%u\" %s", d > 1 ? " | " : "", d, r[d % k].name);
    gcg_buf_puts(out, " )");
    free(r);
    free(base);
}

/* multipleOf 10^-d (0.1, 0.01, ...): at most d fraction digits that are not
 * trailing zeros. 0 when m is not such a power. */
static unsigned decimal_places(double m)
{
    double p = 1;
    for (unsigned d = 1; d <= 9; d++) {
        p /= 10;
        if (fabs(m - p) < p * 1e-9)
            return d;
    }
    return 0;
}

static void number_dec(sctx *c, json_t *s, const char *ptr, gcg_buf *out);

void sx_number_body(sctx *c, json_t *s, const char *ptr, bool integer, gcg_buf *out)
{
    json_t *mo = json_object_get(s, "multipleOf");
    uint64_t k = 0;
    fracs fr = {FRAC, "[0-9]* [1-9] [0-9]*"};
    char any_buf[64], nz_buf[64];
    unsigned places = 0;
    if (mo) {
        double m = json_number_value(mo);
        if (m > 0 && m == floor(m) && m <= MAX_MODULUS) {
            k = (uint64_t)m;
            integer = true; /* a multiple of an integer is an integer */
        } else if (!integer && (places = decimal_places(m)) > 0) {
            snprintf(any_buf, sizeof any_buf, "( \".\" [0-9]{1,%u} \"0\"* )?", places);
            snprintf(nz_buf, sizeof nz_buf, "[0-9]{0,%u} [1-9] \"0\"*", places - 1);
            fr = (fracs){any_buf, nz_buf};
        } else if (sx_unsupported(c, ptr, "multipleOf",
                                  "only integer moduli up to 1000 and powers of ten are supported")) {
            return;
        }
    }
    bound lo, hi;
    bool fractional;
    if (!read_bounds(c, s, ptr, integer, &lo, &hi, &fractional))
        return;
    if (fractional) {
        if (places || k > 1) {
            sx_unsupported(c, ptr, "multipleOf", "multipleOf together with fractional bounds is not supported");
            return;
        }
        number_dec(c, s, ptr, out);
        return;
    }
    if (k > 1) {
        if (lo.has || hi.has) {
            if (sx_unsupported(c, ptr, "multipleOf", "multipleOf together with bounds is not supported"))
                return;
        } else {
            gcg_buf_puts(out, "\"-\"? ");
            multiple_of(c, k, ptr, out);
            gcg_buf_puts(out, " " ZFRAC);
            return;
        }
    }
    if (!lo.has && !hi.has) {
        if (places)
            gcg_buf_printf(out, "\"-\"? ( \"0\" | [1-9] [0-9]* ) %s", fr.any);
        else
            gcg_buf_puts(out, integer ? "\"-\"? ( \"0\" | [1-9] [0-9]* ) " ZFRAC : SX_NUMBER);
        return;
    }
    gcg_buf_puts(out, "( ");
    bool any = false;
    /* written without "-": y = x >= 0 */
    bool pos_empty = hi.has && (hi.v < 0 || (hi.v == 0 && hi.excl));
    if (!pos_empty) {
        uint64_t l = lo.has && lo.v >= 0 ? (uint64_t)lo.v : 0;
        bool le = lo.has && lo.v >= 0 && lo.excl;
        any = magnitude(l, le, hi.has, hi.has ? (uint64_t)hi.v : 0, hi.excl, integer, &fr, out);
    }
    /* written with "-": y = -x >= 0, so x >= L is y <= -L and x <= U is y >= -U */
    bool neg_empty = lo.has && (lo.v > 0 || (lo.v == 0 && lo.excl));
    if (!neg_empty) {
        uint64_t l = hi.has && hi.v <= 0 ? (uint64_t)(-hi.v) : 0;
        bool le = hi.has && hi.v <= 0 && hi.excl;
        gcg_buf tmp = {0};
        if (magnitude(l, le, lo.has, lo.has ? (uint64_t)(-lo.v) : 0, lo.excl, integer, &fr, &tmp)) {
            gcg_buf_printf(out, "%s\"-\" ( %s )", any ? " | " : "", tmp.s);
            any = true;
        }
        out->oom |= tmp.oom;
        gcg_buf_free(&tmp);
    }
    gcg_buf_puts(out, " )");
    if (!any)
        sx_error(c, GCG_ERR_FORMAT, ptr, "the bounds admit no number");
}


/* ---- decimal bounds ------------------------------------------------------ */

/* A bound with a fraction: sign, integer part, fraction digits without
 * trailing zeros ("" for an integral value). */
typedef struct dec { bool has, excl, neg; uint64_t ip; char fp[24]; } dec;

typedef enum { F_GE, F_GT, F_LE, F_LT } fkind;

/* Digit strings d (after ".") with 0.d compared to 0.F as `k`; F non-empty.
 * At the top at least one digit is needed ("1." is not JSON). */
static bool frac_digits(fkind k, const char *F, bool top, gcg_buf *out)
{
    gcg_buf b = {0};
    const char *sep = "";
    int f = F[0] - '0';
    bool up = k == F_GE || k == F_GT;
    if (up && f < 9)
        gcg_buf_printf(&b, "%s[%c-9] [0-9]*", sep, '0' + f + 1), sep = " | ";
    if (!up && f > 0)
        gcg_buf_printf(&b, "%s[0-%c] [0-9]*", sep, '0' + f - 1), sep = " | ";
    if (!up && !top)
        gcg_buf_printf(&b, "%s\"\"", sep), sep = " | "; /* the rest zeros: less than F */
    const char *rest = F + 1;
    gcg_buf tail = {0};
    bool tail_ok = true;
    if (*rest)
        tail_ok = frac_digits(k, rest, false, &tail);
    else if (k == F_GE)
        gcg_buf_puts(&tail, "[0-9]*");
    else if (k == F_GT)
        gcg_buf_puts(&tail, "[0-9]* [1-9] [0-9]*");
    else if (k == F_LE)
        gcg_buf_puts(&tail, "\"0\"*");
    else
        tail_ok = false;
    if (tail_ok)
        gcg_buf_printf(&b, "%s\"%c\" %s", sep, F[0], tail.s), sep = " | ";
    gcg_buf_free(&tail);
    bool any = *sep != 0;
    if (any)
        gcg_buf_printf(out, "( %s )", b.s);
    out->oom |= b.oom;
    gcg_buf_free(&b);
    return any;
}

/* The optional fraction after an integer part equal to the bound's. */
static bool frac_cond(fkind k, const char *F, gcg_buf *out)
{
    if (!*F) {
        static const char *const whole[] = {FRAC, "\".\" [0-9]* [1-9] [0-9]*", ZFRAC, NULL};
        if (!whole[k])
            return false;
        gcg_buf_puts(out, whole[k]);
        return true;
    }
    gcg_buf d = {0};
    bool ok = frac_digits(k, F, true, &d);
    if (k == F_GE || k == F_GT) {
        if (ok)
            gcg_buf_printf(out, "\".\" %s", d.s);
    } else {
        gcg_buf_printf(out, ok ? "( \".\" %s )?" : "\"\"", d.s);
        ok = true; /* no fraction: zero, less than F */
    }
    gcg_buf_free(&d);
    return ok;
}

/* Magnitudes y >= 0 with lo <= y (<) and y <= hi (<), decimal bounds. */
static bool magnitude_dec(const dec *lo, const dec *hi, bool *unsupported, gcg_buf *out)
{
    bool any = false;
    if (hi->has && hi->ip == lo->ip) {
        gcg_buf t = {0};
        if (!lo->fp[0] && !lo->excl && frac_cond(hi->excl ? F_LT : F_LE, hi->fp, &t)) {
            /* the lower bound is this integer, inclusive: only the upper one binds */
            gcg_buf_printf(out, "\"%llu\" %s", (unsigned long long)lo->ip, t.s);
            any = true;
        } else if (lo->fp[0] || lo->excl) {
            *unsupported = true; /* both bounds inside one integer: two fraction conditions */
        }
        gcg_buf_free(&t);
        return any;
    }
    if (hi->has && hi->ip < lo->ip)
        return false;
    uint64_t a = lo->ip + 1;
    if (!hi->has || (hi->ip > 0 && a <= hi->ip - 1)) {
        digit_range(a, hi->has ? hi->ip - 1 : UINT64_MAX, out);
        gcg_buf_puts(out, " " FRAC);
        any = true;
    }
    gcg_buf t = {0};
    if (frac_cond(lo->excl ? F_GT : F_GE, lo->fp, &t)) {
        gcg_buf_printf(out, "%s\"%llu\" %s", any ? " | " : "", (unsigned long long)lo->ip, t.s);
        any = true;
    }
    gcg_buf_free(&t);
    if (hi->has && frac_cond(hi->excl ? F_LT : F_LE, hi->fp, &t)) {
        gcg_buf_printf(out, "%s\"%llu\" %s", any ? " | " : "", (unsigned long long)hi->ip, t.s);
        any = true;
    }
    gcg_buf_free(&t);
    return any;
}

static bool dec_zero(const dec *d)
{
    return d->ip == 0 && !d->fp[0];
}

/* minimum/maximum/exclusive* as decimals; false when one cannot be written
 * without an exponent. */
static bool read_dec(json_t *s, dec *lo, dec *hi)
{
    *lo = *hi = (dec){0};
    json_t *kws[4] = {json_object_get(s, "minimum"), json_object_get(s, "exclusiveMinimum"),
                      json_object_get(s, "maximum"), json_object_get(s, "exclusiveMaximum")};
    for (int side = 0; side < 2; side++) {
        dec *b = side ? hi : lo;
        json_t *incl = kws[2 * side], *excl = kws[2 * side + 1];
        double v = 0;
        bool has = false, ex = false;
        if (json_is_number(incl))
            v = json_number_value(incl), has = true, ex = json_is_true(excl);
        if (json_is_number(excl)) {
            double e = json_number_value(excl);
            if (!has || (side ? e <= v : e >= v))
                v = e, ex = true;
            has = true;
        }
        if (!has)
            continue;
        char txt[40];
        shortest_double(fabs(v), txt, sizeof txt);
        if (strchr(txt, 'e') || fabs(v) > (double)MAX_BOUND)
            return false;
        char *dot = strchr(txt, '.');
        b->has = true, b->excl = ex, b->neg = v < 0;
        b->ip = strtoull(txt, NULL, 10);
        snprintf(b->fp, sizeof b->fp, "%s", dot ? dot + 1 : "");
        for (size_t n = strlen(b->fp); n > 0 && b->fp[n - 1] == '0'; n--)
            b->fp[n - 1] = 0;
        if (dec_zero(b))
            b->neg = false;
    }
    return true;
}

/* Numbers within decimal bounds, written without exponent: magnitudes
 * after an optional "-", as for integer bounds. */
static void number_dec(sctx *c, json_t *s, const char *ptr, gcg_buf *out)
{
    dec L, U;
    if (!read_dec(s, &L, &U)) {
        sx_unsupported(c, ptr, "minimum", "a bound that needs an exponent or exceeds 1e18");
        return;
    }
    bool unsupported = false, any = false;
    gcg_buf_puts(out, "( ");
    /* without "-": y = x; lo = max(L, 0), hi = U */
    bool pos_empty = U.has && (U.neg || (dec_zero(&U) && U.excl));
    if (!pos_empty) {
        dec lo = L.has && !L.neg ? L : (dec){true, false, false, 0, ""};
        any = magnitude_dec(&lo, &U, &unsupported, out);
    }
    /* with "-": y = -x; x >= L is y <= -L, x <= U is y >= -U */
    bool neg_empty = L.has && ((!L.neg && !dec_zero(&L)) || (dec_zero(&L) && L.excl));
    if (!neg_empty) {
        dec lo = U.has && (U.neg || dec_zero(&U)) ? U : (dec){true, false, false, 0, ""};
        dec hi = L;
        lo.neg = hi.neg = false;
        gcg_buf t = {0};
        if (magnitude_dec(&lo, &hi, &unsupported, &t)) {
            gcg_buf_printf(out, "%s\"-\" ( %s )", any ? " | " : "", t.s);
            any = true;
        }
        gcg_buf_free(&t);
    }
    gcg_buf_puts(out, " )");
    if (unsupported)
        sx_unsupported(c, ptr, "minimum", "both bounds within the same integer are not supported");
    else if (!any)
        sx_error(c, GCG_ERR_FORMAT, ptr, "the bounds admit no number");
}

/* ---- strings ------------------------------------------------------------- */

static bool length_bound(sctx *c, json_t *s, const char *kw, const char *ptr, uint64_t *v)
{
    json_t *j = json_object_get(s, kw);
    if (!j)
        return false;
    double d = json_number_value(j);
    if (!json_is_number(j) || d < 0 || d != floor(d)) {
        sx_error(c, GCG_ERR_FORMAT, ptr, "\"%s\" must be a non-negative integer", kw);
        return false;
    }
    *v = d > 4e9 ? 4000000000u : (uint64_t)d;
    return true;
}

/* A DFA this large still writes a small grammar; larger ones keep the
 * pattern's own shape. So do anchored patterns with a count over
 * PATTERN_DFA_COUNT: their chains share walks (horizon.h), DFA states do
 * not, and their transcription is no more ambiguous than the count. */
#define PATTERN_DFA_STATES 64
#define PATTERN_DFA_COUNT 16

/* P_q for each state q of d: the strings that lead from the start to q,
 * as a left-linear rule (P_q ::= P_p unit | ..., and "" for the start), so
 * the parser reads the string on one stack. */
static void dfa_rules(sctx *c, const gcg_regex_dfa *d, const sx_decl *P, gcg_buf *body)
{
    for (uint32_t q = 0; q < d->n_states; q++) {
        gcg_buf_free(body);
        if (q == 0)
            gcg_buf_puts(body, "\"\"");
        for (uint32_t p = 0; p < d->n_states; p++) {
            cp_set into = {0};
            for (uint32_t k = 0; k < d->n_classes; k++)
                if (d->next[(size_t)p * d->n_classes + k] == q)
                    cp_set_add_set(&into, &d->classes[k]);
            cp_set_normalize(&into);
            if (!cp_set_empty(&into)) {
                gcg_buf_printf(body, "%s%s ", body->len ? " | " : "", P[p].name);
                cp_set_json_unit(&into, body);
            }
            body->oom |= into.oom;
            cp_set_free(&into);
        }
        sx_define(c, P[q], body->s);
    }
}

/* A pattern as its minimal DFA: written as GBNF, `any* alpha any*` lets
 * GLR keep a stack for every place `alpha` might start, and `(a|ab)(c|bcd)`
 * or `([a-z/]*)*` fork too (regex_dfa.h). False, with nothing written, for
 * DFAs over PATTERN_DFA_STATES and anchored patterns counting past
 * PATTERN_DFA_COUNT. */
static bool pattern_dfa(sctx *c, json_t *pat, const char *ptr, gcg_buf *out)
{
    gcg_regex_dfa d;
    bool searches = false;
    uint32_t most = 0;
    if (gcg_regex_to_dfa(json_string_value(pat), json_string_length(pat), PATTERN_DFA_STATES, &d, &searches,
                         &most) != GCG_OK)
        return false;
    char *base = searches || most <= PATTERN_DFA_COUNT ? sx_rule_name_for(ptr) : NULL;
    sx_decl *P = base ? calloc(d.n_states, sizeof *P) : NULL;
    if (P) {
        char sfx[32];
        for (uint32_t q = 0; q < d.n_states; q++)
            snprintf(sfx, sizeof sfx, "pattern%u", q), P[q] = sx_declare(c, base, sfx);
        gcg_buf body = {0};
        dfa_rules(c, &d, P, &body);
        out->oom |= body.oom;
        gcg_buf_free(&body);
        gcg_buf_puts(out, "\"\\\"\" (");
        for (uint32_t q = 0, n = 0; q < d.n_states; q++)
            if (d.accept[q])
                gcg_buf_printf(out, "%s %s", n++ ? " |" : "", P[q].name);
        gcg_buf_puts(out, " ) \"\\\"\"");
    }
    bool written = P != NULL;
    free(P), free(base);
    gcg_regex_dfa_free(&d);
    return written;
}

void sx_string_body(sctx *c, json_t *s, const char *ptr, gcg_buf *out)
{
    uint64_t min = 0, max = 0;
    bool has_min = length_bound(c, s, "minLength", ptr, &min);
    bool has_max = length_bound(c, s, "maxLength", ptr, &max);
    has_min &= min > 0;
    json_t *pat = json_object_get(s, "pattern"), *fmt = json_object_get(s, "format");
    const char *frule = json_is_string(fmt) ? sx_format_rule(json_string_value(fmt)) : NULL;
    if (fmt && !frule && c->diag)
        gcg_diag_add(c->diag, GCG_SEV_WARNING, 0, 0, "#%s: unknown format \"%s\" is an annotation only", ptr,
                     json_is_string(fmt) ? json_string_value(fmt) : "?");
    /* a length bound the pattern or format already implies adds nothing */
    uint64_t lo = 0, hi = UINT64_MAX;
    if (frule)
        sx_format_lengths(json_string_value(fmt), &lo, &hi);
    else if (json_is_string(pat)) {
        gcg_buf probe = {0};
        if (gcg_regex_to_gbnf(json_string_value(pat), json_string_length(pat), SX_CHAR, &probe, NULL, 0, &lo,
                              &hi) != GCG_OK)
            lo = 0, hi = UINT64_MAX;
        gcg_buf_free(&probe);
    }
    if ((pat || frule) && (!has_min || lo >= min) && (!has_max || hi <= max))
        has_min = has_max = false;
    int n_kinds = (has_min || has_max) + (pat != NULL) + (frule != NULL);
    if (n_kinds > 1) {
        sx_unsupported(c, ptr, pat ? "pattern" : "format",
                       "the intersection of length, pattern and format is not supported");
        return;
    }
    if (frule) {
        gcg_buf_printf(out, "\"\\\"\" %s \"\\\"\"", frule);
    } else if (pat) {
        if (!json_is_string(pat)) {
            sx_error(c, GCG_ERR_FORMAT, ptr, "\"pattern\" must be a string");
            return;
        }
        if (pattern_dfa(c, pat, ptr, out))
            return;
        char err[300];
        gcg_buf tmp = {0};
        gcg_status st = gcg_regex_to_gbnf(json_string_value(pat), json_string_length(pat), SX_CHAR, &tmp, err,
                                          sizeof err, NULL, NULL);
        if (st != GCG_OK) {
            char *p = sx_ptr(ptr, "pattern");
            sx_error(c, st, p ? p : ptr, "%s", err);
            free(p);
        } else {
            gcg_buf_printf(out, "\"\\\"\" %s \"\\\"\"", tmp.s);
        }
        gcg_buf_free(&tmp);
    } else if (has_min || has_max) {
        if (has_max && max < min) {
            sx_error(c, GCG_ERR_FORMAT, ptr, "minLength > maxLength: no string is valid");
            return;
        }
        uint64_t big = has_max ? max : min;
        if (big > GCG_REGEX_MAX_REPEAT) {
            sx_error(c, GCG_ERR_LIMIT, ptr, "string length bound %llu over the grammar's repetition limit %u",
                     (unsigned long long)big, GCG_REGEX_MAX_REPEAT);
            return;
        }
        if (has_max)
            gcg_buf_printf(out, "\"\\\"\" " SX_CHAR "{%llu,%llu} \"\\\"\"", (unsigned long long)min,
                           (unsigned long long)max);
        else
            gcg_buf_printf(out, "\"\\\"\" " SX_CHAR "{%llu,} \"\\\"\"", (unsigned long long)min);
    } else {
        gcg_buf_puts(out, SX_STRING);
    }
}
