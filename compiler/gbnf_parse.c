/*
 * gbnf_parse.c — GBNF source text to the AST of gbnf.h, by recursive descent.
 *
 * Accepts what llama.cpp's parser (src/llama-grammar.cpp) accepts: spaces,
 * tabs and "#" comments between any two items; newlines only after "::=",
 * after "|" and anywhere inside "( )"; a rule otherwise ends at a newline (a
 * line starting with "|" does not continue the rule above); "name::=" with no
 * space; spaces inside "{ m , n }"; repetition operators that stack ("a"*?);
 * raw newlines inside literals and classes; "-" first or last in a class is
 * literal. Beyond llama.cpp: "_" in names, "{,n}", "\/". Stricter than
 * llama.cpp: invalid UTF-8 anywhere in the source, code points above
 * U+10FFFF, class ranges with start > end and rules defined twice are errors.
 * "[]" is an empty class (matches nothing), "[^]" any code point.
 *
 * Diagnostics: 1-based line and column; columns count code points (a tab is
 * one column; "\r\n", "\n" and a lone "\r" each end a line). A syntax error
 * stops the parse; then duplicate rules, undefined rules (at their first
 * reference) and a missing start rule are all reported, and each rule not
 * reachable from the start rule gets a warning. Returns GCG_OK, GCG_ERR_FORMAT
 * (the grammar has errors), GCG_ERR_NOMEM or GCG_ERR_ARG (NULL g or src).
 *
 * Nesting: "(" groups deeper than GBNF_MAX_NESTING are an error before any
 * recursion happens, and so is a node whose level exceeds it (a group adds
 * one level, each repetition operator one), which bounds the AST's height for
 * the phases that walk it recursively.
 *
 * The AST: nodes are created children first, so every kid has a smaller
 * index than its parent. SEQ inside SEQ and ALT inside ALT are flattened
 * and lists of one collapse to their element; nodes dropped by flattening
 * are compacted away before returning.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbnf.h"
#include "utf8_ranges.h"

#define NONE UINT32_MAX
#define COUNT_MAX (GBNF_INF - 1) /* largest finite repetition bound */

typedef struct srcpos {
    uint32_t line, col;
} srcpos;

/* Parser state. The scratch stack `stk` holds the kids of every open SEQ
 * and ALT (each list owns the entries above the top it found), so nesting
 * costs no allocation per level. */
typedef struct parser {
    const uint8_t *s;        /* source                                        */
    size_t n, i;             /* length, cursor                                */
    srcpos at;               /* position of the cursor                        */
    gbnf_grammar *g;         /* being built                                   */
    gcg_diag *diag;          /* may be NULL                                   */
    uint32_t cap_nodes, cap_rules;
    uint32_t *level;         /* per node: nesting level (see the top comment) */
    bool *defined;           /* per rule: a definition was seen               */
    uint32_t *stk, n_stk, cap_stk;
    uint8_t *buf;            /* literal bytes being read                      */
    uint32_t n_buf, cap_buf;
    gbnf_range *rbuf;        /* class ranges being read                       */
    uint32_t n_rbuf, cap_rbuf;
    uint32_t *htab, hcap;    /* rule name hash table: rule index + 1, 0 empty */
    uint32_t depth;          /* open "(" groups                               */
    uint32_t n_errors;
    bool nomem;
} parser;

/* ---- diagnostics ------------------------------------------------------ */

