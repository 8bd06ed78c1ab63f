/*
 * gcg_vk.h — apply gcg token masks to logits on a Vulkan device.
 *
 * The runtime (gcg.h) fills one packed mask per sequence; this library applies
 * B such masks to B rows of V logits in place with compute shaders: logits of
 * disallowed tokens become -inf, allowed ones are left bit-exact. A fused
 * variant also divides each row by its temperature and writes each row's
 * argmax, so greedy decoding needs no second pass over the logits.
 *
 * This header is the manual. Read it top to bottom:
 *   1. status codes
 *   2. layouts and dtypes (what the shaders read and write)
 *   3. contexts: wrap the caller's VkDevice, or create a standalone one
 *   4. plans: record the dispatch into the caller's command buffer, on the
 *      caller's VkBuffers, with no copies (and the barriers the caller owns)
 *   5. buffers and mask uploads
 *   6. runners: submit-and-wait convenience on library-owned buffers
 *
 * Conventions. Every function that takes a gcg_error * accepts NULL; on
 * failure it receives the status and a message. Objects are freed by their
 * matching destroy call (NULL is a no-op) and must be destroyed before the
 * context they were made from. The library keeps no global state. A context
 * and everything made from it may be used from one thread at a time; plans
 * may be recorded from several threads at once once created (recording only
 * reads the plan). Functions that submit work (runners) use the context's
 * queue, which Vulkan requires to be externally synchronized: the caller must
 * not submit to that queue from another thread meanwhile.
 *
 * The library never prints, exits or aborts.
 */
#ifndef GCG_VK_H
#define GCG_VK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <vulkan/vulkan.h>

#include "gcg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/* 1. Status codes                                                        */
/* ===================================================================== */

/* Functions return a gcg_status (gcg.h). Besides GCG_OK they use
 * GCG_ERR_NOMEM (host or device allocation failed), GCG_ERR_ARG (a NULL or
 * inconsistent argument; the message names it) and GCG_ERR_LIMIT (a shape the
 * device cannot address, e.g. one row larger than maxStorageBufferRange), and
 * the codes below, which only this library returns. Their values lie in a
 * range gcg.h does not use. */
#define GCG_VK_ERR_UNSUPPORTED ((gcg_status)64) /* the device lacks a needed feature,
                                                    e.g. 16-bit storage for f16/bf16 */
#define GCG_VK_ERR_NO_DEVICE ((gcg_status)65)   /* no Vulkan driver or no usable device */
#define GCG_VK_ERR_VULKAN ((gcg_status)66)      /* a Vulkan call failed; the message
                                                    names the call and its VkResult */

/* A static name for any status, these codes included. */
const char *gcg_vk_status_str(gcg_status status);

/* ===================================================================== */
/* 2. Layouts and dtypes                                                  */
/* ===================================================================== */

/*
 * Masks (the layout of XGrammar and vLLM): for row r, bit (i % 32) of
 * mask word r * mask_stride + i / 32 is set iff token i is allowed. Bits at
 * i >= V are ignored, and so are the words between ceil(V/32) and
 * mask_stride.
 *
 * Logits: row r starts at element r * logits_stride; elements V ..
 * logits_stride-1 of a row are never touched. All strides are in elements
 * (logits) or 32-bit words (masks), not bytes.
 *
 * dtypes: f32, f16 (IEEE binary16) and bf16. The 16-bit ones need the device
 * feature storageBuffer16BitAccess (not shaderFloat16: the shaders treat them
 * as bit patterns and round in integer code). Without it, calls that would
 * use them fail with GCG_VK_ERR_UNSUPPORTED; nothing falls back silently.
 *
 * Masking writes the dtype's -inf (0xFF800000, 0xFC00, 0xFF80) and reads no
 * logit, so allowed logits keep their exact bits, NaN payloads included.
 *
 * Fused variant, per row r with scale s = inv_temperature[r]:
 *   y_i = -inf                                  if token i is disallowed,
 *   y_i = x_i                                   if allowed and s == 1.0f,
 *   y_i = round_dtype((float)x_i * s)           otherwise,
 * where the product is one correctly rounded f32 multiply and round_dtype is
 * round-to-nearest-even to the dtype (identity for f32; overflow gives inf).
 * y replaces x in place. argmax[r] is the lowest index i of an allowed token
 * whose y_i is largest, comparing values (-0 equals +0; every NaN is below
 * -inf, so it wins only in a row whose allowed logits are all NaN), or
 * GCG_VK_NO_TOKEN when the row allows no token. A device may flush f32
 * subnormal inputs or products to zero (Vulkan leaves that to the driver);
 * 16-bit inputs never produce an f32 subnormal for scales above 2^-100.
 */
