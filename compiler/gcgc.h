/*
 * gcgc.h — the gcg compiler as a library: compile a grammar into a .gcg
 * artifact in-process, at request time, with no files and no global state.
 *
 * This header is the manual. Read it top to bottom:
 *   1. prepared vocabularies: load a tokenizer once per model
 *   2. options
 *   3. compiling: grammar text in, artifact bytes and diagnostics out
 *   4. JSON Schema: a schema in, GBNF or an artifact out
 *
 * Threading: a prepared vocabulary is immutable once made and may be shared
 * by any number of compiles running on any number of threads at once. Each
 * gcgc_compile call owns everything else it touches.
 *
 * Memory: every object returned here is freed with its own _free function
 * (the bytes of gcgc_vocab_write with free());
 * NULL is always a no-op there.
 */
#ifndef GCGC_H
#define GCGC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gcg.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define GCGC_API __attribute__((visibility("default")))
#else
#define GCGC_API
#endif

/* ===================================================================== */
/* 1. Prepared vocabularies                                               */
/* ===================================================================== */

/* A tokenizer's vocabulary (token id -> bytes, special and EOS tokens) with
 * the per-vocabulary structures every compile needs, built once. */
typedef struct gcgc_vocab gcgc_vocab;

/* Loads a Hugging Face tokenizer.json. EOS ids: eos[0..n_eos) when n_eos > 0,
 * else the defaults found beside the file (see gcgc_vocab_eos_source).
 * On failure *out is NULL and, when `err` is not NULL, err->msg says what is
 * wrong and where (`file:line:col` for JSON syntax). */
GCGC_API gcg_status gcgc_vocab_load_hf(const char *path, const uint32_t *eos, uint32_t n_eos,
                                       gcgc_vocab **out, gcg_error *err);

/* Loads the plain format: line i is token i's bytes in lowercase hex, or "-"
 * for a special token with no text. */
GCGC_API gcg_status gcgc_vocab_load_hex(const char *path, const uint32_t *eos, uint32_t n_eos,
                                        gcgc_vocab **out, gcg_error *err);

/* Loads a tiktoken rank file (the .tiktoken text of o200k_base, cl100k_base:
 * each line "BASE64 RANK"). tiktoken keeps special tokens out of the file, so
 * EOS ids past the last rank are added as special tokens. */
GCGC_API gcg_status gcgc_vocab_load_tiktoken(const char *path, const uint32_t *eos,
                                             uint32_t n_eos, gcgc_vocab **out, gcg_error *err);

/* The 256 single-byte tokens (ids = byte values), plus the given EOS ids
 * appended as special tokens when they are >= 256. */
GCGC_API gcg_status gcgc_vocab_bytes256(const uint32_t *eos, uint32_t n_eos, gcgc_vocab **out,
                                        gcg_error *err);

/* Loads a prepared vocabulary file (.gcgv, written by gcgc_vocab_write or
 * `gcgc vocab`): no tokenizer needed, and the same fingerprint. */
GCGC_API gcg_status gcgc_vocab_load_gcgv(const char *path, gcgc_vocab **out, gcg_error *err);

GCGC_API void gcgc_vocab_free(gcgc_vocab *v);

/* The .gcgv bytes of the vocabulary (malloc'ed into *out, *size bytes): the
 * file gcg_vocabulary_open_file opens, for artifacts compiled with
 * gcgc_options.vocab_by_reference. */
GCGC_API gcg_status gcgc_vocab_write(const gcgc_vocab *v, uint8_t **out, size_t *size);

/* The vocabulary's fingerprint (gcg_vocabulary_fingerprint of its .gcgv). */
GCGC_API uint64_t gcgc_vocab_fingerprint(const gcgc_vocab *v);

/* The vocabulary as the runtime holds it (what gcg_vocabulary_open_file
 * gives for its .gcgv), to open artifacts compiled by reference against it
 * in the same process. Lives as long as v. */
GCGC_API const gcg_vocabulary *gcgc_vocab_runtime(const gcgc_vocab *v);

/* Number of token ids. */
GCGC_API uint32_t gcgc_vocab_size(const gcgc_vocab *v);

/* The EOS ids in use (ascending); *n receives the count. */
GCGC_API const uint32_t *gcgc_vocab_eos(const gcgc_vocab *v, uint32_t *n);

/* Where the EOS ids came from, for people to read: "given (--eos)" (the
 * caller's ids), "generation_config.json eos_token_id",
 * "tokenizer_config.json eos_token", or "none ..." when no source named one.
 * Lives as long as the vocabulary; never NULL. */
