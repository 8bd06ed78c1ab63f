/*
 * gcg.h — the gcg runtime: load a compiled grammar artifact (.gcg), follow the
 * tokens a model commits, and produce the mask of tokens that may come next.
 *
 * This header is the manual. Read it top to bottom:
 *   1. version and status codes
 *   2. artifacts: open a .gcg file (read-only, shareable between threads)
 *   3. matchers: one per sequence; commit tokens or bytes, roll back, reset
 *   4. masks: fill a packed bitmask of allowed tokens
 *   5. introspection: sizes, certificate, statistics for benchmarks
 *   6. lazy grammars: free text until a trigger, then the grammar
 *   7. batches: the masks and commits of many matchers in one call
 *   8. jump-forward: the bytes every continuation must start with
 *
 * Threading: an artifact is immutable once opened and may be shared by any
 * number of matchers on any number of threads. A matcher is used by one thread
 * at a time. The library has no global mutable state.
 *
 * Memory: gcg_matcher_new allocates the matcher's pools up front; a commit
 * allocates only when the stack outgrows them (the pools grow geometrically;
 * gcg_matcher_options sizes them up front), and sizes the next mask's working
 * memory before it returns, so fill_mask never allocates.
 */
#ifndef GCG_H
#define GCG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Marks the exported API. libgcg is built with hidden visibility, so only
 * what this header declares with GCG_API is visible to a host program. */
#if defined(__GNUC__)
#define GCG_API __attribute__((visibility("default")))
#else
#define GCG_API
#endif

/* ===================================================================== */
/* 1. Version and status codes                                            */
/* ===================================================================== */

#define GCG_VERSION_MAJOR 0
#define GCG_VERSION_MINOR 1
#define GCG_VERSION_PATCH 0
#define GCG_VERSION_STRING "0.1.0"

/* Status codes have fixed values; they never change meaning between releases. */
typedef enum gcg_status {
    GCG_OK = 0,
    GCG_ERR_NOMEM = 1,        /* allocation failed; the object is unchanged      */
    GCG_ERR_IO = 2,           /* could not read a file                           */
    GCG_ERR_FORMAT = 3,       /* artifact malformed, truncated or corrupted      */
    GCG_ERR_VERSION = 4,      /* artifact written by an incompatible version     */
    GCG_ERR_ARG = 5,          /* invalid argument (NULL, buffer too small, ...)  */
    GCG_ERR_TOKEN_RANGE = 6,  /* token id >= vocabulary size                     */
    GCG_ERR_REJECTED = 7,     /* token or bytes not allowed here; state unchanged */
    GCG_ERR_TERMINATED = 8,   /* EOS was committed; only rollback/reset allowed  */
    GCG_ERR_ROLLBACK = 9,     /* rollback past the history kept                  */
    GCG_ERR_LIMIT = 10,       /* a configured limit was reached; state unchanged */
    GCG_ERR_NO_VOCAB = 11,    /* token-level call on an artifact without vocabulary */
    GCG_ERR_VOCAB_MISMATCH = 12 /* vocabulary missing or not the artifact's one   */
    /* 64..79 are reserved for the GPU library (gpu/gcg_vk.h). */
} gcg_status;

/* The library's version, "MAJOR.MINOR.PATCH" (GCG_VERSION_STRING of the
 * library actually loaded, which may differ from the header compiled against). */
GCG_API const char *gcg_version(void);

/* The artifact format versions this library reads: an artifact whose format
 * version lies in [*oldest, *newest] opens (newer ones open too when their
 * writer marked them readable by this version; older ones fail with
 * GCG_ERR_VERSION). Either pointer may be NULL. */
GCG_API void gcg_artifact_format_versions(uint32_t *oldest, uint32_t *newest);

/* A static, human-readable name for a status ("ok", "artifact format error", ...). */
GCG_API const char *gcg_status_str(gcg_status status);

/* Optional error details. Every function that takes a gcg_error * accepts NULL. */
typedef struct gcg_error {
    gcg_status code;
    uint64_t offset;  /* byte offset in the input the message refers to, or UINT64_MAX */
    char msg[256];    /* NUL-terminated message, e.g. "section 3: checksum mismatch" */
} gcg_error;

