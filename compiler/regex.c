/*
 * regex.c — ECMAScript pattern -> GBNF (see regex.h). A recursive-descent
 * parser of ECMA-262 22.2.1 (Pattern) that writes GBNF as it goes: each atom
 * becomes a parenthesized expression, each character class the JSON string
 * unit of its code point set. Asked for (gcg_regex_to_dfa), it builds the
 * pattern's Thompson NFA beside the text, fragment by fragment
 * (regex_dfa.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regex.h"
#include "regex_dfa.h"
#include "schema_charset.h"
#include "utf8_ranges.h"

#define LEN_INF UINT64_MAX

/* Lengths (in characters) of the strings a part of the pattern matches. */
typedef struct lens { uint64_t min, max; } lens;

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a == LEN_INF || b == LEN_INF || a + b < a ? LEN_INF : a + b;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a == LEN_INF || b == LEN_INF || a > LEN_INF / b ? LEN_INF : a * b;
}

typedef struct rx {
    const unsigned char *s;
    size_t n, i;
    unsigned depth;
    gcg_status st;
    char *err;
    size_t err_len;
    rx_nfa *nfa;   /* NULL: text only                                     */
    rx_frag frag;  /* the NFA of what the last parse function read        */
    bool padded;   /* a top-level alternative is unanchored at one end    */
    uint32_t most; /* the largest count of a quantifier ({m,n}: n, or m)   */
} rx;

/* ---- the NFA beside the text (no-ops without one) ----------------------- */

/* After an error the fragments are stale: nothing more is built. */
static bool nf_on(const rx *p)
{
    return p->nfa && p->st == GCG_OK;
}

static rx_frag nf_cat(rx *p, rx_frag x, rx_frag y)
{
    return nf_on(p) ? rx_nfa_cat(p->nfa, x, y) : x;
}

/* Any character, any number of times: an unanchored end's padding. */
static rx_frag nf_any_star(rx *p)
{
    if (!nf_on(p))
        return p->frag;
    cp_set all = {0};
    cp_set_add(&all, 0, CP_MAX);
    rx_frag f = rx_nfa_repeat(p->nfa, rx_nfa_set(p->nfa, &all), 0, UINT32_MAX);
    p->nfa->oom |= all.oom;
    cp_set_free(&all);
    return f;
}

static void fail(rx *p, gcg_status st, const char *fmt, ...)
{
    if (p->st != GCG_OK)
        return;
    p->st = st;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(p->err, p->err_len, "pattern offset %zu: %s", p->i, msg);
}

static bool at_end(const rx *p)
{
    return p->i >= p->n || p->st != GCG_OK;
}

static uint32_t peek(const rx *p)
{
    return p->i < p->n ? p->s[p->i] : 0;
}

/* Decodes one UTF-8 code point (invalid bytes are an error). */
static uint32_t next_cp(rx *p)
{
    uint32_t c = 0;
    int len = gcg_utf8_decode(p->s + p->i, p->n - p->i, &c);
    if (len == 0) {
        fail(p, GCG_ERR_FORMAT, "invalid UTF-8");
        return 0;
    }
    p->i += (size_t)len;
    return c;
}

static int hexval(uint32_t c)
{
    return c >= '0' && c <= '9' ? (int)(c - '0')
         : c >= 'a' && c <= 'f' ? (int)(c - 'a' + 10)
         : c >= 'A' && c <= 'F' ? (int)(c - 'A' + 10) : -1;
}

/* Exactly k hex digits. */
static uint32_t hex_n(rx *p, unsigned k)
{
    uint32_t v = 0;
    for (unsigned j = 0; j < k; j++) {
        int h = p->i < p->n ? hexval(p->s[p->i]) : -1;
        if (h < 0) {
            fail(p, GCG_ERR_FORMAT, "expected %u hex digits", k);
            return 0;
        }
        v = v << 4 | (uint32_t)h;
        p->i++;
    }
    return v;
}

