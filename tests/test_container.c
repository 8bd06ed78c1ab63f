/*
 * test_container.c — the .gcg container: writer layout, round trip, and every
 * error path of gcg_container_parse with its exact code, offset and message.
 *
 * The fixture is a 448-byte container built by the writer: sections id 1
 * ("hello", 5 bytes at 192), id 9 (70 bytes at 256) and id 77 (unknown to the
 * format, 3 bytes at 384). Each corrupt case patches fields of it (and
 * re-seals the table checksum when the case is about a later check).
 *
 * `test_container --write-corrupt DIR` regenerates tests/data/corrupt/ from
 * the same case table; the committed files must all fail to parse.
 */
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "container.h"
#include "container_write.h"

#define FIXTURE_SIZE 448u
#define CORRUPT_DIR GCG_SOURCE_ROOT "/tests/data/corrupt"

/* ---- fixture ---------------------------------------------------------- */

static const uint8_t sec1[5] = {'h', 'e', 'l', 'l', 'o'};
static const uint8_t sec77[3] = {0xaa, 0xbb, 0xcc};

static void sec9_bytes(uint8_t *b)
{
    for (int i = 0; i < 70; i++)
        b[i] = (uint8_t)(i * 7 + 1);
}

/* Plain returns, not ck_assert: the fixture also runs outside the test
 * runner (--write-corrupt), where check's assertions cannot report. */
static bool fixture_writer(gcg_writer *w)
{
    uint8_t s9[70];
    sec9_bytes(s9);
    gcg_writer_init(w);
    return gcg_writer_add(w, 1, sec1, sizeof sec1) == GCG_OK &&
           gcg_writer_add(w, 9, s9, sizeof s9) == GCG_OK &&
           gcg_writer_add(w, 77, sec77, sizeof sec77) == GCG_OK;
}

/* A fresh malloc'ed copy of the fixture (malloc gives 8-byte alignment),
 * or NULL if the writer failed. */
static uint8_t *fixture_bytes(size_t *size)
{
    gcg_writer w;
    uint8_t *buf = NULL;
    if (!fixture_writer(&w) || gcg_writer_finish(&w, &buf, size) != GCG_OK ||
        *size != FIXTURE_SIZE) {
        free(buf);
        buf = NULL;
    }
    gcg_writer_free(&w);
    return buf;
}

static uint8_t *fixture(size_t *size)
{
    uint8_t *buf = fixture_bytes(size);
    ck_assert_ptr_nonnull(buf);
    return buf;
}

static bool is_padding(size_t pos)
{
    return (pos >= 144 && pos < 192) || (pos >= 197 && pos < 256) ||
           (pos >= 326 && pos < 384) || (pos >= 387 && pos < FIXTURE_SIZE);
}

