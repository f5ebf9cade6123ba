/* Generated programs on webgpu.h alone (issue 36): the layer's Csmith. Each
 * run is a deterministic function of a seed: random WGSL compute modules
 * (several entry points; storage bindings read, read_write and stored to,
 * read_write and only read; uniforms; bindings at offsets), buffers of
 * random sizes, bind groups made per dispatch, encoders of several passes
 * and copies and clears, several command buffers per submit, dispatches that
 * read what an earlier one wrote, uploads by wgpuQueueWriteBuffer from the
 * heap and from a read-only mmap of a file the program wrote first,
 * mappedAtCreation buffers, and MAP_READ readbacks at random points in
 * every callback mode -- on several threads, each with its own buffers and
 * pipelines on the one device.
 *
 * Every kernel is also evaluated on the CPU (a shadow copy of each buffer),
 * so each readback is checked against an independent computation as well
 * as digested: `unlost chaos --workload webgpu-gen` compares the digest
 * through the layer under loss schedules with the direct run's.
 *
 * Arguments (besides wgpu_prog.h's --repeat): --seed S (else $WGPU_GEN_SEED,
 * else 1), --size K (1..8, else $WGPU_GEN_SIZE, else 1: more operations and
 * larger buffers), --threads T (0..4 threads beside the main one, or
 * "seed": 0 to 2 chosen by the seed; else $WGPU_GEN_THREADS, else 0: through
 * the layer, threads still meet the bugs docs/webgpu.md lists under "Chaos
 * through the front door"), --print-wgsl (the modules on stderr). */
#include "wgpu_prog.h"

#include <fcntl.h>
#include <stdarg.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#define G_MAX_BIND 7   /* bindings per module (6 storage at most: the limit is 8) */
#define G_MAX_ENTRY 3  /* entry points per module */
#define G_MAX_MOD 2    /* modules per thread */
#define G_NSTORE 7     /* storage buffers per thread */
#define G_NUNI 2       /* uniform buffers per thread */
#define G_UNI_WORDS 16 /* array<vec4u, 4> */
#define G_MAX_NODES 512
#define G_MAX_THREADS 5
#define G_BULK_WORDS (128u * 1024u)

static unsigned g_size = 1, g_threads = 0;
static bool g_threads_set = true, g_print_wgsl;
static uint64_t g_seed = 1;

/* ---- random numbers ---- */

static uint64_t g_mix(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* 0..n-1 */
static uint32_t g_pick(uint64_t *s, uint32_t n) { return n ? (uint32_t)(g_mix(s) % n) : 0; }

static uint64_t fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

/* ---- kernels: an expression tree, printed as WGSL and evaluated on the CPU ---- */

enum { B_RO, B_RW, B_UNI };          /* a binding's declaration */
enum { R_NONE, R_READ, R_WRITE };    /* its role in one entry point */
enum { N_CONST, N_GID, N_READ, N_SELF, N_UNI, N_BIN, N_SHR, N_SHL, N_SELECT };
enum { OP_ADD, OP_SUB, OP_MUL, OP_XOR, OP_OR, OP_AND, OP_MIN, OP_MAX, OP_COUNT };

typedef struct gnode {
  uint8_t kind, op, b;
  uint32_t a, c; /* N_CONST: a; N_READ: index i*a+c; N_UNI: word a; shifts: c */
  int l, r, x;
} gnode;

typedef struct gentry {
  uint8_t role[G_MAX_BIND];
  int store[G_MAX_BIND]; /* the root node of each written binding's store */
  uint32_t wg;           /* workgroup size */
} gentry;

typedef struct gmodule {
  int nb, ne;
  uint8_t decl[G_MAX_BIND];
  gentry e[G_MAX_ENTRY];
  gnode nodes[G_MAX_NODES];
  int nn;
  WGPUShaderModule module;
  WGPUComputePipeline pipe[G_MAX_ENTRY];
  WGPUBindGroupLayout bgl[G_MAX_ENTRY];
} gmodule;

static int node_new(gmodule *m, gnode n) {
  if (m->nn >= G_MAX_NODES) return -1;
  m->nodes[m->nn] = n;
  return m->nn++;
}

/* A random expression of entry `e` for the store to binding `self`. */
static int gen_expr(gmodule *m, const gentry *e, int self, uint64_t *s, int depth) {
  uint32_t k = g_pick(s, depth <= 0 ? 5 : 9);
  gnode n = {.l = -1, .r = -1, .x = -1};
  if (m->nn >= G_MAX_NODES - 4) k = 0;
  switch (k) {
  case 0: n.kind = N_CONST; n.a = g_pick(s, 4) ? g_pick(s, 1000) : (uint32_t)g_mix(s); break;
  case 1: n.kind = N_GID; break;
  case 2:
  case 3: {
    int cand[G_MAX_BIND], nc = 0;
    for (int b = 0; b < m->nb; b++)
      if (e->role[b] == R_READ) cand[nc++] = b;
    if (!nc) {
      n.kind = k == 2 ? N_SELF : N_GID;
      n.b = (uint8_t)self;
      break;
    }
    n.b = (uint8_t)cand[g_pick(s, (uint32_t)nc)];
    if (m->decl[n.b] == B_UNI) {
      n.kind = N_UNI;
      n.a = g_pick(s, G_UNI_WORDS);
    } else {
      n.kind = N_READ;
      n.a = g_pick(s, 3) ? 1 + g_pick(s, 7) : (uint32_t)g_mix(s) | 1;
      n.c = g_pick(s, 4096);
    }
    break;
  }
  case 4: n.kind = N_SELF; n.b = (uint8_t)self; break;
  case 5:
  case 6:
    n.kind = N_BIN;
    n.op = (uint8_t)g_pick(s, OP_COUNT);
    n.l = gen_expr(m, e, self, s, depth - 1);
    n.r = gen_expr(m, e, self, s, depth - 1);
    break;
  case 7:
    n.kind = g_pick(s, 2) ? N_SHR : N_SHL;
    n.c = g_pick(s, 32);
    n.l = gen_expr(m, e, self, s, depth - 1);
    break;
  default:
    n.kind = N_SELECT;
    n.l = gen_expr(m, e, self, s, depth - 1);
    n.r = gen_expr(m, e, self, s, depth - 1);
    n.x = gen_expr(m, e, self, s, depth - 1);
    break;
  }
  if ((n.kind == N_BIN || n.kind == N_SELECT) && (n.l < 0 || n.r < 0)) return node_new(m, (gnode){.kind = N_GID});
  if (n.kind == N_SELECT && n.x < 0) return node_new(m, (gnode){.kind = N_GID});
  if ((n.kind == N_SHR || n.kind == N_SHL) && n.l < 0) return node_new(m, (gnode){.kind = N_GID});
  return node_new(m, n);
}

static bool refers(const gmodule *m, int root, int b) {
  if (root < 0) return false;
  const gnode *n = &m->nodes[root];
  if ((n->kind == N_READ || n->kind == N_UNI) && n->b == b) return true;
  return refers(m, n->l, b) || refers(m, n->r, b) || refers(m, n->x, b);
}

typedef struct gbuf_text {
  char *p;
  size_t len, cap;
} gtext;

static void put(gtext *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(gtext *t, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < t->cap - t->len) {
      t->len += (size_t)n;
      return;
    }
    t->cap = t->cap * 2 + (size_t)(n > 0 ? n : 0) + 256;
    char *q = realloc(t->p, t->cap);
    if (!q) {
      fprintf(stderr, "out of host memory\n");
      exit(WP_FAIL);
    }
    t->p = q;
  }
}