/* \d \w \s and their complements. */
static bool class_escape(uint32_t c, cp_set *set)
{
    cp_set t = {0};
    switch (c | 0x20) {
    case 'd': cp_set_add(&t, '0', '9'); break;
    case 'w':
        cp_set_add(&t, '0', '9'), cp_set_add(&t, 'A', 'Z'), cp_set_add(&t, 'a', 'z');
        cp_set_add(&t, '_', '_');
        break;
    case 's': /* WhiteSpace and LineTerminator, ECMA-262 12.2 and 12.3 */
        cp_set_add(&t, 9, 13), cp_set_add(&t, ' ', ' '), cp_set_add(&t, 0xA0, 0xA0);
        cp_set_add(&t, 0x1680, 0x1680), cp_set_add(&t, 0x2000, 0x200A);
        cp_set_add(&t, 0x2028, 0x2029), cp_set_add(&t, 0x202F, 0x202F);
        cp_set_add(&t, 0x205F, 0x205F), cp_set_add(&t, 0x3000, 0x3000);
        cp_set_add(&t, 0xFEFF, 0xFEFF);
        break;
    default: return false;
    }
    if (c >= 'A' && c <= 'Z')
        cp_set_complement(&t);
    cp_set_add_set(set, &t);
    cp_set_free(&t);
    return true;
}

/* CharacterEscape after the backslash: one code point. \u{...} and a
 * surrogate pair written as two \u escapes give one code point. */
static uint32_t char_escape(rx *p, bool in_class)
{
    uint32_t c = next_cp(p);
    switch (c) {
    case 't': return 9;
    case 'n': return 10;
    case 'v': return 11;
    case 'f': return 12;
    case 'r': return 13;
    case '0':
        if (p->i < p->n && peek(p) >= '0' && peek(p) <= '9')
            fail(p, GCG_ERR_FORMAT, "octal escapes are not allowed");
        return 0;
    case 'c': {
        uint32_t l = p->i < p->n ? peek(p) : 0;
        if (!((l | 0x20) >= 'a' && (l | 0x20) <= 'z')) {
            fail(p, GCG_ERR_FORMAT, "\\c must be followed by a letter");
            return 0;
        }
        p->i++;
        return l % 32;
    }
    case 'x': return hex_n(p, 2);
    case 'u': {
        if (peek(p) == '{') {
            p->i++;
            uint32_t v = 0;
            unsigned k = 0;
            while (p->i < p->n && hexval(peek(p)) >= 0 && v <= CP_MAX)
                v = v << 4 | (uint32_t)hexval(p->s[p->i++]), k++;
            if (k == 0 || peek(p) != '}' || v > CP_MAX)
                fail(p, GCG_ERR_FORMAT, "bad \\u{...} escape");
            p->i++;
            return v;
        }
        uint32_t v = hex_n(p, 4);
        if (v >= 0xD800 && v <= 0xDBFF && p->i + 6 <= p->n && p->s[p->i] == '\\' && p->s[p->i + 1] == 'u') {
            size_t save = p->i;
            p->i += 2;
            uint32_t lo = hex_n(p, 4);
            if (p->st == GCG_OK && lo >= 0xDC00 && lo <= 0xDFFF)
                return 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
            p->i = save;
        }
        if (v >= 0xD800 && v <= 0xDFFF)
            fail(p, GCG_ERR_FORMAT, "lone surrogate \\u%04X", v);
        return v;
    }
    case '-':
        if (!in_class)
            fail(p, GCG_ERR_FORMAT, "\\- outside a class");
        return c;
    default:
        if (c >= '1' && c <= '9')
            fail(p, GCG_ERR_FORMAT, "backreferences are not supported");
        else if (c == 'b' && in_class)
            return 8;
        else if (c == 'b' || c == 'B')
            fail(p, GCG_ERR_FORMAT, "word boundary \\%c is not supported", (char)c);
        else if (c == 'k')
            fail(p, GCG_ERR_FORMAT, "backreferences are not supported");
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
            fail(p, GCG_ERR_FORMAT, "unknown escape \\%c", (char)c);
        else if (c >= '0' && c <= '9')
            fail(p, GCG_ERR_FORMAT, "unknown escape \\%c", (char)c);
        return c;
    }
}

