/* A probe, not built by CMake: buffers over host memory (Dawn's
 * HostMappedPointer) and the host's own read rates on the GPU machine, the
 * measurements behind docs/bench/HISTORY.md (2026-12-02, later; outputs in
 * git at 1368c02: docs/bench/2026-12-02/h200-import-probe/). bash
 * bench/probe/run.sh [MiB].
 * PROBE_PIN=1: the pinning cost by page size (issue 28). Each line it
 * prints is a JSON object, built with jansson and written by the CLI's
 * writer (tools/unlost/cli_json.c), which run.sh compiles with it. */
#define _GNU_SOURCE
#ifndef UL_HAVE_JANSSON
#error "import_probe writes its JSON lines with jansson: build it with bench/probe/run.sh (Debian: libjansson-dev)"
#endif
#include "cli.h"
#include "core/adapter.h"
#include "core/core.h"
#include "core/transfer.h"
#include "probe_file.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define F_HOSTMAPPED 0x00050010u
#define S_HOSTMAPPED 0x00050012u
typedef struct {
  WGPUChainedStruct chain;
  void *pointer;
  void (*dispose)(void *);
  void *userdata;
} host_mapped;

static ul_env *env;
static const ul__wgpu *w;
static WGPUDevice dev;
static WGPUQueue q;
static char last_err[512];
/* One line of output: the object o (stolen), keys in the order set. */
static void emit(json_t *o) { cli_json_write("import_probe", "-", o); }
static void on_err(WGPUDevice const *d, uint32_t type, WGPUStringView m, void *a, void *b) {
  (void)d; (void)a; (void)b;
  snprintf(last_err, sizeof last_err, "type %u: %.*s", type, (int)(m.length == SIZE_MAX ? strlen(m.data) : m.length), m.data);
}
static _Atomic int lost;
static void on_lost(WGPUDevice const *d, uint32_t reason, WGPUStringView m, void *a, void *b) {
  (void)d; (void)a; (void)b;
  lost = 1;
  emit(json_pack("{s:s,s:I,s:s%}", "probe", "lost", "reason", (json_int_t)reason, "message", m.data ? m.data : "",
                 !m.data ? 0 : m.length == SIZE_MAX ? strlen(m.data) : m.length));
}
static double ms(uint64_t t0) { return (double)(ul__now_ns() - t0) / 1e6; }
static void wait_idle(void) {
  ul__cb *c = ul__cb_new();
  WGPUQueueWorkDoneCallbackInfo cb = {0};
  cb.mode = WGPUCallbackMode_WaitAnyOnly;
  cb.callback = ul__cb_on_status;
  cb.userdata1 = c;
  WGPUFuture f = w->QueueOnSubmittedWorkDone(q, cb);
  ul__env_wait(env, env->instance, f, &c->done, 60000000000ull);
  ul__cb_unref(c);
}
static void copy(WGPUBuffer s, uint64_t so, WGPUBuffer d, uint64_t dof, uint64_t n) {
  WGPUCommandEncoder e = w->DeviceCreateCommandEncoder(dev, NULL);
  w->CommandEncoderCopyBufferToBuffer(e, s, so, d, dof, n);
  WGPUCommandBuffer cb = w->CommandEncoderFinish(e, NULL);
  w->QueueSubmit(q, 1, &cb);
  w->CommandBufferRelease(cb);
  w->CommandEncoderRelease(e);
}
static _Atomic int disposed;
static void on_dispose(void *u) { (void)u; disposed++; }

static WGPUBuffer import(void *p, uint64_t n, double *t) {
  host_mapped hm = {{NULL, S_HOSTMAPPED}, p, on_dispose, NULL};
  WGPUBufferDescriptor bd = {0};
  bd.nextInChain = &hm.chain;
  bd.usage = WGPUBufferUsage_CopySrc;
  bd.size = n;
  last_err[0] = 0;
  uint64_t t0 = ul__now_ns();
  WGPUBuffer b = w->DeviceCreateBuffer(dev, &bd);
  w->InstanceProcessEvents(env->instance);
  *t = ms(t0);
  return b;
}

