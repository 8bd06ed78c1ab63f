/*
 * gpu_bench.c — how fast gcg_vk applies masks, next to how fast the same
 * device copies memory.
 *
 * For B in {1, 8, 64}, V in {128256, 262144}, every supported dtype, masking
 * and the fused variant: the dispatch time from GPU timestamps around the
 * recorded plan, and the end-to-end time seen by the host (copy the masks
 * into a host-visible staging buffer, submit staging -> device copy + plan,
 * wait for the fence). Logits, masks and scales live in device-local memory.
 * Medians over repeats. Effective bandwidth counts the bytes a kernel must
 * touch: masking reads the masks and (at most) writes each logit once,
 * logits + masks; the fused variant reads and writes the logits, 2 x logits
 * + masks. The copy bandwidth is 2 x size / time of one vkCmdCopyBuffer of
 * the logits' size (read + write), timed the same way in the same run.
 *
 *   gpu_bench [--quick] [--json FILE] [--repeats N] [--density P]
 *             [--device I] [--elems E]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gcg_vk.h"

typedef struct bench_opts {
    int repeats;          /* timed runs per measurement                      */
    int warmup;           /* untimed runs before them                        */
    double density;       /* probability that a token is allowed             */
    const char *json;     /* NULL: table only                                */
    gcg_vk_options vk;
} bench_opts;

/* The device and the objects every measurement reuses. */
typedef struct bench_gpu {
    gcg_vk_context *ctx;
    gcg_vk_device dev;
    gcg_vk_info info;
    VkCommandPool pool;
    VkQueryPool queries; /* two timestamps */
    VkFence fence;
    uint64_t ts_mask;    /* timestampValidBits as a mask */
} bench_gpu;

/* One (dtype, B, V, variant) row of the table. */
typedef struct bench_row {
    gcg_vk_dtype dtype;
    uint32_t rows, vocab;
    int fused;
    uint32_t chunks;
    double dispatch_us, e2e_us, copy_us; /* medians */
    double bytes, copy_bytes;            /* bytes touched per run */
} bench_row;

/* Device buffers of one shape. */
typedef struct bench_bufs {
    gcg_vk_buffer *logits, *masks, *scales, *argmax, *staging, *copy_dst;
    gcg_vk_plan *plan;
    uint32_t *host_masks;
} bench_bufs;

