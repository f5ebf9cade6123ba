/* WGSL kernels of the GPU forward pass (see gpu.h for the pass and
 * cpu.h for the math they must reproduce). Shapes come in as pipeline
 * override constants, so one list of dispatches serves every position. */
#include "llm/gpu.h"

/* ---- the tiled matvec, shared by four kernels --------------------------
 * 64 invocations own R = 8 rows, LANES = 8 per row. The input vector is
 * staged through workgroup memory T = 256 columns at a time (shared by the
 * 8 rows); each lane sums columns lane, lane + 8, ... of the tile; the 8
 * partial sums of a row are added in workgroup memory at the end. Weights
 * are [ROWS][COLS] row-major. */
#define MV_COMMON                                                             \
  "const WG: u32 = 64u;\n"                                                    \
  "const R: u32 = 8u;\n"                                                      \
  "const LANES: u32 = 8u;\n"                                                  \
  "const T: u32 = 256u;\n"                                                    \
  "override ROWS: u32;\n"                                                     \
  "override COLS: u32;\n"                                                     \
  "var<workgroup> xs: array<f32, 256>;\n"                                     \
  "var<workgroup> red: array<f32, 64>;\n"                                     \
  "var<workgroup> nscale: f32;\n"

/* rmsnorm prologue: nscale = 1 / sqrt(sum x^2 / COLS + 1e-5), computed by
 * every workgroup (COLS is small next to ROWS * COLS). Needs `x`. */
#define MV_NORM_PROLOGUE                                                      \
  "  var ssp = 0.0;\n"                                                        \
  "  for (var k = t; k < COLS; k += WG) { let v = x[k]; ssp += v * v; }\n"    \
  "  red[t] = ssp;\n"                                                         \
  "  workgroupBarrier();\n"                                                   \
  "  if (t == 0u) {\n"                                                        \
  "    var ss = 0.0;\n"                                                       \
  "    for (var i = 0u; i < WG; i++) { ss += red[i]; }\n"                     \
  "    nscale = 1.0 / sqrt(ss / f32(COLS) + 1e-5);\n"                         \
  "  }\n"                                                                     \
  "  workgroupBarrier();\n"                                                   \
  "  let ns = nscale;\n"

/* Tile loop head: stages input element k via the expression `IN` (in
 * terms of k) into xs, then the body accumulates (n columns in this tile). */
#define MV_TILE_BEGIN(IN)                                                     \
  "  for (var k0 = 0u; k0 < COLS; k0 += T) {\n"                               \
  "    for (var i = t; i < T; i += WG) {\n"                                   \
  "      let k = k0 + i;\n"                                                   \
  "      var v = 0.0;\n"                                                      \
  "      if (k < COLS) { v = " IN "; }\n"                                     \
  "      xs[i] = v;\n"                                                        \
  "    }\n"                                                                   \
  "    workgroupBarrier();\n"                                                 \
  "    let n = min(T, COLS - k0);\n"                                          \
  "    if (row < ROWS) {\n"
#define MV_TILE_END                                                           \
  "    }\n"                                                                   \
  "    workgroupBarrier();\n"                                                 \
  "  }\n"

#define MV_MAIN_HEAD                                                          \
  "@compute @workgroup_size(64)\n"                                            \
  "fn main(@builtin(workgroup_id) wid: vec3u,\n"                              \
  "        @builtin(local_invocation_index) t: u32) {\n"                      \
  "  let row = wid.x * R + t / LANES;\n"                                      \
  "  let lane = t % LANES;\n"

/* Reduces `acc` over the 8 lanes of a row into `s` (valid on lane 0). */
#define MV_REDUCE(acc, s)                                                     \
  "  red[t] = " acc ";\n"                                                     \
  "  workgroupBarrier();\n"                                                   \
  "  var " s " = 0.0;\n"                                                      \
  "  if (lane == 0u) { for (var l = 0u; l < LANES; l++) { " s " += red[t + l]; } }\n" \
  "  workgroupBarrier();\n"

#define STATE_STRUCT "struct State { pos: u32, token: u32, pad0: u32, pad1: u32 };\n"

const char llm_wgsl_embed[] =
    STATE_STRUCT
    "override DIM: u32;\n"
    "@group(0) @binding(0) var<uniform> st: State;\n"
    "@group(0) @binding(1) var<storage, read> emb: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> x: array<f32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(global_invocation_id) id: vec3u) {\n"
    "  if (id.x < DIM) { x[id.x] = emb[st.token * DIM + id.x]; }\n"
    "}\n";