typedef enum gcg_vk_dtype {
    GCG_VK_F32 = 0,
    GCG_VK_F16 = 1,
    GCG_VK_BF16 = 2
} gcg_vk_dtype;

#define GCG_VK_DTYPE_COUNT 3
#define GCG_VK_NO_TOKEN UINT32_MAX

/* Bytes per element (4 or 2); 0 for a value outside the enum. */
size_t gcg_vk_dtype_size(gcg_vk_dtype dtype);

/* "f32", "f16", "bf16", or "?" for a value outside the enum. */
const char *gcg_vk_dtype_name(gcg_vk_dtype dtype);

/* The scale the fused variant expects for a temperature: 1/t rounded to f32
 * for t > 0 (finite), and 1.0f for t == 0, which means greedy decoding:
 * logits unscaled, the argmax is the pick. A t whose reciprocal overflows
 * f32 (t < 2^-128) counts as 0; negative, infinite or NaN temperatures also
 * give 1.0f. Fill the inv_temperature buffer with these values; computing
 * the reciprocal on the host keeps the result identical on every device. */
float gcg_vk_inv_temperature(float temperature);

/* ===================================================================== */
/* 3. Contexts                                                            */
/* ===================================================================== */

typedef struct gcg_vk_context gcg_vk_context;

/* Options; pass NULL for the defaults (all fields zero except device_index,
 * whose default -1 picks the best device). */
typedef struct gcg_vk_options {
    int32_t device_index;          /* standalone only: index in vkEnumeratePhysicalDevices
                                      order, or < 0 to prefer a discrete GPU, then an
                                      integrated, virtual, CPU device                       */
    uint32_t elems_per_invocation; /* logits per shader invocation: 1, 2, 4, 8, 16 or 32;
                                      0 picks 32 on CPU devices (one mask word each) and 4
                                      on GPUs (coalesced accesses)                         */
    uint64_t max_binding_bytes;    /* cap on one descriptor's range; 0 = the device's
                                      maxStorageBufferRange. Smaller values only split
                                      dispatches sooner (tests use it)                     */
    bool no_subgroup_ops;          /* reduce the fused variant's argmax with shared memory
                                      only, even where subgroup arithmetic exists (tests;
                                      a driver bug workaround). Results are identical      */
} gcg_vk_options;

#define GCG_VK_OPTIONS_DEFAULT { -1, 0, 0, false }

/* The caller's Vulkan objects. The device must support Vulkan 1.1 and have
 * been created with a queue of queue_family that supports compute. The
 * library cannot query which features a VkDevice was created with, so the
 * caller states it: set storage_buffer_16bit iff
 * VkPhysicalDevice16BitStorageFeatures::storageBuffer16BitAccess (or the
 * Vulkan 1.1 features field of that name) was enabled. */
typedef struct gcg_vk_device {
    VkInstance instance;
    VkPhysicalDevice physical_device;
    VkDevice device;
    uint32_t queue_family;
    VkQueue queue;
    bool storage_buffer_16bit;
} gcg_vk_device;

/* Wraps the caller's device: creates the pipelines, nothing else. The caller
 * keeps owning the instance, device and queue and must destroy them only
 * after gcg_vk_context_destroy. Errors: GCG_ERR_ARG (NULL handle, a queue
 * family without compute, storage_buffer_16bit set on a device without it),
 * GCG_VK_ERR_UNSUPPORTED (device older than Vulkan 1.1),
 * GCG_VK_ERR_VULKAN, GCG_ERR_NOMEM. */
gcg_status gcg_vk_context_create(const gcg_vk_device *dev, const gcg_vk_options *opt,
                                 gcg_vk_context **out, gcg_error *err);

