/* Fuzz target for the webgpu.h front door (issue 27): random descriptors
 * for every create the layer accepts, random encoder call sequences, random
 * queue writes and maps, through the layer only (linked to the static
 * libunlost-webgpu, which loads the implementation at run time).
 *
 * One process makes one instance, the device under test and a second device
 * whose objects serve as "foreign" handles. Each input is read as a program
 * of at most MAX_OPS calls whose arguments come from its bytes: field values
 * at the edges and beyond (sizes, counts, offsets, enums, usage bits),
 * chains of known and unknown sTypes, and handles that are live, error
 * objects, NULL, released (still in the layer's quarantine), destroyed, of
 * another kind, of the other device, or a "native" pointer to 64 zero
 * bytes. Every call runs between three error scopes (Validation,
 * OutOfMemory, Internal) of the device under test. The oracle:
 *   - no crash, hang (a watchdog) or sanitizer report;
 *   - nothing reaches the uncaptured-error or lost callback of the device
 *     under test, and every PopErrorScope succeeds;
 *   - no Internal error from misuse (--allow-internal to accept them);
 *   - a create on the live device returns an object, never NULL;
 *   - every created object is valid or an error object, consistently: at
 *     the end of each input each buffer and texture is used once more, and
 *     that use is an error exactly when its create was;
 *   - a non-NULL mapped range lies inside the mapping the program got, and
 *     every byte of it can be touched (ASan);
 *   - every future waited for completes, every callback runs at most once;
 *   - after each input (everything it made released), a known-good dispatch
 *     still gives the CPU's answer: the layer was not corrupted.
 * The fuzz is over values and handles, not over the memory safety of the
 * caller's own pointers: every array has the count it claims, every data
 * pointer points into g_data (DATA_LEN bytes) and sizes that would be read
 * from it are at most DATA_LEN. Valid-looking buffers and textures are kept
 * below OBJ_CAP bytes so that the CPU driver never allocates gigabytes;
 * sizes above the limits are still generated.
 *
 * Some calls that reach known bugs of the layer are not generated unless
 * FUZZ_WEBGPU_KNOWN=1 (tests/webgpu/misuse_webgpu.c has each as a failing
 * case): a mappedAtCreation buffer larger than OBJ_CAP (ASan aborts on the
 * host allocation: misuse case huge_mapped_at_creation), a texture of
 * billions of mip levels (the layer walks each before validating, for tens
 * of seconds: texture_huge_mip_count), and the probe of an error bind group
 * layout through a pipeline layout (no error: unknown_stypes).
 *
 * Standalone (what CTest runs): saved inputs replayed first (files and
 * directories, tests/fuzz_corpus/fuzz_webgpu/), then random inputs and
 * mutations of earlier ones for --seconds:
 *   ./fuzz_webgpu --seconds 15 [--seed N] [--trace] [--stats] [--no-loss]
 *                 [--allow-internal] [FILE|DIR ...]
 * On an oracle failure the calls of the input so far are printed and the
 * input is written to ./crash-fuzz_webgpu-<n> (a signal or sanitizer report
 * saves it as well). libFuzzer (clang, -DUL_LIBFUZZER=ON): the target
 * fuzz_webgpu_libfuzzer. */
#include "wgpu_prog.h"

#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define OBJ_CAP (1u << 20)           /* the largest valid-looking buffer or texture */
#define DATA_LEN (OBJ_CAP + 65536u)  /* every data pointer points here */
#define MAX_OPS 48
#define MAX_OBJS 512
#define MAX_SHADERS 4   /* per input: a compile costs milliseconds */
#define MAX_PIPELINES 3 /* per input: lavapipe compiles cost tens of ms */
#define MAX_STALE 256
#define MAX_FUTS 256
#define WAIT_NS (20ull * 1000000000ull)
#define STYPE_UNKNOWN 0x7fff1234u

/* ---- the process's devices ------------------------------------------------- */

static WGPUInstance g_in;
static WGPUAdapter g_adapter;
static WGPUDevice g_dev, g_dev2;
static WGPUQueue g_q, g_q2;
static WGPULimits g_lim;
static bool g_has_timestamps;
static atomic_int g_uncaptured, g_lost, g_uncaptured2;
static char g_last_uncaptured[512];
static uint8_t *g_data;
static bool g_trace, g_allow_internal, g_no_loss, g_known;
static _Alignas(16) unsigned char g_garbage[64];
/* Chained structs: a known sType is followed by zeros enough for any
 * struct it names, so that reading it as that struct stays in bounds. */
typedef union chain_blob {
  WGPUChainedStruct c;
  unsigned char bytes[256];
} chain_blob;
static chain_blob g_chain[8]; /* 5 and 6-7: cycles (set up with the others) */

/* The known-good workload's pipeline and layout (made once). */
static WGPUShaderModule g_good_shader;
static WGPUBindGroupLayout g_good_bgl;
static WGPUComputePipeline g_good_pipeline;
static uint64_t g_inputs, g_ops, g_losses, g_errors_seen;

static void on_uncaptured(const WGPUDevice *device, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
  (void)device;
  (void)u2;
  if (u1) {
    atomic_fetch_add(&g_uncaptured2, 1); /* the foreign device: misuse through it is expected */
    return;
  }
  atomic_fetch_add(&g_uncaptured, 1);
  snprintf(g_last_uncaptured, sizeof g_last_uncaptured, "type %u: %.*s", type, wp_sv_len(message),
           message.data ? message.data : "");
}

static void on_lost(const WGPUDevice *device, WGPUDeviceLostReason reason, WGPUStringView message, void *u1,
                    void *u2) {
  (void)device;
  (void)u2;
  (void)u1;
  if (reason == WGPUDeviceLostReason_CallbackCancelled || reason == WGPUDeviceLostReason_Destroyed) return;
  atomic_fetch_add(&g_lost, 1);
  fprintf(stderr, "fuzz_webgpu: device lost (reason %u): %.*s\n", reason, wp_sv_len(message), message.data);
}

/* ---- the input as a stream of choices ------------------------------------- */
typedef struct rd {
  const uint8_t *p;
  size_t n, i;
} rd;

static bool more(const rd *r) { return r->i < r->n; }
static uint8_t u8(rd *r) { return r->i < r->n ? r->p[r->i++] : 0; }
static uint32_t u32(rd *r) {
  uint32_t v = 0;
  for (int k = 0; k < 4; k++) v |= (uint32_t)u8(r) << (8 * k);
  return v;
}
static uint64_t u64(rd *r) { return (uint64_t)u32(r) | (uint64_t)u32(r) << 32; }

/* In a "sane" input (its first byte odd) most choices take the first,
 * valid, entries of their table, so that programs get past validation. */
static bool g_sane;
static bool sane(rd *r) { return g_sane && u8(r) % 8 != 0; }
static bool one_in(rd *r, unsigned n) { return u8(r) % n == 0; }

static uint64_t pick64(rd *r, const uint64_t *t, size_t n, size_t valid) {
  uint8_t b = u8(r);
  if (g_sane && valid && b % 8 != 0) return t[(b >> 3) % valid];
  if (b < 0xE8) return t[b % n];
  return b < 0xF4 ? u32(r) : u64(r);
}
#define PICK(r, t, valid) pick64(r, t, sizeof t / sizeof t[0], valid)

static const uint64_t k_sizes[] = {256, 1024, 64, 16, 4096, 4, /* sane */
                                   0, 1, 2, 3, 8, 12, 20, 252, 260, 1000, 65536, 65540, OBJ_CAP, OBJ_CAP + 4,
                                   1ull << 32, 1ull << 40, 1ull << 62, 1ull << 63, UINT64_MAX - 3, UINT64_MAX - 2,
                                   UINT64_MAX - 1, UINT64_MAX, UINT32_MAX, (uint64_t)UINT32_MAX + 1};
static const uint64_t k_offsets[] = {0, 0, 256, 4, 64, /* sane */
                                     8, 12, 16, 2, 252, 255, 260, 1024, 4096, OBJ_CAP - 4, OBJ_CAP, UINT32_MAX,
                                     1ull << 32, UINT64_MAX - 3, UINT64_MAX, WGPU_WHOLE_SIZE};
static const uint64_t k_dims[] = {4, 1, 16, 8, 64, 2, /* sane */
                                  0, 3, 7, 17, 255, 256, 2048, 2049, 8192, 8193, 16384, 65536, UINT32_MAX};
static const uint64_t k_small[] = {1, 0, 2, 3, 4, 5, 6, 7, 8, 15, 16, 17, 255, 256, 1000, 4096, 4097, 65535,
                                   UINT32_MAX};
static const uint64_t k_groups[] = {1, 2, 4, 3, 0, 64, 65535, 65536, 1u << 20, UINT32_MAX};

/* A valid-looking size is at most OBJ_CAP: those between it and the
 * device's maxBufferSize would really be allocated. */
static uint64_t fix_size(uint64_t v) {
  if (v > OBJ_CAP && v <= g_lim.maxBufferSize) return v % OBJ_CAP;
  return v;
}

/* ---- trace and oracle ---------------------------------------------------------- */
#define TRACE_LINES 128
static char g_trace_buf[TRACE_LINES][320];
static unsigned g_trace_n;
static const uint8_t *g_cur;
static size_t g_cur_size;
static unsigned g_crash_no;

static void tracef(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void tracef(const char *fmt, ...) {
  char *line = g_trace_buf[g_trace_n++ % TRACE_LINES];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof g_trace_buf[0], fmt, ap);
  va_end(ap);
  if (g_trace) fprintf(stderr, "  %s\n", line);
}

static void save_input(const char *why) {
  char path[96];
  snprintf(path, sizeof path, "crash-fuzz_webgpu-%u", g_crash_no++);
  FILE *f = fopen(path, "wb");
  if (f) {
    if (g_cur_size) fwrite(g_cur, 1, g_cur_size, f);
    fclose(f);
  }
  fprintf(stderr, "fuzz_webgpu: %s; input (%zu bytes) saved to %s\n", why, g_cur_size, path);
}

static void print_trace(void) {
  fprintf(stderr, "calls of this input (last %d):\n", TRACE_LINES);
  unsigned first = g_trace_n > TRACE_LINES ? g_trace_n - TRACE_LINES : 0;
  for (unsigned i = first; i < g_trace_n; i++) fprintf(stderr, "  %s\n", g_trace_buf[i % TRACE_LINES]);
}

static void oracle_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void oracle_fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "fuzz_webgpu: ORACLE FAILURE: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n");
  print_trace();
  save_input("oracle failure");
  abort();
}

/* ---- exact-size copies -------------------------------------------------------- */
/* Arrays, strings and data are handed to the layer in heap blocks of
 * exactly the size the call claims (strings with no NUL after them), so
 * that a read past what the call says is an ASan report. Freed at the end
 * of each op. */
static void *g_tmp[64];
static int g_ntmp;

static void *exact(const void *src, size_t bytes) {
  if (g_ntmp == (int)WP_COUNT(g_tmp)) return (void *)src; /* pool full: the source itself */
  void *p = malloc(bytes ? bytes : 1);
  if (!p) exit(1);
  if (bytes) memcpy(p, src, bytes);
  g_tmp[g_ntmp++] = p;
  return p;
}

static WGPUStringView sv_exact(const char *text) {
  size_t n = strlen(text);
  return (WGPUStringView){exact(text, n), n};
}

static void tmp_free_all(void) {
  for (int i = 0; i < g_ntmp; i++) free(g_tmp[i]);
  g_ntmp = 0;
}

/* ---- error scopes around every call -------------------------------------- */
enum { E_VAL = 1, E_OOM = 2, E_INT = 4 };

typedef struct pop_rec {
  atomic_bool done;
  atomic_int calls;
  uint32_t status, type;
  char message[256];
} pop_rec;

static void on_pop(WGPUPopErrorScopeStatus status, WGPUErrorType type, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  pop_rec *r = u1;
  r->status = status;
  r->type = type;
  snprintf(r->message, sizeof r->message, "%.*s", wp_sv_len(message), message.data ? message.data : "");
  atomic_fetch_add(&r->calls, 1);
  atomic_store(&r->done, true);
}

static void scopes_push(void) {
  wgpuDevicePushErrorScope(g_dev, WGPUErrorFilter_Internal);
  wgpuDevicePushErrorScope(g_dev, WGPUErrorFilter_OutOfMemory);
  wgpuDevicePushErrorScope(g_dev, WGPUErrorFilter_Validation);
}

