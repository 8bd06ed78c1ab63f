/*
 * tok_util.h — small in-memory vocabularies and compiles for the tagged
 * region and lazy grammar tests (header-only: each test is one executable).
 */
#ifndef GCG_TEST_TOK_UTIL_H
#define GCG_TEST_TOK_UTIL_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "gcg.h"
#include "vocab.h"

#define MAX_WORDS 16 /* the vocabularies here have at most 512 tokens */

/* A token: text (NULL = special), its length (-1 = strlen), EOS or not. */
typedef struct tok {
    const char *text;
    int len;
    bool eos;
} tok;

#define TXT(s) {s, -1, false}
#define BIN(s) {s, (int)sizeof(s) - 1, false}
#define SPECIAL {NULL, 0, false}
#define EOS {NULL, 0, true}

/* Builds a vocabulary in memory: token i is toks[i]. */
static inline void vocab_make(const tok *toks, uint32_t n, gcg_vocab *v)
{
    memset(v, 0, sizeof *v);
    uint32_t total = 0, eos[8], n_eos = 0;
    for (uint32_t i = 0; i < n; i++)
        total += toks[i].text ? (uint32_t)(toks[i].len < 0 ? (int)strlen(toks[i].text) : toks[i].len) : 0;
    v->n_tokens = n;
    v->offsets = malloc(((size_t)n + 1) * sizeof *v->offsets);
    v->bytes = malloc(total + 1);
    v->flags = malloc(n + 1);
    ck_assert(v->offsets && v->bytes && v->flags);
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        v->offsets[i] = at;
        v->flags[i] = toks[i].text ? 0 : GCG_TOKEN_SPECIAL;
        if (toks[i].text) {
            uint32_t len = (uint32_t)(toks[i].len < 0 ? (int)strlen(toks[i].text) : toks[i].len);
            memcpy(v->bytes + at, toks[i].text, len);
            at += len;
        }
        if (toks[i].eos) {
            ck_assert_uint_lt(n_eos, 8);
            eos[n_eos++] = i;
        }
    }
    v->offsets[n] = at;
    ck_assert_int_eq(gcg_vocab_set_eos(v, eos, n_eos, NULL), GCG_OK);
}

/* Compiles src with `opt` (vocab set from toks, or NULL for bytes256) and
 * opens the artifact; *st receives the compile status and diagnostics are
 * left in *d (initialized here; the caller frees). NULL on failure. */
static inline gcg_artifact *compile_with(const char *src, gcg_compile_options opt, const tok *toks,
                                         uint32_t n, gcg_diag *d, gcg_status *st)
{
    gcg_vocab v;
    if (toks)
        vocab_make(toks, n, &v);
    opt.vocab = toks ? &v : NULL;
    gcg_diag_init(d, "t.gbnf");
    uint8_t *bytes = NULL;
    size_t size = 0;
    *st = gcg_compile(src, strlen(src), &opt, false, &bytes, &size, NULL, d);
    if (toks)
        gcg_vocab_free(&v);
    if (*st != GCG_OK)
        return NULL;
    gcg_artifact *art = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, &err), GCG_OK);
    free(bytes);
    return art;
}

/* As compile_with, failing the test on a compile error. */
static inline gcg_artifact *compile_ok(const char *src, gcg_compile_options opt, const tok *toks,
                                       uint32_t n)
{
    gcg_diag d;
    gcg_status st;
    gcg_artifact *art = compile_with(src, opt, toks, n, &d, &st);
    if (st != GCG_OK)
        gcg_diag_print(&d, stderr);
    ck_assert_int_eq(st, GCG_OK);
    gcg_diag_free(&d);
    return art;
}

#define NTOK(toks) ((uint32_t)(sizeof toks / sizeof *toks))

#endif /* GCG_TEST_TOK_UTIL_H */
