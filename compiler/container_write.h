/*
 * container_write.h — builds a .gcg container (see runtime/container.h):
 * add sections in any order, then write header, table, aligned sections and
 * checksums in one go.
 */
#ifndef GCG_CONTAINER_WRITE_H
#define GCG_CONTAINER_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "gcg.h"

typedef struct gcg_writer_section {
    uint32_t id;
    uint8_t *data;
    size_t size;
} gcg_writer_section;

typedef struct gcg_writer {
    gcg_writer_section sections[64];
    uint32_t n_sections;
} gcg_writer;

void gcg_writer_init(gcg_writer *w);

/* Copies `size` bytes as section `id`. GCG_ERR_ARG for a duplicate id or a
 * full table; GCG_ERR_NOMEM. */
gcg_status gcg_writer_add(gcg_writer *w, uint32_t id, const void *data, size_t size);

/* Adds the malloc'ed `data` as section `id` without copying it: the writer
 * frees it, also when it refuses it (errors as gcg_writer_add). For large
 * sections built once, such as the packed tables. */
gcg_status gcg_writer_take(gcg_writer *w, uint32_t id, uint8_t *data, size_t size);

/* The whole file in one malloc'ed buffer (*out, caller frees). */
gcg_status gcg_writer_finish(const gcg_writer *w, uint8_t **out, size_t *out_size);

/* Writes the file to `path` (via a temporary file and rename, so a reader
 * never sees half a file). */
gcg_status gcg_writer_save(const gcg_writer *w, const char *path, gcg_error *err);

void gcg_writer_free(gcg_writer *w);

#endif /* GCG_CONTAINER_WRITE_H */
