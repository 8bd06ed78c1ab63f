/*
 * container.c — validating a .gcg container (layout in container.h).
 *
 * Contract: gcg_container_parse reads only bytes in [data, data + size), for
 * any size and any content; every offset + size sum is checked without
 * overflow before use. Checks run in a fixed order and the first failure is
 * reported: header length, magic, versions, header fields, table length,
 * table checksum (once it matches, the entries are what a writer wrote),
 * each entry's bounds and uniqueness, then each section's checksum. Unknown section ids are accepted (forward
 * compatibility); padding bytes are not checked (no checksum covers them).
 */
#include <string.h>

#include <xxhash.h>

#include "container.h"
#include "error.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the .gcg section table is read in place and assumes a little-endian host"
#endif

_Static_assert(sizeof(gcg_file_header) == 48, "header layout is part of the file format");
_Static_assert(sizeof(gcg_section_entry) == 32, "entry layout is part of the file format");

#define HEADER_SIZE ((uint64_t)sizeof(gcg_file_header))
#define ENTRY_SIZE ((uint64_t)sizeof(gcg_section_entry))

/* Byte offsets of the header fields, for err->offset. */
enum {
    OFF_VERSION = 8,
    OFF_MIN_READER = 12,
    OFF_HEADER_SIZE = 16,
    OFF_N_SECTIONS = 20,
    OFF_FILE_SIZE = 24,
    OFF_TABLE_HASH = 32,
    OFF_RESERVED = 40
};

/* Byte offsets of the fields inside a section entry. */
enum { ENT_ID = 0, ENT_FLAGS = 4, ENT_OFFSET = 8, ENT_SIZE = 16 };

static uint64_t entry_pos(uint32_t i, unsigned field)
{
    return HEADER_SIZE + i * ENTRY_SIZE + field;
}

/* XXH3-64 of the header with table_hash taken as 0, followed by the table.
 * Hashing a copy keeps the input read-only and needs no streaming state. */
static uint64_t table_hash(const uint8_t *data, uint32_t n_sections)
{
    uint8_t buf[sizeof(gcg_file_header) + GCG_MAX_SECTIONS * sizeof(gcg_section_entry)];
    size_t len = HEADER_SIZE + n_sections * ENTRY_SIZE;
    memcpy(buf, data, len);
    memset(buf + OFF_TABLE_HASH, 0, 8);
    return XXH3_64bits(buf, len);
}

static gcg_status check_versions(const gcg_file_header *h, gcg_error *err)
{
    if (h->format_version < GCG_FORMAT_OLDEST)
        return gcg_error_set(err, GCG_ERR_VERSION, OFF_VERSION,
                             "format version %u is older than this reader (reads %u..%u)",
                             h->format_version, GCG_FORMAT_OLDEST, GCG_FORMAT_VERSION);
    if (h->min_reader_version == 0 || h->min_reader_version > h->format_version)
        return gcg_error_set(err, GCG_ERR_FORMAT, OFF_MIN_READER,
                             "min reader version %u is not in 1..%u (the format version)",
                             h->min_reader_version, h->format_version);
    if (h->min_reader_version > GCG_FORMAT_VERSION)
        return gcg_error_set(err, GCG_ERR_VERSION, OFF_MIN_READER,
                             "format version %u is newer than this reader (needs reader %u, "
                             "reads %u..%u)",
                             h->format_version, h->min_reader_version, GCG_FORMAT_OLDEST,
                             GCG_FORMAT_VERSION);
    return GCG_OK;
}

static gcg_status check_header_fields(const gcg_file_header *h, size_t size, gcg_error *err)
{
    if (h->header_size != HEADER_SIZE)
        return gcg_error_set(err, GCG_ERR_FORMAT, OFF_HEADER_SIZE,
                             "header size field %u is not %u", h->header_size,
                             (unsigned)HEADER_SIZE);
    if (h->n_sections > GCG_MAX_SECTIONS)
        return gcg_error_set(err, GCG_ERR_FORMAT, OFF_N_SECTIONS,
                             "%u sections (limit %u)", h->n_sections, GCG_MAX_SECTIONS);
    if (h->file_size != (uint64_t)size)
        return gcg_error_set(err, GCG_ERR_FORMAT, OFF_FILE_SIZE,
                             "file size field %llu does not match actual size %llu",
                             (unsigned long long)h->file_size, (unsigned long long)size);
    if (h->reserved != 0)
        return gcg_error_set(err, GCG_ERR_FORMAT, OFF_RESERVED,
                             "reserved header field is 0x%llx, not 0",
                             (unsigned long long)h->reserved);
    return GCG_OK;
}

static gcg_status check_header(const uint8_t *data, size_t size, gcg_file_header *h,
                               gcg_error *err)
{
    if (size < HEADER_SIZE)
        return gcg_error_set(err, GCG_ERR_FORMAT, size,
                             "truncated: need %u bytes of header, have %zu",
                             (unsigned)HEADER_SIZE, size);
    memcpy(h, data, sizeof *h);
    if (memcmp(h->magic, GCG_MAGIC, GCG_MAGIC_SIZE) != 0)
        return gcg_error_set(err, GCG_ERR_FORMAT, 0, "bad magic (not a .gcg file)");
    gcg_status st = check_versions(h, err);
    if (st != GCG_OK)
        return st;
    return check_header_fields(h, size, err);
}