/* ClassAtom: one code point into *c, or a class escape added to set (returns false). */
static bool class_atom(rx *p, cp_set *set, uint32_t *c)
{
    uint32_t ch = next_cp(p);
    if (ch != '\\') {
        *c = ch;
        return true;
    }
    if (p->i >= p->n) {
        fail(p, GCG_ERR_FORMAT, "pattern ends after \\");
        return false;
    }
    if (class_escape(peek(p), set)) {
        p->i++;
        return false;
    }
    *c = char_escape(p, true);
    return true;
}

/* CharacterClass -> "[" ["^"] ClassRanges "]" */
static void char_class(rx *p, cp_set *set)
{
    bool neg = peek(p) == '^';
    if (neg)
        p->i++;
    while (!at_end(p) && peek(p) != ']') {
        uint32_t lo, hi;
        if (!class_atom(p, set, &lo))
            continue;
        if (peek(p) == '-' && p->i + 1 < p->n && p->s[p->i + 1] != ']') {
            p->i++;
            cp_set tmp = {0};
            bool single = class_atom(p, &tmp, &hi);
            cp_set_free(&tmp);
            if (!single)
                fail(p, GCG_ERR_FORMAT, "class escape as a range end");
            else if (hi < lo)
                fail(p, GCG_ERR_FORMAT, "range out of order in class");
            else
                cp_set_add(set, lo, hi);
        } else {
            cp_set_add(set, lo, lo);
        }
    }
    if (peek(p) != ']' || p->i >= p->n)
        fail(p, GCG_ERR_FORMAT, "unterminated character class");
    p->i++;
    if (neg)
        cp_set_complement(set);
    cp_set_normalize(set);
}

static void emit_set(rx *p, cp_set *set, gcg_buf *out)
{
    cp_set_normalize(set);
    if (!cp_set_json_unit(set, out))
        gcg_buf_puts(out, "[^\\x00-\\U0010FFFF]"); /* matches nothing */
    if (set->oom)
        fail(p, GCG_ERR_NOMEM, "out of memory");
}

static lens alternation(rx *p, gcg_buf *out, bool top, const char *any_char);

/* Group -> "(" [ "?:" | "?<name>" ] Disjunction ")" */
static lens group(rx *p, gcg_buf *out, const char *any_char)
{
    lens l = {0, 0};
    if (peek(p) == '?') {
        p->i++;
        uint32_t k = peek(p);
        if (k == ':')
            p->i++;
        else if (k == '<' && p->i + 1 < p->n && p->s[p->i + 1] != '=' && p->s[p->i + 1] != '!') {
            while (p->i < p->n && peek(p) != '>')
                p->i++;
            p->i++;
        } else {
            fail(p, GCG_ERR_FORMAT, "lookaround assertions are not supported");
            return l;
        }
    }
    if (++p->depth > GCG_REGEX_MAX_DEPTH) {
        fail(p, GCG_ERR_LIMIT, "groups nested deeper than %u", GCG_REGEX_MAX_DEPTH);
        return l;
    }
    gcg_buf_puts(out, "( ");
    l = alternation(p, out, false, any_char);
    gcg_buf_puts(out, " )");
    p->depth--;
    if (peek(p) != ')' || p->i >= p->n)
        fail(p, GCG_ERR_FORMAT, "missing )");
    p->i++;
    return l;
}

/* The code points of an atom that is one character class, its first code
 * point c already read: "." | "[" ... "]" | "\" AtomEscape | PatternCharacter. */
static void class_of_atom(rx *p, uint32_t c, cp_set *set)
{
    switch (c) {
    case '[': char_class(p, set); break;
    case '.': cp_set_add(set, 10, 10), cp_set_add(set, 13, 13), cp_set_add(set, 0x2028, 0x2029);
              cp_set_complement(set);
              break;
    case '\\':
        if (p->i >= p->n) {
            fail(p, GCG_ERR_FORMAT, "pattern ends after \\");
            break;
        }
        if (class_escape(peek(p), set))
            p->i++;
        else
            c = char_escape(p, false), cp_set_add(set, c, c);
        break;
    case '*': case '+': case '?':
        fail(p, GCG_ERR_FORMAT, "nothing to repeat");
        break;
    case ')': case ']':
        fail(p, GCG_ERR_FORMAT, "unbalanced %c", (char)c);
        break;
    default: cp_set_add(set, c, c);
    }
}