static const char *const op_wgsl[OP_COUNT] = {"+", "-", "*", "^", "|", "&", "min", "max"};

static void print_expr(gtext *t, const gmodule *m, int root) {
  const gnode *n = &m->nodes[root];
  switch (n->kind) {
  /* A constant is added to z (g.y, always 0: the dispatches are 1-D), so
   * that no subexpression is a const-expression, whose overflow WGSL
   * rejects at shader creation. */
  case N_CONST: put(t, "(z + %uu)", n->a); break;
  case N_GID: put(t, "i"); break;
  case N_READ: put(t, "b%u[(i * %uu + %uu) %% arrayLength(&b%u)]", n->b, n->a, n->c, n->b); break;
  case N_SELF: put(t, "b%u[i]", n->b); break;
  case N_UNI: put(t, "b%u[%u][%u]", n->b, n->a / 4, n->a % 4); break;
  case N_BIN:
    if (n->op >= OP_MIN) put(t, "%s(", op_wgsl[n->op]);
    else put(t, "(");
    print_expr(t, m, n->l);
    put(t, n->op >= OP_MIN ? ", " : " %s ", op_wgsl[n->op]);
    print_expr(t, m, n->r);
    put(t, ")");
    break;
  case N_SHR:
  case N_SHL:
    put(t, "(");
    print_expr(t, m, n->l);
    put(t, " %s %uu)", n->kind == N_SHR ? ">>" : "<<", n->c);
    break;
  case N_SELECT:
    put(t, "select(");
    print_expr(t, m, n->l);
    put(t, ", ");
    print_expr(t, m, n->r);
    put(t, ", ");
    print_expr(t, m, n->x);
    put(t, " < ");
    print_expr(t, m, n->l);
    put(t, ")");
    break;
  }
}

/* What a binding of one dispatch sees: the shadow words from its offset. */
typedef struct gview {
  uint32_t *w;
  uint32_t len;
} gview;