static unsigned scopes_pop(const char *what, char *msg, size_t cap) {
  unsigned got = 0;
  msg[0] = 0;
  static const uint32_t order[3] = {WGPUErrorType_Validation, WGPUErrorType_OutOfMemory, WGPUErrorType_Internal};
  for (int k = 0; k < 3; k++) {
    pop_rec *r = calloc(1, sizeof *r);
    if (!r) exit(1);
    WGPUPopErrorScopeCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = r};
    WGPUFutureWaitInfo wi = {.future = wgpuDevicePopErrorScope(g_dev, ci)};
    WGPUWaitStatus ws = wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS);
    if (ws != WGPUWaitStatus_Success || !wi.completed || !atomic_load(&r->done))
      oracle_fail("%s: PopErrorScope did not complete (wait status %u)", what, ws);
    if (atomic_load(&r->calls) != 1) oracle_fail("%s: the PopErrorScope callback ran %d times", what, r->calls);
    if (r->status != WGPUPopErrorScopeStatus_Success)
      oracle_fail("%s: PopErrorScope failed (status %u): %s", what, r->status, r->message);
    if (r->type != WGPUErrorType_NoError) {
      if (r->type != order[k]) oracle_fail("%s: a scope of filter %d caught error type %u", what, k, r->type);
      got |= k == 0 ? E_VAL : k == 1 ? E_OOM : E_INT;
      if (!msg[0]) snprintf(msg, cap, "%s", r->message);
    }
    free(r);
  }
  return got;
}

/* Per call name: how many ended with no error and how many with one
 * (--stats). */
typedef struct call_stat {
  char name[40];
  uint64_t ok, err;
} call_stat;
static call_stat g_stats[64];

static void count_call(const char *what, unsigned got) {
  size_t l = strcspn(what, "(: ");
  if (l >= sizeof g_stats[0].name) l = sizeof g_stats[0].name - 1;
  for (int i = 0; i < 64; i++) {
    if (!g_stats[i].name[0]) memcpy(g_stats[i].name, what, l);
    if (!strncmp(g_stats[i].name, what, l) && g_stats[i].name[l] == '\0') {
      if (got) g_stats[i].err++;
      else g_stats[i].ok++;
      return;
    }
  }
}

/* The calls of one op run between op_begin and op_end. */
static int g_uncaptured_at_begin;
static double g_op_t0;
static void op_begin(void) {
  g_uncaptured_at_begin = atomic_load(&g_uncaptured);
  g_op_t0 = wp_now_s();
  scopes_push();
}

static unsigned op_end(const char *what) {
  char msg[256];
  unsigned got = scopes_pop(what, msg, sizeof msg);
  if (atomic_load(&g_uncaptured) != g_uncaptured_at_begin)
    oracle_fail("%s: an error escaped to the uncaptured-error callback (%s)", what, g_last_uncaptured);
  if (atomic_load(&g_lost)) oracle_fail("%s: the device under test was lost to the program", what);
  if ((got & E_INT) && !g_allow_internal) oracle_fail("%s: an Internal error from misuse: %s", what, msg);
  if (got) g_errors_seen++;
  count_call(what, got);
  tmp_free_all();
  tracef("[%.1f ms] %s -> %s%s%s%s%.160s", (wp_now_s() - g_op_t0) * 1e3, what, got & E_VAL ? "validation " : "", got & E_OOM ? "out-of-memory " : "",
         got & E_INT ? "internal " : "", got ? ": " : "ok", got ? msg : "");
  return got;
}

/* ---- what an input made ----------------------------------------------------- */
enum { K_BUF, K_TEX, K_VIEW, K_SMP, K_SHD, K_BGL, K_PL, K_PIPE, K_BG, K_QS, K_ENC, K_PASS, K_CMD, K_COUNT };
static const char *const k_kind[K_COUNT] = {"buffer", "texture", "view", "sampler", "shader", "bgl", "playout",
                                            "pipeline", "group", "queryset", "encoder", "pass", "cmdbuf"};

typedef struct obj {
  int kind;
  void *h;
  bool error;      /* its create reported an error */
  bool destroyed;  /* Destroy was called */
  bool maybe_busy; /* a map may be under way or in place: no probe */
  uint64_t size, usage;
  bool mapped;      /* what the program knows: a map succeeded (or mappedAtCreation) */
  bool map_unknown; /* a map was left pending: its outcome is not known here */
  bool of_pipeline; /* a bind group layout from GetBindGroupLayout */
  uint64_t map_off, map_size, map_mode;
} obj;

static obj g_objs[MAX_OBJS];
static int g_nobj;
typedef struct stale {
  int kind;
  void *h;
} stale;
static stale g_stale[MAX_STALE];
static int g_nstale;
static int g_nshaders, g_npipelines;
static bool g_lost_this_input;
static void *g_foreign[K_COUNT];

typedef struct fut {
  WGPUFuture f;
  void *rec; /* its callback's record (a map_rec) */
} fut;
static fut g_futs[MAX_FUTS];
static int g_nfuts;

static obj *add_obj(int kind, void *h, bool error) {
  if (!h) return NULL;
  if (g_nobj == MAX_OBJS) return NULL; /* released at the end like the rest: not tracked */
  obj *o = &g_objs[g_nobj++];
  memset(o, 0, sizeof *o);
  o->kind = kind;
  o->h = h;
  o->error = error;
  return o;
}

static obj *live_of(rd *r, int kind) {
  int n = 0;
  for (int i = 0; i < g_nobj; i++)
    if (g_objs[i].h && (kind < 0 || g_objs[i].kind == kind)) n++;
  if (!n) return NULL;
  int k = u8(r) % n;
  for (int i = 0; i < g_nobj; i++)
    if (g_objs[i].h && (kind < 0 || g_objs[i].kind == kind) && k-- == 0) return &g_objs[i];
  return NULL;
}

static obj *find_obj(const void *h) {
  for (int i = 0; h && i < g_nobj; i++)
    if (g_objs[i].h == h) return &g_objs[i];
  return NULL;
}

/* A handle for a parameter of `kind`: mostly a live one (valid or an error
 * object), else NULL, released, foreign, of another kind, or garbage. */
static void *pick(rd *r, int kind) {
  uint8_t b = u8(r) % (g_sane ? 96 : 20);
  obj *o;
  switch (b) {
  case 0: return NULL;
  case 1: return g_garbage;
  case 2:
  case 3: {
    int n = 0;
    for (int i = 0; i < g_nstale; i++) n += g_stale[i].kind == kind;
    if (!n || b == 3) return g_nstale ? g_stale[u8(r) % g_nstale].h : NULL;
    int k = u8(r) % n;
    for (int i = 0; i < g_nstale; i++)
      if (g_stale[i].kind == kind && k-- == 0) return g_stale[i].h;
    return NULL;
  }
  case 4: return g_foreign[kind];
  case 5: return (o = live_of(r, -1)) ? o->h : NULL;
  default: return (o = live_of(r, kind)) ? o->h : g_foreign[kind];
  }
}

/* A chain for a descriptor: mostly none. */
static WGPUChainedStruct *chain(rd *r) {
  if (!one_in(r, g_sane ? 24 : 4)) return NULL;
  return &g_chain[u8(r) % WP_COUNT(g_chain)].c;
}

static WGPUStringView label(rd *r) {
  static const char *const labels[] = {
      "fuzz", "", "a label\xff\xfe", "x",
      ("a label longer than any buffer a layer keeps for one: 0123456789012345678901234567890123456789012345678901"
       "2345678901234567890123456789012345678901234567890123456789012345678901234567890123456789012345678901234567")};
  uint8_t b = u8(r) % 10;
  if (b >= 6) return (WGPUStringView){NULL, WGPU_STRLEN};
  if (b == 5) return sv_exact(labels[u8(r) % 5]); /* no NUL after it */
  return b == 3 ? (WGPUStringView){labels[0], 2} : WP_STR(labels[b]);
}

/* ---- WGSL ------------------------------------------------------------------ */
static const char *const k_wgsl[] = {
    "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 3u + 1u; }\n"
    "}\n",
    "@group(0) @binding(0) var<uniform> u: vec4u;\n"
    "@group(0) @binding(1) var<storage, read_write> o: array<u32>;\n"
    "override k: u32 = 1u;\n"
    "@compute @workgroup_size(1) fn main() { o[0] = u.x * k; }\n"
    "@compute @workgroup_size(2) fn other() { o[1] = k; }\n",
    "@group(0) @binding(0) var t: texture_2d<f32>;\n"
    "@group(0) @binding(1) var s: sampler;\n"
    "@group(0) @binding(2) var<storage, read_write> o: array<f32>;\n"
    "@compute @workgroup_size(1) fn main() { o[0] = textureSampleLevel(t, s, vec2f(0.5), 0.0).x; }\n",
    "@group(0) @binding(0) var st: texture_storage_2d<r32float, write>;\n"
    "@compute @workgroup_size(1) fn main() { textureStore(st, vec2i(0), vec4f(1.0)); }\n",
    "@group(0) @binding(0) var<storage, read> a: array<f32>;\n"
    "@group(1) @binding(0) var<storage, read_write> b: array<f32>;\n"
    "override wg: u32 = 8u;\n"
    "@compute @workgroup_size(wg) fn main(@builtin(global_invocation_id) i: vec3u) {\n"
    "  if (i.x < arrayLength(&b)) { b[i.x] = a[i.x % arrayLength(&a)]; }\n"
    "}\n",
    "@compute @workgroup_size(1) fn main() {}\n",
    "fn main() {}\n",
    "@compute @workgroup_size(1) fn main() { let x = y; }\n",
    "",
};
static const char *const k_entries[] = {"main", "main", "other", "", "nope", "main\x01", "@compute"};
static const char *const k_keys[] = {"k", "wg", "", "nope", "1", "k\xff"};
static const double k_values[] = {1, 0, -1, 0.5, 8, 64, 65536, 4294967296.0, 1e308, -1e308};

/* ---- ops: creates ---------------------------------------------------------- */

static WGPUDevice pick_device(rd *r) {
  uint8_t b = u8(r) % 64;
  return b == 0 ? NULL : b == 1 ? (WGPUDevice)(void *)g_garbage : b == 2 ? g_dev2 : g_dev;
}

/* A create on the device under test returns an object, valid or an error
 * object, never NULL (only the layer's host memory may run out). */
static void expect_object(WGPUDevice d, const void *h, const char *what) {
  if (d == g_dev && !h) oracle_fail("%s on the live device returned NULL", what);
}

static void fill_mapped(obj *o, void *p, uint64_t off, uint64_t size);

static void op_buffer(rd *r) {
  static const uint64_t usages[] = {
      WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
      WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, WGPUBufferUsage_MapWrite | WGPUBufferUsage_CopySrc,
      WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst, WGPUBufferUsage_Indirect | WGPUBufferUsage_Storage,
      WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc, /* sane */
      0, WGPUBufferUsage_MapRead, WGPUBufferUsage_MapRead | WGPUBufferUsage_Storage,
      WGPUBufferUsage_MapWrite | WGPUBufferUsage_MapRead, 0x400, 0x3ff, UINT64_MAX, WGPUBufferUsage_Vertex};
  WGPUDevice d = pick_device(r);
  WGPUBufferDescriptor bd = {.nextInChain = chain(r), .label = label(r)};
  bd.usage = PICK(r, usages, 6);
  bd.size = fix_size(PICK(r, k_sizes, 6));
  bd.mappedAtCreation = one_in(r, 3);
  if (bd.mappedAtCreation && bd.size > OBJ_CAP && !g_known) bd.size = OBJ_CAP; /* known: ASan aborts */
  char what[160];
  snprintf(what, sizeof what, "CreateBuffer(%s, usage 0x%llx, size %llu, mapped %u, chain 0x%x)",
           d == g_dev ? "dev" : d == g_dev2 ? "dev2" : d ? "garbage" : "NULL", (unsigned long long)bd.usage,
           (unsigned long long)bd.size, bd.mappedAtCreation, bd.nextInChain ? bd.nextInChain->sType : 0);
  op_begin();
  WGPUBuffer b = wgpuDeviceCreateBuffer(d, &bd);
  void *p = NULL;
  if (b && bd.mappedAtCreation && bd.size <= OBJ_CAP) p = wgpuBufferGetMappedRange(b, 0, (size_t)bd.size);
  unsigned e = op_end(what);
  expect_object(d, b, "CreateBuffer");
  if (d != g_dev && b) {
    wgpuBufferRelease(b);
    return;
  }
  obj *o = add_obj(K_BUF, b, e != 0);
  if (!o) {
    if (b) wgpuBufferRelease(b);
    return;
  }
  o->size = bd.size;
  o->usage = bd.usage;
  if (bd.mappedAtCreation) {
    o->maybe_busy = true;
    /* Mapped at creation even when its first range was refused (a size
     * not a multiple of 4, an invalid descriptor: an error buffer is mapped
     * too): later ranges of it may be given, so the program cannot tell. */
    if (!p) o->map_unknown = true;
    if (p) {
      o->mapped = true;
      o->map_off = 0;
      o->map_size = bd.size;
      o->map_mode = WGPUMapMode_Write;
      fill_mapped(o, p, 0, bd.size);
    }
  }
}