/* ===================================================================== */
/* 2. Artifacts                                                           */
/* ===================================================================== */

typedef struct gcg_artifact gcg_artifact;

/* Opens and validates a .gcg file: header, section table, every section's
 * checksum, and every table index the runtime will follow. On success *out
 * owns the mapped file; free it with gcg_artifact_free after every matcher
 * made from it is freed. On failure *out is NULL and err says what is wrong
 * and at which byte offset. */
GCG_API gcg_status gcg_artifact_open_file(const char *path, gcg_artifact **out, gcg_error *err);

/* As gcg_artifact_open_file, from memory. The bytes are copied (so `data`
 * may be freed at once) into 64-byte-aligned storage. */
GCG_API gcg_status gcg_artifact_open_memory(const void *data, size_t size, gcg_artifact **out,
                                            gcg_error *err);

/* Frees an artifact. NULL is a no-op. */
GCG_API void gcg_artifact_free(gcg_artifact *art);

/* Number of token ids (0 when the artifact was compiled without vocabulary,
 * i.e. for byte-level matching only; the single-byte vocabulary has 256). */
GCG_API uint32_t gcg_artifact_vocab_size(const gcg_artifact *art);

/* Number of words a mask needs: ceil(vocab_size / 32), or for a grammar with
 * token references ceil((vocab_size + references) / 32) (fill_mask uses one
 * bit past the vocabulary per reference while it works; those bits are zero
 * in every mask it returns). */
GCG_API size_t gcg_artifact_mask_words(const gcg_artifact *art);

/* The EOS token ids (may be zero of them). *n receives the count. */
GCG_API const uint32_t *gcg_artifact_eos(const gcg_artifact *art, uint32_t *n);

/* The bytes of token `id` (NULL with *len = 0 for a special token or an id
 * out of range). The pointer lives as long as the artifact. */
GCG_API const uint8_t *gcg_artifact_token_bytes(const gcg_artifact *art, uint32_t id, uint32_t *len);

/* ---- Vocabularies ------------------------------------------------------
 * A model's vocabulary (token bytes, EOS ids, token trie) prepared once by
 * `gcgc vocab ... -o MODEL.gcgv` and held once however many grammars use it.
 * Artifacts compiled with `gcgc compile --vocab-ref` hold only the
 * vocabulary's size and fingerprint and borrow the rest from a
 * gcg_vocabulary given when they are opened; self-contained artifacts (the
 * default) open with or without one. */

typedef struct gcg_vocabulary gcg_vocabulary;

/* Opens and validates a .gcgv file (mapped, like an artifact). */
GCG_API gcg_status gcg_vocabulary_open_file(const char *path, gcg_vocabulary **out, gcg_error *err);

/* As gcg_vocabulary_open_file, from memory (the bytes are copied). */
GCG_API gcg_status gcg_vocabulary_open_memory(const void *data, size_t size, gcg_vocabulary **out,
                                              gcg_error *err);

/* Frees a vocabulary after every artifact opened with it. NULL is a no-op. */
GCG_API void gcg_vocabulary_free(gcg_vocabulary *vocab);

/* Number of token ids. */
GCG_API uint32_t gcg_vocabulary_size(const gcg_vocabulary *vocab);

/* XXH3-64 of the vocabulary's canonical encoding (artifact_format.h): equal
 * fingerprints, equal vocabularies. */
GCG_API uint64_t gcg_vocabulary_fingerprint(const gcg_vocabulary *vocab);

/* As gcg_artifact_open_file / _memory, with the vocabulary `vocab`, which
 * must outlive the artifact. A by-reference artifact borrows its token bytes
 * and trie from it; any artifact with a vocabulary must match its
 * fingerprint, else GCG_ERR_VOCAB_MISMATCH ("vocabulary does not match the
 * artifact: fingerprint X, expected Y"). Opening a by-reference artifact
 * without a vocabulary (vocab NULL, or gcg_artifact_open_file) fails with
 * GCG_ERR_VOCAB_MISMATCH too. */