#define BENCH_CHECK(call)                                                            \
    do {                                                                             \
        VkResult r_ = (call);                                                        \
        if (r_ != VK_SUCCESS) {                                                      \
            fprintf(stderr, "gpu_bench: %s failed (%d)\n", #call, (int)r_);          \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

static void bench_gcg(gcg_status st, const gcg_error *err, const char *what)
{
    if (st == GCG_OK)
        return;
    fprintf(stderr, "gpu_bench: %s: %s: %s\n", what, gcg_vk_status_str(st), err->msg);
    exit(1);
}

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- device setup ---------------------------------------------------- */

static void gpu_open(bench_gpu *g, const bench_opts *o)
{
    gcg_error err = {0};
    bench_gcg(gcg_vk_context_create_standalone(&o->vk, &g->ctx, &err), &err, "context");
    gcg_vk_context_device(g->ctx, &g->dev);
    gcg_vk_context_info(g->ctx, &g->info);
    if (!g->info.timestamps) {
        fprintf(stderr, "gpu_bench: the compute queue has no timestamps\n");
        exit(1);
    }
    VkQueueFamilyProperties fam[16];
    uint32_t n = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(g->dev.physical_device, &n, fam);
    uint32_t bits = fam[g->dev.queue_family].timestampValidBits;
    g->ts_mask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
    VkCommandPoolCreateInfo pci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                   .queueFamilyIndex = g->dev.queue_family};
    BENCH_CHECK(vkCreateCommandPool(g->dev.device, &pci, NULL, &g->pool));
    VkQueryPoolCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                 .queryType = VK_QUERY_TYPE_TIMESTAMP,
                                 .queryCount = 2};
    BENCH_CHECK(vkCreateQueryPool(g->dev.device, &qci, NULL, &g->queries));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    BENCH_CHECK(vkCreateFence(g->dev.device, &fci, NULL, &g->fence));
}

static void gpu_close(bench_gpu *g)
{
    vkDestroyFence(g->dev.device, g->fence, NULL);
    vkDestroyQueryPool(g->dev.device, g->queries, NULL);
    vkDestroyCommandPool(g->dev.device, g->pool, NULL);
    gcg_vk_context_destroy(g->ctx);
}

static VkCommandBuffer cmd_begin(const bench_gpu *g)
{
    VkCommandBuffer cmd;
    VkCommandBufferAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = g->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    BENCH_CHECK(vkAllocateCommandBuffers(g->dev.device, &ai, &cmd));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    BENCH_CHECK(vkBeginCommandBuffer(cmd, &bi));
    /* Orders this run after the previous one (same buffers, new submit). */
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                         VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
    return cmd;
}

/* Submits, waits; returns the host-side wall time in microseconds. */
static double cmd_run(const bench_gpu *g, VkCommandBuffer cmd)
{
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO,
                       .commandBufferCount = 1,
                       .pCommandBuffers = &cmd};
    double t0 = now_us();
    BENCH_CHECK(vkQueueSubmit(g->dev.queue, 1, &si, g->fence));
    BENCH_CHECK(vkWaitForFences(g->dev.device, 1, &g->fence, VK_TRUE, UINT64_MAX));
    double t1 = now_us();
    BENCH_CHECK(vkResetFences(g->dev.device, 1, &g->fence));
    return t1 - t0;
}

