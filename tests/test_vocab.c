/*
 * test_vocab.c — vocabulary loaders: tokenizer.json (byte-level BPE,
 * SentencePiece-style BPE and Unigram, added tokens, gaps, EOS from
 * tokenizer_config.json or the caller), the hex list, the 256-byte
 * vocabulary and EOS marking; every error path with its exact message and
 * position.
 *
 * Fixtures: tests/data/vocab/{bytelevel,spm,unigram}/ (files, read through
 * the path API) and JSON texts inline (through the from-memory API, named
 * "t.json"; its config "c.json").
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

#define DATA GCG_SOURCE_ROOT "/tests/data/vocab/"

/* ---- helpers ----------------------------------------------------------- */

static void assert_token(const gcg_vocab *v, uint32_t id, const char *bytes, uint32_t len,
                         unsigned flags)
{
    ck_assert_uint_lt(id, v->n_tokens);
    ck_assert_msg(v->flags[id] == flags, "token %u: flags %u, expected %u", id, v->flags[id],
                  flags);
    ck_assert_msg(v->offsets[id + 1] - v->offsets[id] == len, "token %u: length %u, expected %u",
                  id, v->offsets[id + 1] - v->offsets[id], len);
    if (len)
        ck_assert_mem_eq(v->bytes + v->offsets[id], bytes, len);
}

#define TOKEN(v, id, lit, flags) assert_token(v, id, lit, (uint32_t)sizeof(lit) - 1, flags)
#define SPECIAL(v, id) assert_token(v, id, "", 0, GCG_TOKEN_SPECIAL)
#define EOS (GCG_TOKEN_EOS | GCG_TOKEN_SPECIAL)

static void assert_eos(const gcg_vocab *v, const uint32_t *ids, uint32_t n)
{
    ck_assert_uint_eq(v->n_eos, n);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert_uint_eq(v->eos[i], ids[i]);
        ck_assert_uint_eq(v->flags[ids[i]], EOS);
    }
}

/* The diag holds exactly one error, with this position and message. */
static void assert_error(const gcg_diag *d, uint32_t line, uint32_t col, const char *msg)
{
    ck_assert_uint_eq(d->n_errors, 1);
    ck_assert_uint_eq(d->n, 1);
    ck_assert_str_eq(d->v[0].msg, msg);
    ck_assert_uint_eq(d->v[0].line, line);
    ck_assert_uint_eq(d->v[0].col, col);
}

static void assert_zeroed(const gcg_vocab *v)
{
    ck_assert_uint_eq(v->n_tokens, 0);
    ck_assert_ptr_null(v->offsets);
    ck_assert_ptr_null(v->bytes);
    ck_assert_ptr_null(v->flags);
    ck_assert_ptr_null(v->eos);
    ck_assert_uint_eq(v->n_eos, 0);
}

/* Loads `json` as "t.json" (with "c.json" = config unless NULL); the diag
 * names "t.json", so positions in it go into the entries. */
static gcg_status hf_mem(const char *json, const char *config, const uint32_t *eos, uint32_t n_eos,
                         gcg_vocab *v, gcg_diag *d)
{
    gcg_diag_init(d, "t.json");
    gcg_vocab_text j = {"t.json", json, strlen(json)};
    gcg_vocab_text c = {"c.json", config, config ? strlen(config) : 0};
    gcg_vocab_opts o = {eos, n_eos, 0, NULL};
    return gcg_vocab_hf_from_memory(&j, config ? &c : NULL, &o, v, d);
}

static gcg_status hex_mem(const char *text, size_t len, uint32_t max_tokens, gcg_vocab *v,
                          gcg_diag *d)
{
    gcg_diag_init(d, "t.hex");
    gcg_vocab_text t = {"t.hex", text, len};
    gcg_vocab_opts o = {NULL, 0, max_tokens, NULL};
    return gcg_vocab_hex_from_memory(&t, &o, v, d);
}

/* ---- tokenizer.json fixtures -------------------------------------------- */

