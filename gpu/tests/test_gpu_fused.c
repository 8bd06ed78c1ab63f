/*
 * test_gpu_fused.c — the fused variant (mask, scale by a host-computed
 * inverse temperature, write back, argmax) equals the CPU reference bit for
 * bit, logits and argmax both: every supported dtype, shapes from one token
 * to 262144, many ties across workgroups (lowest index must win), rows with
 * no allowed token, f16 subnormals and overflow to inf, and the NaN, signed
 * zero and scale-1 rules of gcg_vk.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_ref.h"
#include "gpu_testlib.h"

typedef struct fused_case {
    uint32_t rows, vocab, logits_pad, mask_pad;
    int density; /* per mille, or TL_MASK_ONE */
    int few;     /* logits from eight values: ties everywhere */
} fused_case;

static const fused_case small_cases[] = {
    {1, 1, 0, 0, 1000, 0},   {3, 1, 2, 0, 500, 0},     {2, 33, 0, 1, 500, 0},
    {5, 100, 3, 0, 0, 0},    {8, 257, 0, 0, 20, 0},    {16, 1000, 7, 2, 500, 1},
    {4, 4097, 0, 0, 990, 0}, {64, 96, 0, 0, 500, 1},   {9, 30000, 0, 0, TL_MASK_ONE, 0},
    {2, 70001, 5, 0, 500, 1}, {3, 65536, 0, 0, 3, 0},  {12, 2048, 0, 0, 1000, 0},
};

static const fused_case big_cases[] = {
    {1, 262144, 0, 0, 500, 0},
    {64, 128256, 0, 0, 500, 0},
    {8, 262144, 64, 0, 800, 1},
};

static void check_case(gcg_vk_context *ctx, gcg_vk_dtype dt, const fused_case *c, uint64_t seed)
{
    uint32_t words = (c->vocab + 31) / 32;
    gcg_vk_shape shape = {dt, c->rows, c->vocab, c->vocab + c->logits_pad, words + c->mask_pad};
    gcg_vk_runner *r = NULL;
    gcg_error err = {0};
    gcg_status st = gcg_vk_runner_create(ctx, &shape, &r, &err);
    ck_assert_msg(st == GCG_OK, "runner: %s", err.msg);
    tl_rng rng = {seed};
    void *got = gcg_vk_runner_logits(r);
    float *scales = gcg_vk_runner_inv_temperature(r);
    tl_fill_values(&rng, &shape, got, c->few);
    tl_fill_masks(&rng, &shape, gcg_vk_runner_masks(r), c->density);
    tl_fill_scales(&rng, shape.rows, scales);
    size_t bytes = (size_t)shape.rows * shape.logits_stride * gcg_vk_dtype_size(dt);
    void *want = malloc(bytes);
    uint32_t *want_argmax = malloc(shape.rows * sizeof *want_argmax);
    ck_assert(want && want_argmax);
    memcpy(want, got, bytes);
    ref_apply_fused(&shape, shape.rows, want, gcg_vk_runner_masks(r), scales, want_argmax);
    st = gcg_vk_runner_apply_fused(r, shape.rows, &err);
    ck_assert_msg(st == GCG_OK, "apply: %s", err.msg);
    tl_assert_logits(&shape, got, want, "fused");
    const uint32_t *argmax = gcg_vk_runner_argmax(r);
    for (uint32_t i = 0; i < shape.rows; i++)
        ck_assert_msg(argmax[i] == want_argmax[i], "%s B=%u V=%u row %u: argmax %u, want %u",
                      gcg_vk_dtype_name(dt), c->rows, c->vocab, i, argmax[i], want_argmax[i]);
    free(want);
    free(want_argmax);
    gcg_vk_runner_destroy(r);
}

static void check_all_dtypes(const gcg_vk_options *opt, const fused_case *cases, size_t n)
{
    gcg_vk_context *ctx = tl_context_opt(opt);
    uint32_t dtypes = gcg_vk_supported_dtypes(ctx);
    for (int dt = 0; dt < GCG_VK_DTYPE_COUNT; dt++)
        if (dtypes & (1u << dt))
            for (size_t i = 0; i < n; i++)
                check_case(ctx, (gcg_vk_dtype)dt, &cases[i], 5000 + 1000 * i + dt);
    gcg_vk_context_destroy(ctx);
}