static gcg_status check_table(const uint8_t *data, size_t size, const gcg_file_header *h,
                              gcg_error *err)
{
    uint64_t end = HEADER_SIZE + h->n_sections * ENTRY_SIZE;
    if (size < end)
        return gcg_error_set(err, GCG_ERR_FORMAT, size,
                             "truncated: need %llu bytes of header and section table, have %zu",
                             (unsigned long long)end, size);
    if (table_hash(data, h->n_sections) != h->table_hash)
        return gcg_error_set(err, GCG_ERR_FORMAT, OFF_TABLE_HASH,
                             "header or section table checksum mismatch");
    return GCG_OK;
}

/* Bounds of one entry: aligned, after the table, inside the file. The
 * size test is written as a subtraction so offset + size cannot overflow. */
static gcg_status check_entry_bounds(const gcg_section_entry *e, uint32_t i, uint64_t table_end,
                                     uint64_t size, gcg_error *err)
{
    if (e->flags != 0)
        return gcg_error_set(err, GCG_ERR_FORMAT, entry_pos(i, ENT_FLAGS),
                             "section %u (id %u): flags 0x%x, expected 0", i, e->id, e->flags);
    if (e->offset % GCG_SECTION_ALIGN != 0)
        return gcg_error_set(err, GCG_ERR_FORMAT, entry_pos(i, ENT_OFFSET),
                             "section %u (id %u): offset %llu is not a multiple of %u", i, e->id,
                             (unsigned long long)e->offset, GCG_SECTION_ALIGN);
    if (e->offset < table_end)
        return gcg_error_set(err, GCG_ERR_FORMAT, entry_pos(i, ENT_OFFSET),
                             "section %u (id %u): offset %llu lies inside the header and "
                             "section table (%llu bytes)",
                             i, e->id, (unsigned long long)e->offset,
                             (unsigned long long)table_end);
    if (e->offset > size || e->size > size - e->offset)
        return gcg_error_set(err, GCG_ERR_FORMAT,
                             entry_pos(i, e->offset > size ? ENT_OFFSET : ENT_SIZE),
                             "section %u (id %u): offset %llu + size %llu past end of file "
                             "(%llu bytes)",
                             i, e->id, (unsigned long long)e->offset,
                             (unsigned long long)e->size, (unsigned long long)size);
    return GCG_OK;
}

/* Entry i against the earlier entries: unique id, disjoint bytes. Empty
 * sections occupy no bytes and overlap nothing. n <= 64, so O(n^2) is fine. */
static gcg_status check_entry_against(const gcg_section_entry *t, uint32_t i, gcg_error *err)
{
    const gcg_section_entry *e = &t[i];
    for (uint32_t k = 0; k < i; k++) {
        const gcg_section_entry *o = &t[k];
        if (o->id == e->id)
            return gcg_error_set(err, GCG_ERR_FORMAT, entry_pos(i, ENT_ID),
                                 "section id %u appears twice (sections %u and %u)", e->id, k,
                                 i);
        if (o->offset < e->offset + e->size && e->offset < o->offset + o->size)
            return gcg_error_set(err, GCG_ERR_FORMAT, entry_pos(i, ENT_OFFSET),
                                 "sections %u and %u overlap (bytes %llu..%llu and %llu..%llu)",
                                 k, i, (unsigned long long)o->offset,
                                 (unsigned long long)(o->offset + o->size),
                                 (unsigned long long)e->offset,
                                 (unsigned long long)(e->offset + e->size));
    }
    return GCG_OK;
}

static gcg_status check_entries(const uint8_t *data, size_t size, const gcg_section_entry *t,
                                uint32_t n, gcg_error *err)
{
    uint64_t table_end = HEADER_SIZE + n * ENTRY_SIZE;
    for (uint32_t i = 0; i < n; i++) {
        gcg_status st = check_entry_bounds(&t[i], i, table_end, size, err);
        if (st == GCG_OK)
            st = check_entry_against(t, i, err);
        if (st != GCG_OK)
            return st;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (XXH3_64bits(data + t[i].offset, (size_t)t[i].size) != t[i].hash)
            return gcg_error_set(err, GCG_ERR_FORMAT, t[i].offset,
                                 "section %u (id %u): checksum mismatch", i, t[i].id);
    }
    return GCG_OK;
}

gcg_status gcg_container_parse(const uint8_t *data, size_t size, gcg_container *out,
                               gcg_error *err)
{
    if (!out || (!data && size > 0))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "container: NULL argument");
    if (((uintptr_t)data & 7u) != 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "container: data is not 8-byte aligned");
    memset(out, 0, sizeof *out);
    gcg_file_header h;
    memset(&h, 0, sizeof h); /* filled by check_header; zeroed for gcc's flow analysis */
    gcg_status st = check_header(data, size, &h, err);
    if (st == GCG_OK)
        st = check_table(data, size, &h, err);
    if (st != GCG_OK)
        return st;
    const gcg_section_entry *table = (const gcg_section_entry *)(data + HEADER_SIZE);
    st = check_entries(data, size, table, h.n_sections, err);
    if (st != GCG_OK)
        return st;
    *out = (gcg_container){data, size, h.format_version, h.n_sections, table};
    return GCG_OK;
}

const uint8_t *gcg_container_section(const gcg_container *c, uint32_t id, uint64_t *size)
{
    for (uint32_t i = 0; c && i < c->n_sections; i++) {
        if (c->sections[i].id == id) {
            if (size)
                *size = c->sections[i].size;
            return c->base + c->sections[i].offset;
        }
    }
    if (size)
        *size = 0;
    return NULL;
}