/* Atom -> "(" ... ")" | a character class */
static lens atom(rx *p, gcg_buf *out, const char *any_char)
{
    uint32_t c = next_cp(p);
    cp_set set = {0};
    if (c == '(')
        return group(p, out, any_char);
    class_of_atom(p, c, &set);
    if (p->st == GCG_OK)
        emit_set(p, &set, out);
    if (nf_on(p))
        p->frag = rx_nfa_set(p->nfa, &set);
    cp_set_free(&set);
    return (lens){1, 1};
}

/* Decimal digits; false when there are none. */
static bool number(rx *p, uint32_t *v)
{
    size_t start = p->i;
    uint64_t x = 0;
    while (p->i < p->n && peek(p) >= '0' && peek(p) <= '9') {
        x = x * 10 + (peek(p) - '0');
        if (x > UINT32_MAX - 1)
            x = UINT32_MAX - 1;
        p->i++;
    }
    *v = (uint32_t)x;
    return p->i > start;
}

/* Quantifier -> ("*" | "+" | "?" | "{" m ["," [n]] "}") ["?"]; a "{" that
 * does not start one is a literal (Annex B). Returns false when none. */
static bool quantifier(rx *p, uint32_t *min, uint32_t *max)
{
    uint32_t c = peek(p);
    if (p->i >= p->n)
        return false;
    if (c == '*' || c == '+' || c == '?') {
        p->i++;
        *min = c == '+';
        *max = c == '?' ? 1 : UINT32_MAX;
    } else if (c == '{') {
        size_t save = p->i++;
        if (!number(p, min)) {
            p->i = save;
            return false;
        }
        *max = *min;
        if (peek(p) == ',') {
            p->i++;
            if (!number(p, max))
                *max = UINT32_MAX;
        }
        if (peek(p) != '}' || p->i >= p->n) {
            p->i = save;
            return false;
        }
        p->i++;
        if (*max < *min)
            fail(p, GCG_ERR_FORMAT, "numbers out of order in {} quantifier");
    } else {
        return false;
    }
    if (peek(p) == '?' && p->i < p->n)
        p->i++; /* lazy: same language */
    uint32_t big = *max != UINT32_MAX ? *max : *min;
    if (big > GCG_REGEX_MAX_REPEAT)
        fail(p, GCG_ERR_LIMIT, "repetition count %u over the limit %u", big, GCG_REGEX_MAX_REPEAT);
    return true;
}

static void repeat_suffix(gcg_buf *out, uint32_t min, uint32_t max)
{
    if (min == 0 && max == UINT32_MAX)
        gcg_buf_puts(out, "*");
    else if (min == 1 && max == UINT32_MAX)
        gcg_buf_puts(out, "+");
    else if (min == 0 && max == 1)
        gcg_buf_puts(out, "?");
    else if (max == UINT32_MAX)
        gcg_buf_printf(out, "{%u,}", min);
    else if (min == max)
        gcg_buf_printf(out, "{%u}", min);
    else
        gcg_buf_printf(out, "{%u,%u}", min, max);
}

/* Alternative -> { Term }, Term -> Atom [Quantifier]. At top level a leading
 * "^" and a trailing "$" anchor the alternative; elsewhere they are errors. */