GCG_API gcg_status gcg_artifact_open_file_vocab(const char *path, const gcg_vocabulary *vocab,
                                                gcg_artifact **out, gcg_error *err);
GCG_API gcg_status gcg_artifact_open_memory_vocab(const void *data, size_t size,
                                                  const gcg_vocabulary *vocab, gcg_artifact **out,
                                                  gcg_error *err);

/* The fingerprint of the artifact's vocabulary (0 when it has none), and
 * whether the vocabulary is embedded (false: compiled by reference). */
GCG_API uint64_t gcg_artifact_vocab_fingerprint(const gcg_artifact *art, bool *embedded);

/* ===================================================================== */
/* 3. Matchers                                                            */
/* ===================================================================== */

typedef struct gcg_matcher gcg_matcher;

typedef struct gcg_matcher_options {
    uint32_t max_rollback;   /* commits kept for rollback (default 32)               */
    uint32_t initial_nodes;  /* graph-structured-stack nodes to allocate up front
                                (default 4096; the pool grows when needed)            */
    uint32_t max_nodes;      /* hard limit on live stack nodes; a commit that would
                                exceed it fails with GCG_ERR_LIMIT (default 1<<26)    */
    uint64_t max_commit_work; /* 0 (default): no limit. Otherwise the most work one
                                commit may do, in units of one LR action read, one
                                stack edge followed or one edge made (what
                                gcg_commit_stats.work counts); a commit that would
                                pass it fails with GCG_ERR_LIMIT, state unchanged   */
    uint32_t max_mask_work;  /* 0 (default): no limit. Otherwise the most stack edges
                                one fill_mask may follow (gcg_mask_stats.edges);
                                past it fill_mask returns GCG_ERR_LIMIT, the mask
                                words are unspecified and the matcher unchanged     */
} gcg_matcher_options;

/* Work limits in practice. A grammar whose certificate (section 5) is bounded
 * needs no mask limit: every mask follows at most max_edges edges, whatever
 * the input. For an unbounded grammar (typically an ambiguous one, e.g.
 * `e ::= e e | ...`) one commit can cost time quadratic in the text and a
 * mask time linear in it, so a server that accepts grammars from users should
 * set both limits (e.g. max_commit_work 1<<20, about a millisecond, and
 * max_mask_work 1<<16) and treat GCG_ERR_LIMIT as "this grammar is too
 * ambiguous for this text": roll back, or end the sequence. */

/* Fills *opt with the defaults. */
GCG_API void gcg_matcher_options_default(gcg_matcher_options *opt);

/* Creates a matcher at the start of a sentence. `opt` may be NULL for the
 * defaults. The artifact must outlive the matcher. On failure *out is NULL
 * and err (when not NULL) says why: GCG_ERR_ARG for a NULL argument or
 * max_nodes = 0, GCG_ERR_LIMIT when max_nodes cannot hold the start state,
 * GCG_ERR_NOMEM. */
GCG_API gcg_status gcg_matcher_new(const gcg_artifact *art, const gcg_matcher_options *opt,
                                   gcg_matcher **out, gcg_error *err);

/* Frees a matcher. NULL is a no-op. */
GCG_API void gcg_matcher_free(gcg_matcher *m);

/* Commits one token: all its bytes, or — for an EOS token — the end of the
 * sentence. Atomic: on any error the matcher is exactly as before.
 * Returns GCG_ERR_TOKEN_RANGE for an id outside the vocabulary, GCG_ERR_REJECTED
 * for a token the grammar does not allow here (special tokens other than EOS
 * are never allowed), GCG_ERR_TERMINATED after EOS. */
GCG_API gcg_status gcg_matcher_commit(gcg_matcher *m, uint32_t token);

/* Commits raw bytes (one rollback step). Atomic. On GCG_ERR_REJECTED,
 * *consumed (if not NULL) receives the offset in `bytes` of the first byte
 * that cannot be consumed; on success it receives n. Works without a vocabulary. */
GCG_API gcg_status gcg_matcher_commit_bytes(gcg_matcher *m, const uint8_t *bytes, size_t n,
                                            size_t *consumed);