static uint32_t eval(const gmodule *m, int root, uint32_t i, const gview *v) {
  const gnode *n = &m->nodes[root];
  switch (n->kind) {
  case N_CONST: return n->a;
  case N_GID: return i;
  case N_READ: return v[n->b].w[(i * n->a + n->c) % v[n->b].len];
  case N_SELF: return v[n->b].w[i];
  case N_UNI: return v[n->b].w[n->a];
  case N_BIN: {
    uint32_t a = eval(m, n->l, i, v), b = eval(m, n->r, i, v);
    switch (n->op) {
    case OP_ADD: return a + b;
    case OP_SUB: return a - b;
    case OP_MUL: return a * b;
    case OP_XOR: return a ^ b;
    case OP_OR: return a | b;
    case OP_AND: return a & b;
    case OP_MIN: return a < b ? a : b;
    default: return a > b ? a : b;
    }
  }
  case N_SHR: return eval(m, n->l, i, v) >> n->c;
  case N_SHL: return eval(m, n->l, i, v) << n->c;
  default: {
    uint32_t f = eval(m, n->l, i, v), t = eval(m, n->r, i, v), x = eval(m, n->x, i, v);
    return x < f ? t : f;
  }
  }
}

/* A module: its bindings, entry points with their roles and stores, and
 * the WGSL (returned, to be freed). */
static char *gen_module(gmodule *m, uint64_t *s) {
  memset(m, 0, sizeof *m);
  int nstorage = 0;
  m->nb = 2 + (int)g_pick(s, G_MAX_BIND - 1);
  for (int b = 0; b < m->nb; b++) {
    uint32_t k = g_pick(s, 6);
    m->decl[b] = k < 3 ? B_RW : k < 5 ? B_RO : B_UNI;
    if (m->decl[b] != B_UNI && ++nstorage > G_NSTORE - 1) m->decl[b] = B_UNI;
  }
  m->decl[0] = B_RW; /* at least one binding can be stored to */
  m->ne = 1 + (int)g_pick(s, G_MAX_ENTRY);
  gtext t = {0};
  for (int b = 0; b < m->nb; b++)
    put(&t, "@group(0) @binding(%d) var<%s> b%d: %s;\n", b,
        m->decl[b] == B_RO ? "storage, read" : m->decl[b] == B_RW ? "storage, read_write" : "uniform", b,
        m->decl[b] == B_UNI ? "array<vec4u, 4>" : "array<u32>");
  for (int k = 0; k < m->ne; k++) {
    gentry *e = &m->e[k];
    int nw = 0;
    for (int b = 0; b < m->nb; b++) {
      uint32_t r = g_pick(s, 4);
      e->role[b] = r == 0 ? R_NONE : (m->decl[b] == B_RW && r >= 2) ? R_WRITE : R_READ;
      if (e->role[b] == R_WRITE) nw++;
    }
    if (!nw) {
      int rw[G_MAX_BIND], n = 0;
      for (int b = 0; b < m->nb; b++)
        if (m->decl[b] == B_RW) rw[n++] = b;
      e->role[rw[g_pick(s, (uint32_t)n)]] = R_WRITE;
    }
    e->wg = g_pick(s, 3) ? 64 : 32;
    int first = -1;
    for (int b = 0; b < m->nb; b++) {
      e->store[b] = -1;
      if (e->role[b] != R_WRITE) continue;
      e->store[b] = gen_expr(m, e, b, s, 1 + (int)g_pick(s, 4));
      if (first < 0) first = b;
    }
    /* Every binding read by the entry point is referred to (the layout
     * "auto" leaves out what the code does not use). */
    for (int b = 0; b < m->nb; b++) {
      if (e->role[b] != R_READ) continue;
      bool used = false;
      for (int w = 0; w < m->nb; w++) used = used || refers(m, e->store[w], b);
      if (used) continue;
      gnode rd = {.b = (uint8_t)b, .l = -1, .r = -1, .x = -1};
      if (m->decl[b] == B_UNI) {
        rd.kind = N_UNI;
        rd.a = g_pick(s, G_UNI_WORDS);
      } else {
        rd.kind = N_READ;
        rd.a = 1 + g_pick(s, 5);
        rd.c = g_pick(s, 100);
      }
      int r = node_new(m, rd);
      int sum = r >= 0 ? node_new(m, (gnode){.kind = N_BIN, .op = OP_ADD, .l = e->store[first], .r = r, .x = -1})
                       : -1;
      if (sum < 0) {
        e->role[b] = R_NONE; /* out of nodes: not used after all */
        continue;
      }
      e->store[first] = sum;
    }
    put(&t, "\n@compute @workgroup_size(%u)\nfn e%d(@builtin(global_invocation_id) g: vec3u) {\n  let i = g.x;\n  let z = g.y;\n",
        e->wg, k);
    for (int b = 0; b < m->nb; b++) {
      if (e->role[b] != R_WRITE) continue;
      put(&t, "  if (i < arrayLength(&b%d)) {\n    b%d[i] = ", b, b);
      print_expr(&t, m, e->store[b]);
      put(&t, ";\n  }\n");
    }
    put(&t, "}\n");
  }
  return t.p;
}

/* ---- one thread's workload ---- */

typedef struct gbuf {
  WGPUBuffer b;
  uint32_t *shadow;
  uint32_t words;
  bool uniform;
} gbuf;

typedef struct gthread {
  wp_ctx *c;
  int index;
  uint64_t rng;
  uint64_t digest;
  bool ok;
  gmodule mod[G_MAX_MOD];
  int nmod;
  gbuf store[G_NSTORE], uni[G_NUNI];
  const uint32_t *file; /* the read-only mapping */
  uint32_t file_words;
  char path[256];
  unsigned ops, dispatches, readbacks;
} gthread;

