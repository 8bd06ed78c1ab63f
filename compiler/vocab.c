/*
 * vocab.c — what every vocabulary loader shares: the builder that lays out
 * token bytes in id order, EOS marking, the 256-byte vocabulary, freeing,
 * file reading and positioned error messages (contract in vocab.h and
 * vocab_internal.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

/* ====================================================================== */
/* Builder                                                                 */
/* ====================================================================== */

void gcg_vocab_builder_init(gcg_vocab_builder *b, uint32_t max_tokens)
{
    memset(b, 0, sizeof *b);
    b->max_tokens = (max_tokens && max_tokens <= GCG_VOCAB_MAX_TOKENS) ? max_tokens
                                                                        : GCG_VOCAB_MAX_TOKENS;
}

void gcg_vocab_builder_free(gcg_vocab_builder *b)
{
    free(b->start);
    free(b->len);
    free(b->flags);
    free(b->origin);
    free(b->bytes);
    memset(b, 0, sizeof *b);
}

uint8_t gcg_vocab_builder_origin(const gcg_vocab_builder *b, uint32_t id)
{
    return id < b->n_ids ? b->origin[id] : 0;
}

static bool grow(void **p, size_t n, size_t elem)
{
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    *p = q;
    return true;
}

/* Makes the per-id arrays hold `id`, doubling so that ids in ascending
 * order cost amortized O(1). */
static gcg_status builder_reserve_id(gcg_vocab_builder *b, uint32_t id)
{
    if (id < b->cap_ids)
        return GCG_OK;
    uint64_t cap = b->cap_ids ? 2 * (uint64_t)b->cap_ids : 1024;
    if (cap <= id)
        cap = (uint64_t)id + 1;
    if (cap > b->max_tokens)
        cap = b->max_tokens;
    if (!grow((void **)&b->start, cap, sizeof *b->start) ||
        !grow((void **)&b->len, cap, sizeof *b->len) ||
        !grow((void **)&b->flags, cap, sizeof *b->flags) ||
        !grow((void **)&b->origin, cap, sizeof *b->origin))
        return GCG_ERR_NOMEM;
    memset(b->origin + b->cap_ids, 0, cap - b->cap_ids);
    b->cap_ids = (uint32_t)cap;
    return GCG_OK;
}

static gcg_status builder_append(gcg_vocab_builder *b, const uint8_t *bytes, uint32_t len)
{
    if (len > UINT32_MAX - b->n_bytes)
        return GCG_ERR_LIMIT;
    uint64_t need = (uint64_t)b->n_bytes + len;
    if (need > b->cap_bytes) {
        uint64_t cap = b->cap_bytes ? 2 * (uint64_t)b->cap_bytes : 4096;
        if (cap < need)
            cap = need;
        if (cap > UINT32_MAX)
            cap = UINT32_MAX;
        if (!grow((void **)&b->bytes, cap, 1))
            return GCG_ERR_NOMEM;
        b->cap_bytes = (uint32_t)cap;
    }
    if (len)
        memcpy(b->bytes + b->n_bytes, bytes, len);
    b->n_bytes += len;
    return GCG_OK;
}

gcg_status gcg_vocab_builder_add(gcg_vocab_builder *b, uint32_t id, const uint8_t *bytes,
                                 uint32_t len, uint8_t flags, uint8_t origin)
{
    if (id >= b->max_tokens || origin == 0)
        return GCG_ERR_ARG;
    if (flags & GCG_TOKEN_SPECIAL)
        len = 0;
    uint32_t start = b->n_bytes;
    gcg_status st = builder_reserve_id(b, id);
    if (st == GCG_OK)
        st = builder_append(b, bytes, len);
    if (st != GCG_OK)
        return st;
    b->start[id] = start;
    b->len[id] = len;
    b->flags[id] = flags;
    b->origin[id] = origin;
    if (id >= b->n_ids)
        b->n_ids = id + 1;
    return GCG_OK;
}

/* Total text of the present tokens; replaced adds leave dead bytes in the
 * scratch buffer, so this is at most n_bytes. */
static uint32_t builder_text_size(const gcg_vocab_builder *b)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < b->n_ids; i++)
        if (b->origin[i])
            total += b->len[i];
    return (uint32_t)total;
}

gcg_status gcg_vocab_builder_finish(gcg_vocab_builder *b, gcg_vocab *v)
{
    memset(v, 0, sizeof *v);
    uint32_t n = b->n_ids, total = builder_text_size(b);
    v->offsets = malloc(((size_t)n + 1) * sizeof *v->offsets);
    v->bytes = malloc(total ? total : 1);
    v->flags = malloc(n ? n : 1);
    if (!v->offsets || !v->bytes || !v->flags) {
        gcg_vocab_free(v);
        gcg_vocab_builder_free(b);
        return GCG_ERR_NOMEM;
    }
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        v->offsets[i] = at;
        if (!b->origin[i]) {
            v->flags[i] = GCG_TOKEN_SPECIAL;
            continue;
        }
        v->flags[i] = b->flags[i];
        if (b->len[i]) /* b->bytes is NULL when every token is special */
            memcpy(v->bytes + at, b->bytes + b->start[i], b->len[i]);
        at += b->len[i];
    }
    v->offsets[n] = at;
    v->n_tokens = n;
    gcg_vocab_builder_free(b);
    return GCG_OK;
}

