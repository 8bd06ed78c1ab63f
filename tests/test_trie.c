/*
 * test_trie.c — the token trie reports the memory it holds exactly
 * (gcg_trie_memory, and so gcgc_vocab_memory): the bytes of every block
 * gcg_trie_build leaves allocated, byte trie and class trie, on the 256
 * single bytes and on a random vocabulary with shared prefixes.
 *
 * This binary replaces malloc, calloc, realloc and free (glibc lets a program
 * do so; they forward to __libc_malloc & co.) with versions that keep each
 * block's requested size in a header and sum the live bytes. Under
 * AddressSanitizer the allocator belongs to the sanitizer: the interposers
 * are left out and the test only checks that the count is positive.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "token_trie.h"
#include "vocab.h"

#include "alloc_counting.h"

static size_t live; /* requested bytes of the blocks allocated and not freed */

#if ALLOC_COUNTING
void *__libc_malloc(size_t n);
void __libc_free(void *p);

#define HEAD 16 /* keeps the blocks 16-byte aligned */

void *malloc(size_t n)
{
    unsigned char *p = __libc_malloc(n + HEAD);
    if (!p)
        return NULL;
    memcpy(p, &n, sizeof n);
    live += n;
    return p + HEAD;
}

void free(void *q)
{
    if (!q)
        return;
    unsigned char *p = (unsigned char *)q - HEAD;
    size_t n;
    memcpy(&n, p, sizeof n);
    live -= n;
    __libc_free(p);
}

void *calloc(size_t n, size_t size)
{
    if (size && n > (size_t)-1 / size - HEAD)
        return NULL;
    void *p = malloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void *realloc(void *q, size_t n)
{
    if (!q)
        return malloc(n);
    size_t old;
    memcpy(&old, (unsigned char *)q - HEAD, sizeof old);
    void *p = malloc(n);
    if (!p)
        return NULL;
    memcpy(p, q, old < n ? old : n);
    free(q);
    return p;
}
#endif

static uint64_t rng_next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* n tokens over a 6-letter alphabet, 1..12 bytes, so that prefixes are
 * shared; every 50th a special token. */
static void random_vocab(uint32_t n, uint64_t seed, gcg_vocab *v)
{
    memset(v, 0, sizeof *v);
    v->n_tokens = n;
    v->offsets = malloc(((size_t)n + 1) * sizeof *v->offsets);
    v->bytes = malloc((size_t)n * 12 + 1);
    v->flags = calloc(n, 1);
    uint32_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        v->offsets[i] = at;
        if (i % 50 == 49) {
            v->flags[i] = GCG_TOKEN_SPECIAL;
            continue;
        }
        uint32_t len = 1 + (uint32_t)(rng_next(&seed) % 12);
        for (uint32_t k = 0; k < len; k++)
            v->bytes[at++] = (uint8_t)("ab{\" \xc3"[rng_next(&seed) % 6]);
    }
    v->offsets[n] = at;
}

/* Builds the trie of v (with `label` when given) and compares its report
 * with the bytes the build left allocated. */
static void check_memory(const gcg_vocab *v, const uint8_t *label)
{
    token_trie t;
    size_t before = live;
    ck_assert_int_eq(gcg_trie_build(v, label, &t), GCG_OK);
    size_t held = live - before, told = gcg_trie_memory(&t);
    ck_assert_uint_gt(told, t.n_nodes);
    if (ALLOC_COUNTING)
        ck_assert_uint_eq(told, held);
    gcg_trie_free(&t);
    if (ALLOC_COUNTING)
        ck_assert_uint_eq(live, before);
    ck_assert_uint_eq(gcg_trie_memory(&t), 0);
}

START_TEST(single_bytes)
{
    gcg_vocab v;
    uint32_t eos = 256;
    ck_assert_int_eq(gcg_vocab_bytes256(&eos, 1, &v), GCG_OK);
    check_memory(&v, NULL);
    gcg_vocab_free(&v);
}
END_TEST

START_TEST(random_tokens_byte_and_class_tries)
{
    gcg_vocab v;
    random_vocab(3000, 11, &v);
    check_memory(&v, NULL);
    uint8_t label[256];
    for (int b = 0; b < 256; b++)
        label[b] = (uint8_t)(b == '"' ? 1 : b == '{' ? 2 : 0);
    check_memory(&v, label);
    gcg_vocab_free(&v);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("trie");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, single_bytes);
    tcase_add_test(tc, random_tokens_byte_and_class_tries);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
