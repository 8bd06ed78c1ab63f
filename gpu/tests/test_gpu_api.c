/*
 * test_gpu_api.c — the host API around the shaders: wrapping a device the
 * caller created and recording into the caller's command buffer on the
 * caller's buffer at unaligned offsets (with the recorded mask upload),
 * splitting shapes over several bindings (forced small, and lavapipe's real
 * 128 MiB limit), the "unsupported" path for 16-bit dtypes, and the error
 * codes and messages of every argument check.
 */
#include <stdlib.h>
#include <string.h>

#include "gpu_ref.h"
#include "gpu_testlib.h"

/* ---- a device of the caller's own ---------------------------------- */

typedef struct caller_gpu {
    gcg_vk_device dev;
    VkPhysicalDeviceMemoryProperties mem;
} caller_gpu;

static uint32_t compute_family(VkPhysicalDevice pd)
{
    VkQueueFamilyProperties fam[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, fam);
    for (uint32_t i = 0; i < n; i++)
        if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
            return i;
    return UINT32_MAX;
}

static caller_gpu caller_gpu_create(bool want_16bit)
{
    caller_gpu g = {0};
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    ck_assert_int_eq(vkCreateInstance(&ici, NULL, &g.dev.instance), VK_SUCCESS);
    uint32_t n = 1;
    VkResult r = vkEnumeratePhysicalDevices(g.dev.instance, &n, &g.dev.physical_device);
    ck_assert(r == VK_SUCCESS || r == VK_INCOMPLETE);
    ck_assert_uint_eq(n, 1);
    g.dev.queue_family = compute_family(g.dev.physical_device);
    ck_assert_uint_ne(g.dev.queue_family, UINT32_MAX);
    VkPhysicalDevice16BitStorageFeatures s16 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2,
                                    .pNext = &s16};
    vkGetPhysicalDeviceFeatures2(g.dev.physical_device, &f2);
    g.dev.storage_buffer_16bit = want_16bit && s16.storageBuffer16BitAccess;
    s16.storageBuffer16BitAccess = g.dev.storage_buffer_16bit;
    s16.uniformAndStorageBuffer16BitAccess = VK_FALSE;
    s16.storagePushConstant16 = VK_FALSE;
    s16.storageInputOutput16 = VK_FALSE;
    float prio = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                 .queueFamilyIndex = g.dev.queue_family,
                                 .queueCount = 1,
                                 .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &s16,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &q};
    ck_assert_int_eq(vkCreateDevice(g.dev.physical_device, &dci, NULL, &g.dev.device), VK_SUCCESS);
    vkGetDeviceQueue(g.dev.device, g.dev.queue_family, 0, &g.dev.queue);
    vkGetPhysicalDeviceMemoryProperties(g.dev.physical_device, &g.mem);
    return g;
}

static void caller_gpu_destroy(caller_gpu *g)
{
    vkDestroyDevice(g->dev.device, NULL);
    vkDestroyInstance(g->dev.instance, NULL);
}

/* A host-visible, coherent buffer the caller owns. */
typedef struct caller_buf {
    VkBuffer buf;
    VkDeviceMemory mem;
    uint8_t *map;
} caller_buf;

static caller_buf caller_buf_create(const caller_gpu *g, VkDeviceSize size)
{
    caller_buf b = {0};
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT};
    ck_assert_int_eq(vkCreateBuffer(g->dev.device, &bi, NULL, &b.buf), VK_SUCCESS);
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(g->dev.device, b.buf, &req);
    VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < g->mem.memoryTypeCount && type == UINT32_MAX; i++)
        if ((req.memoryTypeBits & (1u << i)) &&
            (g->mem.memoryTypes[i].propertyFlags & want) == want)
            type = i;
    ck_assert_uint_ne(type, UINT32_MAX);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                               .allocationSize = req.size,
                               .memoryTypeIndex = type};
    ck_assert_int_eq(vkAllocateMemory(g->dev.device, &ai, NULL, &b.mem), VK_SUCCESS);
    ck_assert_int_eq(vkBindBufferMemory(g->dev.device, b.buf, b.mem, 0), VK_SUCCESS);
    ck_assert_int_eq(vkMapMemory(g->dev.device, b.mem, 0, VK_WHOLE_SIZE, 0, (void **)&b.map),
                     VK_SUCCESS);
    return b;
}

