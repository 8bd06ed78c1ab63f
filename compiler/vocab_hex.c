/*
 * vocab_hex.c — the plain vocabulary format, for tests and hand-made
 * vocabularies:
 *
 *   file -> { line "\n" } [ line ]      (line i is token i; one final "\n" optional)
 *   line -> "-"                         (a special token with no text)
 *         | hexbyte { hexbyte }         (the token's bytes)
 *   hexbyte -> [0-9a-f] [0-9a-f]
 *
 * Anything else (empty lines, upper case, "\r", odd digit counts, an empty
 * file) is an error at file:line:col.
 */
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

/* The state of one parse: input, output, and the scratch for one line. */
typedef struct hex_ctx {
    const gcg_vocab_text *in;
    gcg_diag *diag;
    gcg_vocab_builder b;
    uint8_t *scratch;       /* decoded bytes of the current line */
} hex_ctx;

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static uint32_t clamp_col(size_t col)
{
    return col > UINT32_MAX ? UINT32_MAX : (uint32_t)col;
}

static void hex_bad_char(hex_ctx *c, uint32_t line, size_t col, unsigned char ch)
{
    if (ch >= 0x20 && ch < 0x7f)
        gcg_vocab_error(c->diag, c->in->name, line, clamp_col(col),
                        "expected a lowercase hex digit, found '%c'", ch);
    else
        gcg_vocab_error(c->diag, c->in->name, line, clamp_col(col),
                        "expected a lowercase hex digit, found byte 0x%02x", ch);
}

/* line -> "-" | hexbyte { hexbyte }; `s` has `n` bytes, no "\n". */
static gcg_status hex_line(hex_ctx *c, uint32_t id, uint32_t line, const char *s, size_t n)
{
    const char *name = c->in->name;
    if (n == 0) {
        gcg_vocab_error(c->diag, name, line, 1,
                        "empty line (expected lowercase hex bytes or \"-\")");
        return GCG_ERR_FORMAT;
    }
    if (s[0] == '-') {
        if (n == 1)
            return gcg_vocab_builder_add(&c->b, id, NULL, 0, GCG_TOKEN_SPECIAL, 1);
        gcg_vocab_error(c->diag, name, line, 2, "expected end of line after \"-\"");
        return GCG_ERR_FORMAT;
    }
    for (size_t i = 0; i < n; i++) {
        int d = hex_digit((unsigned char)s[i]);
        if (d < 0) {
            hex_bad_char(c, line, i + 1, (unsigned char)s[i]);
            return GCG_ERR_FORMAT;
        }
        if (i % 2)
            c->scratch[i / 2] = (uint8_t)(c->scratch[i / 2] << 4 | d);
        else
            c->scratch[i / 2] = (uint8_t)d;
    }
    if (n % 2) {
        gcg_vocab_error(c->diag, name, line, clamp_col(n),
                        "odd number of hex digits (a byte is two digits)");
        return GCG_ERR_FORMAT;
    }
    if (n / 2 > UINT32_MAX)
        return GCG_ERR_LIMIT;
    return gcg_vocab_builder_add(&c->b, id, c->scratch, (uint32_t)(n / 2), 0, 1);
}

/* file -> { line "\n" } [ line ] */
static gcg_status hex_file(hex_ctx *c)
{
    const char *p = c->in->data, *end = p + c->in->len;
    if (p == end) {
        gcg_vocab_error(c->diag, c->in->name, 1, 1, "empty file (expected one line per token)");
        return GCG_ERR_FORMAT;
    }
    for (uint32_t id = 0; p < end; id++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end;
        if (id >= c->b.max_tokens) {
            gcg_vocab_error(c->diag, c->in->name, id + 1, 1, "too many tokens (limit %u)",
                            c->b.max_tokens);
            return GCG_ERR_FORMAT;
        }
        gcg_status st = hex_line(c, id, id + 1, p, (size_t)(eol - p));
        if (st == GCG_ERR_LIMIT)
            gcg_vocab_error(c->diag, c->in->name, id + 1, 1, "vocabulary text exceeds 4 GiB");
        if (st != GCG_OK)
            return st == GCG_ERR_LIMIT ? GCG_ERR_FORMAT : st;
        p = nl ? nl + 1 : end;
    }
    return GCG_OK;
}

gcg_status gcg_vocab_hex_from_memory(const gcg_vocab_text *text, const gcg_vocab_opts *opt,
                                     gcg_vocab *v, gcg_diag *diag)
{
    memset(v, 0, sizeof *v);
    hex_ctx c = {.in = text, .diag = diag};
    gcg_vocab_builder_init(&c.b, opt ? opt->max_tokens : 0);
    c.scratch = malloc(text->len / 2 + 1);
    if (!c.scratch) {
        gcg_vocab_error(diag, text->name, 0, 0, "out of memory");
        return GCG_ERR_NOMEM;
    }
    gcg_status st = hex_file(&c);
    free(c.scratch);
    if (st != GCG_OK) {
        if (st == GCG_ERR_NOMEM)
            gcg_vocab_error(diag, text->name, 0, 0, "out of memory");
        gcg_vocab_builder_free(&c.b);
        return st;
    }
    st = gcg_vocab_builder_finish(&c.b, v);
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

gcg_status gcg_vocab_load_hex(const char *path, const uint32_t *eos, uint32_t n_eos, gcg_vocab *v,
                              gcg_diag *diag)
{
    if (!path || !v)
        return GCG_ERR_ARG;
    memset(v, 0, sizeof *v);
    char *data;
    size_t len;
    gcg_status st = gcg_vocab_read_file(path, false, &data, &len, diag);
    if (st != GCG_OK)
        return st;
    gcg_vocab_text text = {path, data, len};
    gcg_vocab_opts opt = {eos, n_eos, 0, NULL};
    st = gcg_vocab_hex_from_memory(&text, &opt, v, diag);
    free(data);
    return st;
}