static bool gt_live(gthread *t) {
  return t->ok && !atomic_load(&t->c->errors) && !atomic_load(&t->c->lost);
}

static void fill_random(gthread *t, uint32_t *w, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) w[i] = (uint32_t)g_mix(&t->rng);
}

/* A buffer of the pool, made again: random size, contents by
 * mappedAtCreation (random words) or none (zeros). */
static void make_buffer(gthread *t, gbuf *g, bool uniform, uint32_t words) {
  if (g->b) wgpuBufferRelease(g->b);
  free(g->shadow);
  g->uniform = uniform;
  g->words = uniform ? G_UNI_WORDS : words ? words : (16 + g_pick(&t->rng, 1024 * g_size)) & ~3u;
  g->shadow = wp_alloc((size_t)g->words * 4);
  bool mapped = g_pick(&t->rng, 2);
  WGPUBufferDescriptor d = {
      .label = WP_STR(uniform ? "uniform" : "storage"),
      .usage = WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst |
               (uniform ? WGPUBufferUsage_Uniform : WGPUBufferUsage_Storage),
      .size = (uint64_t)g->words * 4,
      .mappedAtCreation = mapped};
  g->b = wgpuDeviceCreateBuffer(t->c->device, &d);
  if (mapped) {
    fill_random(t, g->shadow, g->words);
    void *p = wgpuBufferGetMappedRange(g->b, 0, (size_t)g->words * 4);
    if (p) memcpy(p, g->shadow, (size_t)g->words * 4);
    else {
      fprintf(stderr, "gen: thread %d: wgpuBufferGetMappedRange of a buffer mapped at creation returned NULL\n",
              t->index);
      t->ok = false;
    }
    wgpuBufferUnmap(g->b);
  }
}

static gbuf *any_buffer(gthread *t) {
  uint32_t k = g_pick(&t->rng, G_NSTORE + G_NUNI);
  return k < G_NSTORE ? &t->store[k] : &t->uni[k - G_NSTORE];
}

/* A range of words in a buffer: [*off, *off + *n), n >= 1. */
static void pick_range(gthread *t, const gbuf *g, uint32_t *off, uint32_t *n) {
  *off = g_pick(&t->rng, g->words);
  *n = 1 + g_pick(&t->rng, g->words - *off);
}

/* WriteBuffer from the heap or from the read-only mapping of the file. */
static void op_write(gthread *t) {
  gbuf *g = any_buffer(t);
  uint32_t off, n;
  pick_range(t, g, &off, &n);
  if (g_pick(&t->rng, 2) && n <= t->file_words) {
    uint32_t at = g_pick(&t->rng, t->file_words - n + 1);
    wgpuQueueWriteBuffer(t->c->queue, g->b, (uint64_t)off * 4, t->file + at, (size_t)n * 4);
    memcpy(g->shadow + off, t->file + at, (size_t)n * 4);
  } else {
    uint32_t *heap = wp_alloc((size_t)n * 4);
    fill_random(t, heap, n);
    wgpuQueueWriteBuffer(t->c->queue, g->b, (uint64_t)off * 4, heap, (size_t)n * 4);
    memcpy(g->shadow + off, heap, (size_t)n * 4);
    /* The layer keeps its own copy: the program's bytes change at once. */
    memset(heap, 0xa5, (size_t)n * 4);
    free(heap);
  }
}

/* A large storage buffer (512 KiB) made again and written whole from the
 * heap: the layer keeps those bytes in its operation log, so a few of
 * these fill a small log (UNLOST_LOG_MAX_MB=1, as `unlost chaos --programs`
 * sets) and make the layer checkpoint, after which a loss restores from
 * the checkpoint rather than replaying everything from the start. */
static void op_bulk(gthread *t) {
  gbuf *g = &t->store[g_pick(&t->rng, G_NSTORE)];
  make_buffer(t, g, false, G_BULK_WORDS);
  fill_random(t, g->shadow, g->words);
  wgpuQueueWriteBuffer(t->c->queue, g->b, 0, g->shadow, (size_t)g->words * 4);
}

/* One dispatch of a random entry point with new bind group, computed on
 * the CPU too. */
