/* Texture formats: the copy unit of every format of the pinned
 * implementation's header revision (WGPUTextureFormat values of
 * wgpu/wgpu.h), for checkpoints and restores of any texture webgpu.h can
 * make. */
#include "res/obj.h"

/* Bytes per texel of the uncompressed color formats 0x01..0x25, by value. */
static const uint8_t color_bytes[0x26] = {
    [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1,                 /* R8 */
    [0x05] = 2, [0x06] = 2, [0x07] = 2,                             /* R16 */
    [0x08] = 2, [0x09] = 2, [0x0A] = 2, [0x0B] = 2,                 /* RG8 */
    [0x0C] = 4, [0x0D] = 4, [0x0E] = 4,                             /* R32 */
    [0x0F] = 4, [0x10] = 4, [0x11] = 4,                             /* RG16 */
    [0x12] = 4, [0x13] = 4, [0x14] = 4, [0x15] = 4, [0x16] = 4,     /* RGBA8 */
    [0x17] = 4, [0x18] = 4,                                         /* BGRA8 */
    [0x19] = 4, [0x1A] = 4, [0x1B] = 4, [0x1C] = 4,                 /* packed 32-bit */
    [0x1D] = 8, [0x1E] = 8, [0x1F] = 8,                             /* RG32 */
    [0x20] = 8, [0x21] = 8, [0x22] = 8,                             /* RGBA16 */
    [0x23] = 16, [0x24] = 16, [0x25] = 16,                          /* RGBA32 */
};

/* ASTC block sizes, from 0x44 in pairs (unorm, unorm-srgb). */
static const uint8_t astc_blocks[][2] = {{4, 4}, {5, 4}, {5, 5}, {6, 5}, {6, 6}, {8, 5}, {8, 6},
                                         {8, 8}, {10, 5}, {10, 6}, {10, 8}, {10, 10}, {12, 10}, {12, 12}};

bool ul__format_info_of(uint32_t f, ul__format_info *out) {
  memset(out, 0, sizeof *out);
  out->bw = out->bh = 1;
  if (f >= 0x01 && f <= 0x25) {
    out->block_bytes = color_bytes[f];
    out->copyable = true;
  } else if (f == 0x26) { /* stencil8: one aspect, copied both ways */
    out->block_bytes = 1;
    out->copyable = true;
  } else if (f == 0x27) { /* depth16unorm: one aspect, copied both ways */
    out->block_bytes = 2;
    out->copyable = true;
  } else if (f >= 0x28 && f <= 0x2B) {
    /* depth24plus (no copies), depth32float (no copies into it) and the
     * depth-stencil pairs (two aspects): kept only as NONE. */
    out->block_bytes = f == 0x2A ? 4 : 0;
  } else if (f >= 0x2C && f <= 0x39) { /* BC: 4x4 blocks, BC1 and BC4 of 8 bytes */
    out->bw = out->bh = 4;
    out->block_bytes = (f <= 0x2D || f == 0x32 || f == 0x33) ? 8 : 16;
    out->copyable = true;
  } else if (f >= 0x3A && f <= 0x43) { /* ETC2/EAC: 4x4 blocks */
    out->bw = out->bh = 4;
    out->block_bytes = (f <= 0x3D || f == 0x40 || f == 0x41) ? 8 : 16;
    out->copyable = true;
  } else if (f >= 0x44 && f <= 0x5F) { /* ASTC: 16-byte blocks */
    out->bw = astc_blocks[(f - 0x44) / 2][0];
    out->bh = astc_blocks[(f - 0x44) / 2][1];
    out->block_bytes = 16;
    out->copyable = true;
  } else if (f >= 0x50000 && f <= 0x50005) { /* Dawn's norm16 formats */
    static const uint8_t b[] = {2, 4, 8, 2, 4, 8};
    out->block_bytes = b[f - 0x50000];
    out->copyable = true;
  } else if (f >= 0x50006 && f <= 0x5000D) {
    return true; /* multi-planar and external: known, never copied */
  } else {
    return false;
  }
  return true;
}