static void report(parser *p, gcg_severity sev, srcpos at, const char *fmt, va_list ap)
{
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (sev == GCG_SEV_ERROR)
        p->n_errors++;
    if (p->diag)
        gcg_diag_add(p->diag, sev, at.line, at.col, "%s", msg);
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static uint32_t error(parser *p, srcpos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(p, GCG_SEV_ERROR, at, fmt, ap);
    va_end(ap);
    return NONE;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static void warning(parser *p, srcpos at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(p, GCG_SEV_WARNING, at, fmt, ap);
    va_end(ap);
}

static uint32_t out_of_memory(parser *p)
{
    if (!p->nomem)
        error(p, (srcpos){0, 0}, "out of memory");
    p->nomem = true;
    return NONE;
}

/* ---- UTF-8 and the cursor --------------------------------------------- */

static int peek_at(const parser *p, size_t k)
{
    return p->i + k < p->n ? p->s[p->i + k] : -1;
}

static int peek(const parser *p)
{
    return peek_at(p, 0);
}

/* Consumes one byte; continuation bytes do not count as columns. */
static void advance(parser *p)
{
    uint8_t c = p->s[p->i++];
    if (c == '\n' || (c == '\r' && peek(p) != '\n'))
        p->at = (srcpos){p->at.line + 1, 1};
    else if ((c & 0xC0) != 0x80)
        p->at.col++;
}

/* Consumes one code point (the source was validated up front). */
static uint32_t take_cp(parser *p)
{
    uint32_t cp = 0;
    int len = gcg_utf8_decode(p->s + p->i, p->n - p->i, &cp);
    for (int k = 0; k < len; k++)
        advance(p);
    return cp;
}

/* Checks that the whole source is strict UTF-8, so that the parser can
 * decode without checking and every column is a whole code point. */
static bool validate_utf8(parser *p)
{
    for (size_t i = 0; i < p->n;) {
        uint32_t cp;
        int len = p->s[i] < 0x80 ? 1 : gcg_utf8_decode(p->s + i, p->n - i, &cp);
        if (len == 0) {
            while (p->i < i) /* the line and column, for the message */
                advance(p);
            error(p, p->at, "invalid UTF-8 (byte 0x%02X)", p->s[p->i]);
            return false;
        }
        i += (size_t)len;
    }
    return true;
}

/* What the cursor is looking at, for "found ..." in messages. */
static const char *describe(const parser *p, char buf[16])
{
    int c = peek(p);
    uint32_t cp;
    if (c < 0)
        return "end of input";
    if (c == '\n' || c == '\r')
        return "end of line";
    if (c > 0x20 && c < 0x7F)
        snprintf(buf, 16, "\"%c\"", c);
    else if (gcg_utf8_decode(p->s + p->i, p->n - p->i, &cp))
        snprintf(buf, 16, "U+%04X", cp);
    else
        snprintf(buf, 16, "byte 0x%02X", c);
    return buf;
}

/* space -> { " " | "\t" | "#" comment | newline if nl_ok } */
static void skip_space(parser *p, bool nl_ok)
{
    for (;;) {
        int c = peek(p);
        if (c == ' ' || c == '\t' || (nl_ok && (c == '\n' || c == '\r'))) {
            advance(p);
        } else if (c == '#') {
            while (peek(p) >= 0 && peek(p) != '\n' && peek(p) != '\r')
                advance(p);
        } else {
            return;
        }
    }
}

static bool is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool is_name_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '-' ||
           c == '_';
}

/* Consumes a run of name characters: ASCII without line breaks, a column
 * each (a schema grammar is mostly long rule names). */
static void skip_name(parser *p)
{
    size_t from = p->i;
    while (p->i < p->n && is_name_char(p->s[p->i]))
        p->i++;
    p->at.col += (uint32_t)(p->i - from);
}

static int hex_value(int c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* ---- growable arrays --------------------------------------------------- */

static bool grow(void **v, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    uint32_t cap2 = *cap ? *cap : 16;
    while (cap2 < need) {
        if (cap2 > UINT32_MAX / 2)
            return false;
        cap2 *= 2;
    }
    void *nv = realloc(*v, (size_t)cap2 * elem);
    if (!nv)
        return false;
    *v = nv;
    *cap = cap2;
    return true;
}

static bool push_kid(parser *p, uint32_t node)
{
    if (!grow((void **)&p->stk, &p->cap_stk, p->n_stk + 1, sizeof *p->stk))
        return out_of_memory(p), false;
    p->stk[p->n_stk++] = node;
    return true;
}

static bool push_byte_cp(parser *p, uint32_t cp)
{
    if (!grow((void **)&p->buf, &p->cap_buf, p->n_buf + 4, 1))
        return out_of_memory(p), false;
    p->n_buf += (uint32_t)gcg_utf8_encode(cp, p->buf + p->n_buf);
    return true;
}

static bool push_range(parser *p, uint32_t lo, uint32_t hi)
{
    if (!grow((void **)&p->rbuf, &p->cap_rbuf, p->n_rbuf + 1, sizeof *p->rbuf))
        return out_of_memory(p), false;
    p->rbuf[p->n_rbuf++] = (gbnf_range){lo, hi};
    return true;
}

/* A zeroed node of `kind` at `at`; NONE when out of memory. Grows the node
 * array, so pointers into it die here. */
static uint32_t new_node(parser *p, gbnf_kind kind, srcpos at, uint32_t level)
{
    gbnf_grammar *g = p->g;
    uint32_t cap = p->cap_nodes;
    if (!grow((void **)&g->nodes, &cap, g->n_nodes + 1, sizeof *g->nodes) ||
        !grow((void **)&p->level, &p->cap_nodes, g->n_nodes + 1, sizeof *p->level))
        return out_of_memory(p);
    memset(&g->nodes[g->n_nodes], 0, sizeof *g->nodes);
    g->nodes[g->n_nodes].kind = kind;
    g->nodes[g->n_nodes].line = at.line;
    g->nodes[g->n_nodes].col = at.col;
    p->level[g->n_nodes] = level;
    return g->n_nodes++;
}

/* ---- rule names -------------------------------------------------------- */

/* FNV-1a: short names, few of them; any decent spread will do. */
static uint32_t name_hash(const uint8_t *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t k = 0; k < n; k++)
        h = (h ^ s[k]) * 16777619u;
    return h;
}

static bool name_eq(const char *name, const uint8_t *s, size_t n)
{
    return strncmp(name, (const char *)s, n) == 0 && name[n] == '\0';
}

static bool rehash(parser *p)
{
    uint32_t cap = p->hcap ? p->hcap * 2 : 64;
    uint32_t *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (uint32_t r = 0; r < p->g->n_rules; r++) {
        const char *nm = p->g->rules[r].name;
        uint32_t h = name_hash((const uint8_t *)nm, strlen(nm)) & (cap - 1);
        while (t[h])
            h = (h + 1) & (cap - 1);
        t[h] = r + 1;
    }
    free(p->htab);
    p->htab = t;
    p->hcap = cap;
    return true;
}

static uint32_t add_rule(parser *p, const uint8_t *s, size_t n, srcpos at)
{
    gbnf_grammar *g = p->g;
    uint32_t cap = p->cap_rules;
    char *name = malloc(n + 1);
    if (!name || !grow((void **)&g->rules, &cap, g->n_rules + 1, sizeof *g->rules) ||
        !grow((void **)&p->defined, &p->cap_rules, g->n_rules + 1, sizeof *p->defined)) {
        free(name);
        return out_of_memory(p);
    }
    memcpy(name, s, n);
    name[n] = '\0';
    g->rules[g->n_rules] = (gbnf_rule){name, NONE, at.line, at.col};
    p->defined[g->n_rules] = false;
    return g->n_rules++;
}

/* The rule named s[0..n), created (positioned at `at`) if new. */
static uint32_t rule_for_name(parser *p, const uint8_t *s, size_t n, srcpos at)
{
    if ((p->g->n_rules + 1) * 2 > p->hcap && !rehash(p))
        return out_of_memory(p);
    uint32_t h = name_hash(s, n) & (p->hcap - 1);
    for (; p->htab[h]; h = (h + 1) & (p->hcap - 1))
        if (name_eq(p->g->rules[p->htab[h] - 1].name, s, n))
            return p->htab[h] - 1;
    uint32_t r = add_rule(p, s, n, at);
    if (r != NONE)
        p->htab[h] = r + 1;
    return r;
}

/* ---- lists ------------------------------------------------------------- */

/* Turns the kids above `base` on the scratch stack into one node of `kind`
 * (SEQ or ALT), splicing kids of the same kind and collapsing a list of one
 * to its element. */
static uint32_t finish_list(parser *p, gbnf_kind kind, uint32_t base, srcpos at)
{
    gbnf_node *nodes = p->g->nodes;
    uint32_t cnt = 0, level = 0;
    for (uint32_t k = base; k < p->n_stk; k++) {
        uint32_t kid = p->stk[k];
        cnt += nodes[kid].kind == kind ? nodes[kid].n_kids : 1;
        level = p->level[kid] > level ? p->level[kid] : level;
    }
    uint32_t *kids = cnt ? malloc(cnt * sizeof *kids) : NULL;
    if (cnt && !kids)
        return out_of_memory(p);
    uint32_t j = 0;
    for (uint32_t k = base; k < p->n_stk; k++) {
        const gbnf_node *kid = &nodes[p->stk[k]];
        if (kid->kind == kind)
            for (uint32_t q = 0; q < kid->n_kids; q++)
                kids[j++] = kid->kids[q];
        else
            kids[j++] = p->stk[k];
    }
    p->n_stk = base;
    if (cnt == 1) {
        uint32_t only = kids[0];
        free(kids);
        return only;
    }
    uint32_t node = new_node(p, kind, at, level);
    if (node == NONE) {
        free(kids);
        return NONE;
    }
    p->g->nodes[node].kids = kids;
    p->g->nodes[node].n_kids = cnt;
    return node;
}

/* ---- literals and classes ---------------------------------------------- */

/* hex -> exactly `digits` hex digits after "\x", "\u" or "\U". */
static bool parse_hex(parser *p, int digits, char letter, srcpos esc, uint32_t *cp)
{
    uint32_t v = 0;
    for (int k = 0; k < digits; k++) {
        int d = hex_value(peek(p));
        if (d < 0) {
            error(p, esc, "expected %d hex digits after \"\\%c\"", digits, letter);
            return false;
        }
        v = (v << 4) | (uint32_t)d;
        advance(p);
    }
    if (v > GBNF_MAX_CODEPOINT) {
        error(p, esc, "code point U+%04X out of range", v);
        return false;
    }
    *cp = v;
    return true;
}

/* escape -> \n \t \r \\ \" \[ \] \- \/ \xHH \uHHHH \UHHHHHHHH
 * The backslash is at the cursor and is not the last byte of the input. */
static bool parse_escape(parser *p, uint32_t *cp)
{
    srcpos esc = p->at;
    char buf[16];
    advance(p);
    int c = peek(p);
    switch (c) {
    case 'n': *cp = '\n'; break;
    case 't': *cp = '\t'; break;
    case 'r': *cp = '\r'; break;
    case '\\': case '"': case '[': case ']': case '-': case '/': *cp = (uint32_t)c; break;
    case 'x': advance(p); return parse_hex(p, 2, 'x', esc, cp);
    case 'u': advance(p); return parse_hex(p, 4, 'u', esc, cp);
    case 'U': advance(p); return parse_hex(p, 8, 'U', esc, cp);
    default:
        if (c > 0x20 && c < 0x7F)
            error(p, esc, "unknown escape \"\\%c\"", c);
        else
            error(p, esc, "unknown escape: \"\\\" followed by %s", describe(p, buf));
        return false;
    }
    advance(p);
    return true;
}

/* True when the text of a literal or class cannot go on: end of input, or
 * a backslash that is the last byte. */
static bool text_ends(const parser *p)
{
    return peek(p) < 0 || (peek(p) == '\\' && peek_at(p, 1) < 0);
}

/* One code point of a literal or class: an escape or raw UTF-8.
 * Requires !text_ends(p). */
static bool read_char(parser *p, uint32_t *cp)
{
    if (peek(p) == '\\')
        return parse_escape(p, cp);
    *cp = take_cp(p);
    return true;
}

static bool is_surrogate(uint32_t cp)
{
    return cp >= 0xD800 && cp <= 0xDFFF;
}

/* literal -> '"' { char | escape } '"'   ("" is ε, an empty SEQ)
 * A surrogate escape (\uD800-\uDFFF) has no UTF-8 encoding (RFC 3629), so
 * it is refused rather than stored as the invalid bytes ED A0 80 ... */
static uint32_t parse_literal(parser *p)
{
    srcpos open = p->at;
    advance(p);
    p->n_buf = 0;
    while (peek(p) != '"') {
        uint32_t cp;
        srcpos at = p->at;
        if (text_ends(p))
            return error(p, open, "unterminated literal");
        if (!read_char(p, &cp))
            return NONE;
        if (is_surrogate(cp))
            return error(p, at, "surrogate U+%04X is not a character (no UTF-8 encoding)", cp);
        if (!push_byte_cp(p, cp))
            return NONE;
    }
    advance(p);
    if (p->n_buf == 0)
        return new_node(p, GBNF_SEQ, open, 0);
    uint8_t *bytes = malloc(p->n_buf);
    uint32_t node = bytes ? new_node(p, GBNF_LIT, open, 0) : out_of_memory(p);
    if (node == NONE) {
        free(bytes);
        return NONE;
    }
    memcpy(bytes, p->buf, p->n_buf);
    p->g->nodes[node].bytes = bytes;
    p->g->nodes[node].n_bytes = p->n_buf;
    return node;
}

static uint32_t class_unterminated(parser *p, srcpos open)
{
    while (peek(p) >= 0)
        advance(p);
    return error(p, p->at, "expected \"]\" to close the class opened at %u:%u", open.line,
                 open.col);
}

/* class_item -> char [ "-" char ]   ("-" before "]" is a literal "-").
 * Requires !text_ends(p). */
static bool parse_class_item(parser *p, srcpos open)
{
    srcpos start = p->at;
    uint32_t lo, hi;
    if (!read_char(p, &lo))
        return false;
    hi = lo;
    if (peek(p) == '-' && peek_at(p, 1) >= 0 && peek_at(p, 1) != ']') {
        advance(p);
        if (text_ends(p))
            return class_unterminated(p, open), false;
        if (!read_char(p, &hi))
            return false;
        if (lo > hi) {
            error(p, start, "invalid class range U+%04X-U+%04X (start above end)", lo, hi);
            return false;
        }
    }
    /* A range that also covers characters keeps them (surrogates are never
     * matched); one made only of surrogates matches nothing, as literals
     * with surrogates are refused. */
    if (is_surrogate(lo) && is_surrogate(hi)) {
        if (lo == hi)
            error(p, start, "surrogate U+%04X is not a character (no UTF-8 encoding)", lo);
        else
            error(p, start, "class range U+%04X-U+%04X holds only surrogates (no UTF-8 encoding)",
                  lo, hi);
        return false;
    }
    return push_range(p, lo, hi);
}

static uint32_t class_node(parser *p, srcpos open, bool negated)
{
    gbnf_range *ranges = NULL;
    if (p->n_rbuf) {
        ranges = malloc(p->n_rbuf * sizeof *ranges);
        if (!ranges)
            return out_of_memory(p);
        memcpy(ranges, p->rbuf, p->n_rbuf * sizeof *ranges);
    }
    uint32_t node = new_node(p, GBNF_CLASS, open, 0);
    if (node == NONE) {
        free(ranges);
        return NONE;
    }
    p->g->nodes[node].ranges = ranges;
    p->g->nodes[node].n_ranges = p->n_rbuf;
    p->g->nodes[node].negated = negated;
    return node;
}

/* class -> "[" ["^"] { class_item } "]" */
static uint32_t parse_class(parser *p)
{
    srcpos open = p->at;
    bool negated = false;
    advance(p);
    if (peek(p) == '^') {
        negated = true;
        advance(p);
    }
    p->n_rbuf = 0;
    while (peek(p) != ']') {
        if (text_ends(p))
            return class_unterminated(p, open);
        if (!parse_class_item(p, open))
            return NONE;
    }
    advance(p);
    return class_node(p, open, negated);
}

/* ---- items and sequences ------------------------------------------------ */

static uint32_t parse_alternation(parser *p, bool nested);

/* group -> "(" alternation ")"   (newlines allowed anywhere inside) */
static uint32_t parse_group(parser *p)
{
    srcpos open = p->at;
    char buf[16];
    if (p->depth >= GBNF_MAX_NESTING)
        return error(p, open, "nesting deeper than %d", GBNF_MAX_NESTING);
    advance(p);
    skip_space(p, true);
    p->depth++;
    uint32_t node = parse_alternation(p, true);
    p->depth--;
    if (node == NONE)
        return NONE;
    if (peek(p) != ')')
        return error(p, p->at, "expected \")\" to close the group opened at %u:%u, found %s",
                     open.line, open.col, describe(p, buf));
    advance(p);
    if (++p->level[node] > GBNF_MAX_NESTING)
        return error(p, open, "nesting deeper than %d", GBNF_MAX_NESTING);
    return node;
}

/* name -> [a-zA-Z0-9_-]+   (a rule reference) */
static uint32_t parse_ref(parser *p)
{
    srcpos start = p->at;
    size_t from = p->i;
    skip_name(p);
    uint32_t rule = rule_for_name(p, p->s + from, p->i - from, start);
    uint32_t node = rule == NONE ? NONE : new_node(p, GBNF_REF, start, 0);
    if (node != NONE)
        p->g->nodes[node].rule = rule;
    return node;
}

/* token -> ["!"] "<[" digit+ "]>" | ["!"] "<" { byte but ">" } ">"   (llama.cpp's
 * parse_token: the text form runs to the first ">", newlines included, and
 * keeps the brackets). The cursor is at "<" or at "!" before "<". */
static uint32_t parse_token(parser *p)
{
    srcpos at = p->at;
    bool negated = peek(p) == '!';
    if (negated)
        advance(p);
    srcpos open = p->at;
    size_t from = p->i;
    advance(p);
    if (peek(p) == '[') {
        advance(p);
        uint64_t id = 0;
        srcpos digits = p->at;
        if (!is_digit(peek(p)))
            return error(p, digits, "expected a token id after \"<[\"");
        for (; is_digit(peek(p)); advance(p))
            if ((id = id * 10 + (uint64_t)(peek(p) - '0')) > UINT32_MAX)
                return error(p, digits, "token id out of range (at most %u)", UINT32_MAX);
        if (peek(p) != ']' || peek_at(p, 1) != '>')
            return error(p, p->at, "expected \"]>\" to close the token reference opened at %u:%u",
                         open.line, open.col);
        advance(p), advance(p);
        uint32_t node = new_node(p, GBNF_TOKEN, at, 0);
        if (node != NONE)
            p->g->nodes[node].by_id = true, p->g->nodes[node].token = (uint32_t)id,
            p->g->nodes[node].negated = negated;
        return node;
    }
    while (peek(p) >= 0 && peek(p) != '>')
        advance(p);
    if (peek(p) < 0)
        return error(p, open, "expected \">\" to close the token reference");
    advance(p);
    size_t n = p->i - from;
    uint8_t *bytes = malloc(n);
    uint32_t node = bytes ? new_node(p, GBNF_TOKEN, at, 0) : out_of_memory(p);
    if (node == NONE) {
        free(bytes);
        return NONE;
    }
    memcpy(bytes, p->s + from, n);
    p->g->nodes[node].bytes = bytes;
    p->g->nodes[node].n_bytes = (uint32_t)n;
    p->g->nodes[node].negated = negated;
    return node;
}

/* primary -> name | literal | class | "." | group | token
 * Returns NONE with no error when the cursor starts no primary. */
static uint32_t parse_primary(parser *p, bool *none)
{
    srcpos at = p->at;
    int c = peek(p);
    *none = false;
    if (c == '"')
        return parse_literal(p);
    if (c == '[')
        return parse_class(p);
    if (c == '(')
        return parse_group(p);
    if (is_name_char(c))
        return parse_ref(p);
    if (c == '.') {
        advance(p);
        return new_node(p, GBNF_ANY, at, 0);
    }
    if (c == '<' || (c == '!' && peek_at(p, 1) == '<'))
        return parse_token(p);
    *none = true;
    return NONE;
}

/* count -> digit { digit }. A count past COUNT_MAX is kept as COUNT_MAX:
 * lowering refuses every bound over its limit with one message. */
static bool parse_count(parser *p, uint32_t *out)
{
    uint64_t v = 0;
    while (is_digit(peek(p))) {
        v = v * 10 + (uint64_t)(peek(p) - '0');
        if (v > COUNT_MAX)
            v = COUNT_MAX;
        advance(p);
    }
    *out = (uint32_t)v;
    return true;
}

/* The part of braces after "{" m: "}" | "," [n] "}" */
static bool parse_brace_tail(parser *p, bool nested, srcpos open, bool has_min, uint32_t *max)
{
    char buf[16];
    if (peek(p) != ',') {
        if (has_min)
            error(p, p->at, "expected \",\" or \"}\" in repetition, found %s", describe(p, buf));
        else
            error(p, p->at, "expected a number after \"{\", found %s", describe(p, buf));
        return false;
    }
    advance(p);
    skip_space(p, nested);
    if (is_digit(peek(p))) {
        if (!parse_count(p, max))
            return false;
        skip_space(p, nested);
    } else if (!has_min) {
        error(p, p->at, "expected a number after \"{,\", found %s", describe(p, buf));
        return false;
    }
    if (peek(p) != '}') {
        error(p, p->at, "expected \"}\" to close the repetition opened at %u:%u, found %s",
              open.line, open.col, describe(p, buf));
        return false;
    }
    advance(p);
    return true;
}

/* braces -> "{" m "}" | "{" m ",}" | "{" m "," n "}" | "{," n "}" */
static bool parse_braces(parser *p, bool nested, uint32_t *min, uint32_t *max)
{
    srcpos open = p->at;
    bool has_min = false;
    advance(p);
    skip_space(p, nested);
    *min = 0;
    *max = GBNF_INF;
    if (is_digit(peek(p))) {
        if (!parse_count(p, min))
            return false;
        has_min = true;
        skip_space(p, nested);
    }
    if (has_min && peek(p) == '}') {
        advance(p);
        *max = *min;
    } else if (!parse_brace_tail(p, nested, open, has_min, max)) {
        return false;
    }
    if (*max < *min) {
        error(p, open, "invalid repetition bounds {%u,%u}", *min, *max);
        return false;
    }
    return true;
}

/* Replaces the last item on the scratch stack by REPEAT(item, min, max),
 * positioned where the item starts. */
static bool wrap_repeat(parser *p, srcpos at, uint32_t min, uint32_t max)
{
    uint32_t kid = p->stk[p->n_stk - 1];
    uint32_t level = p->level[kid] + 1;
    if (level > GBNF_MAX_NESTING) {
        error(p, at, "nesting deeper than %d", GBNF_MAX_NESTING);
        return false;
    }
    srcpos kid_at = {p->g->nodes[kid].line, p->g->nodes[kid].col};
    uint32_t *kids = malloc(sizeof *kids);
    uint32_t node = kids ? new_node(p, GBNF_REPEAT, kid_at, level) : out_of_memory(p);
    if (node == NONE) {
        free(kids);
        return false;
    }
    kids[0] = kid;
    gbnf_node *x = &p->g->nodes[node];
    x->kids = kids;
    x->n_kids = 1;
    x->min = min;
    x->max = max;
    p->stk[p->n_stk - 1] = node;
    return true;
}

/* suffix -> "*" | "+" | "?" | braces, applied to the last item of the
 * sequence whose kids start at `base`. */
static bool parse_suffix(parser *p, bool nested, uint32_t base)
{
    srcpos at = p->at;
    int c = peek(p);
    uint32_t min = 0, max = GBNF_INF;
    if (p->n_stk == base) {
        error(p, at, "\"%c\" must follow an item to repeat", c);
        return false;
    }
    if (c == '{') {
        if (!parse_braces(p, nested, &min, &max))
            return false;
    } else {
        advance(p);
        min = c == '+' ? 1 : 0;
        max = c == '?' ? 1 : GBNF_INF;
    }
    if (!wrap_repeat(p, at, min, max))
        return false;
    skip_space(p, nested);
    return true;
}

static bool is_suffix(int c)
{
    return c == '*' || c == '+' || c == '?' || c == '{';
}

/* sequence -> { primary { suffix } }   (may be empty) */
static uint32_t parse_sequence(parser *p, bool nested)
{
    uint32_t base = p->n_stk;
    srcpos at = p->at;
    for (;;) {
        if (is_suffix(peek(p))) {
            if (!parse_suffix(p, nested, base))
                return NONE;
            continue;
        }
        bool none;
        uint32_t item = parse_primary(p, &none);
        if (none)
            break;
        if (item == NONE || !push_kid(p, item))
            return NONE;
        skip_space(p, nested);
    }
    return finish_list(p, GBNF_SEQ, base, at);
}

/* alternation -> sequence { "|" sequence }   (newlines allowed after "|") */
static uint32_t parse_alternation(parser *p, bool nested)
{
    uint32_t base = p->n_stk;
    srcpos at = p->at;
    for (;;) {
        uint32_t seq = parse_sequence(p, nested);
        if (seq == NONE || !push_kid(p, seq))
            return NONE;
        if (peek(p) != '|')
            break;
        advance(p);
        skip_space(p, true);
    }
    return finish_list(p, GBNF_ALT, base, at);
}

/* ---- rules -------------------------------------------------------------- */

/* After a rule's alternation: newline or end of input. */
static bool expect_rule_end(parser *p)
{
    char buf[16];
    int c = peek(p);
    if (c == '\r' || c == '\n') {
        advance(p);
        if (c == '\r' && peek(p) == '\n')
            advance(p);
        return true;
    }
    if (c < 0)
        return true;
    if (c == ')')
        error(p, p->at, "unexpected \")\" without a matching \"(\"");
    else if (c == ':')
        error(p, p->at, "unexpected \":\" (a rule definition must start on a new line)");
    else
        error(p, p->at, "expected an item, \"|\" or end of line, found %s", describe(p, buf));
    return false;
}

/* The rule a definition at `at` names: new, forward-referenced (its
 * position moves to the definition) or already defined (an error; the body
 * is parsed but dropped, *dup set). */
static uint32_t define_rule(parser *p, size_t from, size_t len, srcpos at, bool *dup)
{
    uint32_t r = rule_for_name(p, p->s + from, len, at);
    *dup = false;
    if (r == NONE)
        return NONE;
    gbnf_rule *rule = &p->g->rules[r];
    if (p->defined[r]) {
        error(p, at, "rule \"%s\" defined twice (first at %u:%u)", rule->name, rule->line,
              rule->col);
        *dup = true;
    } else {
        p->defined[r] = true;
        rule->line = at.line;
        rule->col = at.col;
    }
    return r;
}

/* rule -> name "::=" alternation (newline | end of input) */
static bool parse_rule(parser *p)
{
    srcpos at = p->at;
    char buf[16];
    size_t from = p->i;
    bool dup;
    skip_name(p);
    if (p->i == from) {
        if (peek(p) == '|')
            error(p, at, "expected a rule name, found \"|\" (to continue a rule on the next "
                         "line, end the line before with \"|\")");
        else
            error(p, at, "expected a rule name, found %s", describe(p, buf));
        return false;
    }
    size_t len = p->i - from;
    skip_space(p, false);
    if (peek(p) != ':' || peek_at(p, 1) != ':' || peek_at(p, 2) != '=') {
        error(p, p->at, "expected \"::=\" after rule name \"%.*s\"", len > 64 ? 64 : (int)len,
              (const char *)p->s + from);
        return false;
    }
    uint32_t r = define_rule(p, from, len, at, &dup);
    if (r == NONE)
        return false;
    for (int k = 0; k < 3; k++)
        advance(p);
    skip_space(p, true);
    uint32_t body = parse_alternation(p, false);
    if (body == NONE || !expect_rule_end(p))
        return false;
    if (!dup)
        p->g->rules[r].body = body;
    return true;
}

/* grammar -> { space rule } space */
static bool parse_grammar(parser *p)
{
    skip_space(p, true);
    while (peek(p) >= 0) {
        if (!parse_rule(p))
            return false;
        skip_space(p, true);
    }
    return true;
}

/* ---- checks after parsing ------------------------------------------------ */

/* Drops the nodes that flattening left unreferenced and renumbers the rest.
 * Kids precede parents, so one backward sweep marks what is live and one
 * forward sweep moves nodes down while remapping their kids. */
static bool compact(parser *p)
{
    gbnf_grammar *g = p->g;
    uint32_t *map = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *map);
    if (!map)
        return out_of_memory(p), false;
    for (uint32_t r = 0; r < g->n_rules; r++)
        if (g->rules[r].body != NONE)
            map[g->rules[r].body] = 1;
    for (uint32_t i = g->n_nodes; i-- > 0;)
        for (uint32_t k = 0; map[i] && k < g->nodes[i].n_kids; k++)
            map[g->nodes[i].kids[k]] = 1;
    uint32_t j = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        gbnf_node *nd = &g->nodes[i];
        if (!map[i]) {
            free(nd->kids);
            free(nd->bytes);
            free(nd->ranges);
            continue;
        }
        for (uint32_t k = 0; k < nd->n_kids; k++)
            nd->kids[k] = map[nd->kids[k]];
        map[i] = j;
        g->nodes[j++] = *nd;
    }
    for (uint32_t r = 0; r < g->n_rules; r++)
        if (g->rules[r].body != NONE)
            g->rules[r].body = map[g->rules[r].body];
    g->n_nodes = j;
    free(map);
    return true;
}

