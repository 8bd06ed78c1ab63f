/*
 * gpu_testlib.c — shared test helpers (see gpu_testlib.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_ref.h"
#include "gpu_testlib.h"

uint64_t tl_next(tl_rng *r)
{
    uint64_t z = (r->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

uint32_t tl_below(tl_rng *r, uint32_t n)
{
    return (uint32_t)((tl_next(r) >> 32) * n >> 32);
}

gcg_vk_context *tl_context_opt(const gcg_vk_options *opt)
{
    gcg_vk_context *ctx = NULL;
    gcg_error err = {0};
    gcg_status st = gcg_vk_context_create_standalone(opt, &ctx, &err);
    ck_assert_msg(st == GCG_OK, "context: %s: %s", gcg_vk_status_str(st), err.msg);
    return ctx;
}

gcg_vk_context *tl_context(uint32_t elems_per_invocation, uint64_t max_binding_bytes)
{
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    opt.elems_per_invocation = elems_per_invocation;
    opt.max_binding_bytes = max_binding_bytes;
    return tl_context_opt(&opt);
}

void tl_fill_masks(tl_rng *r, const gcg_vk_shape *s, uint32_t *masks, int density)
{
    size_t n = (size_t)s->rows * s->mask_stride;
    for (size_t i = 0; i < n; i++)
        masks[i] = (uint32_t)tl_next(r);
    for (uint32_t row = 0; row < s->rows; row++) {
        uint32_t *m = masks + (size_t)row * s->mask_stride;
        uint32_t one = tl_below(r, s->vocab);
        for (uint32_t i = 0; i < s->vocab; i++) {
            int on = density == TL_MASK_ONE ? i == one : (int)tl_below(r, 1000) < density;
            m[i / 32] = (m[i / 32] & ~(1u << (i % 32))) | (uint32_t)on << (i % 32);
        }
    }
}

void tl_fill_bits(tl_rng *r, const gcg_vk_shape *s, void *logits)
{
    size_t n = (size_t)s->rows * s->logits_stride;
    for (size_t i = 0; i < n; i++)
        ref_set(s->dtype, logits, i, (uint32_t)tl_next(r));
}

static float tl_value(tl_rng *r, int few)
{
    static const float fixed[8] = {-3.5f, -0.0f, 0.0f, 1.25f, 7.0f, 7.0f, 1e4f, -INFINITY};
    if (few)
        return fixed[tl_below(r, 8)];
    switch (tl_below(r, 16)) {
    case 0: return INFINITY;
    case 1: return -INFINITY;
    case 2: return tl_below(r, 2) ? 0.0f : -0.0f;
    case 3: return (tl_below(r, 2) ? 1.0f : -1.0f) * 3e38f;  /* overflows when scaled up */
    case 4: return (tl_below(r, 2) ? 1.0f : -1.0f) * 1e-37f; /* stays normal at scale 1/8 */
    case 5: return (tl_below(r, 2) ? 1.0f : -1.0f) * (float)tl_below(r, 70000); /* > f16 max */
    default: return ((float)tl_below(r, 1u << 24) / (float)(1u << 24) - 0.5f) * 80.0f;
    }
}

/* Drops what a device may flush: f32/bf16 magnitudes below 2^-123, whose
 * products with scales >= 1/8 would be subnormal. */
static float tl_no_tiny(float v)
{
    return (v != 0.0f && fabsf(v) < 0x1p-123f) ? 0.0f : v;
}

void tl_fill_values(tl_rng *r, const gcg_vk_shape *s, void *logits, int few)
{
    tl_fill_bits(r, s, logits);
    for (uint32_t row = 0; row < s->rows; row++)
        for (uint32_t i = 0; i < s->vocab; i++) {
            size_t k = (size_t)row * s->logits_stride + i;
            float v = tl_value(r, few);
            /* f16 keeps its random subnormal patterns now and then: they are
             * f32 normals, so nothing may flush them. */
            if (s->dtype == GCG_VK_F16 && !few && tl_below(r, 8) == 0)
                ref_set(s->dtype, logits, k, tl_below(r, 0x400) | (tl_below(r, 2) << 15));
            else
                ref_set(s->dtype, logits, k, ref_round(s->dtype, tl_no_tiny(v)));
        }
}

void tl_fill_scales(tl_rng *r, uint32_t rows, float *scales)
{
    for (uint32_t i = 0; i < rows; i++) {
        float t = tl_below(r, 4) == 0 ? 0.0f : 0.125f + (float)tl_below(r, 7876) / 1000.0f;
        scales[i] = gcg_vk_inv_temperature(t);
    }
}

void tl_assert_logits(const gcg_vk_shape *s, const void *got, const void *want, const char *what)
{
    size_t n = (size_t)s->rows * s->logits_stride;
    if (memcmp(got, want, n * gcg_vk_dtype_size(s->dtype)) == 0)
        return;
    for (size_t i = 0; i < n; i++) {
        uint32_t g = ref_get(s->dtype, got, i), w = ref_get(s->dtype, want, i);
        ck_assert_msg(g == w, "%s %s B=%u V=%u stride=%u: row %zu col %zu: got 0x%x, want 0x%x",
                      what, gcg_vk_dtype_name(s->dtype), s->rows, s->vocab, s->logits_stride,
                      i / s->logits_stride, i % s->logits_stride, g, w);
    }
}

int tl_main(Suite *suite)
{
    gcg_vk_context *ctx = NULL;
    gcg_error err = {0};
    gcg_status st = gcg_vk_context_create_standalone(NULL, &ctx, &err);
    if (st == GCG_VK_ERR_NO_DEVICE) {
        printf("SKIP: %s\n", err.msg);
        return 77;
    }
    if (st != GCG_OK) {
        fprintf(stderr, "cannot create a Vulkan context: %s: %s\n", gcg_vk_status_str(st),
                err.msg);
        return 1;
    }
    gcg_vk_info info;
    gcg_vk_context_info(ctx, &info);
    printf("device: %s (type %d), dtypes 0x%x, max binding %llu bytes\n", info.device_name,
           (int)info.device_type, info.dtypes, (unsigned long long)info.max_binding_bytes);
    gcg_vk_context_destroy(ctx);
    SRunner *sr = srunner_create(suite);
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
