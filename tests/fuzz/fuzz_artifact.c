/*
 * fuzz_artifact.c — libFuzzer target for the artifact loader.
 *
 * Input: a .gcg file, optionally followed by a tail of bytes. When the input
 * starts with a header and section table, the header's file_size field (if
 * no larger than the input) says where the artifact ends and the tail begins.
 *
 * A fuzzer never forges XXH3, so checksums would stop every mutation at the
 * first check. The harness therefore repairs the copy it loads: each section
 * that lies inside the artifact gets its hash recomputed, then the table
 * hash. Everything the loader checks after the checksums — bounds, overlap,
 * versions, section contents — is reached by mutated inputs.
 *
 * The input is also opened as a prepared vocabulary (.gcgv) and, when that
 * succeeds, the artifact is opened with it. An artifact that opens is then
 * used: a matcher commits the tail in a few
 * byte runs and token ids, fills masks (automaton and brute force), rolls
 * back, commits EOS, and is freed.
 *
 * Must never crash, leak or read out of bounds, whatever the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "container.h"
#include "gcg.h"

#define HEADER_SIZE 48u
#define ENTRY_SIZE 32u
#define MAX_TAIL 64u   /* bytes of the tail used; keeps each input fast */
#define MAX_MASK_WORDS (1u << 14) /* masks larger than 512k tokens are skipped */

static uint64_t get_le(const uint8_t *p, unsigned width)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < width; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void put_le(uint8_t *p, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Number of section entries that fit in the input, or -1 when the input is
 * too short for the header and the table it announces. */
static long table_entries(const uint8_t *buf, size_t size)
{
    if (size < HEADER_SIZE)
        return -1;
    uint64_t n = get_le(buf + 20, 4);
    if (n > GCG_MAX_SECTIONS || HEADER_SIZE + n * ENTRY_SIZE > size)
        return -1;
    return (long)n;
}

/* Recomputes the checksums of every in-bounds section and of the table, as
 * the writer computes them (see container.h). */
static void repair(uint8_t *buf, size_t size)
{
    long n = table_entries(buf, size);
    if (n < 0)
        return;
    for (long i = 0; i < n; i++) {
        uint8_t *e = buf + HEADER_SIZE + (size_t)i * ENTRY_SIZE;
        uint64_t off = get_le(e + 8, 8), len = get_le(e + 16, 8);
        if (off <= size && len <= size - off)
            put_le(e + 24, 8, XXH3_64bits(buf + off, (size_t)len));
    }
    put_le(buf + 32, 8, 0);
    put_le(buf + 32, 8, XXH3_64bits(buf, HEADER_SIZE + (size_t)n * ENTRY_SIZE));
}

/* Where the artifact ends: its file_size field when that lies inside the
 * input, else the whole input. */
static size_t artifact_length(const uint8_t *data, size_t size)
{
    if (table_entries(data, size) < 0)
        return size;
    uint64_t fs = get_le(data + 24, 8);
    return fs <= size ? (size_t)fs : size;
}

/* Fills the mask both ways. They are not compared: a mutated artifact may
 * pass every structural check yet hold an automaton that does not match its
 * LR tables (test_mask_diff compares them on compiled artifacts). */
static void fill_masks(gcg_matcher *m, uint32_t *a, uint32_t *b, size_t words)
{
    (void)gcg_matcher_fill_mask(m, a, words);
    (void)gcg_matcher_fill_mask_bruteforce(m, b, words);
}

/* Commits the tail: each step takes one control byte, then either a run
 * of up to 8 bytes or a token id, or rolls back, or commits EOS. */
static void drive(gcg_matcher *m, const gcg_artifact *art, const uint8_t *t, size_t n,
                  uint32_t *a, uint32_t *b, size_t words)
{
    uint32_t vocab = gcg_artifact_vocab_size(art);
    while (n > 0) {
        uint8_t op = t[0];
        size_t len = 1 + (op >> 5);
        if (len > n - 1)
            len = n - 1;
        if ((op & 3) == 0) {
            size_t consumed;
            (void)gcg_matcher_commit_bytes(m, t + 1, len, &consumed);
        } else if ((op & 3) == 1 && len > 0) {
            uint32_t id = t[1] | (len > 1 ? (uint32_t)t[2] << 8 : 0);
            (void)gcg_matcher_commit(m, vocab ? id % (vocab + 1) : id);
        } else if ((op & 3) == 2) {
            (void)gcg_matcher_rollback(m, 1 + (op >> 6));
        } else {
            (void)gcg_matcher_commit_eos(m);
        }
        if (words)
            fill_masks(m, a, b, words);
        t += 1 + len;
        n -= 1 + len;
    }
}

static void exercise(const uint8_t *art_bytes, size_t n, const uint8_t *tail, size_t tail_n)
{
    /* The same bytes as a prepared vocabulary (a .gcgv, or the vocabulary
     * sections of a self-contained artifact); when they open, the artifact
     * is opened with them, so the fingerprint checks run too. */
    gcg_vocabulary *vocab = NULL;
    (void)gcg_vocabulary_open_memory(art_bytes, n, &vocab, NULL);
    (void)gcg_vocabulary_fingerprint(vocab);
    gcg_artifact *art = NULL;
    gcg_status st = gcg_artifact_open_memory_vocab(art_bytes, n, vocab, &art, NULL);
    if (st != GCG_OK) {
        gcg_vocabulary_free(vocab);
        return;
    }
    gcg_matcher_options opt;
    gcg_matcher_options_default(&opt);
    opt.max_rollback = 4;
    opt.max_nodes = 1u << 16;
    gcg_matcher *m = NULL;
    size_t words = gcg_artifact_mask_words(art);
    if (words > MAX_MASK_WORDS)
        words = 0;
    uint32_t *a = calloc(words ? words : 1, sizeof *a);
    uint32_t *b = calloc(words ? words : 1, sizeof *b);
    if (a && b && gcg_matcher_new(art, &opt, &m, NULL) == GCG_OK) {
        gcg_certificate cert;
        (void)gcg_artifact_certificate(art, &cert);
        drive(m, art, tail, tail_n < MAX_TAIL ? tail_n : MAX_TAIL, a, b, words);
        gcg_matcher_reset(m);
        if (words)
            fill_masks(m, a, b, words);
    }
    gcg_matcher_free(m);
    free(a);
    free(b);
    gcg_artifact_free(art);
    gcg_vocabulary_free(vocab);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = artifact_length(data, size);
    uint8_t *copy = malloc(n ? n : 1);
    if (!copy)
        return 0;
    if (n)
        memcpy(copy, data, n);
    repair(copy, n);
    exercise(copy, n, size > n ? data + n : NULL, size - n);
    free(copy);
    return 0;
}
