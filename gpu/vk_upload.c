/*
 * vk_upload.c — getting a decode step's masks to the device: a plain copy
 * into mapped library-owned memory, or vkCmdUpdateBuffer into the caller's
 * buffer (the words travel inside the command buffer, so the host array is
 * free again as soon as the call returns).
 */
#include <string.h>

#include "vk_internal.h"

/* vkCmdUpdateBuffer moves at most this many bytes per call (Vulkan spec). */
#define UPLOAD_PIECE_BYTES 65536u

gcg_status gcg_vk_upload_masks(gcg_vk_buffer *dst, VkDeviceSize offset, const uint32_t *masks,
                               uint32_t rows, uint32_t words, size_t src_stride,
                               size_t dst_stride, gcg_error *err)
{
    if (!dst || (!masks && rows > 0) || offset % 4 != 0 || src_stride < words ||
        dst_stride < words)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_upload_masks: NULL argument, offset not a multiple of 4 "
                             "or a stride below %u words", words);
    uint8_t *map = gcg_vk_buffer_map(dst);
    if (!map)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_upload_masks: the buffer is not host-visible; record "
                             "gcg_vk_cmd_upload_masks instead");
    if (rows == 0)
        return GCG_OK;
    uint64_t end = offset + ((uint64_t)(rows - 1) * dst_stride + words) * 4;
    if (end > gcg_vk_buffer_size(dst))
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_upload_masks: %u rows end at byte %llu, past the "
                             "buffer's %llu", rows, (unsigned long long)end,
                             (unsigned long long)gcg_vk_buffer_size(dst));
    uint32_t *out = (uint32_t *)(map + offset);
    for (uint32_t r = 0; r < rows; r++)
        memcpy(out + (size_t)r * dst_stride, masks + (size_t)r * src_stride, (size_t)words * 4);
    return GCG_OK;
}

gcg_status gcg_vk_cmd_upload_masks(VkCommandBuffer cmd, gcg_vk_region dst,
                                   const uint32_t *masks, size_t n_words, gcg_error *err)
{
    if (!cmd || !dst.buffer || (!masks && n_words > 0) || dst.offset % 4 != 0)
        return gcg_error_set(err, GCG_ERR_ARG, GCG_NO_OFFSET,
                             "gcg_vk_cmd_upload_masks: NULL argument or offset not a "
                             "multiple of 4");
    const uint8_t *src = (const uint8_t *)masks;
    size_t bytes = n_words * 4;
    for (size_t done = 0; done < bytes; done += UPLOAD_PIECE_BYTES) {
        size_t n = bytes - done < UPLOAD_PIECE_BYTES ? bytes - done : UPLOAD_PIECE_BYTES;
        vkCmdUpdateBuffer(cmd, dst.buffer, dst.offset + done, n, src + done);
    }
    return GCG_OK;
}