START_TEST(test_bytelevel_fixture)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "bytelevel/tokenizer.json", NULL, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(v.n_tokens, 14);
    TOKEN(&v, 0, "!", 0);
    TOKEN(&v, 1, " ", 0);
    TOKEN(&v, 2, " hello", 0);
    TOKEN(&v, 3, "\xe2\x80", 0);     /* "âĢ": a UTF-8 sequence cut short */
    TOKEN(&v, 4, "\xe2", 0);         /* "â": one lead byte              */
    TOKEN(&v, 5, "\n", 0);
    TOKEN(&v, 6, "\0", 0);
    TOKEN(&v, 7, "\xa0\xad\x7f", 0); /* the last three remapped bytes    */
    TOKEN(&v, 8, "\xc3\xa9", 0);
    TOKEN(&v, 9, "\xe4\xbd\xa0", 0);
    SPECIAL(&v, 10); /* ids 10, 11: gaps */
    SPECIAL(&v, 11);
    TOKEN(&v, 12, "", EOS);          /* <|end|>, named by tokenizer_config.json */
    TOKEN(&v, 13, "<tool> ", 0);     /* added, not special: plain UTF-8 text */
    assert_eos(&v, (uint32_t[]){12}, 1);
    ck_assert_uint_eq(v.offsets[14], 28);
    gcg_vocab_free(&v);
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_spm_fixture)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "spm/tokenizer.json", NULL, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(v.n_tokens, 10);
    SPECIAL(&v, 0);
    SPECIAL(&v, 1);
    TOKEN(&v, 2, "", EOS);           /* eos_token given as {"content": "</s>"} */
    TOKEN(&v, 3, "\n", 0);           /* <0x0A> */
    TOKEN(&v, 4, "\xe2", 0);         /* <0xe2>: lower-case hex is a byte too */
    TOKEN(&v, 5, " ", 0);
    TOKEN(&v, 6, " the", 0);         /* no stripping: mid-sequence bytes */
    TOKEN(&v, 7, "a  b", 0);
    TOKEN(&v, 8, "\xc3\xa9", 0);
    TOKEN(&v, 9, "<sep> ", 0);
    assert_eos(&v, (uint32_t[]){2}, 1);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_unigram_fixture)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    /* No tokenizer_config.json beside it: no EOS, no error. */
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "unigram/tokenizer.json", NULL, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(v.n_tokens, 4);
    SPECIAL(&v, 0);
    TOKEN(&v, 1, " ", 0);
    TOKEN(&v, 2, " x ", 0);
    TOKEN(&v, 3, "</s>", 0);         /* not an added token: text */
    ck_assert_uint_eq(v.n_eos, 0);
    ck_assert_ptr_null(v.eos);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_eos_flag_wins_over_config)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint32_t eos[] = {5, 0, 5};
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "bytelevel/tokenizer.json", eos, 3, &v, &d), GCG_OK);
    assert_eos(&v, (uint32_t[]){0, 5}, 2);
    SPECIAL(&v, 12);                 /* the config's <|end|> is not EOS now */
    TOKEN(&v, 0, "", EOS);           /* EOS tokens lose their text */
    TOKEN(&v, 1, " ", 0);
    TOKEN(&v, 13, "<tool> ", 0);
    ck_assert_uint_eq(v.offsets[14], 26);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_eos_flag_out_of_range)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint32_t eos[] = {3, 14};
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "bytelevel/tokenizer.json", eos, 2, &v, &d),
                     GCG_ERR_TOKEN_RANGE);
    assert_error(&d, 0, 0, "EOS token id 14 is out of range (the vocabulary has 14 tokens)");
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_missing_file)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "nope/tokenizer.json", NULL, 0, &v, &d), GCG_ERR_IO);
    assert_error(&d, 0, 0, DATA "nope/tokenizer.json: cannot open: No such file or directory");
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_bad_arguments)
{
    gcg_vocab v;
    ck_assert_int_eq(gcg_vocab_load_hf(NULL, NULL, 0, &v, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "spm/tokenizer.json", NULL, 1, &v, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vocab_load_hex(NULL, NULL, 0, &v, NULL), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vocab_bytes256(NULL, 2, &v), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vocab_set_eos(NULL, NULL, 0, NULL), GCG_ERR_ARG);
}
END_TEST

/* ---- tokenizer.json from memory: what loads ----------------------------- */

#define BPE(vocab) "{\"model\": {\"type\": \"BPE\", \"vocab\": " vocab "}}"
#define BL(vocab) "{\"decoder\": {\"type\": \"ByteLevel\"}, " \
                  "\"model\": {\"type\": \"BPE\", \"vocab\": " vocab "}}"
#define FB(vocab) "{\"model\": {\"type\": \"BPE\", \"byte_fallback\": true, \"vocab\": " vocab "}}"
#define UNI(vocab) "{\"model\": {\"type\": \"Unigram\", \"vocab\": " vocab "}}"
#define ADDED(list) "{\"added_tokens\": " list ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}"
#define DEC(dec) "{\"decoder\": " dec ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}"
#define DECV(dec, vocab) "{\"decoder\": " dec ", \"model\": {\"type\": \"BPE\", \"vocab\": " vocab "}}"

START_TEST(test_added_overrides_model)
{
    gcg_vocab v;
    gcg_diag d;
    const char *json = "{\"added_tokens\": [{\"id\": 1, \"content\": \"zz\", \"special\": false},"
                       " {\"id\": 0, \"content\": \"a\", \"special\": true}, {\"id\": 4, \"content\": \"q\"}],"
                       " \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"b\": 1, \"c\": 2}}}";
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 5);
    SPECIAL(&v, 0);
    TOKEN(&v, 1, "zz", 0);
    TOKEN(&v, 2, "c", 0);
    SPECIAL(&v, 3);
    TOKEN(&v, 4, "q", 0);            /* "special" absent: not special */
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_only_special_tokens)
{
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem("{\"added_tokens\": [{\"id\": 1, \"content\": \"x\", \"special\": true}],"
                            " \"model\": {\"type\": \"Unigram\", \"vocab\": []}}",
                            NULL, NULL, 0, &v, &d),
                     GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 2);
    SPECIAL(&v, 0);
    SPECIAL(&v, 1);
    ck_assert_uint_eq(v.offsets[2], 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_plain_bpe_keys_are_utf8)
{
    gcg_vocab v;
    gcg_diag d;
    /* No ByteLevel, no byte fallback: keys are text, "<0x41>" included. */
    ck_assert_int_eq(hf_mem(BPE("{\"<0x41>\": 0, \"\\u0120x\": 1, \"\\t\": 2}"), NULL, NULL, 0, &v, &d),
                     GCG_OK);
    TOKEN(&v, 0, "<0x41>", 0);
    TOKEN(&v, 1, "\xc4\xa0x", 0);
    TOKEN(&v, 2, "\t", 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_byte_fallback_from_decoder)
{
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(DECV("{\"type\": \"ByteFallback\"}", "{\"<0x41>\": 0, \"<0xff>\": 1, \"<0x\": 2}"),
                            NULL, NULL, 0, &v, &d),
                     GCG_OK);
    TOKEN(&v, 0, "A", 0);
    TOKEN(&v, 1, "\xff", 0);
    TOKEN(&v, 2, "<0x", 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_byte_level_from_pre_tokenizer)
{
    gcg_vocab v;
    gcg_diag d;
    const char *json = "{\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": "
                       "[{\"type\": \"Digits\"}, {\"type\": \"Sequence\", \"pretokenizers\": "
                       "[{\"type\": \"ByteLevel\"}]}]}, \"decoder\": null, "
                       "\"model\": {\"type\": \"BPE\", \"vocab\": {\"\\u0120\\u0121\": 0}}}";
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_OK);
    TOKEN(&v, 0, " \x7f", 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_replace_rules_in_order)
{
    gcg_vocab v;
    gcg_diag d;
    const char *json = DECV("{\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Sequence\", \"decoders\": ["
                            "{\"type\": \"Replace\", \"pattern\": {\"String\": \"a\"}, \"content\": \"bb\"}]},"
                            "{\"type\": \"Replace\", \"pattern\": {\"String\": \"b\"}, \"content\": \"\"},"
                            "{\"type\": \"Metaspace\", \"replacement\": \"\\u2581\"}]}",
                            "{\"ab\\u2581c\": 0, \"b\\u2581\": 1}");
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_OK);
    TOKEN(&v, 0, " c", 0);          /* ab▁c -> bbb▁c -> ▁c -> " c" */
    TOKEN(&v, 1, " ", 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_strip_per_token_until_fuse)
{
    gcg_vocab v;
    gcg_diag d;
    const char *json = DECV("{\"type\": \"Sequence\", \"decoders\": ["
                            "{\"type\": \"Replace\", \"pattern\": {\"String\": \"\\u2581\"}, \"content\": \" \"},"
                            "{\"type\": \"Strip\", \"content\": \" \", \"start\": 1, \"stop\": 0},"
                            "{\"type\": \"Strip\", \"content\": \"b\", \"start\": 0, \"stop\": 2},"
                            "{\"type\": \"Fuse\"},"
                            "{\"type\": \"Strip\", \"content\": \"a\", \"start\": 9, \"stop\": 9}]}",
                            "{\"\\u2581\\u2581ab\\u2581\": 0, \"abbb\": 1, \"\\u2581a\": 2}");
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_OK);
    TOKEN(&v, 0, " ab ", 0);
    TOKEN(&v, 1, "ab", 0);
    TOKEN(&v, 2, "a", 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_replace_to_nothing_is_an_error)
{
    gcg_vocab v;
    gcg_diag d;
    const char *json = DECV("{\"type\": \"Replace\", \"pattern\": {\"String\": \"b\"}, \"content\": \"\"}",
                            "{\"a\": 0, \"bb\": 1}");
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, 0, 0, "model.vocab[\"bb\"]: token 1: empty token text");
    gcg_diag_free(&d);
}
END_TEST

/* ---- tokenizer.json: EOS from the config ------------------------------- */

typedef struct eos_case {
    const char *json, *config;
    gcg_status status;
    uint32_t eos;               /* UINT32_MAX: none */
    const char *msg;            /* the error, when status != GCG_OK */
} eos_case;

#define SPM_LIKE "{\"added_tokens\": [{\"id\": 2, \"content\": \"</s>\", \"special\": true}], " \
                 "\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"</s>\": 1, \"\\u0120b\": 3}}}"

