/* Fuzz target for every descriptor and argument the public API accepts.
 *
 * One process creates a real env and device once (plus a second device,
 * whose handles serve as "foreign"). Each input is read as a program: a
 * sequence of API calls whose descriptors and arguments come from the bytes
 * (sizes and counts at the edges, enum values out of range, zero, stale,
 * foreign, kind-mismatched and random handles mixed with live ones from
 * earlier calls, fuzzed WGSL, entry points and constants). The oracle, for
 * every call:
 *   - the status is UL_OK or one of UL_STATUS_MAP's UL_ERR_*;
 *   - a failure leaves a non-empty ul_last_error();
 *   - nothing crashes, hangs or leaks (ASan/LSan; the watchdog);
 * and at the end of each input, after everything the input created has
 * been destroyed, ul_device_memory_stats().live_objects is back to its
 * value before the input.
 *
 * The fuzz is over values, not over the memory safety of caller-owned
 * pointers: every data pointer handed to the library points into a static
 * buffer of DATA_LEN bytes. A call that legitimately reads or writes `size`
 * bytes there gets size <= DATA_LEN; buffer write/read and ring push may
 * also get a larger size, which exceeds every object the fuzzer makes (all
 * at most OBJ_CAP bytes) and so must be refused before any access. Valid
 * sizes are capped at OBJ_CAP, and valid-looking textures at TEX_CAP bytes,
 * so the CPU driver never allocates gigabytes; sizes above the device's
 * limits are still generated.
 *
 * libFuzzer (clang): configure with -DUL_LIBFUZZER=ON -DCMAKE_C_COMPILER=clang
 * (builds fuzz_descriptors_libfuzzer), or by hand from the repository root:
 *   clang -std=c11 -D_GNU_SOURCE -DUL_LIBFUZZER -g -O1
 *     -fsanitize=fuzzer,address,undefined -Iinclude -Isrc -Itests
 *     -DUL_DAWN_LIB='"<path to libwebgpu_wrapper.so>"' tests/fuzz_descriptors.c
 *     build/libunlost.a -ldl -lpthread -lm -o fuzz_descriptors
 *   XDG_RUNTIME_DIR=/tmp UNLOST_LOG=none ./fuzz_descriptors -max_total_time=60 -max_len=1024
 * Standalone (what CTest runs): random programs and mutations of earlier ones
 * for a bounded time; files and directories given as arguments are replayed
 * first (tests/fuzz_corpus/fuzz_descriptors/), --trace prints every call:
 *   ./fuzz_descriptors --seconds 20 [--seed N] [--trace] [FILE|DIR ...]
 * On an oracle failure the calls of the input so far are printed and the
 * input is written to ./crash-fuzz_descriptors-<n>. */
#include "ul_test.h"
#include "unlost.h"

#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define OBJ_CAP (1u << 20)           /* largest valid buffer/ring/pool size */
#define TEX_CAP (1u << 20)           /* largest valid-looking texture */
#define DATA_LEN (2u * OBJ_CAP + 64) /* every data pointer points here */
#define MAX_OPS 40
#define MAX_SHADERS 3   /* per input: compiles cost milliseconds */
#define MAX_PIPELINES 2 /* per input: lavapipe compiles cost tens of ms */
#define MAX_OBJS 256
#define TIMEOUT_MS 10000

static ul_env *g_env;
static ul_device *g_dev, *g_dev2;
static ul_buffer g_foreign_buf;
static uint64_t g_maxbuf;
static char g_src_path[64];
static uint8_t *g_data, *g_out, *g_async;
static bool g_trace;
static uint64_t g_async_done;

/* ---- the input as a stream of choices ---------------------------------- */
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
 * valid, entries of their table, so that programs get past validation
 * (pipelines, bind groups, dispatches); the rest are fuzzed as usual. */
static bool g_sane;
static bool sane(rd *r) { return g_sane && u8(r) % 8 != 0; }

/* A value from `t` mostly, a raw one sometimes; in a sane input mostly one
 * of its first `valid` entries. */
static uint64_t pick64(rd *r, const uint64_t *t, size_t n, size_t valid) {
  uint8_t b = u8(r);
  if (g_sane && valid && b % 8 != 0) return t[(b >> 3) % valid];
  if (b < 0xE0) return t[b % n];
  return b < 0xF0 ? u32(r) : u64(r);
}
#define PICK64(r, t) pick64(r, t, sizeof t / sizeof t[0], 0)
#define PICK64S(r, t, valid) pick64(r, t, sizeof t / sizeof t[0], valid)

static const uint64_t k_sizes[] = {
    256, 1024, 4096, 64, 16, 4, /* sane */
    0, 1, 2, 3, 8, 12, 16, 20, 64, 128, 252, 256, 260, 1000, 1024, 4096, 4100, 65536, 65540,
    OBJ_CAP - 4, OBJ_CAP, OBJ_CAP + 4 /* -> g_maxbuf + 4 */, 1ull << 32, 1ull << 40, 1ull << 62,
    1ull << 63, UINT64_MAX - 3, UINT64_MAX, UINT32_MAX, (uint64_t)UINT32_MAX + 1};
static const uint64_t k_offsets[] = {0, 0, 0, 4, 8, 12, 16, 64, 252, 255, 256, 260, 4096, OBJ_CAP - 4,
                                     OBJ_CAP, UINT32_MAX, 1ull << 32, UINT64_MAX - 3, UINT64_MAX};
static const uint64_t k_dims[] = {1, 1, 2, 4, 16, 3, 7, 64, /* sane */
                                  0, 17, 255, 256, 2048, 2049, 8192, 8193, 16384, 65536, 65537, UINT32_MAX};
static const uint64_t k_small[] = {0, 1, 2, 3, 4, 5, 15, 16, 17, 255, 256, 65535, UINT32_MAX};
static const uint64_t k_groups[] = {1, 1, 2, 3, 0, 65535, 65536, UINT32_MAX};

/* A valid size is at most OBJ_CAP: those between OBJ_CAP and the device's
 * maxBufferSize would really be allocated; above it they must be refused. */
static uint64_t fix_size(uint64_t v) {
  if (v == OBJ_CAP + 4) return g_maxbuf + 4;
  if (v > OBJ_CAP && v <= g_maxbuf) return v % OBJ_CAP;
  return v;
}

/* ---- trace and oracle ---------------------------------------------------- */
#define TRACE_LINES 96
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
static void count_call(const char *call, ul_status s);

static void save_input(const char *why) {
  char path[96];
  snprintf(path, sizeof path, "crash-fuzz_descriptors-%u", g_crash_no++);
  FILE *f = fopen(path, "wb");
  if (f) {
    if (g_cur_size) fwrite(g_cur, 1, g_cur_size, f);
    fclose(f);
  }
  fprintf(stderr, "fuzz_descriptors: %s; input (%zu bytes) saved to %s\n", why, g_cur_size, path);
}

static void oracle_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void oracle_fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "fuzz_descriptors: ORACLE FAILURE: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\ncalls of this input (last %d):\n", TRACE_LINES);
  unsigned first = g_trace_n > TRACE_LINES ? g_trace_n - TRACE_LINES : 0;
  for (unsigned i = first; i < g_trace_n; i++) fprintf(stderr, "  %s\n", g_trace_buf[i % TRACE_LINES]);
  save_input("oracle failure");
  abort();
}