/* ====================================================================== */
/* EOS                                                                     */
/* ====================================================================== */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sorted, duplicate-free union of v->eos and ids[0..n) (ids sorted). */
static uint32_t *eos_union(const gcg_vocab *v, const uint32_t *ids, uint32_t n, uint32_t *n_out)
{
    uint32_t *u = malloc(((size_t)v->n_eos + n + 1) * sizeof *u);
    if (!u)
        return NULL;
    uint32_t i = 0, j = 0, k = 0;
    while (i < v->n_eos || j < n) {
        uint32_t x = (j == n || (i < v->n_eos && v->eos[i] < ids[j])) ? v->eos[i++] : ids[j++];
        if (k == 0 || u[k - 1] != x)
            u[k++] = x;
    }
    *n_out = k;
    return u;
}

/* Drops the bytes of tokens that became special, keeping the invariant
 * "special => no text"; one in-place pass over the text. */
static void strip_special_text(gcg_vocab *v)
{
    uint32_t at = 0;
    for (uint32_t i = 0; i < v->n_tokens; i++) {
        uint32_t lo = v->offsets[i], hi = v->offsets[i + 1];
        v->offsets[i] = at;
        if (v->flags[i] & GCG_TOKEN_SPECIAL)
            continue;
        memmove(v->bytes + at, v->bytes + lo, hi - lo);
        at += hi - lo;
    }
    v->offsets[v->n_tokens] = at;
}

void gcg_vocab_set_eos_source(gcg_vocab *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->eos_source, sizeof v->eos_source, fmt, ap);
    va_end(ap);
}

/* An EOS id with text is most often a typo or a wrong model (--eos 90 is
 * "{" in Llama-3): as EOS it can no longer be spelled, so say so, showing
 * the text with anything unprintable escaped. */
static void warn_eos_text(gcg_vocab *v, uint32_t id)
{
    char text[48];
    size_t n = 0;
    for (uint32_t k = v->offsets[id]; k < v->offsets[id + 1] && n + 5 < sizeof text; k++) {
        uint8_t c = v->bytes[k];
        n += (size_t)snprintf(text + n, sizeof text - n, c >= 0x20 && c < 0x7F && c != '"' && c != '\\' ? "%c" : "\\x%02X", c);
    }
    snprintf(v->eos_warning, sizeof v->eos_warning,
             "EOS id %u is an ordinary token with text \"%s\"; as EOS it no longer stands for "
             "that text",
             id, text);
}

gcg_status gcg_vocab_set_eos(gcg_vocab *v, const uint32_t *eos, uint32_t n_eos, gcg_diag *diag)
{
    if (!v || (n_eos && !eos))
        return GCG_ERR_ARG;
    if (n_eos == 0)
        return GCG_OK;
    for (uint32_t i = 0; i < n_eos; i++) {
        if (eos[i] >= v->n_tokens) {
            gcg_vocab_error(diag, NULL, 0, 0,
                            "EOS token id %u is out of range (the vocabulary has %u tokens)",
                            eos[i], v->n_tokens);
            return GCG_ERR_TOKEN_RANGE;
        }
    }
    uint32_t *ids = malloc((size_t)n_eos * sizeof *ids);
    if (!ids)
        return GCG_ERR_NOMEM;
    memcpy(ids, eos, (size_t)n_eos * sizeof *ids);
    qsort(ids, n_eos, sizeof *ids, cmp_u32);
    uint32_t n_all;
    uint32_t *all = eos_union(v, ids, n_eos, &n_all);
    if (!all) {
        free(ids);
        return GCG_ERR_NOMEM;
    }
    bool had_text = false;
    for (uint32_t i = 0; i < n_eos; i++) {
        if (v->offsets[ids[i]] != v->offsets[ids[i] + 1] && !had_text)
            warn_eos_text(v, ids[i]);
        had_text |= v->offsets[ids[i]] != v->offsets[ids[i] + 1];
        v->flags[ids[i]] |= GCG_TOKEN_EOS | GCG_TOKEN_SPECIAL;
    }
    free(ids);
    free(v->eos);
    v->eos = all;
    v->n_eos = n_all;
    if (had_text)
        strip_special_text(v);
    return GCG_OK;
}

/* ====================================================================== */
/* The single-byte vocabulary, freeing                                     */
/* ====================================================================== */