static void op_texture(rd *r) {
  static const uint64_t formats[] = {WGPUTextureFormat_RGBA8Unorm, WGPUTextureFormat_R32Float,
                                     WGPUTextureFormat_R8Unorm, WGPUTextureFormat_RGBA32Float, /* sane */
                                     WGPUTextureFormat_Depth32Float, WGPUTextureFormat_BC1RGBAUnorm,
                                     WGPUTextureFormat_Undefined, 0x7fffffff, 0x0005ffff};
  static const uint64_t usages[] = {WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst |
                                        WGPUTextureUsage_CopySrc,
                                    WGPUTextureUsage_StorageBinding | WGPUTextureUsage_CopySrc,
                                    WGPUTextureUsage_CopyDst, /* sane */
                                    0, WGPUTextureUsage_RenderAttachment, WGPUTextureUsage_TransientAttachment,
                                    0x80, UINT64_MAX, 0x1f};
  static const uint64_t dims[] = {WGPUTextureDimension_2D, WGPUTextureDimension_3D, WGPUTextureDimension_1D,
                                  WGPUTextureDimension_Undefined, 4, 0x7fffffff};
  WGPUDevice d = pick_device(r);
  WGPUTextureFormat view_formats[2] = {(WGPUTextureFormat)PICK(r, formats, 4), (WGPUTextureFormat)PICK(r, formats, 4)};
  WGPUTextureDescriptor td = {.nextInChain = chain(r), .label = label(r)};
  td.usage = PICK(r, usages, 3);
  td.dimension = (WGPUTextureDimension)PICK(r, dims, 1);
  td.size.width = (uint32_t)PICK(r, k_dims, 6);
  td.size.height = (uint32_t)PICK(r, k_dims, 6);
  td.size.depthOrArrayLayers = (uint32_t)PICK(r, k_small, 1);
  td.format = (WGPUTextureFormat)PICK(r, formats, 4);
  td.mipLevelCount = (uint32_t)PICK(r, k_small, 1);
  /* known: the layer walks every level before validating (seconds for
   * billions: misuse case texture_huge_mip_count) */
  if (td.mipLevelCount > (1u << 20) && !g_known) td.mipLevelCount %= 64;
  td.sampleCount = sane(r) ? 1 : (uint32_t)PICK(r, k_small, 0);
  td.viewFormatCount = u8(r) % 3;
  td.viewFormats = td.viewFormatCount ? exact(view_formats, sizeof view_formats[0] * td.viewFormatCount) : NULL;
  /* Sizes within the limits are really allocated: keep them small. */
  uint64_t w = td.size.width, h = td.size.height ? td.size.height : 1, z = td.size.depthOrArrayLayers ? td.size.depthOrArrayLayers : 1;
  if (w <= 16384 && h <= 16384 && z <= 2048 && w * h * z * 16 > OBJ_CAP) {
    td.size.width = td.size.width % 64 + 1;
    td.size.height = td.size.height % 64 + 1;
    td.size.depthOrArrayLayers = td.size.depthOrArrayLayers % 4 + 1;
  }
  char what[200];
  snprintf(what, sizeof what, "CreateTexture(%ux%ux%u, dim %u, format 0x%x, usage 0x%llx, mips %u, samples %u, views %zu, chain 0x%x)",
           td.size.width, td.size.height, td.size.depthOrArrayLayers, td.dimension, td.format,
           (unsigned long long)td.usage, td.mipLevelCount, td.sampleCount, td.viewFormatCount,
           td.nextInChain ? td.nextInChain->sType : 0);
  op_begin();
  WGPUTexture t = wgpuDeviceCreateTexture(d, &td);
  if (t) {
    /* the getters of any texture */
    wgpuTextureGetWidth(t);
    wgpuTextureGetFormat(t);
    wgpuTextureGetUsage(t);
    wgpuTextureGetMipLevelCount(t);
  }
  unsigned e = op_end(what);
  expect_object(d, t, "CreateTexture");
  if (d != g_dev && t) {
    wgpuTextureRelease(t);
    return;
  }
  if (!add_obj(K_TEX, t, e != 0) && t) wgpuTextureRelease(t);
}

static void op_view(rd *r) {
  WGPUTexture t = pick(r, K_TEX);
  WGPUTextureViewDescriptor vd = {.nextInChain = chain(r), .label = label(r)};
  bool null_desc = one_in(r, 3);
  static const uint64_t formats[] = {0, WGPUTextureFormat_RGBA8Unorm, WGPUTextureFormat_R32Float, 0x7fffffff};
  vd.format = (WGPUTextureFormat)PICK(r, formats, 1);
  vd.dimension = (WGPUTextureViewDimension)(u8(r) % 9);
  vd.baseMipLevel = (uint32_t)PICK(r, k_small, 0) - 1;
  vd.mipLevelCount = one_in(r, 2) ? WGPU_MIP_LEVEL_COUNT_UNDEFINED : (uint32_t)PICK(r, k_small, 1);
  vd.baseArrayLayer = (uint32_t)PICK(r, k_small, 0) - 1;
  vd.arrayLayerCount = one_in(r, 2) ? WGPU_ARRAY_LAYER_COUNT_UNDEFINED : (uint32_t)PICK(r, k_small, 1);
  vd.aspect = (WGPUTextureAspect)(u8(r) % 5);
  vd.usage = one_in(r, 2) ? 0 : u8(r);
  if (sane(r)) {
    vd.baseMipLevel = vd.baseArrayLayer = 0;
    vd.aspect = WGPUTextureAspect_All;
  }
  char what[160];
  snprintf(what, sizeof what, "TextureCreateView(%p, %s, dim %u, mip %u+%u, layer %u+%u, aspect %u)", (void *)t,
           null_desc ? "NULL" : "desc", vd.dimension, vd.baseMipLevel, vd.mipLevelCount, vd.baseArrayLayer,
           vd.arrayLayerCount, vd.aspect);
  op_begin();
  WGPUTextureView v = wgpuTextureCreateView(t, null_desc ? NULL : &vd);
  unsigned e = op_end(what);
  obj *to = find_obj(t);
  if (to && to->kind == K_TEX && !v) oracle_fail("CreateView of a live texture returned NULL");
  /* Only a view of the device under test's texture is tracked: another's
   * view, and its errors, belong to that device. */
  if (!(to && to->kind == K_TEX && add_obj(K_VIEW, v, e != 0)) && v) wgpuTextureViewRelease(v);
}

static void op_sampler(rd *r) {
  WGPUDevice d = pick_device(r);
  WGPUSamplerDescriptor sd = {.nextInChain = chain(r), .label = label(r)};
  sd.addressModeU = (WGPUAddressMode)(u8(r) % 5);
  sd.addressModeV = (WGPUAddressMode)(u8(r) % 5);
  sd.addressModeW = (WGPUAddressMode)(u8(r) % 5);
  sd.magFilter = (WGPUFilterMode)(u8(r) % 4);
  sd.minFilter = (WGPUFilterMode)(u8(r) % 4);
  sd.mipmapFilter = (WGPUMipmapFilterMode)(u8(r) % 4);
  static const float clamps[] = {0, 32, 1, -1, 1e30f, 0.5f};
  sd.lodMinClamp = clamps[u8(r) % 6];
  sd.lodMaxClamp = clamps[u8(r) % 6];
  if (one_in(r, 16)) sd.lodMaxClamp = __builtin_nanf("");
  sd.compare = (WGPUCompareFunction)(u8(r) % 10);
  sd.maxAnisotropy = (uint16_t)(u8(r) % 20);
  bool null_desc = one_in(r, 3);
  char what[160];
  snprintf(what, sizeof what, "CreateSampler(%s, addr %u/%u/%u, filters %u/%u/%u, lod %g..%g, cmp %u, aniso %u)",
           null_desc ? "NULL" : "desc", sd.addressModeU, sd.addressModeV, sd.addressModeW, sd.magFilter,
           sd.minFilter, sd.mipmapFilter, (double)sd.lodMinClamp, (double)sd.lodMaxClamp, sd.compare,
           sd.maxAnisotropy);
  op_begin();
  WGPUSampler s = wgpuDeviceCreateSampler(d, null_desc ? NULL : &sd);
  unsigned e = op_end(what);
  expect_object(d, s, "CreateSampler");
  if (d != g_dev && s) {
    wgpuSamplerRelease(s);
    return;
  }
  if (!add_obj(K_SMP, s, e != 0) && s) wgpuSamplerRelease(s);
}

static void op_shader(rd *r) {
  if (g_nshaders >= MAX_SHADERS) return;
  g_nshaders++;
  WGPUDevice d = pick_device(r);
  size_t which = sane(r) ? u8(r) % 5 : u8(r) % WP_COUNT(k_wgsl);
  const char *code = k_wgsl[which];
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(code)};
  uint8_t how = u8(r) % 8;
  if (how == 1) src.code.length = strlen(code) / 2; /* cut */
  if (how == 2) src.code = (WGPUStringView){NULL, 0};
  if (how == 3) src.code = sv_exact(code); /* no NUL after it */
  if (how == 7 && one_in(r, 2)) src.chain.next = &src.chain; /* a cycle */
  if (how == 7 && one_in(r, 2)) {
    /* A NUL inside the explicit length, then text that is not WGSL. */
    static char text[1024];
    size_t n = strlen(code);
    if (n + 8 <= sizeof text) {
      memcpy(text, code, n);
      memcpy(text + n, "\0garbage", 8);
      src.code = (WGPUStringView){exact(text, n + 8), n + 8};
    }
  }
  WGPUShaderModuleDescriptor sd = {.label = label(r)};
  WGPUChainedStruct *extra = chain(r);
  if (how == 4) sd.nextInChain = extra; /* no WGSL */
  else if (how == 5 && extra) src.chain.next = extra, sd.nextInChain = &src.chain;
  else sd.nextInChain = &src.chain;
  bool null_desc = how == 6 && one_in(r, 2);
  char what[160];
  snprintf(what, sizeof what, "CreateShaderModule(%s, wgsl %zu, how %u, extra 0x%x)", null_desc ? "NULL" : "desc",
           which, how, extra ? extra->sType : 0);
  op_begin();
  WGPUShaderModule m = wgpuDeviceCreateShaderModule(d, null_desc ? NULL : &sd);
  unsigned e = op_end(what);
  expect_object(d, m, "CreateShaderModule");
  if (d != g_dev && m) {
    wgpuShaderModuleRelease(m);
    return;
  }
  if (!add_obj(K_SHD, m, e != 0) && m) wgpuShaderModuleRelease(m);
}

