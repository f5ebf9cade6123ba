/* Restore policies through the webgpu.h front door, chosen from use and set
 * with unlost's chained struct (include/unlost_webgpu.h):
 *   - weights written from a read-only mapping of a file come back from the
 *     file: no copy of them is logged, a checkpoint reads nothing back, and
 *     a file that changed before the loss loses the buffer with an error
 *     naming it (with a host copy instead, that last check could not fail);
 *   - bytes that only look like a file's are copied: memory put where a
 *     read-only mapping of a file was (the mapping gone), and a private
 *     mapping written while writable then made read-only again, come back
 *     as the program wrote them, not as the file holds them; a mapping
 *     split in two is still the file's;
 *   - a read_write binding that the kernel only reads does not make the
 *     buffer GPU-written (res/wgsl.c);
 *   - NONE comes back zero, SOURCE from its file at creation, CALLBACK from
 *     the program's function, and a policy set after creation holds.
 * Every result is checked against the CPU, after forced losses. */
#include "wgpu_layer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define N (256u * 1024u) /* u32 words: 1 MiB of weights, past the small-write copy */

static const char *k_wgsl =
    "@group(0) @binding(0) var<storage, read_write> w: array<u32>;\n"
    "@group(0) @binding(1) var<storage, read_write> out: array<u32>;\n"
    "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  if (g.x < arrayLength(&w)) { out[g.x] = w[g.x] * 3u + 1u; }\n"
    "}\n";

static wp_ctx ctx;
static WGPUComputePipeline pipeline_;
static char path[64];

/* The next error of `type` caught in a scope around `fn`, its message in
 * msg (empty when none). */
typedef struct scope_result {
  uint32_t status, type;
  char msg[512];
  atomic_bool done;
} scope_result;

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  scope_result *r = u1;
  r->status = status;
  r->type = type;
  snprintf(r->msg, sizeof r->msg, "%.*s", wp_sv_len(message), message.data ? message.data : "");
  atomic_store(&r->done, true);
}

static void pop(scope_result *r) {
  memset(r, 0, sizeof *r);
  WGPUPopErrorScopeCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = r};
  wp_wait(&ctx, wgpuDevicePopErrorScope(ctx.device, cb), "an error scope");
}

/* out = w * 3 + 1 on the GPU, read back into got. */
static bool run(WGPUBuffer w, uint32_t *got) {
  WGPUBuffer out = wp_buffer(&ctx, "out", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, N * 4);
  WGPUBindGroupLayout l = wgpuComputePipelineGetBindGroupLayout(pipeline_, 0);
  WGPUBindGroupEntry e[2] = {wp_bind_buffer(0, w, 0, N * 4), wp_bind_buffer(1, out, 0, N * 4)};
  WGPUBindGroup g = wp_bind_group(&ctx, "g", l, e, 2);
  WGPUCommandEncoder enc = wp_encoder(&ctx, "run");
  wp_dispatch(enc, pipeline_, g, N / 64, 1, 1);
  wp_submit(&ctx, enc);
  bool ok = wp_read_buffer(&ctx, out, 0, N * 4, got);
  wgpuBindGroupRelease(g);
  wgpuBindGroupLayoutRelease(l);
  wgpuBufferRelease(out);
  return ok;
}

static bool check(const uint32_t *got, const uint32_t *src, const char *what) {
  uint32_t *want = wp_alloc(N * 4);
  for (uint32_t i = 0; i < N; i++) want[i] = src[i] * 3u + 1u;
  bool ok = wp_check_u32(what, got, want, N);
  free(want);
  return ok;
}

static void force_loss(void) {
  wgpuDeviceForceLoss(ctx.device, WGPUDeviceLostReason_Unknown, WP_STR("policy_webgpu: a forced loss"));
}