#define N_SMALL (sizeof small_cases / sizeof small_cases[0])
#define N_BIG (sizeof big_cases / sizeof big_cases[0])

START_TEST(small_shapes_one_word_per_invocation)
{
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    opt.elems_per_invocation = 32;
    check_all_dtypes(&opt, small_cases, N_SMALL);
}
END_TEST

START_TEST(small_shapes_two_logits_per_invocation)
{
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    opt.elems_per_invocation = 2;
    check_all_dtypes(&opt, small_cases, N_SMALL);
}
END_TEST

/* The shared-memory reduction that devices without subgroup arithmetic use
 * gives the same results. */
START_TEST(small_shapes_without_subgroup_operations)
{
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    opt.no_subgroup_ops = true;
    for (uint32_t elems = 4; elems <= 32; elems *= 8) {
        opt.elems_per_invocation = elems;
        gcg_vk_context *ctx = tl_context_opt(&opt);
        gcg_vk_info info;
        gcg_vk_context_info(ctx, &info);
        ck_assert(!info.subgroup_reduction);
        gcg_vk_context_destroy(ctx);
        check_all_dtypes(&opt, small_cases, N_SMALL);
    }
}
END_TEST

START_TEST(big_shapes)
{
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    check_all_dtypes(&opt, big_cases, N_BIG);
}
END_TEST

/* One f32 row per special rule, checked against values written out here. */
typedef struct special_row {
    uint32_t logits[6];
    uint32_t mask;
    float scale;
    uint32_t want_argmax;
    uint32_t want[6];
} special_row;

#define NINF 0xFF800000u
#define QNAN 0x7FC00123u

static const special_row special_rows[] = {
    /* A NaN is below -inf: the allowed -inf at 3 wins. Scale 1 keeps the
     * NaN's payload. */
    {{QNAN, 0x3F800000, 0x40000000, NINF, 0, 0}, 0x09, 1.0f, 3, {QNAN, NINF, NINF, NINF, NINF, NINF}},
    /* Only NaNs allowed: the lowest-indexed NaN. */
    {{0x3F800000, QNAN, QNAN, 0, 0, 0}, 0x06, 1.0f, 1, {NINF, QNAN, QNAN, NINF, NINF, NINF}},
    /* -0 equals +0: the lower index wins whatever the sign. */
    {{0xBF800000, 0x80000000, 0x00000000, 0, 0, 0}, 0x07, 1.0f, 1, {0xBF800000, 0x80000000, 0, NINF, NINF, NINF}},
    /* Nothing allowed. */
    {{1, 2, 3, 4, 5, 6}, 0x00, 0.5f, GCG_VK_NO_TOKEN, {NINF, NINF, NINF, NINF, NINF, NINF}},
    /* Scale 0.5: 3.0 -> 1.5, -2.0 -> -1.0; ties at 1.5 go to index 1. */
    {{0xC0000000, 0x40400000, 0x40400000, 0, 0, 0}, 0x07, 0.5f, 1, {0xBF800000, 0x3FC00000, 0x3FC00000, NINF, NINF, NINF}},
    /* Overflow to inf under scale 2: 3e38 -> inf beats 7.5e37 -> 1.5e38. */
    {{0x7E61B1E6, 0x7F61B1E6, 0, 0, 0, 0}, 0x03, 2.0f, 1, {0x7EE1B1E6, 0x7F800000, NINF, NINF, NINF, NINF}},
};