static void op_bgl(rd *r) {
  WGPUDevice d = pick_device(r);
  WGPUBindGroupLayoutEntry e[6];
  memset(e, 0, sizeof e);
  size_t n = sane(r) ? 1 + u8(r) % 3 : u8(r) % 7;
  for (size_t i = 0; i < n; i++) {
    e[i].binding = sane(r) ? (uint32_t)i : (uint32_t)PICK(r, k_small, 0) - 1;
    e[i].visibility = sane(r) ? WGPUShaderStage_Compute : u8(r) % 16;
    e[i].bindingArraySize = one_in(r, 8) ? u8(r) % 3 : 0;
    uint8_t what = u8(r) % (g_sane ? 4 : 6);
    if (what == 0 || what == 4) {
      e[i].buffer.type = (WGPUBufferBindingType)(sane(r) ? 3 : u8(r) % 6);
      e[i].buffer.hasDynamicOffset = one_in(r, 4);
      e[i].buffer.minBindingSize = one_in(r, 4) ? PICK(r, k_sizes, 6) : 0;
    }
    if (what == 1 || what == 4) e[i].sampler.type = (WGPUSamplerBindingType)(sane(r) ? 2 : u8(r) % 6);
    if (what == 2 || what == 5) {
      e[i].texture.sampleType = (WGPUTextureSampleType)(sane(r) ? 2 : u8(r) % 8);
      e[i].texture.viewDimension = (WGPUTextureViewDimension)(sane(r) ? 2 : u8(r) % 8);
      e[i].texture.multisampled = one_in(r, 8);
    }
    if (what == 3 || what == 5) {
      e[i].storageTexture.access = (WGPUStorageTextureAccess)(sane(r) ? 2 : u8(r) % 6);
      e[i].storageTexture.format = sane(r) ? WGPUTextureFormat_R32Float : (WGPUTextureFormat)(u8(r) % 0x30);
      e[i].storageTexture.viewDimension = (WGPUTextureViewDimension)(sane(r) ? 2 : u8(r) % 8);
    }
    if (one_in(r, 16)) {
      WGPUChainedStruct *c = chain(r);
      switch (u8(r) % 5) {
      case 0: e[i].nextInChain = c; break;
      case 1: e[i].buffer.nextInChain = c; break;
      case 2: e[i].sampler.nextInChain = c; break;
      case 3: e[i].texture.nextInChain = c; break;
      default: e[i].storageTexture.nextInChain = c; break;
      }
    }
  }
  WGPUBindGroupLayoutDescriptor ld = {.nextInChain = chain(r), .label = label(r), .entryCount = n, .entries = n ? exact(e, sizeof e[0] * n) : NULL};
  bool null_desc = one_in(r, 32);
  char what[96];
  snprintf(what, sizeof what, "CreateBindGroupLayout(%s, %zu entries)", null_desc ? "NULL" : "desc", n);
  op_begin();
  WGPUBindGroupLayout l = wgpuDeviceCreateBindGroupLayout(d, null_desc ? NULL : &ld);
  unsigned err = op_end(what);
  expect_object(d, l, "CreateBindGroupLayout");
  if (d != g_dev && l) {
    wgpuBindGroupLayoutRelease(l);
    return;
  }
  if (!add_obj(K_BGL, l, err != 0) && l) wgpuBindGroupLayoutRelease(l);
}

static void op_playout(rd *r) {
  WGPUDevice d = pick_device(r);
  WGPUBindGroupLayout ls[6];
  size_t n = u8(r) % (g_sane ? 3 : 7);
  for (size_t i = 0; i < n; i++) ls[i] = pick(r, K_BGL);
  WGPUPipelineLayoutDescriptor pd = {.nextInChain = chain(r), .label = label(r), .bindGroupLayoutCount = n,
                                     .bindGroupLayouts = n ? exact(ls, sizeof ls[0] * n) : NULL};
  pd.immediateSize = one_in(r, 8) ? (uint32_t)PICK(r, k_small, 0) : 0;
  char what[96];
  snprintf(what, sizeof what, "CreatePipelineLayout(%zu layouts, immediate %u)", n, pd.immediateSize);
  op_begin();
  WGPUPipelineLayout p = wgpuDeviceCreatePipelineLayout(d, &pd);
  unsigned e = op_end(what);
  expect_object(d, p, "CreatePipelineLayout");
  if (d != g_dev && p) {
    wgpuPipelineLayoutRelease(p);
    return;
  }
  if (!add_obj(K_PL, p, e != 0) && p) wgpuPipelineLayoutRelease(p);
}

typedef struct async_rec {
  atomic_bool done;
  atomic_int calls;
  uint32_t status;
  void *object;
} async_rec;

static void on_pipeline(WGPUCreatePipelineAsyncStatus status, WGPUComputePipeline pipeline, WGPUStringView message,
                        void *u1, void *u2) {
  (void)u2;
  (void)message;
  async_rec *a = u1;
  a->status = status;
  a->object = pipeline;
  atomic_fetch_add(&a->calls, 1);
  atomic_store(&a->done, true);
}

static void op_pipeline(rd *r) {
  if (g_npipelines >= MAX_PIPELINES) return;
  g_npipelines++;
  WGPUDevice d = pick_device(r);
  WGPUConstantEntry c[2] = {{.nextInChain = NULL, .key = WP_STR(k_keys[u8(r) % WP_COUNT(k_keys)]),
                             .value = k_values[u8(r) % WP_COUNT(k_values)]},
                            {.nextInChain = NULL, .key = WP_STR(k_keys[u8(r) % WP_COUNT(k_keys)]),
                             .value = k_values[u8(r) % WP_COUNT(k_values)]}};
  if (one_in(r, 16)) c[0].nextInChain = chain(r);
  WGPUComputePipelineDescriptor pd = {.nextInChain = chain(r), .label = label(r)};
  pd.layout = one_in(r, 2) ? NULL : pick(r, K_PL);
  pd.compute.nextInChain = one_in(r, 8) ? chain(r) : NULL;
  pd.compute.module = pick(r, K_SHD);
  uint8_t eb = u8(r) % 8;
  pd.compute.entryPoint = eb < 2   ? (WGPUStringView){NULL, WGPU_STRLEN}
                          : eb < 4 ? sv_exact(k_entries[u8(r) % WP_COUNT(k_entries)])
                                   : WP_STR(k_entries[u8(r) % WP_COUNT(k_entries)]);
  pd.compute.constantCount = sane(r) ? 0 : u8(r) % 3;
  if (one_in(r, 2)) c[0].key = sv_exact(k_keys[u8(r) % WP_COUNT(k_keys)]);
  /* Names with a NUL inside their explicit length (never a valid one). */
  if (one_in(r, 8)) c[0].key = (WGPUStringView){"k\0wg", 4};
  if (eb == 7 && one_in(r, 2)) pd.compute.entryPoint = (WGPUStringView){"main\0other", 10};
  pd.compute.constants = pd.compute.constantCount ? exact(c, sizeof c[0] * pd.compute.constantCount) : NULL;
  bool async = one_in(r, 3);
  char what[160];
  int eplen = wp_sv_len(pd.compute.entryPoint);
  snprintf(what, sizeof what, "CreateComputePipeline%s(module %p, layout %p, entry '%.*s', %zu constants)",
           async ? "Async" : "", (void *)pd.compute.module, (void *)pd.layout, eplen < 16 ? eplen : 16,
           pd.compute.entryPoint.data ? pd.compute.entryPoint.data : "", pd.compute.constantCount);
  op_begin();
  WGPUComputePipeline p = NULL;
  async_rec *a = NULL;
  if (async) {
    a = calloc(1, sizeof *a);
    if (!a) exit(1);
    WGPUCreateComputePipelineAsyncCallbackInfo ci = {
        .mode = (WGPUCallbackMode)(1 + u8(r) % 3), .callback = on_pipeline, .userdata1 = a};
    WGPUFutureWaitInfo wi = {.future = wgpuDeviceCreateComputePipelineAsync(d, &pd, ci)};
    if (d == g_dev) {
      WGPUWaitStatus ws = wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS);
      if (ws != WGPUWaitStatus_Success || !wi.completed || !atomic_load(&a->done))
        oracle_fail("CreateComputePipelineAsync: its future did not complete (wait status %u)", ws);
      if (atomic_load(&a->calls) != 1) oracle_fail("CreateComputePipelineAsync: callback ran %d times", a->calls);
      p = a->object;
      if ((a->status == WGPUCreatePipelineAsyncStatus_Success) != (p != NULL))
        oracle_fail("CreateComputePipelineAsync: status %u with pipeline %p", a->status, (void *)p);
    }
  } else {
    p = wgpuDeviceCreateComputePipeline(d, &pd);
  }
  unsigned e = op_end(what);
  if (async && d == g_dev) {
    free(a);
    if (e) oracle_fail("CreateComputePipelineAsync reported its error to a scope as well as to its callback");
    e = p ? 0 : E_VAL;
  }
  if (!async) expect_object(d, p, "CreateComputePipeline");
  if (d != g_dev && p) {
    wgpuComputePipelineRelease(p);
    return;
  }
  if (!add_obj(K_PIPE, p, e != 0) && p) wgpuComputePipelineRelease(p);
}

static void op_get_bgl(rd *r) {
  WGPUComputePipeline p = pick(r, K_PIPE);
  uint32_t idx = (uint32_t)(sane(r) ? u8(r) % 2 : PICK(r, k_small, 0) - 1);
  char what[96];
  snprintf(what, sizeof what, "ComputePipelineGetBindGroupLayout(%p, %u)", (void *)p, idx);
  op_begin();
  WGPUBindGroupLayout l = wgpuComputePipelineGetBindGroupLayout(p, idx);
  unsigned e = op_end(what);
  obj *po = find_obj(p);
  if (po && po->kind == K_PIPE && !l) oracle_fail("GetBindGroupLayout of a live pipeline returned NULL");
  obj *lo = po && po->kind == K_PIPE ? add_obj(K_BGL, l, e != 0) : NULL;
  if (lo) lo->of_pipeline = true;
  else if (l) wgpuBindGroupLayoutRelease(l);
}

static void op_bind_group(rd *r) {
  WGPUDevice d = pick_device(r);
  WGPUBindGroupEntry e[6];
  memset(e, 0, sizeof e);
  size_t n = sane(r) ? 1 + u8(r) % 3 : u8(r) % 7;
  for (size_t i = 0; i < n; i++) {
    e[i].nextInChain = one_in(r, 32) ? chain(r) : NULL;
    e[i].binding = sane(r) ? (uint32_t)i : (uint32_t)PICK(r, k_small, 0) - 1;
    uint8_t what = u8(r) % (g_sane ? 3 : 5);
    if (what == 0 || what == 3) {
      e[i].buffer = pick(r, K_BUF);
      e[i].offset = sane(r) ? 0 : PICK(r, k_offsets, 1);
      e[i].size = sane(r) ? WGPU_WHOLE_SIZE : PICK(r, k_sizes, 6);
    }
    if (what == 1 || what == 4) e[i].textureView = pick(r, K_VIEW);
    if (what == 2 || what == 4) e[i].sampler = pick(r, K_SMP);
  }
  WGPUBindGroupDescriptor gd = {.nextInChain = chain(r), .label = label(r), .layout = pick(r, K_BGL),
                                .entryCount = n, .entries = n ? exact(e, sizeof e[0] * n) : NULL};
  char what[96];
  snprintf(what, sizeof what, "CreateBindGroup(layout %p, %zu entries)", (void *)gd.layout, n);
  op_begin();
  WGPUBindGroup g = wgpuDeviceCreateBindGroup(d, &gd);
  unsigned err = op_end(what);
  expect_object(d, g, "CreateBindGroup");
  if (d != g_dev && g) {
    wgpuBindGroupRelease(g);
    return;
  }
  if (!add_obj(K_BG, g, err != 0) && g) wgpuBindGroupRelease(g);
}

static void op_query_set(rd *r) {
  WGPUDevice d = pick_device(r);
  static const uint64_t types[] = {WGPUQueryType_Occlusion, WGPUQueryType_Timestamp, 0, 3, 0x7fffffff};
  WGPUQuerySetDescriptor qd = {.nextInChain = chain(r), .label = label(r)};
  qd.type = (WGPUQueryType)PICK(r, types, g_has_timestamps ? 2 : 1);
  qd.count = (uint32_t)PICK(r, k_small, 5);
  char what[96];
  snprintf(what, sizeof what, "CreateQuerySet(type %u, count %u)", qd.type, qd.count);
  op_begin();
  WGPUQuerySet q = wgpuDeviceCreateQuerySet(d, &qd);
  if (q) {
    wgpuQuerySetGetCount(q);
    wgpuQuerySetGetType(q);
  }
  unsigned e = op_end(what);
  expect_object(d, q, "CreateQuerySet");
  if (d != g_dev && q) {
    wgpuQuerySetRelease(q);
    return;
  }
  if (!add_obj(K_QS, q, e != 0) && q) wgpuQuerySetRelease(q);
}

/* ---- ops: encoding ----------------------------------------------------------- */

static void copy_texture_info(rd *r, WGPUTexelCopyTextureInfo *t) {
  t->texture = pick(r, K_TEX);
  t->mipLevel = sane(r) ? 0 : u8(r) % 4;
  t->origin.x = sane(r) ? 0 : (uint32_t)PICK(r, k_small, 1) - 1;
  t->origin.y = sane(r) ? 0 : u8(r) % 8;
  t->origin.z = sane(r) ? 0 : u8(r) % 3;
  t->aspect = (WGPUTextureAspect)(sane(r) ? 0 : u8(r) % 5);
}

