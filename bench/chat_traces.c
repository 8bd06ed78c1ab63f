/*
 * chat_traces.c — reading the chat benchmark's segmented traces.
 */
#define _POSIX_C_SOURCE 200809L
#include "chat_traces.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const SEG_NAMES[CHAT_N_SEGS] = {"prose", "think_open", "think", "think_close",
                                                   "call_open", "call", "call_close"};

const char *chat_seg_name(chat_seg k) { return k < CHAT_N_SEGS ? SEG_NAMES[k] : "?"; }

void chat_traceset_init(chat_traceset *s) { memset(s, 0, sizeof *s); }

void chat_traceset_free(chat_traceset *s) {
    free(s->tok);
    free(s->seg);
    free(s->tr);
    chat_traceset_init(s);
}

static bool push_token(chat_traceset *s, uint32_t tok, uint8_t seg) {
    if (s->n_tok == s->cap_tok) {
        size_t cap = s->cap_tok ? 2 * s->cap_tok : 4096;
        uint32_t *t = realloc(s->tok, cap * sizeof *t);
        if (!t) return false;
        s->tok = t;
        uint8_t *g = realloc(s->seg, cap);
        if (!g) return false;
        s->seg = g;
        s->cap_tok = cap;
    }
    s->tok[s->n_tok] = tok;
    s->seg[s->n_tok++] = seg;
    return true;
}

static bool begin_trace(chat_traceset *s) {
    if (s->n_tr == s->cap_tr) {
        size_t cap = s->cap_tr ? 2 * s->cap_tr : 64;
        chat_trace *t = realloc(s->tr, cap * sizeof *t);
        if (!t) return false;
        s->tr = t;
        s->cap_tr = cap;
    }
    s->tr[s->n_tr++] = (chat_trace){s->n_tok, 0};
    return true;
}

static int seg_of(const char *w) {
    for (int k = 0; k < CHAT_N_SEGS; k++)
        if (!strcmp(w, SEG_NAMES[k])) return k;
    return -1;
}

/* One line: "kind id id | kind id ...". */
static bool parse_line(char *line, chat_traceset *s, const char *where, char *err, size_t len) {
    if (!begin_trace(s)) return snprintf(err, len, "%s: out of memory", where), false;
    int seg = -1;
    for (char *w = strtok(line, " \t\r\n"); w; w = strtok(NULL, " \t\r\n")) {
        if (!strcmp(w, "|")) {
            seg = -1;
            continue;
        }
        if (seg < 0) {
            if ((seg = seg_of(w)) < 0) return snprintf(err, len, "%s: unknown segment kind '%s'", where, w), false;
            continue;
        }
        char *end;
        errno = 0;
        unsigned long v = strtoul(w, &end, 10);
        if (*end || errno || v > UINT32_MAX || w[0] == '-')
            return snprintf(err, len, "%s: bad token id '%s'", where, w), false;
        if (!push_token(s, (uint32_t)v, (uint8_t)seg)) return snprintf(err, len, "%s: out of memory", where), false;
        s->tr[s->n_tr - 1].n++;
    }
    return true;
}

bool chat_traces_read(const char *path, size_t max_traces, chat_traceset *s, char *err, size_t err_len) {
    FILE *f = fopen(path, "r");
    if (!f) return snprintf(err, err_len, "%s: %s", path, strerror(errno)), false;
    char *line = NULL, where[600];
    size_t cap = 0;
    bool ok = true;
    for (size_t no = 1; ok && getline(&line, &cap, f) >= 0 && (!max_traces || s->n_tr < max_traces); no++) {
        snprintf(where, sizeof where, "%s:%zu", path, no);
        ok = parse_line(line, s, where, err, err_len);
    }
    if (ok && ferror(f)) ok = (snprintf(err, err_len, "%s: read error", path), false);
    free(line);
    fclose(f);
    return ok;
}