static const eos_case eos_cases[] = {
    /* added tokens are looked up first, then model.vocab keys */
    {SPM_LIKE, "{\"eos_token\": \"</s>\"}", GCG_OK, 2, NULL},
    {SPM_LIKE, "{\"eos_token\": {\"content\": \"a\", \"lstrip\": false}}", GCG_OK, 0, NULL},
    {SPM_LIKE, "{\"eos_token\": \"\\u0120b\"}", GCG_OK, 3, NULL},
    {UNI("[[\"x\", 0], [\"</s>\", -1.5]]"), "{\"eos_token\": \"</s>\"}", GCG_OK, 1, NULL},
    {SPM_LIKE, "{\"eos_token\": null}", GCG_OK, UINT32_MAX, NULL},
    {SPM_LIKE, "{\"bos_token\": \"a\"}", GCG_OK, UINT32_MAX, NULL},
    {SPM_LIKE, "{\"eos_token\": \"b\"}", GCG_ERR_FORMAT, 0, "c.json: eos_token \"b\" names no token"},
    {SPM_LIKE, "{\"eos_token\": 3}", GCG_ERR_FORMAT, 0,
     "c.json: eos_token: expected a string or an object with a string \"content\""},
    {SPM_LIKE, "{\"eos_token\": {\"text\": \"a\"}}", GCG_ERR_FORMAT, 0,
     "c.json: eos_token: expected a string or an object with a string \"content\""},
    {SPM_LIKE, "{\"eos_token\": \"a\",\n \"x\": }", GCG_ERR_FORMAT, 0,
     "c.json:2:7: unexpected token near '}'"},
    {SPM_LIKE, "[\"eos_token\"]", GCG_ERR_FORMAT, 0,
     "c.json: expected an object at the top level, found an array"},
};
#define N_EOS_CASES (sizeof eos_cases / sizeof eos_cases[0])

