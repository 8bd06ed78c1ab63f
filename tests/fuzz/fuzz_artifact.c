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
 * Must never crash, leak or read out of bounds, whatever the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xxhash.h>

#include "container.h"

#define HEADER_SIZE 48u
#define ENTRY_SIZE 32u

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

/* Reads every byte of every section, so out-of-bounds views show up under
 * ASan; returns a value the optimizer cannot discard. */
static unsigned touch_sections(const gcg_container *c)
{
    unsigned sum = 0;
    for (uint32_t i = 0; i < c->n_sections; i++) {
        uint64_t n;
        const uint8_t *p = gcg_container_section(c, c->sections[i].id, &n);
        for (uint64_t k = 0; p && k < n; k++)
            sum += p[k];
    }
    return sum;
}

static void exercise(const uint8_t *art, size_t n, const uint8_t *tail, size_t tail_n)
{
    (void)tail;
    (void)tail_n;
    gcg_container c;
    gcg_error err;
    if (gcg_container_parse(art, n, &c, &err) == GCG_OK) {
        volatile unsigned sink = touch_sections(&c);
        (void)sink;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n = artifact_length(data, size);
    uint8_t *copy = malloc(n ? n : 1); /* malloc's alignment suffices for parse */
    if (!copy)
        return 0;
    if (n)
        memcpy(copy, data, n);
    repair(copy, n);
    exercise(copy, n, size > n ? data + n : NULL, size - n);
    free(copy);
    return 0;
}