/* Creates its own instance and device (a CPU device such as lavapipe is
 * accepted when there is no GPU) with one compute queue, enabling 16-bit
 * storage where the device has it. Errors: GCG_VK_ERR_NO_DEVICE (no Vulkan
 * driver, no Vulkan 1.1 device with a compute queue, or device_index out of
 * range; the message says which), GCG_VK_ERR_VULKAN, GCG_ERR_NOMEM. */
gcg_status gcg_vk_context_create_standalone(const gcg_vk_options *opt, gcg_vk_context **out,
                                            gcg_error *err);

/* Destroys the pipelines and, for a standalone context, the device and
 * instance. The caller must have waited for every submitted use. */
void gcg_vk_context_destroy(gcg_vk_context *ctx);

/* The context's Vulkan objects (the caller's, or the standalone ones, which
 * the caller may use but must not destroy). */
void gcg_vk_context_device(const gcg_vk_context *ctx, gcg_vk_device *out);

typedef struct gcg_vk_info {
    char device_name[VK_MAX_PHYSICAL_DEVICE_NAME_SIZE];
    VkPhysicalDeviceType device_type;
    uint32_t api_version;
    uint32_t dtypes;               /* bit (1u << dtype) set for each supported dtype */
    uint32_t elems_per_invocation; /* as chosen                                      */
    uint64_t max_binding_bytes;    /* as used for splitting                          */
    uint64_t min_offset_alignment; /* minStorageBufferOffsetAlignment                */
    bool subgroup_reduction;       /* the fused variant uses subgroup arithmetic     */
    bool timestamps;               /* the queue family can write timestamps          */
    float timestamp_period_ns;     /* nanoseconds per timestamp tick                 */
} gcg_vk_info;

void gcg_vk_context_info(const gcg_vk_context *ctx, gcg_vk_info *out);

/* Bit (1u << dtype) is set for each dtype this context can process. */
uint32_t gcg_vk_supported_dtypes(const gcg_vk_context *ctx);

/* ===================================================================== */
/* 4. Plans: recording into the caller's command buffer                   */
/* ===================================================================== */

/* A batch shape. rows is the most rows a plan records; a recording may use
 * fewer. A stride of 0 means packed (V elements, ceil(V/32) words). */
typedef struct gcg_vk_shape {
    gcg_vk_dtype dtype;
    uint32_t rows;          /* B, >= 1                                    */
    uint32_t vocab;         /* V, >= 1                                    */
    uint32_t logits_stride; /* elements between row starts, 0 or >= V     */
    uint32_t mask_stride;   /* words between row starts, 0 or >= ceil(V/32) */
} gcg_vk_shape;

/* A place in a buffer: the data starts `offset` bytes into `buffer`. */
typedef struct gcg_vk_region {
    VkBuffer buffer;
    VkDeviceSize offset;
} gcg_vk_region;

/*
 * What a plan binds. The caller owns every buffer; each must have been
 * created with VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, be bound to memory, hold
 * the data described below from `offset` on, and outlive the plan.
 *   logits:          rows * logits_stride elements (the last row needs only V);
 *                    offset a multiple of the element size.
 *   masks:           rows * mask_stride words (the last row needs only
 *                    ceil(V/32)); offset a multiple of 4.
 *   inv_temperature: rows f32 scales (see gcg_vk_inv_temperature); offset a
 *                    multiple of 4. Fused variant only.
 *   argmax:          rows uint32 results. Fused variant only.
 * Leave inv_temperature.buffer and argmax.buffer VK_NULL_HANDLE for a plan
 * that only masks.
 */
typedef struct gcg_vk_plan_desc {
    gcg_vk_shape shape;
    gcg_vk_region logits;
    gcg_vk_region masks;
    gcg_vk_region inv_temperature;
    gcg_vk_region argmax;
} gcg_vk_plan_desc;

typedef struct gcg_vk_plan gcg_vk_plan;

/* Validates the shape, splits it into dispatches whose bindings each fit in
 * max_binding_bytes (rows are never cut: a single row that does not fit is
 * GCG_ERR_LIMIT, never a silent truncation), and writes the descriptor sets.
 * A fused plan also allocates a small device-local scratch buffer (8 bytes
 * per row per workgroup of the row) for the argmax partials. Errors:
 * GCG_ERR_ARG, GCG_ERR_LIMIT, GCG_VK_ERR_UNSUPPORTED (dtype), GCG_ERR_NOMEM,
 * GCG_VK_ERR_VULKAN. Destroy the plan only after every command buffer that
 * recorded it has completed (it owns the descriptor sets they use). */