/* q, k, v = wq|wk|wv rmsnorm(x, nw); RoPE on q and k; k and v stored in the
 * layer's KV region at pos: k at [pos * KVD], v at [KVSTRIDE + pos * KVD].
 * ROWS = DIM + 2 * KVD, COLS = DIM. */
const char llm_wgsl_qkv[] =
    STATE_STRUCT MV_COMMON
    "override KVD: u32;\n"
    "override HS: u32;\n"
    "override KVSTRIDE: u32;\n"
    "var<workgroup> ys: array<f32, 8>;\n"
    "@group(0) @binding(0) var<uniform> st: State;\n"
    "@group(0) @binding(1) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> nw: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read> wq: array<f32>;\n"
    "@group(0) @binding(4) var<storage, read> wk: array<f32>;\n"
    "@group(0) @binding(5) var<storage, read> wv: array<f32>;\n"
    "@group(0) @binding(6) var<storage, read_write> q: array<f32>;\n"
    "@group(0) @binding(7) var<storage, read_write> kv: array<f32>;\n"
    "@group(0) @binding(8) var<storage, read> rope: array<vec2f>;\n"
    MV_MAIN_HEAD
    "  let DIM = COLS;\n"
    MV_NORM_PROLOGUE
    "  var acc = 0.0;\n"
    MV_TILE_BEGIN("nw[k] * (x[k] * ns)")
    "      if (row < DIM) {\n"
    "        let b = row * COLS + k0;\n"
    "        for (var c = lane; c < n; c += LANES) { acc += wq[b + c] * xs[c]; }\n"
    "      } else if (row < DIM + KVD) {\n"
    "        let b = (row - DIM) * COLS + k0;\n"
    "        for (var c = lane; c < n; c += LANES) { acc += wk[b + c] * xs[c]; }\n"
    "      } else {\n"
    "        let b = (row - DIM - KVD) * COLS + k0;\n"
    "        for (var c = lane; c < n; c += LANES) { acc += wv[b + c] * xs[c]; }\n"
    "      }\n"
    MV_TILE_END
    MV_REDUCE("acc", "s")
    "  let lr = t / LANES;\n"
    "  if (lane == 0u) { ys[lr] = s; }\n"
    "  workgroupBarrier();\n"
    "  if (lane != 0u || row >= ROWS) { return; }\n"
    "  let pos = st.pos;\n"
    "  if (row >= DIM + KVD) { kv[KVSTRIDE + pos * KVD + (row - DIM - KVD)] = s; return; }\n"
    "  var i = row;\n"
    "  if (row >= DIM) { i = row - DIM; }\n"
    "  let cs = rope[pos * (HS / 2u) + (i % HS) / 2u];\n"
    "  var o: f32;\n"
    "  if ((i & 1u) == 0u) { o = s * cs.x - ys[lr + 1u] * cs.y; }\n"
    "  else { o = ys[lr - 1u] * cs.y + s * cs.x; }\n"
    "  if (row < DIM) { q[i] = o; } else { kv[pos * KVD + i] = o; }\n"
    "}\n";

/* One workgroup per head h (kv head g = h / GROUP): s_t = q_h . k_t * SCALE
 * for t <= pos into att[h][t], softmax, xb_h = sum_t a_t v_t (t ascending,
 * one accumulator per output element, as the CPU does). */