static void enc_dispatch(gthread *t, WGPUComputePassEncoder pass) {
  gmodule *m = &t->mod[g_pick(&t->rng, (uint32_t)t->nmod)];
  int k = (int)g_pick(&t->rng, (uint32_t)m->ne);
  gentry *e = &m->e[k];
  /* Distinct storage buffers for the storage bindings (a written one may
   * alias nothing), any uniform buffer for the uniforms. */
  int perm[G_NSTORE];
  for (int i = 0; i < G_NSTORE; i++) perm[i] = i;
  for (int i = G_NSTORE - 1; i > 0; i--) {
    int j = (int)g_pick(&t->rng, (uint32_t)i + 1), x = perm[i];
    perm[i] = perm[j];
    perm[j] = x;
  }
  WGPUBindGroupEntry be[G_MAX_BIND];
  gview v[G_MAX_BIND];
  memset(v, 0, sizeof v);
  int nbe = 0, ns = 0;
  uint32_t max_written = 0;
  for (int b = 0; b < m->nb; b++) {
    if (!e->role[b]) continue;
    gbuf *g = m->decl[b] == B_UNI ? &t->uni[g_pick(&t->rng, G_NUNI)] : &t->store[perm[ns++]];
    uint32_t off = 0; /* in words; storage offsets are multiples of 256 bytes */
    if (m->decl[b] != B_UNI && g->words > 128 && g_pick(&t->rng, 3) == 0)
      off = 64 * g_pick(&t->rng, (g->words - 1) / 64);
    be[nbe++] = wp_bind_buffer((uint32_t)b, g->b, (uint64_t)off * 4,
                               m->decl[b] == B_UNI ? G_UNI_WORDS * 4 : WGPU_WHOLE_SIZE);
    v[b] = (gview){g->shadow + off, g->words - off};
    if (e->role[b] == R_WRITE && v[b].len > max_written) max_written = v[b].len;
  }
  WGPUBindGroup group = wp_bind_group(t->c, "gen", m->bgl[k], be, (size_t)nbe);
  uint32_t groups = (max_written + e->wg - 1) / e->wg;
  uint32_t r = g_pick(&t->rng, 4);
  if (r == 0 && groups > 1) groups--; /* some elements left as they were */
  else if (r == 1) groups++;
  wgpuComputePassEncoderSetPipeline(pass, m->pipe[k]);
  wgpuComputePassEncoderSetBindGroup(pass, 0, group, 0, NULL);
  wgpuComputePassEncoderDispatchWorkgroups(pass, groups, 1, 1);
  wgpuBindGroupRelease(group);
  for (uint32_t i = 0; i < groups * e->wg; i++)
    for (int b = 0; b < m->nb; b++)
      if (e->role[b] == R_WRITE && i < v[b].len) v[b].w[i] = eval(m, e->store[b], i, v);
  t->dispatches++;
}

/* Copy or clear between passes. */
static void enc_copy(gthread *t, WGPUCommandEncoder enc) {
  gbuf *src = any_buffer(t), *dst = any_buffer(t);
  if (g_pick(&t->rng, 4) == 0 || src == dst) {
    uint32_t off, n;
    pick_range(t, dst, &off, &n);
    wgpuCommandEncoderClearBuffer(enc, dst->b, (uint64_t)off * 4, (uint64_t)n * 4);
    memset(dst->shadow + off, 0, (size_t)n * 4);
    return;
  }
  uint32_t so, n;
  pick_range(t, src, &so, &n);
  if (n > dst->words) n = dst->words;
  uint32_t d = g_pick(&t->rng, dst->words - n + 1);
  wgpuCommandEncoderCopyBufferToBuffer(enc, src->b, (uint64_t)so * 4, dst->b, (uint64_t)d * 4, (uint64_t)n * 4);
  memmove(dst->shadow + d, src->shadow + so, (size_t)n * 4);
}

/* 1-3 command buffers of passes (1-3 dispatches each) and copies, in one
 * submit. The CPU applies them as they are encoded: nothing else reaches
 * the queue before the submit. */
static void op_submit(gthread *t) {
  WGPUCommandBuffer cmds[3];
  uint32_t ncmd = 1 + g_pick(&t->rng, 3);
  for (uint32_t k = 0; k < ncmd; k++) {
    WGPUCommandEncoder enc = wp_encoder(t->c, "gen");
    uint32_t steps = 1 + g_pick(&t->rng, 4);
    for (uint32_t s = 0; s < steps; s++) {
      if (g_pick(&t->rng, 3) == 0) {
        enc_copy(t, enc);
        continue;
      }
      WGPUComputePassDescriptor pd = {.label = WP_STR("gen")};
      WGPUComputePassEncoder pass = wgpuCommandEncoderBeginComputePass(enc, &pd);
      uint32_t nd = 1 + g_pick(&t->rng, 3);
      for (uint32_t d = 0; d < nd; d++) enc_dispatch(t, pass);
      wgpuComputePassEncoderEnd(pass);
      wgpuComputePassEncoderRelease(pass);
    }
    WGPUCommandBufferDescriptor cd = {.label = WP_STR("gen")};
    cmds[k] = wgpuCommandEncoderFinish(enc, &cd);
    wgpuCommandEncoderRelease(enc);
  }
  wgpuQueueSubmit(t->c->queue, ncmd, cmds);
  for (uint32_t k = 0; k < ncmd; k++) wgpuCommandBufferRelease(cmds[k]);
}

/* Waits for every future, with WaitAny in short slices: with several
 * threads waiting on one instance, Dawn's timed WaitAny can answer
 * "timed out" at once for a future another thread's wait is completing
 * (seen on the CPU adapter), so a slice that ends without it is tried
 * again until WP_WAIT_NS. */
