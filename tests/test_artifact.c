/*
 * test_artifact.c — opening compiled artifacts (gcg_artifact_open_memory,
 * gcg_artifact_open_file) and the loader's checks of table contents.
 *
 * A compiled artifact opens from memory and from a file, with the expected
 * dimensions, vocabulary and metadata. Then its contents are corrupted with
 * valid checksums (each patched section's XXH3-64 and the table hash are
 * recomputed, layout in runtime/container.h), so the container accepts the
 * file and only the loader's table checks stand between the corruption and
 * the matcher: a SHIFT to a state out of range, a REDUCE of a production
 * out of range, a goto out of range, a displaced row running past its
 * slots or carrying the free slots' tag, slot counts that do not match the section size, a conflict list running past the end
 * of the multi section or nesting another list, a class out of range, a
 * production's lhs out of range, a section size that does not match the
 * dimensions, a missing section, vocabulary offsets that decrease, trie
 * nodes whose end is out of range or that do not nest, trie tokens out of
 * range. Each must fail with GCG_ERR_FORMAT and an exact message.
 *
 * The same corruptions are kept as files in tests/data/core/corrupt/ (made
 * by `test_artifact --write-corrupt DIR`); every file there must fail to
 * open from disk.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xxhash.h>

#include "artifact.h"
#include "compile.h"
#include "gcg.h"

#define CORRUPT_DIR GCG_SOURCE_ROOT "/tests/data/core/corrupt"

/* A grammar with GLR conflicts, so the artifact has a multi section. */
static const char grammar[] = "root ::= root \"+\" root | \"a\" | \"(\" root \")\"\n";

/* Under -fsanitize=undefined, undefined behaviour fails the test instead of
 * printing a warning: writing the vocabulary section of an artifact without
 * EOS tokens must not hand memcpy a NULL pointer (not even with length 0). */
const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

/* ---- building and patching -------------------------------------------------- */

typedef struct blob {
    uint8_t *p;
    size_t n;
} blob;

/* Plain returns (no ck_assert): also used by --write-corrupt. */
static bool compile_blob(blob *b)
{
    gcg_diag d;
    gcg_diag_init(&d, NULL);
    gcg_compile_options opt = {0};
    opt.no_automaton = true;
    gcg_status st = gcg_compile(grammar, strlen(grammar), &opt, false, &b->p, &b->n, NULL, &d);
    gcg_diag_free(&d);
    return st == GCG_OK;
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

/* Entry index of section `id`, or -1. */
static int entry_of(const blob *b, uint32_t id)
{
    uint32_t n = get32(b->p + 20);
    for (uint32_t i = 0; i < n; i++)
        if (get32(b->p + 48 + 32 * i) == id)
            return (int)i;
    return -1;
}

static uint8_t *section(const blob *b, uint32_t id, uint64_t *size)
{
    int e = entry_of(b, id);
    if (e < 0)
        return NULL;
    const uint8_t *ent = b->p + 48 + 32 * e;
    *size = get64(ent + 16);
    return b->p + get64(ent + 8);
}

/* Recomputes every section checksum, then the table checksum. */
static void reseal(blob *b)
{
    uint32_t n = get32(b->p + 20);
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *ent = b->p + 48 + 32 * i;
        put64(ent + 24, XXH3_64bits(b->p + get64(ent + 8), (size_t)get64(ent + 16)));
    }
    put64(b->p + 32, 0);
    put64(b->p + 32, XXH3_64bits(b->p, 48 + 32 * (size_t)n));
}

typedef struct dims {
    uint32_t n_classes, n_states, n_nts, n_prods, n_multi, n_terms;
} dims;

static dims dims_of(const blob *b)
{
    uint64_t size;
    const uint8_t *h = section(b, GCG_SEC_BYTECLASS, &size);
    dims d = {get32(h), get32(h + 4), get32(h + 8), get32(h + 12), get32(h + 16), 0};
    d.n_terms = d.n_classes + 1;
    return d;
}

/* ---- the corruptions ------------------------------------------------------------ */

/* Each patches b (valid checksums restored afterwards) and writes the exact
 * message the loader must give into want. False if the artifact lacks what
 * the case needs. */
typedef bool (*corrupt_fn)(blob *b, char *want, size_t cap);

/* The offset the error must carry: none, except where a case says. */
static uint64_t want_offset;