const char llm_wgsl_attn[] =
    STATE_STRUCT
    "override HS: u32;\n"
    "override KVD: u32;\n"
    "override GROUP: u32;\n"
    "override SEQ: u32;\n"
    "override KVSTRIDE: u32;\n"
    "override SCALE: f32;\n"
    "const WG: u32 = 64u;\n"
    "var<workgroup> red: array<f32, 64>;\n"
    "var<workgroup> bc: f32;\n"
    "@group(0) @binding(0) var<uniform> st: State;\n"
    "@group(0) @binding(1) var<storage, read> q: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> kv: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read_write> att: array<f32>;\n"
    "@group(0) @binding(4) var<storage, read_write> xb: array<f32>;\n"
    "@compute @workgroup_size(64)\n"
    "fn main(@builtin(workgroup_id) wid: vec3u,\n"
    "        @builtin(local_invocation_index) t: u32) {\n"
    "  let h = wid.x;\n"
    "  let g = (h / GROUP) * HS;\n"
    "  let n = st.pos + 1u;\n"
    "  let qb = h * HS;\n"
    "  let ab = h * SEQ;\n"
    "  var m = -3.0e38;\n"
    "  for (var s = t; s < n; s += WG) {\n"
    "    let kb = s * KVD + g;\n"
    "    var d = 0.0;\n"
    "    for (var i = 0u; i < HS; i++) { d += q[qb + i] * kv[kb + i]; }\n"
    "    d = d * SCALE;\n"
    "    att[ab + s] = d;\n"
    "    m = max(m, d);\n"
    "  }\n"
    "  red[t] = m;\n"
    "  workgroupBarrier();\n"
    "  if (t == 0u) {\n"
    "    var mm = red[0];\n"
    "    for (var i = 1u; i < WG; i++) { mm = max(mm, red[i]); }\n"
    "    bc = mm;\n"
    "  }\n"
    "  workgroupBarrier();\n"
    "  let mx = bc;\n"
    "  var sum = 0.0;\n"
    "  for (var s = t; s < n; s += WG) {\n"
    "    let e = exp(att[ab + s] - mx);\n"
    "    att[ab + s] = e;\n"
    "    sum += e;\n"
    "  }\n"
    "  workgroupBarrier();\n"
    "  red[t] = sum;\n"
    "  workgroupBarrier();\n"
    "  if (t == 0u) {\n"
    "    var tot = 0.0;\n"
    "    for (var i = 0u; i < WG; i++) { tot += red[i]; }\n"
    "    bc = tot;\n"
    "  }\n"
    "  storageBarrier();\n"
    "  workgroupBarrier();\n"
    "  let tot = bc;\n"
    "  for (var i = t; i < HS; i += WG) {\n"
    "    var o = 0.0;\n"
    "    for (var s = 0u; s < n; s++) { o += (att[ab + s] / tot) * kv[KVSTRIDE + s * KVD + g + i]; }\n"
    "    xb[qb + i] = o;\n"
    "  }\n"
    "}\n";

/* y += W xin (the residual adds: x += wo xb, x += w2 hb). */
const char llm_wgsl_matvec_res[] =
    MV_COMMON
    "@group(0) @binding(0) var<storage, read> xin: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> w: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> y: array<f32>;\n"
    MV_MAIN_HEAD
    "  var acc = 0.0;\n"
    MV_TILE_BEGIN("xin[k]")
    "      let b = row * COLS + k0;\n"
    "      for (var c = lane; c < n; c += LANES) { acc += w[b + c] * xs[c]; }\n"
    MV_TILE_END
    MV_REDUCE("acc", "s")
    "  if (lane == 0u && row < ROWS) { y[row] = y[row] + s; }\n"
    "}\n";

/* hb = silu(w1 xb) * (w3 xb), xb = rmsnorm(x, nw). */
const char llm_wgsl_w13[] =
    MV_COMMON
    "var<workgroup> red3: array<f32, 64>;\n"
    "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> nw: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> w1: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read> w3: array<f32>;\n"
    "@group(0) @binding(4) var<storage, read_write> hb: array<f32>;\n"
    MV_MAIN_HEAD
    MV_NORM_PROLOGUE
    "  var a1 = 0.0;\n"
    "  var a3 = 0.0;\n"
    MV_TILE_BEGIN("nw[k] * (x[k] * ns)")
    "      let b = row * COLS + k0;\n"
    "      for (var c = lane; c < n; c += LANES) {\n"
    "        let xv = xs[c];\n"
    "        a1 += w1[b + c] * xv;\n"
    "        a3 += w3[b + c] * xv;\n"
    "      }\n"
    MV_TILE_END
    "  red[t] = a1;\n"
    "  red3[t] = a3;\n"
    "  workgroupBarrier();\n"
    "  if (lane == 0u && row < ROWS) {\n"
    "    var z = 0.0;\n"
    "    var u = 0.0;\n"
    "    for (var l = 0u; l < LANES; l++) { z += red[t + l]; u += red3[t + l]; }\n"
    "    hb[row] = z * (1.0 / (1.0 + exp(-z))) * u;\n"
    "  }\n"
    "}\n";

/* y = W rmsnorm(x, nw) (the classifier). */
const char llm_wgsl_cls[] =
    MV_COMMON
    "@group(0) @binding(0) var<storage, read> x: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> nw: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read> w: array<f32>;\n"
    "@group(0) @binding(3) var<storage, read_write> y: array<f32>;\n"
    MV_MAIN_HEAD
    MV_NORM_PROLOGUE
    "  var acc = 0.0;\n"
    MV_TILE_BEGIN("nw[k] * (x[k] * ns)")
    "      let b = row * COLS + k0;\n"
    "      for (var c = lane; c < n; c += LANES) { acc += w[b + c] * xs[c]; }\n"
    MV_TILE_END
    MV_REDUCE("acc", "s")
    "  if (lane == 0u && row < ROWS) { y[row] = s; }\n"
    "}\n";
