/*
 * test_schema_ajv.c — the JSON Schema converter against ajv, the reference
 * validator (pinned in tests/ajv/package.json, installed into
 * tests/ajv/node_modules with `npm ci` when missing).
 *
 * For every schema in tests/data/schema: compile it (single-byte vocabulary,
 * with masks), generate instances by walking the masks (a random allowed
 * byte at each step, biased toward structure so instances stay short, until
 * the text is complete), and require that ajv finds every one valid; then
 * mutate each instance at one byte and require that gcg accepts a mutant
 * exactly when ajv says it is valid JSON and valid for the schema. Mutants
 * whose object keys change order or name are skipped (gcg accepts
 * properties in schema order by design). A walk that reaches a state with
 * no allowed byte and no complete text is a failure too.
 *
 * Skips (exit 77) with a message only when node is missing or npm cannot
 * install the pinned ajv.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "gcg.h"
#include "gcgc.h"

#define WALKS 40
#define MAX_LEN 300

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot read %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    ck_assert_uint_eq(fread(b, 1, (size_t)len, f), (size_t)len);
    b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

static bool is_ws(int b)
{
    return b == ' ' || b == '\t' || b == '\n' || b == '\r';
}

/* One random instance by walking the masks; its length, or 0 when it grew too long. */
static size_t walk(gcg_matcher *m, size_t words, uint32_t *mask, char *out, const char *schema)
{
    gcg_matcher_reset(m);
    size_t len = 0;
    while (len < MAX_LEN) {
        bool complete = gcg_matcher_is_complete(m);
        if (complete && (rand() % 3 == 0 || len > MAX_LEN / 2))
            return len;
        ck_assert_int_eq(gcg_matcher_fill_mask(m, mask, words), GCG_OK);
        int all[256], n_all = 0, structural[8], n_st = 0, plain[256], n_plain = 0;
        for (int b = 0; b < 256; b++)
            if ((mask[b / 32] >> (b % 32)) & 1) {
                all[n_all++] = b;
                if (strchr("\"}],:", b) && b)
                    structural[n_st++] = b;
                else if (!is_ws(b))
                    plain[n_plain++] = b;
            }
        if (n_all == 0) {
            ck_assert_msg(complete, "%s: the walk %.*s reached a dead end", schema, (int)len, out);
            return len;
        }
        int r = rand() % 20, b;
        if (n_st && r < 9)
            b = structural[rand() % n_st];
        else if (n_plain && r < 19)
            b = plain[rand() % n_plain];
        else
            b = all[rand() % n_all];
        uint8_t x = (uint8_t)b;
        ck_assert_int_eq(gcg_matcher_commit_bytes(m, &x, 1, NULL), GCG_OK);
        out[len++] = (char)b;
    }
    return 0;
}

/* Well-formed UTF-8 (RFC 3629): the oracle reads text, so mutants must stay text. */
static bool utf8_ok(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], k = c < 0x80 ? 0 : (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : 9;
        if (k == 9 || i + k >= n + (k == 0))
            return false;
        uint32_t v = k == 0 ? c : k == 1 ? c & 0x1F : k == 2 ? c & 0x0F : c & 0x07;
        for (unsigned j = 1; j <= k; j++) {
            if (i + j >= n || (s[i + j] & 0xC0) != 0x80)
                return false;
            v = v << 6 | (s[i + j] & 0x3F);
        }
        static const uint32_t min[] = {0, 0x80, 0x800, 0x10000};
        if (v < min[k] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
            return false;
        i += k + 1;
    }
    return true;
}

static bool accepts(gcg_matcher *m, const char *t, size_t n)
{
    gcg_matcher_reset(m);
    return gcg_matcher_commit_bytes(m, (const uint8_t *)t, n, NULL) == GCG_OK && gcg_matcher_is_complete(m);
}