START_TEST(special_values_follow_the_documented_rules)
{
    gcg_vk_context *ctx = tl_context(0, 0);
    size_t n = sizeof special_rows / sizeof special_rows[0];
    gcg_vk_shape shape = {GCG_VK_F32, (uint32_t)n, 6, 0, 0};
    gcg_vk_runner *r = NULL;
    ck_assert_int_eq(gcg_vk_runner_create(ctx, &shape, &r, NULL), GCG_OK);
    uint32_t *l = gcg_vk_runner_logits(r);
    for (size_t i = 0; i < n; i++) {
        memcpy(l + 6 * i, special_rows[i].logits, sizeof special_rows[i].logits);
        gcg_vk_runner_masks(r)[i] = special_rows[i].mask;
        gcg_vk_runner_inv_temperature(r)[i] = special_rows[i].scale;
    }
    ck_assert_int_eq(gcg_vk_runner_apply_fused(r, (uint32_t)n, NULL), GCG_OK);
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(gcg_vk_runner_argmax(r)[i], special_rows[i].want_argmax);
        for (int j = 0; j < 6; j++)
            ck_assert_msg(l[6 * i + j] == special_rows[i].want[j], "row %zu col %d: 0x%x, want 0x%x",
                          i, j, l[6 * i + j], special_rows[i].want[j]);
    }
    gcg_vk_runner_destroy(r);
    gcg_vk_context_destroy(ctx);
}
END_TEST

START_TEST(half_precision_rounding_is_nearest_even)
{
    gcg_vk_context *ctx = tl_context(0, 0);
    if (!(gcg_vk_supported_dtypes(ctx) & (1u << GCG_VK_F16))) {
        gcg_vk_context_destroy(ctx);
        return;
    }
    /* f16 1.0 + 1 ulp (0x3C01) times 1.5: 1.5014648... lies halfway between
     * 0x3E01 and 0x3E02 and goes to the even 0x3E02; 0x3C03 * 1.5 is halfway
     * between 0x3E04 and 0x3E05 and goes to 0x3E04. The smallest subnormal
     * (0x0001) halved is a tie with 0 and goes to 0; 0x0003 halved goes to
     * 0x0002. 65504 * 1.5 overflows to inf. */
    static const uint16_t in[5] = {0x3C01, 0x3C03, 0x0001, 0x0003, 0x7BFF};
    static const float scale[5] = {1.5f, 1.5f, 0.5f, 0.5f, 1.5f};
    static const uint16_t want[5] = {0x3E02, 0x3E04, 0x0000, 0x0002, 0x7C00};
    gcg_vk_shape shape = {GCG_VK_F16, 5, 1, 0, 0};
    gcg_vk_runner *r = NULL;
    ck_assert_int_eq(gcg_vk_runner_create(ctx, &shape, &r, NULL), GCG_OK);
    uint16_t *l = gcg_vk_runner_logits(r);
    for (int i = 0; i < 5; i++) {
        l[i] = in[i];
        gcg_vk_runner_masks(r)[i] = 1;
        gcg_vk_runner_inv_temperature(r)[i] = scale[i];
    }
    ck_assert_int_eq(gcg_vk_runner_apply_fused(r, 5, NULL), GCG_OK);
    for (int i = 0; i < 5; i++) {
        ck_assert_uint_eq(l[i], want[i]);
        ck_assert_uint_eq(gcg_vk_runner_argmax(r)[i], 0);
    }
    gcg_vk_runner_destroy(r);
    gcg_vk_context_destroy(ctx);
}
END_TEST

START_TEST(inverse_temperature_contract)
{
    ck_assert(gcg_vk_inv_temperature(0.0f) == 1.0f);
    ck_assert(gcg_vk_inv_temperature(2.0f) == 0.5f);
    ck_assert(gcg_vk_inv_temperature(0.3f) == 1.0f / 0.3f);
    ck_assert(gcg_vk_inv_temperature(-1.0f) == 1.0f);
    ck_assert(gcg_vk_inv_temperature(NAN) == 1.0f);
    ck_assert(gcg_vk_inv_temperature(INFINITY) == 1.0f);
    ck_assert(gcg_vk_inv_temperature(1e-39f) == 1.0f); /* 1/t overflows */
}
END_TEST

static Suite *fused_suite(void)
{
    Suite *s = suite_create("gpu_fused");
    TCase *tc = tcase_create("fused");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, inverse_temperature_contract);
    tcase_add_test(tc, special_values_follow_the_documented_rules);
    tcase_add_test(tc, half_precision_rounding_is_nearest_even);
    tcase_add_test(tc, small_shapes_one_word_per_invocation);
    tcase_add_test(tc, small_shapes_two_logits_per_invocation);
    tcase_add_test(tc, small_shapes_without_subgroup_operations);
    tcase_add_test(tc, big_shapes);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tl_main(fused_suite());
}
