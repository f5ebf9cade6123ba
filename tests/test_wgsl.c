/* The reading of WGSL that tells which storage bindings a module may write
 * (src/res/wgsl.c): a binding it calls written must be one a kernel can
 * store to, and every way to store must be seen (an unseen store would
 * leave GPU-written contents out of checkpoints). */
#include "res/obj.h"
#include "ul_test.h"

static ul__wgsl_writes *analyze(const char *src) { return ul__wgsl_analyze(src, strlen(src)); }

static void test_read_only_use_of_read_write(void) {
  ul__wgsl_writes *w = analyze(
      "@group(0) @binding(0) var<storage, read_write> src0: array<f32>;\n"
      "@group(0) @binding(1) var<storage, read_write> dst: array<f32>;\n"
      "@group(0) @binding(2) var<uniform> p: vec4u;\n"
      "@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3u) {\n"
      "  let n = arrayLength(&src0);\n"
      "  if (g.x < n) { dst[g.x] = src0[g.x] * 2.0 + src0[(g.x + 1u) % n]; }\n"
      "  // src0[0] = 1.0; a comment does not write\n"
      "  /* src0[1] = 2.0; /* nested */ neither */\n"
      "}\n");
  ASSERT_TRUE(w != NULL);
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 0));
  ASSERT_TRUE(ul__wgsl_may_write(w, 0, 1));
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 2));
  free(w);
}

static void test_every_way_to_store(void) {
  static const char *const stores[] = {
      "x[0] = 1u;", "x[1] += 2u;", "x[2]++;", "x[3] <<= 1u;", "atomicAdd(&x[0], 1u);",
      "let p = &x; (*p)[0] = 1u;", "x = array<u32, 4>();", "++x[0];",
  };
  for (size_t i = 0; i < UL__COUNT_OF(stores); i++) {
    char src[512];
    snprintf(src, sizeof src,
             "@binding(3) @group(1) var<storage, read_write> x: array<u32, 4>;\n"
             "@compute @workgroup_size(1) fn main() { %s }\n",
             stores[i]);
    ul__wgsl_writes *w = analyze(src);
    if (w && !ul__wgsl_may_write(w, 1, 3)) UL__FAIL_AT("a store was not seen: %s", stores[i]);
    free(w);
  }
}

static void test_members_and_comparisons(void) {
  ul__wgsl_writes *w = analyze(
      "struct S { a: u32, b: u32 }\n"
      "@group(0) @binding(0) var<storage, read_write> s: array<S>;\n"
      "@group(0) @binding(1) var<storage, read_write> t: array<S>;\n"
      "fn f(i: u32) -> bool { return s[i].a == t[i].b; }\n"
      "@compute @workgroup_size(1) fn main() { if (f(0u)) { t[0].a = s[1].b; } }\n");
  ASSERT_TRUE(w != NULL);
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 0)); /* only compared and read */
  ASSERT_TRUE(ul__wgsl_may_write(w, 0, 1));  /* a member assigned */
  free(w);
}

static void test_unknown_is_everything(void) {
  /* A binding number that is not a literal is not followed: unknown, which
   * means every binding may be written. */
  ul__wgsl_writes *w = analyze(
      "override B: u32 = 2;\n"
      "@group(0) @binding(B) var<storage, read_write> x: array<u32>;\n"
      "@compute @workgroup_size(1) fn main() { let v = x[0]; }\n");
  ASSERT_TRUE(w == NULL);
  ASSERT_TRUE(ul__wgsl_may_write(NULL, 0, 7));
}

static void test_storage_textures_are_written(void) {
  ul__wgsl_writes *w = analyze(
      "@group(0) @binding(0) var img: texture_storage_2d<rgba8unorm, write>;\n"
      "@group(0) @binding(1) var<storage, read> src: array<u32>;\n"
      "@compute @workgroup_size(1) fn main() { textureStore(img, vec2i(0), vec4f(f32(src[0]))); }\n");
  ASSERT_TRUE(w != NULL);
  ASSERT_TRUE(ul__wgsl_may_write(w, 0, 0));
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 1));
  free(w);
}

int main(void) {
  RUN_TEST(test_read_only_use_of_read_write);
  RUN_TEST(test_every_way_to_store);
  RUN_TEST(test_members_and_comparisons);
  RUN_TEST(test_unknown_is_everything);
  RUN_TEST(test_storage_textures_are_written);
  TEST_MAIN_END();
}