GCGC_API const char *gcgc_vocab_eos_source(const gcgc_vocab *v);

/* "" or a warning about the EOS ids: an id that was an ordinary token with
 * text (e.g. 90, "{" in Llama-3) no longer stands for that text. */
GCGC_API const char *gcgc_vocab_eos_warning(const gcgc_vocab *v);

/* Bytes held by the prepared vocabulary. */
GCGC_API size_t gcgc_vocab_memory(const gcgc_vocab *v);

/* ===================================================================== */
/* 2. Options                                                             */
/* ===================================================================== */

/* A tagged region: `begin` (non-empty UTF-8) opens it, the text inside is a
 * sentence of rule `rule` of the grammar, `end` (UTF-8, may be empty) closes it. */
typedef struct gcgc_tag {
    const char *begin;
    const char *rule;
    const char *end;
} gcgc_tag;

/* A lazy grammar trigger (gcgc compile --trigger-*): the artifact then
 * starts in free mode (gcg.h, "Lazy grammars and triggers") and the grammar
 * takes over when one fires. Regular expressions: the subset of
 * ECMAScript that compiler/triggers.h documents. */
typedef enum gcgc_trigger_kind {
    GCGC_TRIGGER_WORD = 0,         /* `text` occurs; the grammar starts with it      */
    GCGC_TRIGGER_PATTERN = 1,      /* regex `text` matches somewhere                 */
    GCGC_TRIGGER_PATTERN_FULL = 2, /* regex `text` matches the whole text so far     */
    GCGC_TRIGGER_TOKEN = 3         /* token `token` is committed                     */
} gcgc_trigger_kind;

typedef struct gcgc_trigger {
    gcgc_trigger_kind kind;
    const char *text;          /* WORD, PATTERN, PATTERN_FULL (NUL-terminated)   */
    uint32_t token;            /* TOKEN                                          */
} gcgc_trigger;

typedef struct gcgc_options {
    const char *root;          /* start rule; NULL = "root"                          */
    const char *grammar_name;  /* printed before positions in messages and recorded
                                  in the artifact's metadata; NULL = "grammar"       */
    const char *vocab_name;    /* recorded in the metadata; NULL = "tokenizer"       */
    bool strict_latency;       /* an unbounded latency certificate is an error       */
    bool no_automaton;         /* byte-level matching only: no masks, faster compile */
    /* Limits (0 = the default). A compile that reaches one fails with
     * GCG_ERR_LIMIT and a message naming it; memory running out first is
     * GCG_ERR_NOMEM. The gcgc flag of each is in brackets. */
    uint32_t max_repeat;           /* largest m or n in X{m,n}: 1048576 [--max-repeat]     */
    uint32_t max_grammar_symbols;  /* symbols after expanding repetitions: 4,000,000
                                      [--max-grammar-symbols]                              */
    uint32_t max_lr_states;        /* LALR(1) states: 1,000,000 [--max-lr-states]          */
    uint32_t max_automaton_states; /* mask automaton states: 2,000,000
                                      [--max-automaton-states]                             */
    uint32_t max_sim_stacks;       /* symbolic stacks of the mask simulation: 4,000,000
                                      [--max-sim-stacks]                                   */
    /* Tagged regions (gcgc compile --tag): when n_tags > 0 the artifact's
     * language is free text in which each tags[i].begin opens a region
     * matched by rule tags[i].rule and closed by tags[i].end, back to free
     * text, any number of times. Free text is any valid UTF-8 in which no
     * begin tag occurs; the first begin tag to occur opens its region (the
     * longest, when several end at the same byte). The grammar's root rule is
     * not used. EOS is allowed in free text and, unless tags_eos_free_only,
     * inside a region whose rule is complete (its end tag left out). */
    const gcgc_tag *tags;
    uint32_t n_tags;
    bool tags_eos_free_only;
    /* Lazy grammar triggers (n_triggers > 0 writes the trigger section). */
    const gcgc_trigger *triggers;
    uint32_t n_triggers;
    bool vocab_by_reference;   /* store the vocabulary's fingerprint, not the
                                  vocabulary: about 4 MB less per artifact for
                                  a 128k-token model; the artifact then opens
                                  only with gcg_artifact_open_*_vocab          */
} gcgc_options;

/* Fills *opt with the defaults (every field zero / NULL / false). */
GCGC_API void gcgc_options_default(gcgc_options *opt);

/* ===================================================================== */
/* 3. Compiling                                                           */
/* ===================================================================== */

/* The outcome of one compile: the artifact (on success), the diagnostics
 * (errors and warnings, with positions) and statistics. */
typedef struct gcgc_result gcgc_result;