static void put_le(uint8_t *p, unsigned width, uint64_t v)
{
    for (unsigned i = 0; i < width; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Recomputes header.table_hash, as a writer would have. */
static void reseal(uint8_t *buf)
{
    uint32_t n;
    memcpy(&n, buf + 20, 4);
    if (n > GCG_MAX_SECTIONS)
        n = GCG_MAX_SECTIONS;
    put_le(buf + 32, 8, 0);
    put_le(buf + 32, 8, XXH3_64bits(buf, 48 + 32 * (size_t)n));
}

/* ---- the corrupt cases -------------------------------------------------- */

typedef struct patch {
    uint32_t pos;
    uint8_t width; /* 0: unused */
    uint64_t value;
} patch;

typedef struct corrupt_case {
    const char *name;
    long len;        /* bytes kept; -1 = all */
    patch p[2];
    bool reseal;
    gcg_status code;
    uint64_t offset;
    const char *msg;
} corrupt_case;

static const corrupt_case cases[] = {
    {"empty", 0, {{0}}, false, GCG_ERR_FORMAT, 0, "truncated: need 48 bytes of header, have 0"},
    {"trunc_header", 17, {{0}}, false, GCG_ERR_FORMAT, 17,
     "truncated: need 48 bytes of header, have 17"},
    {"trunc_table", 100, {{0}}, false, GCG_ERR_FORMAT, 24,
     "file size field 448 does not match actual size 100"},
    {"trunc_section", 300, {{0}}, false, GCG_ERR_FORMAT, 24,
     "file size field 448 does not match actual size 300"},
    {"bad_magic", -1, {{1, 1, 'X'}}, false, GCG_ERR_FORMAT, 0, "bad magic (not a .gcg file)"},
    {"version_zero", -1, {{8, 4, 0}}, false, GCG_ERR_VERSION, 8,
     "format version 0 is older than this reader (reads 2..2)"},
    {"version_newer", -1, {{8, 4, 9}, {12, 4, 9}}, false, GCG_ERR_VERSION, 12,
     "format version 9 is newer than this reader (needs reader 9, reads 2..2)"},
    {"min_reader_zero", -1, {{12, 4, 0}}, false, GCG_ERR_FORMAT, 12,
     "min reader version 0 is not in 1..2 (the format version)"},
    {"min_reader_above_format", -1, {{8, 4, 3}, {12, 4, 4}}, false, GCG_ERR_FORMAT, 12,
     "min reader version 4 is not in 1..3 (the format version)"},
    {"header_size", -1, {{16, 4, 40}}, false, GCG_ERR_FORMAT, 16, "header size field 40 is not 48"},
    {"too_many_sections", -1, {{20, 4, 65}}, false, GCG_ERR_FORMAT, 20, "65 sections (limit 64)"},
    {"file_size_field", -1, {{24, 8, 1200}}, false, GCG_ERR_FORMAT, 24,
     "file size field 1200 does not match actual size 448"},
    {"reserved", -1, {{40, 8, 1}}, false, GCG_ERR_FORMAT, 40, "reserved header field is 0x1, not 0"},
    {"table_past_end", -1, {{20, 4, 20}}, false, GCG_ERR_FORMAT, 448,
     "truncated: need 688 bytes of header and section table, have 448"},
    {"table_hash", -1, {{72, 8, 0}}, false, GCG_ERR_FORMAT, 32,
     "header or section table checksum mismatch"},
    {"entry_flags", -1, {{52, 4, 1}}, true, GCG_ERR_FORMAT, 52,
     "section 0 (id 1): flags 0x1, expected 0"},
    {"entry_misaligned", -1, {{88, 8, 260}}, true, GCG_ERR_FORMAT, 88,
     "section 1 (id 9): offset 260 is not a multiple of 64"},
    {"entry_in_table", -1, {{56, 8, 128}}, true, GCG_ERR_FORMAT, 56,
     "section 0 (id 1): offset 128 lies inside the header and section table (144 bytes)"},
    {"entry_past_end", -1, {{128, 8, 100}}, true, GCG_ERR_FORMAT, 128,
     "section 2 (id 77): offset 384 + size 100 past end of file (448 bytes)"},
    {"entry_size_overflow", -1, {{128, 8, 0xFFFFFFFFFFFFFF00u}}, true, GCG_ERR_FORMAT, 128,
     "section 2 (id 77): offset 384 + size 18446744073709551360 past end of file (448 bytes)"},
    {"entry_offset_overflow", -1, {{120, 8, 0xFFFFFFFFFFFFFFC0u}}, true, GCG_ERR_FORMAT, 120,
     "section 2 (id 77): offset 18446744073709551552 + size 3 past end of file (448 bytes)"},
    {"duplicate_id", -1, {{112, 4, 1}}, true, GCG_ERR_FORMAT, 112,
     "section id 1 appears twice (sections 0 and 2)"},
    {"overlap", -1, {{88, 8, 192}}, true, GCG_ERR_FORMAT, 88,
     "sections 0 and 1 overlap (bytes 192..197 and 192..262)"},
    {"section_data", -1, {{256, 1, 0xee}}, false, GCG_ERR_FORMAT, 256,
     "section 1 (id 9): checksum mismatch"},
    {"section_hash_field", -1, {{72, 8, 0}}, true, GCG_ERR_FORMAT, 192,
     "section 0 (id 1): checksum mismatch"},
};

#define N_CASES (sizeof cases / sizeof cases[0])

/* The corrupt bytes of case c (malloc'ed); *size gets their length. */
static uint8_t *make_case(const corrupt_case *c, size_t *size)
{
    uint8_t *buf = fixture_bytes(size);
    if (!buf)
        return NULL;
    for (int k = 0; k < 2; k++)
        if (c->p[k].width)
            put_le(buf + c->p[k].pos, c->p[k].width, c->p[k].value);
    if (c->reseal)
        reseal(buf);
    if (c->len >= 0)
        *size = (size_t)c->len;
    return buf;
}

static void assert_error(const uint8_t *buf, size_t size, gcg_status code, uint64_t offset,
                         const char *msg)
{
    gcg_container c;
    gcg_error err;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(gcg_container_parse(buf, size, &c, &err), code);
    ck_assert_int_eq(err.code, code);
    ck_assert_uint_eq(err.offset, offset);
    ck_assert_str_eq(err.msg, msg);
}

/* ---- writer and round trip ---------------------------------------------- */

START_TEST(test_layout)
{
    size_t size;
    uint8_t *buf = fixture(&size);
    ck_assert_mem_eq(buf, GCG_MAGIC, GCG_MAGIC_SIZE);
    gcg_file_header h;
    memcpy(&h, buf, sizeof h);
    ck_assert_uint_eq(h.format_version, GCG_FORMAT_VERSION);
    ck_assert_uint_eq(h.min_reader_version, GCG_FORMAT_OLDEST);
    ck_assert_uint_eq(h.header_size, 48);
    ck_assert_uint_eq(h.n_sections, 3);
    ck_assert_uint_eq(h.file_size, FIXTURE_SIZE);
    ck_assert_uint_eq(h.reserved, 0);
    gcg_section_entry e[3];
    memcpy(e, buf + 48, sizeof e);
    ck_assert_uint_eq(e[0].offset, 192);
    ck_assert_uint_eq(e[1].offset, 256);
    ck_assert_uint_eq(e[2].offset, 384);
    ck_assert_uint_eq(e[2].size, 3);
    ck_assert_uint_eq(e[1].hash, XXH3_64bits(buf + 256, 70));
    for (size_t i = 0; i < size; i++)
        if (is_padding(i))
            ck_assert_uint_eq(buf[i], 0);
    free(buf);
}
END_TEST

START_TEST(test_round_trip)
{
    size_t size;
    uint8_t *buf = fixture(&size);
    gcg_container c;
    ck_assert_int_eq(gcg_container_parse(buf, size, &c, NULL), GCG_OK);
    ck_assert_ptr_eq(c.base, buf);
    ck_assert_uint_eq(c.size, FIXTURE_SIZE);
    ck_assert_uint_eq(c.format_version, GCG_FORMAT_VERSION);
    ck_assert_uint_eq(c.n_sections, 3);
    uint64_t n = 99;
    const uint8_t *p = gcg_container_section(&c, 1, &n);
    ck_assert_uint_eq(n, 5);
    ck_assert_mem_eq(p, "hello", 5);
    uint8_t s9[70];
    sec9_bytes(s9);
    p = gcg_container_section(&c, 9, &n);
    ck_assert_uint_eq(n, 70);
    ck_assert_mem_eq(p, s9, 70);
    p = gcg_container_section(&c, 77, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_mem_eq(p, sec77, 3);
    ck_assert_ptr_null(gcg_container_section(&c, 2, &n));
    ck_assert_uint_eq(n, 0);
    free(buf);
}
END_TEST

START_TEST(test_empty_container)
{
    gcg_writer w;
    gcg_writer_init(&w);
    uint8_t *buf;
    size_t size;
    ck_assert_int_eq(gcg_writer_finish(&w, &buf, &size), GCG_OK);
    ck_assert_uint_eq(size, 64);
    gcg_container c;
    ck_assert_int_eq(gcg_container_parse(buf, size, &c, NULL), GCG_OK);
    ck_assert_uint_eq(c.n_sections, 0);
    free(buf);
}
END_TEST

START_TEST(test_empty_section)
{
    gcg_writer w;
    gcg_writer_init(&w);
    ck_assert_int_eq(gcg_writer_add(&w, 4, NULL, 0), GCG_OK);
    ck_assert_int_eq(gcg_writer_add(&w, 5, "x", 1), GCG_OK);
    uint8_t *buf;
    size_t size;
    ck_assert_int_eq(gcg_writer_finish(&w, &buf, &size), GCG_OK);
    gcg_writer_free(&w);
    ck_assert_uint_eq(size, 192); /* table ends at 112; the empty section and "x" both start at 128 */
    gcg_container c;
    ck_assert_int_eq(gcg_container_parse(buf, size, &c, NULL), GCG_OK);
    uint64_t n = 7;
    ck_assert_ptr_nonnull(gcg_container_section(&c, 4, &n));
    ck_assert_uint_eq(n, 0);
    free(buf);
}
END_TEST

START_TEST(test_writer_add_errors)
{
    gcg_writer w;
    gcg_writer_init(&w);
    for (uint32_t i = 0; i < GCG_MAX_SECTIONS; i++)
        ck_assert_int_eq(gcg_writer_add(&w, 100 + i, &i, sizeof i), GCG_OK);
    ck_assert_int_eq(gcg_writer_add(&w, 1, "a", 1), GCG_ERR_ARG);
    gcg_writer_free(&w);
    ck_assert_uint_eq(w.n_sections, 0);
    ck_assert_int_eq(gcg_writer_add(&w, 3, "a", 1), GCG_OK);
    ck_assert_int_eq(gcg_writer_add(&w, 3, "b", 1), GCG_ERR_ARG);
    ck_assert_uint_eq(w.n_sections, 1);
    gcg_writer_free(&w);
}
END_TEST

START_TEST(test_save)
{
    gcg_writer w;
    ck_assert(fixture_writer(&w));
    char dir[] = "/tmp/gcg_test_container.XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/out.gcg", dir);
    gcg_error err;
    ck_assert_int_eq(gcg_writer_save(&w, path, &err), GCG_OK);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    uint8_t got[FIXTURE_SIZE + 1];
    ck_assert_uint_eq(fread(got, 1, sizeof got, f), FIXTURE_SIZE);
    fclose(f);
    size_t size;
    uint8_t *want = fixture(&size);
    ck_assert_mem_eq(got, want, FIXTURE_SIZE);
    free(want);
    ck_assert_int_eq(unlink(path), 0);
    ck_assert_int_eq(rmdir(dir), 0); /* no temporary left behind */
    snprintf(path, sizeof path, "%s/out.gcg", dir);
    ck_assert_int_eq(gcg_writer_save(&w, path, &err), GCG_ERR_IO);
    ck_assert_int_eq(err.code, GCG_ERR_IO);
    char want_msg[200];
    snprintf(want_msg, sizeof want_msg, "cannot write %s: No such file or directory", path);
    ck_assert_str_eq(err.msg, want_msg);
    gcg_writer_free(&w);
}
END_TEST

/* ---- parse errors ---------------------------------------------------- */

START_TEST(test_bad_arguments)
{
    gcg_container c;
    gcg_error err;
    ck_assert_int_eq(gcg_container_parse(NULL, 10, &c, &err), GCG_ERR_ARG);
    size_t size;
    uint8_t *buf = fixture(&size);
    ck_assert_int_eq(gcg_container_parse(buf, size, NULL, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_container_parse(buf + 4, size - 4, &c, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "container: data is not 8-byte aligned");
    ck_assert_int_eq(gcg_container_parse(NULL, 0, &c, &err), GCG_ERR_FORMAT);
    free(buf);
}
END_TEST

START_TEST(test_corrupt_case)
{
    const corrupt_case *c = &cases[_i];
    size_t size;
    uint8_t *buf = make_case(c, &size);
    ck_assert_ptr_nonnull(buf);
    assert_error(buf, size, c->code, c->offset, c->msg);
    free(buf);
}
END_TEST

START_TEST(test_every_truncation)
{
    size_t size;
    uint8_t *buf = fixture(&size);
    char msg[128];
    for (size_t len = 0; len < size; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, buf, len);
        if (len < 48)
            snprintf(msg, sizeof msg, "truncated: need 48 bytes of header, have %zu", len);
        else
            snprintf(msg, sizeof msg, "file size field 448 does not match actual size %zu", len);
        assert_error(copy, len, GCG_ERR_FORMAT, len < 48 ? len : 24, msg);
        free(copy);
    }
    free(buf);
}
END_TEST

START_TEST(test_every_bit_flip)
{
    size_t size;
    uint8_t *buf = fixture(&size);
    for (size_t pos = 0; pos < size; pos++) {
        for (int bit = 0; bit < 8; bit++) {
            buf[pos] ^= (uint8_t)(1u << bit);
            gcg_container c;
            gcg_status st = gcg_container_parse(buf, size, &c, NULL);
            if (is_padding(pos))
                ck_assert_msg(st == GCG_OK, "flip at padding %zu bit %d: status %d", pos, bit,
                              st);
            else
                ck_assert_msg(st == GCG_ERR_FORMAT || st == GCG_ERR_VERSION,
                              "flip at %zu bit %d: status %d", pos, bit, st);
            buf[pos] ^= (uint8_t)(1u << bit);
        }
    }
    free(buf);
}
END_TEST

START_TEST(test_newer_compatible_version)
{
    size_t size;
    uint8_t *buf = fixture(&size);
    put_le(buf + 8, 4, 9); /* written by version 9, readable by GCG_FORMAT_OLDEST */
    reseal(buf);
    gcg_container c;
    ck_assert_int_eq(gcg_container_parse(buf, size, &c, NULL), GCG_OK);
    ck_assert_uint_eq(c.format_version, 9);
    free(buf);
}
END_TEST

START_TEST(test_empty_section_may_share_offset)
{
    size_t size;
    uint8_t *buf = fixture(&size);
    put_le(buf + 120, 8, 192); /* section 2 at section 0's offset, but empty */
    put_le(buf + 128, 8, 0);
    put_le(buf + 136, 8, XXH3_64bits(buf, 0));
    reseal(buf);
    gcg_container c;
    ck_assert_int_eq(gcg_container_parse(buf, size, &c, NULL), GCG_OK);
    free(buf);
}
END_TEST

/* ---- the committed corrupt files ---------------------------------------- */

static uint8_t *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    uint8_t *buf = malloc(65536);
    *size = fread(buf, 1, 65536, f);
    fclose(f);
    return buf;
}

START_TEST(test_corrupt_file)
{
    const corrupt_case *c = &cases[_i];
    char path[512];
    snprintf(path, sizeof path, "%s/%s.gcg", CORRUPT_DIR, c->name);
    size_t size;
    uint8_t *buf = read_file(path, &size);
    assert_error(buf, size, c->code, c->offset, c->msg);
    free(buf);
}
END_TEST

START_TEST(test_corrupt_dir_all_fail)
{
    DIR *d = opendir(CORRUPT_DIR);
    ck_assert_ptr_nonnull(d);
    unsigned n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 4, ".gcg") != 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", CORRUPT_DIR, de->d_name);
        size_t size;
        uint8_t *buf = read_file(path, &size);
        gcg_container c;
        ck_assert_msg(gcg_container_parse(buf, size, &c, NULL) != GCG_OK, "%s parsed", path);
        free(buf);
        n++;
    }
    closedir(d);
    ck_assert_uint_eq(n, N_CASES);
}
END_TEST