static void copy_buffer_info(rd *r, WGPUTexelCopyBufferInfo *b) {
  static const uint64_t bprs[] = {256, 512, 0, 16, 255, 1024, UINT32_MAX, WGPU_COPY_STRIDE_UNDEFINED};
  b->buffer = pick(r, K_BUF);
  b->layout.offset = sane(r) ? 0 : PICK(r, k_offsets, 1);
  b->layout.bytesPerRow = (uint32_t)PICK(r, bprs, 2);
  b->layout.rowsPerImage = one_in(r, 2) ? WGPU_COPY_STRIDE_UNDEFINED : (uint32_t)PICK(r, k_small, 1);
}

static void extent(rd *r, WGPUExtent3D *e) {
  static const uint64_t ext[] = {1, 4, 2, 0, 3, 16, 64, 65, 8192, UINT32_MAX};
  e->width = (uint32_t)PICK(r, ext, 3);
  e->height = (uint32_t)PICK(r, ext, 3);
  e->depthOrArrayLayers = sane(r) ? 1 : (uint32_t)PICK(r, ext, 1);
}

static void pass_commands(rd *r, WGPUComputePassEncoder pass, char *log, size_t cap) {
  int n = 1 + u8(r) % 6;
  size_t at = strlen(log);
  for (int i = 0; i < n && more(r); i++) {
    uint8_t c = u8(r) % 10;
    if (at < cap) at += (size_t)snprintf(log + at, cap - at, " p%u", c);
    switch (c) {
    case 0:
    case 1: wgpuComputePassEncoderSetPipeline(pass, pick(r, K_PIPE)); break;
    case 2:
    case 3: {
      uint32_t dyn[4] = {0, 256, 4, (uint32_t)PICK(r, k_offsets, 0)};
      size_t nd = sane(r) ? 0 : u8(r) % 5;
      uint32_t idx = sane(r) ? u8(r) % 2 : (uint32_t)PICK(r, k_small, 1) - 1;
      wgpuComputePassEncoderSetBindGroup(pass, idx, pick(r, K_BG), nd, nd ? exact(dyn, sizeof dyn[0] * nd) : NULL);
      break;
    }
    case 4:
    case 5:
      wgpuComputePassEncoderDispatchWorkgroups(pass, (uint32_t)PICK(r, k_groups, 4), (uint32_t)PICK(r, k_groups, 2),
                                               (uint32_t)PICK(r, k_groups, 2));
      break;
    case 6: wgpuComputePassEncoderDispatchWorkgroupsIndirect(pass, pick(r, K_BUF), PICK(r, k_offsets, 1)); break;
    case 7: wgpuComputePassEncoderWriteTimestamp(pass, pick(r, K_QS), u8(r) % 4); break;
    case 8:
      wgpuComputePassEncoderPushDebugGroup(pass, label(r));
      wgpuComputePassEncoderInsertDebugMarker(pass, label(r));
      if (!one_in(r, 4)) wgpuComputePassEncoderPopDebugGroup(pass);
      break;
    default: wgpuComputePassEncoderEnd(pass); break;
    }
  }
}

static void op_encode(rd *r) {
  WGPUDevice d = pick_device(r);
  WGPUCommandEncoderDescriptor ed = {.nextInChain = chain(r), .label = label(r)};
  char what[320];
  int len = snprintf(what, sizeof what, "encode(%s):", d == g_dev ? "dev" : d == g_dev2 ? "dev2" : d ? "garbage" : "NULL");
  op_begin();
  WGPUCommandEncoder e = wgpuDeviceCreateCommandEncoder(d, one_in(r, 4) ? NULL : &ed);
  if (d == g_dev && !e) oracle_fail("CreateCommandEncoder on the live device returned NULL");
  int n = 1 + u8(r) % 8;
  for (int i = 0; i < n && more(r); i++) {
    uint8_t c = u8(r) % 12;
    if (len < (int)sizeof what) len += snprintf(what + len, sizeof what - (size_t)len, " %u", c);
    switch (c) {
    case 0:
    case 1:
      wgpuCommandEncoderCopyBufferToBuffer(e, pick(r, K_BUF), PICK(r, k_offsets, 2), pick(r, K_BUF),
                                           PICK(r, k_offsets, 2), PICK(r, k_sizes, 6));
      break;
    case 2: wgpuCommandEncoderClearBuffer(e, pick(r, K_BUF), PICK(r, k_offsets, 2), PICK(r, k_offsets, 1)); break;
    case 3: {
      WGPUTexelCopyBufferInfo b;
      WGPUTexelCopyTextureInfo t;
      WGPUExtent3D x;
      copy_buffer_info(r, &b);
      copy_texture_info(r, &t);
      extent(r, &x);
      if (one_in(r, 2)) wgpuCommandEncoderCopyBufferToTexture(e, one_in(r, 32) ? NULL : &b, &t, &x);
      else wgpuCommandEncoderCopyTextureToBuffer(e, &t, one_in(r, 32) ? NULL : &b, &x);
      break;
    }
    case 4: {
      WGPUTexelCopyTextureInfo a, b;
      WGPUExtent3D x;
      copy_texture_info(r, &a);
      copy_texture_info(r, &b);
      extent(r, &x);
      wgpuCommandEncoderCopyTextureToTexture(e, &a, &b, one_in(r, 32) ? NULL : &x);
      break;
    }
    case 5:
      wgpuCommandEncoderResolveQuerySet(e, pick(r, K_QS), (uint32_t)PICK(r, k_small, 1) - 1,
                                        (uint32_t)PICK(r, k_small, 1), pick(r, K_BUF), PICK(r, k_offsets, 2));
      break;
    case 6: wgpuCommandEncoderWriteTimestamp(e, pick(r, K_QS), u8(r) % 4); break;
    case 7:
    case 8:
    case 9: {
      WGPUPassTimestampWrites tw = {.querySet = pick(r, K_QS), .beginningOfPassWriteIndex = u8(r) % 4,
                                    .endOfPassWriteIndex = u8(r) % 4};
      if (one_in(r, 4)) tw.beginningOfPassWriteIndex = WGPU_QUERY_SET_INDEX_UNDEFINED;
      WGPUComputePassDescriptor pd = {.nextInChain = one_in(r, 16) ? chain(r) : NULL, .label = label(r),
                                      .timestampWrites = one_in(r, 8) ? &tw : NULL};
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(e, one_in(r, 4) ? NULL : &pd);
      pass_commands(r, pass, what, sizeof what);
      len = (int)strlen(what);
      if (!one_in(r, 6)) wgpuComputePassEncoderEnd(pass);
      if (one_in(r, 3) || !add_obj(K_PASS, pass, false)) wgpuComputePassEncoderRelease(pass);
      break;
    }
    case 10:
      wgpuCommandEncoderPushDebugGroup(e, label(r));
      wgpuCommandEncoderInsertDebugMarker(e, label(r));
      if (!one_in(r, 4)) wgpuCommandEncoderPopDebugGroup(e);
      break;
    default: wgpuCommandEncoderSetLabel(e, label(r)); break;
    }
  }
  uint8_t fin = u8(r) % 8;
  WGPUCommandBuffer cb = NULL;
  if (fin != 0) cb = wgpuCommandEncoderFinish(e, one_in(r, 2) ? NULL : &(WGPUCommandBufferDescriptor){.label = label(r)});
  if (d == g_dev && fin != 0 && !cb) oracle_fail("Finish of a live encoder returned NULL");
  if (fin == 1) {
    WGPUCommandBuffer cb2 = wgpuCommandEncoderFinish(e, NULL);
    if (d == g_dev && !cb2) oracle_fail("a second Finish returned NULL");
    if (cb2) wgpuCommandBufferRelease(cb2);
  }
  uint8_t sub = u8(r) % 6;
  if (cb && sub != 0) wgpuQueueSubmit(g_q, 1, &cb);
  if (cb && sub == 1) wgpuQueueSubmit(g_q, 1, &cb);
  snprintf(what + strlen(what), sizeof what - strlen(what), " finish %u submit %u", fin, sub);
  op_end(what);
  if (cb && (sub >= 4 || !add_obj(K_CMD, cb, false))) wgpuCommandBufferRelease(cb);
  if (fin == 0 && d == g_dev && e && add_obj(K_ENC, e, false)) return; /* kept open for later ops */
  if (e) wgpuCommandEncoderRelease(e);
}

/* An encoder, pass or command buffer of earlier ops, used again. */
static void op_reuse(rd *r) {
  uint8_t c = u8(r) % 4;
  char what[96];
  snprintf(what, sizeof what, "reuse %u", c);
  op_begin();
  if (c == 0) {
    WGPUCommandEncoder e = pick(r, K_ENC);
    wgpuCommandEncoderClearBuffer(e, pick(r, K_BUF), 0, 4);
    WGPUCommandBuffer cb = wgpuCommandEncoderFinish(e, NULL);
    if (cb && one_in(r, 2)) wgpuQueueSubmit(g_q, 1, &cb);
    if (cb) wgpuCommandBufferRelease(cb);
  } else if (c == 1) {
    WGPUComputePassEncoder p = pick(r, K_PASS);
    pass_commands(r, p, what, sizeof what);
  } else {
    WGPUCommandBuffer cbs[3];
    size_t n = 1 + u8(r) % 3;
    for (size_t i = 0; i < n; i++) cbs[i] = pick(r, K_CMD);
    wgpuQueueSubmit(g_q, one_in(r, 16) ? 0 : n, exact(cbs, sizeof cbs[0] * n));
  }
  op_end(what);
}

/* ---- ops: the queue and maps -------------------------------------------------- */

static void op_write_buffer(rd *r) {
  WGPUBuffer b = pick(r, K_BUF);
  uint64_t off = PICK(r, k_offsets, 2);
  uint64_t size = PICK(r, k_sizes, 6);
  if (size > DATA_LEN) size = size % DATA_LEN; /* read from g_data */
  const void *data = one_in(r, 32) ? NULL : size <= 65536 ? exact(g_data, (size_t)size) : g_data;
  char what[128];
  snprintf(what, sizeof what, "QueueWriteBuffer(%p, %llu, %s, %llu)", (void *)b, (unsigned long long)off,
           data ? "data" : "NULL", (unsigned long long)size);
  op_begin();
  wgpuQueueWriteBuffer(one_in(r, 64) ? g_q2 : g_q, b, off, data, (size_t)size);
  op_end(what);
}

static void op_write_texture(rd *r) {
  WGPUTexelCopyTextureInfo t;
  WGPUTexelCopyBufferInfo b;
  WGPUExtent3D x;
  copy_texture_info(r, &t);
  copy_buffer_info(r, &b);
  extent(r, &x);
  if (!sane(r)) b.layout.bytesPerRow = (uint32_t)PICK(r, k_small, 0);
  uint64_t size = PICK(r, k_sizes, 6);
  if (size > DATA_LEN) size %= DATA_LEN;
  char what[160];
  snprintf(what, sizeof what, "QueueWriteTexture(%p mip %u @%u,%u,%u, %ux%ux%u, off %llu bpr %u rows %u, %llu bytes)",
           (void *)t.texture, t.mipLevel, t.origin.x, t.origin.y, t.origin.z, x.width, x.height,
           x.depthOrArrayLayers, (unsigned long long)b.layout.offset, b.layout.bytesPerRow, b.layout.rowsPerImage,
           (unsigned long long)size);
  op_begin();
  const void *data = size <= 65536 ? exact(g_data, (size_t)size) : g_data;
  wgpuQueueWriteTexture(g_q, one_in(r, 64) ? NULL : &t, data, (size_t)size, &b.layout, &x);
  op_end(what);
}

typedef struct map_rec {
  atomic_bool done;
  atomic_int calls;
  uint32_t status;
} map_rec;

static void on_map(WGPUMapAsyncStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)u2;
  (void)message;
  map_rec *m = u1;
  m->status = status;
  atomic_fetch_add(&m->calls, 1);
  atomic_store(&m->done, true);
}

static void on_work_done(WGPUQueueWorkDoneStatus status, WGPUStringView message, void *u1, void *u2) {
  (void)message;
  (void)u2;
  on_map((WGPUMapAsyncStatus)status, (WGPUStringView){NULL, 0}, u1, NULL);
}

static void keep_future(WGPUFuture f, void *rec) {
  if (!f.id || g_nfuts == MAX_FUTS) return; /* a record not kept is leaked, never freed under a callback */
  g_futs[g_nfuts++] = (fut){f, rec};
}