static void caller_buf_destroy(const caller_gpu *g, caller_buf *b)
{
    vkDestroyBuffer(g->dev.device, b->buf, NULL);
    vkFreeMemory(g->dev.device, b->mem, NULL);
}

static void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access,
                    VkPipelineStageFlags dst, VkAccessFlags dst_access)
{
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = src_access,
                          .dstAccessMask = dst_access};
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* Byte offsets inside the one caller buffer: none is a multiple of the
 * device's storage-buffer offset alignment (16 on lavapipe), so every
 * binding needs the push-constant base. */
enum { OFF_MASKS = 2400100, OFF_SCALES = 2480008, OFF_ARGMAX = 2480036, CALLER_BYTES = 2480100 };

/* Records upload + masking (fused or not) + a host barrier, submits, waits. */
static void caller_run(const caller_gpu *g, const gcg_vk_plan *plan, VkBuffer buf,
                       const uint32_t *masks, size_t n_words, uint32_t rows, bool fused)
{
    VkDevice d = g->dev.device;
    VkCommandPool pool;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = g->dev.queue_family};
    ck_assert_int_eq(vkCreateCommandPool(d, &pci, NULL, &pool), VK_SUCCESS);
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    ck_assert_int_eq(vkAllocateCommandBuffers(d, &ai, &cmd), VK_SUCCESS);
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    ck_assert_int_eq(vkBeginCommandBuffer(cmd, &bi), VK_SUCCESS);
    gcg_error err = {0};
    gcg_status st = gcg_vk_cmd_upload_masks(cmd, (gcg_vk_region){buf, OFF_MASKS}, masks, n_words,
                                            &err);
    ck_assert_msg(st == GCG_OK, "upload: %s", err.msg);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
    st = fused ? gcg_vk_cmd_apply_mask_fused(plan, cmd, rows, &err)
               : gcg_vk_cmd_apply_mask(plan, cmd, rows, &err);
    ck_assert_msg(st == GCG_OK, "record: %s", err.msg);
    barrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
            VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    ck_assert_int_eq(vkEndCommandBuffer(cmd), VK_SUCCESS);
    VkFence fence;
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ck_assert_int_eq(vkCreateFence(d, &fci, NULL, &fence), VK_SUCCESS);
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cmd};
    ck_assert_int_eq(vkQueueSubmit(g->dev.queue, 1, &si, fence), VK_SUCCESS);
    ck_assert_int_eq(vkWaitForFences(d, 1, &fence, VK_TRUE, UINT64_MAX), VK_SUCCESS);
    vkDestroyFence(d, fence, NULL);
    vkDestroyCommandPool(d, pool, NULL);
}

/* One dtype through the caller's device: masks travel by
 * gcg_vk_cmd_upload_masks (75 KB: more than one 64 KiB update), logits sit at
 * `off` bytes into the same buffer as everything else. */
static void check_caller_path(const caller_gpu *g, gcg_vk_context *ctx, gcg_vk_dtype dt,
                              VkDeviceSize off, bool fused)
{
    gcg_vk_shape shape = {dt, 3, 200000, 200003, 0};
    uint32_t words = 6250;
    caller_buf b = caller_buf_create(g, CALLER_BYTES);
    tl_rng rng = {42 + dt};
    void *logits = b.map + off;
    uint32_t *masks = malloc((size_t)shape.rows * words * 4);
    float *scales = (float *)(b.map + OFF_SCALES);
    uint32_t want_argmax[3];
    gcg_vk_shape packed = shape;
    packed.mask_stride = words;
    if (fused)
        tl_fill_values(&rng, &packed, logits, 0);
    else
        tl_fill_bits(&rng, &packed, logits);
    tl_fill_masks(&rng, &packed, masks, 500);
    tl_fill_scales(&rng, 3, scales);
    size_t bytes = (size_t)shape.rows * shape.logits_stride * gcg_vk_dtype_size(dt);
    void *want = malloc(bytes);
    ck_assert(masks && want);
    memcpy(want, logits, bytes);
    if (fused)
        ref_apply_fused(&packed, 3, want, masks, scales, want_argmax);
    else
        ref_apply_mask(&packed, 3, want, masks);
    gcg_vk_plan_desc pd = {.shape = shape,
                           .logits = {b.buf, off},
                           .masks = {b.buf, OFF_MASKS},
                           .inv_temperature = {b.buf, OFF_SCALES},
                           .argmax = {b.buf, OFF_ARGMAX}};
    gcg_vk_plan *plan = NULL;
    gcg_error err = {0};
    gcg_status st = gcg_vk_plan_create(ctx, &pd, &plan, &err);
    ck_assert_msg(st == GCG_OK, "plan: %s", err.msg);
    caller_run(g, plan, b.buf, masks, (size_t)shape.rows * words, 3, fused);
    tl_assert_logits(&packed, logits, want, fused ? "caller fused" : "caller mask");
    ck_assert_mem_eq(b.map + OFF_MASKS, masks, (size_t)shape.rows * words * 4);
    if (fused)
        ck_assert_mem_eq(b.map + OFF_ARGMAX, want_argmax, sizeof want_argmax);
    gcg_vk_plan_destroy(plan);
    caller_buf_destroy(g, &b);
    free(masks);
    free(want);
}

