/*
 * traces.h — token sequences the benchmark replays.
 *
 * A trace file has one sequence a line: token ids in decimal separated by
 * spaces or tabs (the format `gcg replay` reads and make_traces.mjs writes).
 * An empty line is an empty sequence. Generated workloads (walks.h) produce
 * the same structure, so every workload is replayed by the same loop.
 */
#ifndef GCG_BENCH_TRACES_H
#define GCG_BENCH_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct bench_seq {
    size_t start;   /* index of the first token in the set's token array    */
    uint32_t n;     /* number of tokens (EOS not included)                   */
    bool eos;       /* commit EOS after the last token                       */
} bench_seq;

typedef struct bench_seqset {
    uint32_t *tok;    /* all tokens, sequence after sequence  */
    size_t n_tok, cap_tok;
    bench_seq *seq;   /* the sequences                        */
    size_t n_seq, cap_seq;
} bench_seqset;

void bench_seqset_init(bench_seqset *s);
void bench_seqset_free(bench_seqset *s);

/* Starts a new, empty sequence; false when out of memory. */
bool bench_seqset_begin(bench_seqset *s);

/* Appends a token to the last sequence; false when out of memory. */
bool bench_seqset_push(bench_seqset *s, uint32_t token);

/* The tokens of sequence i. */
static inline const uint32_t *bench_seqset_tokens(const bench_seqset *s, size_t i) {
    return s->tok + s->seq[i].start;
}

/* Reads a trace file, appending one sequence per line, each ending with EOS
 * (a document is a complete sentence). Keeps at most max_seq sequences
 * (0 = all). On error returns false with a message in err (err_len bytes):
 * "FILE:LINE: ..." for a malformed line. */
bool bench_traces_read(const char *path, size_t max_seq, bench_seqset *s, char *err, size_t err_len);

/* Parses one line of ids into a new sequence (same rules as the file). */
bool bench_traces_parse_line(const char *line, bench_seqset *s, char *err, size_t err_len);

#endif /* GCG_BENCH_TRACES_H */
