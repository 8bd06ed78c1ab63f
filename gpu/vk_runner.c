/*
 * vk_runner.c — submit-and-wait convenience: host-visible buffers for one
 * shape, a fused plan over them, and one command buffer re-recorded per call
 * (recording a few dispatches costs microseconds; it keeps `rows` free).
 */
#include <stdlib.h>

#include "vk_internal.h"

struct gcg_vk_runner {
    gcg_vk_context *ctx;
    gcg_vk_shape shape; /* strides resolved */
    gcg_vk_buffer *logits, *masks, *scales, *argmax;
    gcg_vk_plan *plan;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
};

static gcg_status runner__buffers(gcg_vk_runner *r, gcg_error *err)
{
    const gcg_vk_shape *s = &r->shape;
    VkDeviceSize rows = s->rows;
    gcg_status st = gcg_vk_buffer_create(r->ctx, rows * s->logits_stride * gcg_vk_dtype_size(s->dtype),
                                         GCG_VK_MEMORY_HOST, &r->logits, err);
    if (st == GCG_OK)
        st = gcg_vk_buffer_create(r->ctx, rows * s->mask_stride * 4, GCG_VK_MEMORY_HOST,
                                  &r->masks, err);
    if (st == GCG_OK)
        st = gcg_vk_buffer_create(r->ctx, rows * 4, GCG_VK_MEMORY_HOST, &r->scales, err);
    if (st == GCG_OK)
        st = gcg_vk_buffer_create(r->ctx, rows * 4, GCG_VK_MEMORY_HOST, &r->argmax, err);
    if (st != GCG_OK)
        return st;
    float *scales = gcg_vk_buffer_map(r->scales);
    for (uint32_t i = 0; i < s->rows; i++)
        scales[i] = 1.0f;
    gcg_vk_plan_desc pd = {.shape = *s,
                           .logits = {gcg_vk_buffer_handle(r->logits), 0},
                           .masks = {gcg_vk_buffer_handle(r->masks), 0},
                           .inv_temperature = {gcg_vk_buffer_handle(r->scales), 0},
                           .argmax = {gcg_vk_buffer_handle(r->argmax), 0}};
    return gcg_vk_plan_create(r->ctx, &pd, &r->plan, err);
}

static gcg_status runner__commands(gcg_vk_runner *r, gcg_error *err)
{
    VkDevice d = r->ctx->dev.device;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT,
                                   .queueFamilyIndex = r->ctx->dev.queue_family};
    VkResult res = vkCreateCommandPool(d, &pci, NULL, &r->pool);
    if (res != VK_SUCCESS)
        return gcg_vk__fail(err, res, "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = r->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    res = vkAllocateCommandBuffers(d, &ai, &r->cmd);
    if (res != VK_SUCCESS)
        return gcg_vk__fail(err, res, "vkAllocateCommandBuffers");
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    res = vkCreateFence(d, &fci, NULL, &r->fence);
    return res == VK_SUCCESS ? GCG_OK : gcg_vk__fail(err, res, "vkCreateFence");
}

gcg_status gcg_vk_runner_create(gcg_vk_context *ctx, const gcg_vk_shape *shape,
                                gcg_vk_runner **out, gcg_error *err)
{
    if (!ctx || !shape || !out)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_runner_create: NULL argument");
    *out = NULL;
    gcg_vk_shape resolved = *shape;
    gcg_status st = gcg_vk__shape_resolve(ctx, &resolved, err);
    if (st != GCG_OK)
        return st;
    gcg_vk_runner *r = calloc(1, sizeof *r);
    if (!r)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    r->ctx = ctx;
    r->shape = resolved;
    st = runner__buffers(r, err);
    if (st == GCG_OK)
        st = runner__commands(r, err);
    if (st != GCG_OK) {
        gcg_vk_runner_destroy(r);
        return st;
    }
    *out = r;
    return GCG_OK;
}

void gcg_vk_runner_destroy(gcg_vk_runner *r)
{
    if (!r)
        return;
    VkDevice d = r->ctx->dev.device;
    vkDestroyFence(d, r->fence, NULL);
    vkDestroyCommandPool(d, r->pool, NULL);
    gcg_vk_plan_destroy(r->plan);
    gcg_vk_buffer_destroy(r->logits);
    gcg_vk_buffer_destroy(r->masks);
    gcg_vk_buffer_destroy(r->scales);
    gcg_vk_buffer_destroy(r->argmax);
    free(r);
}

gcg_vk_shape gcg_vk_runner_shape(const gcg_vk_runner *r)
{
    return r->shape;
}

void *gcg_vk_runner_logits(const gcg_vk_runner *r)
{
    return gcg_vk_buffer_map(r->logits);
}

uint32_t *gcg_vk_runner_masks(const gcg_vk_runner *r)
{
    return gcg_vk_buffer_map(r->masks);
}

float *gcg_vk_runner_inv_temperature(const gcg_vk_runner *r)
{
    return gcg_vk_buffer_map(r->scales);
}

const uint32_t *gcg_vk_runner_argmax(const gcg_vk_runner *r)
{
    return gcg_vk_buffer_map(r->argmax);
}

static gcg_status runner__record(gcg_vk_runner *r, uint32_t rows, bool fused, gcg_error *err)
{
    VkResult res = vkResetCommandPool(r->ctx->dev.device, r->pool, 0);
    if (res != VK_SUCCESS)
        return gcg_vk__fail(err, res, "vkResetCommandPool");
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                   .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    res = vkBeginCommandBuffer(r->cmd, &bi);
    if (res != VK_SUCCESS)
        return gcg_vk__fail(err, res, "vkBeginCommandBuffer");
    gcg_status st = fused ? gcg_vk_cmd_apply_mask_fused(r->plan, r->cmd, rows, err)
                          : gcg_vk_cmd_apply_mask(r->plan, r->cmd, rows, err);
    /* The host reads the results through mapped memory. */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(r->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    res = vkEndCommandBuffer(r->cmd);
    if (st != GCG_OK)
        return st;
    return res == VK_SUCCESS ? GCG_OK : gcg_vk__fail(err, res, "vkEndCommandBuffer");
}

static gcg_status runner__run(gcg_vk_runner *r, uint32_t rows, bool fused, gcg_error *err)
{
    if (!r)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET, "NULL runner");
    gcg_status st = runner__record(r, rows, fused, err);
    if (st != GCG_OK)
        return st;
    VkDevice d = r->ctx->dev.device;
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &r->cmd};
    VkResult res = vkQueueSubmit(r->ctx->dev.queue, 1, &si, r->fence);
    if (res != VK_SUCCESS)
        return gcg_vk__fail(err, res, "vkQueueSubmit");
    res = vkWaitForFences(d, 1, &r->fence, VK_TRUE, UINT64_MAX);
    VkResult reset = vkResetFences(d, 1, &r->fence);
    if (res != VK_SUCCESS)
        return gcg_vk__fail(err, res, "vkWaitForFences");
    return reset == VK_SUCCESS ? GCG_OK : gcg_vk__fail(err, reset, "vkResetFences");
}

gcg_status gcg_vk_runner_apply(gcg_vk_runner *r, uint32_t rows, gcg_error *err)
{
    return runner__run(r, rows, false, err);
}

gcg_status gcg_vk_runner_apply_fused(gcg_vk_runner *r, uint32_t rows, gcg_error *err)
{
    return runner__run(r, rows, true, err);
}
