/*
 * vocab_tiktoken.c — tiktoken rank files (.tiktoken: o200k_base,
 * cl100k_base): one token a line, "BASE64 RANK", the base64 (RFC 4648,
 * padded) of the token's bytes and its rank, which is its id. tiktoken's
 * special tokens (<|endoftext|>) are not in the file: EOS ids at or past the
 * last rank extend the vocabulary as special tokens, gaps between become
 * special tokens with no text.
 *
 * The rank modules the npm package js-tiktoken ships (ranks/o200k_base.js:
 * `export default {"pat_str": ..., "special_tokens": {NAME: ID},
 * "bpe_ranks": "..."}`, or `module.exports = {...}` in .cjs) are read too:
 * each line of bpe_ranks is a marker, the rank of its first token, then the
 * tokens in rank order, all in base64; special_tokens become special tokens.
 *
 * Every malformed line is an error at file:line:col (in the module form,
 * "file: bpe_ranks:line:col", the line of that string); a rank used twice is
 * an error naming the line that first used it.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

enum { ORIGIN_FILE = 1, ORIGIN_EOS = 2 };

typedef struct tt_ctx {
    const gcg_vocab_text *in;
    gcg_diag *diag;
    gcg_vocab_builder b;
    uint32_t *first_line;   /* per rank: the line that set it (for duplicates) */
    uint32_t cap_lines;     /* allocated length of first_line                  */
    uint8_t *scratch;       /* decoded bytes of one line */
} tt_ctx;

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes s[0..n) (padded base64, starting at column col0 + 1 of its line)
 * into c->scratch; returns the byte count, or -1 after an error at the
 * offending column. */
static long b64_decode(tt_ctx *c, uint32_t line, size_t col0, const char *s, size_t n)
{
    if (n == 0 || n % 4 != 0) {
        gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)col0 + 1,
                        "token bytes: base64 length %zu is not a positive multiple of 4", n);
        return -1;
    }
    size_t out = 0;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t acc = 0;
        int pad = 0;
        for (size_t k = 0; k < 4; k++) {
            unsigned char ch = (unsigned char)s[i + k];
            int d = b64_value(ch);
            bool pad_ok = ch == '=' && i + 4 == n && k >= 2 && (k == 3 || s[i + 3] == '=');
            if (d < 0 && !pad_ok) {
                gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)(col0 + i + k + 1),
                                "token bytes: invalid base64 character 0x%02X", ch);
                return -1;
            }
            pad += d < 0;
            acc = (acc << 6) | (uint32_t)(d < 0 ? 0 : d);
        }
        c->scratch[out++] = (uint8_t)(acc >> 16);
        if (pad < 2)
            c->scratch[out++] = (uint8_t)(acc >> 8);
        if (pad < 1)
            c->scratch[out++] = (uint8_t)acc;
    }
    return (long)out;
}

/* rank -> [0-9]+ (no sign, no leading "+", below the token limit) */
static bool parse_rank(tt_ctx *c, uint32_t line, size_t col, const char *s, size_t n,
                       uint32_t *rank)
{
    uint64_t v = 0;
    size_t i = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && v < c->b.max_tokens)
        v = v * 10 + (uint64_t)(s[i++] - '0');
    if (i == 0 || i < n) {
        if (i < n && s[i] >= '0' && s[i] <= '9')
            gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)col,
                            "rank too large (limit %u)", c->b.max_tokens - 1);
        else
            gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)(col + i),
                            "expected a rank (decimal digits) after the token");
        return false;
    }
    if (v >= c->b.max_tokens) {
        gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)col, "rank %llu too large (limit %u)",
                        (unsigned long long)v, c->b.max_tokens - 1);
        return false;
    }
    *rank = (uint32_t)v;
    return true;
}

/* line -> base64 " " rank */
static gcg_status tt_line(tt_ctx *c, uint32_t line, const char *s, size_t n)
{
    const char *sp = memchr(s, ' ', n);
    if (!sp) {
        gcg_vocab_error(c->diag, c->in->name, line, 1,
                        "expected \"BASE64 RANK\" (token bytes, a space, its rank)");
        return GCG_ERR_FORMAT;
    }
    size_t klen = (size_t)(sp - s);
    long len = b64_decode(c, line, 0, s, klen);
    uint32_t rank;
    if (len < 0 || !parse_rank(c, line, klen + 2, sp + 1, n - klen - 1, &rank))
        return GCG_ERR_FORMAT;
    if (gcg_vocab_builder_origin(&c->b, rank)) {
        gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)klen + 2,
                        "rank %u already used on line %u", rank, c->first_line[rank]);
        return GCG_ERR_FORMAT;
    }
    gcg_status st = gcg_vocab_builder_add(&c->b, rank, c->scratch, (uint32_t)len, 0, ORIGIN_FILE);
    if (st == GCG_OK && c->cap_lines < c->b.cap_ids) {
        uint32_t *fl = realloc(c->first_line, (size_t)c->b.cap_ids * sizeof *fl);
        if (!fl)
            return GCG_ERR_NOMEM;
        c->first_line = fl;
        c->cap_lines = c->b.cap_ids;
    }
    if (st == GCG_OK)
        c->first_line[rank] = line;
    return st == GCG_ERR_LIMIT ? GCG_ERR_FORMAT : st;
}

