/* Texture copies and texture access on webgpu.h alone.
 *   - src: R32Uint, 64x48 (height times WGPU_PROG_SCALE), 2 array layers, 2
 *     mip levels. Layer 0 of mip 0 comes by WriteTexture, layer 1 by
 *     CopyBufferToTexture (from 256 bytes into its buffer), mip 1 of both
 *     layers by one WriteTexture with tightly packed rows.
 *   - rgba: RGBA8Uint by WriteTexture; a sub-rectangle of it goes to another
 *     place of rgba_copy by CopyTextureToTexture (the rest stays zero, as
 *     every new texture is), and mip 1 of layer 1 of src to `small`.
 *   - a kernel textureLoad's src (all layers and mips, one 2D-array view)
 *     and rgba_copy, and textureStore's into a storage texture.
 * The storage texture, rgba_copy and `small` come back by
 * CopyTextureToBuffer into a MAP_READ buffer (bytesPerRow 256, which leaves
 * half of each of small's rows as padding) and are checked against the
 * CPU's model of each texture. */
#include "wgpu_prog.h"

#define W 64
#define MIP_W (W / 2)
#define ROW_BYTES 256 /* the copy row pitch: W * 4 and MIP_W * 4 rounded up */
#define COPY_X 8      /* the rectangle rgba -> rgba_copy */
#define COPY_Y 4
#define COPY_W 48
#define COPY_H 40
#define DST_X 4
#define DST_Y 2

static const char *texture_wgsl =
    "@group(0) @binding(0) var src: texture_2d_array<u32>;\n"
    "@group(0) @binding(1) var rgba: texture_2d<u32>;\n"
    "@group(0) @binding(2) var dst: texture_storage_2d<r32uint, write>;\n"
    "@compute @workgroup_size(8, 8)\n"
    "fn main(@builtin(global_invocation_id) g: vec3u) {\n"
    "  let size = textureDimensions(dst);\n"
    "  if (g.x >= size.x || g.y >= size.y) { return; }\n"
    "  let p = vec2i(g.xy);\n"
    "  let a = textureLoad(src, p, 0, 0).x;\n"
    "  let b = textureLoad(src, p, 1, 0).x;\n"
    "  let m = textureLoad(src, p / 2, i32((g.x + g.y) & 1u), 1).x;\n"
    "  let c = textureLoad(rgba, p, 0);\n"
    "  let packed = c.x + c.y * 2u + c.z * 4u + c.w * 8u;\n"
    "  textureStore(dst, p, vec4u(a * 3u + (b ^ (m << 1u)) + packed, 0u, 0u, 0u));\n"
    "}\n";

static WGPUTexture make_texture(wp_ctx *c, const char *label, WGPUTextureFormat format,
                                WGPUTextureUsage usage, uint32_t w, uint32_t h, uint32_t layers,
                                uint32_t mips) {
  WGPUTextureDescriptor d = {
      .label = WP_STR(label),
      .usage = usage,
      .dimension = WGPUTextureDimension_2D,
      .size = {w, h, layers},
      .format = format,
      .mipLevelCount = mips,
      .sampleCount = 1,
  };
  return wgpuDeviceCreateTexture(c->device, &d);
}

static WGPUTexelCopyTextureInfo at(WGPUTexture t, uint32_t mip, uint32_t x, uint32_t y, uint32_t layer) {
  return (WGPUTexelCopyTextureInfo){
      .texture = t, .mipLevel = mip, .origin = {x, y, layer}, .aspect = WGPUTextureAspect_All};
}

/* Copies a w x h texel (4 bytes each) rectangle into a mappable buffer with
 * 256-byte rows, maps it and packs the rows tightly into `out`. Only the
 * texels go into the digest, not the rows' padding. */
static bool read_texture(wp_ctx *c, WGPUTexelCopyTextureInfo from, uint32_t w, uint32_t h, uint32_t *out) {
  uint64_t size = (uint64_t)ROW_BYTES * h;
  WGPUBuffer buf = wp_buffer(c, "texture readback", WGPUBufferUsage_CopyDst | WGPUBufferUsage_MapRead, size);
  WGPUCommandEncoder enc = wp_encoder(c, "texture to buffer");
  WGPUTexelCopyBufferInfo to = {.layout = {.offset = 0, .bytesPerRow = ROW_BYTES, .rowsPerImage = h},
                                .buffer = buf};
  wgpuCommandEncoderCopyTextureToBuffer(enc, &from, &to, &(WGPUExtent3D){w, h, 1});
  wp_submit(c, enc);
  uint32_t *rows = wp_alloc(size);
  bool ok = wp_map_read(c, buf, 0, (size_t)size, rows);
  for (uint32_t y = 0; ok && y < h; y++)
    memcpy(out + (size_t)y * w, rows + (size_t)y * (ROW_BYTES / 4), (size_t)w * 4);
  if (ok) wp_digest(c, out, (size_t)w * h * 4);
  free(rows);
  wgpuBufferRelease(buf);
  return ok;
}

