/*
 * container_write.c — building a .gcg container (layout in runtime/container.h).
 *
 * Contract: sections are laid out in the order they were added, each at the
 * next multiple of 64 after the header and table; the gaps and the file's
 * tail (up to a multiple of 64) are zero. Checksums are computed last, over
 * the final bytes, exactly as gcg_container_parse recomputes them. Saving
 * goes through a temporary file in the target's directory and rename(2), so
 * a concurrent reader sees the old file or the new one, never half of one.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "container.h"
#include "container_write.h"
#include "error.h"

static uint64_t align_up(uint64_t x)
{
    return (x + GCG_SECTION_ALIGN - 1) / GCG_SECTION_ALIGN * GCG_SECTION_ALIGN;
}

void gcg_writer_init(gcg_writer *w)
{
    memset(w, 0, sizeof *w);
}

void gcg_writer_free(gcg_writer *w)
{
    for (uint32_t i = 0; i < w->n_sections; i++)
        free(w->sections[i].data);
    gcg_writer_init(w);
}

gcg_status gcg_writer_take(gcg_writer *w, uint32_t id, uint8_t *data, size_t size)
{
    bool ok = w && data && w->n_sections < GCG_MAX_SECTIONS;
    for (uint32_t i = 0; ok && i < w->n_sections; i++)
        ok = w->sections[i].id != id;
    if (!ok) {
        free(data);
        return GCG_ERR_ARG;
    }
    w->sections[w->n_sections++] = (gcg_writer_section){id, data, size};
    return GCG_OK;
}

gcg_status gcg_writer_add(gcg_writer *w, uint32_t id, const void *data, size_t size)
{
    if (!w || (!data && size > 0))
        return GCG_ERR_ARG;
    uint8_t *copy = malloc(size ? size : 1);
    if (!copy)
        return GCG_ERR_NOMEM;
    if (size)
        memcpy(copy, data, size);
    return gcg_writer_take(w, id, copy, size);
}

/* Fills the table with each section's aligned offset; returns the file size. */
static uint64_t layout(const gcg_writer *w, gcg_section_entry *table)
{
    uint64_t pos = sizeof(gcg_file_header) + (uint64_t)w->n_sections * sizeof(gcg_section_entry);
    for (uint32_t i = 0; i < w->n_sections; i++) {
        pos = align_up(pos);
        table[i] = (gcg_section_entry){w->sections[i].id, 0, pos, w->sections[i].size, 0};
        pos += w->sections[i].size;
    }
    return align_up(pos);
}

/* Copies the sections in, then checksums them, then the header and table
 * (table_hash is computed with its own field still zero). */
static void fill(const gcg_writer *w, gcg_section_entry *table, uint64_t file_size, uint8_t *buf)
{
    for (uint32_t i = 0; i < w->n_sections; i++) {
        if (w->sections[i].size)
            memcpy(buf + table[i].offset, w->sections[i].data, w->sections[i].size);
        table[i].hash = XXH3_64bits(buf + table[i].offset, w->sections[i].size);
    }
    gcg_file_header h = {.format_version = GCG_FORMAT_VERSION,
                         .min_reader_version = GCG_FORMAT_OLDEST,
                         .header_size = sizeof(gcg_file_header),
                         .n_sections = w->n_sections,
                         .file_size = file_size};
    memcpy(h.magic, GCG_MAGIC, GCG_MAGIC_SIZE);
    size_t table_bytes = w->n_sections * sizeof(gcg_section_entry);
    memcpy(buf, &h, sizeof h);
    memcpy(buf + sizeof h, table, table_bytes);
    h.table_hash = XXH3_64bits(buf, sizeof h + table_bytes);
    memcpy(buf, &h, sizeof h);
}

gcg_status gcg_writer_finish(const gcg_writer *w, uint8_t **out, size_t *out_size)
{
    if (!w || !out || !out_size || w->n_sections > GCG_MAX_SECTIONS)
        return GCG_ERR_ARG;
    gcg_section_entry table[GCG_MAX_SECTIONS];
    uint64_t file_size = layout(w, table);
    uint8_t *buf = calloc(1, (size_t)file_size);
    if (!buf)
        return GCG_ERR_NOMEM;
    fill(w, table, file_size, buf);
    *out = buf;
    *out_size = (size_t)file_size;
    return GCG_OK;
}

/* Writes all of buf to fd; retries short writes. */
static int write_all(int fd, const uint8_t *buf, size_t n)
{
    while (n > 0) {
        ssize_t k = write(fd, buf, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        buf += k;
        n -= (size_t)k;
    }
    return 0;
}

/* Writes buf to a fresh temporary next to `path` (same file system, so the
 * rename is atomic) and renames it over `path`. */
static gcg_status save_bytes(const uint8_t *buf, size_t n, const char *path, gcg_error *err)
{
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
    if (!tmp)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        return gcg_error_set(err, GCG_ERR_IO, GCG_NO_OFFSET, "cannot write %s: %s", path,
                             strerror(e));
    }
    int rc = fchmod(fd, 0644);
    if (rc == 0)
        rc = write_all(fd, buf, n);
    int e = errno;
    if (close(fd) != 0 && rc == 0) {
        rc = -1;
        e = errno;
    }
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc != 0)
        unlink(tmp);
    free(tmp);
    if (rc != 0)
        return gcg_error_set(err, GCG_ERR_IO, GCG_NO_OFFSET, "cannot write %s: %s", path,
                             strerror(e));
    return GCG_OK;
}

gcg_status gcg_writer_save(const gcg_writer *w, const char *path, gcg_error *err)
{
    if (!path)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "no output path");
    uint8_t *buf;
    size_t n;
    gcg_status st = gcg_writer_finish(w, &buf, &n);
    if (st != GCG_OK)
        return gcg_error_set(err, st, GCG_NO_OFFSET, "cannot build container: %s",
                             gcg_status_str(st));
    st = save_bytes(buf, n, path, err);
    free(buf);
    return st;
}