/* compare device buffer bytes at a few places with the expected host bytes */
static int verify(WGPUBuffer dst, const uint8_t *want, uint64_t n) {
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst;
  bd.size = 3 * 65536;
  WGPUBuffer rb = w->DeviceCreateBuffer(dev, &bd);
  uint64_t at[3] = {0, n / 2 & ~4095ull, n - 65536};
  for (int i = 0; i < 3; i++) copy(dst, at[i], rb, (uint64_t)i * 65536, 65536);
  ul_device tmp = {0};
  tmp.env = env; tmp.wgpu = w; tmp.instance = env->instance;
  ul_status s = ul__wait_map(&tmp, rb, WGPUMapMode_Read, 0, 3 * 65536, 60000000000ull);
  int ok = !s;
  if (ok) {
    const uint8_t *m = w->BufferGetConstMappedRange(rb, 0, 3 * 65536);
    for (int i = 0; i < 3 && ok; i++) ok = m && !memcmp(m + i * 65536, want + at[i], 65536);
    w->BufferUnmap(rb);
  }
  w->BufferDestroy(rb);
  w->BufferRelease(rb);
  return ok;
}

static void try_import(const char *name, void *p, uint64_t n, WGPUBuffer dst, const uint8_t *want) {
  double ti;
  WGPUBuffer b = import(p, n, &ti);
  int errd = last_err[0] != 0;
  json_t *o = json_pack("{s:s,s:s,s:I,s:o,s:s}", "probe", "import", "what", name, "bytes", (json_int_t)n,
                        "import_ms", cli_json_real(ti, 2), "error", errd ? last_err : "");
  if (b && !errd) {
    double best = 1e9, first = 0;
    for (int r = 0; r < 3; r++) {
      wait_idle();
      uint64_t t0 = ul__now_ns();
      copy(b, 0, dst, 0, n);
      wait_idle();
      double c = ms(t0);
      if (!r) first = c;
      if (c < best) best = c;
    }
    cli_json_set(o, "first_copy_ms", cli_json_real(first, 2));
    cli_json_set(o, "copy_ms", cli_json_real(best, 2));
    cli_json_set(o, "copy_gbps", cli_json_real((double)n / best / 1e6, 2));
    cli_json_set(o, "verified", json_integer(verify(dst, want, n)));
  }
  if (b) {
    uint64_t t0 = ul__now_ns();
    w->BufferDestroy(b);
    w->BufferRelease(b);
    wait_idle();
    w->InstanceProcessEvents(env->instance);
    cli_json_set(o, "release_ms", cli_json_real(ms(t0), 2));
    cli_json_set(o, "disposed", json_integer((int)disposed));
  }
  emit(o);
}

typedef struct { int fd; uint8_t *dst; const uint8_t *src; uint64_t off, n; } job;
static void *rd(void *a) {
  job *j = a;
  for (uint64_t got = 0; got < j->n;) {
    ssize_t r = j->src ? (memcpy(j->dst + got, j->src + j->off + got, j->n), (ssize_t)j->n)
                       : pread(j->fd, j->dst + got, j->n - got, (off_t)(j->off + got));
    if (r <= 0) break;
    got += (uint64_t)r;
  }
  return NULL;
}
static double host_read(int fd, const uint8_t *src, uint8_t *dst, uint64_t n, int t) {
  pthread_t th[32];
  job jb[32];
  uint64_t per = n / (uint64_t)t;
  uint64_t t0 = ul__now_ns();
  for (int i = 0; i < t; i++) {
    jb[i] = (job){fd, dst + i * per, src, i * per, per};
    pthread_create(&th[i], NULL, rd, &jb[i]);
  }
  for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
  return (double)n / (double)(ul__now_ns() - t0);
}