/* Writes (a writable mapping) or reads every byte of a mapped range. */
static void fill_mapped(obj *o, void *p, uint64_t off, uint64_t size) {
  if (!p || !size) return;
  if (o && o->mapped && (off < o->map_off || size > o->map_size || off - o->map_off > o->map_size - size))
    oracle_fail("a mapped range [%llu, +%llu) outside the mapping [%llu, +%llu)", (unsigned long long)off,
                (unsigned long long)size, (unsigned long long)o->map_off, (unsigned long long)o->map_size);
  memset(p, 0xa5, (size_t)size);
}

static void read_mapped(obj *o, const void *p, uint64_t off, uint64_t size) {
  if (!p || !size) return;
  if (o && o->mapped && (off < o->map_off || size > o->map_size || off - o->map_off > o->map_size - size))
    oracle_fail("a const mapped range [%llu, +%llu) outside the mapping [%llu, +%llu)", (unsigned long long)off,
                (unsigned long long)size, (unsigned long long)o->map_off, (unsigned long long)o->map_size);
  volatile uint8_t sum = 0;
  const uint8_t *c = p;
  for (uint64_t i = 0; i < size; i++) sum ^= c[i];
  (void)sum;
}

static void op_map(rd *r) {
  WGPUBuffer b = pick(r, K_BUF);
  obj *o = find_obj(b);
  static const uint64_t modes[] = {WGPUMapMode_Read, WGPUMapMode_Write, 0, 3, 0x100};
  WGPUMapMode mode = PICK(r, modes, 2);
  uint64_t off = sane(r) ? 0 : PICK(r, k_offsets, 1);
  uint64_t size = one_in(r, 4) ? WGPU_WHOLE_MAP_SIZE : PICK(r, k_sizes, 6);
  WGPUCallbackMode cm = (WGPUCallbackMode)(1 + u8(r) % 3);
  bool wait = !one_in(r, 4);
  map_rec *m = calloc(1, sizeof *m);
  if (!m) exit(1);
  char what[160];
  snprintf(what, sizeof what, "MapAsync(%p, mode %llu, %llu, %llu, cb %u, %s)", (void *)b, (unsigned long long)mode,
           (unsigned long long)off, (unsigned long long)size, cm, wait ? "wait" : "no wait");
  op_begin();
  WGPUBufferMapCallbackInfo ci = {.mode = cm, .callback = on_map, .userdata1 = m};
  WGPUFuture f = wgpuBufferMapAsync(b, mode, (size_t)off, (size_t)size, ci);
  if (o) o->maybe_busy = true;
  /* A map left pending may be in place already (the layer maps eagerly:
   * misuse case state_misuse): its ranges are not checked against ours. */
  if (o && !wait && f.id) o->map_unknown = true;
  bool ok = false;
  if (wait && f.id) {
    WGPUFutureWaitInfo wi = {.future = f};
    WGPUWaitStatus ws = wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS);
    if (ws != WGPUWaitStatus_Success || !wi.completed || !atomic_load(&m->done))
      oracle_fail("MapAsync: its future did not complete (wait status %u)", ws);
    ok = m->status == WGPUMapAsyncStatus_Success;
    tracef("  (%s: map status %u, buffer %s, mapped %d mode %llu [%llu, +%llu))", what, m->status,
           o ? "tracked" : "not tracked", o ? o->mapped : -1, o ? (unsigned long long)o->map_mode : 0ull,
           o ? (unsigned long long)o->map_off : 0ull, o ? (unsigned long long)o->map_size : 0ull);
    if (ok && o) {
      o->mapped = true;
      o->map_off = off;
      o->map_size = size == WGPU_WHOLE_MAP_SIZE ? o->size - off : size;
      o->map_mode = mode;
    }
  }
  /* Ranges of the mapping (or of none): touched when given. */
  int n = u8(r) % 4;
  for (int i = 0; i < n; i++) {
    uint64_t ro = sane(r) ? off : PICK(r, k_offsets, 1);
    uint64_t rs = one_in(r, 4) ? WGPU_WHOLE_MAP_SIZE : sane(r) ? 4 : PICK(r, k_sizes, 6);
    bool writable = one_in(r, 2);
    /* WHOLE: a known deviation (misuse out_of_range); a map left pending
     * earlier may have mapped the buffer since */
    obj *check = o && rs != WGPU_WHOLE_MAP_SIZE && !o->map_unknown ? o : NULL;
    uint64_t touch = rs == WGPU_WHOLE_MAP_SIZE ? 0 : rs;
    if (writable) {
      void *p = wgpuBufferGetMappedRange(b, (size_t)ro, (size_t)rs);
      tracef("  (GetMappedRange(%llu, %llu) -> %p)", (unsigned long long)ro, (unsigned long long)rs, p);
      if (p && !(o && o->mapped && (o->map_mode & WGPUMapMode_Write)) && check)
        oracle_fail("GetMappedRange gave a writable range of a buffer not mapped for writing");
      fill_mapped(check, p, ro, touch);
    } else {
      const void *p = wgpuBufferGetConstMappedRange(b, (size_t)ro, (size_t)rs);
      tracef("  (GetConstMappedRange(%llu, %llu) -> %p)", (unsigned long long)ro, (unsigned long long)rs, p);
      if (p && !(o && o->mapped) && check) oracle_fail("GetConstMappedRange gave a range of an unmapped buffer");
      read_mapped(check, p, ro, touch);
    }
    if (one_in(r, 4) && rs <= 4096) {
      if (one_in(r, 2)) wgpuBufferWriteMappedRange(b, (size_t)ro, g_data, (size_t)rs);
      else wgpuBufferReadMappedRange(b, (size_t)ro, g_data + OBJ_CAP, (size_t)rs);
    }
  }
  if (!one_in(r, 4)) {
    wgpuBufferUnmap(b);
    if (o) o->mapped = o->map_unknown = false;
  }
  op_end(what);
  if (ok || !wait) keep_future(f, m);
  else if (f.id && atomic_load(&m->done)) free(m);
}

static void op_destroy_release(rd *r) {
  uint8_t c = u8(r) % 6;
  obj *o = live_of(r, c == 0 ? K_BUF : c == 1 ? K_TEX : c == 2 ? K_QS : -1);
  void *h = o ? o->h : pick(r, c == 0 ? K_BUF : c == 1 ? K_TEX : K_QS);
  char what[96];
  snprintf(what, sizeof what, "%s %s %p", c <= 2 ? "Destroy" : "Release", o ? k_kind[o->kind] : "(picked)", h);
  op_begin();
  if (c == 0) wgpuBufferDestroy(h);
  else if (c == 1) wgpuTextureDestroy(h);
  else if (c == 2) wgpuQuerySetDestroy(h);
  else if (o) {
    switch (o->kind) {
    case K_BUF: wgpuBufferRelease(h); break;
    case K_TEX: wgpuTextureRelease(h); break;
    case K_VIEW: wgpuTextureViewRelease(h); break;
    case K_SMP: wgpuSamplerRelease(h); break;
    case K_SHD: wgpuShaderModuleRelease(h); break;
    case K_BGL: wgpuBindGroupLayoutRelease(h); break;
    case K_PL: wgpuPipelineLayoutRelease(h); break;
    case K_PIPE: wgpuComputePipelineRelease(h); break;
    case K_BG: wgpuBindGroupRelease(h); break;
    case K_QS: wgpuQuerySetRelease(h); break;
    case K_ENC: wgpuCommandEncoderRelease(h); break;
    case K_PASS: wgpuComputePassEncoderRelease(h); break;
    default: wgpuCommandBufferRelease(h); break;
    }
  } else if (h) {
    wgpuBufferRelease(h); /* a handle of any state, released once more */
  }
  op_end(what);
  /* A destroy of another kind (a buffer given to wgpuTextureDestroy) is
   * refused and leaves the object as it was, mapped or not. */
  obj *t = c <= 2 ? find_obj(h) : NULL;
  if (t && t->kind == (c == 0 ? K_BUF : c == 1 ? K_TEX : K_QS)) {
    t->destroyed = true;
    t->mapped = t->map_unknown = false;
  }
  if (c > 2 && o) {
    if (g_nstale < MAX_STALE) g_stale[g_nstale++] = (stale){o->kind, o->h};
    o->h = NULL; /* no longer ours */
  }
}

static void op_misc(rd *r) {
  uint8_t c = u8(r) % 10;
  char what[64];
  snprintf(what, sizeof what, "misc %u", c);
  op_begin();
  switch (c) {
  case 0: {
    WGPUBuffer b = pick(r, K_BUF);
    wgpuBufferGetSize(b);
    wgpuBufferGetUsage(b);
    wgpuBufferGetMapState(b);
    wgpuBufferSetLabel(b, label(r));
    break;
  }
  case 1: {
    WGPUTexture t = pick(r, K_TEX);
    wgpuTextureGetHeight(t);
    wgpuTextureGetDepthOrArrayLayers(t);
    wgpuTextureGetDimension(t);
    wgpuTextureGetSampleCount(t);
    wgpuTextureSetLabel(t, label(r));
    break;
  }
  case 2: {
    obj *o = live_of(r, -1);
    if (!o) break;
    switch (o->kind) { /* an AddRef and a Release: the object lives on */
    case K_BUF: wgpuBufferAddRef(o->h), wgpuBufferRelease(o->h); break;
    case K_TEX: wgpuTextureAddRef(o->h), wgpuTextureRelease(o->h); break;
    case K_BG: wgpuBindGroupAddRef(o->h), wgpuBindGroupRelease(o->h); break;
    case K_PIPE: wgpuComputePipelineAddRef(o->h), wgpuComputePipelineRelease(o->h); break;
    case K_ENC: wgpuCommandEncoderAddRef(o->h), wgpuCommandEncoderRelease(o->h); break;
    default: break;
    }
    break;
  }
  case 3: {
    map_rec *m = calloc(1, sizeof *m);
    if (!m) exit(1);
    WGPUQueueWorkDoneCallbackInfo ci = {.mode = (WGPUCallbackMode)(1 + u8(r) % 3), .callback = on_work_done,
                                        .userdata1 = m};
    keep_future(wgpuQueueOnSubmittedWorkDone(g_q, ci), m);
    break;
  }
  case 4: wgpuInstanceProcessEvents(g_in); break;
  case 5: {
    WGPUShaderModule s = pick(r, K_SHD);
    map_rec *m = calloc(1, sizeof *m);
    if (!m) exit(1);
    WGPUCompilationInfoCallbackInfo ci = {.mode = (WGPUCallbackMode)(1 + u8(r) % 3),
                                          .callback = (WGPUCompilationInfoCallback)(void (*)(void))NULL,
                                          .userdata1 = m};
    WGPUFuture f = wgpuShaderModuleGetCompilationInfo(s, ci);
    if (f.id) {
      WGPUFutureWaitInfo wi = {.future = f};
      if (wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS) != WGPUWaitStatus_Success || !wi.completed)
        oracle_fail("GetCompilationInfo: its future did not complete");
    }
    free(m);
    break;
  }
  case 6: { /* scopes of the program's own, balanced */
    wgpuDevicePushErrorScope(g_dev, (WGPUErrorFilter)(1 + u8(r) % 3));
    if (one_in(r, 2)) wgpuQueueWriteBuffer(g_q, pick(r, K_BUF), PICK(r, k_offsets, 2), g_data, 4);
    pop_rec *p = calloc(1, sizeof *p);
    if (!p) exit(1);
    WGPUPopErrorScopeCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_pop, .userdata1 = p};
    WGPUFutureWaitInfo wi = {.future = wgpuDevicePopErrorScope(g_dev, ci)};
    if (wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS) != WGPUWaitStatus_Success || p->status != WGPUPopErrorScopeStatus_Success)
      oracle_fail("a balanced PopErrorScope failed");
    free(p);
    break;
  }
  case 7: {
    WGPULimits l = {0};
    if (wgpuDeviceGetLimits(g_dev, &l) != WGPUStatus_Success) oracle_fail("GetLimits failed");
    WGPUSupportedFeatures f = {0};
    wgpuDeviceGetFeatures(g_dev, &f);
    wgpuSupportedFeaturesFreeMembers(f);
    break;
  }
  case 8: {
    WGPUQuerySet q = pick(r, K_QS);
    wgpuQuerySetGetCount(q);
    wgpuQuerySetGetType(q);
    WGPUComputePipeline p = pick(r, K_PIPE);
    wgpuComputePipelineSetLabel(p, label(r));
    break;
  }
  default:
    /* a loss unlost recovers from: the program must hear nothing */
    if (!g_no_loss && !g_lost_this_input && one_in(r, 4)) {
      g_lost_this_input = true;
      g_losses++;
      wgpuDeviceForceLoss(g_dev, WGPUDeviceLostReason_Unknown, WP_STR("fuzz_webgpu"));
    }
    break;
  }
  op_end(what);
}