gcg_status gcg_vk_plan_create(gcg_vk_context *ctx, const gcg_vk_plan_desc *desc,
                              gcg_vk_plan **out, gcg_error *err);

void gcg_vk_plan_destroy(gcg_vk_plan *plan);

/* How many dispatches (binding chunks) a recording of all rows makes. */
uint32_t gcg_vk_plan_chunks(const gcg_vk_plan *plan);

/*
 * Records the masking of rows 0 .. rows-1 (1 <= rows <= shape.rows) into
 * `cmd`, which must be in the recording state, outside a render pass, on a
 * queue family with compute. It binds a compute pipeline and descriptor sets
 * and pushes constants: the caller re-binds its own afterwards if it needs
 * them. Errors: GCG_ERR_ARG (rows out of range).
 *
 * Barriers the caller records (the library records none for masking):
 *   before: whatever wrote the logits and masks -> the shader.
 *     e.g. logits from a compute shader (the LM head):
 *       src COMPUTE_SHADER / SHADER_WRITE, dst COMPUTE_SHADER / SHADER_READ|SHADER_WRITE
 *     masks from vkCmdUpdateBuffer/vkCmdCopyBuffer (gcg_vk_cmd_upload_masks):
 *       src TRANSFER / TRANSFER_WRITE, dst COMPUTE_SHADER / SHADER_READ
 *     masks written by the host into mapped memory before vkQueueSubmit need
 *     no barrier (the submit makes host writes visible; flush the range first
 *     if the memory is not HOST_COHERENT).
 *   after: the shader -> whatever reads the logits (and argmax):
 *     src COMPUTE_SHADER / SHADER_WRITE, dst e.g. COMPUTE_SHADER / SHADER_READ
 *     (sampling), TRANSFER / TRANSFER_READ (a copy) or HOST / HOST_READ.
 *   The same applies between two recordings that share buffers: the next
 *   step's writes to the mask buffer must wait for this step's reads (an
 *   execution dependency COMPUTE_SHADER -> TRANSFER or -> HOST via a fence).
 */
gcg_status gcg_vk_cmd_apply_mask(const gcg_vk_plan *plan, VkCommandBuffer cmd, uint32_t rows,
                                 gcg_error *err);

/*
 * Records the fused variant (mask, scale, argmax; section 2) for rows
 * 0 .. rows-1. Two dispatches per chunk: the first writes logits and
 * per-workgroup argmax candidates to the plan's scratch buffer, the second
 * reduces them into argmax. The library records the barrier between the two
 * (COMPUTE_SHADER / SHADER_WRITE -> COMPUTE_SHADER / SHADER_READ, a global
 * memory barrier). The caller records the same barriers as for masking, with
 * inv_temperature treated like the masks and argmax like the logits. Between
 * two recordings of one plan, any barrier COMPUTE_SHADER -> COMPUTE_SHADER
 * (such as the one that makes the next logits visible) also orders the
 * scratch buffer. Errors: GCG_ERR_ARG (rows out of range, or a plan created
 * without inv_temperature and argmax buffers).
 */
gcg_status gcg_vk_cmd_apply_mask_fused(const gcg_vk_plan *plan, VkCommandBuffer cmd,
                                       uint32_t rows, gcg_error *err);

/* ===================================================================== */
/* 5. Buffers and mask uploads                                            */
/* ===================================================================== */

/* Where a library-owned buffer lives. HOST: host-visible, host-coherent
 * memory, always mapped (host writes need no flush; GPU access crosses the
 * bus on a discrete GPU). DEVICE: device-local memory; mapped only if the
 * device also makes it host-visible (CPU devices, resizable BAR). */
typedef enum gcg_vk_memory {
    GCG_VK_MEMORY_HOST = 0,
    GCG_VK_MEMORY_DEVICE = 1
} gcg_vk_memory;

typedef struct gcg_vk_buffer gcg_vk_buffer;

/* A buffer usable as a storage buffer and as a transfer source and
 * destination (so it can stand in for any region of a plan). Errors:
 * GCG_ERR_ARG (size 0), GCG_ERR_NOMEM (no memory of that kind left, or
 * none at all), GCG_VK_ERR_VULKAN. */