/* The time between the two timestamps of the last run, in microseconds. */
static double gpu_elapsed_us(const bench_gpu *g)
{
    uint64_t ts[2];
    BENCH_CHECK(vkGetQueryPoolResults(g->dev.device, g->queries, 0, 2, sizeof ts, ts,
                                      sizeof ts[0],
                                      VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    uint64_t ticks = (ts[1] - ts[0]) & g->ts_mask;
    return ticks * (double)g->info.timestamp_period_ns / 1e3;
}

/* ---- recorded work ---------------------------------------------------- */

typedef enum bench_work { WORK_DISPATCH, WORK_END_TO_END, WORK_COPY } bench_work;

static void record_apply(VkCommandBuffer cmd, const bench_bufs *b, int fused, uint32_t rows)
{
    gcg_error err = {0};
    gcg_status st = fused ? gcg_vk_cmd_apply_mask_fused(b->plan, cmd, rows, &err)
                          : gcg_vk_cmd_apply_mask(b->plan, cmd, rows, &err);
    bench_gcg(st, &err, "record");
}

static void record_upload(VkCommandBuffer cmd, const bench_bufs *b)
{
    VkBufferCopy region = {.size = gcg_vk_buffer_size(b->masks)};
    vkCmdCopyBuffer(cmd, gcg_vk_buffer_handle(b->staging), gcg_vk_buffer_handle(b->masks), 1,
                    &region);
    VkMemoryBarrier mb = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                          .srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT,
                          .dstAccessMask = VK_ACCESS_SHADER_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

static VkCommandBuffer record(const bench_gpu *g, const bench_bufs *b, bench_work w, int fused,
                              uint32_t rows)
{
    VkCommandBuffer cmd = cmd_begin(g);
    if (w == WORK_END_TO_END) {
        record_upload(cmd, b);
        record_apply(cmd, b, fused, rows);
    } else {
        vkCmdResetQueryPool(cmd, g->queries, 0, 2);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, g->queries, 0);
        if (w == WORK_DISPATCH) {
            record_apply(cmd, b, fused, rows);
        } else {
            VkBufferCopy region = {.size = gcg_vk_buffer_size(b->logits)};
            vkCmdCopyBuffer(cmd, gcg_vk_buffer_handle(b->logits),
                            gcg_vk_buffer_handle(b->copy_dst), 1, &region);
        }
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, g->queries, 1);
    }
    BENCH_CHECK(vkEndCommandBuffer(cmd));
    return cmd;
}

/* Median over the repeats of one kind of work, in microseconds. */
static double measure(const bench_gpu *g, const bench_opts *o, const bench_bufs *b,
                      bench_work w, int fused, uint32_t rows)
{
    VkCommandBuffer cmd = record(g, b, w, fused, rows);
    double *t = malloc(sizeof(double) * (size_t)o->repeats);
    for (int i = -o->warmup; i < o->repeats; i++) {
        double wall = 0;
        if (w == WORK_END_TO_END) {
            double t0 = now_us();
            gcg_error err = {0};
            uint32_t words = (uint32_t)(gcg_vk_buffer_size(b->masks) / 4);
            bench_gcg(gcg_vk_upload_masks(b->staging, 0, b->host_masks, 1, words, words, words,
                                          &err),
                      &err, "upload");
            wall = (now_us() - t0) + cmd_run(g, cmd);
        } else {
            cmd_run(g, cmd);
            wall = gpu_elapsed_us(g);
        }
        if (i >= 0)
            t[i] = wall;
    }
    double m = median(t, o->repeats);
    free(t);
    vkFreeCommandBuffers(g->dev.device, g->pool, 1, &cmd);
    return m;
}

/* ---- buffers of one shape --------------------------------------------- */

static gcg_vk_buffer *make_buffer(const bench_gpu *g, VkDeviceSize size, gcg_vk_memory where)
{
    gcg_vk_buffer *b = NULL;
    gcg_error err = {0};
    bench_gcg(gcg_vk_buffer_create(g->ctx, size, where, &b, &err), &err, "buffer");
    return b;
}

/* Fills a device buffer with a 32-bit pattern. */
static void fill(const bench_gpu *g, gcg_vk_buffer *b, uint32_t pattern)
{
    VkCommandBuffer cmd = cmd_begin(g);
    vkCmdFillBuffer(cmd, gcg_vk_buffer_handle(b), 0, VK_WHOLE_SIZE, pattern);
    BENCH_CHECK(vkEndCommandBuffer(cmd));
    cmd_run(g, cmd);
    vkFreeCommandBuffers(g->dev.device, g->pool, 1, &cmd);
}

static uint32_t random_word(uint64_t *s, double density)
{
    uint32_t w = 0;
    for (int i = 0; i < 32; i++) {
        *s = *s * 6364136223846793005ull + 1442695040888963407ull;
        if ((double)(*s >> 11) / 9007199254740992.0 < density)
            w |= 1u << i;
    }
    return w;
}

static void bufs_open(bench_bufs *b, const bench_gpu *g, const bench_opts *o,
                      const gcg_vk_shape *s)
{
    static const uint32_t one[GCG_VK_DTYPE_COUNT] = {0x3F800000u, 0x3C003C00u, 0x3F803F80u};
    size_t words = (size_t)s->rows * ((s->vocab + 31) / 32);
    VkDeviceSize lbytes = (VkDeviceSize)s->rows * s->vocab * gcg_vk_dtype_size(s->dtype);
    b->logits = make_buffer(g, lbytes, GCG_VK_MEMORY_DEVICE);
    b->copy_dst = make_buffer(g, lbytes, GCG_VK_MEMORY_DEVICE);
    b->masks = make_buffer(g, words * 4, GCG_VK_MEMORY_DEVICE);
    b->staging = make_buffer(g, words * 4, GCG_VK_MEMORY_HOST);
    b->scales = make_buffer(g, s->rows * 4, GCG_VK_MEMORY_DEVICE);
    b->argmax = make_buffer(g, s->rows * 4, GCG_VK_MEMORY_DEVICE);
    b->host_masks = malloc(words * 4);
    uint64_t seed = 12345;
    for (size_t i = 0; i < words; i++)
        b->host_masks[i] = random_word(&seed, o->density);
    fill(g, b->logits, one[s->dtype]);
    float scale = gcg_vk_inv_temperature(0.7f);
    uint32_t scale_bits;
    memcpy(&scale_bits, &scale, 4);
    fill(g, b->scales, scale_bits);
    gcg_vk_plan_desc pd = {.shape = *s,
                           .logits = {gcg_vk_buffer_handle(b->logits), 0},
                           .masks = {gcg_vk_buffer_handle(b->masks), 0},
                           .inv_temperature = {gcg_vk_buffer_handle(b->scales), 0},
                           .argmax = {gcg_vk_buffer_handle(b->argmax), 0}};
    gcg_error err = {0};
    bench_gcg(gcg_vk_plan_create(g->ctx, &pd, &b->plan, &err), &err, "plan");
}

static void bufs_close(bench_bufs *b)
{
    gcg_vk_plan_destroy(b->plan);
    gcg_vk_buffer_destroy(b->logits);
    gcg_vk_buffer_destroy(b->copy_dst);
    gcg_vk_buffer_destroy(b->masks);
    gcg_vk_buffer_destroy(b->staging);
    gcg_vk_buffer_destroy(b->scales);
    gcg_vk_buffer_destroy(b->argmax);
    free(b->host_masks);
}

/* ---- the sweep -------------------------------------------------------- */

static const uint32_t bench_rows[] = {1, 8, 64};
static const uint32_t bench_vocab[] = {128256, 262144};

/* Measures both variants of one shape into out[0] (mask) and out[1] (fused). */
static void bench_shape(const bench_gpu *g, const bench_opts *o, const gcg_vk_shape *s,
                        bench_row out[2])
{
    bench_bufs b = {0};
    bufs_open(&b, g, o, s);
    double lbytes = (double)s->rows * s->vocab * gcg_vk_dtype_size(s->dtype);
    double mbytes = (double)gcg_vk_buffer_size(b.masks);
    double copy_us = measure(g, o, &b, WORK_COPY, 0, s->rows);
    for (int fused = 0; fused < 2; fused++) {
        bench_row *r = &out[fused];
        *r = (bench_row){.dtype = s->dtype, .rows = s->rows, .vocab = s->vocab, .fused = fused,
                         .chunks = gcg_vk_plan_chunks(b.plan), .copy_us = copy_us,
                         .bytes = (fused ? 2 : 1) * lbytes + mbytes, .copy_bytes = 2 * lbytes};
        r->dispatch_us = measure(g, o, &b, WORK_DISPATCH, fused, s->rows);
        r->e2e_us = measure(g, o, &b, WORK_END_TO_END, fused, s->rows);
    }
    bufs_close(&b);
}

static const char *device_type_name(VkPhysicalDeviceType t)
{
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
    default: return "other";
    }
}