static void check_defined(parser *p)
{
    for (uint32_t r = 0; r < p->g->n_rules; r++)
        if (!p->defined[r])
            error(p, (srcpos){p->g->rules[r].line, p->g->rules[r].col}, "undefined rule \"%s\"",
                  p->g->rules[r].name);
}

/* Marks the rules reachable from the start rule (explicit stack: every node
 * belongs to one parent or one rule body, so it is pushed at most once). */
static bool mark_reachable(parser *p, uint8_t *seen)
{
    gbnf_grammar *g = p->g;
    uint32_t *stack = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *stack);
    uint32_t top = 0;
    if (!stack)
        return out_of_memory(p), false;
    seen[g->root] = 1;
    stack[top++] = g->rules[g->root].body;
    while (top > 0) {
        const gbnf_node *nd = &g->nodes[stack[--top]];
        if (nd->kind == GBNF_REF && !seen[nd->rule]) {
            seen[nd->rule] = 1;
            stack[top++] = g->rules[nd->rule].body;
        }
        for (uint32_t k = 0; k < nd->n_kids; k++)
            stack[top++] = nd->kids[k];
    }
    free(stack);
    return true;
}

static void check_unused(parser *p, const char *root_name)
{
    gbnf_grammar *g = p->g;
    uint8_t *seen = calloc(g->n_rules, 1);
    if (!seen) {
        out_of_memory(p);
        return;
    }
    if (mark_reachable(p, seen))
        for (uint32_t r = 0; r < g->n_rules; r++)
            if (!seen[r])
                warning(p, (srcpos){g->rules[r].line, g->rules[r].col},
                        "unused rule \"%s\" (not reachable from \"%s\")", g->rules[r].name,
                        root_name);
    free(seen);
}