static bool run(wp_ctx *c) {
  const uint32_t h = 48 * c->scale, mip_h = h / 2, texels = W * h, mip_texels = MIP_W * mip_h;
  uint32_t *layer0 = wp_alloc(texels * 4), *layer1 = wp_alloc(texels * 4),
           *mip1 = wp_alloc(2 * mip_texels * 4);
  uint32_t *rgba = wp_alloc(texels * 4), *rgba_copy = wp_alloc(texels * 4);
  uint32_t *want = wp_alloc(texels * 4), *got = wp_alloc(texels * 4);
  uint32_t seed = 0xc2b2ae35u;
  for (uint32_t i = 0; i < texels; i++) {
    layer0[i] = wp_rand(&seed);
    layer1[i] = wp_rand(&seed);
    rgba[i] = wp_rand(&seed);
  }
  for (uint32_t i = 0; i < 2 * mip_texels; i++) mip1[i] = wp_rand(&seed);
  for (uint32_t y = 0; y < COPY_H; y++)
    memcpy(rgba_copy + (DST_Y + y) * W + DST_X, rgba + (COPY_Y + y) * W + COPY_X, COPY_W * 4);
  for (uint32_t y = 0; y < h; y++)
    for (uint32_t x = 0; x < W; x++) {
      uint32_t i = y * W + x, m = mip1[((x + y) & 1) * mip_texels + (y / 2) * MIP_W + x / 2];
      const uint8_t *px = (const uint8_t *)&rgba_copy[i]; /* RGBA8: r at the lowest address */
      uint32_t packed = px[0] + px[1] * 2u + px[2] * 4u + px[3] * 8u;
      want[i] = layer0[i] * 3u + (layer1[i] ^ (m << 1)) + packed;
    }

  WGPUTexture src = make_texture(
      c, "src", WGPUTextureFormat_R32Uint,
      WGPUTextureUsage_CopyDst | WGPUTextureUsage_CopySrc | WGPUTextureUsage_TextureBinding, W, h, 2, 2);
  WGPUTexture tex_rgba = make_texture(c, "rgba", WGPUTextureFormat_RGBA8Uint,
                                      WGPUTextureUsage_CopyDst | WGPUTextureUsage_CopySrc, W, h, 1, 1);
  WGPUTexture tex_rgba_copy = make_texture(
      c, "rgba copy", WGPUTextureFormat_RGBA8Uint,
      WGPUTextureUsage_CopyDst | WGPUTextureUsage_CopySrc | WGPUTextureUsage_TextureBinding, W, h, 1, 1);
  WGPUTexture small = make_texture(c, "small", WGPUTextureFormat_R32Uint,
                                   WGPUTextureUsage_CopyDst | WGPUTextureUsage_CopySrc, MIP_W, mip_h, 1, 1);
  WGPUTexture out = make_texture(c, "out", WGPUTextureFormat_R32Uint,
                                 WGPUTextureUsage_StorageBinding | WGPUTextureUsage_CopySrc, W, h, 1, 1);

  /* Uploads. */
  WGPUTexelCopyTextureInfo dst = at(src, 0, 0, 0, 0);
  wgpuQueueWriteTexture(c->queue, &dst, layer0, texels * 4,
                        &(WGPUTexelCopyBufferLayout){.bytesPerRow = W * 4, .rowsPerImage = h},
                        &(WGPUExtent3D){W, h, 1});
  dst = at(src, 1, 0, 0, 0);
  wgpuQueueWriteTexture(c->queue, &dst, mip1, 2 * mip_texels * 4,
                        &(WGPUTexelCopyBufferLayout){.bytesPerRow = MIP_W * 4, .rowsPerImage = mip_h},
                        &(WGPUExtent3D){MIP_W, mip_h, 2});
  dst = at(tex_rgba, 0, 0, 0, 0);
  wgpuQueueWriteTexture(c->queue, &dst, rgba, texels * 4,
                        &(WGPUTexelCopyBufferLayout){.bytesPerRow = W * 4, .rowsPerImage = h},
                        &(WGPUExtent3D){W, h, 1});
  /* Layer 1 from a buffer, 256 bytes in: the copy's offset is honoured. */
  WGPUBuffer staging =
      wp_buffer(c, "layer 1", WGPUBufferUsage_CopySrc | WGPUBufferUsage_CopyDst, 256 + texels * 4);
  wgpuQueueWriteBuffer(c->queue, staging, 256, layer1, texels * 4);

  WGPUCommandEncoder enc = wp_encoder(c, "copies");
  WGPUTexelCopyBufferInfo from_buf = {.layout = {.offset = 256, .bytesPerRow = ROW_BYTES, .rowsPerImage = h},
                                      .buffer = staging};
  dst = at(src, 0, 0, 0, 1);
  wgpuCommandEncoderCopyBufferToTexture(enc, &from_buf, &dst, &(WGPUExtent3D){W, h, 1});
  WGPUTexelCopyTextureInfo from_tex = at(tex_rgba, 0, COPY_X, COPY_Y, 0);
  dst = at(tex_rgba_copy, 0, DST_X, DST_Y, 0);
  wgpuCommandEncoderCopyTextureToTexture(enc, &from_tex, &dst, &(WGPUExtent3D){COPY_W, COPY_H, 1});
  from_tex = at(src, 1, 0, 0, 1);
  dst = at(small, 0, 0, 0, 0);
  wgpuCommandEncoderCopyTextureToTexture(enc, &from_tex, &dst, &(WGPUExtent3D){MIP_W, mip_h, 1});
  wp_submit(c, enc);

  /* The kernel. */
  WGPUTextureViewDescriptor vd = {.label = WP_STR("src layers"),
                                  .format = WGPUTextureFormat_R32Uint,
                                  .dimension = WGPUTextureViewDimension_2DArray,
                                  .baseMipLevel = 0,
                                  .mipLevelCount = 2,
                                  .baseArrayLayer = 0,
                                  .arrayLayerCount = 2,
                                  .aspect = WGPUTextureAspect_All};
  WGPUTextureView view_src = wgpuTextureCreateView(src, &vd);
  WGPUTextureView view_rgba = wgpuTextureCreateView(tex_rgba_copy, NULL);
  WGPUTextureView view_out = wgpuTextureCreateView(out, NULL);
  WGPUShaderModule module = wp_shader(c, "texture", texture_wgsl);
  WGPUBindGroupLayoutEntry le[3] = {
      {.binding = 0,
       .visibility = WGPUShaderStage_Compute,
       .texture = {.sampleType = WGPUTextureSampleType_Uint,
                   .viewDimension = WGPUTextureViewDimension_2DArray}},
      {.binding = 1,
       .visibility = WGPUShaderStage_Compute,
       .texture = {.sampleType = WGPUTextureSampleType_Uint, .viewDimension = WGPUTextureViewDimension_2D}},
      {.binding = 2,
       .visibility = WGPUShaderStage_Compute,
       .storageTexture = {.access = WGPUStorageTextureAccess_WriteOnly,
                          .format = WGPUTextureFormat_R32Uint,
                          .viewDimension = WGPUTextureViewDimension_2D}},
  };
  WGPUBindGroupLayout bgl = wgpuDeviceCreateBindGroupLayout(
      c->device,
      &(WGPUBindGroupLayoutDescriptor){.label = WP_STR("texture"), .entryCount = 3, .entries = le});
  WGPUPipelineLayout layout = wgpuDeviceCreatePipelineLayout(
      c->device, &(WGPUPipelineLayoutDescriptor){
                     .label = WP_STR("texture"), .bindGroupLayoutCount = 1, .bindGroupLayouts = &bgl});
  WGPUComputePipeline pipeline = wp_pipeline(c, "texture", module, "main", layout);
  WGPUBindGroupEntry be[3] = {wp_bind_view(0, view_src), wp_bind_view(1, view_rgba),
                              wp_bind_view(2, view_out)};
  WGPUBindGroup group = wp_bind_group(c, "texture", bgl, be, 3);
  enc = wp_encoder(c, "kernel");
  wp_dispatch(enc, pipeline, group, W / 8, (h + 7) / 8, 1);
  wp_submit(c, enc);

  bool ok = read_texture(c, at(out, 0, 0, 0, 0), W, h, got) &&
            wp_check_u32("the storage texture", got, want, texels) &&
            read_texture(c, at(tex_rgba_copy, 0, 0, 0, 0), W, h, got) &&
            wp_check_u32("the texture-to-texture copy", got, rgba_copy, texels) &&
            read_texture(c, at(small, 0, 0, 0, 0), MIP_W, mip_h, got) &&
            wp_check_u32("mip 1 of layer 1", got, mip1 + mip_texels, mip_texels);

  wgpuBindGroupRelease(group);
  wgpuComputePipelineRelease(pipeline);
  wgpuPipelineLayoutRelease(layout);
  wgpuBindGroupLayoutRelease(bgl);
  wgpuShaderModuleRelease(module);
  wgpuTextureViewRelease(view_out);
  wgpuTextureViewRelease(view_rgba);
  wgpuTextureViewRelease(view_src);
  wgpuBufferRelease(staging);
  wgpuTextureRelease(out);
  wgpuTextureRelease(small);
  wgpuTextureRelease(tex_rgba_copy);
  wgpuTextureRelease(tex_rgba);
  wgpuTextureRelease(src);
  free(got);
  free(want);
  free(rgba_copy);
  free(rgba);
  free(mip1);
  free(layer1);
  free(layer0);
  return ok;
}

int main(int argc, char **argv) {
  wp_ctx c;
  int rc = wp_start(&c, "texture", argc, argv);
  if (!rc) rc = wp_open_device(&c, NULL, 0, NULL);
  if (rc) return wp_end(&c, rc);
  return wp_main(&c, run);
}