/* The slots of a displaced table (artifact_format.h), *n of them. */
static gcg_disp_slot *slots(const blob *b, uint32_t id, uint64_t *n)
{
    uint64_t size;
    uint8_t *p = section(b, id, &size);
    gcg_layout l;
    uint32_t c[4] = {get32(p), get32(p + 4), get32(p + 8), get32(p + 12)};
    gcg_section_layout(id, c, &l);
    *n = c[1];
    return (gcg_disp_slot *)(p + l.off[1]);
}

static gcg_disp_row *rows(const blob *b, uint32_t id)
{
    uint64_t size;
    return (gcg_disp_row *)(section(b, id, &size) + 16);
}

static gcg_disp_slot *actions(const blob *b, uint64_t *n)
{
    return slots(b, GCG_SEC_ACTION, n);
}

/* The first slot a row owns whose action is of `kind`, or NULL. */
static gcg_disp_slot *first_action(const blob *b, uint32_t kind, uint64_t *at)
{
    uint64_t n;
    gcg_disp_slot *a = actions(b, &n);
    for (uint64_t i = 0; i < n; i++)
        if (a[i].tag != GCG_DISP_FREE && GCG_ACT_KIND(a[i].value) == kind) {
            *at = i;
            return &a[i];
        }
    return NULL;
}

static bool c_shift_state(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t at;
    gcg_disp_slot *e = first_action(b, GCG_ACT_SHIFT, &at);
    if (!e)
        return false;
    e->value = GCG_ACT(GCG_ACT_SHIFT, d.n_states);
    snprintf(want, cap, "action 0x%08x out of range", e->value);
    return true;
}

static bool c_shift_state_last(blob *b, char *want, size_t cap)
{
    /* The last slot of the table, a shift far out of range. */
    uint64_t n;
    gcg_disp_slot *a = actions(b, &n);
    a[n - 1].value = GCG_ACT(GCG_ACT_SHIFT, GCG_MAX_STATES);
    snprintf(want, cap, "action 0x%08x out of range", a[n - 1].value);
    return true;
}

static bool c_reduce_prod(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t at;
    gcg_disp_slot *e = first_action(b, GCG_ACT_REDUCE, &at);
    if (!e)
        return false;
    e->value = GCG_ACT(GCG_ACT_REDUCE, d.n_prods);
    snprintf(want, cap, "action 0x%08x out of range", e->value);
    return true;
}

static bool c_goto_state(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t n;
    gcg_disp_slot *g = slots(b, GCG_SEC_GOTO, &n);
    for (uint64_t i = 0; i < n; i++)
        if (g[i].tag != GCG_DISP_FREE) {
            g[i].value = d.n_states;
            snprintf(want, cap, "goto entry %llu out of range", (unsigned long long)i);
            return true;
        }
    return false;
}

/* A row whose columns would run past the slots. */
static bool row_past_end(blob *b, uint32_t id, uint32_t width, char *want, size_t cap)
{
    uint64_t n;
    slots(b, id, &n);
    rows(b, id)[1].base = (uint32_t)(n - width + 1);
    snprintf(want, cap, "section %s: row 1 out of range", id == GCG_SEC_ACTION ? "action" : "goto");
    return true;
}

static bool c_action_row(blob *b, char *want, size_t cap)
{
    return row_past_end(b, GCG_SEC_ACTION, dims_of(b).n_terms, want, cap);
}

static bool c_goto_row(blob *b, char *want, size_t cap)
{
    return row_past_end(b, GCG_SEC_GOTO, dims_of(b).n_nts, want, cap);
}

static bool c_goto_free_tag(blob *b, char *want, size_t cap)
{
    rows(b, GCG_SEC_GOTO)[2].tag = GCG_DISP_FREE;
    snprintf(want, cap, "section goto: row 2 out of range");
    return true;
}

static bool c_action_counts(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *p = section(b, GCG_SEC_ACTION, &size);
    put32(p + 4, get32(p + 4) + 1); /* one slot more than the section holds */
    want_offset = (uint64_t)(p - b->p);
    snprintf(want, cap, "section action: size %llu does not match its counts", (unsigned long long)size);
    return true;
}

/* Index of the first MULTI slot and the multi list it names. */
static bool first_multi(const blob *b, uint64_t *cell, uint32_t *list)
{
    gcg_disp_slot *e = first_action(b, GCG_ACT_MULTI, cell);
    if (!e)
        return false;
    *list = GCG_ACT_ARG(e->value);
    return true;
}