/* The staging ring as src/core/staging.c runs it, step by step, timed. */
static void ring_bar(const uint8_t *src, uint64_t n, WGPUBuffer dst, uint64_t chunk, int pass) {
  WGPUBuffer slot[4] = {0};
  ul__cb *pend[4] = {0};
  WGPUFuture fut[4];
  static WGPUBuffer keep[4];
  double t_create = 0, t_wait = 0, t_fill = 0, t_unmap = 0, t_submit = 0;
  ul_device tmp = {0};
  tmp.env = env; tmp.wgpu = w; tmp.instance = env->instance; tmp.device = dev; tmp.queue = q;
  if (pass) for (int i = 0; i < 4; i++) slot[i] = keep[i];
  wait_idle();
  uint64_t T = ul__now_ns();
  int k = 0;
  for (uint64_t done = 0; done < n; done += chunk, k = (k + 1) % 4) {
    uint64_t t0 = ul__now_ns();
    if (!slot[k]) {
      WGPUBufferDescriptor bd = {0};
      bd.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
      bd.size = chunk;
      bd.mappedAtCreation = 1;
      slot[k] = w->DeviceCreateBuffer(dev, &bd);
      t_create += ms(t0);
    } else {
      if (!pend[k]) { /* kept from pass 0: map it */
        fut[k] = ul__map_start(&tmp, slot[k], WGPUMapMode_Write, 0, chunk, WGPUCallbackMode_WaitAnyOnly, &pend[k]);
      }
      ul__env_wait(env, env->instance, fut[k], &pend[k]->done, 60000000000ull);
      ul__cb_unref(pend[k]);
      pend[k] = NULL;
      t_wait += ms(t0);
    }
    t0 = ul__now_ns();
    void *m = w->BufferGetMappedRange(slot[k], 0, chunk);
    host_read(-1, src + done, m, chunk, 16);
    t_fill += ms(t0);
    t0 = ul__now_ns();
    w->BufferUnmap(slot[k]);
    t_unmap += ms(t0);
    t0 = ul__now_ns();
    copy(slot[k], 0, dst, done, chunk);
    fut[k] = ul__map_start(&tmp, slot[k], WGPUMapMode_Write, 0, chunk, WGPUCallbackMode_WaitAnyOnly, &pend[k]);
    t_submit += ms(t0);
  }
  wait_idle();
  double tot = ms(T);
  for (int i = 0; i < 4; i++) if (pend[i]) { ul__env_wait(env, env->instance, fut[i], &pend[i]->done, 60000000000ull); ul__cb_unref(pend[i]); }
  for (int i = 0; i < 4; i++) { keep[i] = slot[i]; w->BufferUnmap(slot[i]); }
  emit(json_pack("{s:s,s:i,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:i}", "probe", "ring_bar", "pass", pass, "chunk_mb",
                 (json_int_t)(chunk >> 20), "total_ms", cli_json_real(tot, 2), "gbps",
                 cli_json_real((double)n / tot / 1e6, 2), "create_ms", cli_json_real(t_create, 2), "wait_ms",
                 cli_json_real(t_wait, 2), "fill_ms", cli_json_real(t_fill, 2), "unmap_ms", cli_json_real(t_unmap, 2),
                 "submit_ms", cli_json_real(t_submit, 2), "verified", verify(dst, src, n)));
  if (pass) for (int i = 0; i < 4; i++) { w->BufferDestroy(keep[i]); w->BufferRelease(keep[i]); keep[i] = NULL; }
}