typedef enum gcgc_severity { GCGC_ERROR = 0, GCGC_WARNING = 1, GCGC_NOTE = 2 } gcgc_severity;

typedef struct gcgc_stats {
    uint32_t lr_states;        /* LR states (equivalent LALR(1) states merged)       */
    uint32_t lr_states_built;  /* ... LALR(1) states before merging                  */
    uint32_t sr_conflicts;     /* shift/reduce cells (GLR forks)                     */
    uint32_t rr_conflicts;     /* reduce/reduce cells                                */
    uint32_t automaton_states; /* mask automaton states (minimized)                  */
    uint32_t automaton_states_built; /* ... before minimization                      */
    uint32_t token_sets;       /* distinct token sets                                */
    size_t artifact_bytes;
    double seconds;            /* this compile, wall clock                           */
    gcg_certificate certificate;
} gcgc_stats;

/* Compiles GBNF text `src` (len bytes; need not be NUL-terminated) against
 * `vocab` (NULL: the 256 single bytes, no file needed). Returns GCG_OK when an
 * artifact was produced. Whatever the status, *out receives a result holding
 * the diagnostics (NULL only when memory ran out before one could be made);
 * free it with gcgc_result_free. Grammar errors give GCG_ERR_FORMAT, a
 * compile limit GCG_ERR_LIMIT, memory GCG_ERR_NOMEM. */
GCGC_API gcg_status gcgc_compile(const gcgc_vocab *vocab, const char *src, size_t len,
                                 const gcgc_options *opt, gcgc_result **out);

GCGC_API void gcgc_result_free(gcgc_result *r);

/* The artifact bytes (NULL with *size = 0 after a failed compile). They live
 * as long as the result; gcg_artifact_open_memory copies them. */
GCGC_API const uint8_t *gcgc_result_artifact(const gcgc_result *r, size_t *size);

/* Statistics of the compile (zero where a phase did not run). */
GCGC_API void gcgc_result_stats(const gcgc_result *r, gcgc_stats *out);

/* Diagnostics, in the order found. Message i's text is returned; severity and
 * 1-based line and column (0 when the message has no position) go to the
 * out-parameters that are not NULL. NULL when i is out of range. */
GCGC_API uint32_t gcgc_result_message_count(const gcgc_result *r);
GCGC_API const char *gcgc_result_message(const gcgc_result *r, uint32_t i, gcgc_severity *severity,
                                         uint32_t *line, uint32_t *col);

/* All diagnostics as one text, one `name:line:col: error: message` a line
 * (NUL-terminated; "" when there are none). */
GCGC_API const char *gcgc_result_messages_text(const gcgc_result *r);

/* ===================================================================== */
/* 4. JSON Schema                                                         */
/* ===================================================================== */

/* JSON Schema (2020-12, with draft-04/06/07 spellings) in, GBNF out: the
 * grammar of exactly the JSON texts that are valid instances, properties in
 * schema order (docs/json-schema.md has the keywords and the limits). */
typedef struct gcgc_schema_options {
    int ws;                    /* 0: any RFC 8259 whitespace between tokens,
                                  1: none (compact), 2: runs of at most ws_max    */
    uint32_t ws_max;
    bool lenient;              /* an unenforceable keyword is a warning and is
                                  dropped (else an error naming it)               */
    bool oneof_as_anyof;       /* overlapping oneOf branches accepted as anyOf    */
} gcgc_schema_options;

/* Converts a schema (len bytes of JSON). On GCG_OK *gbnf_out is a malloc'ed
 * grammar with start rule "root"; else NULL. *messages_out (when not NULL)
 * receives the errors and warnings, one `#/json/pointer: message` a line
 * (malloc'ed, "" when none). GCG_ERR_FORMAT: invalid JSON or a keyword that
 * cannot be enforced; GCG_ERR_LIMIT: a bound over a grammar limit. */
GCGC_API gcg_status gcgc_schema_to_gbnf(const char *json, size_t len, const gcgc_schema_options *sopt,
                                        char **gbnf_out, char **messages_out);

/* Converts and compiles with gcgc_compile. When the conversion fails, *out
 * is NULL and the messages are in *messages_out; otherwise *out is
 * gcgc_compile's result (and *messages_out holds the conversion's warnings). */
GCGC_API gcg_status gcgc_compile_schema(const gcgc_vocab *vocab, const char *json, size_t len,
                                        const gcgc_schema_options *sopt, const gcgc_options *opt,
                                        gcgc_result **out, char **messages_out);

#ifdef __cplusplus
}
#endif
#endif /* GCGC_H */