static bool c_multi_past_end(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t size, cell;
    uint32_t list, *m = (uint32_t *)section(b, GCG_SEC_MULTI, &size);
    if (!first_multi(b, &cell, &list) || d.n_multi == 0)
        return false;
    /* The list's count now reaches one word past the section. */
    m[list] = d.n_multi - list;
    snprintf(want, cap, "action 0x%08x out of range", GCG_ACT(GCG_ACT_MULTI, list));
    return true;
}

static bool c_multi_index(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t n, cell;
    uint32_t list;
    gcg_disp_slot *a = actions(b, &n);
    if (!first_multi(b, &cell, &list))
        return false;
    a[cell].value = GCG_ACT(GCG_ACT_MULTI, d.n_multi);
    snprintf(want, cap, "action 0x%08x out of range", a[cell].value);
    return true;
}

static bool c_multi_nested(blob *b, char *want, size_t cap)
{
    uint64_t size, cell;
    uint32_t list, *m = (uint32_t *)section(b, GCG_SEC_MULTI, &size);
    if (!first_multi(b, &cell, &list))
        return false;
    m[list + 2] = GCG_ACT(GCG_ACT_MULTI, list);
    snprintf(want, cap, "conflict list at %u: bad entry 2", list);
    return true;
}

static bool c_multi_bad_shift(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t size, cell;
    uint32_t list, *m = (uint32_t *)section(b, GCG_SEC_MULTI, &size);
    if (!first_multi(b, &cell, &list))
        return false;
    m[list + 1] = GCG_ACT(GCG_ACT_SHIFT, d.n_states + 7);
    snprintf(want, cap, "conflict list at %u: bad entry 1", list);
    return true;
}

static bool c_class_of(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t size;
    uint8_t *h = section(b, GCG_SEC_BYTECLASS, &size);
    h[32 + 200] = (uint8_t)d.n_classes;
    snprintf(want, cap, "byte 200: class out of range");
    return true;
}

static bool c_prod_lhs(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t size;
    uint8_t *p = section(b, GCG_SEC_PRODUCTIONS, &size);
    if (d.n_prods < 3)
        return false;
    put32(p + 2 * 8, d.n_nts);
    snprintf(want, cap, "production 2 out of range");
    return true;
}

static bool c_prod_len(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *p = section(b, GCG_SEC_PRODUCTIONS, &size);
    put32(p + 1 * 8 + 4, 1000); /* longer than max_rhs */
    snprintf(want, cap, "production 1 out of range");
    return true;
}

static bool c_states_dim(blob *b, char *want, size_t cap)
{
    dims d = dims_of(b);
    uint64_t size, asize;
    uint8_t *h = section(b, GCG_SEC_BYTECLASS, &size);
    put32(h + 4, d.n_states + 1);
    want_offset = (uint64_t)(section(b, GCG_SEC_ACTION, &asize) - b->p);
    snprintf(want, cap, "section action: dimensions %u x %u, expected %u x %u", d.n_states, d.n_terms,
             d.n_states + 1, d.n_terms);
    return true;
}

static bool c_dims_zero(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *h = section(b, GCG_SEC_BYTECLASS, &size);
    put32(h, 0); /* no byte classes */
    snprintf(want, cap, "table dimensions out of range");
    return true;
}

static bool c_missing_goto(blob *b, char *want, size_t cap)
{
    int e = entry_of(b, GCG_SEC_GOTO);
    if (e < 0)
        return false;
    put32(b->p + 48 + 32 * e, 77); /* an id this reader does not know */
    snprintf(want, cap, "missing section goto (id 7)");
    return true;
}

static bool c_vocab_decreasing(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *v = section(b, GCG_SEC_VOCAB, &size);
    if (!v || get32(v) < 8)
        return false;
    uint8_t *off = v + 16;
    put32(off + 5 * 4, get32(off + 6 * 4) + 1);
    snprintf(want, cap, "vocabulary offset 5 decreases");
    return true;
}

static bool c_vocab_span(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *v = section(b, GCG_SEC_VOCAB, &size);
    if (!v)
        return false;
    uint32_t n = get32(v);
    put32(v + 16 + 4 * n, get32(v + 16 + 4 * n) - 1);
    snprintf(want, cap, "vocabulary offsets do not span the bytes");
    return true;
}

static bool c_trie_end_range(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *t = section(b, GCG_SEC_TRIE, &size);
    if (!t || get32(t) < 4)
        return false;
    /* Node 2 (a leaf, second child of the root: no parent's nesting check
     * looks at it first) ends past the last node. */
    uint32_t n = get32(t);
    put32(t + 16 + 2 * 4, n + 1);
    snprintf(want, cap, "trie node 2 out of range");
    return true;
}