static bool documented(ul_status s) {
  switch (s) {
  case UL_OK:
#define UL__CASE(name, value, transient, text) case UL_ERR_##name:
    UL_STATUS_MAP(UL__CASE)
#undef UL__CASE
    return true;
  default: return false;
  }
}

/* Per call name: how many returned UL_OK and how many failed (--stats). */
typedef struct call_stat {
  char name[40];
  uint64_t ok, err;
} call_stat;
static call_stat g_stats[64];

static void count_call(const char *call, ul_status s) {
  size_t l = strcspn(call, "( ");
  if (l >= sizeof g_stats[0].name) l = sizeof g_stats[0].name - 1;
  for (int i = 0; i < 64; i++) {
    if (!g_stats[i].name[0]) memcpy(g_stats[i].name, call, l);
    if (!strncmp(g_stats[i].name, call, l) && g_stats[i].name[l] == '\0') {
      if (s) g_stats[i].err++;
      else g_stats[i].ok++;
      return;
    }
  }
}

/* Records the call and checks its status. */
static ul_status chk(ul_status s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ul_status chk(ul_status s, const char *fmt, ...) {
  char call[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(call, sizeof call, fmt, ap);
  va_end(ap);
  const char *e = ul_last_error();
  tracef("%s -> %s%s%.120s", call, ul_status_name(s), s ? ": " : "", s ? e : "");
  count_call(call, s);
  if (!documented(s)) oracle_fail("%s returned %d, not a documented ul_status", call, (int)s);
  if (s != UL_OK && (!e || !*e))
    oracle_fail("%s returned %s with an empty ul_last_error()", call, ul_status_name(s));
  ul_clear_error();
  return s;
}

/* ---- what an input made -------------------------------------------------- */
enum { K_BUF, K_TEX, K_VIEW, K_SMP, K_SHD, K_BGL, K_PL, K_PIPE, K_BG, K_COUNT };
static const char *const k_kind[K_COUNT] = {"buffer", "texture", "view", "sampler", "shader",
                                            "bgl", "playout", "pipeline", "bind_group"};

typedef struct obj {
  int kind;
  uint32_t id;
  bool live;
  bool borrowed; /* owned by a pool or ring: never destroyed directly */
  uint64_t size;   /* buffers */
  uint32_t parent; /* views: the texture (destroying it destroys them) */
} obj;

static ul_status destroy_kind(int kind, uint32_t id);

static obj g_objs[MAX_OBJS];
static int g_nobj;
static uint32_t g_stale[64];
static unsigned g_nstale;
static ul_cmd *g_cmds[4];
static int g_ncmd;
static ul_ring *g_rings[4];
static int g_nring;
static ul_buffer_pool *g_pools[4];
static int g_npool;
static int g_nshaders, g_npipelines;

static void add_obj(int kind, uint32_t id, bool borrowed, uint64_t size, uint32_t parent) {
  for (int i = 0; i < g_nobj; i++)
    if (g_objs[i].live && g_objs[i].id == id) return; /* a pool hands a buffer out again */
  if (g_nobj < MAX_OBJS) g_objs[g_nobj++] = (obj){kind, id, true, borrowed, size, parent};
  else {
    /* No room to track it: destroy it at once so that nothing leaks. */
    chk(destroy_kind(kind, id), "ul_%s_destroy(0x%08x) [tracking full]", k_kind[kind], id);
  }
}

/* The object was destroyed (and with a texture, its views). */
static void forget(uint32_t id) {
  for (int i = 0; i < g_nobj; i++)
    if (g_objs[i].live && (g_objs[i].id == id || (g_objs[i].kind == K_VIEW && g_objs[i].parent == id))) {
      g_objs[i].live = false;
      g_stale[g_nstale++ % 64] = g_objs[i].id;
    }
}

static obj *live_of(rd *r, int kind) {
  int n = 0;
  for (int i = 0; i < g_nobj; i++)
    if (g_objs[i].live && (kind < 0 || g_objs[i].kind == kind)) n++;
  if (!n) return NULL;
  int k = u8(r) % n;
  for (int i = 0; i < g_nobj; i++)
    if (g_objs[i].live && (kind < 0 || g_objs[i].kind == kind) && k-- == 0) return &g_objs[i];
  return NULL;
}

/* A handle of `kind`: mostly a live one, else zero, random, stale, foreign,
 * of another kind, or a live one with its generation or tag changed. */
static uint32_t pick_id(rd *r, int kind) {
  uint8_t b = u8(r) % (g_sane ? 96 : 24);
  obj *o;
  switch (b) {
  case 0: return 0;
  case 1: return u32(r);
  case 2: return g_nstale ? g_stale[u8(r) % (g_nstale < 64 ? g_nstale : 64)] : u32(r);
  case 3: return g_foreign_buf.id;
  case 4: return (o = live_of(r, -1)) ? o->id : 0;
  case 5: return (o = live_of(r, kind)) ? o->id + (1u << 20) : 0;  /* generation */
  case 6: return (o = live_of(r, kind)) ? o->id ^ (1u << 28) : 0;  /* device tag */
  case 7: return (o = live_of(r, kind)) ? o->id + 1 : 0;           /* neighbour slot */
  default: return (o = live_of(r, kind)) ? o->id : (u8(r) & 1 ? 0 : u32(r));
  }
}

/* ---- WGSL ------------------------------------------------------------------ */
static const char *const k_wgsl[] = {
    "@group(0) @binding(0) var<storage, read_write> data: array<u32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < arrayLength(&data)) { data[id.x] = data[id.x] * 2u + 1u; }\n"
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
    "override scale: f32 = 1.0;\n"
    "@compute @workgroup_size(wg) fn main(@builtin(global_invocation_id) i: vec3u) {\n"
    "  if (i.x < arrayLength(&b)) { b[i.x] = a[i.x % arrayLength(&a)] * scale; }\n"
    "}\n",
    "@compute @workgroup_size(1) fn main() {}\n",
    "fn main() {}\n",
    "@compute @workgroup_size(1) fn main() { let x = y; }\n",
    "",
};
static const char *const k_entries[] = {"main", "main", "other", "", "nope", "main\x01",
                                        "fn", "@compute"};
static const char *const k_const_names[] = {"k", "wg", "scale", "", "nope", "1", "k\xff"};
static const double k_const_values[] = {0, 1, -1, 0.5, 8, 64, 65536, 4294967296.0, 1e308, -1e308};

/* A NUL-terminated string from the input of up to `max` bytes. */
static void str_from(rd *r, char *dst, size_t max) {
  size_t n = u8(r) % (max + 1);
  size_t i = 0;
  for (; i < n && more(r); i++) dst[i] = (char)u8(r);
  dst[i] = '\0';
}

/* ---- ops ------------------------------------------------------------------- */
static ul_status restore_cb(ul_device *d, ul_buffer b, void *user) {
  (void)d;
  (void)b;
  (void)user;
  return UL_OK;
}

static void op_buffer_create(rd *r) {
  static const uint32_t usages[] = {
      0, UL_BUFFER_STORAGE, UL_BUFFER_UNIFORM | UL_BUFFER_COPY_DST, UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST,
      UL_BUFFER_MAP_WRITE | UL_BUFFER_COPY_SRC, UL_BUFFER_MAP_READ, UL_BUFFER_MAP_READ | UL_BUFFER_STORAGE,
      UL_BUFFER_INDIRECT | UL_BUFFER_STORAGE, 0x10, 0x200, 0xFFFFFFFFu, 0x1FF};
  ul_buffer_desc d = {0};
  char label[24];
  str_from(r, label, sizeof label - 1);
  d.label = u8(r) & 1 ? label : NULL;
  d.size = fix_size(PICK64S(r, k_sizes, 6));
  uint8_t ub = u8(r);
  d.usage = g_sane && ub % 4 ? usages[ub % 3] : ub < 0xF0 ? usages[ub % (sizeof usages / sizeof usages[0])] : u32(r);
  uint8_t rb = u8(r);
  d.restore = (ul_restore)(g_sane && rb % 4 ? (rb >> 2) % 4
                           : rb < 0xE0 ? rb % 7 : (int32_t)u32(r)); /* 5, 6 and raw: out of range */
  uint8_t f = u8(r);
  if (f & 1) d.initial_data = g_data;
  if (f & 2) d.source_data = g_data; /* borrowed: g_data never changes */
  if (f & 4) {
    static const char *const paths[] = {g_src_path, "/nonexistent/unlost-fuzz", "", "/tmp", "/dev/null"};
    d.source_path = paths[(f >> 4) % 5];
    d.source_offset = PICK64(r, k_offsets);
  }
  if (f & 8) d.restore_fn = restore_cb;
  ul_buffer b = {0};
  ul_status s = chk(ul_buffer_create(g_dev, &d, &b),
                    "ul_buffer_create(size=%llu usage=0x%x restore=%d init=%d src=%d path=%s off=%llu cb=%d)",
                    (unsigned long long)d.size, d.usage, (int)d.restore, !!d.initial_data,
                    !!d.source_data, d.source_path ? d.source_path : "-",
                    (unsigned long long)d.source_offset, !!d.restore_fn);
  if (s == UL_OK) {
    if (!b.id) oracle_fail("ul_buffer_create: UL_OK with a zero handle");
    add_obj(K_BUF, b.id, false, d.size, 0);
  }
}

static void op_texture_create(rd *r) {
  ul_texture_desc d = {0};
  d.width = (uint32_t)PICK64S(r, k_dims, 8);
  d.height = (uint32_t)PICK64S(r, k_dims, 8);
  d.depth = (uint32_t)PICK64S(r, k_dims, 2);
  uint8_t b = u8(r);
  bool ok = sane(r);
  d.is_3d = b & 1;
  d.format = (ul_format)(ok ? (b >> 1) % UL_FORMAT_COUNT_
                         : b & 0x80 ? (int32_t)u32(r) : (b >> 1) % (UL_FORMAT_COUNT_ + 3));
  uint8_t ub = u8(r);
  d.usage = ok ? 0 : ub < 0xF0 ? ub % 16 : u32(r);
  d.mip_levels = ok ? 0 : (uint32_t)PICK64(r, k_small);
  uint8_t rb = u8(r);
  d.restore = (ul_restore)(ok ? (rb % 2) * 3 : rb < 0xF0 ? rb % 6 : (int32_t)u32(r));
  /* Dimensions within Dawn's limits are really allocated: keep them small. */
  uint64_t w = d.width, h = d.height ? d.height : 1, dd = d.depth ? d.depth : 1;
  bool in_limits = d.is_3d ? (w <= 2048 && h <= 2048 && dd <= 2048) : (w <= 8192 && h <= 8192 && dd <= 256);
  if (in_limits && w * h * dd * 16 > TEX_CAP) {
    d.width = d.width % 64 + 1;
    d.height = d.height % 64;
    d.depth = d.depth % 4;
  }
  ul_texture t = {0};
  ul_status s = chk(ul_texture_create(g_dev, &d, &t),
                    "ul_texture_create(%ux%ux%u 3d=%d format=%d usage=0x%x mips=%u restore=%d)", d.width,
                    d.height, d.depth, d.is_3d, (int)d.format, d.usage, d.mip_levels, (int)d.restore);
  if (s == UL_OK) add_obj(K_TEX, t.id, false, 0, 0);
}

static void op_view_create(rd *r) {
  ul_texture_view_desc d = {0};
  d.texture.id = pick_id(r, K_TEX);
  d.base_mip = (uint32_t)PICK64S(r, k_small, 1);
  d.mip_count = (uint32_t)PICK64S(r, k_small, 2);
  d.base_layer = (uint32_t)PICK64S(r, k_small, 1);
  d.layer_count = (uint32_t)PICK64S(r, k_small, 2);
  ul_texture_view v = {0};
  ul_status s = chk(ul_texture_view_create(g_dev, &d, &v),
                    "ul_texture_view_create(texture=0x%08x mip=%u+%u layer=%u+%u)", d.texture.id,
                    d.base_mip, d.mip_count, d.base_layer, d.layer_count);
  if (s == UL_OK) add_obj(K_VIEW, v.id, false, 0, d.texture.id);
}

static void op_sampler_create(rd *r) {
  uint8_t b = u8(r);
  ul_sampler_desc d = {.label = b & 4 ? "smp" : NULL, .linear = b & 1, .repeat = b & 2};
  ul_sampler x = {0};
  ul_status s = chk(ul_sampler_create(g_dev, b & 8 ? NULL : &d, &x), "ul_sampler_create(linear=%d repeat=%d desc=%s)",
                    d.linear, d.repeat, b & 8 ? "NULL" : "set");
  if (s == UL_OK) add_obj(K_SMP, x.id, false, 0, 0);
}

static void op_shader_create(rd *r) {
  if (g_nshaders >= MAX_SHADERS) return;
  g_nshaders++;
  char text[2048];
  uint8_t b = u8(r);
  const char *src = k_wgsl[b % (sizeof k_wgsl / sizeof k_wgsl[0])];
  size_t n = strlen(src);
  memcpy(text, src, n + 1);
  int how = sane(r) ? 0 : (b >> 4) % 4;
  if (how == 1) { /* overwrite a few bytes of a template */
    int k = 1 + u8(r) % 4;
    while (k-- && n) text[u32(r) % n] = (char)(u8(r) | 1);
  } else if (how == 2) { /* raw text from the input */
    str_from(r, text, 255);
  } else if (how == 3 && n) { /* truncate a template */
    text[u32(r) % n] = '\0';
  }
  ul_shader_desc d = {.label = "fz", .wgsl = (u8(r) % 32) ? text : NULL};
  ul_shader x = {0};
  ul_status s = chk(ul_shader_create(g_dev, &d, &x), "ul_shader_create(template=%d how=%d len=%zu wgsl=%s)",
                    (int)(b % (sizeof k_wgsl / sizeof k_wgsl[0])), how, strlen(text), d.wgsl ? "set" : "NULL");
  if (s == UL_OK) add_obj(K_SHD, x.id, false, 0, 0);
}

static void op_bgl_create(rd *r) {
  ul_bind_group_layout_desc d = {0};
  uint8_t c = u8(r);
  bool ok = sane(r);
  d.entry_count = ok ? 1u + c % 3u : c < 0xF8 ? c % 21u : u32(r); /* up to 20, or anything */
  uint32_t n = d.entry_count < UL_MAX_BINDINGS ? d.entry_count : UL_MAX_BINDINGS;
  static const uint64_t bindings[] = {0, 1, 2, 3, 0, 1, 15, 16, 1000, UINT32_MAX};
  for (uint32_t i = 0; i < n; i++) {
    d.entries[i].binding = ok ? i : (uint32_t)PICK64(r, bindings);
    uint8_t t = u8(r);
    d.entries[i].type = (ul_binding_type)(ok ? t % 6 : t < 0xF0 ? t % 8 : (int32_t)u32(r));
    uint8_t f = u8(r);
    d.entries[i].format = (ul_format)(ok ? 0 : f < 0xF0 ? f % (UL_FORMAT_COUNT_ + 2) : (int32_t)u32(r));
  }
  ul_bind_group_layout x = {0};
  ul_status s = chk(ul_bind_group_layout_create(g_dev, &d, &x),
                    "ul_bind_group_layout_create(entries=%u first={b%u t%d f%d})", d.entry_count,
                    d.entries[0].binding, (int)d.entries[0].type, (int)d.entries[0].format);
  if (s == UL_OK) add_obj(K_BGL, x.id, false, 0, 0);
}

static void op_playout_create(rd *r) {
  ul_pipeline_layout_desc d = {0};
  uint8_t c = u8(r);
  d.group_count = sane(r) ? 1u + c % 2u : c < 0xF8 ? c % 7u : u32(r);
  for (int i = 0; i < UL_MAX_BIND_GROUPS; i++) d.groups[i].id = pick_id(r, K_BGL);
  ul_pipeline_layout x = {0};
  ul_status s = chk(ul_pipeline_layout_create(g_dev, &d, &x),
                    "ul_pipeline_layout_create(groups=%u [0x%08x 0x%08x 0x%08x 0x%08x])", d.group_count,
                    d.groups[0].id, d.groups[1].id, d.groups[2].id, d.groups[3].id);
  if (s == UL_OK) add_obj(K_PL, x.id, false, 0, 0);
}

static void op_pipeline_create(rd *r) {
  if (g_npipelines >= MAX_PIPELINES) return;
  g_npipelines++;
  ul_compute_pipeline_desc d = {0};
  char entry[40], names[UL_MAX_CONSTANTS][16];
  d.shader.id = pick_id(r, K_SHD);
  uint8_t e = u8(r);
  bool ok = sane(r);
  if (ok) d.entry = e & 1 ? NULL : "main";
  else if (e < 0xE0) d.entry = e % 9 == 8 ? NULL : k_entries[e % 8];
  else {
    str_from(r, entry, sizeof entry - 1);
    d.entry = entry;
  }
  d.layout.id = ok || u8(r) % 3 ? 0 : pick_id(r, K_PL);
  uint8_t c = u8(r);
  d.constant_count = ok ? 0 : c < 0xF8 ? c % 4 : (c == 0xF8 ? UL_MAX_CONSTANTS + 1 : u32(r));
  for (uint32_t i = 0; i < UL_MAX_CONSTANTS && i < d.constant_count; i++) {
    uint8_t nb = u8(r);
    if (nb < 0xF0) d.constants[i].name = nb % 11 == 10 ? NULL : k_const_names[nb % 7];
    else {
      str_from(r, names[i], sizeof names[i] - 1);
      d.constants[i].name = names[i];
    }
    uint8_t vb = u8(r);
    d.constants[i].value = vb < 0xF0 ? k_const_values[vb % 10]
                           : vb == 0xF0 ? NAN
                           : vb == 0xF1 ? INFINITY
                                        : (double)(int32_t)u32(r);
  }
  ul_compute_pipeline x = {0};
  ul_status s = chk(ul_compute_pipeline_create(g_dev, &d, &x),
                    "ul_compute_pipeline_create(shader=0x%08x entry=%s layout=0x%08x constants=%u first=%s=%g)",
                    d.shader.id, d.entry ? d.entry : "(null)", d.layout.id, d.constant_count,
                    d.constant_count && d.constants[0].name ? d.constants[0].name : "-",
                    d.constant_count ? d.constants[0].value : 0.0);
  if (s == UL_OK) add_obj(K_PIPE, x.id, false, 0, 0);
}

static void op_bind_group_create(rd *r) {
  ul_bind_group_desc d = {0};
  uint8_t m = u8(r);
  bool ok = sane(r);
  if (ok) m &= ~6;
  if (m & 1) d.layout.id = pick_id(r, K_BGL);
  if (m & 2 || !(m & 1)) d.pipeline.id = pick_id(r, K_PIPE);
  d.group = ok ? 0 : (uint32_t)PICK64(r, k_small) % (m & 4 ? UINT32_MAX : 5);
  uint8_t c = u8(r);
  d.entry_count = ok ? 1u + c % 3u : c < 0xF8 ? c % 21u : u32(r);
  uint32_t n = d.entry_count < UL_MAX_BINDINGS ? d.entry_count : UL_MAX_BINDINGS;
  static const uint64_t bindings[] = {0, 1, 2, 0, 1, 2, 3, 15, 16, UINT32_MAX};
  for (uint32_t i = 0; i < n; i++) {
    ul_bind_entry *en = &d.entries[i];
    en->binding = ok ? i : (uint32_t)PICK64(r, bindings);
    uint8_t w = u8(r);
    if (ok) w &= 0x1F;
    if (w % 5 < 3 || w & 0x80) en->buffer.id = pick_id(r, K_BUF);
    if (w % 5 == 3 || w & 0x40) en->view.id = pick_id(r, K_VIEW);
    if (w % 5 == 4 || w & 0x20) en->sampler.id = pick_id(r, K_SMP);
    en->offset = ok ? 0 : PICK64(r, k_offsets);
    en->size = ok || u8(r) % 2 ? 0 : PICK64(r, k_sizes);
  }
  ul_bind_group x = {0};
  ul_status s = chk(ul_bind_group_create(g_dev, &d, &x),
                    "ul_bind_group_create(layout=0x%08x pipeline=0x%08x group=%u entries=%u first={b%u buf=0x%08x "
                    "view=0x%08x smp=0x%08x off=%llu size=%llu})",
                    d.layout.id, d.pipeline.id, d.group, d.entry_count, d.entries[0].binding,
                    d.entries[0].buffer.id, d.entries[0].view.id, d.entries[0].sampler.id,
                    (unsigned long long)d.entries[0].offset, (unsigned long long)d.entries[0].size);
  if (s == UL_OK) add_obj(K_BG, x.id, false, 0, 0);
}

static ul_cmd *pick_cmd(rd *r) {
  if (!g_ncmd || (g_ncmd < 4 && u8(r) % 4 == 0)) {
    ul_cmd *c = NULL;
    ul_status s = chk(ul_cmd_create(g_dev, u8(r) & 1 ? "fz" : NULL, &c), "ul_cmd_create");
    if (s == UL_OK) {
      if (!c) oracle_fail("ul_cmd_create: UL_OK without a list");
      g_cmds[g_ncmd++] = c;
    }
    return c;
  }
  return g_cmds[u8(r) % g_ncmd];
}

static void op_cmd_record(rd *r) {
  ul_cmd *c = pick_cmd(r);
  if (!c) return;
  uint8_t k = u8(r);
  switch (k % 7) {
  case 0:
  case 1: {
    ul_bind_group groups[8];
    for (int i = 0; i < 8; i++) groups[i].id = pick_id(r, K_BG);
    uint8_t gc = u8(r);
    uint32_t n = sane(r) ? 1 : gc % 9; /* up to 8 (> UL_MAX_BIND_GROUPS), all backed by the array */
    const ul_bind_group *gp = gc == 0xFF ? NULL : groups;
    ul_compute_pipeline p = {pick_id(r, K_PIPE)};
    if (k % 7 == 0) {
      uint32_t x = (uint32_t)PICK64(r, k_groups), y = (uint32_t)PICK64(r, k_groups),
               z = (uint32_t)PICK64(r, k_groups);
      /* Keep the real work small: at most one axis may be large. */
      if ((x > 3) + (y > 3) + (z > 3) > 0 && (x <= 65535 && y <= 65535 && z <= 65535)) x = y = z = 1;
      chk(ul_cmd_dispatch(c, p, gp, n, x, y, z), "ul_cmd_dispatch(pipeline=0x%08x groups=%u%s [0x%08x] %u,%u,%u)",
          p.id, n, gp ? "" : "(NULL)", groups[0].id, x, y, z);
    } else {
      ul_buffer args = {pick_id(r, K_BUF)};
      uint64_t off = PICK64(r, k_offsets);
      chk(ul_cmd_dispatch_indirect(c, p, gp, n, args, off),
          "ul_cmd_dispatch_indirect(pipeline=0x%08x groups=%u args=0x%08x off=%llu)", p.id, n, args.id,
          (unsigned long long)off);
    }
    break;
  }
  case 2: {
    ul_buffer a = {pick_id(r, K_BUF)}, b = {pick_id(r, K_BUF)};
    uint64_t ao = PICK64(r, k_offsets), bo = PICK64(r, k_offsets), sz = PICK64(r, k_sizes);
    chk(ul_cmd_copy_buffer(c, a, ao, b, bo, sz), "ul_cmd_copy_buffer(0x%08x+%llu -> 0x%08x+%llu, %llu)", a.id,
        (unsigned long long)ao, b.id, (unsigned long long)bo, (unsigned long long)sz);
    break;
  }
  case 3: {
    ul_buffer a = {pick_id(r, K_BUF)};
    uint64_t o = PICK64(r, k_offsets), sz = PICK64(r, k_sizes);
    chk(ul_cmd_clear_buffer(c, a, o, sz), "ul_cmd_clear_buffer(0x%08x, %llu, %llu)", a.id, (unsigned long long)o,
        (unsigned long long)sz);
    break;
  }
  case 4:
  case 5: {
    ul_buffer b = {pick_id(r, K_BUF)};
    ul_texture t = {pick_id(r, K_TEX)};
    uint64_t o = PICK64(r, k_offsets);
    static const uint64_t bprs[] = {0, 256, 512, 4096, 100, 255, 257, 1u << 20, UINT32_MAX & ~255u};
    uint32_t bpr = (uint32_t)PICK64(r, bprs);
    uint32_t w = (uint32_t)PICK64(r, k_dims), h = (uint32_t)PICK64(r, k_dims), dd = (uint32_t)PICK64(r, k_small);
    if (k % 7 == 4)
      chk(ul_cmd_copy_buffer_to_texture(c, b, o, bpr, t, w, h, dd),
          "ul_cmd_copy_buffer_to_texture(0x%08x+%llu bpr=%u -> 0x%08x %ux%ux%u)", b.id, (unsigned long long)o, bpr,
          t.id, w, h, dd);
    else
      chk(ul_cmd_copy_texture_to_buffer(c, t, w, h, dd, b, o, bpr),
          "ul_cmd_copy_texture_to_buffer(0x%08x %ux%ux%u -> 0x%08x+%llu bpr=%u)", t.id, w, h, dd, b.id,
          (unsigned long long)o, bpr);
    break;
  }
  default:
    ul_cmd_reset(c);
    tracef("ul_cmd_reset");
  }
}

static void op_submit(rd *r) {
  if (!g_ncmd) return;
  ul_cmd *c = g_cmds[u8(r) % g_ncmd];
  uint64_t serial = 0;
  uint8_t b = u8(r);
  ul_status s = chk(ul_cmd_submit(g_dev, c, b & 1 ? NULL : &serial), "ul_cmd_submit");
  if (s == UL_OK && (b & 2))
    chk(ul_device_wait(g_dev, b & 4 ? serial + (b >> 4) : serial, TIMEOUT_MS), "ul_device_wait(%llu)",
        (unsigned long long)serial);
}

static void op_buffer_io(rd *r) {
  ul_buffer b = {pick_id(r, K_BUF)};
  uint8_t k = u8(r);
  uint64_t off = PICK64S(r, k_offsets, 1);
  /* Truthful sizes (<= DATA_LEN), or sizes above every buffer's. */
  uint64_t sz = PICK64S(r, k_sizes, 6);
  if (sz > DATA_LEN && sz <= g_maxbuf) sz %= OBJ_CAP;
  switch (k % 6) {
  case 0:
  case 1:
    chk(ul_buffer_write(g_dev, b, off, k & 0x80 ? NULL : g_data, sz), "ul_buffer_write(0x%08x, %llu, %s, %llu)",
        b.id, (unsigned long long)off, k & 0x80 ? "NULL" : "data", (unsigned long long)sz);
    break;
  case 2:
    chk(ul_buffer_read(g_dev, b, off, k & 0x80 ? NULL : g_out, sz, TIMEOUT_MS),
        "ul_buffer_read(0x%08x, %llu, %s, %llu)", b.id, (unsigned long long)off, k & 0x80 ? "NULL" : "dst",
        (unsigned long long)sz);
    break;
  case 3: {
    if (sz > DATA_LEN) sz = 4;
    ul_status s = chk(ul_buffer_read_async(g_dev, b, off, g_async, sz, NULL, NULL),
                      "ul_buffer_read_async(0x%08x, %llu, %llu, done=NULL)", b.id, (unsigned long long)off,
                      (unsigned long long)sz);
    (void)s;
    break;
  }
  case 4: {
    void *p = NULL;
    ul_map_mode mode = (ul_map_mode)(k & 0x40 ? (int32_t)u32(r) : (k >> 3) % 4);
    if (sz > DATA_LEN) sz %= OBJ_CAP;
    ul_status s = chk(ul_buffer_map(g_dev, b, mode, off, sz, TIMEOUT_MS, &p), "ul_buffer_map(0x%08x, mode=%d, %llu, %llu)",
                      b.id, (int)mode, (unsigned long long)off, (unsigned long long)sz);
    if (s == UL_OK && !p) oracle_fail("ul_buffer_map: UL_OK without a pointer");
    if (s == UL_OK && k & 0x80) chk(ul_buffer_unmap(g_dev, b), "ul_buffer_unmap(0x%08x)", b.id);
    break;
  }
  default: {
    uint64_t size = 0;
    chk(ul_buffer_unmap(g_dev, b), "ul_buffer_unmap(0x%08x)", b.id);
    chk(ul_buffer_size(g_dev, b, &size), "ul_buffer_size(0x%08x)", b.id);
  }
  }
}

static void on_async(ul_device *d, ul_status s, void *dst, void *user) {
  (void)d;
  (void)dst;
  (void)user;
  if (!documented(s)) oracle_fail("read_async callback with status %d", (int)s);
  g_async_done++;
}

static void op_async_read(rd *r) {
  ul_buffer b = {pick_id(r, K_BUF)};
  uint64_t off = PICK64(r, k_offsets), sz = PICK64(r, k_sizes);
  if (sz > DATA_LEN) sz %= 4096;
  chk(ul_buffer_read_async(g_dev, b, off, g_async, sz, on_async, NULL), "ul_buffer_read_async(0x%08x, %llu, %llu)",
      b.id, (unsigned long long)off, (unsigned long long)sz);
  int n = ul_device_poll(g_dev);
  if (n < 0) oracle_fail("ul_device_poll returned %d", n);
}

static void op_texture_io(rd *r) {
  ul_texture t = {pick_id(r, K_TEX)};
  uint32_t x = (uint32_t)PICK64S(r, k_small, 1), y = (uint32_t)PICK64S(r, k_small, 1),
           z = (uint32_t)PICK64S(r, k_small, 1);
  uint32_t w = (uint32_t)PICK64S(r, k_dims, 3), h = (uint32_t)PICK64S(r, k_dims, 3),
           d = (uint32_t)PICK64S(r, k_small, 2);
  if (g_sane && !d) d = 1;
  uint64_t sz = PICK64S(r, k_sizes, 3) % (DATA_LEN + 1); /* always truthful */
  static const uint64_t bprs[] = {0, 0, 4, 16, 256, 255, 4096, UINT32_MAX};
  uint32_t bpr = (uint32_t)PICK64S(r, bprs, 2);
  if (u8(r) & 1)
    chk(ul_texture_write(g_dev, t, x, y, z, w, h, d, g_data, sz, bpr),
        "ul_texture_write(0x%08x, %u,%u,%u %ux%ux%u, %llu, bpr=%u)", t.id, x, y, z, w, h, d,
        (unsigned long long)sz, bpr);
  else
    chk(ul_texture_read(g_dev, t, x, y, z, w, h, d, g_out, sz, TIMEOUT_MS),
        "ul_texture_read(0x%08x, %u,%u,%u %ux%ux%u, %llu)", t.id, x, y, z, w, h, d, (unsigned long long)sz);
}

static void op_ring(rd *r) {
  uint8_t k = u8(r);
  if (!g_nring || (g_nring < 4 && k % 3 == 0)) {
    ul_ring_desc d = {0};
    d.label = k & 8 ? "ring" : NULL;
    d.size = fix_size(PICK64(r, k_sizes));
    static const uint64_t usages[] = {0, UL_BUFFER_STORAGE, UL_BUFFER_MAP_READ, 0x10, 0xFFFFFFFF};
    d.usage = (uint32_t)PICK64(r, usages);
    static const uint64_t aligns[] = {0, 4, 256, 3, 6, 8, 2, 1, 1u << 31, UINT32_MAX, 4096};
    d.alignment = (uint32_t)PICK64(r, aligns);
    ul_ring *ring = NULL;
    ul_status s = chk(ul_ring_create(g_dev, k & 0x80 ? NULL : &d, &ring), "ul_ring_create(size=%llu usage=0x%x align=%u)",
                      (unsigned long long)d.size, d.usage, d.alignment);
    if (s == UL_OK) {
      if (!ring) oracle_fail("ul_ring_create: UL_OK without a ring");
      g_rings[g_nring++] = ring;
    }
    return;
  }
  ul_ring *ring = g_rings[u8(r) % g_nring];
  uint64_t sz = PICK64(r, k_sizes);
  if (sz > DATA_LEN && sz <= g_maxbuf) sz %= OBJ_CAP;
  ul_buffer b = {0};
  uint64_t off = 0;
  ul_status s = chk(ul_ring_push(ring, k & 0x40 ? NULL : g_data, sz, &b, &off), "ul_ring_push(%llu)",
                    (unsigned long long)sz);
  if (s == UL_OK) add_obj(K_BUF, b.id, true, 0, 0);
}

static void op_pool(rd *r) {
  uint8_t k = u8(r);
  if (!g_npool || (g_npool < 4 && k % 4 == 0)) {
    ul_buffer_pool_desc d = {0};
    static const uint64_t usages[] = {0, UL_BUFFER_STORAGE, UL_BUFFER_MAP_READ | UL_BUFFER_COPY_DST, 0x10, 0xFFFFFFFF};
    d.usage = (uint32_t)PICK64(r, usages);
    uint8_t rb = u8(r);
    d.restore = (ul_restore)(rb < 0xF0 ? rb % 7 : (int32_t)u32(r));
    d.max_free_bytes = PICK64(r, k_sizes);
    ul_buffer_pool *p = NULL;
    ul_status s = chk(ul_buffer_pool_create(g_dev, k & 0x80 ? NULL : &d, &p),
                      "ul_buffer_pool_create(usage=0x%x restore=%d max_free=%llu)", d.usage, (int)d.restore,
                      (unsigned long long)d.max_free_bytes);
    if (s == UL_OK) {
      if (!p) oracle_fail("ul_buffer_pool_create: UL_OK without a pool");
      g_pools[g_npool++] = p;
    }
    return;
  }
  ul_buffer_pool *p = g_pools[u8(r) % g_npool];
  switch ((k >> 2) % 4) {
  case 0:
  case 1: {
    uint64_t sz = fix_size(PICK64(r, k_sizes));
    ul_buffer b = {0};
    ul_status s = chk(ul_buffer_pool_acquire(p, sz, &b), "ul_buffer_pool_acquire(%llu)", (unsigned long long)sz);
    if (s == UL_OK) add_obj(K_BUF, b.id, true, 0, 0);
    break;
  }
  case 2: {
    ul_buffer b = {pick_id(r, K_BUF)};
    chk(ul_buffer_pool_release(p, b), "ul_buffer_pool_release(0x%08x)", b.id);
    /* A released buffer may be destroyed (max_free_bytes) or handed out
     * again: it stays "borrowed" either way, so nothing here destroys it. */
    break;
  }
  default:
    tracef("ul_buffer_pool_trim -> %llu", (unsigned long long)ul_buffer_pool_trim(p));
  }
}

static ul_status destroy_kind(int kind, uint32_t id) {
  switch (kind) {
  case K_BUF: return ul_buffer_destroy(g_dev, (ul_buffer){id});
  case K_TEX: return ul_texture_destroy(g_dev, (ul_texture){id});
  case K_VIEW: return ul_texture_view_destroy(g_dev, (ul_texture_view){id});
  case K_SMP: return ul_sampler_destroy(g_dev, (ul_sampler){id});
  case K_SHD: return ul_shader_destroy(g_dev, (ul_shader){id});
  case K_BGL: return ul_bind_group_layout_destroy(g_dev, (ul_bind_group_layout){id});
  case K_PL: return ul_pipeline_layout_destroy(g_dev, (ul_pipeline_layout){id});
  case K_PIPE: return ul_compute_pipeline_destroy(g_dev, (ul_compute_pipeline){id});
  default: return ul_bind_group_destroy(g_dev, (ul_bind_group){id});
  }
}

/* Destroys a live object of this input, or tries a bad handle. */
static void op_destroy(rd *r) {
  int kind = u8(r) % K_COUNT;
  uint8_t how = u8(r);
  if (how % 4 == 0) { /* a bad or mismatched handle: must not destroy anything */
    uint32_t id = pick_id(r, kind);
    bool is_live_of_kind = false;
    for (int i = 0; i < g_nobj; i++)
      if (g_objs[i].live && g_objs[i].id == id && g_objs[i].kind == kind) is_live_of_kind = true;
    if (is_live_of_kind) return; /* that would be a real destroy, done below */
    chk(destroy_kind(kind, id), "ul_%s_destroy(0x%08x) [not a live %s]", k_kind[kind], id, k_kind[kind]);
    return;
  }
  obj *o = live_of(r, kind);
  if (!o || o->borrowed) return;
  ul_status s = chk(destroy_kind(o->kind, o->id), "ul_%s_destroy(0x%08x)", k_kind[o->kind], o->id);
  if (s != UL_OK) oracle_fail("destroying a live %s failed with %s", k_kind[o->kind], ul_status_name(s));
  forget(o->id);
}

static void op_misc(rd *r) {
  switch (u8(r) % 4) {
  case 0: chk(ul_device_checkpoint(g_dev), "ul_device_checkpoint"); break;
  case 1: chk(ul_device_wait_idle(g_dev, TIMEOUT_MS), "ul_device_wait_idle"); break;
  case 2: {
    ul_memory_stats st;
    chk(ul_device_memory_stats(g_dev, &st), "ul_device_memory_stats");
    break;
  }
  default: {
    int n = ul_device_poll(g_dev);
    tracef("ul_device_poll -> %d", n);
  }
  }
}

/* Everything the input made, newest first. */
static void cleanup(void) {
  chk(ul_device_wait_idle(g_dev, TIMEOUT_MS), "cleanup: ul_device_wait_idle");
  for (int i = 0; i < 100; i++)
    if (ul_device_poll(g_dev) <= 0) break;
  for (int i = g_ncmd - 1; i >= 0; i--) ul_cmd_destroy(g_cmds[i]);
  for (int i = g_nring - 1; i >= 0; i--) ul_ring_destroy(g_rings[i]);
  for (int i = g_npool - 1; i >= 0; i--) ul_buffer_pool_destroy(g_pools[i]);
  for (int i = g_nobj - 1; i >= 0; i--) {
    obj *o = &g_objs[i];
    if (!o->live || o->borrowed) continue;
    ul_status s = chk(destroy_kind(o->kind, o->id), "cleanup: ul_%s_destroy(0x%08x)", k_kind[o->kind], o->id);
    if (s != UL_OK) oracle_fail("cleanup: destroying a live %s failed with %s", k_kind[o->kind], ul_status_name(s));
    forget(o->id);
  }
  g_ncmd = g_nring = g_npool = g_nobj = 0;
  g_nstale = 0;
  g_nshaders = g_npipelines = 0;
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
  ul_clear_error();
  ul_memory_stats before, after;
  chk(ul_device_memory_stats(g_dev, &before), "ul_device_memory_stats (before)");
  rd r = {data, size, 0};
  g_sane = u8(&r) & 1;
  /* A sane input mostly follows the order objects depend on each other. */
  static const uint8_t canonical[] = {0, 0, 3, 4, 5, 6, 7, 9, 10, 10, 12, 12, 14, 15, 16, 17, 18, 19};
  for (int op = 0; op < MAX_OPS && more(&r); op++) {
    uint8_t ob = u8(&r);
    if (g_sane && ob % 4) ob = canonical[op % sizeof canonical];
    switch (ob % 20) {
    case 0:
    case 1:
    case 2: op_buffer_create(&r); break;
    case 3: op_texture_create(&r); break;
    case 4: op_view_create(&r); break;
    case 5: op_sampler_create(&r); break;
    case 6: op_shader_create(&r); break;
    case 7: op_bgl_create(&r); break;
    case 8: op_playout_create(&r); break;
    case 9: op_pipeline_create(&r); break;
    case 10:
    case 11: op_bind_group_create(&r); break;
    case 12:
    case 13: op_cmd_record(&r); break;
    case 14: op_submit(&r); break;
    case 15: op_buffer_io(&r); break;
    case 16: op_texture_io(&r); op_async_read(&r); break;
    case 17: op_ring(&r); op_pool(&r); break;
    case 18: op_destroy(&r); break;
    default: op_misc(&r); break;
    }
  }
  cleanup();
  chk(ul_device_memory_stats(g_dev, &after), "ul_device_memory_stats (after)");
  if (after.live_objects != before.live_objects)
    oracle_fail("leak: live_objects %llu before the input, %llu after everything was destroyed",
                (unsigned long long)before.live_objects, (unsigned long long)after.live_objects);
  /* Keep the operation log (and objects it still names) bounded. */
  if (after.log_bytes > (16u << 20)) chk(ul_device_checkpoint(g_dev), "ul_device_checkpoint (bound the log)");
  return 0;
}

static void make_source_file(void) {
  snprintf(g_src_path, sizeof g_src_path, "/tmp/unlost-fuzz-src-XXXXXX");
  int fd = mkstemp(g_src_path);
  if (fd < 0) {
    perror("mkstemp");
    exit(1);
  }
  ssize_t w = write(fd, g_data, 65536);
  close(fd);
  if (w != 65536) exit(1);
}

static void remove_source_file(void) {
  if (g_src_path[0]) unlink(g_src_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (g_dev) return 0;
  ul_test_current = "fuzz_descriptors"; /* ul_test.h: pins the CPU driver for LSan */
  (void)ul_test_failures;
  if (!getenv("XDG_RUNTIME_DIR")) setenv("XDG_RUNTIME_DIR", "/tmp", 0);
  if (!getenv("UNLOST_LOG")) setenv("UNLOST_LOG", "none", 0);
  g_data = malloc(DATA_LEN);
  g_out = malloc(DATA_LEN);
  g_async = malloc(DATA_LEN);
  if (!g_data || !g_out || !g_async) exit(1);
  for (size_t i = 0; i < DATA_LEN; i++) g_data[i] = (uint8_t)(i * 131u + 7u);
  make_source_file();
  atexit(remove_source_file);
  ul_env_desc ed = {0};
  if (!getenv("UNLOST_WEBGPU_LIB") && access(UL_DAWN_LIB, R_OK) == 0) ed.webgpu_lib = UL_DAWN_LIB;
  ul_device_desc dd = {.label = "fuzz"};
  if (ul_env_create(&ed, &g_env) || ul_device_create(g_env, &dd, &g_dev) ||
      ul_device_create(g_env, &(ul_device_desc){.label = "foreign"}, &g_dev2)) {
    fprintf(stderr, "fuzz_descriptors: setup: %s\n", ul_last_error());
    exit(1);
  }
  if (ul_buffer_create(g_dev2, &(ul_buffer_desc){.size = 256}, &g_foreign_buf)) {
    fprintf(stderr, "fuzz_descriptors: setup: %s\n", ul_last_error());
    exit(1);
  }
  ul_limits lim;
  if (ul_device_limits(g_dev, &lim)) {
    fprintf(stderr, "fuzz_descriptors: limits: %s\n", ul_last_error());
    exit(1);
  }
  g_maxbuf = lim.max_buffer_size;
  if (g_maxbuf < OBJ_CAP) g_maxbuf = OBJ_CAP;
  return 0;
}

static void teardown(void) {
  ul_buffer_destroy(g_dev2, g_foreign_buf);
  ul_status s1 = ul_device_destroy(g_dev);
  ul_status s2 = ul_device_destroy(g_dev2);
  ul_status s3 = ul_env_destroy(g_env);
  if (s1 || s2 || s3) {
    fprintf(stderr, "fuzz_descriptors: teardown: %s %s %s: %s\n", ul_status_name(s1), ul_status_name(s2),
            ul_status_name(s3), ul_last_error());
    exit(1);
  }
  g_dev = g_dev2 = NULL;
  g_env = NULL;
  free(g_data);
  free(g_out);
  free(g_async);
}

#ifndef UL_LIBFUZZER
#include "fuzz_replay.h"
/* ---- standalone driver: random programs and mutations, bounded time -------- */

static uint64_t rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define IN_CAP 1024

static size_t mutate(uint64_t *s, uint8_t *buf, size_t n) {
  static const uint8_t interesting[] = {0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7f, 0x80, 0xdf, 0xe0, 0xef, 0xf0, 0xf8, 0xff};
  int steps = 1 + (int)(rnd(s) % 4);
  for (int k = 0; k < steps; k++) {
    switch (rnd(s) % 6) {
    case 0:
      if (n) buf[rnd(s) % n] ^= (uint8_t)(1u << (rnd(s) % 8));
      break;
    case 1:
      if (n) buf[rnd(s) % n] = interesting[rnd(s) % sizeof interesting];
      break;
    case 2:
      if (n) buf[rnd(s) % n] = (uint8_t)rnd(s);
      break;
    case 3: /* insert random bytes */
    {
      size_t add = 1 + rnd(s) % 8, at = n ? rnd(s) % (n + 1) : 0;
      if (n + add > IN_CAP) break;
      memmove(buf + at + add, buf + at, n - at);
      for (size_t i = 0; i < add; i++) buf[at + i] = (uint8_t)rnd(s);
      n += add;
      break;
    }
    case 4: /* delete a run */
      if (n > 1) {
        size_t at = rnd(s) % n, l = 1 + rnd(s) % 8;
        if (at + l > n) l = n - at;
        memmove(buf + at, buf + at + l, n - at - l);
        n -= l;
      }
      break;
    default: /* truncate */
      if (n) n = rnd(s) % n + 1;
    }
  }
  return n;
}


static void on_signal(int sig) {
  static const char msg[] = "fuzz_descriptors: fatal signal or hang; input saved to crash-fuzz_descriptors-sig\n";
  int fd = open("crash-fuzz_descriptors-sig", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ssize_t w = write(fd, g_cur, g_cur_size);
    (void)w;
    close(fd);
  }
  ssize_t w = write(2, msg, sizeof msg - 1);
  (void)w;
  if (sig == SIGALRM) _exit(124);
  signal(sig, SIG_DFL);
  raise(sig);
}

/* With a sanitizer, its report ends the process without a signal: save the
 * input from its death callback. */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));
static void on_sanitizer_death(void) { save_input("sanitizer report"); }
/* UBSan's runtime is a library of its own under GCC and does not call
 * ASan's death callback; its hook runs before each of its reports (the
 * first ends the process: -fno-sanitize-recover). */
void __ubsan_on_report(void);
void __ubsan_on_report(void) { save_input("UBSan report"); }

int main(int argc, char **argv) {
  double seconds = 20;
  uint64_t seed = now_ns();
  bool stats = false;
  signal(SIGSEGV, on_signal);
  signal(SIGBUS, on_signal);
  signal(SIGFPE, on_signal);
  signal(SIGILL, on_signal);
  if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(on_sanitizer_death);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else if (!strcmp(argv[i], "--trace")) g_trace = true;
    else if (!strcmp(argv[i], "--stats")) stats = true;
    else if (argv[i][0] == '-') {
      fprintf(stderr, "usage: %s [--seconds N] [--seed N] [--trace] [--stats] [FILE|DIR ...]\n", argv[0]);
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
  printf("fuzz_descriptors: seed %llu, %.0f s, %llu replayed\n", (unsigned long long)seed, seconds,
         (unsigned long long)replayed);
  fflush(stdout);
  uint8_t *buf = malloc(IN_CAP), *keep[16];
  size_t keep_n[16] = {0};
  int nkeep = 0;
  for (int i = 0; i < 16; i++) keep[i] = malloc(IN_CAP);
  uint64_t s = seed, runs = 0, t0 = now_ns(), end = t0 + (uint64_t)(seconds * 1e9);
  while (now_ns() < end) {
    size_t n;
    if (nkeep && rnd(&s) % 2) {
      int k = (int)(rnd(&s) % (uint64_t)nkeep);
      memcpy(buf, keep[k], keep_n[k]);
      n = mutate(&s, buf, keep_n[k]);
    } else {
      n = 16 + rnd(&s) % 400;
      for (size_t i = 0; i < n; i++) buf[i] = (uint8_t)rnd(&s);
    }
    uint64_t created0 = 0;
    ul_memory_stats st;
    if (!ul_device_memory_stats(g_dev, &st)) created0 = st.created;
    LLVMFuzzerTestOneInput(buf, n);
    /* Keep inputs that made many objects: mutations of them go deeper. */
    if (!ul_device_memory_stats(g_dev, &st) && st.created - created0 >= 4) {
      int k = nkeep < 16 ? nkeep++ : (int)(rnd(&s) % 16);
      memcpy(keep[k], buf, n);
      keep_n[k] = n;
    }
    runs++;
  }
  double el = (double)(now_ns() - t0) / 1e9;
  ul_memory_stats st = {0};
  ul_device_memory_stats(g_dev, &st);
  printf("fuzz_descriptors: %llu inputs in %.1f s (%.1f/s), %llu objects created, no failure\n",
         (unsigned long long)runs, el, runs / (el > 0 ? el : 1), (unsigned long long)st.created);
  if (stats)
    for (int i = 0; i < 64 && g_stats[i].name[0]; i++)
      printf("  %-40s ok %-8llu failed %llu\n", g_stats[i].name, (unsigned long long)g_stats[i].ok,
             (unsigned long long)g_stats[i].err);
  free(buf);
  for (int i = 0; i < 16; i++) free(keep[i]);
  teardown();
  return 0;
}
#endif
