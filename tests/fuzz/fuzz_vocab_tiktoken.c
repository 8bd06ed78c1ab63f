/*
 * fuzz_vocab_tiktoken.c — libFuzzer target for tiktoken rank files and EOS
 * marking. Every input must load or fail cleanly with a positioned error;
 * a loaded vocabulary must keep its invariants, also after two more EOS
 * ids (one of them possibly out of range) are marked. The one error
 * without a line is a file with no token line at all.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

#define FUZZ_MAX_TOKENS (1u << 16)

static void check_vocab(const gcg_vocab *v)
{
    if (v->offsets[0] != 0)
        __builtin_trap();
    for (uint32_t i = 0; i < v->n_tokens; i++) {
        uint32_t len = v->offsets[i + 1] - v->offsets[i];
        bool special = v->flags[i] & GCG_TOKEN_SPECIAL;
        if (v->offsets[i + 1] < v->offsets[i] || special != (len == 0))
            __builtin_trap();
    }
    for (uint32_t i = 0; i < v->n_eos; i++)
        if (v->eos[i] >= v->n_tokens || v->flags[v->eos[i]] != (GCG_TOKEN_EOS | GCG_TOKEN_SPECIAL) ||
            (i && v->eos[i - 1] >= v->eos[i]))
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gcg_vocab_text text = {"fuzz.tiktoken", (const char *)data, size};
    gcg_vocab_opts opt = {NULL, 0, FUZZ_MAX_TOKENS, NULL};
    gcg_diag diag;
    gcg_diag_init(&diag, "fuzz.tiktoken");
    gcg_vocab v;
    gcg_status st = gcg_vocab_tiktoken_from_memory(&text, &opt, &v, &diag);
    if (st != GCG_OK) {
        /* Rank files: file:line:col. js-tiktoken modules: bpe_ranks:line:col
         * inside the string, or the key at fault. */
        const char *msg = diag.n ? diag.v[0].msg : "";
        bool positioned = diag.n_errors == 1 &&
                          (diag.v[0].line != 0 || strcmp(msg, "no tokens") == 0 ||
                           strncmp(msg, "bpe_ranks:", 10) == 0 || strncmp(msg, "rank module: ", 13) == 0 ||
                           strncmp(msg, "special_tokens: ", 16) == 0);
        if (!positioned || v.offsets)
            __builtin_trap();
    } else {
        check_vocab(&v);
        uint32_t eos[2] = {size ? data[0] : 0, v.n_tokens - 1};
        uint32_t before = v.n_eos;
        st = gcg_vocab_set_eos(&v, eos, 2, &diag);
        if (st != GCG_OK && (st != GCG_ERR_TOKEN_RANGE || v.n_eos != before))
            __builtin_trap();
        check_vocab(&v);
    }
    gcg_vocab_free(&v);
    gcg_diag_free(&diag);
    return 0;
}