START_TEST(test_config_eos)
{
    const eos_case *c = &eos_cases[_i];
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(c->json, c->config, NULL, 0, &v, &d), c->status);
    if (c->status != GCG_OK) {
        assert_error(&d, 0, 0, c->msg);
        assert_zeroed(&v);
    } else if (c->eos == UINT32_MAX) {
        ck_assert_uint_eq(d.n, 0);
        ck_assert_uint_eq(v.n_eos, 0);
    } else {
        ck_assert_uint_eq(d.n, 0);
        assert_eos(&v, &c->eos, 1);
        ck_assert_uint_eq(v.offsets[c->eos], v.offsets[c->eos + 1]);
    }
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_eos_given_skips_config)
{
    gcg_vocab v;
    gcg_diag d;
    uint32_t eos = 1;
    ck_assert_int_eq(hf_mem(SPM_LIKE, "{ broken", &eos, 1, &v, &d), GCG_OK);
    assert_eos(&v, &eos, 1);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

/* ---- DeepSeek-V3 layout, EOS sources ------------------------------------- */

/* model.vocab holds the special tokens too, spelled with characters outside
 * the byte-level alphabet ("｜", "▁"); added_tokens overrides them, so they
 * must never be decoded. The directory's tokenizer_config.json names id 0
 * and generation_config.json id 1: generation_config.json wins, as engines
 * read it. */
START_TEST(test_deepseek_layout)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_load_hf(DATA "deepseek/tokenizer.json", NULL, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(v.n_tokens, 7);
    SPECIAL(&v, 0);
    TOKEN(&v, 1, "", EOS);
    TOKEN(&v, 2, "{", 0);
    TOKEN(&v, 3, "}", 0);
    TOKEN(&v, 4, " \"", 0);
    TOKEN(&v, 5, "\n", 0);
    TOKEN(&v, 6, "<think>", 0);
    assert_eos(&v, (uint32_t[]){1}, 1);
    ck_assert_str_eq(v.eos_source, "generation_config.json eos_token_id");
    ck_assert_str_eq(v.eos_warning, "");
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

/* generation_config.json's eos_token_id as an id, a list, null or wrong. */
typedef struct gen_case {
    const char *gen;
    gcg_status status;
    uint32_t eos[3], n_eos;
    const char *source_or_msg;
} gen_case;

static const gen_case gen_cases[] = {
    {"{\"eos_token_id\": 3}", GCG_OK, {3}, 1, "g.json eos_token_id"},
    {"{\"eos_token_id\": [3, 0, 2]}", GCG_OK, {0, 2, 3}, 3, "g.json eos_token_id"},
    {"{\"eos_token_id\": 3.0}", GCG_OK, {3}, 1, "g.json eos_token_id"},
    /* no id there: tokenizer_config.json's eos_token ("</s>", id 2) */
    {"{\"eos_token_id\": null}", GCG_OK, {2}, 1, "c.json eos_token"},
    {"{\"eos_token_id\": []}", GCG_OK, {2}, 1, "c.json eos_token"},
    {"{\"temperature\": 0.6}", GCG_OK, {2}, 1, "c.json eos_token"},
    {"{\"eos_token_id\": 9}", GCG_ERR_TOKEN_RANGE, {0}, 0,
     "EOS token id 9 is out of range (the vocabulary has 4 tokens)"},
    {"{\"eos_token_id\": \"</s>\"}", GCG_ERR_FORMAT, {0}, 0,
     "dir/g.json: eos_token_id: expected a token id or a list of at most 64 ids"},
    {"{\"eos_token_id\": [1, -1]}", GCG_ERR_FORMAT, {0}, 0,
     "dir/g.json: eos_token_id: expected a token id or a list of at most 64 ids"},
    {"{\"eos_token_id\": 1.5}", GCG_ERR_FORMAT, {0}, 0,
     "dir/g.json: eos_token_id: expected a token id or a list of at most 64 ids"},
};
#define N_GEN_CASES (sizeof gen_cases / sizeof gen_cases[0])

START_TEST(test_generation_config_eos)
{
    const gen_case *c = &gen_cases[_i];
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, "t.json");
    const char *json = SPM_LIKE;
    gcg_vocab_text j = {"t.json", json, strlen(json)};
    gcg_vocab_text cfg = {"dir/c.json", "{\"eos_token\": \"</s>\"}", 21};
    gcg_vocab_text gen = {"dir/g.json", c->gen, strlen(c->gen)};
    gcg_vocab_opts o = {NULL, 0, 0, &gen};
    ck_assert_int_eq(gcg_vocab_hf_from_memory(&j, &cfg, &o, &v, &d), c->status);
    if (c->status == GCG_OK) {
        ck_assert_uint_eq(d.n, 0);
        assert_eos(&v, c->eos, c->n_eos);
        ck_assert_str_eq(v.eos_source, c->source_or_msg);
    } else {
        ck_assert_uint_eq(d.n_errors, 1);
        ck_assert_str_eq(d.v[0].msg, c->source_or_msg);
        assert_zeroed(&v);
    }
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

/* An EOS id that was an ordinary token loses its text, with a warning
 * quoting it; a caller-given id says so as its source. */
START_TEST(test_eos_with_text_warns)
{
    gcg_vocab v;
    gcg_diag d;
    uint32_t eos[2] = {3, 2};
    ck_assert_int_eq(hf_mem(SPM_LIKE, NULL, eos, 2, &v, &d), GCG_OK);
    ck_assert_str_eq(v.eos_source, "given (--eos)");
    ck_assert_str_eq(v.eos_warning, "EOS id 3 is an ordinary token with text \"\\xC4\\xA0b\"; as "
                                    "EOS it no longer stands for that text");
    TOKEN(&v, 3, "", EOS);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
    ck_assert_int_eq(hf_mem(SPM_LIKE, NULL, (uint32_t[]){2}, 1, &v, &d), GCG_OK);
    ck_assert_str_eq(v.eos_warning, "");
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

/* ---- tiktoken rank files --------------------------------------------------- */

START_TEST(test_tiktoken_file)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint32_t eos = 10;
    ck_assert_int_eq(gcg_vocab_load_tiktoken(DATA "tiktoken/small.tiktoken", &eos, 1, &v, &d),
                     GCG_OK);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_uint_eq(v.n_tokens, 11);
    TOKEN(&v, 0, "!", 0);
    TOKEN(&v, 1, "\"", 0);
    TOKEN(&v, 2, "hello", 0);
    TOKEN(&v, 3, " world", 0);
    TOKEN(&v, 4, "\xe2\x80", 0);
    TOKEN(&v, 5, "\n", 0);
    TOKEN(&v, 6, "\0", 0);
    TOKEN(&v, 7, "{\"a\":", 0);
    SPECIAL(&v, 8);
    SPECIAL(&v, 9);
    TOKEN(&v, 10, "", EOS);
    assert_eos(&v, &eos, 1);
    ck_assert_str_eq(v.eos_source, "given (--eos)");
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

typedef struct tt_case {
    const char *text;
    gcg_status status;
    uint32_t line, col;
    const char *msg;
} tt_case;

static const tt_case tt_cases[] = {
    {"YQ== 1\r\n\nYg== 0", GCG_OK, 0, 0, NULL}, /* CRLF, blank line, ranks out of order */
    {"", GCG_ERR_FORMAT, 0, 0, "no tokens"},
    {"YQ==", GCG_ERR_FORMAT, 1, 1, "expected \"BASE64 RANK\" (token bytes, a space, its rank)"},
    {"YQ== 0\nYQ 1", GCG_ERR_FORMAT, 2, 1,
     "token bytes: base64 length 2 is not a positive multiple of 4"},
    {" 0", GCG_ERR_FORMAT, 1, 1, "token bytes: base64 length 0 is not a positive multiple of 4"},
    {"Y*== 0", GCG_ERR_FORMAT, 1, 2, "token bytes: invalid base64 character 0x2A"},
    {"Y=Q= 0", GCG_ERR_FORMAT, 1, 2, "token bytes: invalid base64 character 0x3D"},
    {"YQ==YQ== 0", GCG_ERR_FORMAT, 1, 3, "token bytes: invalid base64 character 0x3D"},
    {"YQ== x", GCG_ERR_FORMAT, 1, 6, "expected a rank (decimal digits) after the token"},
    {"YQ== 1x", GCG_ERR_FORMAT, 1, 7, "expected a rank (decimal digits) after the token"},
    {"YQ== -1", GCG_ERR_FORMAT, 1, 6, "expected a rank (decimal digits) after the token"},
    {"YQ== 99999999999", GCG_ERR_FORMAT, 1, 6, "rank too large (limit 16777215)"},
    {"YQ== 0\nYg== 0", GCG_ERR_FORMAT, 2, 6, "rank 0 already used on line 1"},
};
#define N_TT_CASES (sizeof tt_cases / sizeof tt_cases[0])

START_TEST(test_tiktoken_text)
{
    const tt_case *c = &tt_cases[_i];
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, "t.tiktoken");
    gcg_vocab_text t = {"t.tiktoken", c->text, strlen(c->text)};
    ck_assert_int_eq(gcg_vocab_tiktoken_from_memory(&t, NULL, &v, &d), c->status);
    if (c->status == GCG_OK) {
        ck_assert_uint_eq(v.n_tokens, 2);
        TOKEN(&v, 0, "b", 0);
        TOKEN(&v, 1, "a", 0);
        ck_assert_str_eq(v.eos_source, "none given");
    } else {
        assert_error(&d, c->line, c->col, c->msg);
        assert_zeroed(&v);
    }
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

/* js-tiktoken's rank modules (ranks/o200k_base.js and .cjs). */
typedef struct ttm_case {
    const char *text;
    gcg_status status;
    const char *name;   /* file name in the message */
    uint32_t line, col;
    const char *msg;
} ttm_case;

#define TTM_BODY "{\"pat_str\":\"x\",\"special_tokens\":{\"<|end|>\":4},\"bpe_ranks\":\"! 0 YQ== Yg==\\n! 2 YWI=\"}"
static const ttm_case ttm_cases[] = {
    {"export default " TTM_BODY ";\n", GCG_OK, NULL, 0, 0, NULL},
    {"module.exports = " TTM_BODY ";", GCG_OK, NULL, 0, 0, NULL},
    {"export default {\"bpe_ranks\":\"! 0 YQ== Y*==\"};", GCG_ERR_FORMAT, "bpe_ranks", 1, 11,
     "token bytes: invalid base64 character 0x2A"},
    {"export default {\"bpe_ranks\":\"! x YQ==\"};", GCG_ERR_FORMAT, "bpe_ranks", 1, 3,
     "expected a rank (decimal digits) after the token"},
    {"export default {\"bpe_ranks\":\"! 0 YQ==\\n! 0 Yg==\"};", GCG_ERR_FORMAT, "bpe_ranks", 2, 5,
     "rank 0 already used"},
    {"export default {\"bpe_ranks\":\"! 0\"};", GCG_ERR_FORMAT, "bpe_ranks", 1, 1,
     "expected \"MARKER RANK BASE64...\""},
    {"export default {\"ranks\":1};", GCG_ERR_FORMAT, "t.js", 0, 0,
     "rank module: expected a string \"bpe_ranks\" and an object \"special_tokens\""},
    {"export default {\"bpe_ranks\":\"! 0 YQ==\",\"special_tokens\":{\"<|x|>\":0}};", GCG_ERR_FORMAT, "t.js", 0, 0,
     "special_tokens: \"<|x|>\": id past the limit or already used"},
};
#define N_TTM_CASES (sizeof ttm_cases / sizeof ttm_cases[0])

START_TEST(test_tiktoken_module)
{
    const ttm_case *c = &ttm_cases[_i];
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, "t.js");
    gcg_vocab_text t = {"t.js", c->text, strlen(c->text)};
    ck_assert_int_eq(gcg_vocab_tiktoken_from_memory(&t, NULL, &v, &d), c->status);
    if (c->status == GCG_OK) {
        ck_assert_uint_eq(v.n_tokens, 5);
        TOKEN(&v, 0, "a", 0);
        TOKEN(&v, 1, "b", 0);
        TOKEN(&v, 2, "ab", 0);
        ck_assert_uint_eq(v.flags[3], GCG_TOKEN_SPECIAL); /* a gap */
        ck_assert_uint_eq(v.flags[4], GCG_TOKEN_SPECIAL); /* <|end|> */
    } else {
        ck_assert_uint_ge(d.n, 1);
        char want[256];
        if (c->line)
            snprintf(want, sizeof want, "t.js: error: %s:%u:%u: %s\n", c->name, c->line, c->col, c->msg);
        else
            snprintf(want, sizeof want, "%s: error: %s\n", c->name, c->msg);
        char got[512] = {0};
        FILE *f = fmemopen(got, sizeof got - 1, "w");
        gcg_diag_print(&d, f);
        fclose(f);
        ck_assert_str_eq(got, want);
        assert_zeroed(&v);
    }
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

/* ---- tokenizer.json: every error ---------------------------------------- */

typedef struct err_case {
    const char *json;
    uint32_t line, col;         /* 0 = no position */
    const char *msg;
} err_case;

static const err_case hf_errors[] = {
    /* JSON syntax, positioned by jansson */
    {"{\"model\": }", 1, 11, "unexpected token near '}'"},
    {"", 1, 1, "'[' or '{' expected near end of file"},
    {"{\"model\": {\"type\": \"BPE\",\n  \"vocab\": {\"a\": 0, \"a\": 1}}}", 2, 23,
     "duplicate object key near '\"a\"'"},
    {BPE("{\"a\": 99999999999999999999}"), 1, 61, "too big integer near '99999999999999999999'"},
    {"{\"model\": {}} x", 1, 15, "end of file expected near 'x'"},
    /* shape of the document */
    {"[1]", 0, 0, "expected an object at the top level, found an array"},
    {"{}", 0, 0, "model: missing (expected an object)"},
    {"{\"model\": \"BPE\"}", 0, 0, "model: expected an object, found a string"},
    {"{\"model\": {}}", 0, 0, "model.type: missing (expected a string)"},
    {"{\"model\": {\"type\": 1}}", 0, 0, "model.type: expected a string, found an integer"},
    {"{\"model\": {\"type\": \"WordPiece\", \"vocab\": {}}}", 0, 0,
     "model.type: unsupported model \"WordPiece\" (expected \"BPE\" or \"Unigram\")"},
    {"{\"model\": {\"type\": \"BPE\", \"byte_fallback\": 1, \"vocab\": {}}}", 0, 0,
     "model.byte_fallback: expected a boolean, found an integer"},
    {"{\"model\": {\"type\": \"BPE\"}}", 0, 0, "model.vocab: missing (expected an object)"},
    {BPE("[]"), 0, 0, "model.vocab: expected an object, found an array"},
    {BPE("{}"), 0, 0, "no tokens (model.vocab and added_tokens are empty)"},
    {"{\"pre_tokenizer\": 5, \"model\": {\"type\": \"BPE\", \"vocab\": {}}}", 0, 0,
     "pre_tokenizer: expected an object, found an integer"},
    {"{\"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": {}}, "
     "\"model\": {\"type\": \"BPE\", \"vocab\": {}}}",
     0, 0, "pre_tokenizer.pretokenizers: expected an array, found an object"},
    /* ids */
    {BPE("{\"a\": \"0\"}"), 0, 0, "model.vocab[\"a\"]: expected an integer id, found a string"},
    {BPE("{\"a\": 1.0}"), 0, 0, "model.vocab[\"a\"]: expected an integer id, found a number"},
    {BPE("{\"a\": null}"), 0, 0, "model.vocab[\"a\"]: expected an integer id, found null"},
    {BPE("{\"a\": -1}"), 0, 0, "model.vocab[\"a\"]: id -1 is negative"},
    {BPE("{\"a\": 16777216}"), 0, 0, "model.vocab[\"a\"]: id 16777216 is too large (limit 16777215)"},
    {BPE("{\"a\": 0, \"b\": 0}"), 0, 0, "model.vocab[\"b\"]: id 0 is already used by another token"},
    /* byte-level keys */
    {BL("{\"a\\u20ac\": 0}"), 0, 0,
     "model.vocab[\"a\xe2\x82\xac\"]: token 0: character U+20AC is not in the byte-level alphabet"},
    {BL("{\"a b\": 3}"), 0, 0,
     "model.vocab[\"a b\"]: token 3: character U+0020 is not in the byte-level alphabet"},
    {BL("{\"\\\"\\n\": 0}"), 0, 0,
     "model.vocab[\"\\\"\\u000a\"]: token 0: character U+000A is not in the byte-level alphabet"},
    {BL("{\"\\u0144\": 0}"), 0, 0,
     "model.vocab[\"\xc5\x84\"]: token 0: character U+0144 is not in the byte-level alphabet"},
    {BL("{\"\\u00ad\": 0}"), 0, 0,
     "model.vocab[\"\xc2\xad\"]: token 0: character U+00AD is not in the byte-level alphabet"},
    {BL("{\"\": 0}"), 0, 0, "model.vocab[\"\"]: token 0: empty token text"},
    /* byte fallback */
    {FB("{\"<0xZZ>\": 0}"), 0, 0,
     "model.vocab[\"<0xZZ>\"]: token 0: bad byte-fallback token (expected <0xNN>, two hex digits)"},
    {FB("{\"a\": 0, \"<0x0A0>\": 1}"), 0, 0,
     "model.vocab[\"<0x0A0>\"]: token 1: bad byte-fallback token (expected <0xNN>, two hex digits)"},
    {FB("{\"<0x>\": 0}"), 0, 0,
     "model.vocab[\"<0x>\"]: token 0: bad byte-fallback token (expected <0xNN>, two hex digits)"},
    {FB("{\"\": 7}"), 0, 0, "model.vocab[\"\"]: token 7: empty token text"},
    /* Unigram */
    {UNI("{}"), 0, 0, "model.vocab: expected an array, found an object"},
    {UNI("[[\"a\", 0.5], [\"b\"]]"), 0, 0,
     "model.vocab[1]: expected [piece, score] (a string and a number)"},
    {UNI("[[\"a\", \"x\"]]"), 0, 0, "model.vocab[0]: expected [piece, score] (a string and a number)"},
    {UNI("[\"a\"]"), 0, 0, "model.vocab[0]: expected [piece, score] (a string and a number)"},
    {UNI("[[\"a\", 1, 2]]"), 0, 0, "model.vocab[0]: expected [piece, score] (a string and a number)"},
    {UNI("[[\"\", 0]]"), 0, 0, "model.vocab[0][0]: token 0: empty token text"},
    /* added_tokens */
    {ADDED("{}"), 0, 0, "added_tokens: expected an array, found an object"},
    {ADDED("[5]"), 0, 0, "added_tokens[0]: expected an object, found an integer"},
    {ADDED("[{\"id\": 1, \"content\": \"x\"}, {\"content\": \"x\"}]"), 0, 0,
     "added_tokens[1].id: missing (expected an integer)"},
    {ADDED("[{\"id\": 1}]"), 0, 0, "added_tokens[0].content: missing (expected a string)"},
    {ADDED("[{\"id\": 1.5, \"content\": \"x\"}]"), 0, 0,
     "added_tokens[0].id: expected an integer, found a number"},
    {ADDED("[{\"id\": -2, \"content\": \"x\"}]"), 0, 0, "added_tokens[0].id: id -2 is negative"},
    {ADDED("[{\"id\": 20000000, \"content\": \"x\"}]"), 0, 0,
     "added_tokens[0].id: id 20000000 is too large (limit 16777215)"},
    {ADDED("[{\"id\": 1, \"content\": \"x\", \"special\": \"yes\"}]"), 0, 0,
     "added_tokens[0].special: expected a boolean, found a string"},
    {ADDED("[{\"id\": 5, \"content\": \"x\"}, {\"id\": 5, \"content\": \"y\", \"special\": true}]"), 0, 0,
     "added_tokens[1].id: id 5 is already used by another added token"},
    {ADDED("[{\"id\": 1, \"content\": \"\", \"special\": false}]"), 0, 0,
     "added_tokens[0].content: empty text for a non-special token"},
    /* decoders */
    {DEC("[]"), 0, 0, "decoder: expected an object, found an array"},
    {DEC("{\"kind\": 1}"), 0, 0, "decoder.type: missing (expected a string)"},
    {DEC("{\"type\": \"CTC\"}"), 0, 0, "decoder.type: unsupported decoder \"CTC\""},
    {DEC("{\"type\": \"Sequence\", \"decoders\": [{\"type\": \"Fuse\"}, {\"type\": \"WordPiece\"}]}"), 0,
     0, "decoder.decoders[1].type: unsupported decoder \"WordPiece\""},
    {DEC("{\"type\": \"Sequence\"}"), 0, 0, "decoder.decoders: missing (expected an array)"},
    {DEC("{\"type\": \"Sequence\", \"decoders\": [7]}"), 0, 0,
     "decoder.decoders[0]: expected an object, found an integer"},
    {DEC("{\"type\": \"Replace\", \"pattern\": {\"Regex\": \"x\"}, \"content\": \" \"}"), 0, 0,
     "decoder.pattern: unsupported pattern (only {\"String\": ...} is supported)"},
    {DEC("{\"type\": \"Replace\", \"pattern\": {\"String\": \"\"}, \"content\": \" \"}"), 0, 0,
     "decoder: the pattern to replace is empty"},
    {DEC("{\"type\": \"Replace\", \"pattern\": {\"String\": \"x\"}}"), 0, 0,
     "decoder.content: missing (expected a string)"},
    {DEC("{\"type\": \"Replace\", \"pattern\": \"x\", \"content\": \"y\"}"), 0, 0,
     "decoder.pattern: expected an object, found a string"},
    {DEC("{\"type\": \"Metaspace\"}"), 0, 0, "decoder.replacement: missing (expected a string)"},
    {DEC("{\"type\": \"Strip\", \"content\": \" \", \"start\": -1, \"stop\": 0}"), 0, 0,
     "decoder.start: -1 is negative"},
    {DEC("{\"type\": \"Strip\", \"content\": \" \", \"start\": 1}"), 0, 0,
     "decoder.stop: missing (expected an integer)"},
    {DEC("{\"type\": \"Strip\", \"content\": \"\", \"start\": 1, \"stop\": 1}"), 0, 0,
     "decoder: the pattern to strip is empty"},
};
#define N_HF_ERRORS (sizeof hf_errors / sizeof hf_errors[0])

START_TEST(test_hf_error)
{
    const err_case *c = &hf_errors[_i];
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(c->json, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, c->line, c->col, c->msg);
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

/* "decoder" as a chain of `depth` Sequences around `inner`. */
static char *nested_decoders(int depth, const char *inner)
{
    size_t cap = (size_t)depth * 64 + strlen(inner) + 128;
    char *s = malloc(cap);
    size_t k = (size_t)snprintf(s, cap, "{\"decoder\": ");
    for (int i = 0; i < depth; i++)
        k += (size_t)snprintf(s + k, cap - k, "{\"type\": \"Sequence\", \"decoders\": [");
    k += (size_t)snprintf(s + k, cap - k, "%s", inner);
    for (int i = 0; i < depth; i++)
        k += (size_t)snprintf(s + k, cap - k, "]}");
    snprintf(s + k, cap - k, ", \"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}");
    return s;
}

START_TEST(test_decoder_nesting_limit)
{
    gcg_vocab v;
    gcg_diag d;
    char *ok = nested_decoders(16, "{\"type\": \"Fuse\"}");
    ck_assert_int_eq(hf_mem(ok, NULL, NULL, 0, &v, &d), GCG_OK);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
    char *deep = nested_decoders(17, "{\"type\": \"Fuse\"}");
    ck_assert_int_eq(hf_mem(deep, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    char expect[512] = "decoder";
    for (int i = 0; i < 16; i++)
        strcat(expect, ".decoders[0]");
    strcat(expect, ": Sequence nested too deeply (limit 16)");
    assert_error(&d, 0, 0, expect);
    gcg_diag_free(&d);
    free(ok);
    free(deep);
}
END_TEST

START_TEST(test_too_many_replace_rules)
{
    char list[2048] = "";
    for (int i = 0; i < 9; i++)
        strcat(list, i ? ", {\"type\": \"Replace\", \"pattern\": {\"String\": \"x\"}, \"content\": \"y\"}"
                       : "{\"type\": \"Replace\", \"pattern\": {\"String\": \"x\"}, \"content\": \"y\"}");
    char *json = nested_decoders(1, list);
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, 0, 0, "decoder.decoders[8]: too many Replace/Metaspace/Strip decoders (limit 8)");
    gcg_diag_free(&d);
    free(json);
}
END_TEST

/* Long keys are cut in messages, at a UTF-8 character boundary. */
START_TEST(test_long_key_in_message)
{
    char json[512], expect[512];
    char key[128];
    memset(key, 'x', 94);
    strcpy(key + 94, "\\u00e9\\u00e9\\u00e9 ");
    snprintf(json, sizeof json, BL("{\"%s\": 0}"), key);
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    memset(key, 'x', 94);
    strcpy(key + 94, "\xc3\xa9...");
    snprintf(expect, sizeof expect,
             "model.vocab[\"%s\"]: token 0: character U+0020 is not in the byte-level alphabet", key);
    assert_error(&d, 0, 0, expect);
    gcg_diag_free(&d);
}
END_TEST

/* A cut after an escape: the longest quoted key a message can hold. */
START_TEST(test_long_key_cut_after_escape)
{
    char json[512], expect[512];
    char key[128];
    memset(key, 'x', 94);
    strcpy(key + 94, "\\u0001yyyy");
    snprintf(json, sizeof json, BPE("{\"a\": 0, \"%s\": 0}"), key);
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    memset(key, 'x', 94);
    strcpy(key + 94, "\\u0001...");
    snprintf(expect, sizeof expect, "model.vocab[\"%s\"]: id 0 is already used by another token",
             key);
    assert_error(&d, 0, 0, expect);
    gcg_diag_free(&d);
}
END_TEST

/* Messages name the file when the diag is about another file (or none). */
START_TEST(test_message_names_file)
{
    gcg_vocab_text j = {"t.json", "{\"model\": }", 11};
    gcg_diag d;
    gcg_vocab v;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_hf_from_memory(&j, NULL, NULL, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, 0, 0, "t.json:1:11: unexpected token near '}'");
    gcg_diag_free(&d);
    gcg_diag_init(&d, "grammar.gbnf");
    j.data = "{}";
    j.len = 2;
    ck_assert_int_eq(gcg_vocab_hf_from_memory(&j, NULL, NULL, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, 0, 0, "t.json: model: missing (expected an object)");
    gcg_diag_free(&d);
    /* No diag at all: the status still says it. */
    ck_assert_int_eq(gcg_vocab_hf_from_memory(&j, NULL, NULL, &v, NULL), GCG_ERR_FORMAT);
}
END_TEST

/* ---- skimming model.merges ------------------------------------------- */

/* The load reports jansson's own position in the original text. */
static void assert_same_error_as_jansson(const char *json)
{
    json_error_t e;
    json_t *root = json_loads(json, JSON_REJECT_DUPLICATES, &e);
    ck_assert_ptr_null(root);
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(json, NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, (uint32_t)e.line, (uint32_t)e.column, e.text);
    gcg_diag_free(&d);
}

#define MERGES_HEAD "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0},\n \"merges\": [\"a b\",\n  "

START_TEST(test_skim_error_positions)
{
    /* after "]" on its line: the column moves back by the merges' width */
    assert_same_error_as_jansson(MERGES_HEAD "\"\xc3\xa9 c\"] x}}");
    assert_same_error_as_jansson(MERGES_HEAD "[\"\xc3\xa9\", \"c\"]], \"a\": 1, \"a\": 2}}");
    /* on a later line */
    assert_same_error_as_jansson(MERGES_HEAD "\"c d\"]},\n\n \"x\": tru}");
    /* before merges */
    assert_same_error_as_jansson("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0, \"a\": 1},"
                                 " \"merges\": [\"a b\"]}}");
    /* in merges: no skimming, jansson finds it */
    assert_same_error_as_jansson(MERGES_HEAD "\"c\x01\"]}}");
    assert_same_error_as_jansson(MERGES_HEAD "\"c\xff\"]}}");
    assert_same_error_as_jansson(MERGES_HEAD "\"c\\ud800\"]}}");
    assert_same_error_as_jansson(MERGES_HEAD "\"c\\u0000\"]}}");
    assert_same_error_as_jansson(MERGES_HEAD "\"c\",]}}");
    assert_same_error_as_jansson(MERGES_HEAD "\"c\"}}");
    assert_same_error_as_jansson(MERGES_HEAD "\"c\"");
    /* exact numbers for the first case: line 3, the "x" */
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hf_mem(MERGES_HEAD "\"\xc3\xa9 c\"] x}}", NULL, NULL, 0, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, 3, 10, "'}' expected near 'x'");
    gcg_diag_free(&d);
}
END_TEST

/* Merges the skim refuses but jansson accepts still load. */
START_TEST(test_skim_refusals_still_load)
{
    static const char *const cases[] = {
        MERGES_HEAD "5]}}",
        MERGES_HEAD "\"\\ud83d\\ude00\"]}}",
        MERGES_HEAD "[[\"a\"]]]}}",
        MERGES_HEAD "{\"a\": 1}]}}",
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merg\\u0065s\": [\"a b\"]}}",
        "{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\": 0}, \"merges\": []}}",
        ("{\"merges\": [1], \"model\": {\"merges\": [\"\\n\\t\\/\\\\ \\\"\", [], [\"x\", \"y\"]], "
         "\"type\": \"BPE\", \"vocab\": {\"a\": 0}}}"),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gcg_vocab v;
        gcg_diag d;
        ck_assert_msg(hf_mem(cases[i], NULL, NULL, 0, &v, &d) == GCG_OK, "case %zu", i);
        ck_assert_uint_eq(v.n_tokens, 1);
        TOKEN(&v, 0, "a", 0);
        gcg_vocab_free(&v);
        gcg_diag_free(&d);
    }
}
END_TEST

/* ---- hex format -------------------------------------------------------- */

START_TEST(test_hex_file)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint32_t eos[] = {1};
    ck_assert_int_eq(gcg_vocab_load_hex(DATA "small.hex", eos, 1, &v, &d), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 4);
    TOKEN(&v, 0, "a", 0);
    TOKEN(&v, 1, "", EOS);
    TOKEN(&v, 2, "\n\xff", 0);
    TOKEN(&v, 3, "\xe2", 0);
    assert_eos(&v, eos, 1);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_hex_no_final_newline)
{
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hex_mem("00\n-", 4, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 2);
    TOKEN(&v, 0, "\0", 0);
    SPECIAL(&v, 1);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
    ck_assert_int_eq(hex_mem("0123456789abcdef", 16, 0, &v, &d), GCG_OK);
    TOKEN(&v, 0, "\x01\x23\x45\x67\x89\xab\xcd\xef", 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
    ck_assert_int_eq(hex_mem("-\n-", 3, 0, &v, &d), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 2);
    SPECIAL(&v, 0);
    SPECIAL(&v, 1);
    ck_assert_uint_eq(v.offsets[2], 0);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
}
END_TEST

typedef struct hex_case {
    const char *text;
    size_t len;
    uint32_t line, col;
    const char *msg;
} hex_case;

#define HEX(s) s, sizeof(s) - 1

static const hex_case hex_errors[] = {
    {HEX(""), 1, 1, "empty file (expected one line per token)"},
    {HEX("\n"), 1, 1, "empty line (expected lowercase hex bytes or \"-\")"},
    {HEX("61\n\n62\n"), 2, 1, "empty line (expected lowercase hex bytes or \"-\")"},
    {HEX("61\n\n"), 2, 1, "empty line (expected lowercase hex bytes or \"-\")"},
    {HEX("6\n"), 1, 1, "odd number of hex digits (a byte is two digits)"},
    {HEX("61\n616"), 2, 3, "odd number of hex digits (a byte is two digits)"},
    {HEX("6g"), 1, 2, "expected a lowercase hex digit, found 'g'"},
    {HEX("6A"), 1, 2, "expected a lowercase hex digit, found 'A'"},
    {HEX(" 61"), 1, 1, "expected a lowercase hex digit, found ' '"},
    {HEX("61\r\n"), 1, 3, "expected a lowercase hex digit, found byte 0x0d"},
    {HEX("61\n\xff"), 2, 1, "expected a lowercase hex digit, found byte 0xff"},
    {HEX("61\0"), 1, 3, "expected a lowercase hex digit, found byte 0x00"},
    {HEX("--\n"), 1, 2, "expected end of line after \"-\""},
    {HEX("61\n- \n"), 2, 2, "expected end of line after \"-\""},
};
#define N_HEX_ERRORS (sizeof hex_errors / sizeof hex_errors[0])

START_TEST(test_hex_error)
{
    const hex_case *c = &hex_errors[_i];
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hex_mem(c->text, c->len, 0, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, c->line, c->col, c->msg);
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_hex_token_limit)
{
    gcg_vocab v;
    gcg_diag d;
    ck_assert_int_eq(hex_mem("61\n62\n", 6, 2, &v, &d), GCG_OK);
    gcg_vocab_free(&v);
    gcg_diag_free(&d);
    ck_assert_int_eq(hex_mem("61\n62\n63\n", 9, 2, &v, &d), GCG_ERR_FORMAT);
    assert_error(&d, 3, 1, "too many tokens (limit 2)");
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_hex_io_errors)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_load_hex(DATA, NULL, 0, &v, &d), GCG_ERR_IO);
    assert_error(&d, 0, 0, DATA ": cannot read: Is a directory");
    gcg_diag_free(&d);
    gcg_diag_init(&d, DATA "missing.hex");
    ck_assert_int_eq(gcg_vocab_load_hex(DATA "missing.hex", NULL, 0, &v, &d), GCG_ERR_IO);
    assert_error(&d, 0, 0, "cannot open: No such file or directory");
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

START_TEST(test_hex_eos_out_of_range)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    uint32_t eos[] = {4};
    ck_assert_int_eq(gcg_vocab_load_hex(DATA "small.hex", eos, 1, &v, &d), GCG_ERR_TOKEN_RANGE);
    assert_error(&d, 0, 0, "EOS token id 4 is out of range (the vocabulary has 4 tokens)");
    assert_zeroed(&v);
    gcg_diag_free(&d);
}
END_TEST

/* ---- bytes256 and set_eos ----------------------------------------------- */

START_TEST(test_bytes256)
{
    gcg_vocab v;
    ck_assert_int_eq(gcg_vocab_bytes256(NULL, 0, &v), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 256);
    for (uint32_t i = 0; i < 256; i++) {
        uint8_t b = (uint8_t)i;
        assert_token(&v, i, (const char *)&b, 1, 0);
    }
    ck_assert_uint_eq(v.n_eos, 0);
    gcg_vocab_free(&v);
}
END_TEST

START_TEST(test_bytes256_eos)
{
    gcg_vocab v;
    uint32_t eos[] = {259, 256, 259};
    ck_assert_int_eq(gcg_vocab_bytes256(eos, 3, &v), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 260);
    TOKEN(&v, 255, "\xff", 0);
    TOKEN(&v, 256, "", EOS);
    SPECIAL(&v, 257);                /* gaps between EOS ids */
    SPECIAL(&v, 258);
    TOKEN(&v, 259, "", EOS);
    assert_eos(&v, (uint32_t[]){256, 259}, 2);
    ck_assert_uint_eq(v.offsets[260], 256);
    gcg_vocab_free(&v);

    uint32_t low[] = {0};            /* a byte made EOS loses its text */
    ck_assert_int_eq(gcg_vocab_bytes256(low, 1, &v), GCG_OK);
    ck_assert_uint_eq(v.n_tokens, 256);
    TOKEN(&v, 0, "", EOS);
    TOKEN(&v, 1, "\x01", 0);
    ck_assert_uint_eq(v.offsets[256], 255);
    gcg_vocab_free(&v);

    uint32_t big[] = {GCG_VOCAB_MAX_TOKENS};
    ck_assert_int_eq(gcg_vocab_bytes256(big, 1, &v), GCG_ERR_TOKEN_RANGE);
    assert_zeroed(&v);
}
END_TEST

START_TEST(test_set_eos_union)
{
    gcg_vocab v;
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    ck_assert_int_eq(gcg_vocab_bytes256((uint32_t[]){300, 40}, 2, &v), GCG_OK);
    ck_assert_int_eq(gcg_vocab_set_eos(&v, (uint32_t[]){41, 300, 7, 41}, 4, &d), GCG_OK);
    assert_eos(&v, (uint32_t[]){7, 40, 41, 300}, 4);
    TOKEN(&v, 6, "\x06", 0);
    TOKEN(&v, 8, "\x08", 0);
    TOKEN(&v, 42, "\x2a", 0);
    ck_assert_uint_eq(v.offsets[301], 253);
    /* out of range: nothing changes */
    ck_assert_int_eq(gcg_vocab_set_eos(&v, (uint32_t[]){9, 301}, 2, &d), GCG_ERR_TOKEN_RANGE);
    assert_error(&d, 0, 0, "EOS token id 301 is out of range (the vocabulary has 301 tokens)");
    TOKEN(&v, 9, "\x09", 0);
    ck_assert_uint_eq(v.n_eos, 4);
    ck_assert_int_eq(gcg_vocab_set_eos(&v, NULL, 0, &d), GCG_OK);
    ck_assert_uint_eq(v.n_eos, 4);
    gcg_vocab_free(&v);
    gcg_vocab_free(&v);              /* freeing twice is harmless */
    gcg_diag_free(&d);
}
END_TEST

/* ---- suite --------------------------------------------------------------- */

static Suite *vocab_suite(void)
{
    Suite *s = suite_create("vocab");
    TCase *tc = tcase_create("hf_files");
    tcase_add_test(tc, test_bytelevel_fixture);
    tcase_add_test(tc, test_spm_fixture);
    tcase_add_test(tc, test_unigram_fixture);
    tcase_add_test(tc, test_eos_flag_wins_over_config);
    tcase_add_test(tc, test_eos_flag_out_of_range);
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    tc = tcase_create("hf_memory");
    tcase_add_test(tc, test_added_overrides_model);
    tcase_add_test(tc, test_only_special_tokens);
    tcase_add_test(tc, test_plain_bpe_keys_are_utf8);
    tcase_add_test(tc, test_byte_fallback_from_decoder);
    tcase_add_test(tc, test_byte_level_from_pre_tokenizer);
    tcase_add_test(tc, test_replace_rules_in_order);
    tcase_add_test(tc, test_strip_per_token_until_fuse);
    tcase_add_test(tc, test_replace_to_nothing_is_an_error);
    tcase_add_loop_test(tc, test_config_eos, 0, (int)N_EOS_CASES);
    tcase_add_test(tc, test_eos_given_skips_config);
    tcase_add_test(tc, test_deepseek_layout);
    tcase_add_loop_test(tc, test_generation_config_eos, 0, (int)N_GEN_CASES);
    tcase_add_test(tc, test_eos_with_text_warns);
    suite_add_tcase(s, tc);
    tc = tcase_create("tiktoken");
    tcase_add_test(tc, test_tiktoken_file);
    tcase_add_loop_test(tc, test_tiktoken_text, 0, (int)N_TT_CASES);
    tcase_add_loop_test(tc, test_tiktoken_module, 0, (int)N_TTM_CASES);
    suite_add_tcase(s, tc);
    tc = tcase_create("hf_errors");
    tcase_add_loop_test(tc, test_hf_error, 0, (int)N_HF_ERRORS);
    tcase_add_test(tc, test_decoder_nesting_limit);
    tcase_add_test(tc, test_too_many_replace_rules);
    tcase_add_test(tc, test_long_key_in_message);
    tcase_add_test(tc, test_long_key_cut_after_escape);
    tcase_add_test(tc, test_message_names_file);
    suite_add_tcase(s, tc);
    tc = tcase_create("hf_skim");
    tcase_add_test(tc, test_skim_error_positions);
    tcase_add_test(tc, test_skim_refusals_still_load);
    suite_add_tcase(s, tc);
    tc = tcase_create("hex");
    tcase_add_test(tc, test_hex_file);
    tcase_add_test(tc, test_hex_no_final_newline);
    tcase_add_loop_test(tc, test_hex_error, 0, (int)N_HEX_ERRORS);
    tcase_add_test(tc, test_hex_token_limit);
    tcase_add_test(tc, test_hex_io_errors);
    tcase_add_test(tc, test_hex_eos_out_of_range);
    suite_add_tcase(s, tc);
    tc = tcase_create("bytes256");
    tcase_add_test(tc, test_bytes256);
    tcase_add_test(tc, test_bytes256_eos);
    tcase_add_test(tc, test_set_eos_union);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(vocab_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