static bool g_wait(wp_ctx *c, const WGPUFuture *fs, size_t n, const char *what) {
  double deadline = wp_now_s() + (double)WP_WAIT_NS * 1e-9;
  for (size_t i = 0; i < n; i++) {
    for (;;) {
      WGPUFutureWaitInfo info = {.future = fs[i], .completed = 0};
      WGPUWaitStatus st = wgpuInstanceWaitAny(c->instance, 1, &info, 10 * 1000000ull);
      if (st == WGPUWaitStatus_Success && info.completed) break;
      if ((st != WGPUWaitStatus_Success && st != WGPUWaitStatus_TimedOut) || wp_now_s() > deadline) {
        fprintf(stderr, "%s: waiting for %s: %s\n", c->name, what, wp_wait_status_name(st));
        return false;
      }
    }
  }
  return true;
}

/* Maps `rb` for reading in one of three callback modes. */
static bool map_read(gthread *t, WGPUBuffer rb, size_t size) {
  wp_ctx *c = t->c;
  uint32_t mode = g_pick(&t->rng, 3);
  wp_request *map = wp_request_new(), *done = mode ? wp_request_new() : NULL;
  bool ok;
  if (mode == 0) {
    WGPUBufferMapCallbackInfo cb = {.mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_map, .userdata1 = map};
    WGPUFuture f = wgpuBufferMapAsync(rb, WGPUMapMode_Read, 0, size, cb);
    ok = g_wait(c, &f, 1, "a readback's map");
  } else if (mode == 1) {
    WGPUBufferMapCallbackInfo cb = {
        .mode = WGPUCallbackMode_AllowProcessEvents, .callback = wp_on_map, .userdata1 = map};
    wgpuBufferMapAsync(rb, WGPUMapMode_Read, 0, size, cb);
    WGPUQueueWorkDoneCallbackInfo dcb = {
        .mode = WGPUCallbackMode_WaitAnyOnly, .callback = wp_on_work_done, .userdata1 = done};
    WGPUFuture f = wgpuQueueOnSubmittedWorkDone(c->queue, dcb);
    ok = g_wait(c, &f, 1, "the work done") &&
         done->status == WGPUQueueWorkDoneStatus_Success && wp_process_until(c, &map->done, "a readback's map");
  } else {
    WGPUBufferMapCallbackInfo cb = {
        .mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_map, .userdata1 = map};
    WGPUQueueWorkDoneCallbackInfo dcb = {
        .mode = WGPUCallbackMode_AllowSpontaneous, .callback = wp_on_work_done, .userdata1 = done};
    WGPUFuture fs[2] = {wgpuBufferMapAsync(rb, WGPUMapMode_Read, 0, size, cb),
                        wgpuQueueOnSubmittedWorkDone(c->queue, dcb)};
    /* WaitAny completes a future whose AllowSpontaneous callback another
     * thread is running (its ProcessEvents took it): the callback may not
     * have returned yet, so its flag is waited for too. */
    ok = g_wait(c, fs, 2, "a readback's map and work done") &&
         (atomic_load(&map->done) || wp_process_until(c, &map->done, "a readback's map")) &&
         (atomic_load(&done->done) || wp_process_until(c, &done->done, "the work done")) &&
         done->status == WGPUQueueWorkDoneStatus_Success;
  }
  if (!ok)
    fprintf(stderr, "gen: thread %d: map (mode %u) did not end: map %s (status %u), work done %s (status %u)\n",
            t->index, mode, atomic_load(&map->done) ? "done" : "not done", map->status,
            done && atomic_load(&done->done) ? "done" : "not done", done ? done->status : 0);
  if (ok && map->status != WGPUMapAsyncStatus_Success) {
    fprintf(stderr, "gen: thread %d: map (mode %u) failed (status %u): %s\n", t->index, mode, map->status,
            map->message);
    ok = false;
  }
  wp_request_free(done);
  wp_request_free(map);
  return ok;
}

/* A range of a buffer copied to a new MAP_READ buffer, mapped, checked
 * against the CPU's shadow and digested. */
static void op_readback(gthread *t) {
  gbuf *g = any_buffer(t);
  uint32_t off, n;
  pick_range(t, g, &off, &n);
  WGPUBuffer rb = wp_buffer(t->c, "readback", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, (uint64_t)n * 4);
  WGPUCommandEncoder enc = wp_encoder(t->c, "readback");
  wgpuCommandEncoderCopyBufferToBuffer(enc, g->b, (uint64_t)off * 4, rb, 0, (uint64_t)n * 4);
  wp_submit(t->c, enc);
  if (!map_read(t, rb, (size_t)n * 4)) {
    t->ok = false;
  } else {
    const uint32_t *p = wgpuBufferGetConstMappedRange(rb, 0, (size_t)n * 4);
    if (!p) {
      fprintf(stderr, "gen: thread %d: wgpuBufferGetConstMappedRange returned NULL\n", t->index);
      t->ok = false;
    } else {
      t->digest = fnv(t->digest, p, (size_t)n * 4);
      char what[96];
      snprintf(what, sizeof what, "thread %d, readback %u (%s buffer, words %u..%u)", t->index, t->readbacks,
               g->uniform ? "uniform" : "storage", off, off + n - 1);
      if (!wp_check_u32(what, p, g->shadow + off, n)) t->ok = false;
    }
    wgpuBufferUnmap(rb);
  }
  wgpuBufferRelease(rb);
  t->readbacks++;
}

