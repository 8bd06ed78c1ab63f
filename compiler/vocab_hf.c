/*
 * vocab_hf.c — Hugging Face tokenizer.json (parsed with jansson) to token
 * bytes: what each token contributes to the text in the middle of a sequence.
 *
 *  - byte-level BPE (a ByteLevel pre-tokenizer or decoder, possibly inside a
 *    Sequence): model.vocab keys are spelled in GPT-2's byte alphabet, which
 *    maps each of the 256 bytes to a printable code point; decoding is total
 *    (a character outside the alphabet is an error, not dropped);
 *  - otherwise (SentencePiece style, BPE or Unigram): keys are UTF-8 text;
 *    the decoder's Replace rules (e.g. "▁" -> " ") and Metaspace apply, and
 *    with byte fallback "<0xNN>" is the single byte NN. Trimming at the
 *    start of a sequence (Metaspace, Strip after Fuse) is not applied;
 *  - added_tokens: special ones have no text, the others their content as
 *    UTF-8 (never byte-level encoded); they override model.vocab ids, and
 *    are read first so that a model.vocab key they override is never
 *    decoded (DeepSeek-V3 keeps its special tokens in model.vocab too,
 *    spelled outside the byte-level alphabet).
 *
 * The vocabulary has max id + 1 tokens; ids with no token are special. EOS:
 * the caller's ids, else generation_config.json's eos_token_id (an id or a
 * list, as inference engines read it), else tokenizer_config.json's
 * eos_token looked up among added tokens, then model.vocab keys (as
 * token_to_id does).
 * Every malformed input is an error naming the file and the JSON path.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

enum { ORIGIN_MODEL = 1, ORIGIN_ADDED = 2 };

#define HF_MAX_RULES 8     /* decoder Replace/Metaspace/Strip rules    */
#define HF_MAX_NESTING 16  /* Sequence inside Sequence inside ...      */
#define HF_PATH_MAX 320    /* JSON paths in messages                   */
#define HF_QUOTE_MAX 96    /* quoted keys in messages (then "...")     */
/* Past HF_QUOTE_MAX, quote() may still finish a 6-byte escape or a UTF-8
 * sequence (3 bytes), then adds "...", the closing quote and the NUL. */
#define HF_QUOTE_BUF (HF_QUOTE_MAX + 16)

/* One decoder rule applied to every token's text, in decoder order:
 * "replace `from` with `to`", or "strip up to `start` copies of `from` at
 * the front and `stop` at the back" (strings point into the JSON). */
typedef struct hf_rule {
    const char *from, *to;
    size_t from_len, to_len;
    bool strip;
    uint32_t start, stop;    /* strip only */
} hf_rule;

/* Everything one load needs; the JSON tree outlives it. */
typedef struct hf_ctx {
    const char *name;        /* tokenizer.json as named in messages */
    gcg_diag *diag;
    gcg_vocab_builder b;
    bool unigram;            /* model.vocab is [[piece, score], ...] */
    bool byte_level;
    bool byte_fallback;
    bool fused;              /* a Fuse decoder came: later ones see one text */
    hf_rule rule[HF_MAX_RULES];
    uint32_t n_rules;
    uint8_t *buf[2];         /* decode scratch, ping-pong for Replace rules */
    size_t cap;
} hf_ctx;

/* Why a model.vocab key could not be decoded. */
typedef enum hf_decode_err {
    DEC_OK,
    DEC_NOMEM,
    DEC_NOT_BYTE_LEVEL,      /* character outside GPT-2's byte alphabet */
    DEC_BAD_FALLBACK,        /* "<0x..>" that is not <0xNN>            */
    DEC_EMPTY
} hf_decode_err;

/* ====================================================================== */
/* Messages                                                                */
/* ====================================================================== */

#define hf_err(c, ...) gcg_vocab_error((c)->diag, (c)->name, 0, 0, __VA_ARGS__)

static const char *type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

/* Writes s[0..n) as a JSON string literal, cut at a UTF-8 boundary with
 * "..." when long, so that messages stay readable and bounded. */
static const char *quote(char out[HF_QUOTE_BUF], const char *s, size_t n)
{
    size_t k = 0;
    out[k++] = '"';
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (k >= HF_QUOTE_MAX && (ch & 0xC0) != 0x80) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
        if (ch == '"' || ch == '\\') {
            out[k++] = '\\';
            out[k++] = (char)ch;
        } else if (ch < 0x20 || ch == 0x7f) {
            k += (size_t)snprintf(out + k, 7, "\\u%04x", ch);
        } else {
            out[k++] = (char)ch;
        }
    }
    out[k++] = '"';
    out[k] = '\0';
    return out;
}

/* ====================================================================== */
/* Typed access                                                            */
/* ====================================================================== */

/* obj[key] if it has type `want` (JSON_TRUE stands for either boolean), or
 * absent/null when !required (then *out is NULL). Reports what is wrong. */