static lens sequence(rx *p, gcg_buf *out, bool top, const char *any_char)
{
    bool anchored_start = false, anchored_end = false;
    lens l = {0, 0};
    if (top && peek(p) == '^' && p->i < p->n) {
        p->i++;
        anchored_start = true;
    }
    bool have = top && !anchored_start;
    rx_frag acc = have ? nf_any_star(p) : p->frag;
    if (top && !anchored_start)
        gcg_buf_printf(out, "%s* ", any_char);
    gcg_buf_puts(out, "(");
    while (!at_end(p) && peek(p) != '|' && peek(p) != ')') {
        uint32_t c = peek(p);
        if (c == '$' && top) {
            p->i++;
            if (!at_end(p) && peek(p) != '|')
                fail(p, GCG_ERR_FORMAT, "$ is supported only at the end of an alternative");
            anchored_end = true;
            break;
        }
        if (c == '^' || c == '$') {
            fail(p, GCG_ERR_FORMAT, "%c is supported only at the start/end of a top-level alternative",
                 (char)c);
            break;
        }
        gcg_buf item = {0};
        lens a = atom(p, &item, any_char);
        uint32_t min, max;
        gcg_buf_puts(out, " ");
        bool q = quantifier(p, &min, &max);
        if (q && nf_on(p))
            p->frag = rx_nfa_repeat(p->nfa, p->frag, min, max);
        if (q) {
            uint32_t big = max == UINT32_MAX ? min : max;
            p->most = big > p->most ? big : p->most;
        }
        acc = have ? nf_cat(p, acc, p->frag) : p->frag;
        have = true;
        if (q)
            a = (lens){mul_sat(a.min, min), max == UINT32_MAX ? (a.max ? LEN_INF : 0) : mul_sat(a.max, max)};
        l = (lens){add_sat(l.min, a.min), add_sat(l.max, a.max)};
        if (q) {
            gcg_buf_puts(out, "(");
            gcg_buf_putn(out, item.s ? item.s : "", item.len);
            gcg_buf_puts(out, ")");
            repeat_suffix(out, min, max);
        } else {
            gcg_buf_putn(out, item.s ? item.s : "", item.len);
        }
        out->oom |= item.oom;
        gcg_buf_free(&item);
    }
    gcg_buf_puts(out, " )");
    if (nf_on(p) && !have)
        acc = rx_nfa_empty(p->nfa);
    if (top && !anchored_end)
        gcg_buf_printf(out, " %s*", any_char), acc = nf_cat(p, acc, nf_any_star(p));
    if (top && (!anchored_start || !anchored_end))
        l.max = LEN_INF, p->padded = true;
    p->frag = acc;
    return l;
}

/* Disjunction -> Alternative { "|" Alternative } */
static lens alternation(rx *p, gcg_buf *out, bool top, const char *any_char)
{
    lens l = sequence(p, out, top, any_char);
    rx_frag acc = p->frag;
    while (!at_end(p) && peek(p) == '|') {
        p->i++;
        gcg_buf_puts(out, " | ");
        lens m = sequence(p, out, top, any_char);
        l = (lens){m.min < l.min ? m.min : l.min, m.max > l.max ? m.max : l.max};
        acc = nf_on(p) ? rx_nfa_alt(p->nfa, acc, p->frag) : acc;
    }
    p->frag = acc;
    return l;
}

/* Parses the whole pattern into out (and p->nfa when set). */
static lens parse(rx *p, gcg_buf *out, const char *any_char)
{
    gcg_buf_puts(out, "( ");
    lens l = alternation(p, out, true, any_char);
    gcg_buf_puts(out, " )");
    if (p->st == GCG_OK && p->i < p->n)
        fail(p, GCG_ERR_FORMAT, "unbalanced )");
    if (out->oom)
        fail(p, GCG_ERR_NOMEM, "out of memory");
    return l;
}

gcg_status gcg_regex_to_gbnf(const char *pat, size_t len, const char *any_char, gcg_buf *out, char *err,
                             size_t err_len, uint64_t *min_len, uint64_t *max_len)
{
    char dummy[1];
    rx p = {.s = (const unsigned char *)pat, .n = len, .st = GCG_OK, .err = err ? err : dummy,
            .err_len = err ? err_len : 1};
    gcg_buf tmp = {0};
    lens l = parse(&p, &tmp, any_char);
    if (min_len)
        *min_len = l.min;
    if (max_len)
        *max_len = l.max;
    if (p.st == GCG_OK)
        gcg_buf_putn(out, tmp.s, tmp.len);
    gcg_buf_free(&tmp);
    return p.st;
}