static bool test_weights_from_a_file(void) {
  uint32_t *src = wp_alloc(N * 4);
  for (uint32_t i = 0; i < N; i++) src[i] = i * 2654435761u;
  snprintf(path, sizeof path, "/tmp/ul-policy-XXXXXX");
  int fd = mkstemp(path);
  if (fd < 0 || write(fd, src, N * 4) != (ssize_t)(N * 4)) return false;
  const uint32_t *map = mmap(NULL, N * 4, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return false;
  ul_device *ud = ul_wgpu_device(ctx.device);
  WGPUBuffer w = wp_buffer(&ctx, "weights", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, N * 4);
  ul_memory_stats before, after;
  ul_device_memory_stats(ud, &before);
  wgpuQueueWriteBuffer(ctx.queue, w, 0, map, N * 4);
  ul_device_memory_stats(ud, &after);
  /* The log names the file's range; the megabyte is not copied. */
  bool ok = after.log_bytes - before.log_bytes < 4096;
  if (!ok) printf("the write of a file's bytes grew the log by %llu bytes\n",
                  (unsigned long long)(after.log_bytes - before.log_bytes));
  uint32_t *got = wp_alloc(N * 4);
  ok = ok && run(w, got) && check(got, src, "weights before a loss");
  /* A checkpoint, a loss: the weights come back from the file (the
   * kernel only reads them, so they are still host-written). */
  ok = ok && ul_device_checkpoint(ud) == UL_OK;
  force_loss();
  memset(got, 0, N * 4);
  ok = ok && run(w, got) && check(got, src, "weights after a loss");
  /* The file changes (its bytes and its time) before the next loss: the
   * buffer is lost, and its use is an error naming the file. */
  usleep(20000);
  fd = open(path, O_WRONLY);
  uint32_t other = 7;
  ok = ok && fd >= 0 && pwrite(fd, &other, 4, 0) == 4;
  if (fd >= 0) close(fd);
  force_loss();
  wgpuDevicePushErrorScope(ctx.device, WGPUErrorFilter_Internal);
  run(w, got);
  scope_result r;
  pop(&r);
  if (r.type != WGPUErrorType_Internal || !strstr(r.msg, path)) {
    printf("a changed source file: want an internal error naming %s, got type %u: %s\n", path, r.type, r.msg);
    ok = false;
  }
  munmap((void *)map, N * 4);
  unlink(path);
  wgpuBufferRelease(w);
  free(got);
  free(src);
  return ok;
}

/* A file of N words (v[i] = i * mul + add) at path, mapped read-only with
 * `flags`, at `at` when that is free (an address no mapping of this
 * process had: nothing known about an earlier mapping there can answer for
 * this one); NULL when that fails. */
static uint32_t *map_words(uint32_t mul, uint32_t add, int flags, uintptr_t at) {
  uint32_t *v = wp_alloc(N * 4);
  for (uint32_t i = 0; i < N; i++) v[i] = i * mul + add;
  snprintf(path, sizeof path, "/tmp/ul-policy-XXXXXX");
  int fd = mkstemp(path);
  bool ok = fd >= 0 && write(fd, v, N * 4) == (ssize_t)(N * 4);
  void *map = ok ? mmap((void *)at, N * 4, PROT_READ, flags | MAP_FIXED_NOREPLACE, fd, 0) : MAP_FAILED;
  if (ok && map == MAP_FAILED) map = mmap(NULL, N * 4, PROT_READ, flags, fd, 0);
  if (fd >= 0) close(fd);
  free(v);
  return map == MAP_FAILED ? NULL : map;
}

/* wgpuQueueWriteBuffer of N words from src into a new buffer; the growth
 * of the log in *logged. */
static WGPUBuffer upload(const char *label, const uint32_t *src, uint64_t *logged) {
  ul_device *ud = ul_wgpu_device(ctx.device);
  WGPUBuffer w = wp_buffer(&ctx, label, WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, N * 4);
  ul_memory_stats before, after;
  ul_device_memory_stats(ud, &before);
  wgpuQueueWriteBuffer(ctx.queue, w, 0, src, N * 4);
  ul_device_memory_stats(ud, &after);
  *logged = after.log_bytes - before.log_bytes;
  return w;
}

/* Observation 2 of issue 36: anonymous memory at the address where a
 * read-only mapping of a file was. Its bytes are not the file's: after a
 * loss the buffer holds what the program wrote (a host copy), while the
 * buffer written from the file while it was mapped comes from the file. */
static bool test_memory_where_a_file_was(void) {
  uint32_t *map = map_words(2654435761u, 5u, MAP_SHARED, 0x5a0000000000u);
  if (!map) return false;
  uint32_t *file = wp_alloc(N * 4), *anon = wp_alloc(N * 4), *got = wp_alloc(N * 4);
  memcpy(file, map, N * 4);
  uint64_t logged;
  WGPUBuffer from_file = upload("from the file", map, &logged);
  bool ok = true;
  if (logged >= 4096) {
    printf("a write from a read-only mapping of a file grew the log by %llu bytes (a copy)\n",
           (unsigned long long)logged);
    ok = false;
  }
  /* The mapping goes; anonymous memory takes its place, other bytes. */
  munmap(map, N * 4);
  uint32_t *mem = mmap(map, N * 4, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (mem != map) {
    printf("anonymous memory did not land at %p\n", (void *)map);
    ok = false;
  }
  WGPUBuffer from_mem = NULL;
  if (ok) {
    for (uint32_t i = 0; i < N; i++) mem[i] = anon[i] = i ^ 0xc0ffee11u;
    from_mem = upload("from anonymous memory", mem, &logged);
    if (logged < N * 4) {
      printf("a write from anonymous memory grew the log by %llu bytes, not a copy of its %u\n",
             (unsigned long long)logged, N * 4);
      ok = false;
    }
    /* The program reuses its memory: only the host copy has the bytes. */
    memset(mem, 0, N * 4);
    ok = run(from_mem, got) && check(got, anon, "anonymous memory before a loss") && ok;
    ok = ul_device_checkpoint(ul_wgpu_device(ctx.device)) == UL_OK && ok;
    force_loss();
    memset(got, 0, N * 4);
    ok = run(from_mem, got) && check(got, anon, "anonymous memory where a file was, after a loss") && ok;
    memset(got, 0, N * 4);
    ok = run(from_file, got) && check(got, file, "the file's mapping, after a loss") && ok;
  }
  if (from_mem) wgpuBufferRelease(from_mem);
  wgpuBufferRelease(from_file);
  if (mem != MAP_FAILED) munmap(mem, N * 4);
  unlink(path);
  free(file), free(anon), free(got);
  return ok;
}

/* A file's mapping split in two (madvise splits it), read-only: a write
 * from both is still the file's range. */
static bool test_split_mapping(void) {
  uint32_t *map = map_words(2246822519u, 9u, MAP_SHARED, 0x5b0000000000u);
  if (!map) return false;
  uint32_t *file = wp_alloc(N * 4), *got = wp_alloc(N * 4);
  memcpy(file, map, N * 4);
  bool ok = madvise(map, N * 2, MADV_RANDOM) == 0;
  uint64_t logged;
  WGPUBuffer w = upload("from a split mapping", map, &logged);
  if (logged >= 4096) {
    printf("a write from two read-only mappings of a file grew the log by %llu bytes (a copy)\n",
           (unsigned long long)logged);
    ok = false;
  }
  ok = ul_device_checkpoint(ul_wgpu_device(ctx.device)) == UL_OK && ok;
  force_loss();
  ok = run(w, got) && check(got, file, "a split mapping, after a loss") && ok;
  wgpuBufferRelease(w);
  munmap(map, N * 4);
  unlink(path);
  free(file), free(got);
  return ok;
}

/* A private mapping of a file, made writable, written (its pages copied
 * from the file's), then read-only again: it reads like a read-only
 * mapping of the file, but its bytes are the program's. */
static bool test_private_mapping_written(void) {
  uint32_t *map = map_words(40503u, 3u, MAP_PRIVATE, 0x5c0000000000u);
  if (!map) return false;
  uint32_t *want = wp_alloc(N * 4), *got = wp_alloc(N * 4), *file = wp_alloc(N * 4);
  /* Before it is written, its bytes are the file's. */
  memcpy(file, map, N * 4);
  uint64_t logged = 0;
  WGPUBuffer from_file = upload("from a private mapping", map, &logged);
  bool ok = true;
  if (logged >= 4096) {
    printf("a write from a private read-only mapping of a file grew the log by %llu bytes (a copy)\n",
           (unsigned long long)logged);
    ok = false;
  }
  ok = mprotect(map, N * 4, PROT_READ | PROT_WRITE) == 0 && ok;
  for (uint32_t i = 0; ok && i < N; i++) map[i] = want[i] = i * 7u + 0x1234u;
  ok = ok && mprotect(map, N * 4, PROT_READ) == 0;
  if (!ok) printf("mprotect: %s\n", strerror(errno));
  WGPUBuffer w = ok ? upload("from a written private mapping", map, &logged) : NULL;
  if (ok && logged < N * 4) {
    printf("a write from a written private mapping grew the log by %llu bytes, not a copy of its %u\n",
           (unsigned long long)logged, N * 4);
    ok = false;
  }
  if (w) {
    ok = ul_device_checkpoint(ul_wgpu_device(ctx.device)) == UL_OK && ok;
    force_loss();
    ok = run(w, got) && check(got, want, "a written private mapping, after a loss") && ok;
    ok = run(from_file, got) && check(got, file, "a private mapping before it was written, after a loss") && ok;
    wgpuBufferRelease(w);
  }
  wgpuBufferRelease(from_file);
  munmap(map, N * 4);
  unlink(path);
  free(want), free(got), free(file);
  return ok;
}

static WGPUStatus refill(WGPUDevice device, WGPUBuffer buffer, void *user) {
  (void)device;
  atomic_fetch_add((atomic_int *)user, 1);
  uint32_t *v = wp_alloc(N * 4);
  for (uint32_t i = 0; i < N; i++) v[i] = i ^ 0x5a5a5a5au;
  wgpuQueueWriteBuffer(ctx.queue, buffer, 0, v, N * 4);
  free(v);
  return WGPUStatus_Success;
}

static bool test_explicit_policies(void) {
  uint32_t *src = wp_alloc(N * 4), *got = wp_alloc(N * 4), *zero = wp_alloc(N * 4), *cb = wp_alloc(N * 4);
  for (uint32_t i = 0; i < N; i++) src[i] = i * 40503u + 11u, cb[i] = i ^ 0x5a5a5a5au;
  snprintf(path, sizeof path, "/tmp/ul-policy-XXXXXX");
  int fd = mkstemp(path);
  bool ok = fd >= 0 && write(fd, src, N * 4) == (ssize_t)(N * 4);
  if (fd >= 0) close(fd);
  /* SOURCE: the file's bytes, with no write by the program. */
  ul_wgpu_restore source = {{NULL, UL_WGPU_STYPE_RESTORE}, UL_RESTORE_SOURCE, NULL, path, 0, NULL, NULL};
  WGPUBufferDescriptor d = {.nextInChain = &source.chain, .label = WP_STR("source"),
                            .usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, .size = N * 4};
  WGPUBuffer s = wgpuDeviceCreateBuffer(ctx.device, &d);
  /* NONE: whatever it held, zeros after a loss. */
  ul_wgpu_restore none = {{NULL, UL_WGPU_STYPE_RESTORE}, UL_RESTORE_NONE, NULL, NULL, 0, NULL, NULL};
  d.nextInChain = &none.chain;
  d.label = WP_STR("none");
  WGPUBuffer z = wgpuDeviceCreateBuffer(ctx.device, &d);
  wgpuQueueWriteBuffer(ctx.queue, z, 0, src, N * 4);
  /* CALLBACK, set after creation: the program refills it. */
  atomic_int calls = 0;
  WGPUBuffer c = wp_buffer(&ctx, "callback", WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst, N * 4);
  wgpuQueueWriteBuffer(ctx.queue, c, 0, cb, N * 4);
  ul_wgpu_restore call = {{NULL, UL_WGPU_STYPE_RESTORE}, UL_RESTORE_CALLBACK, NULL, NULL, 0, refill, &calls};
  ok = ok && ul_wgpu_buffer_set_restore(c, &call) == UL_OK;
  ok = ok && run(s, got) && check(got, src, "SOURCE before a loss");
  ok = ok && run(z, got) && check(got, src, "NONE before a loss");
  /* NONE keeps zeros at checkpoints (the writes since one are replayed). */
  ok = ok && ul_device_checkpoint(ul_wgpu_device(ctx.device)) == UL_OK;
  force_loss();
  ok = ok && run(s, got) && check(got, src, "SOURCE after a loss");
  ok = ok && run(z, got) && check(got, zero, "NONE after a loss");
  ok = ok && run(c, got) && check(got, cb, "CALLBACK after a loss");
  if (atomic_load(&calls) < 1) {
    printf("the CALLBACK buffer's function was not called\n");
    ok = false;
  }
  /* Misuse: a SHADOW set after creation, an unknown policy. */
  ul_wgpu_restore shadow = {{NULL, UL_WGPU_STYPE_RESTORE}, UL_RESTORE_SHADOW, NULL, NULL, 0, NULL, NULL};
  ul_wgpu_restore bad = {{NULL, UL_WGPU_STYPE_RESTORE}, (ul_restore)42, NULL, NULL, 0, NULL, NULL};
  if (ul_wgpu_buffer_set_restore(c, &shadow) != UL_ERR_UNSUPPORTED ||
      ul_wgpu_buffer_set_restore(c, &bad) != UL_ERR_INVALID_ARGUMENT ||
      ul_wgpu_buffer_set_restore(NULL, &none) != UL_ERR_INVALID_HANDLE) {
    printf("misuse of ul_wgpu_buffer_set_restore was not refused as documented\n");
    ok = false;
  }
  wgpuBufferRelease(s);
  wgpuBufferRelease(z);
  wgpuBufferRelease(c);
  unlink(path);
  free(src), free(got), free(zero), free(cb);
  return ok;
}

static bool workload(wp_ctx *c) {
  (void)c;
  WGPUShaderModule m = wp_shader(&ctx, "triple", k_wgsl);
  pipeline_ = wp_pipeline(&ctx, "triple", m, "main", NULL);
  wgpuShaderModuleRelease(m);
  bool ok = test_weights_from_a_file();
  if (!ok) printf("FAIL weights from a file\n");
  bool ok2 = test_explicit_policies();
  if (!ok2) printf("FAIL explicit policies\n");
  bool ok3 = test_memory_where_a_file_was();
  if (!ok3) printf("FAIL memory where a file was\n");
  bool ok4 = test_private_mapping_written();
  if (!ok4) printf("FAIL a written private mapping\n");
  bool ok5 = test_split_mapping();
  if (!ok5) printf("FAIL a split mapping\n");
  wgpuComputePipelineRelease(pipeline_);
  return ok && ok2 && ok3 && ok4 && ok5;
}

int main(int argc, char **argv) {
  int rc = wp_start(&ctx, "policy", argc, argv);
  if (rc) return wp_end(&ctx, rc);
  return wp_layer_main(&ctx, workload);
}