static double gbps(double bytes, double us)
{
    return us > 0 ? bytes / us / 1e3 : 0;
}

static void print_header(const bench_gpu *g, const bench_opts *o)
{
    printf("device: %s [%s], %u logits per invocation, max binding %llu MiB\n",
           g->info.device_name, device_type_name(g->info.device_type),
           g->info.elems_per_invocation,
           (unsigned long long)(g->info.max_binding_bytes >> 20));
    printf("medians of %d runs; masks allow %.0f%% of tokens; times in microseconds\n",
           o->repeats, o->density * 100);
    printf("%-5s %3s %7s %-6s %6s %11s %9s %10s %9s %10s\n", "dtype", "B", "V", "kernel",
           "chunks", "dispatch", "e2e", "eff GB/s", "copy", "copy GB/s");
}

static void print_row(const bench_row *r)
{
    printf("%-5s %3u %7u %-6s %6u %11.1f %9.1f %10.1f %9.1f %10.1f\n",
           gcg_vk_dtype_name(r->dtype), r->rows, r->vocab, r->fused ? "fused" : "mask",
           r->chunks, r->dispatch_us, r->e2e_us, gbps(r->bytes, r->dispatch_us), r->copy_us,
           gbps(r->copy_bytes, r->copy_us));
}

static void write_json(const char *path, const bench_gpu *g, const bench_opts *o,
                       const bench_row *rows, int n)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "gpu_bench: cannot write %s\n", path);
        exit(1);
    }
    fprintf(f, "{\n  \"device\": \"%s\",\n  \"device_type\": \"%s\",\n", g->info.device_name,
            device_type_name(g->info.device_type));
    fprintf(f, "  \"elems_per_invocation\": %u,\n  \"repeats\": %d,\n  \"density\": %g,\n",
            g->info.elems_per_invocation, o->repeats, o->density);
    fprintf(f, "  \"results\": [\n");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        fprintf(f,
                "    {\"dtype\": \"%s\", \"B\": %u, \"V\": %u, \"kernel\": \"%s\", "
                "\"chunks\": %u, \"dispatch_us\": %.3f, \"e2e_us\": %.3f, "
                "\"bytes\": %.0f, \"eff_gbps\": %.3f, \"copy_us\": %.3f, "
                "\"copy_bytes\": %.0f, \"copy_gbps\": %.3f}%s\n",
                gcg_vk_dtype_name(r->dtype), r->rows, r->vocab, r->fused ? "fused" : "mask",
                r->chunks, r->dispatch_us, r->e2e_us, r->bytes, gbps(r->bytes, r->dispatch_us),
                r->copy_us, r->copy_bytes, gbps(r->copy_bytes, r->copy_us),
                i + 1 < n ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    fclose(f);
}