gcg_status gcg_vocab_bytes256(const uint32_t *eos, uint32_t n_eos, gcg_vocab *v)
{
    if (!v || (n_eos && !eos))
        return GCG_ERR_ARG;
    gcg_vocab_builder b;
    gcg_vocab_builder_init(&b, GCG_VOCAB_MAX_TOKENS);
    gcg_status st = GCG_OK;
    for (uint32_t i = 0; i < n_eos && st == GCG_OK; i++)
        if (eos[i] >= GCG_VOCAB_MAX_TOKENS)
            st = GCG_ERR_TOKEN_RANGE;
    for (uint32_t i = 0; i < 256 && st == GCG_OK; i++) {
        uint8_t byte = (uint8_t)i;
        st = gcg_vocab_builder_add(&b, i, &byte, 1, 0, 1);
    }
    /* EOS ids past 255 extend the vocabulary; the ids between are gaps. */
    for (uint32_t i = 0; i < n_eos && st == GCG_OK; i++)
        if (eos[i] >= 256)
            st = gcg_vocab_builder_add(&b, eos[i], NULL, 0, GCG_TOKEN_SPECIAL, 1);
    if (st != GCG_OK) {
        gcg_vocab_builder_free(&b);
        memset(v, 0, sizeof *v);
        return st;
    }
    st = gcg_vocab_builder_finish(&b, v);
    if (st == GCG_OK)
        st = gcg_vocab_set_eos(v, eos, n_eos, NULL);
    if (st != GCG_OK)
        gcg_vocab_free(v);
    else
        gcg_vocab_set_eos_source(v, n_eos ? "given (--eos)" : "none given");
    return st;
}

gcg_status gcg_vocab_set_names(gcg_vocab *v, const uint32_t *ids, const char *const *names, uint32_t n)
{
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += ids[i] < v->n_tokens ? strlen(names[i]) : 0;
    uint32_t *len = calloc((size_t)v->n_tokens + 1, sizeof *len);
    const char **by_id = calloc((size_t)v->n_tokens + 1, sizeof *by_id);
    char *blob = malloc(total + 1);
    if (!len || !by_id || !blob || total > UINT32_MAX) {
        free(len), free(by_id), free(blob);
        return GCG_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < n; i++)
        if (ids[i] < v->n_tokens)
            by_id[ids[i]] = names[i], len[ids[i]] = (uint32_t)strlen(names[i]);
    uint32_t at = 0;
    for (uint32_t t = 0; t < v->n_tokens; t++) { /* len becomes the offsets */
        uint32_t l = len[t];
        if (l)
            memcpy(blob + at, by_id[t], l);
        len[t] = at;
        at += l;
    }
    len[v->n_tokens] = at;
    free(by_id);
    free(v->name_offsets), free(v->names);
    v->name_offsets = len, v->names = blob;
    return GCG_OK;
}

void gcg_vocab_free(gcg_vocab *v)
{
    if (!v)
        return;
    free(v->name_offsets);
    free(v->names);
    free(v->offsets);
    free(v->bytes);
    free(v->flags);
    free(v->eos);
    memset(v, 0, sizeof *v);
}

/* ====================================================================== */
/* Files and errors                                                        */
/* ====================================================================== */

void gcg_vocab_error(gcg_diag *diag, const char *name, uint32_t line, uint32_t col,
                     const char *fmt, ...)
{
    if (!diag)
        return;
    char msg[448];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!name || (diag->file && strcmp(diag->file, name) == 0))
        gcg_diag_add(diag, GCG_SEV_ERROR, name ? line : 0, name ? col : 0, "%s", msg);
    else if (line)
        gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "%s:%u:%u: %s", name, line, col, msg);
    else
        gcg_diag_add(diag, GCG_SEV_ERROR, 0, 0, "%s: %s", name, msg);
}

/* Reads an open stream to the end; sizes are not trusted (pipes, races). */
static gcg_status read_stream(FILE *f, char **data, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        char *bigger = realloc(buf, cap * 2);
        if (!bigger) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = bigger;
        cap *= 2;
    }
    if (!buf)
        return GCG_ERR_NOMEM;
    if (ferror(f)) {
        free(buf);
        return GCG_ERR_IO;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return GCG_OK;
}

gcg_status gcg_vocab_read_file(const char *path, bool missing_ok, char **data, size_t *len,
                               gcg_diag *diag)
{
    *data = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (missing_ok && errno == ENOENT)
            return GCG_OK;
        gcg_vocab_error(diag, path, 0, 0, "cannot open: %s", strerror(errno));
        return GCG_ERR_IO;
    }
    gcg_status st = read_stream(f, data, len);
    int err = errno;
    fclose(f);
    if (st == GCG_ERR_IO)
        gcg_vocab_error(diag, path, 0, 0, "cannot read: %s", strerror(err));
    else if (st == GCG_ERR_NOMEM)
        gcg_vocab_error(diag, path, 0, 0, "out of memory reading the file");
    return st;
}
