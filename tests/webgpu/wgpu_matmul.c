/* A tiled matrix product on webgpu.h alone: C = A * B with 16x16 tiles of A
 * and B staged in workgroup memory. The entries are small integers, so
 * every f32 sum is exact whatever the order and the result must equal the
 * CPU's bit for bit. A comes through WriteBuffer, B through a buffer mapped
 * at creation, the sizes through a uniform; the edges are not multiples of
 * the tile, so the bounds checks run too. */
#include "wgpu_prog.h"

#define TILE 16

static const char *matmul_wgsl =
    "struct Dims { m: u32, n: u32, k: u32, pad: u32 }\n"
    "@group(0) @binding(0) var<storage, read> a: array<f32>;\n"
    "@group(0) @binding(1) var<storage, read> b: array<f32>;\n"
    "@group(0) @binding(2) var<storage, read_write> c: array<f32>;\n"
    "@group(0) @binding(3) var<uniform> dims: Dims;\n"
    "var<workgroup> ta: array<array<f32, 16>, 16>;\n"
    "var<workgroup> tb: array<array<f32, 16>, 16>;\n"
    "@compute @workgroup_size(16, 16)\n"
    "fn main(@builtin(global_invocation_id) gid: vec3u, @builtin(local_invocation_id) lid: vec3u) {\n"
    "  let row = gid.y;\n"
    "  let col = gid.x;\n"
    "  var acc = 0.0;\n"
    "  let tiles = (dims.k + 15u) / 16u;\n"
    "  for (var t = 0u; t < tiles; t++) {\n"
    "    let ka = t * 16u + lid.x;\n"
    "    let kb = t * 16u + lid.y;\n"
    "    var va = 0.0;\n"
    "    if (row < dims.m && ka < dims.k) { va = a[row * dims.k + ka]; }\n"
    "    var vb = 0.0;\n"
    "    if (kb < dims.k && col < dims.n) { vb = b[kb * dims.n + col]; }\n"
    "    ta[lid.y][lid.x] = va;\n"
    "    tb[lid.y][lid.x] = vb;\n"
    "    workgroupBarrier();\n"
    "    for (var i = 0u; i < 16u; i++) { acc += ta[lid.y][i] * tb[i][lid.x]; }\n"
    "    workgroupBarrier();\n"
    "  }\n"
    "  if (row < dims.m && col < dims.n) { c[row * dims.n + col] = acc; }\n"
    "}\n";

static bool run(wp_ctx *c) {
  /* 130x100 * 100x84: none a multiple of the tile. Entries in [-5, 5]: each
   * product is at most 25 in size, each sum at most 25 * k, far below 2^24. */
  const uint32_t m = 130 * c->scale, k = 100, n = 84;
  float *a = wp_alloc(sizeof(float) * m * k), *b = wp_alloc(sizeof(float) * k * n);
  float *want = wp_alloc(sizeof(float) * m * n), *got = wp_alloc(sizeof(float) * m * n);
  uint32_t seed = 0x9e3779b9u;
  for (uint32_t i = 0; i < m * k; i++) a[i] = (float)((int)(wp_rand(&seed) % 11) - 5);
  for (uint32_t i = 0; i < k * n; i++) b[i] = (float)((int)(wp_rand(&seed) % 11) - 5);
  for (uint32_t r = 0; r < m; r++)
    for (uint32_t col = 0; col < n; col++) {
      float acc = 0.0f;
      for (uint32_t i = 0; i < k; i++) acc += a[r * k + i] * b[i * n + col];
      want[r * n + col] = acc;
    }

  WGPUBuffer buf_a = wp_buffer_from(c, "a", WGPUBufferUsage_Storage, a, sizeof(float) * m * k);
  WGPUBufferDescriptor bd = {.label = WP_STR("b"),
                             .usage = WGPUBufferUsage_Storage,
                             .size = sizeof(float) * k * n,
                             .mappedAtCreation = 1};
  WGPUBuffer buf_b = wgpuDeviceCreateBuffer(c->device, &bd);
  void *mapped = wgpuBufferGetMappedRange(buf_b, 0, (size_t)bd.size);
  if (mapped) memcpy(mapped, b, (size_t)bd.size);
  wgpuBufferUnmap(buf_b);
  WGPUBuffer buf_c =
      wp_buffer(c, "c", WGPUBufferUsage_Storage | WGPUBufferUsage_CopySrc, sizeof(float) * m * n);
  const uint32_t dims[4] = {m, n, k, 0};
  WGPUBuffer buf_dims = wp_buffer_from(c, "dims", WGPUBufferUsage_Uniform, dims, sizeof dims);

  WGPUShaderModule module = wp_shader(c, "matmul", matmul_wgsl);
  WGPUBindGroupLayoutEntry le[4] = {
      wp_layout_buffer(0, WGPUBufferBindingType_ReadOnlyStorage, false, 0),
      wp_layout_buffer(1, WGPUBufferBindingType_ReadOnlyStorage, false, 0),
      wp_layout_buffer(2, WGPUBufferBindingType_Storage, false, 0),
      wp_layout_buffer(3, WGPUBufferBindingType_Uniform, false, sizeof dims),
  };
  WGPUBindGroupLayoutDescriptor bgld = {.label = WP_STR("matmul"), .entryCount = 4, .entries = le};
  WGPUBindGroupLayout bgl = wgpuDeviceCreateBindGroupLayout(c->device, &bgld);
  WGPUPipelineLayoutDescriptor pld = {
      .label = WP_STR("matmul"), .bindGroupLayoutCount = 1, .bindGroupLayouts = &bgl};
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(c->device, &pld);
  WGPUComputePipeline pipeline = wp_pipeline(c, "matmul", module, "main", layout);
  WGPUBindGroupEntry be[4] = {
      wp_bind_buffer(0, buf_a, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(1, buf_b, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(2, buf_c, 0, WGPU_WHOLE_SIZE),
      wp_bind_buffer(3, buf_dims, 0, sizeof dims),
  };
  WGPUBindGroup group = wp_bind_group(c, "matmul", bgl, be, 4);

  WGPUCommandEncoder enc = wp_encoder(c, "matmul");
  wp_dispatch(enc, pipeline, group, (n + TILE - 1) / TILE, (m + TILE - 1) / TILE, 1);
  wp_submit(c, enc);
  bool ok = wp_read_buffer(c, buf_c, 0, sizeof(float) * m * n, got) && wp_check_f32("c", got, want, m * n);

  wgpuBindGroupRelease(group);
  wgpuComputePipelineRelease(pipeline);
  wgpuPipelineLayoutRelease(layout);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuShaderModuleRelease(module);
  wgpuBufferRelease(buf_dims);
  wgpuBufferRelease(buf_c);
  wgpuBufferRelease(buf_b);
  wgpuBufferRelease(buf_a);
  free(got);
  free(want);
  free(b);
  free(a);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "matmul", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
