/*
 * traces.c — growable token-sequence sets and the trace file reader
 * (format in traces.h).
 */
#include "traces.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bench_seqset_init(bench_seqset *s) { memset(s, 0, sizeof *s); }

void bench_seqset_free(bench_seqset *s) {
    free(s->tok);
    free(s->seq);
    bench_seqset_init(s);
}

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return true;
    size_t c = *cap ? *cap : 256;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) return false;
    *p = q;
    *cap = c;
    return true;
}

bool bench_seqset_begin(bench_seqset *s) {
    if (!grow((void **)&s->seq, &s->cap_seq, s->n_seq + 1, sizeof *s->seq)) return false;
    s->seq[s->n_seq++] = (bench_seq){.start = s->n_tok, .n = 0, .eos = false};
    return true;
}

bool bench_seqset_push(bench_seqset *s, uint32_t token) {
    if (s->n_seq == 0 || !grow((void **)&s->tok, &s->cap_tok, s->n_tok + 1, sizeof *s->tok)) return false;
    s->tok[s->n_tok++] = token;
    s->seq[s->n_seq - 1].n++;
    return true;
}

bool bench_traces_parse_line(const char *line, bench_seqset *s, char *err, size_t err_len) {
    if (!bench_seqset_begin(s)) {
        snprintf(err, err_len, "out of memory");
        return false;
    }
    s->seq[s->n_seq - 1].eos = true;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (!*p) return true;
        if (*p < '0' || *p > '9') {
            snprintf(err, err_len, "column %zu: expected a token id, found '%c'", (size_t)(p - line) + 1, *p);
            return false;
        }
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        if (errno || v > UINT32_MAX) {
            snprintf(err, err_len, "column %zu: token id out of range", (size_t)(p - line) + 1);
            return false;
        }
        if (!bench_seqset_push(s, (uint32_t)v)) {
            snprintf(err, err_len, "out of memory");
            return false;
        }
        p = end;
    }
}

bool bench_traces_read(const char *path, size_t max_seq, bench_seqset *s, char *err, size_t err_len) {
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_len, "%s: %s", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    bool ok = true;
    char msg[200];
    while ((max_seq == 0 || lineno < max_seq) && getline(&line, &cap, f) >= 0) {
        lineno++;
        if (!bench_traces_parse_line(line, s, msg, sizeof msg)) {
            snprintf(err, err_len, "%s:%zu: %s", path, lineno, msg);
            ok = false;
            break;
        }
    }
    free(line);
    fclose(f);
    return ok;
}