/* Commits the end of the sentence (what an EOS token does). Fails with
 * GCG_ERR_REJECTED when the committed text is not a complete sentence. */
GCG_API gcg_status gcg_matcher_commit_eos(gcg_matcher *m);

/* Undoes the last n commits (tokens, byte runs or EOS). Fails with
 * GCG_ERR_ROLLBACK, changing nothing, if fewer than n are kept. */
GCG_API gcg_status gcg_matcher_rollback(gcg_matcher *m, uint32_t n);

/* Number of commits that can currently be rolled back. */
GCG_API uint32_t gcg_matcher_rollback_depth(const gcg_matcher *m);

/* Back to the start of the sentence; keeps the pools. */
GCG_API void gcg_matcher_reset(gcg_matcher *m);

/* True iff the committed text is a complete sentence (EOS would be allowed). */
GCG_API bool gcg_matcher_is_complete(const gcg_matcher *m);

/* True iff EOS has been committed. */
GCG_API bool gcg_matcher_is_terminated(const gcg_matcher *m);

/* ===================================================================== */
/* 4. Masks                                                               */
/* ===================================================================== */

/* Fills `words` with the allowed-token mask: bit (i % 32) of words[i / 32] is
 * set iff token i may be committed next (EOS tokens iff the text is complete).
 * Bits at or past the vocabulary size are zero. n_words must be at least
 * gcg_artifact_mask_words(); words past that are left untouched.
 * Reads the stack once with the artifact's mask automaton; never allocates.
 * After EOS has been committed the mask is empty. GCG_ERR_LIMIT when the walk
 * would follow more than max_mask_work edges (the words are then unspecified;
 * the matcher is unchanged). */
GCG_API gcg_status gcg_matcher_fill_mask(gcg_matcher *m, uint32_t *words, size_t n_words);

/* The same mask computed the naive way: every token's bytes are tried against
 * a copy of the stack, sharing work along a token trie. Slow (it is the
 * baseline the automaton replaces); kept for tests and benchmarks. */
GCG_API gcg_status gcg_matcher_fill_mask_bruteforce(gcg_matcher *m, uint32_t *words, size_t n_words);

/* ===================================================================== */
/* 5. Introspection                                                       */
/* ===================================================================== */

/* The worst-case bound the compiler proved for one whole fill_mask (every
 * frontier node, every stack edge), for any input. Set operations (the
 * 16 KB ORs that dominate a mask) are bounded for every grammar: each
 * automaton transition's token set is OR-ed at most once per mask.
 * With GLR conflicts the bound is the most stacks a fork can keep alive at
 * once (found by exploring every configuration of coexisting stacks, with
 * equal nodes shared as the runtime shares them) times the reads of one
 * stack; a fork whose stacks keep multiplying or growing with the input is
 * unbounded for ambiguity. When !bounded, stack reads and edges have no
 * bound: `unbounded_reason` says why and `unbounded_rule` names a rule. In practice "unbounded" means
 * a mask (and a commit) can cost time proportional to the committed text
 * (a run read through) or worse (ambiguity: e.g. cubic in the input for
 * grammars like grammars/ambiguous.gbnf); a server taking user grammars
 * should then set the work limits of gcg_matcher_options. */
typedef enum gcg_unbounded_reason {
    GCG_UNBOUNDED_NONE = 0,
    GCG_UNBOUNDED_RECURSION = 1, /* recursion the mask must read through             */
    GCG_UNBOUNDED_AMBIGUITY = 2  /* a GLR fork whose stacks grow with the input       */
} gcg_unbounded_reason;

