/* A probe, not built by CMake: how fast the host writes a SOURCE file's
 * bytes into mapped staging memory (on the H200 the implementation maps it
 * in the BAR), by method and thread count: pread, memcpy from a populated
 * file mapping, and non-temporal stores from it. PROBE=fill_probe bash bench/probe/run.sh
 * [MiB]. */
#define _GNU_SOURCE
#include "core/adapter.h"
#include "core/core.h"
#include "core/transfer.h"
#include "probe_file.h"
#include <fcntl.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SLOT (128ull << 20)
enum { PREAD, MEMCPY, STREAM, HOT };
static const char *names[] = {"pread", "memcpy from file map", "stream stores from file map", "memcpy from host memory"};
typedef struct job { int method, fd; const uint8_t *src; uint8_t *dst; uint64_t off, n; } job;

__attribute__((target("avx2"))) static void stream_copy(uint8_t *d, const uint8_t *s, uint64_t n) {
  uint64_t i = 0;
  for (; i + 128 <= n; i += 128) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(s + i)), b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
    __m256i c = _mm256_loadu_si256((const __m256i *)(s + i + 64)), e = _mm256_loadu_si256((const __m256i *)(s + i + 96));
    _mm256_stream_si256((__m256i *)(d + i), a);
    _mm256_stream_si256((__m256i *)(d + i + 32), b);
    _mm256_stream_si256((__m256i *)(d + i + 64), c);
    _mm256_stream_si256((__m256i *)(d + i + 96), e);
  }
  memcpy(d + i, s + i, n - i);
  _mm_sfence();
}
static void *run(void *a) {
  job *j = a;
  if (j->method == PREAD) {
    for (uint64_t got = 0; got < j->n;) {
      ssize_t r = pread(j->fd, j->dst + got, j->n - got, (off_t)(j->off + got));
      if (r <= 0) break;
      got += (uint64_t)r;
    }
  } else if (j->method == STREAM) stream_copy(j->dst, j->src + j->off, j->n);
  else memcpy(j->dst, j->src + j->off, j->n);
  return NULL;
}
/* Fills `slots` slots of SLOT bytes, each split over t threads. */
static double fill(int method, int t, int fd, const uint8_t *src, uint8_t **dst, int slots) {
  uint64_t t0 = ul__now_ns();
  for (int s = 0; s < slots; s++) {
    pthread_t th[64];
    job jobs[64];
    uint64_t per = SLOT / (uint64_t)t;
    for (int i = 0; i < t; i++) {
      jobs[i] = (job){method, fd, src, dst[s] + i * per, (uint64_t)s * SLOT + i * per, per};
      pthread_create(&th[i], NULL, run, &jobs[i]);
    }
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
  }
  return (double)slots * SLOT / (double)(ul__now_ns() - t0);
}

int main(int argc, char **argv) {
  uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1024) << 20;
  int slots = (int)(n / SLOT);
  int fd;
  uint8_t *host = probe_file("/tmp/fill-probe", n, &fd);
  if (!host) return 1;
  const uint8_t *map = mmap(NULL, n, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  ul_env *env;
  if (ul_env_create(NULL, &env)) return 1;
  const ul__wgpu *w = env->wgpu;
  WGPUAdapter a;
  WGPUDevice dev;
  if (ul__request_adapter(env, env->instance, WGPUPowerPreference_HighPerformance, false, 10000000000ull, &a)) return 1;
  static const char *const tg[] = {"disable_lazy_clear_for_mapped_at_creation_buffer"};
  WGPUDawnTogglesDescriptor td = {{NULL, WGPUSType_DawnTogglesDescriptor}, 1, tg, 0, NULL};
  WGPUDeviceDescriptor dd = {0};
  dd.nextInChain = &td.chain;
  if (ul__request_device(env, env->instance, a, &dd, 10000000000ull, &dev)) return 1;
  ul_adapter_info ai;
  ul__adapter_describe(env, a, &ai);
  uint8_t *dst[64];
  for (int s = 0; s < slots; s++) {
    WGPUBufferDescriptor bd = {0};
    bd.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
    bd.size = SLOT;
    bd.mappedAtCreation = 1;
    WGPUBuffer b = w->DeviceCreateBuffer(dev, &bd);
    dst[s] = w->BufferGetMappedRange(b, 0, SLOT);
    if (!dst[s]) return 1;
  }
  printf("{\"probe\":\"adapter\",\"name\":\"%s\",\"bytes\":%llu}\n", ai.name, (unsigned long long)n);
  /* the first pass touches the mapping's pages */
  printf("{\"probe\":\"fill\",\"what\":\"first touch, memcpy\",\"threads\":16,\"gbps\":%.2f}\n",
         fill(MEMCPY, 16, fd, map, dst, slots));
  for (int m = PREAD; m <= HOT; m++)
    for (int t = 4; t <= 32; t *= 2)
      for (int r = 0; r < 2; r++)
        printf("{\"probe\":\"fill\",\"what\":\"%s\",\"threads\":%d,\"rep\":%d,\"gbps\":%.2f}\n", names[m], t, r,
               fill(m, t, fd, m == HOT ? host : map, dst, slots));
  fflush(stdout);
  _exit(0);
}
