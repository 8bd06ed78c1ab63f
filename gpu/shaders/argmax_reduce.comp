#version 450
/*
 * argmax_reduce.comp — pass 2 of the fused variant: one workgroup per row
 * folds the row's groups_x candidates from pass 1 into argmax[row], the lowest
 * index of the largest allowed scaled logit, or 0xFFFFFFFF (GCG_VK_NO_TOKEN)
 * when the row allows no token.
 */
#include "common.glsl"
#include "convert.glsl"

layout(std430, set = 0, binding = 3) readonly buffer Partials { uvec2 p[]; } partials;
layout(std430, set = 0, binding = 4) writeonly buffer Argmax { uint idx[]; } argmax;

shared uvec2 red[GCG_LOCAL_SIZE];

void main()
{
    uint row = gl_WorkGroupID.y;
    uint lid = gl_LocalInvocationID.x;
    uvec2 best = uvec2(0u);
    for (uint g = lid; g < pc.groups_x; g += GCG_LOCAL_SIZE) {
        uvec2 c = partials.p[pc.partial_base + row * pc.groups_x + g];
        if (cand_greater(c, best))
            best = c;
    }
    red[lid] = best;
    barrier();
    for (uint half_ = GCG_LOCAL_SIZE / 2; half_ > 0u; half_ >>= 1) {
        if (lid < half_ && cand_greater(red[lid + half_], red[lid]))
            red[lid] = red[lid + half_];
        barrier();
    }
    if (lid == 0u)
        argmax.idx[pc.argmax_base + row] = red[0] == uvec2(0u) ? 0xFFFFFFFFu : ~red[0].y;
}