/* A ring of host slots imported ahead (pinned once), filled by threads. */
static void ring_host(const uint8_t *src, uint64_t n, WGPUBuffer dst, uint64_t chunk) {
  uint8_t *mem[4];
  WGPUBuffer b[4];
  uint64_t t0 = ul__now_ns();
  for (int i = 0; i < 4; i++) {
    mem[i] = aligned_alloc(4096, chunk);
    memset(mem[i], 0, chunk);
    double ti;
    b[i] = import(mem[i], chunk, &ti);
  }
  double t_imp = ms(t0);
  ul__cb *pend[4] = {0};
  WGPUFuture fut[4];
  double t_wait = 0, t_fill = 0;
  wait_idle();
  uint64_t T = ul__now_ns();
  int k = 0;
  for (uint64_t done = 0; done < n; done += chunk, k = (k + 1) % 4) {
    t0 = ul__now_ns();
    if (pend[k]) {
      ul__env_wait(env, env->instance, fut[k], &pend[k]->done, 60000000000ull);
      ul__cb_unref(pend[k]);
      pend[k] = NULL;
    }
    t_wait += ms(t0);
    t0 = ul__now_ns();
    host_read(-1, src + done, mem[k], chunk, 16);
    t_fill += ms(t0);
    copy(b[k], 0, dst, done, chunk);
    pend[k] = ul__cb_new();
    WGPUQueueWorkDoneCallbackInfo cb = {0};
    cb.mode = WGPUCallbackMode_WaitAnyOnly;
    cb.callback = ul__cb_on_status;
    cb.userdata1 = pend[k];
    fut[k] = w->QueueOnSubmittedWorkDone(q, cb);
  }
  wait_idle();
  double tot = ms(T);
  for (int i = 0; i < 4; i++) if (pend[i]) { ul__env_wait(env, env->instance, fut[i], &pend[i]->done, 60000000000ull); ul__cb_unref(pend[i]); }
  emit(json_pack("{s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:i}", "probe", "ring_host", "chunk_mb", (json_int_t)(chunk >> 20),
                 "import_4_ms", cli_json_real(t_imp, 2), "total_ms", cli_json_real(tot, 2), "gbps",
                 cli_json_real((double)n / tot / 1e6, 2), "wait_ms", cli_json_real(t_wait, 2), "fill_ms",
                 cli_json_real(t_fill, 2), "verified", verify(dst, src, n)));
  for (int i = 0; i < 4; i++) { w->BufferDestroy(b[i]); w->BufferRelease(b[i]); }
  wait_idle();
}


/* ---- PROBE_PIN=1: what pinning costs by page size (issue 28) ----
 * The import pins the host pages (the driver takes a reference on every
 * page and maps them for the GPU). The same 1 GiB of host bytes in 4 KiB
 * pages, in transparent huge pages, and in hugetlbfs pages of 2 MiB and 1
 * GiB where the kernel has (or can be given) them: the import, its first
 * copy and a later one, and a whole-GPU reset done by hand (a new device,
 * then import and copy), each verified. */
static uint64_t smaps_kb(const void *p, const char *field) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return 0;
  char line[256];
  int in = 0;
  uint64_t kb = 0;
  size_t fl = strlen(field);
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
      in = (uintptr_t)p >= a && (uintptr_t)p < b;
      continue;
    }
    if (in && !strncmp(line, field, fl)) kb += strtoull(line + fl + 1, NULL, 10);
  }
  fclose(f);
  return kb;
}
static void sysfs_print(const char *key, const char *path) {
  char buf[256] = "";
  FILE *f = fopen(path, "r");
  if (f) {
    if (!fgets(buf, sizeof buf, f)) buf[0] = 0;
    fclose(f);
  }
  buf[strcspn(buf, "\n")] = 0;
  emit(json_pack("{s:s,s:s,s:s}", "probe", "sys", "what", key, "value", buf));
}
static int sysfs_write(const char *path, unsigned long v) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int r = fprintf(f, "%lu\n", v) > 0 ? 0 : -1;
  return fclose(f) ? -1 : r;
}
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif
typedef struct pin_mem { const char *name; uint8_t *p; size_t map_len; uint8_t *raw; } pin_mem;
static int pin_alloc(pin_mem *m, int kind, uint64_t n) {
  memset(m, 0, sizeof *m);
  static const char *const names[] = {"4K pages", "transparent huge pages (2M)", "hugetlb 2M", "hugetlb 1G"};
  m->name = names[kind];
  if (kind <= 1) {
    m->map_len = n + (2u << 20);
    m->raw = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m->raw == MAP_FAILED) return -1;
    m->p = (uint8_t *)(((uintptr_t)m->raw + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    madvise(m->p, n, kind ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  } else {
    int shift = kind == 2 ? 21 : 30;
    const char *nr = kind == 2 ? "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages"
                               : "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages";
    m->map_len = (n + (1ull << shift) - 1) & ~((1ull << shift) - 1);
    for (int attempt = 0; attempt < 2; attempt++) {
      m->raw = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (shift << MAP_HUGE_SHIFT),
                    -1, 0);
      if (m->raw != MAP_FAILED) break;
      int e = errno;
      int w = sysfs_write(nr, (unsigned long)(m->map_len >> shift));
      emit(json_pack("{s:s,s:s,s:i,s:s}", "probe", "hugetlb", "what", m->name, "mmap_errno", e,
                     "raise_nr_hugepages", w ? "refused" : "written"));
    }
    if (m->raw == MAP_FAILED) return -1;
    m->p = m->raw;
  }
  return 0;
}

static unsigned long sysfs_read(const char *path) {
  unsigned long v = 0;
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%lu", &v) != 1) v = 0;
    fclose(f);
  }
  return v;
}