gcg_status gcg_vk_buffer_create(gcg_vk_context *ctx, VkDeviceSize size, gcg_vk_memory where,
                                gcg_vk_buffer **out, gcg_error *err);

/* Destroys the buffer; it must not be in use by the device. */
void gcg_vk_buffer_destroy(gcg_vk_buffer *buf);

VkBuffer gcg_vk_buffer_handle(const gcg_vk_buffer *buf);
VkDeviceSize gcg_vk_buffer_size(const gcg_vk_buffer *buf);

/* The mapped, host-coherent contents, or NULL when the memory is not
 * host-visible. Valid until the buffer is destroyed. */
void *gcg_vk_buffer_map(const gcg_vk_buffer *buf);

/* Copies `rows` masks of `words` words each (row r read at masks + r *
 * src_stride) into a mapped library-owned buffer at byte `offset`, row r at
 * word r * dst_stride. The host must not write while the device reads those
 * words (wait for the fence of the step that used them). Errors: GCG_ERR_ARG
 * (buffer not mapped, range past its end, offset not a multiple of 4,
 * a stride below words). */
gcg_status gcg_vk_upload_masks(gcg_vk_buffer *dst, VkDeviceSize offset, const uint32_t *masks,
                               uint32_t rows, uint32_t words, size_t src_stride,
                               size_t dst_stride, gcg_error *err);

/* Records copies of n_words mask words from host memory into the caller's
 * buffer at dst (with vkCmdUpdateBuffer, in pieces of at most 64 KiB: the
 * words are captured into the command buffer now, so `masks` may be reused
 * at once). The buffer needs VK_BUFFER_USAGE_TRANSFER_DST_BIT; dst.offset
 * must be a multiple of 4. Record a TRANSFER -> COMPUTE_SHADER barrier before
 * the plan (section 4). Meant for the few hundred KiB of a decode step's
 * masks, not for bulk data. Errors: GCG_ERR_ARG. */
gcg_status gcg_vk_cmd_upload_masks(VkCommandBuffer cmd, gcg_vk_region dst,
                                   const uint32_t *masks, size_t n_words, gcg_error *err);

/* ===================================================================== */
/* 6. Runners: submit and wait                                            */
/* ===================================================================== */

/* A runner owns host-visible buffers for one shape (logits, masks,
 * inverse temperatures, argmax), a fused plan over them, a command buffer and
 * a fence. The caller writes inputs through the mapped pointers, calls
 * apply, and reads the results back through the same pointers: no copies
 * beyond the caller's own writes. Convenient for tests and for engines whose
 * logits live in host memory; an engine whose logits are on the GPU records a
 * plan instead. */
typedef struct gcg_vk_runner gcg_vk_runner;

/* Errors: as gcg_vk_plan_create and gcg_vk_buffer_create. */
gcg_status gcg_vk_runner_create(gcg_vk_context *ctx, const gcg_vk_shape *shape,
                                gcg_vk_runner **out, gcg_error *err);

void gcg_vk_runner_destroy(gcg_vk_runner *r);

/* The shape with strides resolved (never 0). */
gcg_vk_shape gcg_vk_runner_shape(const gcg_vk_runner *r);

/* Mapped arrays: rows * logits_stride elements of the dtype; rows *
 * mask_stride words; rows scales (initially 1.0f); rows argmax results. */
void *gcg_vk_runner_logits(const gcg_vk_runner *r);
uint32_t *gcg_vk_runner_masks(const gcg_vk_runner *r);
float *gcg_vk_runner_inv_temperature(const gcg_vk_runner *r);
const uint32_t *gcg_vk_runner_argmax(const gcg_vk_runner *r);

/* Masks rows 0 .. rows-1 in place, submits, and waits for completion.
 * Errors: GCG_ERR_ARG (rows out of range), GCG_VK_ERR_VULKAN (submission
 * failed or the device was lost). */
gcg_status gcg_vk_runner_apply(gcg_vk_runner *r, uint32_t rows, gcg_error *err);

/* The fused variant: also scales by the inverse temperatures and fills
 * argmax. Errors as gcg_vk_runner_apply. */
gcg_status gcg_vk_runner_apply_fused(gcg_vk_runner *r, uint32_t rows, gcg_error *err);

#ifdef __cplusplus
}
#endif

#endif /* GCG_VK_H */