static bool c_trie_end_back(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *t = section(b, GCG_SEC_TRIE, &size);
    if (!t || get32(t) < 5)
        return false;
    put32(t + 16 + 3 * 4, 3); /* end[3] = 3: an empty subtree */
    snprintf(want, cap, "trie node 3 out of range");
    return true;
}

static bool c_trie_root(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *t = section(b, GCG_SEC_TRIE, &size);
    if (!t)
        return false;
    put32(t + 16, get32(t) - 1);
    snprintf(want, cap, "trie root does not span the trie");
    return true;
}

static bool c_trie_nesting(blob *b, char *want, size_t cap)
{
    /* Nodes 1.. of the 256-byte trie are leaves (end[i] = i + 1); make node
     * 2 a child of node 1 whose subtree ends past its parent's. */
    uint64_t size;
    uint8_t *t = section(b, GCG_SEC_TRIE, &size);
    if (!t || get32(t) < 5 || get32(t + 16 + 4) != 2 || get32(t + 16 + 8) != 3)
        return false;
    put32(t + 16 + 1 * 4, 3);
    put32(t + 16 + 2 * 4, 4);
    snprintf(want, cap, "trie node 1 not nested");
    return true;
}

static bool c_trie_token(blob *b, char *want, size_t cap)
{
    uint64_t size;
    uint8_t *t = section(b, GCG_SEC_TRIE, &size);
    uint64_t vsize;
    uint8_t *v = section(b, GCG_SEC_VOCAB, &vsize);
    if (!t || !v)
        return false;
    uint32_t n = get32(t), m = get32(t + 4);
    if (m < 10)
        return false;
    uint8_t *tokens = t + 16 + 4 * (size_t)n + 4 * ((size_t)n + 1);
    put32(tokens + 9 * 4, get32(v));
    snprintf(want, cap, "trie token 9 out of range");
    return true;
}

typedef struct corrupt_case {
    const char *name;
    corrupt_fn fn;
} corrupt_case;

static const corrupt_case cases[] = {
    {"shift_state", c_shift_state},
    {"shift_state_last", c_shift_state_last},
    {"reduce_prod", c_reduce_prod},
    {"goto_state", c_goto_state},
    {"action_row", c_action_row},
    {"goto_row", c_goto_row},
    {"goto_free_tag", c_goto_free_tag},
    {"action_counts", c_action_counts},
    {"multi_past_end", c_multi_past_end},
    {"multi_index", c_multi_index},
    {"multi_nested", c_multi_nested},
    {"multi_bad_shift", c_multi_bad_shift},
    {"class_of", c_class_of},
    {"prod_lhs", c_prod_lhs},
    {"prod_len", c_prod_len},
    {"states_dim", c_states_dim},
    {"dims_zero", c_dims_zero},
    {"missing_goto", c_missing_goto},
    {"vocab_decreasing", c_vocab_decreasing},
    {"vocab_span", c_vocab_span},
    {"trie_end_range", c_trie_end_range},
    {"trie_end_back", c_trie_end_back},
    {"trie_root", c_trie_root},
    {"trie_nesting", c_trie_nesting},
    {"trie_token", c_trie_token},
};

#define N_CASES (sizeof cases / sizeof *cases)

/* ---- tests ------------------------------------------------------------------------ */

START_TEST(test_open_memory)
{
    blob b;
    ck_assert(compile_blob(&b));
    gcg_artifact *art = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(b.p, b.n, &art, &err), GCG_OK);
    dims d = dims_of(&b);
    /* The data was copied: the caller's buffer may go at once. */
    memset(b.p, 0, b.n);
    free(b.p);
    ck_assert_uint_eq(art->t.n_states, d.n_states);
    ck_assert_uint_eq(art->t.n_classes, 5); /* + ( ) a and the rest */
    ck_assert_uint_eq(art->t.n_terms, 6);
    ck_assert_uint_gt(art->t.n_multi, 0);
    ck_assert_uint_eq(((uintptr_t)art->mem) % 64, 0);
    ck_assert_uint_eq(gcg_artifact_vocab_size(art), 256);
    ck_assert_uint_eq(gcg_artifact_mask_words(art), 8);
    uint32_t n_eos = 1;
    gcg_artifact_eos(art, &n_eos);
    ck_assert_uint_eq(n_eos, 0);
    size_t len;
    const char *v = gcg_artifact_meta(art, "vocab", &len);
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_eq(len, 8);
    ck_assert_mem_eq(v, "bytes256", 8);
    v = gcg_artifact_meta(art, "root", &len);
    ck_assert_uint_eq(len, 4);
    ck_assert_mem_eq(v, "root", 4);
    v = gcg_artifact_meta(art, "vocab_size", &len);
    ck_assert_uint_eq(len, 3);
    ck_assert_mem_eq(v, "256", 3);
    ck_assert_ptr_null(gcg_artifact_meta(art, "nonexistent", &len));
    ck_assert_uint_eq(len, 0);
    uint64_t gsize;
    const uint8_t *g = gcg_container_section(gcg_artifact_container(art), GCG_SEC_GRAMMAR, &gsize);
    ck_assert_uint_eq(gsize, strlen(grammar));
    ck_assert_mem_eq(g, grammar, gsize);
    ck_assert_str_eq(gcg_section_name(GCG_SEC_TRIE), "trie");
    ck_assert_str_eq(gcg_section_name(99), "unknown");

    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"(a+a)+a", 7, NULL), GCG_OK);
    ck_assert(gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);
    gcg_artifact_free(NULL);
}
END_TEST