static bool member(hf_ctx *c, const json_t *obj, const char *key, const char *path,
                   json_type want, bool required, json_t **out)
{
    json_t *j = json_object_get(obj, key);
    *out = NULL;
    bool is_bool = want == JSON_TRUE && json_is_boolean(j);
    if (j && (json_typeof(j) == want || is_bool)) {
        *out = j;
        return true;
    }
    static const char *const want_name[] = {
        [JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array", [JSON_STRING] = "a string",
        [JSON_INTEGER] = "an integer", [JSON_REAL] = "a number", [JSON_TRUE] = "a boolean",
        [JSON_FALSE] = "a boolean", [JSON_NULL] = "null"};
    if (!j || json_is_null(j)) {
        if (!required)
            return true;
        hf_err(c, "%s%s%s: missing (expected %s)", path, *path ? "." : "", key, want_name[want]);
        return false;
    }
    hf_err(c, "%s%s%s: expected %s, found %s", path, *path ? "." : "", key, want_name[want],
           type_name(j));
    return false;
}

/* A token id: an integer in [0, max_tokens). `where` names the value. */
static bool token_id(hf_ctx *c, const json_t *j, const char *where, uint32_t *id)
{
    if (!json_is_integer(j)) {
        hf_err(c, "%s: expected an integer id, found %s", where, type_name(j));
        return false;
    }
    json_int_t x = json_integer_value(j);
    if (x < 0) {
        hf_err(c, "%s: id %lld is negative", where, (long long)x);
        return false;
    }
    if (x >= (json_int_t)c->b.max_tokens) {
        hf_err(c, "%s: id %lld is too large (limit %u)", where, (long long)x,
               c->b.max_tokens - 1);
        return false;
    }
    *id = (uint32_t)x;
    return true;
}

/* ====================================================================== */
/* Pre-tokenizer and decoder: which spelling the vocabulary keys use       */
/* ====================================================================== */

static bool add_rule(hf_ctx *c, const char *path, const hf_rule *r)
{
    if (c->n_rules == HF_MAX_RULES) {
        hf_err(c, "%s: too many Replace/Metaspace/Strip decoders (limit %d)", path, HF_MAX_RULES);
        return false;
    }
    if (r->from_len == 0) {
        hf_err(c, "%s: the pattern to %s is empty", path, r->strip ? "strip" : "replace");
        return false;
    }
    c->rule[c->n_rules++] = *r;
    return true;
}

/* Replace -> {"pattern": {"String": s}, "content": t} */
static bool decoder_replace(hf_ctx *c, const json_t *d, const char *path)
{
    json_t *pattern, *from, *to;
    char sub[HF_PATH_MAX];
    snprintf(sub, sizeof sub, "%s.pattern", path);
    if (!member(c, d, "pattern", path, JSON_OBJECT, true, &pattern) ||
        !member(c, d, "content", path, JSON_STRING, true, &to))
        return false;
    if (!json_object_get(pattern, "String")) {
        hf_err(c, "%s: unsupported pattern (only {\"String\": ...} is supported)", sub);
        return false;
    }
    if (!member(c, pattern, "String", sub, JSON_STRING, true, &from))
        return false;
    hf_rule r = {json_string_value(from), json_string_value(to), json_string_length(from),
                 json_string_length(to), false, 0, 0};
    return add_rule(c, path, &r);
}

/* Metaspace -> {"replacement": "▁", ...}: the replacement reads as a space. */
static bool decoder_metaspace(hf_ctx *c, const json_t *d, const char *path)
{
    json_t *from;
    if (!member(c, d, "replacement", path, JSON_STRING, true, &from))
        return false;
    hf_rule r = {json_string_value(from), " ", json_string_length(from), 1, false, 0, 0};
    return add_rule(c, path, &r);
}

/* A count in a decoder: a non-negative integer (huge ones act as "all"). */
static bool count_member(hf_ctx *c, const json_t *d, const char *key, const char *path,
                         uint32_t *out)
{
    json_t *j;
    if (!member(c, d, key, path, JSON_INTEGER, true, &j))
        return false;
    json_int_t x = json_integer_value(j);
    if (x < 0) {
        hf_err(c, "%s.%s: %lld is negative", path, key, (long long)x);
        return false;
    }
    *out = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
    return true;
}

/* Strip -> {"content": ch, "start": n, "stop": m}. After Fuse it trims the
 * start and end of the whole text (not applied: tokens are mid-sequence);
 * before, it trims every token. */
static bool decoder_strip(hf_ctx *c, const json_t *d, const char *path)
{
    json_t *content;
    hf_rule r = {NULL, NULL, 0, 0, true, 0, 0};
    if (!member(c, d, "content", path, JSON_STRING, true, &content) ||
        !count_member(c, d, "start", path, &r.start) || !count_member(c, d, "stop", path, &r.stop))
        return false;
    r.from = json_string_value(content);
    r.from_len = json_string_length(content);
    return c->fused || add_rule(c, path, &r);
}

static bool scan_decoder(hf_ctx *c, const json_t *d, const char *path, int depth);

static bool scan_list(hf_ctx *c, const json_t *node, const char *path, const char *key, int depth,
                      bool (*scan)(hf_ctx *, const json_t *, const char *, int))
{
    json_t *list, *item;
    size_t i;
    if (depth >= HF_MAX_NESTING) {
        hf_err(c, "%s: Sequence nested too deeply (limit %d)", path, HF_MAX_NESTING);
        return false;
    }
    if (!member(c, node, key, path, JSON_ARRAY, true, &list))
        return false;
    json_array_foreach(list, i, item) {
        char sub[HF_PATH_MAX];
        snprintf(sub, sizeof sub, "%s.%s[%zu]", path, key, i);
        if (!scan(c, item, sub, depth + 1))
            return false;
    }
    return true;
}

/* The node's "type" (objects only); NULL after reporting an error. */
static const char *node_type(hf_ctx *c, const json_t *node, const char *path)
{
    json_t *type;
    if (!json_is_object(node)) {
        hf_err(c, "%s: expected an object, found %s", path, type_name(node));
        return NULL;
    }
    return member(c, node, "type", path, JSON_STRING, true, &type) ? json_string_value(type)
                                                                  : NULL;
}

/* Only ByteLevel matters among pre-tokenizers: it fixes the key spelling. */
static bool scan_pre(hf_ctx *c, const json_t *p, const char *path, int depth)
{
    const char *type = node_type(c, p, path);
    if (!type)
        return false;
    if (strcmp(type, "ByteLevel") == 0)
        c->byte_level = true;
    else if (strcmp(type, "Sequence") == 0)
        return scan_list(c, p, path, "pretokenizers", depth, scan_pre);
    return true;
}

/* Decoders that change token text are understood; Fuse only joins tokens
 * (what follows it acts on the whole text); anything else would make the
 * bytes wrong, so it is refused. */
static bool scan_decoder(hf_ctx *c, const json_t *d, const char *path, int depth)
{
    const char *type = node_type(c, d, path);
    if (!type)
        return false;
    if (strcmp(type, "ByteLevel") == 0)
        c->byte_level = true;
    else if (strcmp(type, "ByteFallback") == 0)
        c->byte_fallback = true;
    else if (strcmp(type, "Sequence") == 0)
        return scan_list(c, d, path, "decoders", depth, scan_decoder);
    else if (strcmp(type, "Replace") == 0)
        return decoder_replace(c, d, path);
    else if (strcmp(type, "Metaspace") == 0)
        return decoder_metaspace(c, d, path);
    else if (strcmp(type, "Strip") == 0)
        return decoder_strip(c, d, path);
    else if (strcmp(type, "Fuse") == 0)
        c->fused = true;
    else {
        hf_err(c, "%s.type: unsupported decoder \"%s\"", path, type);
        return false;
    }
    return true;
}

/* model -> {"type": "BPE" | "Unigram", "vocab": ..., "byte_fallback": bool?} */
static bool scan_model(hf_ctx *c, const json_t *model)
{
    json_t *type, *fallback;
    if (!member(c, model, "type", "model", JSON_STRING, true, &type) ||
        !member(c, model, "byte_fallback", "model", JSON_TRUE, false, &fallback))
        return false;
    const char *t = json_string_value(type);
    if (strcmp(t, "Unigram") == 0) {
        c->unigram = true;
    } else if (strcmp(t, "BPE") != 0) {
        char q[HF_QUOTE_BUF];
        hf_err(c, "model.type: unsupported model %s (expected \"BPE\" or \"Unigram\")",
               quote(q, t, json_string_length(type)));
        return false;
    }
    if (json_is_true(fallback))
        c->byte_fallback = true;
    return true;
}

static bool scan_pipeline(hf_ctx *c, const json_t *root)
{
    json_t *model, *pre, *dec;
    if (!member(c, root, "model", "", JSON_OBJECT, true, &model) || !scan_model(c, model) ||
        !member(c, root, "pre_tokenizer", "", JSON_OBJECT, false, &pre) ||
        !member(c, root, "decoder", "", JSON_OBJECT, false, &dec))
        return false;
    return (!pre || scan_pre(c, pre, "pre_tokenizer", 0)) &&
           (!dec || scan_decoder(c, dec, "decoder", 0));
}

/* ====================================================================== */
/* Decoding one model.vocab key into c->buf[0]                             */
/* ====================================================================== */

/* GPT-2's bytes_to_unicode, inverted: bytes 0x21-0x7E, 0xA1-0xAC, 0xAE-0xFF
 * stand for themselves; the other 68 bytes, in ascending order, are
 * U+0100..U+0143. Returns -1 for any other code point. */
static int gpt2_byte(uint32_t cp)
{
    if ((cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF))
        return (int)cp;
    if (cp < 0x100 || cp >= 0x100 + 68)
        return -1;
    uint32_t n = cp - 0x100;
    return n < 33 ? (int)n : n < 67 ? (int)(0x7F + n - 33) : 0xAD;
}

/* One UTF-8 sequence at s (jansson has validated the text); its length, or
 * 0 if it is malformed anyway. */
static size_t utf8_next(const uint8_t *s, size_t n, uint32_t *cp)
{
    static const uint8_t min_len_of[] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4};
    size_t len = min_len_of[s[0] >> 4];
    if (len == 0 || len > n)
        return 0;
    uint32_t x = len == 1 ? s[0] : s[0] & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        x = x << 6 | (s[i] & 0x3F);
    }
    *cp = x;
    return len;
}