/* ---- the end of an input --------------------------------------------------- */

/* Each buffer and texture used once more: an error exactly when its create
 * was one. */
static void probe_objects(void) {
  for (int i = 0; i < g_nobj; i++) {
    obj *o = &g_objs[i];
    if (!o->h || o->destroyed || o->maybe_busy) continue;
    char what[96];
    if (o->kind == K_BUF && (o->usage & WGPUBufferUsage_CopyDst) && o->size >= 4 && o->usage < 0x400) {
      snprintf(what, sizeof what, "probe: QueueWriteBuffer(buffer %p, created with%s an error)", o->h,
               o->error ? "" : "out");
      op_begin();
      wgpuQueueWriteBuffer(g_q, o->h, 0, g_data, 4);
      unsigned e = op_end(what);
      if (!e != !o->error)
        oracle_fail("%s: %s", what, o->error ? "an error buffer wrote without an error" : "a valid buffer refused the write");
    } else if (o->kind == K_TEX) {
      snprintf(what, sizeof what, "probe: TextureCreateView(texture %p, created with%s an error)", o->h,
               o->error ? "" : "out");
      op_begin();
      WGPUTextureView v = wgpuTextureCreateView(o->h, NULL);
      unsigned e = op_end(what);
      if (v) wgpuTextureViewRelease(v);
      if (!e != !o->error)
        oracle_fail("%s: %s", what, o->error ? "a view of an error texture without an error" : "a valid texture refused its default view");
    } else if (o->kind == K_BGL && !o->of_pipeline && (g_known || !o->error)) {
      /* (a pipeline's layout in a pipeline layout is refused, with a clear
       * error: the engine rebuilds pipeline layouts before pipelines) */
      snprintf(what, sizeof what, "probe: CreatePipelineLayout(layout %p, created with%s an error)", o->h,
               o->error ? "" : "out");
      op_begin();
      WGPUBindGroupLayout l = o->h;
      WGPUPipelineLayoutDescriptor pd = {.bindGroupLayoutCount = 1, .bindGroupLayouts = &l};
      WGPUPipelineLayout p = wgpuDeviceCreatePipelineLayout(g_dev, &pd);
      unsigned e = op_end(what);
      if (p) wgpuPipelineLayoutRelease(p);
      if (!e != !o->error)
        oracle_fail("%s: %s", what, o->error ? "a pipeline layout of an error layout without an error" : "a valid layout refused");
    }
  }
}

static void release_obj(obj *o) {
  switch (o->kind) {
  case K_BUF: wgpuBufferRelease(o->h); break;
  case K_TEX: wgpuTextureRelease(o->h); break;
  case K_VIEW: wgpuTextureViewRelease(o->h); break;
  case K_SMP: wgpuSamplerRelease(o->h); break;
  case K_SHD: wgpuShaderModuleRelease(o->h); break;
  case K_BGL: wgpuBindGroupLayoutRelease(o->h); break;
  case K_PL: wgpuPipelineLayoutRelease(o->h); break;
  case K_PIPE: wgpuComputePipelineRelease(o->h); break;
  case K_BG: wgpuBindGroupRelease(o->h); break;
  case K_QS: wgpuQuerySetRelease(o->h); break;
  case K_ENC: wgpuCommandEncoderRelease(o->h); break;
  case K_PASS: wgpuComputePassEncoderRelease(o->h); break;
  default: wgpuCommandBufferRelease(o->h); break;
  }
  o->h = NULL;
}

/* Every future kept completes, its callback once. */
static void settle_futures(void) {
  for (int i = 0; i < g_nfuts; i++) {
    map_rec *m = (map_rec *)g_futs[i].rec;
    WGPUFutureWaitInfo wi = {.future = g_futs[i].f};
    WGPUWaitStatus ws = wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS);
    if (ws != WGPUWaitStatus_Success || !wi.completed)
      oracle_fail("a future (id %llu) never completed (wait status %u)", (unsigned long long)g_futs[i].f.id, ws);
    if (atomic_load(&m->calls) != 1) oracle_fail("a callback ran %d times", atomic_load(&m->calls));
    free(m);
  }
  g_nfuts = 0;
}

/* A dispatch on fresh buffers with the persistent pipeline, checked against
 * the CPU. */
static void known_good(uint32_t seed) {
  uint32_t in[256], got[256];
  for (int i = 0; i < 256; i++) in[i] = wp_rand(&seed);
  op_begin();
  WGPUBufferDescriptor bd = {.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
                             .size = sizeof in};
  WGPUBuffer data = wgpuDeviceCreateBuffer(g_dev, &bd);
  WGPUBufferDescriptor rd_ = {.usage = WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, .size = sizeof in};
  WGPUBuffer back = wgpuDeviceCreateBuffer(g_dev, &rd_);
  WGPUBindGroupEntry e = wp_bind_buffer(0, data, 0, sizeof in);
  WGPUBindGroupDescriptor gd = {.layout = g_good_bgl, .entryCount = 1, .entries = &e};
  WGPUBindGroup g = wgpuDeviceCreateBindGroup(g_dev, &gd);
  wgpuQueueWriteBuffer(g_q, data, 0, in, sizeof in);
  WGPUCommandEncoder enc = wgpuDeviceCreateCommandEncoder(g_dev, NULL);
  WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, NULL);
  wgpuComputePassEncoderSetPipeline(pass, g_good_pipeline);
  wgpuComputePassEncoderSetBindGroup(pass, 0, g, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, 4, 1, 1);
  wgpuComputePassEncoderEnd(pass);
  wgpuComputePassEncoderRelease(pass);
  wgpuCommandEncoderCopyBufferToBuffer(enc, data, 0, back, 0, sizeof in);
  WGPUCommandBuffer cb = wgpuCommandEncoderFinish(enc, NULL);
  wgpuQueueSubmit(g_q, 1, &cb);
  wgpuCommandBufferRelease(cb);
  wgpuCommandEncoderRelease(enc);
  map_rec m = {0};
  WGPUBufferMapCallbackInfo ci = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = on_map, .userdata1 = &m};
  WGPUFutureWaitInfo wi = {.future = wgpuBufferMapAsync(back, WGPUMapMode_Read, 0, sizeof in, ci)};
  WGPUWaitStatus ws = wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS);
  if (ws != WGPUWaitStatus_Success || !wi.completed || m.status != WGPUMapAsyncStatus_Success)
    oracle_fail("known-good workload: the map of its result failed (wait %u, status %u)", ws, m.status);
  const uint32_t *p = wgpuBufferGetConstMappedRange(back, 0, sizeof in);
  if (!p) oracle_fail("known-good workload: no mapped range");
  memcpy(got, p, sizeof got);
  wgpuBufferUnmap(back);
  unsigned err = op_end("known-good workload");
  if (err) oracle_fail("known-good workload: an error");
  for (int i = 0; i < 256; i++)
    if (got[i] != in[i] * 3u + 1u)
      oracle_fail("known-good workload: word %d is %u, want %u: the layer was corrupted", i, got[i], in[i] * 3u + 1u);
  wgpuBindGroupRelease(g);
  wgpuBufferRelease(back);
  wgpuBufferRelease(data);
}

static void cleanup(void) {
  for (int i = g_nobj - 1; i >= 0; i--)
    if (g_objs[i].h) release_obj(&g_objs[i]);
  g_nobj = 0;
  g_nstale = 0;
  g_nshaders = g_npipelines = 0;
  wgpuInstanceProcessEvents(g_in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!g_dev) {
    int argc = 0;
    char **argv = NULL;
    LLVMFuzzerInitialize(&argc, &argv);
  }
  g_cur = data;
  g_cur_size = size;
  g_trace_n = 0;
  g_lost_this_input = false;
  rd r = {data, size, 0};
  g_sane = u8(&r) & 1;
  /* A sane input mostly follows the order objects depend on each other. */
  static const uint8_t canonical[] = {0, 0, 1, 2, 3, 4, 5, 6, 7, 9, 9, 11, 11, 12, 12, 13, 14, 11, 15, 16, 17, 18};
  for (int op = 0; op < MAX_OPS && more(&r); op++) {
    uint8_t ob = u8(&r);
    if (g_sane && ob % 4) ob = canonical[op % sizeof canonical];
    g_ops++;
    switch (ob % 20) {
    case 0: op_buffer(&r); break;
    case 1: op_texture(&r); break;
    case 2: op_view(&r); break;
    case 3: op_sampler(&r); break;
    case 4: op_shader(&r); break;
    case 5: op_bgl(&r); break;
    case 6: op_playout(&r); break;
    case 7: op_pipeline(&r); break;
    case 8: op_get_bgl(&r); break;
    case 9: op_bind_group(&r); break;
    case 10: op_query_set(&r); break;
    case 11:
    case 12: op_encode(&r); break;
    case 13: op_write_buffer(&r); break;
    case 14: op_map(&r); break;
    case 15: op_write_texture(&r); break;
    case 16: op_reuse(&r); break;
    case 17: op_destroy_release(&r); break;
    case 18: op_misc(&r); break;
    default: op_buffer(&r); break;
    }
  }
  probe_objects();
  cleanup();
  settle_futures();
  known_good((uint32_t)(g_inputs * 2654435761u) | 1u);
  g_inputs++;
  return 0;
}

static WGPUDevice open_device(const char *name, void *tag) {
  WGPUDeviceDescriptor desc = {0};
  desc.label = WP_STR(name);
  WGPUFeatureName ts = WGPUFeatureName_TimestampQuery;
  if (!tag && wgpuAdapterHasFeature(g_adapter, ts)) {
    desc.requiredFeatureCount = 1;
    desc.requiredFeatures = &ts;
    g_has_timestamps = true;
  }
  desc.deviceLostCallbackInfo = (WGPUDeviceLostCallbackInfo){
      .mode = WGPUCallbackMode_AllowSpontaneous, .callback = on_lost, .userdata1 = tag};
  desc.uncapturedErrorCallbackInfo =
      (WGPUUncapturedErrorCallbackInfo){.callback = on_uncaptured, .userdata1 = tag};
  wp_request *rq = wp_request_new();
  WGPURequestDeviceCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_device, .userdata1 = rq};
  WGPUFutureWaitInfo wi = {.future = wgpuAdapterRequestDevice(g_adapter, &desc, cb)};
  if (wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS) != WGPUWaitStatus_Success || !rq->object) {
    fprintf(stderr, "fuzz_webgpu: no device: %s\n", rq->message);
    exit(1);
  }
  WGPUDevice d = rq->object;
  wp_request_free(rq);
  return d;
}

