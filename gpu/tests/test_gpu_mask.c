/*
 * test_gpu_mask.c — masking on the device equals the CPU reference bit for
 * bit: every supported dtype, B = 1..64, V = 1..262144 (multiples of 32 and
 * not), padded strides whose padding must stay untouched, random bits in the
 * logits (NaNs included: allowed logits are never read), random garbage in
 * mask bits past V, and each logits-per-invocation variant.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_ref.h"
#include "gpu_testlib.h"

typedef struct shape_case {
    uint32_t rows, vocab, logits_pad, mask_pad;
    int density; /* per mille, or TL_MASK_ONE */
} shape_case;

static const shape_case small_cases[] = {
    {1, 1, 0, 0, 500},      {1, 1, 3, 1, 0},        {2, 2, 0, 0, 1000},   {3, 31, 0, 0, 500},
    {1, 32, 0, 0, 500},     {5, 33, 1, 0, 500},     {4, 63, 0, 2, 10},    {7, 64, 0, 0, 990},
    {2, 65, 9, 0, 500},     {13, 255, 0, 0, 500},   {1, 256, 0, 0, 500},  {3, 257, 0, 0, 500},
    {8, 1000, 24, 5, 500},  {31, 4095, 0, 0, 500},  {2, 8193, 0, 0, 500}, {64, 7, 0, 0, 500},
    {64, 300, 17, 1, 500},  {9, 32000, 0, 0, TL_MASK_ONE},              {2, 50257, 0, 0, 500},
    {1, 65536, 0, 0, 0},    {1, 65537, 0, 0, 1000}, {16, 2049, 0, 0, 500},
};

static const shape_case big_cases[] = {
    {1, 262144, 0, 0, 500},
    {64, 128256, 0, 0, 500},
    {8, 262144, 100, 3, 900},
    {64, 262144, 0, 0, 500},
};

/* Masks rows 0 .. run-1 of a fresh runner and compares the whole buffer. */
static void check_case(gcg_vk_context *ctx, gcg_vk_dtype dt, const shape_case *c, uint32_t run,
                       uint64_t seed)
{
    uint32_t words = (c->vocab + 31) / 32;
    gcg_vk_shape shape = {dt, c->rows, c->vocab, c->vocab + c->logits_pad, words + c->mask_pad};
    gcg_vk_runner *r = NULL;
    gcg_error err = {0};
    gcg_status st = gcg_vk_runner_create(ctx, &shape, &r, &err);
    ck_assert_msg(st == GCG_OK, "runner: %s", err.msg);
    tl_rng rng = {seed};
    void *got = gcg_vk_runner_logits(r);
    tl_fill_bits(&rng, &shape, got);
    tl_fill_masks(&rng, &shape, gcg_vk_runner_masks(r), c->density);
    size_t bytes = (size_t)shape.rows * shape.logits_stride * gcg_vk_dtype_size(dt);
    void *want = malloc(bytes);
    ck_assert_ptr_nonnull(want);
    memcpy(want, got, bytes);
    ref_apply_mask(&shape, run, want, gcg_vk_runner_masks(r));
    st = gcg_vk_runner_apply(r, run, &err);
    ck_assert_msg(st == GCG_OK, "apply: %s", err.msg);
    tl_assert_logits(&shape, got, want, "mask");
    free(want);
    gcg_vk_runner_destroy(r);
}

static void check_all_dtypes(uint32_t elems, const shape_case *cases, size_t n)
{
    gcg_vk_context *ctx = tl_context(elems, 0);
    uint32_t dtypes = gcg_vk_supported_dtypes(ctx);
    ck_assert_uint_eq(dtypes & 1u, 1u); /* f32 is always there */
    for (int dt = 0; dt < GCG_VK_DTYPE_COUNT; dt++)
        if (dtypes & (1u << dt))
            for (size_t i = 0; i < n; i++)
                check_case(ctx, (gcg_vk_dtype)dt, &cases[i], cases[i].rows, 1000 * i + dt);
    gcg_vk_context_destroy(ctx);
}

#define N_SMALL (sizeof small_cases / sizeof small_cases[0])
#define N_BIG (sizeof big_cases / sizeof big_cases[0])

START_TEST(small_shapes_one_word_per_invocation)
{
    check_all_dtypes(32, small_cases, N_SMALL);
}
END_TEST

START_TEST(small_shapes_four_logits_per_invocation)
{
    check_all_dtypes(4, small_cases, N_SMALL);
}
END_TEST

START_TEST(small_shapes_one_logit_per_invocation)
{
    check_all_dtypes(1, small_cases, N_SMALL);
}
END_TEST

START_TEST(big_shapes)
{
    check_all_dtypes(0, big_cases, N_BIG);
}
END_TEST

START_TEST(fewer_rows_than_the_shape_leave_the_rest_untouched)
{
    gcg_vk_context *ctx = tl_context(0, 0);
    shape_case c = {10, 3000, 5, 2, 500};
    check_case(ctx, GCG_VK_F32, &c, 3, 7);
    check_case(ctx, GCG_VK_F32, &c, 1, 8);
    gcg_vk_context_destroy(ctx);
}
END_TEST

START_TEST(known_row_gives_known_bits)
{
    gcg_vk_context *ctx = tl_context(0, 0);
    gcg_vk_shape shape = {GCG_VK_F16, 1, 40, 41, 0};
    gcg_vk_runner *r = NULL;
    ck_assert_int_eq(gcg_vk_runner_create(ctx, &shape, &r, NULL), GCG_OK);
    uint16_t *l = gcg_vk_runner_logits(r);
    for (int i = 0; i < 41; i++)
        l[i] = (uint16_t)(0x3C00 + i); /* 1.0 and up */
    uint32_t *m = gcg_vk_runner_masks(r);
    m[0] = 0x80000001u;               /* tokens 0 and 31 */
    m[1] = 0xFFFFFF00u | 0x4u;        /* token 34; bits past V=40 set but ignored */
    ck_assert_int_eq(gcg_vk_runner_apply(r, 1, NULL), GCG_OK);
    for (int i = 0; i < 40; i++) {
        uint16_t want = (i == 0 || i == 31 || i == 34) ? (uint16_t)(0x3C00 + i) : 0xFC00;
        ck_assert_uint_eq(l[i], want);
    }
    ck_assert_uint_eq(l[40], 0x3C00 + 40); /* padding */
    gcg_vk_runner_destroy(r);
    gcg_vk_context_destroy(ctx);
}
END_TEST

static Suite *mask_suite(void)
{
    Suite *s = suite_create("gpu_mask");
    TCase *tc = tcase_create("mask");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, known_row_gives_known_bits);
    tcase_add_test(tc, small_shapes_one_word_per_invocation);
    tcase_add_test(tc, small_shapes_four_logits_per_invocation);
    tcase_add_test(tc, small_shapes_one_logit_per_invocation);
    tcase_add_test(tc, fewer_rows_than_the_shape_leave_the_rest_untouched);
    tcase_add_test(tc, big_shapes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tl_main(mask_suite());
}
