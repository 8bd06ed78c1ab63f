/*
 * vocab_internal.h — what the vocabulary loaders share: a builder that takes
 * tokens in any id order and lays out gcg_vocab's offsets/bytes arrays in id
 * order, file reading, positioned errors, and from-memory entry points (for
 * fuzz targets and tests: same code as the file loaders, no temp files).
 *
 * Invariant of every gcg_vocab the loaders return: a token flagged
 * GCG_TOKEN_SPECIAL has no bytes (offsets[i] == offsets[i + 1]) and every
 * other token has at least one byte.
 *
 * Error messages: when diag->file is the loaded file's name, an error goes in
 * with its line:col as the entry's position; otherwise (no file, or another
 * file such as tokenizer_config.json) the message itself starts with
 * "name:line:col: " or "name: ", so it always says which file is wrong.
 */
#ifndef GCG_VOCAB_INTERNAL_H
#define GCG_VOCAB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "vocab.h"

/* Token ids must be below this (16M): larger ids are rejected as malformed
 * rather than allocated for. */
#define GCG_VOCAB_MAX_TOKENS (1u << 24)

/* ---------------------------------------------------------------------- */
/* Builder                                                                 */
/* ---------------------------------------------------------------------- */

/* Per id: where its bytes are in the scratch buffer, its flags, and which
 * source (a caller-chosen tag, 1..255) added it; origin 0 means "no token
 * yet". Ids never added become special tokens with no text. Later adds of
 * the same id replace earlier ones; callers decide when that is an error. */
typedef struct gcg_vocab_builder {
    uint32_t max_tokens;   /* ids must be < max_tokens (<= GCG_VOCAB_MAX_TOKENS) */
    uint32_t n_ids;        /* highest id added + 1                               */
    uint32_t cap_ids;      /* allocated length of the per-id arrays              */
    uint32_t *start;       /* cap_ids: offset in `bytes` (valid when origin)     */
    uint32_t *len;         /* cap_ids: byte length (valid when origin)           */
    uint8_t *flags;        /* cap_ids: GCG_TOKEN_* (valid when origin)           */
    uint8_t *origin;       /* cap_ids: 0 = absent, else the source tag           */
    uint8_t *bytes;        /* scratch: every added token's bytes, appended       */
    uint32_t n_bytes, cap_bytes;
} gcg_vocab_builder;

void gcg_vocab_builder_init(gcg_vocab_builder *b, uint32_t max_tokens);
void gcg_vocab_builder_free(gcg_vocab_builder *b);

/* The tag that added `id`, 0 if none. */
uint8_t gcg_vocab_builder_origin(const gcg_vocab_builder *b, uint32_t id);

/* Sets token `id` (< max_tokens, checked by the caller) to `len` bytes and
 * `flags` (a special token's bytes are dropped), tagged `origin` (1..255).
 * GCG_ERR_NOMEM, or GCG_ERR_LIMIT when the text would pass 4 GiB. */
gcg_status gcg_vocab_builder_add(gcg_vocab_builder *b, uint32_t id, const uint8_t *bytes,
                                 uint32_t len, uint8_t flags, uint8_t origin);

/* Moves the tokens into *v (n_tokens = highest id + 1, gaps special, no EOS)
 * and frees the builder, also on failure (GCG_ERR_NOMEM). */
gcg_status gcg_vocab_builder_finish(gcg_vocab_builder *b, gcg_vocab *v);

/* ---------------------------------------------------------------------- */
/* Files and errors                                                        */
/* ---------------------------------------------------------------------- */

/* Reads a whole file into *data (malloc'ed, NUL-terminated, *len bytes
 * before the NUL). If `missing_ok` and the file does not exist, returns
 * GCG_OK with *data NULL. Otherwise errors are GCG_ERR_IO / GCG_ERR_NOMEM,
 * reported to diag. */
gcg_status gcg_vocab_read_file(const char *path, bool missing_ok, char **data, size_t *len,
                               gcg_diag *diag);

/* Adds an error about file `name` at line:col (line 0: no position) as the
 * header comment describes; name NULL: about no file (EOS ids given by the
 * caller). `diag` may be NULL. Messages are truncated to the diagnostic
 * buffer. */
void gcg_vocab_error(gcg_diag *diag, const char *name, uint32_t line, uint32_t col,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/* ---------------------------------------------------------------------- */
/* From-memory loading                                                     */
/* ---------------------------------------------------------------------- */

/* One input text and the name that messages give it. */
typedef struct gcg_vocab_text {
    const char *name;
    const char *data;      /* need not be NUL-terminated */
    size_t len;
} gcg_vocab_text;

/* What every loader takes besides its input. */
typedef struct gcg_vocab_opts {
    const uint32_t *eos;   /* EOS ids chosen by the caller (win over any file) */
    uint32_t n_eos;
    uint32_t max_tokens;   /* 0 = GCG_VOCAB_MAX_TOKENS; smaller for fuzzing   */
    const gcg_vocab_text *generation; /* HF: generation_config.json, or NULL   */
} gcg_vocab_opts;

/* gcg_vocab_load_hf on texts: `config` is tokenizer_config.json, or NULL
 * when there is none (it is not read when opt gives EOS ids). `opt` may be
 * NULL. On failure *v is zeroed. */
gcg_status gcg_vocab_hf_from_memory(const gcg_vocab_text *json, const gcg_vocab_text *config,
                                    const gcg_vocab_opts *opt, gcg_vocab *v, gcg_diag *diag);

/* gcg_vocab_load_tiktoken on a text. `opt` may be NULL. On failure *v is
 * zeroed. */
gcg_status gcg_vocab_tiktoken_from_memory(const gcg_vocab_text *text, const gcg_vocab_opts *opt,
                                          gcg_vocab *v, gcg_diag *diag);

/* gcg_vocab_load_hex on a text. `opt` may be NULL. On failure *v is zeroed. */
gcg_status gcg_vocab_hex_from_memory(const gcg_vocab_text *text, const gcg_vocab_opts *opt,
                                     gcg_vocab *v, gcg_diag *diag);

#endif /* GCG_VOCAB_INTERNAL_H */