typedef struct gcg_certificate {
    bool bounded;              /* false: some mask may read unboundedly deep          */
    uint32_t max_stack_reads;  /* stack nodes whose edges one mask reads, in total    */
    uint32_t max_set_ops;      /* token-set unions of one mask (bounded always)       */
    uint32_t max_edges;        /* stack edges one mask follows, in total              */
    uint64_t max_bytes;        /* most bytes of token sets touched per frontier node  */
    gcg_unbounded_reason unbounded_reason;
    char unbounded_rule[64];   /* when !bounded: a grammar rule that causes it        */
    /* The commit bound: the most work (gcg_commit_stats units) one step of a
     * commit does, a byte or the end-of-input check, so a commit of n bytes
     * does at most n + 1 times it. Stated for grammars whose LR tables have
     * no conflicts (the stack stays one stack), and for those with conflicts
     * whose forks the mask bound's analysis bounds (its steps bounded too;
     * such a bound is looser); otherwise, and for token references where a
     * commit may follow a reference and the token's text at once, the
     * reason is GCG_UNBOUNDED_AMBIGUITY and no bound is stated;
     * GCG_UNBOUNDED_RECURSION when one terminal can close a recursion all
     * the way down the stack (the rule is named); NONE in artifacts written
     * before the bound existed. */
    bool commit_bounded;
    uint32_t max_commit_step_work;
    gcg_unbounded_reason commit_unbounded_reason;
    char commit_unbounded_rule[64];
} gcg_certificate;

GCG_API gcg_status gcg_artifact_certificate(const gcg_artifact *art, gcg_certificate *out);

/* What the last fill_mask did, for benchmarks that check the certificate. A
 * run of equal frames kept as one edge (uncertified grammars only) counts
 * each copy it reads as a stack read and an edge. */
typedef struct gcg_mask_stats {
    uint32_t frontier_nodes;   /* stack tops read                                    */
    uint32_t max_stack_reads;  /* deepest read below any top                          */
    uint32_t set_ops;          /* token-set unions performed (every one)              */
    uint32_t stack_reads;      /* stack nodes whose edges were read, in total         */
    uint32_t edges;            /* stack edges followed, in total                      */
} gcg_mask_stats;

GCG_API void gcg_matcher_last_mask_stats(const gcg_matcher *m, gcg_mask_stats *out);

/* What the last commit (token, bytes or EOS; successful or not) did. */
typedef struct gcg_commit_stats {
    uint64_t work;             /* actions read + stack edges followed or made        */
    uint64_t max_step_work;    /* the most of it spent on one step (a byte, or the
                                  end-of-input check that sets is_complete)         */
} gcg_commit_stats;

GCG_API void gcg_matcher_last_commit_stats(const gcg_matcher *m, gcg_commit_stats *out);

/* Bytes currently held by the matcher: the stack pools, the GLR step's work
 * arrays, history, and both mask builders' working memory (the sum of each
 * part's own size). */
GCG_API size_t gcg_matcher_memory(const gcg_matcher *m);

/* ===================================================================== */
/* 6. Lazy grammars and triggers                                          */
/* ===================================================================== */

/* An artifact compiled with triggers (gcgc compile --trigger-word W,
 * --trigger-pattern RE, --trigger-pattern-full RE, --trigger-token ID) is
 * lazy: a gcg_lazy over it starts in FREE mode, where the grammar constrains
 * nothing — every token is in the mask, special and EOS tokens included (as
 * llama.cpp's lazy grammars before their trigger) — while the triggers
 * watch the committed text, one DFA step per byte and trigger (no
 * rescanning). When one fires, the grammar starts where llama.cpp starts
 * it and the bytes from there to the end of the committed token are
 * replayed into a gcg_matcher; from then on (GRAMMAR mode) masks and
 * commits are the grammar's.
 *
 * Where the grammar starts:
 *   - word W: at the start of the first occurrence of W to end (on bytes;
 *     inside a longer word too, as llama.cpp: "xW" fires). Several words
 *     ending at the same byte: the longest. Of "ab" and "bc" on "abc", "ab"
 *     ends first and fires; the grammar receives "abc" from the token's rest.
 *   - pattern RE: at the first byte where some match of RE ends; the match
 *     is the leftmost one ending there; the grammar starts at its first
 *     capture group (which must be at the top level of RE), else at the
 *     match's start. A group that matched empty still decides the start.
 *   - pattern_full RE: the same, with RE matching all the text from the
 *     first byte (checked after every byte).
 *   - token ID: committing it; its bytes (none for a special token) start
 *     the grammar.
 * A commit whose replayed bytes the grammar rejects fails with
 * GCG_ERR_REJECTED and changes nothing (the free-mode mask cannot foresee
 * it). Rollback crosses the switch in either direction.
 *
 * Reasoning budget: with budget_tokens = N > 0, after N tokens committed in
 * FREE mode without a trigger, the mode becomes FORCING: the mask allows
 * only the tokens that continue the first trigger word (the closing tag,
 * e.g. "</think>") from as much of it as the text already ends with — or,
 * when the artifact has trigger tokens, exactly the first of them. Committing
 * the rest of the tag fires the trigger. */