START_TEST(caller_device_buffers_and_command_buffer)
{
    caller_gpu g = caller_gpu_create(true);
    gcg_vk_context *ctx = NULL;
    gcg_error err = {0};
    gcg_status st = gcg_vk_context_create(&g.dev, NULL, &ctx, &err);
    ck_assert_msg(st == GCG_OK, "context: %s", err.msg);
    gcg_vk_device back;
    gcg_vk_context_device(ctx, &back);
    ck_assert_ptr_eq(back.device, g.dev.device);
    ck_assert_ptr_eq(back.queue, g.dev.queue);
    check_caller_path(&g, ctx, GCG_VK_F32, 4, false);
    check_caller_path(&g, ctx, GCG_VK_F32, 4, true);
    if (g.dev.storage_buffer_16bit) {
        check_caller_path(&g, ctx, GCG_VK_F16, 6, true);
        check_caller_path(&g, ctx, GCG_VK_BF16, 2, false);
    }
    gcg_vk_context_destroy(ctx);
    caller_gpu_destroy(&g);
}
END_TEST

START_TEST(sixteen_bit_dtypes_unsupported_without_the_feature)
{
    caller_gpu g = caller_gpu_create(false);
    gcg_vk_context *ctx = NULL;
    ck_assert_int_eq(gcg_vk_context_create(&g.dev, NULL, &ctx, NULL), GCG_OK);
    ck_assert_uint_eq(gcg_vk_supported_dtypes(ctx), 1u << GCG_VK_F32);
    gcg_vk_shape shape = {GCG_VK_BF16, 2, 100, 0, 0};
    gcg_vk_runner *r = NULL;
    gcg_error err = {0};
    ck_assert_int_eq(gcg_vk_runner_create(ctx, &shape, &r, &err), GCG_VK_ERR_UNSUPPORTED);
    ck_assert_int_eq(err.code, GCG_VK_ERR_UNSUPPORTED);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(strstr(err.msg, "bf16 logits need storageBuffer16BitAccess"));
    shape.dtype = GCG_VK_F32;
    ck_assert_int_eq(gcg_vk_runner_create(ctx, &shape, &r, &err), GCG_OK);
    gcg_vk_runner_destroy(r);
    gcg_vk_context_destroy(ctx);
    caller_gpu_destroy(&g);
}
END_TEST