/* Adds the tokens b64[0..n) (space-separated) from rank `first` on. */
static gcg_status tt_run(tt_ctx *c, uint32_t line, size_t col, uint32_t first, const char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t k = i;
        while (k < n && s[k] != ' ')
            k++;
        long len = b64_decode(c, line, col - 1 + i, s + i, k - i);
        if (len < 0)
            return GCG_ERR_FORMAT;
        if (first >= c->b.max_tokens || gcg_vocab_builder_origin(&c->b, first)) {
            gcg_vocab_error(c->diag, c->in->name, line, (uint32_t)(col + i),
                            first >= c->b.max_tokens ? "rank too large (limit %u)" : "rank %u already used",
                            first >= c->b.max_tokens ? c->b.max_tokens - 1 : first);
            return GCG_ERR_FORMAT;
        }
        gcg_status st = gcg_vocab_builder_add(&c->b, first++, c->scratch, (uint32_t)len, 0, ORIGIN_FILE);
        if (st != GCG_OK)
            return st == GCG_ERR_LIMIT ? GCG_ERR_FORMAT : st;
        i = k + (k < n);
    }
    return GCG_OK;
}

/* bpe_ranks line -> marker " " first-rank " " base64 { " " base64 } */
static gcg_status tt_module_line(tt_ctx *c, uint32_t line, const char *s, size_t n)
{
    const char *sp = memchr(s, ' ', n);
    const char *sp2 = sp ? memchr(sp + 1, ' ', n - (size_t)(sp + 1 - s)) : NULL;
    if (!sp2) {
        gcg_vocab_error(c->diag, c->in->name, line, 1, "expected \"MARKER RANK BASE64...\"");
        return GCG_ERR_FORMAT;
    }
    size_t col = (size_t)(sp + 1 - s) + 1;
    uint32_t first;
    if (!parse_rank(c, line, col, sp + 1, (size_t)(sp2 - sp - 1), &first))
        return GCG_ERR_FORMAT;
    size_t at = (size_t)(sp2 + 1 - s);
    return tt_run(c, line, at + 1, first, sp2 + 1, n - at);
}