static void usage(void)
{
    fprintf(stderr, "usage: gpu_bench [--quick] [--json FILE] [--repeats N] [--density P]\n"
                    "                 [--device I] [--elems E]\n");
    exit(2);
}

static bench_opts parse_args(int argc, char **argv)
{
    bench_opts o = {.repeats = 25, .warmup = 3, .density = 0.5, .vk = GCG_VK_OPTIONS_DEFAULT};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) {
            o.repeats = 3;
            o.warmup = 1;
            continue;
        }
        if (!v)
            usage();
        if (!strcmp(a, "--json"))
            o.json = v;
        else if (!strcmp(a, "--repeats"))
            o.repeats = atoi(v);
        else if (!strcmp(a, "--density"))
            o.density = atof(v);
        else if (!strcmp(a, "--device"))
            o.vk.device_index = atoi(v);
        else if (!strcmp(a, "--elems"))
            o.vk.elems_per_invocation = (uint32_t)atoi(v);
        else
            usage();
        i++;
    }
    if (o.repeats < 1 || !(o.density >= 0 && o.density <= 1))
        usage();
    return o;
}

int main(int argc, char **argv)
{
    bench_opts o = parse_args(argc, argv);
    bench_gpu g = {0};
    gpu_open(&g, &o);
    print_header(&g, &o);
    bench_row rows[GCG_VK_DTYPE_COUNT * 3 * 2 * 2];
    int n = 0;
    for (int dt = 0; dt < GCG_VK_DTYPE_COUNT; dt++) {
        if (!(g.info.dtypes & (1u << dt)))
            continue;
        for (size_t vi = 0; vi < 2; vi++)
            for (size_t bi = 0; bi < 3; bi++) {
                gcg_vk_shape s = {(gcg_vk_dtype)dt, bench_rows[bi], bench_vocab[vi], 0, 0};
                bench_shape(&g, &o, &s, &rows[n]);
                print_row(&rows[n]);
                print_row(&rows[n + 1]);
                fflush(stdout);
                n += 2;
            }
    }
    if (o.json)
        write_json(o.json, &g, &o, rows, n);
    gpu_close(&g);
    return 0;
}