typedef struct gcg_lazy gcg_lazy;

typedef enum gcg_lazy_mode {
    GCG_LAZY_FREE = 0,     /* before any trigger: every token allowed          */
    GCG_LAZY_FORCING = 1,  /* budget spent: only the closing tag's tokens      */
    GCG_LAZY_GRAMMAR = 2   /* a trigger fired: the grammar's masks             */
} gcg_lazy_mode;

typedef struct gcg_lazy_options {
    gcg_matcher_options matcher; /* for the grammar's matcher; max_rollback is
                                    also the lazy layer's rollback depth        */
    uint32_t budget_tokens;      /* 0: none; see "Reasoning budget" above       */
    size_t initial_text;         /* bytes of free text kept before growing
                                    (default 4096; grows geometrically)         */
} gcg_lazy_options;

/* True iff the artifact carries triggers (was compiled lazy). */
GCG_API bool gcg_artifact_is_lazy(const gcg_artifact *art);

GCG_API void gcg_lazy_options_default(gcg_lazy_options *opt);

/* Creates a lazy matcher in FREE mode. GCG_ERR_ARG when the artifact has no
 * triggers or no vocabulary, or when budget_tokens is set but there is no
 * trigger word or token to force; otherwise as gcg_matcher_new. */
GCG_API gcg_status gcg_lazy_new(const gcg_artifact *art, const gcg_lazy_options *opt,
                                gcg_lazy **out, gcg_error *err);

GCG_API void gcg_lazy_free(gcg_lazy *lz);

/* As gcg_matcher_commit / commit_bytes / commit_eos, in the current mode.
 * Atomic. In FREE mode any token may be committed (EOS ends the sequence);
 * in FORCING mode only the mask's tokens. */
GCG_API gcg_status gcg_lazy_commit(gcg_lazy *lz, uint32_t token);
GCG_API gcg_status gcg_lazy_commit_bytes(gcg_lazy *lz, const uint8_t *bytes, size_t n);
GCG_API gcg_status gcg_lazy_commit_eos(gcg_lazy *lz);

/* Undoes the last n commits, across the switch too. GCG_ERR_ROLLBACK when
 * fewer are kept. */
GCG_API gcg_status gcg_lazy_rollback(gcg_lazy *lz, uint32_t n);

/* Back to FREE mode at the start. */
GCG_API void gcg_lazy_reset(gcg_lazy *lz);

GCG_API gcg_lazy_mode gcg_lazy_get_mode(const gcg_lazy *lz);

/* In GRAMMAR mode: the offset in the whole committed text where the grammar
 * started (the matcher has seen the text from there). SIZE_MAX otherwise. */
GCG_API size_t gcg_lazy_grammar_start(const gcg_lazy *lz);

/* The mask of the current mode (see above); as gcg_matcher_fill_mask. */
GCG_API gcg_status gcg_lazy_fill_mask(gcg_lazy *lz, uint32_t *words, size_t n_words);

/* The same mask computed the naive way (every token tried in FORCING mode,
 * gcg_matcher_fill_mask_bruteforce in GRAMMAR mode), for tests. */
GCG_API gcg_status gcg_lazy_fill_mask_bruteforce(gcg_lazy *lz, uint32_t *words, size_t n_words);

/* FREE: true (EOS allowed) until EOS; FORCING: false; GRAMMAR: the matcher's. */
GCG_API bool gcg_lazy_is_complete(const gcg_lazy *lz);
GCG_API bool gcg_lazy_is_terminated(const gcg_lazy *lz);