/* Undefined rules, the start rule, unused rules. */
static void check_rules(parser *p, const char *root_name)
{
    gbnf_grammar *g = p->g;
    uint32_t root = NONE;
    check_defined(p);
    for (uint32_t r = 0; r < g->n_rules && root == NONE; r++)
        if (strcmp(g->rules[r].name, root_name) == 0 && p->defined[r])
            root = r;
    if (root == NONE) {
        error(p, (srcpos){0, 0}, "no rule named \"%s\"", root_name);
        return;
    }
    g->root = root;
    if (p->n_errors == 0)
        check_unused(p, root_name);
}

/* ---- entry points ---------------------------------------------------------- */

void gcg_gbnf_free(gbnf_grammar *g)
{
    if (!g)
        return;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        free(g->nodes[i].kids);
        free(g->nodes[i].bytes);
        free(g->nodes[i].ranges);
    }
    for (uint32_t r = 0; r < g->n_rules; r++)
        free(g->rules[r].name);
    free(g->nodes);
    free(g->rules);
    memset(g, 0, sizeof *g);
}

static void parser_free(parser *p)
{
    free(p->level);
    free(p->defined);
    free(p->stk);
    free(p->buf);
    free(p->rbuf);
    free(p->htab);
}

gcg_status gcg_gbnf_parse(const char *src, size_t len, const char *root_name, gbnf_grammar *g,
                          gcg_diag *diag)
{
    if (!g || (!src && len))
        return GCG_ERR_ARG;
    memset(g, 0, sizeof *g);
    parser p = {.s = (const uint8_t *)src, .n = len, .at = {1, 1}, .g = g, .diag = diag};
    const char *root = root_name ? root_name : "root";
    if (validate_utf8(&p) && parse_grammar(&p) && compact(&p))
        check_rules(&p, root);
    parser_free(&p);
    if (p.n_errors == 0)
        return GCG_OK;
    gcg_gbnf_free(g);
    return p.nomem ? GCG_ERR_NOMEM : GCG_ERR_FORMAT;
}