START_TEST(caller_device_checks)
{
    caller_gpu g = caller_gpu_create(true);
    gcg_vk_context *ctx = (gcg_vk_context *)&g; /* must be reset to NULL */
    gcg_error err = {0};
    gcg_vk_device bad = g.dev;
    bad.queue_family = 999;
    ck_assert_int_eq(gcg_vk_context_create(&bad, NULL, &ctx, &err), GCG_ERR_ARG);
    ck_assert_ptr_null(ctx);
    ck_assert_str_eq(err.msg, "queue family 999 does not support compute");
    bad = g.dev;
    bad.device = VK_NULL_HANDLE;
    ck_assert_int_eq(gcg_vk_context_create(&bad, NULL, &ctx, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vk_context_create(NULL, NULL, &ctx, NULL), GCG_ERR_ARG);
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    opt.elems_per_invocation = 3;
    ck_assert_int_eq(gcg_vk_context_create(&g.dev, &opt, &ctx, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "elems_per_invocation 3 is not 1, 2, 4, 8, 16 or 32");
    caller_gpu_destroy(&g);
}
END_TEST

START_TEST(standalone_device_index_out_of_range)
{
    gcg_vk_options opt = GCG_VK_OPTIONS_DEFAULT;
    opt.device_index = 99;
    gcg_vk_context *ctx = NULL;
    gcg_error err = {0};
    ck_assert_int_eq(gcg_vk_context_create_standalone(&opt, &ctx, &err), GCG_VK_ERR_NO_DEVICE);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(err.msg, "device 99 is not"));
}
END_TEST

/* ---- plans: argument checks ------------------------------------------ */

static gcg_status plan_status(gcg_vk_context *ctx, gcg_vk_plan_desc pd, gcg_error *err)
{
    gcg_vk_plan *plan = (gcg_vk_plan *)ctx; /* must be reset to NULL */
    gcg_status st = gcg_vk_plan_create(ctx, &pd, &plan, err);
    if (st == GCG_OK)
        gcg_vk_plan_destroy(plan);
    else
        ck_assert_ptr_null(plan);
    return st;
}

START_TEST(plan_argument_checks)
{
    gcg_vk_context *ctx = tl_context(0, 0);
    gcg_vk_buffer *buf = NULL;
    ck_assert_int_eq(gcg_vk_buffer_create(ctx, 1 << 16, GCG_VK_MEMORY_DEVICE, &buf, NULL), GCG_OK);
    VkBuffer h = gcg_vk_buffer_handle(buf);
    gcg_vk_plan_desc ok = {.shape = {GCG_VK_F32, 4, 1000, 0, 0},
                           .logits = {h, 0},
                           .masks = {h, 16000}};
    gcg_error err = {0};
    ck_assert_int_eq(plan_status(ctx, ok, &err), GCG_OK);
    gcg_vk_plan_desc pd = ok;
    pd.shape.rows = 0;
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    pd = ok;
    pd.shape.vocab = 0;
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    pd = ok;
    pd.shape.dtype = (gcg_vk_dtype)7;
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    pd = ok;
    pd.shape.logits_stride = 999;
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "shape: logits_stride 999 < vocab 1000 or mask_stride 32 < 32 words");
    pd = ok;
    pd.shape.mask_stride = 31;
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    pd = ok;
    pd.logits.offset = 2; /* not a multiple of 4 for f32 */
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    pd = ok;
    pd.masks.buffer = VK_NULL_HANDLE;
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    pd = ok;
    pd.argmax = (gcg_vk_region){h, 20000}; /* argmax without inv_temperature */
    ck_assert_int_eq(plan_status(ctx, pd, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "plan: set both inv_temperature and argmax (fused) or neither");

    gcg_vk_plan *plan = NULL;
    ck_assert_int_eq(gcg_vk_plan_create(ctx, &ok, &plan, NULL), GCG_OK);
    VkCommandBuffer fake = (VkCommandBuffer)buf; /* never dereferenced: checks come first */
    ck_assert_int_eq(gcg_vk_cmd_apply_mask(plan, fake, 0, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "rows 0 outside 1..4 (the plan's shape)");
    ck_assert_int_eq(gcg_vk_cmd_apply_mask(plan, fake, 5, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vk_cmd_apply_mask_fused(plan, fake, 2, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "the plan was created without inv_temperature and argmax buffers");
    gcg_vk_plan_destroy(plan);
    gcg_vk_buffer_destroy(buf);
    gcg_vk_context_destroy(ctx);
}
END_TEST

START_TEST(buffers_and_host_uploads)
{
    gcg_vk_context *ctx = tl_context(0, 0);
    gcg_vk_buffer *buf = NULL;
    gcg_error err = {0};
    ck_assert_int_eq(gcg_vk_buffer_create(ctx, 0, GCG_VK_MEMORY_HOST, &buf, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vk_buffer_create(ctx, 64, GCG_VK_MEMORY_HOST, &buf, &err), GCG_OK);
    ck_assert_uint_eq(gcg_vk_buffer_size(buf), 64);
    uint32_t *map = gcg_vk_buffer_map(buf);
    ck_assert_ptr_nonnull(map);
    memset(map, 0, 64);
    /* Two rows of 3 words, read with stride 4, written with stride 5 at word 1. */
    const uint32_t src[8] = {1, 2, 3, 99, 4, 5, 6, 99};
    ck_assert_int_eq(gcg_vk_upload_masks(buf, 4, src, 2, 3, 4, 5, &err), GCG_OK);
    const uint32_t want[10] = {0, 1, 2, 3, 0, 0, 4, 5, 6, 0};
    ck_assert_mem_eq(map, want, sizeof want);
    ck_assert_int_eq(gcg_vk_upload_masks(buf, 40, src, 2, 3, 4, 5, &err), GCG_ERR_ARG);
    ck_assert_str_eq(err.msg, "gcg_vk_upload_masks: 2 rows end at byte 72, past the buffer's 64");
    ck_assert_int_eq(gcg_vk_upload_masks(buf, 2, src, 2, 3, 4, 5, &err), GCG_ERR_ARG);
    ck_assert_int_eq(gcg_vk_upload_masks(buf, 0, src, 2, 3, 2, 5, &err), GCG_ERR_ARG);
    gcg_vk_buffer_destroy(buf);
    gcg_vk_context_destroy(ctx);
}
END_TEST

START_TEST(names_and_sizes)
{
    ck_assert_str_eq(gcg_vk_status_str(GCG_VK_ERR_UNSUPPORTED), "not supported by the Vulkan device");
    ck_assert_str_eq(gcg_vk_status_str(GCG_VK_ERR_NO_DEVICE), "no usable Vulkan device");
    ck_assert_str_eq(gcg_vk_status_str(GCG_VK_ERR_VULKAN), "Vulkan call failed");
    ck_assert_str_eq(gcg_vk_status_str(GCG_ERR_ARG), "invalid argument");
    ck_assert_str_eq(gcg_vk_dtype_name(GCG_VK_BF16), "bf16");
    ck_assert_str_eq(gcg_vk_dtype_name((gcg_vk_dtype)9), "?");
    ck_assert_uint_eq(gcg_vk_dtype_size(GCG_VK_F32), 4);
    ck_assert_uint_eq(gcg_vk_dtype_size(GCG_VK_F16), 2);
    ck_assert_uint_eq(gcg_vk_dtype_size((gcg_vk_dtype)9), 0);
}
END_TEST

/* ---- splitting over several bindings ------------------------------- */

/* Runs masking and the fused variant on a runner and compares both. */
static void check_runner(gcg_vk_context *ctx, gcg_vk_shape shape, uint32_t want_chunks,
                         uint64_t seed)
{
    for (int fused = 0; fused < 2; fused++) {
        gcg_vk_runner *r = NULL;
        gcg_error err = {0};
        gcg_status st = gcg_vk_runner_create(ctx, &shape, &r, &err);
        ck_assert_msg(st == GCG_OK, "runner: %s", err.msg);
        gcg_vk_shape s = gcg_vk_runner_shape(r);
        tl_rng rng = {seed + (uint64_t)fused};
        void *got = gcg_vk_runner_logits(r);
        uint32_t *masks = gcg_vk_runner_masks(r);
        float *scales = gcg_vk_runner_inv_temperature(r);
        if (fused)
            tl_fill_values(&rng, &s, got, 0);
        else
            tl_fill_bits(&rng, &s, got);
        tl_fill_masks(&rng, &s, masks, 500);
        tl_fill_scales(&rng, s.rows, scales);
        size_t bytes = (size_t)s.rows * s.logits_stride * gcg_vk_dtype_size(s.dtype);
        void *want = malloc(bytes);
        uint32_t *want_argmax = malloc(s.rows * 4);
        ck_assert(want && want_argmax);
        memcpy(want, got, bytes);
        if (fused) {
            ref_apply_fused(&s, s.rows, want, masks, scales, want_argmax);
            st = gcg_vk_runner_apply_fused(r, s.rows, &err);
        } else {
            ref_apply_mask(&s, s.rows, want, masks);
            st = gcg_vk_runner_apply(r, s.rows, &err);
        }
        ck_assert_msg(st == GCG_OK, "apply: %s", err.msg);
        tl_assert_logits(&s, got, want, fused ? "split fused" : "split mask");
        if (fused)
            ck_assert_mem_eq(gcg_vk_runner_argmax(r), want_argmax, s.rows * 4);
        free(want);
        free(want_argmax);
        gcg_vk_runner_destroy(r);
    }
    /* The chunk count, through a plan over a buffer that big. */
    gcg_vk_buffer *buf = NULL;
    VkDeviceSize size = (VkDeviceSize)shape.rows * (shape.logits_stride ? shape.logits_stride
                                                                        : shape.vocab) *
                        gcg_vk_dtype_size(shape.dtype);
    ck_assert_int_eq(gcg_vk_buffer_create(ctx, size, GCG_VK_MEMORY_DEVICE, &buf, NULL), GCG_OK);
    gcg_vk_plan_desc pd = {.shape = shape,
                           .logits = {gcg_vk_buffer_handle(buf), 0},
                           .masks = {gcg_vk_buffer_handle(buf), 0}};
    gcg_vk_plan *plan = NULL;
    ck_assert_int_eq(gcg_vk_plan_create(ctx, &pd, &plan, NULL), GCG_OK);
    ck_assert_uint_eq(gcg_vk_plan_chunks(plan), want_chunks);
    gcg_vk_plan_destroy(plan);
    gcg_vk_buffer_destroy(buf);
}

START_TEST(forced_small_bindings_split_by_rows)
{
    /* 4096-byte bindings: one f32 row of 1000 logits (4000 bytes) each. */
    gcg_vk_context *ctx = tl_context(0, 4096);
    gcg_vk_info info;
    gcg_vk_context_info(ctx, &info);
    ck_assert_uint_eq(info.max_binding_bytes, 4096);
    check_runner(ctx, (gcg_vk_shape){GCG_VK_F32, 10, 1000, 0, 0}, 10, 11);
    /* f16 rows of 1000 (2000 bytes): two per binding. */
    if (info.dtypes & (1u << GCG_VK_F16))
        check_runner(ctx, (gcg_vk_shape){GCG_VK_F16, 9, 1000, 0, 0}, 5, 12);
    /* One row of 1100 f32 logits cannot be bound at all: a clear error. */
    gcg_vk_shape big = {GCG_VK_F32, 2, 1100, 0, 0};
    gcg_vk_runner *r = NULL;
    gcg_error err = {0};
    ck_assert_int_eq(gcg_vk_runner_create(ctx, &big, &r, &err), GCG_ERR_LIMIT);
    ck_assert_str_eq(err.msg, "one row of logits (4400 bytes) does not fit in one storage buffer "
                              "binding of 4096 bytes (maxStorageBufferRange)");
    gcg_vk_context_destroy(ctx);
}
END_TEST

START_TEST(device_binding_limit_splits_big_batches)
{
    /* 64 rows of 262144 f32 logits 2.4 MB apart span 151 MB: more than
     * lavapipe's 128 MiB maxStorageBufferRange. The row pitch is a multiple
     * of 256 bytes, so every row start is aligned and a binding of k rows
     * needs (k-1)*pitch + V*4 bytes. */
    gcg_vk_context *ctx = tl_context(0, 0);
    gcg_vk_info info;
    gcg_vk_context_info(ctx, &info);
    const uint64_t pitch = 600000 * 4, row = 262144 * 4;
    uint64_t per_binding = 1 + (info.max_binding_bytes - row) / pitch;
    uint32_t want_chunks = (uint32_t)((64 + per_binding - 1) / per_binding);
    if (info.max_binding_bytes == 134217728)
        ck_assert_uint_eq(want_chunks, 2);
    check_runner(ctx, (gcg_vk_shape){GCG_VK_F32, 64, 262144, 600000, 0}, want_chunks, 13);
    gcg_vk_context_destroy(ctx);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("gpu_api");
    TCase *tc = tcase_create("api");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, names_and_sizes);
    tcase_add_test(tc, standalone_device_index_out_of_range);
    tcase_add_test(tc, caller_device_checks);
    tcase_add_test(tc, caller_device_buffers_and_command_buffer);
    tcase_add_test(tc, sixteen_bit_dtypes_unsupported_without_the_feature);
    tcase_add_test(tc, plan_argument_checks);
    tcase_add_test(tc, buffers_and_host_uploads);
    tcase_add_test(tc, forced_small_bindings_split_by_rows);
    tcase_add_test(tc, device_binding_limit_splits_big_batches);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tl_main(api_suite());
}