/* The file the uploads map: written first, then mapped read-only. */
static bool open_file(gthread *t) {
  const char *dir = getenv("TMPDIR");
  snprintf(t->path, sizeof t->path, "%s/wgpu-gen-%d-%d.bin", dir && *dir ? dir : "/tmp", (int)getpid(), t->index);
  t->file_words = 1024 * g_size + g_pick(&t->rng, 1024);
  size_t bytes = (size_t)t->file_words * 4;
  uint32_t *w = wp_alloc(bytes);
  fill_random(t, w, t->file_words);
  int fd = open(t->path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  bool ok = fd >= 0 && write(fd, w, bytes) == (ssize_t)bytes;
  free(w);
  if (fd >= 0) close(fd);
  fd = ok ? open(t->path, O_RDONLY) : -1;
  void *p = fd >= 0 ? mmap(NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  if (fd >= 0) close(fd);
  if (p == MAP_FAILED) {
    fprintf(stderr, "gen: thread %d: cannot write and map %s\n", t->index, t->path);
    unlink(t->path);
    return false;
  }
  t->file = p;
  return true;
}

static void *gen_thread_run(void *arg) {
  gthread *t = arg;
  wp_ctx *c = t->c;
  t->ok = true;
  t->digest = 0xcbf29ce484222325ull;
  if (!open_file(t)) {
    t->ok = false;
    return NULL;
  }
  t->nmod = 1 + (int)g_pick(&t->rng, G_MAX_MOD);
  for (int k = 0; k < t->nmod; k++) {
    gmodule *m = &t->mod[k];
    char *wgsl = gen_module(m, &t->rng);
    if (g_print_wgsl) fprintf(stderr, "// thread %d, module %d\n%s\n", t->index, k, wgsl);
    m->module = wp_shader(c, "gen", wgsl);
    free(wgsl);
    for (int e = 0; e < m->ne; e++) {
      char entry[16];
      snprintf(entry, sizeof entry, "e%d", e);
      m->pipe[e] = wp_pipeline(c, "gen", m->module, entry, NULL);
      m->bgl[e] = wgpuComputePipelineGetBindGroupLayout(m->pipe[e], 0);
    }
  }
  for (int k = 0; k < G_NSTORE; k++) make_buffer(t, &t->store[k], false, 0);
  for (int k = 0; k < G_NUNI; k++) make_buffer(t, &t->uni[k], true, 0);
  uint32_t ops = 12 * g_size + g_pick(&t->rng, 12 * g_size);
  for (uint32_t k = 0; k < ops && gt_live(t); k++) {
    uint32_t r = g_pick(&t->rng, 18);
    if (r < 4) op_write(t);
    else if (r < 10) op_submit(t);
    else if (r < 14) op_readback(t);
    else if (r < 15) make_buffer(t, &t->store[g_pick(&t->rng, G_NSTORE)], false, 0);
    else if (r < 16) make_buffer(t, &t->uni[g_pick(&t->rng, G_NUNI)], true, 0);
    else op_bulk(t);
    t->ops++;
  }
  /* Every buffer read back at the end. */
  for (int k = 0; k < G_NSTORE + G_NUNI && gt_live(t); k++) {
    gbuf *g = k < G_NSTORE ? &t->store[k] : &t->uni[k - G_NSTORE];
    WGPUBuffer rb = wp_buffer(c, "final", WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst, (uint64_t)g->words * 4);
    WGPUCommandEncoder enc = wp_encoder(c, "final");
    wgpuCommandEncoderCopyBufferToBuffer(enc, g->b, 0, rb, 0, (uint64_t)g->words * 4);
    wp_submit(c, enc);
    if (map_read(t, rb, (size_t)g->words * 4)) {
      const uint32_t *p = wgpuBufferGetConstMappedRange(rb, 0, (size_t)g->words * 4);
      char what[64];
      snprintf(what, sizeof what, "thread %d, final buffer %d", t->index, k);
      if (!p || !wp_check_u32(what, p, g->shadow, g->words)) t->ok = false;
      if (p) t->digest = fnv(t->digest, p, (size_t)g->words * 4);
      wgpuBufferUnmap(rb);
    } else {
      t->ok = false;
    }
    wgpuBufferRelease(rb);
  }
  for (int k = 0; k < t->nmod; k++) {
    gmodule *m = &t->mod[k];
    for (int e = 0; e < m->ne; e++) {
      wgpuBindGroupLayoutRelease(m->bgl[e]);
      wgpuComputePipelineRelease(m->pipe[e]);
    }
    wgpuShaderModuleRelease(m->module);
  }
  for (int k = 0; k < G_NSTORE + G_NUNI; k++) {
    gbuf *g = k < G_NSTORE ? &t->store[k] : &t->uni[k - G_NSTORE];
    wgpuBufferRelease(g->b);
    free(g->shadow);
    g->b = NULL;
    g->shadow = NULL;
  }
  munmap((void *)t->file, (size_t)t->file_words * 4);
  unlink(t->path);
  return NULL;
}

static unsigned g_round;

static bool run(wp_ctx *c) {
  uint64_t s = g_seed ^ (0x51ed2701ull * ++g_round);
  unsigned extra = g_threads_set ? g_threads : g_pick(&s, 3);
  gthread *ts = wp_alloc(sizeof(gthread) * (extra + 1));
  pthread_t tid[G_MAX_THREADS];
  bool started[G_MAX_THREADS] = {0};
  for (unsigned k = 0; k <= extra; k++) {
    ts[k].c = c;
    ts[k].index = (int)k;
    ts[k].rng = g_mix(&s);
  }
  for (unsigned k = 1; k <= extra; k++) started[k] = !pthread_create(&tid[k], NULL, gen_thread_run, &ts[k]);
  gen_thread_run(&ts[0]);
  bool ok = true;
  unsigned ops = 0, dispatches = 0, readbacks = 0;
  for (unsigned k = 0; k <= extra; k++) {
    if (k && started[k]) pthread_join(tid[k], NULL);
    else if (k) {
      fprintf(stderr, "gen: cannot start thread %u\n", k);
      ok = false;
    }
    ok = ok && ts[k].ok;
    c->digest = fnv(c->digest, &ts[k].digest, sizeof ts[k].digest);
    ops += ts[k].ops;
    dispatches += ts[k].dispatches;
    readbacks += ts[k].readbacks;
  }
  fprintf(stderr, "gen: seed %llu, round %u: %u thread(s), %u operations, %u dispatches, %u readbacks\n",
          (unsigned long long)g_seed, g_round, extra + 1, ops, dispatches, readbacks);
  free(ts);
  return ok;
}

static bool parse_u64(const char *s, uint64_t max, uint64_t *out) {
  char *end;
  if (!s || !*s) return false;
  unsigned long long v = strtoull(s, &end, 0);
  if (*end || v > max) return false;
  *out = v;
  return true;
}

int main(int argc, char **argv) {
  /* Our own options out of the way of wp_start's. */
  char **rest = wp_alloc(sizeof(char *) * ((size_t)argc + 1));
  int nrest = 0;
  uint64_t v;
  const char *e;
  if ((e = getenv("WGPU_GEN_SEED")) && *e && parse_u64(e, UINT64_MAX, &v)) g_seed = v;
  if ((e = getenv("WGPU_GEN_SIZE")) && *e && parse_u64(e, 8, &v) && v) g_size = (unsigned)v;
  if ((e = getenv("WGPU_GEN_THREADS")) && !strcmp(e, "seed")) g_threads_set = false;
  else if (e && *e && parse_u64(e, G_MAX_THREADS - 1, &v)) g_threads = (unsigned)v;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seed") && i + 1 < argc && parse_u64(argv[i + 1], UINT64_MAX, &v)) {
      g_seed = v;
      i++;
    } else if (!strcmp(argv[i], "--size") && i + 1 < argc && parse_u64(argv[i + 1], 8, &v) && v) {
      g_size = (unsigned)v;
      i++;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc && !strcmp(argv[i + 1], "seed")) {
      g_threads_set = false;
      i++;
    } else if (!strcmp(argv[i], "--threads") && i + 1 < argc && parse_u64(argv[i + 1], G_MAX_THREADS - 1, &v)) {
      g_threads = (unsigned)v;
      g_threads_set = true;
      i++;
    } else if (!strcmp(argv[i], "--print-wgsl")) {
      g_print_wgsl = true;
    } else if (!strcmp(argv[i], "--seed") || !strcmp(argv[i], "--size") || !strcmp(argv[i], "--threads")) {
      fprintf(stderr, "usage: %s [--seed S] [--size 1..8] [--threads 0..%d|seed] [--print-wgsl] [--repeat N]\n", argv[0],
              G_MAX_THREADS - 1);
      return WP_USAGE;
    } else {
      rest[nrest++] = argv[i];
    }
  }
  rest[nrest] = NULL;
  wp_ctx c;
  int rc = wp_start(&c, "gen", nrest, rest);
  /* Dawn's device is safe to call from several threads only with this
   * feature (the layer asks for it on its devices itself). */
  const WGPUFeatureName sync = WGPUFeatureName_ImplicitDeviceSynchronization;
  bool has_sync = !rc && wgpuAdapterHasFeature(c.adapter, sync);
  if (!rc && !has_sync) {
    if (!g_threads_set || g_threads) {
      fprintf(stderr, "gen: skipped: threads asked for, and the adapter lacks ImplicitDeviceSynchronization\n");
      rc = WP_SKIP;
    }
    g_threads = 0;
    g_threads_set = true;
  }
  if (!rc) rc = wp_open_device(&c, has_sync ? &sync : NULL, has_sync ? 1 : 0, NULL);
  free(rest);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