START_TEST(test_open_file)
{
    blob b;
    ck_assert(compile_blob(&b));
    char path[] = "/tmp/gcg_test_artifact_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b.p, b.n), (ssize_t)b.n);
    close(fd);
    gcg_artifact *art = NULL;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_file(path, &art, &err), GCG_OK);
    ck_assert_uint_eq(art->size, b.n);
    ck_assert_uint_eq(art->t.n_states, dims_of(&b).n_states);
    gcg_matcher *m;
    ck_assert_int_eq(gcg_matcher_new(art, NULL, &m, NULL), GCG_OK);
    ck_assert_int_eq(gcg_matcher_commit_bytes(m, (const uint8_t *)"a+(a", 4, NULL), GCG_OK);
    ck_assert(!gcg_matcher_is_complete(m));
    gcg_matcher_free(m);
    gcg_artifact_free(art);

    /* A corrupted copy on disk fails with the same message as in memory. */
    char want[256];
    ck_assert(c_goto_state(&b, want, sizeof want));
    reseal(&b);
    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, b.p, b.n), (ssize_t)b.n);
    close(fd);
    art = (gcg_artifact *)1;
    ck_assert_int_eq(gcg_artifact_open_file(path, &art, &err), GCG_ERR_FORMAT);
    ck_assert_ptr_null(art);
    ck_assert_str_eq(err.msg, want);

    /* Empty and missing files. */
    fd = open(path, O_WRONLY | O_TRUNC);
    close(fd);
    ck_assert_int_eq(gcg_artifact_open_file(path, &art, &err), GCG_ERR_FORMAT);
    char msg[512];
    snprintf(msg, sizeof msg, "%s: empty file", path);
    ck_assert_str_eq(err.msg, msg);
    ck_assert_uint_eq(err.offset, 0);
    unlink(path);
    ck_assert_int_eq(gcg_artifact_open_file(path, &art, &err), GCG_ERR_IO);
    snprintf(msg, sizeof msg, "%s: No such file or directory", path);
    ck_assert_str_eq(err.msg, msg);
    ck_assert_int_eq(gcg_artifact_open_file(NULL, &art, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_artifact_open_memory(NULL, 10, &art, &err), GCG_ERR_ARG);
    free(b.p);
}
END_TEST

START_TEST(test_corrupt_with_valid_checksums)
{
    const corrupt_case *c = &cases[_i];
    blob b;
    ck_assert(compile_blob(&b));
    char want[256];
    want_offset = UINT64_MAX;
    ck_assert_msg(c->fn(&b, want, sizeof want), "%s: artifact lacks what the case needs", c->name);
    reseal(&b);
    /* The container itself is valid... */
    gcg_container cont;
    gcg_error err;
    uint8_t *aligned = NULL;
    ck_assert_int_eq(posix_memalign((void **)&aligned, 64, b.n), 0);
    memcpy(aligned, b.p, b.n);
    ck_assert_int_eq(gcg_container_parse(aligned, b.n, &cont, &err), GCG_OK);
    free(aligned);
    /* ...and the loader rejects the contents. */
    gcg_artifact *art = (gcg_artifact *)1;
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(gcg_artifact_open_memory(b.p, b.n, &art, &err), GCG_ERR_FORMAT);
    ck_assert_ptr_null(art);
    ck_assert_int_eq(err.code, GCG_ERR_FORMAT);
    ck_assert_msg(strcmp(err.msg, want) == 0, "%s: message \"%s\", want \"%s\"", c->name, err.msg, want);
    ck_assert_uint_eq(err.offset, want_offset);
    /* Without the error struct too. */
    ck_assert_int_eq(gcg_artifact_open_memory(b.p, b.n, &art, NULL), GCG_ERR_FORMAT);
    free(b.p);
}
END_TEST