/* Objects of the second device, given where the first's are expected. */
static void make_foreign(void) {
  WGPUDevice d = g_dev2;
  WGPUBufferDescriptor bd = {.usage = WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst,
                             .size = 256};
  g_foreign[K_BUF] = wgpuDeviceCreateBuffer(d, &bd);
  WGPUTextureDescriptor td = {.usage = WGPUTextureUsage_TextureBinding | WGPUTextureUsage_CopyDst |
                                       WGPUTextureUsage_CopySrc,
                              .dimension = WGPUTextureDimension_2D, .size = {4, 4, 1},
                              .format = WGPUTextureFormat_RGBA8Unorm, .mipLevelCount = 1, .sampleCount = 1};
  g_foreign[K_TEX] = wgpuDeviceCreateTexture(d, &td);
  g_foreign[K_VIEW] = wgpuTextureCreateView(g_foreign[K_TEX], NULL);
  g_foreign[K_SMP] = wgpuDeviceCreateSampler(d, NULL);
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(k_wgsl[0])};
  WGPUShaderModuleDescriptor sd = {.nextInChain = &src.chain};
  g_foreign[K_SHD] = wgpuDeviceCreateShaderModule(d, &sd);
  WGPUBindGroupLayoutEntry le = wp_layout_buffer(0, WGPUBufferBindingType_Storage, false, 0);
  WGPUBindGroupLayoutDescriptor ld = {.entryCount = 1, .entries = &le};
  g_foreign[K_BGL] = wgpuDeviceCreateBindGroupLayout(d, &ld);
  WGPUBindGroupLayout l = g_foreign[K_BGL];
  WGPUPipelineLayoutDescriptor pld = {.bindGroupLayoutCount = 1, .bindGroupLayouts = &l};
  g_foreign[K_PL] = wgpuDeviceCreatePipelineLayout(d, &pld);
  WGPUComputePipelineDescriptor pd = {.layout = g_foreign[K_PL],
                                      .compute = {.module = g_foreign[K_SHD], .entryPoint = WP_STR("main")}};
  g_foreign[K_PIPE] = wgpuDeviceCreateComputePipeline(d, &pd);
  WGPUBindGroupEntry ge = wp_bind_buffer(0, g_foreign[K_BUF], 0, 256);
  WGPUBindGroupDescriptor gd = {.layout = l, .entryCount = 1, .entries = &ge};
  g_foreign[K_BG] = wgpuDeviceCreateBindGroup(d, &gd);
  WGPUQuerySetDescriptor qd = {.type = WGPUQueryType_Occlusion, .count = 4};
  g_foreign[K_QS] = wgpuDeviceCreateQuerySet(d, &qd);
  g_foreign[K_ENC] = wgpuDeviceCreateCommandEncoder(d, NULL);
  g_foreign[K_CMD] = wgpuCommandEncoderFinish(wgpuDeviceCreateCommandEncoder(d, NULL), NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (g_dev) return 0;
  if (!getenv("XDG_RUNTIME_DIR")) setenv("XDG_RUNTIME_DIR", "/tmp", 0);
  if (!getenv("UNLOST_LOG")) setenv("UNLOST_LOG", "none", 0);
  const char *known = getenv("FUZZ_WEBGPU_KNOWN");
  g_known = known && *known == '1';
  g_data = malloc(DATA_LEN);
  if (!g_data) exit(1);
  for (size_t i = 0; i < DATA_LEN; i++) g_data[i] = (uint8_t)(i * 131u + 7u);
  g_chain[0].c.sType = STYPE_UNKNOWN;
  g_chain[1].c.sType = WGPUSType_ShaderSourceWGSL; /* its code: NULL */
  g_chain[2].c.sType = WGPUSType_DawnTogglesDescriptor;
  g_chain[3].c.sType = WGPUSType_ShaderSourceSPIRV;
  g_chain[4].c.sType = STYPE_UNKNOWN + 1;
  g_chain[4].c.next = &g_chain[0].c;
  /* Cycles, which the implementation refuses (a duplicate sType) and the
   * layer must walk with a bound: a struct chained to itself, and toggles
   * chained to an unknown struct chained back. */
  g_chain[5].c.sType = STYPE_UNKNOWN + 2;
  g_chain[5].c.next = &g_chain[5].c;
  g_chain[6].c.sType = WGPUSType_DawnTogglesDescriptor;
  g_chain[6].c.next = &g_chain[7].c;
  g_chain[7].c.sType = STYPE_UNKNOWN + 3;
  g_chain[7].c.next = &g_chain[6].c;
  WGPUInstanceDescriptor idesc = {0};
  idesc.capabilities.timedWaitAnyEnable = 1;
  g_in = wgpuCreateInstance(&idesc);
  if (!g_in) {
    fprintf(stderr, "fuzz_webgpu: no instance\n");
    exit(1);
  }
  wp_request *rq = wp_request_new();
  WGPURequestAdapterOptions opt = {.featureLevel = WGPUFeatureLevel_Core};
  WGPURequestAdapterCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_adapter, .userdata1 = rq};
  WGPUFutureWaitInfo wi = {.future = wgpuInstanceRequestAdapter(g_in, &opt, cb)};
  if (wgpuInstanceWaitAny(g_in, 1, &wi, WAIT_NS) != WGPUWaitStatus_Success || !rq->object ||
      rq->status != WGPURequestAdapterStatus_Success) {
    fprintf(stderr, "fuzz_webgpu: skipped: no adapter: %s\n", rq->message);
    exit(WP_SKIP);
  }
  g_adapter = rq->object;
  wp_request_free(rq);
  WGPUAdapterInfo info = {0};
  if (wgpuAdapterGetInfo(g_adapter, &info) == WGPUStatus_Success) {
    bool null_backend = info.backendType == WGPUBackendType_Null;
    wgpuAdapterInfoFreeMembers(info);
    if (null_backend) {
      fprintf(stderr, "fuzz_webgpu: skipped: only the Null backend\n");
      exit(WP_SKIP);
    }
  }
  g_dev = open_device("fuzz", NULL);
  g_dev2 = open_device("foreign", (void *)1);
  g_q = wgpuDeviceGetQueue(g_dev);
  g_q2 = wgpuDeviceGetQueue(g_dev2);
  g_lim = (WGPULimits){0};
  if (wgpuDeviceGetLimits(g_dev, &g_lim) != WGPUStatus_Success) exit(1);
  if (g_lim.maxBufferSize < OBJ_CAP) g_lim.maxBufferSize = OBJ_CAP;
  make_foreign();
  WGPUShaderSourceWGSL src = {.chain = {.sType = WGPUSType_ShaderSourceWGSL}, .code = WP_STR(k_wgsl[0])};
  WGPUShaderModuleDescriptor sd = {.nextInChain = &src.chain};
  g_good_shader = wgpuDeviceCreateShaderModule(g_dev, &sd);
  WGPUBindGroupLayoutEntry le = wp_layout_buffer(0, WGPUBufferBindingType_Storage, false, 0);
  WGPUBindGroupLayoutDescriptor ld = {.entryCount = 1, .entries = &le};
  g_good_bgl = wgpuDeviceCreateBindGroupLayout(g_dev, &ld);
  WGPUPipelineLayoutDescriptor pld = {.bindGroupLayoutCount = 1, .bindGroupLayouts = &g_good_bgl};
  WGPUPipelineLayout pl = wgpuDeviceCreatePipelineLayout(g_dev, &pld);
  WGPUComputePipelineDescriptor pd = {.layout = pl, .compute = {.module = g_good_shader, .entryPoint = WP_STR("main")}};
  g_good_pipeline = wgpuDeviceCreateComputePipeline(g_dev, &pd);
  wgpuPipelineLayoutRelease(pl);
  known_good(1);
  return 0;
}

__attribute__((unused)) static void teardown(void) {
  for (int k = 0; k < K_COUNT; k++) {
    if (!g_foreign[k]) continue;
    obj o = {.kind = k, .h = g_foreign[k]};
    release_obj(&o);
  }
  wgpuComputePipelineRelease(g_good_pipeline);
  wgpuBindGroupLayoutRelease(g_good_bgl);
  wgpuShaderModuleRelease(g_good_shader);
  wgpuQueueRelease(g_q2);
  wgpuQueueRelease(g_q);
  wgpuDeviceRelease(g_dev2);
  wgpuDeviceRelease(g_dev);
  wgpuAdapterRelease(g_adapter);
  wgpuInstanceRelease(g_in);
  g_dev = g_dev2 = NULL;
  free(g_data);
}

#ifndef UL_LIBFUZZER
#include "../fuzz_replay.h"

/* ---- standalone driver: random programs and mutations, bounded time -------- */

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define IN_CAP 1024

static size_t mutate(uint64_t *s, uint8_t *buf, size_t n) {
  static const uint8_t interesting[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7f, 0x80, 0xdf, 0xe0, 0xe8, 0xf4, 0xff};
  int steps = 1 + (int)(fuzz_rnd(s) % 4);
  for (int k = 0; k < steps; k++) {
    switch (fuzz_rnd(s) % 6) {
    case 0:
      if (n) buf[fuzz_rnd(s) % n] ^= (uint8_t)(1u << (fuzz_rnd(s) % 8));
      break;
    case 1:
      if (n) buf[fuzz_rnd(s) % n] = interesting[fuzz_rnd(s) % sizeof interesting];
      break;
    case 2:
      if (n) buf[fuzz_rnd(s) % n] = (uint8_t)fuzz_rnd(s);
      break;
    case 3: {
      size_t add = 1 + fuzz_rnd(s) % 8, at = n ? fuzz_rnd(s) % (n + 1) : 0;
      if (n + add > IN_CAP) break;
      memmove(buf + at + add, buf + at, n - at);
      for (size_t i = 0; i < add; i++) buf[at + i] = (uint8_t)fuzz_rnd(s);
      n += add;
      break;
    }
    case 4:
      if (n > 1) {
        size_t at = fuzz_rnd(s) % n, l = 1 + fuzz_rnd(s) % 8;
        if (at + l > n) l = n - at;
        memmove(buf + at, buf + at + l, n - at - l);
        n -= l;
      }
      break;
    default:
      if (n) n = fuzz_rnd(s) % n + 1;
    }
  }
  return n;
}

static void on_signal(int sig) {
  static const char msg[] = "fuzz_webgpu: fatal signal or hang; input saved to crash-fuzz_webgpu-sig\n";
  int fd = open("crash-fuzz_webgpu-sig", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t w = write(fd, g_cur, g_cur_size);
    (void)w;
    close(fd);
  }
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  if (sig == SIGALRM) {
    print_trace();
    _exit(124);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
static void on_sanitizer_death(void) {
  print_trace();
  save_input("sanitizer report");
}

int main(int argc, char **argv) {
  double seconds = 15;
  uint64_t seed = now_ns();
  bool stats = false;
  signal(SIGSEGV, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGFPE, on_signal);
  signal(SIGILL, on_signal);
  signal(SIGABRT, on_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--trace")) g_trace = true;
    else if (!strcmp(argv[i], "--stats")) stats = true;
    else if (!strcmp(argv[i], "--no-loss")) g_no_loss = true;
    else if (!strcmp(argv[i], "--allow-internal")) g_allow_internal = true;
    else if (argv[i][0] == '-') {
      fprintf(stderr,
              "usage: %s [--seconds N] [--seed N] [--trace] [--stats] [--no-loss] [--allow-internal] [FILE|DIR ...]\n",
              argv[0]);
      return 2;
    }
  }
  int dummy_argc = 0;
  char **dummy_argv = NULL;
  LLVMFuzzerInitialize(&dummy_argc, &dummy_argv);
  /* A hang in one input (a wait that never ends) fails the run. */
  signal(SIGALRM, on_signal);
  alarm((unsigned)seconds + 120);
  uint64_t replayed = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") || !strcmp(argv[i], "--seed")) i++;
    else if (argv[i][0] != '-') replayed += fuzz_replay(argv[i], g_trace);
  }
  printf("fuzz_webgpu: seed %llu, %.0f s, %llu replayed%s\n", (unsigned long long)seed, seconds,
         (unsigned long long)replayed, g_known ? ", known bugs included" : "");
  fflush(stdout);
  uint8_t *buf = malloc(IN_CAP), *keep[16];
  size_t keep_n[16] = {0};
  int nkeep = 0;
  for (int i = 0; i < 16; i++) keep[i] = malloc(IN_CAP);
  uint64_t s = seed, runs = 0, t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
  while (now_ns() < end) {
    size_t n;
    if (nkeep && fuzz_rnd(&s) % 2) {
      int k = (int)(fuzz_rnd(&s) % (uint64_t)nkeep);
      memcpy(buf, keep[k], keep_n[k]);
      n = mutate(&s, buf, keep_n[k]);
    } else {
      n = 16 + fuzz_rnd(&s) % 400;
      for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)fuzz_rnd(&s);
    }
    uint64_t errors0 = g_errors_seen, ops0 = g_ops;
    LLVMFuzzerTestOneInput(buf, n);
    /* Keep inputs that went far without stopping at errors. */
    if (g_ops - ops0 >= 8 && g_errors_seen - errors0 < (g_ops - ops0) / 2) {
      int k = nkeep < 16 ? nkeep++ : (int)(fuzz_rnd(&s) % 16);
      memcpy(keep[k], buf, n);
      keep_n[k] = n;
    }
    runs++;
  }
  double el = (double)(now_ns() - t0) / 1e9;
  printf("fuzz_webgpu: %llu inputs in %.1f s (%.1f/s), %llu calls, %llu with an error, %llu forced losses, no failure\n",
         (unsigned long long)runs, el, (double)runs / (el > 0 ? el : 1), (unsigned long long)g_ops,
         (unsigned long long)g_errors_seen, (unsigned long long)g_losses);
  if (stats) {
    printf("fuzz_webgpu: uncaptured errors on the foreign device: %d\n", atomic_load(&g_uncaptured2));
    for (int i = 0; i < 64 && g_stats[i].name[0]; i++)
      printf("  %-36s %10llu ok %10llu with an error\n", g_stats[i].name, (unsigned long long)g_stats[i].ok,
             (unsigned long long)g_stats[i].err);
  }
  for (int i = 0; i < 16; i++) free(keep[i]);
  free(buf);
  teardown();
  return 0;
}
#endif