/* ---- driver ------------------------------------------------------------ */

static int write_corrupt(const char *dir)
{
    for (size_t i = 0; i < N_CASES; i++) {
        size_t size;
        uint8_t *buf = make_case(&cases[i], &size);
        char path[512];
        snprintf(path, sizeof path, "%s/%s.gcg", dir, cases[i].name);
        FILE *f = buf ? fopen(path, "wb") : NULL;
        bool ok = f && fwrite(buf, 1, size, f) == size;
        if (f && fclose(f) != 0)
            ok = false;
        free(buf);
        if (!ok) {
            fprintf(stderr, "cannot write %s\n", path);
            return 1;
        }
    }
    return 0;
}

static Suite *container_suite(void)
{
    Suite *s = suite_create("container");
    TCase *tc = tcase_create("writer");
    tcase_add_test(tc, test_layout);
    tcase_add_test(tc, test_round_trip);
    tcase_add_test(tc, test_empty_container);
    tcase_add_test(tc, test_empty_section);
    tcase_add_test(tc, test_writer_add_errors);
    tcase_add_test(tc, test_save);
    suite_add_tcase(s, tc);
    tc = tcase_create("parse");
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_loop_test(tc, test_corrupt_case, 0, (int)N_CASES);
    tcase_add_test(tc, test_every_truncation);
    tcase_add_test(tc, test_every_bit_flip);
    tcase_add_test(tc, test_newer_compatible_version);
    tcase_add_test(tc, test_empty_section_may_share_offset);
    suite_add_tcase(s, tc);
    tc = tcase_create("corrupt_files");
    tcase_add_loop_test(tc, test_corrupt_file, 0, (int)N_CASES);
    tcase_add_test(tc, test_corrupt_dir_all_fail);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corrupt") == 0)
        return write_corrupt(argv[2]);
    SRunner *sr = srunner_create(container_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