/* ===================================================================== */
/* 7. Batches                                                             */
/* ===================================================================== */

/* An inference engine decodes a batch of sequences in lock step: each step
 * needs every sequence's mask, in one buffer, before the model samples, and
 * then commits every sampled token. The batch calls below do both for B
 * matchers at once, spread over a thread pool. Each row behaves exactly as
 * the single call on that matcher; matchers of different artifacts may be
 * mixed in one batch. A batch call never allocates.
 *
 * The matchers of one call must be distinct (a matcher is used by one thread
 * at a time), and no other thread may use them during the call. */

/* A fork-join pool of threads that runs batch calls. Its workers wait for
 * work by spinning briefly (a few tens of microseconds, so that the next
 * decode step finds them awake) and then sleep. A pool runs one batch call
 * at a time; concurrent calls on the same pool take turns. */
typedef struct gcg_pool gcg_pool;

/* Creates a pool of n_threads threads in all, the calling thread included:
 * n_threads - 1 workers are started (none for 0 or 1). Returns GCG_ERR_NOMEM
 * (with *out NULL) when memory or threads run out. The workers inherit the
 * calling thread's CPU affinity: create the pool before pinning that thread
 * to one CPU, or the workers share it. Row i of a batch tends to run on the
 * same thread from call to call (the caller takes rows from the front, the
 * workers from the back), so its matcher stays in that core's cache. */
GCG_API gcg_status gcg_pool_new(uint32_t n_threads, gcg_pool **out);

/* Stops and joins the workers. Not during a batch call. NULL is a no-op. */
GCG_API void gcg_pool_free(gcg_pool *pool);

/* Threads that run a batch call, the caller included (1 for NULL). */
GCG_API uint32_t gcg_pool_threads(const gcg_pool *pool);

/* Fills the masks of matchers[0..n): row i, words[i * row_words ..
 * (i + 1) * row_words), receives matchers[i]'s mask as gcg_matcher_fill_mask
 * writes it, and the words of the row past that matcher's
 * gcg_artifact_mask_words are zeroed, so rows of a mixed batch are all
 * row_words long (a buffer of int32 words, as model frameworks hold them,
 * has the same bits). `pool` NULL runs on the calling thread.
 * `status` (n entries, or NULL) receives each row's status: GCG_ERR_ARG for a
 * NULL matcher or a row shorter than its matcher's mask (that row is zeroed),
 * else the single call's. Returns GCG_OK when every row succeeded, else the
 * status of the lowest failed row; GCG_ERR_ARG, touching nothing, when
 * matchers or words is NULL while n > 0. n = 0 does nothing. */
GCG_API gcg_status gcg_batch_fill_masks(gcg_pool *pool, gcg_matcher *const *matchers, size_t n, uint32_t *words,
                                size_t row_words, gcg_status *status);

/* Commits tokens[i] to matchers[i] for every i < n, as gcg_matcher_commit
 * does: a row whose token is refused (GCG_ERR_REJECTED, _TOKEN_RANGE,
 * _TERMINATED, ...) leaves that matcher unchanged, and the other rows are
 * committed all the same. `status` and the return value as for
 * gcg_batch_fill_masks; GCG_ERR_ARG for a NULL matcher row. */
GCG_API gcg_status gcg_batch_commit(gcg_pool *pool, gcg_matcher *const *matchers, const uint32_t *tokens, size_t n,
                            gcg_status *status);

/* ===================================================================== */
/* 8. Jump-forward                                                        */
/* ===================================================================== */

/* The longest byte string every continuation of the committed text must
 * start with: after `{"na` with a grammar whose only object has one
 * property `name` (no whitespace), `me":`. Engines can commit it without
 * running the model. Empty when the text is complete (EOS is allowed) or
 * when two different bytes may come next, and after EOS. Writes at most
 * `cap` bytes to buf and their count to *len; the matcher is unchanged.
 * Costs up to 256 trial steps per byte: call it once per token, not per
 * vocabulary entry. Allocates a private copy of the frontier. */
gcg_status gcg_matcher_forced_bytes(gcg_matcher *m, uint8_t *buf, size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif
#endif /* GCG_H */
