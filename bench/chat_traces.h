/*
 * chat_traces.h — the chat benchmark's traces (written by chat_traces.mjs).
 *
 * One trace a line: segments separated by " | ", each a kind word then token
 * ids. Every token keeps its segment's kind, which is how chat.c tells free
 * text, tags and the inside of a tool call apart.
 */
#ifndef GCG_BENCH_CHAT_TRACES_H
#define GCG_BENCH_CHAT_TRACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum chat_seg {
    CHAT_PROSE = 0,
    CHAT_THINK_OPEN,
    CHAT_THINK,
    CHAT_THINK_CLOSE,
    CHAT_CALL_OPEN,
    CHAT_CALL,
    CHAT_CALL_CLOSE,
    CHAT_N_SEGS
} chat_seg;

typedef struct chat_trace {
    size_t start;  /* first token in the set's arrays */
    uint32_t n;    /* tokens                          */
} chat_trace;

typedef struct chat_traceset {
    uint32_t *tok;    /* token ids, trace after trace      */
    uint8_t *seg;     /* each token's chat_seg             */
    size_t n_tok, cap_tok;
    chat_trace *tr;
    size_t n_tr, cap_tr;
} chat_traceset;

void chat_traceset_init(chat_traceset *s);
void chat_traceset_free(chat_traceset *s);

/* Reads at most max_traces traces (0: all) from path. On error returns false
 * with "FILE:LINE: ..." in err. */
bool chat_traces_read(const char *path, size_t max_traces, chat_traceset *s, char *err, size_t err_len);

/* The kind word of a segment ("prose", "call_open", ...). */
const char *chat_seg_name(chat_seg k);

#endif /* GCG_BENCH_CHAT_TRACES_H */