static void pin_probe(uint64_t n, const uint8_t *host) {
  static const char *const nr2 = "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages";
  static const char *const nr1 = "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages";
  unsigned long had2 = sysfs_read(nr2), had1 = sysfs_read(nr1);
  sysfs_print("thp enabled", "/sys/kernel/mm/transparent_hugepage/enabled");
  sysfs_print("thp defrag", "/sys/kernel/mm/transparent_hugepage/defrag");
  sysfs_print("nr_hugepages 2M", "/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages");
  sysfs_print("nr_hugepages 1G", "/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages");
  WGPUBufferDescriptor bd = {0};
  bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc;
  bd.size = n;
  for (int kind = 0; kind < 4; kind++) {
    for (int rep = 0; rep < 2; rep++) {
      pin_mem m;
      uint64_t t0 = ul__now_ns();
      if (pin_alloc(&m, kind, n)) {
        char why[64];
        snprintf(why, sizeof why, "no memory of this kind (errno %d)", errno);
        emit(json_pack("{s:s,s:s,s:s}", "probe", "pin", "pages", m.name, "error", why));
        break;
      }
      host_read(-1, host, m.p, n, 16); /* touched: the pages exist before the import */
      double fill = ms(t0);
      uint64_t huge_kb = smaps_kb(m.p, kind <= 1 ? "AnonHugePages:" : "Private_Hugetlb:");
      /* the bytes as after a whole-GPU reset: a new device first */
      uint64_t td = ul__now_ns();
      WGPUBuffer dst = w->DeviceCreateBuffer(dev, &bd);
      double create = ms(td);
      double imp;
      WGPUBuffer b = import(m.p, n, &imp);
      int errd = last_err[0] != 0;
      double first = 0, again = 0;
      int ok = 0;
      if (b && !errd) {
        wait_idle();
        uint64_t tc = ul__now_ns();
        copy(b, 0, dst, 0, n);
        wait_idle();
        first = ms(tc);
        tc = ul__now_ns();
        copy(b, 0, dst, 0, n);
        wait_idle();
        again = ms(tc);
        ok = verify(dst, host, n);
      }
      emit(json_pack("{s:s,s:s,s:i,s:I,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:i,s:s}", "probe", "pin", "pages", m.name,
                     "rep", rep, "bytes", (json_int_t)n, "huge_kb", (json_int_t)huge_kb, "alloc_fill_ms",
                     cli_json_real(fill, 2), "dst_create_ms", cli_json_real(create, 2), "import_ms",
                     cli_json_real(imp, 2), "first_copy_ms", cli_json_real(first, 2), "copy_ms",
                     cli_json_real(again > 0 ? again : 0, 2), "copy_gbps",
                     cli_json_real(again > 0 ? (double)n / again / 1e6 : 0, 2), "import_and_first_copy_ms",
                     cli_json_real(imp + first, 2), "verified", ok, "error", errd ? last_err : ""));
      if (b) {
        w->BufferDestroy(b);
        w->BufferRelease(b);
      }
      w->BufferDestroy(dst);
      w->BufferRelease(dst);
      wait_idle();
      w->InstanceProcessEvents(env->instance);
      munmap(m.raw, m.map_len);
    }
  }
  /* the reserve as it was (a pool the probe raised goes back) */
  if (sysfs_read(nr2) != had2) sysfs_write(nr2, had2);
  if (sysfs_read(nr1) != had1) sysfs_write(nr1, had1);
}

