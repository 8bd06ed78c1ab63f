#version 450
/*
 * mask_apply.comp — logits[r][i] = -inf where bit i of mask row r is clear.
 *
 * Grid: x covers the row in runs of ELEMS logits per invocation, y is the row
 * within the chunk. Allowed logits are neither read nor written, so they stay
 * bit-exact, and only the mask and the disallowed logits cost bandwidth.
 */
#include "common.glsl"

layout(std430, set = 0, binding = 0) buffer Logits { ELEM_T v[]; } logits;
layout(std430, set = 0, binding = 1) readonly buffer Masks { uint w[]; } masks;

void main()
{
    uint row = gl_WorkGroupID.y;
    uint col0 = gl_GlobalInvocationID.x * ELEMS;
    if (col0 >= pc.vocab)
        return;
    uint n = min(ELEMS, pc.vocab - col0);
    uint bits = masks.w[pc.mask_base + row * pc.mask_stride + (col0 >> 5)] >> (col0 & 31u);
    uint full = n == 32u ? 0xFFFFFFFFu : (1u << n) - 1u;
    if ((bits & full) == full)
        return;
    uint base = pc.logits_base + row * pc.logits_stride + col0;
    uint ninf = neg_inf_bits();
    for (uint j = 0u; j < n; ++j)
        if ((bits & (1u << j)) == 0u)
            logits.v[base + j] = ELEM_T(ninf);
}