static bool reserve(hf_ctx *c, size_t n)
{
    if (n <= c->cap)
        return true;
    size_t cap = c->cap ? c->cap : 256;
    while (cap < n)
        cap *= 2;
    for (int i = 0; i < 2; i++) {
        uint8_t *p = realloc(c->buf[i], cap);
        if (!p)
            return false;
        c->buf[i] = p;
    }
    c->cap = cap;
    return true;
}

static hf_decode_err decode_byte_level(hf_ctx *c, const uint8_t *s, size_t n, uint32_t *len,
                                       uint32_t *bad_cp)
{
    uint32_t k = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp = 0xFFFD;
        size_t step = utf8_next(s + i, n - i, &cp);
        int byte = step ? gpt2_byte(cp) : -1;
        if (byte < 0) {
            *bad_cp = cp;
            return DEC_NOT_BYTE_LEVEL;
        }
        c->buf[0][k++] = (uint8_t)byte;
        i += step;
    }
    *len = k;
    return DEC_OK;
}

static int hex_value(unsigned char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch |= 0x20;
    return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* Applies one Replace rule to c->buf[0][0..n) through c->buf[1]. */
static bool apply_replace(hf_ctx *c, const hf_rule *r, uint32_t *n)
{
    size_t worst = r->to_len > r->from_len ? (*n / r->from_len + 1) * r->to_len + *n : *n;
    if (!reserve(c, worst + 1))
        return false;
    const uint8_t *in = c->buf[0];
    uint8_t *out = c->buf[1];
    size_t k = 0;
    for (size_t i = 0; i < *n;) {
        if (*n - i >= r->from_len && memcmp(in + i, r->from, r->from_len) == 0) {
            memcpy(out + k, r->to, r->to_len);
            k += r->to_len;
            i += r->from_len;
        } else {
            out[k++] = in[i++];
        }
    }
    c->buf[1] = c->buf[0];
    c->buf[0] = out;
    *n = (uint32_t)k;
    return k <= UINT32_MAX;
}

/* Applies one Strip rule to c->buf[0][0..n) in place. */
static void apply_strip(hf_ctx *c, const hf_rule *r, uint32_t *n)
{
    uint8_t *s = c->buf[0];
    size_t lo = 0, hi = *n, w = r->from_len;
    for (uint32_t i = 0; i < r->start && hi - lo >= w && memcmp(s + lo, r->from, w) == 0; i++)
        lo += w;
    for (uint32_t i = 0; i < r->stop && hi - lo >= w && memcmp(s + hi - w, r->from, w) == 0; i++)
        hi -= w;
    memmove(s, s + lo, hi - lo);
    *n = (uint32_t)(hi - lo);
}

/* SentencePiece-style text: "<0xNN>" (with byte fallback) or the key with
 * the decoder's per-token rules applied in order. */
static hf_decode_err decode_text(hf_ctx *c, const uint8_t *s, size_t n, uint32_t *len)
{
    if (c->byte_fallback && n >= 4 && memcmp(s, "<0x", 3) == 0 && s[n - 1] == '>') {
        int hi = n == 6 ? hex_value(s[3]) : -1, lo = n == 6 ? hex_value(s[4]) : -1;
        if (hi < 0 || lo < 0)
            return DEC_BAD_FALLBACK;
        c->buf[0][0] = (uint8_t)(hi << 4 | lo);
        *len = 1;
        return DEC_OK;
    }
    memcpy(c->buf[0], s, n);
    *len = (uint32_t)n;
    for (uint32_t i = 0; i < c->n_rules; i++) {
        if (c->rule[i].strip)
            apply_strip(c, &c->rule[i], len);
        else if (!apply_replace(c, &c->rule[i], len))
            return DEC_NOMEM;
    }
    return DEC_OK;
}

static hf_decode_err decode_key(hf_ctx *c, const char *key, size_t n, uint32_t *len,
                                uint32_t *bad_cp)
{
    if (n > UINT32_MAX / 2 || !reserve(c, n + 1))
        return DEC_NOMEM;
    hf_decode_err e = c->byte_level ? decode_byte_level(c, (const uint8_t *)key, n, len, bad_cp)
                                    : decode_text(c, (const uint8_t *)key, n, len);
    return e == DEC_OK && *len == 0 ? DEC_EMPTY : e;
}

/* ====================================================================== */
/* model.vocab and added_tokens                                            */
/* ====================================================================== */

static gcg_status report_decode(hf_ctx *c, const char *where, uint32_t id, hf_decode_err e,
                                uint32_t cp)
{
    switch (e) {
    case DEC_OK: return GCG_OK;
    case DEC_NOMEM: hf_err(c, "out of memory"); return GCG_ERR_NOMEM;
    case DEC_NOT_BYTE_LEVEL:
        hf_err(c, "%s: token %u: character U+%04X is not in the byte-level alphabet", where, id,
               cp);
        break;
    case DEC_BAD_FALLBACK:
        hf_err(c, "%s: token %u: bad byte-fallback token (expected <0xNN>, two hex digits)",
               where, id);
        break;
    case DEC_EMPTY: hf_err(c, "%s: token %u: empty token text", where, id); break;
    }
    return GCG_ERR_FORMAT;
}

static gcg_status add_text(hf_ctx *c, uint32_t id, const uint8_t *s, uint32_t n, uint8_t flags,
                           uint8_t origin)
{
    gcg_status st = gcg_vocab_builder_add(&c->b, id, s, n, flags, origin);
    if (st == GCG_ERR_LIMIT)
        hf_err(c, "vocabulary text exceeds 4 GiB");
    else if (st == GCG_ERR_NOMEM)
        hf_err(c, "out of memory");
    return st == GCG_ERR_LIMIT ? GCG_ERR_FORMAT : st;
}

/* A model.vocab entry as messages name it: model.vocab["key"] (BPE) or
 * model.vocab[i][0] (Unigram). Built only when there is an error. */
typedef struct hf_entry {
    const char *key;
    size_t len;
    size_t index;            /* Unigram: position in the array */
} hf_entry;

static const char *entry_where(const hf_ctx *c, const hf_entry *e, char where[HF_PATH_MAX])
{
    char q[HF_QUOTE_BUF];
    if (c->unigram)
        snprintf(where, HF_PATH_MAX, "model.vocab[%zu][0]", e->index);
    else
        snprintf(where, HF_PATH_MAX, "model.vocab[%s]", quote(q, e->key, e->len));
    return where;
}

/* token_id without messages, for the loop over every key. */
static bool id_ok(const hf_ctx *c, const json_t *j, uint32_t *id)
{
    json_int_t x = json_integer_value(j);
    *id = (uint32_t)x;
    return json_is_integer(j) && x >= 0 && x < (json_int_t)c->b.max_tokens;
}

/* One model.vocab entry with a valid id. */
static gcg_status model_token(hf_ctx *c, const hf_entry *e, uint32_t id)
{
    uint32_t len = 0, cp = 0;
    char where[HF_PATH_MAX];
    if (gcg_vocab_builder_origin(&c->b, id) == ORIGIN_ADDED)
        return GCG_OK; /* overridden: its key need not decode */
    if (gcg_vocab_builder_origin(&c->b, id)) {
        hf_err(c, "%s: id %u is already used by another token", entry_where(c, e, where), id);
        return GCG_ERR_FORMAT;
    }
    hf_decode_err err = decode_key(c, e->key, e->len, &len, &cp);
    if (err != DEC_OK)
        return report_decode(c, entry_where(c, e, where), id, err, cp);
    return add_text(c, id, c->buf[0], len, 0, ORIGIN_MODEL);
}

/* BPE: model.vocab -> {key: id, ...} */
static gcg_status model_vocab_bpe(hf_ctx *c, const json_t *vocab)
{
    const char *key;
    json_t *jid;
    json_object_foreach((json_t *)vocab, key, jid) {
        hf_entry e = {key, strlen(key), 0};
        uint32_t id;
        if (!id_ok(c, jid, &id)) {
            char where[HF_PATH_MAX];
            token_id(c, jid, entry_where(c, &e, where), &id);
            return GCG_ERR_FORMAT;
        }
        gcg_status st = model_token(c, &e, id);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

/* Unigram: model.vocab -> [[piece, score], ...]; the id is the index. */
static gcg_status model_vocab_unigram(hf_ctx *c, const json_t *vocab)
{
    size_t i;
    json_t *entry;
    json_array_foreach(vocab, i, entry) {
        json_t *piece = json_array_get(entry, 0), *score = json_array_get(entry, 1);
        if (!json_is_array(entry) || json_array_size(entry) != 2 || !json_is_string(piece) ||
            !json_is_number(score)) {
            hf_err(c, "model.vocab[%zu]: expected [piece, score] (a string and a number)", i);
            return GCG_ERR_FORMAT;
        }
        if (i >= c->b.max_tokens) {
            hf_err(c, "model.vocab[%zu]: too many tokens (limit %u)", i, c->b.max_tokens);
            return GCG_ERR_FORMAT;
        }
        hf_entry e = {json_string_value(piece), json_string_length(piece), i};
        gcg_status st = model_token(c, &e, (uint32_t)i);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

static gcg_status model_vocab(hf_ctx *c, const json_t *root)
{
    const json_t *model = json_object_get(root, "model");
    json_t *vocab;
    if (!member(c, model, "vocab", "model", c->unigram ? JSON_ARRAY : JSON_OBJECT, true, &vocab))
        return GCG_ERR_FORMAT;
    return c->unigram ? model_vocab_unigram(c, vocab) : model_vocab_bpe(c, vocab);
}

/* added_tokens[i] -> {"id": n, "content": s, "special": bool?, ...} */
static gcg_status added_token(hf_ctx *c, const json_t *t, size_t i)
{
    char path[HF_PATH_MAX], where[HF_PATH_MAX];
    snprintf(path, sizeof path, "added_tokens[%zu]", i);
    json_t *jid, *content, *special;
    uint32_t id;
    if (!json_is_object(t)) {
        hf_err(c, "%s: expected an object, found %s", path, type_name(t));
        return GCG_ERR_FORMAT;
    }
    if (!member(c, t, "id", path, JSON_INTEGER, true, &jid) ||
        !member(c, t, "content", path, JSON_STRING, true, &content) ||
        !member(c, t, "special", path, JSON_TRUE, false, &special))
        return GCG_ERR_FORMAT;
    snprintf(where, sizeof where, "added_tokens[%zu].id", i);
    if (!token_id(c, jid, where, &id))
        return GCG_ERR_FORMAT;
    if (gcg_vocab_builder_origin(&c->b, id) == ORIGIN_ADDED) {
        hf_err(c, "%s: id %u is already used by another added token", where, id);
        return GCG_ERR_FORMAT;
    }
    if (json_is_true(special))
        return add_text(c, id, NULL, 0, GCG_TOKEN_SPECIAL, ORIGIN_ADDED);
    if (json_string_length(content) == 0) {
        hf_err(c, "%s.content: empty text for a non-special token", path);
        return GCG_ERR_FORMAT;
    }
    if (json_string_length(content) > UINT32_MAX) {
        hf_err(c, "%s.content: longer than 4 GiB", path);
        return GCG_ERR_FORMAT;
    }
    return add_text(c, id, (const uint8_t *)json_string_value(content),
                    (uint32_t)json_string_length(content), 0, ORIGIN_ADDED);
}

static gcg_status added_tokens(hf_ctx *c, const json_t *root)
{
    json_t *list, *t;
    size_t i;
    if (!member(c, root, "added_tokens", "", JSON_ARRAY, false, &list))
        return GCG_ERR_FORMAT;
    json_array_foreach(list, i, t) {
        gcg_status st = added_token(c, t, i);
        if (st != GCG_OK)
            return st;
    }
    return GCG_OK;
}

/* ====================================================================== */
/* Skimming: model.merges left out of the parse                            */
/* ====================================================================== */

/*
 * A BPE tokenizer.json is mostly model.merges (280k strings for Llama-3),
 * which says nothing about token bytes, and jansson spends over half of the
 * load building it. So before parsing, the merges array is checked here,
 * more strictly than jansson would (arrays and strings only; no surrogate
 * or NUL escapes), and replaced by "[]" in a copy; a jansson error past it
 * has its line:col moved back to the original text (skim_unmap). The scan
 * up to merges only finds member boundaries; jansson still parses and
 * checks all of that text. Any doubt (a key spelled with escapes, an
 * unusual value, malformed text) means no skimming: the original text is
 * parsed as it is.
 */
typedef struct skim {
    const unsigned char *p, *end;
} skim;

/* Where "]" of the replacement "[]" is (new) and where the original "]"
 * was (old); text after it moves by the difference. */
typedef struct skim_map {
    bool active;
    uint32_t line_new, col_new, line_old, col_old;
} skim_map;

static void skim_ws(skim *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
        s->p++;
}

static bool skim_char(skim *s, unsigned char ch)
{
    skim_ws(s);
    if (s->p == s->end || *s->p != ch)
        return false;
    s->p++;
    return true;
}

/* A string's boundaries, escapes skipped unchecked (jansson checks them). */
static bool skim_string_lax(skim *s)
{
    if (s->p == s->end || *s->p != '"')
        return false;
    for (s->p++; s->p < s->end; s->p++) {
        if (*s->p == '\\')
            s->p++;
        else if (*s->p == '"')
            return s->p++, true;
    }
    return false;
}

/* A value's boundaries: strings and brackets balanced, scalars up to a
 * delimiter. Nesting is bounded to keep the scan iterative-safe. */
static bool skim_value_lax(skim *s)
{
    int depth = 0;
    skim_ws(s);
    do {
        if (s->p == s->end)
            return false;
        unsigned char ch = *s->p;
        if (ch == '"') {
            if (!skim_string_lax(s))
                return false;
        } else if (ch == '[' || ch == '{') {
            if (++depth > 4096)
                return false;
            s->p++;
        } else if (ch == ']' || ch == '}') {
            if (--depth < 0)
                return false;
            s->p++;
        } else if (depth == 0) {
            while (s->p < s->end && !strchr(",]} \t\r\n", *s->p))
                s->p++;
        } else {
            s->p++;
        }
    } while (depth > 0);
    return true;
}

/* Strict UTF-8 (RFC 3629: no overlongs, surrogates or code points past
 * U+10FFFF); the length of the sequence at p, 0 if invalid. */
static size_t skim_utf8(const unsigned char *p, const unsigned char *end)
{
    unsigned char b = p[0];
    size_t len = b < 0xC2 ? 0 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF5 ? 4 : 0;
    if (len == 0 || (size_t)(end - p) < len)
        return 0;
    unsigned char lo = b == 0xE0 ? 0xA0 : b == 0xF0 ? 0x90 : 0x80;
    unsigned char hi = b == 0xED ? 0x9F : b == 0xF4 ? 0x8F : 0xBF;
    if (p[1] < lo || p[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    return len;
}

/* \uXXXX other than U+0000 and surrogates (those need jansson's rules). */
static bool skim_escape_u(skim *s)
{
    uint32_t x = 0;
    if (s->end - s->p < 5)
        return false;
    for (int i = 1; i <= 4; i++) {
        int d = hex_value(s->p[i]);
        if (d < 0)
            return false;
        x = x << 4 | (uint32_t)d;
    }
    s->p += 5;
    return x != 0 && (x < 0xD800 || x > 0xDFFF);
}

/* A string, checked as strictly as jansson checks it, or more. */
static bool skim_string_strict(skim *s)
{
    if (!skim_char(s, '"'))
        return false;
    while (s->p < s->end) {
        unsigned char ch = *s->p;
        if (ch == '"')
            return s->p++, true;
        if (ch < 0x20)
            return false;
        if (ch == '\\') {
            if (++s->p == s->end)
                return false;
            if (*s->p == 'u') {
                if (!skim_escape_u(s))
                    return false;
            } else if (strchr("\"\\/bfnrt", *s->p) && *s->p) {
                s->p++;
            } else {
                return false;
            }
        } else if (ch < 0x80) {
            s->p++;
        } else {
            size_t len = skim_utf8(s->p, s->end);
            if (!len)
                return false;
            s->p += len;
        }
    }
    return false;
}

/* merges -> "[" [ item { "," item } ] "]";  item -> string | "[" [ string { "," string } ] "]" */
static bool skim_merges(skim *s, int depth)
{
    if (!skim_char(s, '['))
        return false;
    if (skim_char(s, ']'))
        return true;
    do {
        skim_ws(s);
        bool ok = s->p < s->end && *s->p == '[' && depth == 0 ? skim_merges(s, 1)
                                                              : skim_string_strict(s);
        if (!ok)
            return false;
    } while (skim_char(s, ','));
    return skim_char(s, ']');
}

/* Positions s at the value of the member `key` (raw spelling) of the
 * object at s; false if there is none or the text is not as expected. */
static bool skim_member(skim *s, const char *key)
{
    size_t n = strlen(key);
    if (!skim_char(s, '{'))
        return false;
    do {
        skim_ws(s);
        const unsigned char *k = s->p + 1;
        if (!skim_string_lax(s))
            return false;
        bool match = (size_t)(s->p - 1 - k) == n && memcmp(k, key, n) == 0;
        if (!skim_char(s, ':'))
            return false;
        if (match) {
            skim_ws(s);
            return true;
        }
        if (!skim_value_lax(s))
            return false;
    } while (skim_char(s, ','));
    return false;
}

/* jansson's position (line, column in characters) of the character at
 * p: 1 + newlines before it, and characters since the last newline. */
static void skim_position(const unsigned char *text, const unsigned char *p, uint32_t *line,
                          uint32_t *col)
{
    uint32_t l = 1, c = 1;
    const unsigned char *q = text, *nl;
    while ((nl = memchr(q, '\n', (size_t)(p - q))) != NULL) {
        l++;
        q = nl + 1;
    }
    for (; q < p; q++)
        c += (*q & 0xC0) != 0x80;
    *line = l;
    *col = c;
}

/* A copy of the text with model.merges's value replaced by "[]", or NULL
 * (parse the text as it is). *map moves positions after "[]" back to the
 * original text. */
static char *skim_copy(const gcg_vocab_text *in, size_t *len, skim_map *map)
{
    const unsigned char *text = (const unsigned char *)in->data;
    skim s = {text, text + in->len};
    if (!skim_member(&s, "model") || !skim_member(&s, "merges"))
        return NULL;
    const unsigned char *lo = s.p;
    if (!skim_merges(&s, 0))
        return NULL;
    const unsigned char *hi = s.p; /* just past "]" */
    char *out = malloc(in->len + 1);
    if (!out)
        return NULL;
    size_t k = (size_t)(lo - text);
    memcpy(out, text, k);
    memcpy(out + k, "[]", 2);
    memcpy(out + k + 2, hi, (size_t)(s.end - hi));
    *len = k + 2 + (size_t)(s.end - hi);
    skim_position(text, lo + 1, &map->line_new, &map->col_new);
    skim_position(text, hi - 1, &map->line_old, &map->col_old);
    map->active = true;
    return out;
}

/* The original position of line:col in the skimmed text. */
static void skim_unmap(const skim_map *map, uint32_t *line, uint32_t *col)
{
    if (!map || !map->active)
        return;
    if (*line > map->line_new) {
        *line += map->line_old - map->line_new;
    } else if (*line == map->line_new && *col >= map->col_new) {
        *col = *col - map->col_new + map->col_old;
        *line = map->line_old;
    }
}

/* ====================================================================== */
/* EOS from tokenizer_config.json                                          */
/* ====================================================================== */

/* token_to_id: added tokens first, then model.vocab keys. */
static bool lookup_token(const json_t *root, const char *s, size_t n, uint32_t *id)
{
    size_t i;
    json_t *t, *model = json_object_get(root, "model"), *vocab = json_object_get(model, "vocab");
    json_array_foreach(json_object_get(root, "added_tokens"), i, t) {
        json_t *content = json_object_get(t, "content");
        if (json_string_length(content) == n && memcmp(json_string_value(content), s, n) == 0) {
            *id = (uint32_t)json_integer_value(json_object_get(t, "id"));
            return true;
        }
    }
    if (json_is_object(vocab)) {
        json_t *jid = json_object_getn(vocab, s, n);
        *id = (uint32_t)json_integer_value(jid);
        return jid != NULL;
    }
    json_array_foreach(vocab, i, t) {
        json_t *piece = json_array_get(t, 0);
        if (json_string_length(piece) == n && memcmp(json_string_value(piece), s, n) == 0) {
            *id = (uint32_t)i;
            return true;
        }
    }
    return false;
}

/* Parses a whole file that must hold an object. `flags` add to
 * JSON_REJECT_DUPLICATES (a duplicate key would hide a token). */
static json_t *parse_json(const gcg_vocab_text *in, size_t flags, const skim_map *map,
                          gcg_diag *diag)
{
    json_error_t e;
    json_t *root = json_loadb(in->data, in->len, JSON_REJECT_DUPLICATES | flags, &e);
    if (!root) {
        uint32_t line = e.line > 0 ? (uint32_t)e.line : 1;
        uint32_t col = e.column > 0 ? (uint32_t)e.column : 1;
        skim_unmap(map, &line, &col);
        gcg_vocab_error(diag, in->name, line, col, "%s", e.text);
    } else if (!json_is_object(root)) {
        gcg_vocab_error(diag, in->name, 0, 0, "expected an object at the top level, found %s",
                        type_name(root));
        json_decref(root);
        root = NULL;
    }
    return root;
}

/* eos_token -> string | {"content": string, ...} | null; *found false when
 * the config names none. */
static gcg_status config_eos(const json_t *root, const gcg_vocab_text *config, uint32_t *id,
                             bool *found, gcg_diag *diag)
{
    *found = false;
    /* Configs hold integers like model_max_length = 1e30 that only matter
     * to others; reading them as reals keeps them from failing the parse. */
    json_t *cfg = parse_json(config, JSON_DECODE_INT_AS_REAL, NULL, diag);
    if (!cfg)
        return GCG_ERR_FORMAT;
    json_t *eos = json_object_get(cfg, "eos_token");
    json_t *name = json_is_object(eos) ? json_object_get(eos, "content") : eos;
    gcg_status st = GCG_OK;
    char q[HF_QUOTE_BUF];
    if (eos && !json_is_null(eos) && !json_is_string(name)) {
        gcg_vocab_error(diag, config->name, 0, 0,
                        "eos_token: expected a string or an object with a string \"content\"");
        st = GCG_ERR_FORMAT;
    } else if (json_is_string(name)) {
        const char *s = json_string_value(name);
        size_t n = json_string_length(name);
        *found = lookup_token(root, s, n, id);
        if (!*found) {
            gcg_vocab_error(diag, config->name, 0, 0, "eos_token %s names no token",
                            quote(q, s, n));
            st = GCG_ERR_FORMAT;
        }
    }
    json_decref(cfg);
    return st;
}

/* ====================================================================== */
/* Entry points                                                            */
/* ====================================================================== */

static gcg_status load_tokens(hf_ctx *c, const json_t *root)
{
    if (!scan_pipeline(c, root))
        return GCG_ERR_FORMAT;
    gcg_status st = added_tokens(c, root);
    if (st == GCG_OK)
        st = model_vocab(c, root);
    if (st == GCG_OK && c->b.n_ids == 0) {
        hf_err(c, "no tokens (model.vocab and added_tokens are empty)");
        st = GCG_ERR_FORMAT;
    }
    return st;
}

/* generation_config.json: eos_token_id -> id | [id, ...] | null. *n = 0
 * when it names none. */
#define HF_MAX_GEN_EOS 64
static gcg_status generation_eos(const gcg_vocab_text *gen, uint32_t ids[HF_MAX_GEN_EOS],
                                 uint32_t *n, gcg_diag *diag)
{
    *n = 0;
    json_t *cfg = parse_json(gen, JSON_DECODE_INT_AS_REAL, NULL, diag);
    if (!cfg)
        return GCG_ERR_FORMAT;
    json_t *e = json_object_get(cfg, "eos_token_id"), *x;
    gcg_status st = GCG_OK;
    size_t i;
    if (json_is_number(e)) {
        e = json_pack("[O]", e);
    } else {
        json_incref(e);
    }
    if (e && !json_is_null(e) && !json_is_array(e))
        st = GCG_ERR_FORMAT;
    json_array_foreach(e, i, x) {
        double d = json_number_value(x);
        if (!json_is_number(x) || d < 0 || d >= GCG_VOCAB_MAX_TOKENS || d != (double)(uint32_t)d ||
            i >= HF_MAX_GEN_EOS) {
            st = GCG_ERR_FORMAT;
            break;
        }
        ids[(*n)++] = (uint32_t)d;
    }
    if (st != GCG_OK)
        gcg_vocab_error(diag, gen->name, 0, 0,
                        "eos_token_id: expected a token id or a list of at most %d ids",
                        HF_MAX_GEN_EOS);
    json_decref(e);
    json_decref(cfg);
    return st;
}

/* The base name of a path, for eos_source. */
static const char *hf_base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "";
}

static gcg_status load_eos(const json_t *root, const gcg_vocab_text *config,
                           const gcg_vocab_opts *opt, gcg_vocab *v, gcg_diag *diag)
{
    if (opt && opt->n_eos) {
        gcg_vocab_set_eos_source(v, "given (--eos)");
        return gcg_vocab_set_eos(v, opt->eos, opt->n_eos, diag);
    }
    gcg_vocab_set_eos_source(v, "none found (no --eos, generation_config.json or "
                                "tokenizer_config.json eos_token)");
    uint32_t ids[HF_MAX_GEN_EOS], n = 0;
    if (opt && opt->generation) {
        gcg_status st = generation_eos(opt->generation, ids, &n, diag);
        if (st != GCG_OK || n > 0) {
            gcg_vocab_set_eos_source(v, "%s eos_token_id", hf_base(opt->generation->name));
            return st == GCG_OK ? gcg_vocab_set_eos(v, ids, n, diag) : st;
        }
    }
    if (!config)
        return GCG_OK;
    uint32_t id;
    bool found;
    gcg_status st = config_eos(root, config, &id, &found, diag);
    if (st == GCG_OK && found) {
        gcg_vocab_set_eos_source(v, "%s eos_token", hf_base(config->name));
        st = gcg_vocab_set_eos(v, &id, 1, diag);
    }
    return st;
}

/* The special added tokens' texts become their names (checked by
 * added_tokens already). */
static gcg_status special_names(const json_t *root, gcg_vocab *v)
{
    const json_t *list = json_object_get(root, "added_tokens"), *t;
    size_t n = json_array_size(list), i, k = 0;
    if (n == 0)
        return GCG_OK;
    uint32_t *ids = malloc(n * sizeof *ids);
    const char **names = malloc(n * sizeof *names);
    gcg_status st = ids && names ? GCG_OK : GCG_ERR_NOMEM;
    json_array_foreach(list, i, t) {
        if (st != GCG_OK || !json_is_true(json_object_get(t, "special")))
            continue;
        ids[k] = (uint32_t)json_integer_value(json_object_get(t, "id"));
        names[k++] = json_string_value(json_object_get(t, "content"));
    }
    if (st == GCG_OK && k)
        st = gcg_vocab_set_names(v, ids, names, (uint32_t)k);
    free(ids), free(names);
    return st;
}

gcg_status gcg_vocab_hf_from_memory(const gcg_vocab_text *json, const gcg_vocab_text *config,
                                    const gcg_vocab_opts *opt, gcg_vocab *v, gcg_diag *diag)
{
    memset(v, 0, sizeof *v);
    uint32_t errors_before = diag ? diag->n_errors : 0;
    gcg_vocab_text skimmed = *json;
    skim_map map = {0};
    char *copy = skim_copy(json, &skimmed.len, &map);
    skimmed.data = copy ? copy : json->data;
    json_t *root = parse_json(&skimmed, 0, &map, diag);
    free(copy);
    if (!root)
        return GCG_ERR_FORMAT;
    hf_ctx c = {.name = json->name, .diag = diag};
    gcg_vocab_builder_init(&c.b, opt ? opt->max_tokens : 0);
    gcg_status st = load_tokens(&c, root);
    free(c.buf[0]);
    free(c.buf[1]);
    if (st == GCG_OK)
        st = gcg_vocab_builder_finish(&c.b, v);
    else
        gcg_vocab_builder_free(&c.b);
    if (st == GCG_OK)
        st = special_names(root, v);
    if (st == GCG_OK)
        st = load_eos(root, config, opt, v, diag);
    if (st == GCG_ERR_NOMEM && diag && diag->n_errors == errors_before)
        hf_err(&c, "out of memory");
    if (st != GCG_OK)
        gcg_vocab_free(v);
    json_decref(root);
    return st;
}

/* The file `name` in the directory of `path`. */
static char *config_path(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char *p = malloc(dir + strlen(name) + 1);
    if (p) {
        memcpy(p, path, dir);
        memcpy(p + dir, name, strlen(name) + 1);
    }
    return p;
}

gcg_status gcg_vocab_load_hf(const char *path, const uint32_t *eos, uint32_t n_eos, gcg_vocab *v,
                             gcg_diag *diag)
{
    if (!path || !v || (n_eos && !eos))
        return GCG_ERR_ARG;
    memset(v, 0, sizeof *v);
    char *data = NULL, *cdata = NULL, *cpath = NULL, *gdata = NULL, *gpath = NULL;
    size_t len = 0, clen = 0, glen = 0;
    gcg_status st = gcg_vocab_read_file(path, false, &data, &len, diag);
    if (st == GCG_OK && n_eos == 0) {
        cpath = config_path(path, "tokenizer_config.json");
        gpath = config_path(path, "generation_config.json");
        st = cpath && gpath ? gcg_vocab_read_file(cpath, true, &cdata, &clen, diag) : GCG_ERR_NOMEM;
        if (st == GCG_OK)
            st = gcg_vocab_read_file(gpath, true, &gdata, &glen, diag);
    }
    if (st == GCG_OK) {
        gcg_vocab_text json = {path, data, len}, config = {cpath, cdata, clen};
        gcg_vocab_text gen = {gpath, gdata, glen};
        gcg_vocab_opts opt = {eos, n_eos, 0, gdata ? &gen : NULL};
        st = gcg_vocab_hf_from_memory(&json, cdata ? &config : NULL, &opt, v, diag);
    }
    free(data);
    free(cdata);
    free(cpath);
    free(gdata);
    free(gpath);
    return st;
}
