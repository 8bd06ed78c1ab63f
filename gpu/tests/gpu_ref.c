/*
 * gpu_ref.c — CPU reference for masking and the fused variant (see
 * gpu_ref.h for why it avoids the shaders' bit tricks).
 */
#include <math.h>
#include <string.h>

#include "gpu_ref.h"

uint32_t ref_get(gcg_vk_dtype dtype, const void *data, size_t i)
{
    return dtype == GCG_VK_F32 ? ((const uint32_t *)data)[i] : ((const uint16_t *)data)[i];
}

void ref_set(gcg_vk_dtype dtype, void *data, size_t i, uint32_t bits)
{
    if (dtype == GCG_VK_F32)
        ((uint32_t *)data)[i] = bits;
    else
        ((uint16_t *)data)[i] = (uint16_t)bits;
}

static float ref_f32(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static uint32_t ref_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

double ref_decode(gcg_vk_dtype dtype, uint32_t bits)
{
    if (dtype == GCG_VK_F32)
        return ref_f32(bits);
    if (dtype == GCG_VK_BF16)
        return ref_f32(bits << 16);
    double sign = (bits & 0x8000) ? -1.0 : 1.0;
    int e = (bits >> 10) & 0x1F;
    int m = bits & 0x3FF;
    if (e == 31)
        return m ? NAN : sign * INFINITY;
    if (e == 0)
        return sign * ldexp(m, -24);
    return sign * ldexp(1024 + m, e - 25);
}

/* |y| rounded to a multiple of the format's unit in the last place: p
 * significand bits, emin the least normal exponent. */
static double ref_round_abs(double a, int p, int emin)
{
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int exp = e - 1 < emin ? emin : e - 1;
    double ulp = ldexp(1.0, exp - (p - 1));
    return nearbyint(a / ulp) * ulp;
}

static uint32_t ref_round_f16(float y)
{
    uint32_t sign = signbit(y) ? 0x8000 : 0;
    double a = fabs((double)y);
    if (a >= 65520.0)
        return sign | 0x7C00;
    double v = ref_round_abs(a, 11, -14);
    if (v == 0.0)
        return sign;
    int e;
    frexp(v, &e);
    if (e - 1 < -14)
        return sign | (uint32_t)(v / ldexp(1.0, -24));
    uint32_t mant = (uint32_t)((v / ldexp(1.0, e - 1) - 1.0) * 1024.0);
    return sign | (uint32_t)(e - 1 + 15) << 10 | mant;
}

static uint32_t ref_round_bf16(float y)
{
    uint32_t sign = signbit(y) ? 0x8000 : 0;
    double a = fabs((double)y);
    if (a >= ldexp(2.0 - ldexp(1.0, -8), 127))
        return sign | 0x7F80;
    float v = (float)ref_round_abs(a, 8, -126); /* exact: a bf16 value */
    return sign | (ref_bits(v) >> 16);
}

uint32_t ref_round(gcg_vk_dtype dtype, float y)
{
    if (dtype == GCG_VK_F32)
        return ref_bits(y);
    return dtype == GCG_VK_F16 ? ref_round_f16(y) : ref_round_bf16(y);
}

static uint32_t ref_neg_inf(gcg_vk_dtype dtype)
{
    return dtype == GCG_VK_F32 ? 0xFF800000u : dtype == GCG_VK_F16 ? 0xFC00u : 0xFF80u;
}

static int ref_allowed(const uint32_t *mask_row, uint32_t i)
{
    return (mask_row[i / 32] >> (i % 32)) & 1;
}

static void *ref_row(const gcg_vk_shape *s, void *logits, uint32_t r)
{
    return (char *)logits + (size_t)r * s->logits_stride * gcg_vk_dtype_size(s->dtype);
}

void ref_apply_mask(const gcg_vk_shape *s, uint32_t rows, void *logits, const uint32_t *masks)
{
    for (uint32_t r = 0; r < rows; r++) {
        void *row = ref_row(s, logits, r);
        const uint32_t *m = masks + (size_t)r * s->mask_stride;
        for (uint32_t i = 0; i < s->vocab; i++)
            if (!ref_allowed(m, i))
                ref_set(s->dtype, row, i, ref_neg_inf(s->dtype));
    }
}

/* Is a better than b in the argmax order (NaN below everything)? */
static int ref_better(double a, double b)
{
    if (isnan(a))
        return 0;
    return isnan(b) || a > b;
}

static uint32_t ref_scaled(gcg_vk_dtype dtype, uint32_t x, float scale)
{
    if (scale == 1.0f)
        return x;
    float y = (float)ref_decode(dtype, x) * scale;
    return ref_round(dtype, y);
}

void ref_apply_fused(const gcg_vk_shape *s, uint32_t rows, void *logits, const uint32_t *masks,
                     const float *inv_temperature, uint32_t *argmax)
{
    for (uint32_t r = 0; r < rows; r++) {
        void *row = ref_row(s, logits, r);
        const uint32_t *m = masks + (size_t)r * s->mask_stride;
        uint32_t best = GCG_VK_NO_TOKEN;
        double best_v = 0.0;
        for (uint32_t i = 0; i < s->vocab; i++) {
            if (!ref_allowed(m, i)) {
                ref_set(s->dtype, row, i, ref_neg_inf(s->dtype));
                continue;
            }
            uint32_t y = ref_scaled(s->dtype, ref_get(s->dtype, row, i), inv_temperature[r]);
            ref_set(s->dtype, row, i, y);
            double v = ref_decode(s->dtype, y);
            if (best == GCG_VK_NO_TOKEN || ref_better(v, best_v)) {
                best = i;
                best_v = v;
            }
        }
        argmax[r] = best;
    }
}
