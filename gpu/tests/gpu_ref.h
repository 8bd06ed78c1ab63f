/*
 * gpu_ref.h — the CPU reference the GPU tests compare against, bit for bit.
 * Written independently of the shaders: 16-bit rounding goes through double
 * arithmetic and nearbyint (round half to even), not through the shaders'
 * integer bit tricks, so a shared mistake cannot hide.
 */
#ifndef GCG_GPU_REF_H
#define GCG_GPU_REF_H

#include <stddef.h>
#include <stdint.h>

#include "gcg_vk.h"

/* Element i of an array of `dtype` bit patterns (uint32_t or uint16_t). */
uint32_t ref_get(gcg_vk_dtype dtype, const void *data, size_t i);
void ref_set(gcg_vk_dtype dtype, void *data, size_t i, uint32_t bits);

/* The exact value of a bit pattern (NaN for NaNs). */
double ref_decode(gcg_vk_dtype dtype, uint32_t bits);

/* The f32 value y rounded to nearest even in `dtype` (y not NaN). */
uint32_t ref_round(gcg_vk_dtype dtype, float y);

/* The shapes here have strides resolved (never 0). */
void ref_apply_mask(const gcg_vk_shape *s, uint32_t rows, void *logits, const uint32_t *masks);

/* The fused variant as gcg_vk.h section 2 defines it. */
void ref_apply_fused(const gcg_vk_shape *s, uint32_t rows, void *logits, const uint32_t *masks,
                     const float *inv_temperature, uint32_t *argmax);

#endif /* GCG_GPU_REF_H */