START_TEST(test_corrupt_without_reseal)
{
    /* The same patch without new checksums stops at the container. */
    blob b;
    ck_assert(compile_blob(&b));
    char want[256];
    ck_assert(c_shift_state(&b, want, sizeof want));
    gcg_artifact *art;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(b.p, b.n, &art, &err), GCG_ERR_FORMAT);
    int e = entry_of(&b, GCG_SEC_ACTION);
    char msg[128];
    snprintf(msg, sizeof msg, "section %d (id %u): checksum mismatch", e, GCG_SEC_ACTION);
    ck_assert_str_eq(err.msg, msg);
    ck_assert_uint_eq(err.offset, get64(b.p + 48 + 32 * e + 8));
    free(b.p);
}
END_TEST

START_TEST(test_valid_edge_values)
{
    /* Values at the edge of their ranges still open. */
    blob b;
    ck_assert(compile_blob(&b));
    dims d = dims_of(&b);
    uint64_t n, at;
    gcg_disp_slot *g = slots(&b, GCG_SEC_GOTO, &n);
    for (uint64_t i = 0; i < n; i++)
        if (g[i].tag != GCG_DISP_FREE) {
            g[i].value = d.n_states - 1;
            break;
        }
    first_action(&b, GCG_ACT_REDUCE, &at)->value = GCG_ACT(GCG_ACT_REDUCE, d.n_prods - 1);
    /* A row may end on the last slot. */
    actions(&b, &n);
    rows(&b, GCG_SEC_ACTION)[0].base = (uint32_t)(n - d.n_terms);
    reseal(&b);
    gcg_artifact *art;
    gcg_error err;
    ck_assert_int_eq(gcg_artifact_open_memory(b.p, b.n, &art, &err), GCG_OK);
    gcg_artifact_free(art);
    free(b.p);
}
END_TEST

/* Every file of the corrupt folder fails to open from disk. */
START_TEST(test_corrupt_folder)
{
    DIR *dir = opendir(CORRUPT_DIR);
    ck_assert_ptr_nonnull(dir);
    struct dirent *e;
    uint32_t count = 0;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", CORRUPT_DIR, e->d_name);
        gcg_artifact *art = (gcg_artifact *)1;
        gcg_error err;
        gcg_status st = gcg_artifact_open_file(path, &art, &err);
        ck_assert_msg(st == GCG_ERR_FORMAT, "%s opened (status %d)", e->d_name, st);
        ck_assert_ptr_null(art);
        count++;
    }
    closedir(dir);
    ck_assert_uint_eq(count, N_CASES);
}
END_TEST

/* ---- regenerating the corrupt folder ------------------------------------------------ */

static int write_corrupt(const char *dir)
{
    mkdir(dir, 0755);
    for (size_t i = 0; i < N_CASES; i++) {
        blob b;
        char want[256], path[1024];
        if (!compile_blob(&b))
            return 1;
        if (!cases[i].fn(&b, want, sizeof want)) {
            fprintf(stderr, "%s: not applicable\n", cases[i].name);
            free(b.p);
            return 1;
        }
        reseal(&b);
        snprintf(path, sizeof path, "%s/%s.gcg", dir, cases[i].name);
        FILE *f = fopen(path, "wb");
        if (!f || fwrite(b.p, 1, b.n, f) != b.n) {
            fprintf(stderr, "%s: cannot write\n", path);
            return 1;
        }
        fclose(f);
        free(b.p);
    }
    return 0;
}

static Suite *artifact_suite(void)
{
    Suite *s = suite_create("artifact");
    TCase *tc = tcase_create("open");
    tcase_add_test(tc, test_open_memory);
    tcase_add_test(tc, test_open_file);
    tcase_add_test(tc, test_valid_edge_values);
    suite_add_tcase(s, tc);
    tc = tcase_create("corrupt");
    tcase_add_loop_test(tc, test_corrupt_with_valid_checksums, 0, N_CASES);
    tcase_add_test(tc, test_corrupt_without_reseal);
    tcase_add_test(tc, test_corrupt_folder);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write-corrupt") == 0)
        return write_corrupt(argv[2]);
    SRunner *sr = srunner_create(artifact_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