/* The module's special tokens: names of special tokens with no text. */
static gcg_status tt_specials(tt_ctx *c, json_t *specials)
{
    const char *name;
    json_t *id;
    json_object_foreach(specials, name, id) {
        json_int_t x = json_is_integer(id) ? json_integer_value(id) : -1;
        if (x < 0 || x >= (json_int_t)c->b.max_tokens || gcg_vocab_builder_origin(&c->b, (uint32_t)x)) {
            gcg_vocab_error(c->diag, c->in->name, 0, 0, "special_tokens: \"%s\": %s", name,
                            x < 0 ? "not a token id" : "id past the limit or already used");
            return GCG_ERR_FORMAT;
        }
        gcg_status st = gcg_vocab_builder_add(&c->b, (uint32_t)x, NULL, 0, GCG_TOKEN_SPECIAL, ORIGIN_FILE);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

/* The js-tiktoken module form: the object literal between the first "{" and
 * the last "}" is JSON. */
static gcg_status tt_module(tt_ctx *c, const char *open)
{
    const char *close = c->in->data + c->in->len;
    while (close > open && close[-1] != '}')
        close--;
    json_error_t je;
    json_t *root = close > open ? json_loadb(open, (size_t)(close - open), 0, &je) : NULL;
    if (!root) {
        gcg_vocab_error(c->diag, c->in->name, 0, 0, "rank module: %s", close > open ? je.text : "no object");
        return GCG_ERR_FORMAT;
    }
    json_t *ranks = json_object_get(root, "bpe_ranks"), *specials = json_object_get(root, "special_tokens");
    gcg_status st = GCG_OK;
    if (!json_is_string(ranks) || (specials && !json_is_object(specials))) {
        gcg_vocab_error(c->diag, c->in->name, 0, 0,
                        "rank module: expected a string \"bpe_ranks\" and an object \"special_tokens\"");
        st = GCG_ERR_FORMAT;
    }
    /* Errors inside the string are placed at bpe_ranks:line:col. */
    gcg_vocab_text inner = {"bpe_ranks", st == GCG_OK ? json_string_value(ranks) : "",
                            st == GCG_OK ? json_string_length(ranks) : 0};
    const gcg_vocab_text *outer = c->in;
    c->in = &inner;
    const char *p = inner.data, *end = p + inner.len;
    for (uint32_t line = 1; st == GCG_OK && p < end; line++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        st = n ? tt_module_line(c, line, p, n) : GCG_OK;
        p = nl ? nl + 1 : end;
    }
    c->in = outer;
    if (st == GCG_OK && specials)
        st = tt_specials(c, specials);
    json_decref(root);
    return st;
}

static gcg_status tt_file(tt_ctx *c)
{
    const char *js = c->in->data;
    while (js < c->in->data + c->in->len && (*js == ' ' || *js == '\n' || *js == '\r' || *js == '\t'))
        js++;
    size_t rest = (size_t)(c->in->data + c->in->len - js);
    bool module = (rest >= 14 && memcmp(js, "export default", 14) == 0) ||
                  (rest >= 14 && memcmp(js, "module.exports", 14) == 0) || (rest && *js == '{');
    if (module) {
        gcg_status st = tt_module(c, memchr(js, '{', rest) ? memchr(js, '{', rest) : js + rest);
        if (st == GCG_OK && c->b.n_ids == 0) {
            gcg_vocab_error(c->diag, c->in->name, 0, 0, "no tokens");
            st = GCG_ERR_FORMAT;
        }
        return st;
    }
    const char *p = c->in->data, *end = p + c->in->len;
    uint32_t line = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        line++;
        if (n && p[n - 1] == '\r')
            n--;
        gcg_status st = n ? tt_line(c, line, p, n) : GCG_OK; /* blank lines are skipped */
        if (st != GCG_OK)
            return st;
        p = nl ? nl + 1 : end;
    }
    if (c->b.n_ids == 0) {
        gcg_vocab_error(c->diag, c->in->name, 0, 0, "no tokens");
        return GCG_ERR_FORMAT;
    }
    return GCG_OK;
}

/* EOS ids past the file's ranks become special tokens of their own. */
static gcg_status add_eos_tokens(tt_ctx *c, const gcg_vocab_opts *opt)
{
    for (uint32_t i = 0; opt && i < opt->n_eos; i++) {
        uint32_t id = opt->eos[i];
        if (id >= c->b.max_tokens) {
            gcg_vocab_error(c->diag, NULL, 0, 0, "EOS token id %u is out of range (limit %u)", id,
                            c->b.max_tokens - 1);
            return GCG_ERR_TOKEN_RANGE;
        }
        if (!gcg_vocab_builder_origin(&c->b, id)) {
            gcg_status st = gcg_vocab_builder_add(&c->b, id, NULL, 0, GCG_TOKEN_SPECIAL, ORIGIN_EOS);
            if (st != GCG_OK)
                return st;
        }
    }
    return GCG_OK;
}

gcg_status gcg_vocab_tiktoken_from_memory(const gcg_vocab_text *text, const gcg_vocab_opts *opt,
                                          gcg_vocab *v, gcg_diag *diag)
{
    memset(v, 0, sizeof *v);
    tt_ctx c = {.in = text, .diag = diag};
    gcg_vocab_builder_init(&c.b, opt ? opt->max_tokens : 0);
    c.scratch = malloc(text->len * 3 / 4 + 4);
    gcg_status st = c.scratch ? tt_file(&c) : GCG_ERR_NOMEM;
    if (st == GCG_OK)
        st = add_eos_tokens(&c, opt);
    free(c.scratch);
    free(c.first_line);
    if (st == GCG_OK)
        st = gcg_vocab_builder_finish(&c.b, v);
    else
        gcg_vocab_builder_free(&c.b);
    if (st == GCG_OK && opt)
        st = gcg_vocab_set_eos(v, opt->eos, opt->n_eos, diag);
    if (st == GCG_OK)
        gcg_vocab_set_eos_source(v, opt && opt->n_eos ? "given (--eos)" : "none given");
    if (st == GCG_ERR_NOMEM)
        gcg_vocab_error(diag, text->name, 0, 0, "out of memory");
    if (st != GCG_OK)
        gcg_vocab_free(v);
    return st;
}

gcg_status gcg_vocab_load_tiktoken(const char *path, const uint32_t *eos, uint32_t n_eos,
                                   gcg_vocab *v, gcg_diag *diag)
{
    if (!path || !v || (n_eos && !eos))
        return GCG_ERR_ARG;
    memset(v, 0, sizeof *v);
    char *data;
    size_t len;
    gcg_status st = gcg_vocab_read_file(path, false, &data, &len, diag);
    if (st != GCG_OK)
        return st;
    gcg_vocab_text text = {path, data, len};
    gcg_vocab_opts opt = {eos, n_eos, 0, NULL};
    st = gcg_vocab_tiktoken_from_memory(&text, &opt, v, diag);
    free(data);
    return st;
}
