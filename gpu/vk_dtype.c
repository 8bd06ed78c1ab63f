/*
 * vk_dtype.c — facts about the logit dtypes, and the host side of the fused
 * variant's temperature contract (the reciprocal is taken here, once, in
 * IEEE f32, so every device multiplies by the same scale).
 */
#include <math.h>

#include "gcg_vk.h"

size_t gcg_vk_dtype_size(gcg_vk_dtype dtype)
{
    switch (dtype) {
    case GCG_VK_F32: return 4;
    case GCG_VK_F16:
    case GCG_VK_BF16: return 2;
    }
    return 0;
}

const char *gcg_vk_dtype_name(gcg_vk_dtype dtype)
{
    switch (dtype) {
    case GCG_VK_F32: return "f32";
    case GCG_VK_F16: return "f16";
    case GCG_VK_BF16: return "bf16";
    }
    return "?";
}

float gcg_vk_inv_temperature(float temperature)
{
    if (!(temperature > 0.0f) || isinf(temperature))
        return 1.0f;
    float scale = 1.0f / temperature;
    /* A temperature so small that its reciprocal overflows is greedy in all
     * but name; an infinite scale would turn 0 logits into NaN. */
    return isinf(scale) ? 1.0f : scale;
}