gcg_status gcg_regex_to_dfa(const char *pat, size_t len, uint32_t max_states, gcg_regex_dfa *out, bool *searches,
                            uint32_t *most_count)
{
    char err[1];
    rx_nfa nfa;
    rx_nfa_init(&nfa, GCG_REGEX_NFA_LIMIT);
    rx p = {.s = (const unsigned char *)pat, .n = len, .st = GCG_OK, .err = err, .err_len = sizeof err,
            .nfa = &nfa};
    gcg_buf text = {0};
    parse(&p, &text, "c");
    gcg_buf_free(&text);
    gcg_status st = p.st;
    if (st == GCG_OK)
        st = gcg_regex_dfa_build(&nfa, p.frag, max_states, out);
    else
        memset(out, 0, sizeof *out);
    *searches = p.padded, *most_count = p.most;
    rx_nfa_free(&nfa);
    return st;
}

/* ---- simple patterns ------------------------------------------------------ */

void gcg_regex_simple_free(gcg_regex_simple *sp)
{
    for (uint32_t i = 0; i < sp->n_pos; i++)
        cp_set_free(&sp->pos[i]);
    free(sp->pos);
    cp_set_free(&sp->tail);
    memset(sp, 0, sizeof *sp);
}

static bool simple_push(gcg_regex_simple *sp, cp_set *set)
{
    cp_set *v = realloc(sp->pos, ((size_t)sp->n_pos + 1) * sizeof *v);
    if (!v)
        return false;
    sp->pos = v;
    sp->pos[sp->n_pos++] = *set;
    memset(set, 0, sizeof *set);
    return true;
}

/* Terms of the simple shape: single classes, the last one may be quantified. */
static bool simple_terms(rx *p, gcg_regex_simple *sp)
{
    while (!at_end(p) && peek(p) != '$') {
        uint32_t c = next_cp(p);
        if (c == '(' || c == '|' || c == '^' || c == '{' || c == '}')
            return false;
        cp_set set = {0};
        class_of_atom(p, c, &set);
        cp_set_normalize(&set);
        uint32_t min, max;
        if (p->st != GCG_OK || set.oom) {
            cp_set_free(&set);
            return false;
        }
        if (quantifier(p, &min, &max)) {
            sp->has_tail = true, sp->tail = set, sp->min = min, sp->max = max;
            return p->st == GCG_OK && (at_end(p) || peek(p) == '$');
        }
        if (!simple_push(sp, &set)) {
            cp_set_free(&set);
            return false;
        }
    }
    return p->st == GCG_OK;
}

bool gcg_regex_simple_parse(const char *pat, size_t len, gcg_regex_simple *sp)
{
    char err[8];
    rx p = {.s = (const unsigned char *)pat, .n = len, .st = GCG_OK, .err = err, .err_len = sizeof err};
    memset(sp, 0, sizeof *sp);
    if (peek(&p) == '^' && p.i < p.n)
        p.i++, sp->start = true;
    bool ok = simple_terms(&p, sp);
    if (ok && p.i < p.n && peek(&p) == '$')
        p.i++, sp->end = true;
    ok = ok && p.i == p.n && p.st == GCG_OK;
    if (!ok)
        gcg_regex_simple_free(sp);
    return ok;
}

/* Whether the classes match s at offset o and what follows satisfies the
 * tail (all of the rest when anchored at the end, else its first min). */
static bool simple_at(const gcg_regex_simple *sp, const uint32_t *s, size_t n, size_t o)
{
    if (n - o < sp->n_pos)
        return false;
    for (uint32_t i = 0; i < sp->n_pos; i++)
        if (!cp_set_has(&sp->pos[i], s[o + i]))
            return false;
    size_t at = o + sp->n_pos, run = 0, rest = n - at;
    uint32_t min = sp->has_tail ? sp->min : 0, max = sp->has_tail ? sp->max : 0;
    while (at + run < n && sp->has_tail && cp_set_has(&sp->tail, s[at + run]))
        run++;
    if (!sp->end)
        return run >= min;
    return run == rest && rest >= min && (max == UINT32_MAX || rest <= max);
}

bool gcg_regex_simple_matches(const gcg_regex_simple *sp, const uint32_t *s, size_t n)
{
    for (size_t o = 0; o <= n; o++) {
        if (simple_at(sp, s, n, o))
            return true;
        if (sp->start)
            break;
    }
    return false;
}
