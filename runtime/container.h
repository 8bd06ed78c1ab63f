/*
 * container.h — the .gcg file container: a header, a section table, and
 * 64-byte-aligned sections, each with an XXH3-64 checksum.
 *
 * Layout (all integers little-endian):
 *
 *   offset 0   gcg_file_header (48 bytes)
 *   offset 48  gcg_section_entry[n_sections] (32 bytes each)
 *   then       sections, each starting at a multiple of 64, zero padding between
 *
 * header.table_hash is XXH3-64 of the header (with table_hash taken as 0) and
 * the section table. header.file_size must equal the size of the file.
 * Section ids are unique; what each section holds is defined in
 * artifact_format.h. The container knows nothing about section contents.
 *
 * A reader accepts format_version >= its own oldest readable version and
 * min_reader_version <= its own version: a newer writer may add sections an
 * older reader ignores, and raises min_reader_version when it changes one.
 */
#ifndef GCG_CONTAINER_H
#define GCG_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

#include "gcg.h"

#define GCG_MAGIC "\x89GCG\r\n\x1a\n" /* 8 bytes: high bit, name, line-ending traps */
#define GCG_MAGIC_SIZE 8
#define GCG_FORMAT_VERSION 2     /* what this code writes                 */
#define GCG_FORMAT_OLDEST 2      /* oldest format_version this code reads */
#define GCG_SECTION_ALIGN 64
#define GCG_MAX_SECTIONS 64

typedef struct gcg_file_header {
    uint8_t magic[8];
    uint32_t format_version;     /* version of the writer                       */
    uint32_t min_reader_version; /* oldest reader version that understands it   */
    uint32_t header_size;        /* sizeof(gcg_file_header) = 48                */
    uint32_t n_sections;         /* entries in the section table (<= 64)        */
    uint64_t file_size;          /* total bytes, must equal the file's size     */
    uint64_t table_hash;         /* XXH3-64 of header (this field 0) + table    */
    uint64_t reserved;           /* 0                                           */
} gcg_file_header;

typedef struct gcg_section_entry {
    uint32_t id;      /* GCG_SEC_* from artifact_format.h, unique in the file */
    uint32_t flags;   /* 0; reserved                                         */
    uint64_t offset;  /* from file start, multiple of 64                      */
    uint64_t size;    /* bytes                                                */
    uint64_t hash;    /* XXH3-64 of the section's bytes                       */
} gcg_section_entry;

/* A validated view of a container in memory. Does not own `base`. */
typedef struct gcg_container {
    const uint8_t *base;
    size_t size;
    uint32_t format_version;
    uint32_t n_sections;
    const gcg_section_entry *sections; /* points into base */
} gcg_container;

/* Validates the header, the section table (bounds, alignment, overlap,
 * unique ids) and every section checksum. `data` must be 8-byte aligned.
 * Errors: GCG_ERR_FORMAT (with err->offset at the offending byte) or
 * GCG_ERR_VERSION. */
gcg_status gcg_container_parse(const uint8_t *data, size_t size, gcg_container *out,
                               gcg_error *err);

/* The bytes of section `id`, or NULL (with *size = 0) when absent. */
const uint8_t *gcg_container_section(const gcg_container *c, uint32_t id, uint64_t *size);

#endif /* GCG_CONTAINER_H */