int main(int argc, char **argv) {
  uint64_t n = (argc > 1 ? strtoull(argv[1], NULL, 10) : 1024) << 20;
  const char *path = "/tmp/probe-weights";
  int fd;
  uint8_t *host = probe_file(path, n, &fd);
  if (!host) return 1;
  close(fd);
  fd = open(path, O_RDONLY);
  uint8_t *dst = aligned_alloc(4096, n);
  memset(dst, 1, n);
  for (int t = 1; t <= 16; t *= 2)
    emit(json_pack("{s:s,s:s,s:i,s:o}", "probe", "host", "what", "pread page cache", "threads", t, "gbps",
                   cli_json_real(host_read(fd, NULL, dst, n, t), 2)));
  uint8_t *fm = mmap(NULL, n, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
  for (int t = 1; t <= 16; t *= 2)
    emit(json_pack("{s:s,s:s,s:i,s:o}", "probe", "host", "what", "memcpy from populated file map", "threads", t,
                   "gbps", cli_json_real(host_read(-1, fm, dst, n, t), 2)));
  munmap(fm, n);

  if (ul_env_create(NULL, &env)) { printf("env: %s\n", ul_last_error()); return 1; }
  w = env->wgpu;
  static const char *const tg[] = {"allow_unsafe_apis"};
  WGPUDawnTogglesDescriptor td = {{NULL, WGPUSType_DawnTogglesDescriptor}, 1, tg, 0, NULL};
  WGPURequestAdapterOptions opt = {0};
  opt.nextInChain = &td.chain;
  opt.featureLevel = WGPUFeatureLevel_Core;
  opt.powerPreference = WGPUPowerPreference_HighPerformance;
  ul__cb *r = ul__cb_new();
  WGPURequestAdapterCallbackInfo acb = {0};
  extern void probe_on_adapter(uint32_t, WGPUAdapter, WGPUStringView, void *, void *);
  acb.mode = WGPUCallbackMode_WaitAnyOnly;
  acb.callback = probe_on_adapter;
  acb.userdata1 = r;
  WGPUFuture f = w->InstanceRequestAdapter(env->instance, &opt, acb);
  ul__env_wait(env, env->instance, f, &r->done, 10000000000ull);
  WGPUAdapter a = r->object;
  if (!a) { printf("no adapter\n"); return 1; }
  ul_adapter_info ai;
  ul__adapter_describe(env, a, &ai);
  int has = w->AdapterHasFeature(a, F_HOSTMAPPED);
  emit(json_pack("{s:s,s:s,s:i}", "probe", "adapter", "name", ai.name, "host_mapped_feature", has));
  if (!has) return 0;
  WGPULimits al;
  memset(&al, 0, sizeof al);
  w->AdapterGetLimits(a, &al);
  WGPULimits req;
  ul_limits want = {.max_buffer_size = UL_LIMIT_ADAPTER, .max_storage_buffer_binding_size = UL_LIMIT_ADAPTER};
  ul__limits_required(&want, &al, &req);
  uint32_t feats[1] = {F_HOSTMAPPED};
  WGPUDeviceDescriptor dd = {0};
  dd.nextInChain = &td.chain;
  dd.requiredFeatureCount = 1;
  dd.requiredFeatures = feats;
  dd.requiredLimits = &req;
  dd.uncapturedErrorCallbackInfo.callback = on_err;
  dd.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  dd.deviceLostCallbackInfo.callback = on_lost;
  uint64_t t0 = ul__now_ns();
  WGPUBufferDescriptor bd = {0};
  WGPUBuffer dstb = NULL;
#define NEWDEV() do { \
    if (dev) { w->BufferDestroy(dstb); w->BufferRelease(dstb); w->QueueRelease(q); w->DeviceDestroy(dev); w->DeviceRelease(dev); dev = NULL; } \
    lost = 0; t0 = ul__now_ns(); \
    if (ul__request_device(env, env->instance, a, &dd, 10000000000ull, &dev)) { printf("device: %s\n", ul_last_error()); return 1; } \
    emit(json_pack("{s:s,s:o}", "probe", "device", "ms", cli_json_real(ms(t0), 2))); \
    q = w->DeviceGetQueue(dev); \
    memset(&bd, 0, sizeof bd); \
    bd.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopyDst | WGPUBufferUsage_CopySrc; \
    bd.size = n; \
    dstb = w->DeviceCreateBuffer(dev, &bd); } while (0)
  NEWDEV();
  if (getenv("PROBE_PIN")) {
    pin_probe(n, host);
    return 0;
  }

  if (getenv("PROBE_RING"))
    for (uint64_t c = 32ull << 20; c <= (256ull << 20) && c <= n / 4; c <<= 1) {
      ring_bar(host, n, dstb, c, 0);
      ring_bar(host, n, dstb, c, 1);
      ring_host(host, n, dstb, c);
    }
  uint8_t *anon = aligned_alloc(4096, n);
  memcpy(anon, host, n);
  try_import("anonymous, touched", anon, n, dstb, host);
  /* populate cost of a private writable file mapping (COW of every page) */
  uint64_t tp = ul__now_ns();
  fm = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  emit(json_pack("{s:s,s:s,s:o}", "probe", "populate", "what", "MAP_PRIVATE RW MAP_POPULATE", "ms",
                 cli_json_real(ms(tp), 2)));
  try_import("file MAP_PRIVATE RW populated", fm, n, dstb, host);
  munmap(fm, n);
  tp = ul__now_ns();
  fm = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  emit(json_pack("{s:s,s:s,s:o}", "probe", "populate", "what", "MAP_PRIVATE RW no populate", "ms",
                 cli_json_real(ms(tp), 2)));
  try_import("file MAP_PRIVATE RW not populated (pin faults)", fm, n, dstb, host);
  munmap(fm, n);
  /* anonymous, transparent huge pages, filled by 16 threads from the page cache */
  for (int thp = 0; thp < 2; thp++) {
    tp = ul__now_ns();
    uint8_t *a = mmap(NULL, n + (2u << 20), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint8_t *al = (uint8_t *)(((uintptr_t)a + (2u << 20) - 1) & ~(uintptr_t)((2u << 20) - 1));
    if (thp) madvise(al, n, MADV_HUGEPAGE);
    double g = host_read(fd, NULL, al, n, 16);
    emit(json_pack("{s:s,s:i,s:o,s:o}", "probe", "fill", "thp", thp, "pread16_gbps", cli_json_real(g, 2),
                   "alloc_fill_ms", cli_json_real(ms(tp), 2)));
    try_import(thp ? "anonymous THP, pread by 16 threads" : "anonymous 4K, pread by 16 threads", al, n, dstb, host);
    munmap(a, n + (2u << 20));
  }
  if (lost) NEWDEV();
  /* the staging path today: BAR staging buffer filled by 16 threads */
  bd.usage = WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc;
  bd.size = 128ull << 20;
  bd.mappedAtCreation = 1;
  t0 = ul__now_ns();
  WGPUBuffer st = w->DeviceCreateBuffer(dev, &bd);
  double tc = ms(t0);
  void *m = w->BufferGetMappedRange(st, 0, bd.size);
  double g = host_read(-1, host, m, bd.size, 16);
  double g1 = host_read(-1, host, m, bd.size, 1);
  emit(json_pack("{s:s,s:o,s:o,s:o}", "probe", "staging", "create_128M_ms", cli_json_real(tc, 2), "fill_16_gbps",
                 cli_json_real(g, 2), "fill_1_gbps", cli_json_real(g1, 2)));
  w->BufferUnmap(st);
  return 0;
}
void probe_on_adapter(uint32_t status, WGPUAdapter adapter, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  ul__cb_finish(u1, status, 0, adapter, message);
}
