/*
 * vk_memory.c — buffers with their own memory: the library-owned buffers of
 * the public API, plans' scratch and runners' arrays. One allocation per
 * buffer: these are few and long-lived (made once per shape, not per step).
 */
#include <stdlib.h>

#include "vk_internal.h"

/* The first memory type allowed by `bits` with all `want` flags, or -1. */
static int32_t memory__type(const VkPhysicalDeviceMemoryProperties *mem, uint32_t bits,
                            VkMemoryPropertyFlags want)
{
    for (uint32_t i = 0; i < mem->memoryTypeCount; i++)
        if ((bits & (1u << i)) && (mem->memoryTypes[i].propertyFlags & want) == want)
            return (int32_t)i;
    return -1;
}

static gcg_status memory__bind(const gcg_vk_context *ctx, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred, gcg_vk_alloc *a, gcg_error *err)
{
    VkDevice d = ctx->dev.device;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d, a->buffer, &req);
    int32_t type = memory__type(&ctx->mem, req.memoryTypeBits, required | preferred);
    if (type < 0)
        type = memory__type(&ctx->mem, req.memoryTypeBits, required);
    if (type < 0)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET,
                             "no memory type with property flags 0x%x for a buffer",
                             (unsigned)required);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = (uint32_t)type};
    VkResult r = vkAllocateMemory(d, &ai, NULL, &a->memory);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkAllocateMemory");
    r = vkBindBufferMemory(d, a->buffer, a->memory, 0);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkBindBufferMemory");
    VkMemoryPropertyFlags flags = ctx->mem.memoryTypes[type].propertyFlags;
    if (flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
        r = vkMapMemory(d, a->memory, 0, VK_WHOLE_SIZE, 0, &a->map);
        if (r != VK_SUCCESS)
            return gcg_vk__fail(err, r, "vkMapMemory");
    }
    return GCG_OK;
}

gcg_status gcg_vk__alloc(const gcg_vk_context *ctx, VkDeviceSize size, VkBufferUsageFlags usage,
                         VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                         gcg_vk_alloc *out, gcg_error *err)
{
    *out = (gcg_vk_alloc){.size = size};
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = usage,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(ctx->dev.device, &bi, NULL, &out->buffer);
    if (r != VK_SUCCESS)
        return gcg_vk__fail(err, r, "vkCreateBuffer");
    gcg_status st = memory__bind(ctx, required, preferred, out, err);
    if (st != GCG_OK)
        gcg_vk__free(ctx, out);
    return st;
}

void gcg_vk__free(const gcg_vk_context *ctx, gcg_vk_alloc *a)
{
    vkDestroyBuffer(ctx->dev.device, a->buffer, NULL);
    if (a->memory != VK_NULL_HANDLE)
        vkFreeMemory(ctx->dev.device, a->memory, NULL); /* unmaps implicitly */
    *a = (gcg_vk_alloc){0};
}

struct gcg_vk_buffer {
    const gcg_vk_context *ctx;
    gcg_vk_alloc a;
};

gcg_status gcg_vk_buffer_create(gcg_vk_context *ctx, VkDeviceSize size, gcg_vk_memory where,
                                gcg_vk_buffer **out, gcg_error *err)
{
    if (!ctx || !out || size == 0 || (where != GCG_VK_MEMORY_HOST && where != GCG_VK_MEMORY_DEVICE))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_buffer_create: NULL argument, size 0 or unknown memory kind");
    *out = NULL;
    gcg_vk_buffer *b = calloc(1, sizeof *b);
    if (!b)
        return gcg_error_set(err, GCG_ERR_NOMEM, GCG_NO_OFFSET, "out of memory");
    b->ctx = ctx;
    VkMemoryPropertyFlags req = where == GCG_VK_MEMORY_HOST
                                    ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    VkMemoryPropertyFlags pref =
        where == GCG_VK_MEMORY_HOST ? VK_MEMORY_PROPERTY_HOST_CACHED_BIT : 0;
    gcg_status st = gcg_vk__alloc(ctx, size,
                                  VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                  req, pref, &b->a, err);
    if (st != GCG_OK) {
        free(b);
        return st;
    }
    *out = b;
    return GCG_OK;
}

void gcg_vk_buffer_destroy(gcg_vk_buffer *buf)
{
    if (!buf)
        return;
    gcg_vk__free(buf->ctx, &buf->a);
    free(buf);
}

VkBuffer gcg_vk_buffer_handle(const gcg_vk_buffer *buf)
{
    return buf->a.buffer;
}

VkDeviceSize gcg_vk_buffer_size(const gcg_vk_buffer *buf)
{
    return buf->a.size;
}

void *gcg_vk_buffer_map(const gcg_vk_buffer *buf)
{
    return buf->a.map;
}