/* The instance as a JSON string on one line. */
static void put_json_string(FILE *f, const char *t, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)t[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

typedef struct inst { char text[MAX_LEN + 1]; size_t n; int orig; bool gcg; } inst;

static void differential(const char *schema_path)
{
    size_t n;
    char *schema = slurp(schema_path, &n);
    gcgc_result *r = NULL;
    char *msgs = NULL;
    ck_assert_msg(gcgc_compile_schema(NULL, schema, n, NULL, NULL, &r, &msgs) == GCG_OK, "%s: %s", schema_path,
                  msgs);
    size_t size;
    const uint8_t *bytes = gcgc_result_artifact(r, &size);
    gcg_artifact *art;
    ck_assert_int_eq(gcg_artifact_open_memory(bytes, size, &art, NULL), GCG_OK);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    size_t words = gcg_artifact_mask_words(art);
    uint32_t *mask = calloc(words, sizeof *mask);
    static inst v[WALKS * 3];
    int nv = 0;
    for (int w = 0; w < WALKS; w++) {
        inst *x = &v[nv];
        x->n = walk(m, words, mask, x->text, schema_path);
        if (x->n == 0)
            continue;
        x->orig = -1;
        x->gcg = true;
        int orig = nv++;
        for (int k = 0; k < 2; k++) { /* one byte replaced by another byte of the instance */
            inst *y = &v[nv];
            *y = v[orig];
            y->orig = orig;
            y->text[rand() % y->n] = v[orig].text[rand() % v[orig].n];
            if (!utf8_ok((const unsigned char *)y->text, y->n))
                continue;
            y->gcg = accepts(m, y->text, y->n);
            nv++;
        }
    }
    ck_assert_msg(nv >= WALKS, "%s: too few complete walks (%d)", schema_path, nv);
    char in_path[] = "/tmp/gcg_ajv_XXXXXX";
    int fd = mkstemp(in_path);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < nv; i++) {
        if (v[i].orig < 0)
            fputs("W ", f);
        else
            fprintf(f, "M %d ", v[i].orig);
        put_json_string(f, v[i].text, v[i].n);
        fputc('\n', f);
    }
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "node %s/tests/ajv/check.mjs '%s' '%s'", GCG_SOURCE_ROOT, schema_path, in_path);
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    char word[32];
    int i = 0, compared = 0;
    while (i < nv && fscanf(p, "%31s", word) == 1) {
        inst *x = &v[i];
        if (strcmp(word, "skip") != 0) {
            bool valid = strcmp(word, "valid") == 0;
            ck_assert_msg(x->gcg == valid, "%s: gcg %s, ajv says %s: %.*s", schema_path,
                          x->gcg ? "accepts" : "rejects", word, (int)x->n, x->text);
            compared++;
        }
        i++;
    }
    ck_assert_int_eq(pclose(p), 0);
    ck_assert_int_eq(i, nv);
    ck_assert(compared >= WALKS);
    unlink(in_path);
    free(mask);
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    gcgc_result_free(r);
    free(msgs);
    free(schema);
}

START_TEST(every_test_schema)
{
    srand(11);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/data/schema", GCG_SOURCE_ROOT);
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        differential(path);
        n++;
    }
    closedir(d);
    ck_assert_int_ge(n, 10);
}
END_TEST

/* node and the pinned ajv, installed with npm ci when missing. */
static bool oracle_ready(void)
{
    if (system("node --version >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_schema_ajv: SKIP: node is not installed\n");
        return false;
    }
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "test -d %s/tests/ajv/node_modules/ajv || npm ci --prefix %s/tests/ajv --no-audit "
             "--no-fund >/dev/null 2>&1", GCG_SOURCE_ROOT, GCG_SOURCE_ROOT);
    if (system(cmd) != 0) {
        fprintf(stderr, "test_schema_ajv: SKIP: npm could not install the pinned ajv (registry unreachable?)\n");
        return false;
    }
    return true;
}

int main(void)
{
    if (!oracle_ready())
        return 77;
    Suite *s = suite_create("schema_ajv");
    TCase *tc = tcase_create("ajv");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, every_test_schema);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
