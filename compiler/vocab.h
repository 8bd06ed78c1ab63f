/*
 * vocab.h — a tokenizer vocabulary: token id -> the bytes it stands for.
 *
 * Loaders: Hugging Face tokenizer.json (byte-level BPE with the GPT-2 byte
 * alphabet; SentencePiece-style with "▁" and <0xNN> byte fallback; added and
 * special tokens), a plain hex list, and the 256 single bytes.
 * A special token has no text: the grammar never allows it; EOS tokens are
 * special tokens that end the sentence.
 */
#ifndef GCG_VOCAB_H
#define GCG_VOCAB_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "gcg.h"

#define GCG_TOKEN_SPECIAL 1u  /* no text (control / added special token) */
#define GCG_TOKEN_EOS 2u      /* ends the sentence; also SPECIAL          */

typedef struct gcg_vocab {
    uint32_t n_tokens;
    uint32_t *offsets;   /* n_tokens + 1: token i is bytes[offsets[i] .. offsets[i+1]) */
    uint8_t *bytes;
    uint8_t *flags;      /* n_tokens: GCG_TOKEN_* */
    uint32_t *eos;       /* ids of EOS tokens, ascending */
    uint32_t n_eos;
    uint32_t *name_offsets; /* NULL, or n_tokens + 1: token i's name (special
                               tokens: their text in the tokenizer, such as
                               "<|eot_id|>") is names[name_offsets[i] ..
                               name_offsets[i + 1]), empty when it has none */
    char *names;
    char eos_source[160];  /* where the EOS ids came from, for people to read  */
    char eos_warning[200]; /* "" or why an EOS id looks wrong (it had text)     */
} gcg_vocab;

/* Records where the EOS ids came from (printf-style, truncated). */
void gcg_vocab_set_eos_source(gcg_vocab *v, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Loads a tokenizer.json. EOS ids: `eos`/`n_eos` if n_eos > 0, else
 * generation_config.json's eos_token_id (an id or a list of ids) in the same
 * directory, else the eos_token named in tokenizer_config.json there, if any;
 * v->eos_source says which.
 * Errors go to diag (with the file and, for JSON syntax, line:col). */
gcg_status gcg_vocab_load_hf(const char *path, const uint32_t *eos, uint32_t n_eos, gcg_vocab *v,
                             gcg_diag *diag);

/* Loads the plain format: line i is token i's bytes in lowercase hex, or "-"
 * for a special token with no text. An empty line or odd/invalid hex is an
 * error at file:line:col. */
gcg_status gcg_vocab_load_hex(const char *path, const uint32_t *eos, uint32_t n_eos, gcg_vocab *v,
                              gcg_diag *diag);

/* The 256 single-byte tokens (ids = byte values), plus the given EOS ids
 * appended as special tokens when they are >= 256. */
gcg_status gcg_vocab_bytes256(const uint32_t *eos, uint32_t n_eos, gcg_vocab *v);

/* Loads a tiktoken rank file (o200k_base / cl100k_base .tiktoken): each line
 * is "BASE64 RANK", the token's bytes and its id. EOS ids at or past the
 * highest rank extend the vocabulary as special tokens (tiktoken keeps its
 * special tokens out of the file). Errors at file:line:col. */
gcg_status gcg_vocab_load_tiktoken(const char *path, const uint32_t *eos, uint32_t n_eos,
                                   gcg_vocab *v, gcg_diag *diag);

/* Marks ids as EOS (and special), checking range; used by all loaders. An
 * EOS id that had text (an ordinary token) loses it, and v->eos_warning
 * says so. */
gcg_status gcg_vocab_set_eos(gcg_vocab *v, const uint32_t *eos, uint32_t n_eos, gcg_diag *diag);

/* Names special tokens ids[i] names[i] (token references <TEXT> find them by
 * it); ids out of range are skipped. */
gcg_status gcg_vocab_set_names(gcg_vocab *v, const uint32_t *ids, const char *const *names, uint32_t n);

void gcg_vocab_free(gcg_vocab *v);

#endif /* GCG_VOCAB_H */
