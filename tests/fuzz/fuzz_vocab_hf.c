/*
 * fuzz_vocab_hf.c — libFuzzer target for the tokenizer.json loader. The
 * input is tokenizer.json, optionally followed by a NUL byte and a
 * tokenizer_config.json. Every input must load or fail cleanly; a loaded
 * vocabulary must keep its invariants (offsets ascending, special tokens
 * without text, other tokens with some, EOS ids sorted, unique, flagged).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vocab.h"
#include "vocab_internal.h"

#define FUZZ_MAX_TOKENS (1u << 16) /* keeps each run fast; same code paths */

static void check_vocab(const gcg_vocab *v)
{
    if (v->offsets[0] != 0)
        __builtin_trap();
    for (uint32_t i = 0; i < v->n_tokens; i++) {
        uint32_t len = v->offsets[i + 1] - v->offsets[i];
        bool special = v->flags[i] & GCG_TOKEN_SPECIAL;
        if (v->offsets[i + 1] < v->offsets[i] || special != (len == 0))
            __builtin_trap();
        if ((v->flags[i] & GCG_TOKEN_EOS) && !special)
            __builtin_trap();
    }
    for (uint32_t i = 0; i < v->n_eos; i++)
        if (v->eos[i] >= v->n_tokens || !(v->flags[v->eos[i]] & GCG_TOKEN_EOS) ||
            (i && v->eos[i - 1] >= v->eos[i]))
            __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t json_len = nul ? (size_t)(nul - text) : size;
    gcg_vocab_text json = {"fuzz.json", text, json_len};
    gcg_vocab_text config = {"fuzz_config.json", nul ? nul + 1 : NULL,
                             nul ? size - json_len - 1 : 0};
    gcg_vocab_opts opt = {NULL, 0, FUZZ_MAX_TOKENS, NULL};
    gcg_diag diag;
    gcg_diag_init(&diag, "fuzz.json");
    gcg_vocab v;
    gcg_status st = gcg_vocab_hf_from_memory(&json, nul ? &config : NULL, &opt, &v, &diag);
    if (st == GCG_OK) {
        check_vocab(&v);
    } else if (diag.n_errors == 0 || v.offsets) {
        __builtin_trap(); /* a failure always says why and leaves nothing */
    }
    gcg_vocab_free(&v);
    gcg_diag_free(&diag);
    return 0;
}
