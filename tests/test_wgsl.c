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

/* Every line break of WGSL ends a line comment: a store after one is code
 * (the old reading ran each comment to '\n' and missed it). */
static void test_every_line_break_ends_a_comment(void) {
  static const char *const breaks[] = {"\v", "\f", "\r", "\xc2\x85", "\xe2\x80\xa8", "\xe2\x80\xa9"};
  for (size_t i = 0; i < UL__COUNT_OF(breaks); i++) {
    char src[512];
    snprintf(src, sizeof src,
             "@group(0) @binding(0) var<storage, read_write> x: array<u32, 4>;\n"
             "@compute @workgroup_size(1) fn main() { // note%sx[0] = 1u;\n}\n",
             breaks[i]);
    ul__wgsl_writes *w = analyze(src);
    if (w && !ul__wgsl_may_write(w, 0, 0)) UL__FAIL_AT("a store after line break %zu was not seen", i);
    free(w);
  }
}

/* Blankspace is every code point WGSL names, between any two tokens. */
static void test_unicode_blankspace(void) {
  static const char *const blanks[] = {"\xe2\x80\x8e", "\xe2\x80\x8f", "\xe2\x80\xa8", "\xc2\x85", "\v", "\f"};
  for (size_t i = 0; i < UL__COUNT_OF(blanks); i++) {
    char src[512];
    snprintf(src, sizeof src,
             "@group(0) @binding(0) var<storage, read_write> x: array<u32, 4>;\n"
             "@compute @workgroup_size(1) fn main() { x%s[%s0%s]%s=%s1u; }\n",
             blanks[i], blanks[i], blanks[i], blanks[i], blanks[i]);
    ul__wgsl_writes *w = analyze(src);
    if (w && !ul__wgsl_may_write(w, 0, 0)) UL__FAIL_AT("a store with blankspace %zu was not seen", i);
    free(w);
  }
}

/* Identifiers are Unicode: `xé` is one name, not `x` and something else. */
static void test_unicode_identifiers(void) {
  ul__wgsl_writes *w = analyze(
      "@group(0) @binding(0) var<storage, read_write> x\xc3\xa9: array<u32, 4>;\n"
      "@group(0) @binding(1) var<storage, read_write> x: array<u32, 4>;\n"
      "@group(0) @binding(2) var<storage, read_write> \xce\xb2\xce\xb1: array<u32, 4>;\n"
      "@compute @workgroup_size(1) fn main() { x\xc3\xa9[0] = x[1]; let v = \xce\xb2\xce\xb1[0]; }\n");
  ASSERT_TRUE(!w || ul__wgsl_may_write(w, 0, 0));
  if (w) {
    ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 1)); /* only read */
    ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 2));
  }
  free(w);
  /* The old reading took the name for `a` and missed the store. */
  w = analyze(
      "@group(0) @binding(0) var<storage, read_write> a\xc3\xa9: array<u32, 4>;\n"
      "@compute @workgroup_size(1) fn main() { a\xc3\xa9[0] = 1u; }\n");
  ASSERT_TRUE(!w || ul__wgsl_may_write(w, 0, 0));
  free(w);
}

/* A module's own function named arrayLength is not the builtin: the
 * address passed to it may be stored through. */
static void test_shadowed_array_length(void) {
  ul__wgsl_writes *w = analyze(
      "@group(0) @binding(0) var<storage, read_write> x: array<u32>;\n"
      "fn arrayLength(p: ptr<storage, array<u32>, read_write>) -> u32 { (*p)[0] = 7u; return 1u; }\n"
      "@compute @workgroup_size(1) fn main() { let n = arrayLength(&x); }\n");
  ASSERT_TRUE(!w || ul__wgsl_may_write(w, 0, 0));
  free(w);
}

/* Stores through every left-hand side the grammar allows. */
static void test_left_hand_sides(void) {
  static const char *const stores[] = {
      "(x)[0] = 1u;", "((x))[1] = 1u;", "(*&x)[0] = 1u;", "*&x = array<u32, 4>();", "(x[0]) = 1u;",
      "x[0]\n>>=\n1u;", "x[0]-- ;", "_ = 1u; x[ (1u) ] ^= 3u;", "let p = & x[0]; *p = 2u;", "for (x[0] = 0u; x[0] < 1u; x[0]++) {}",
  };
  for (size_t i = 0; i < UL__COUNT_OF(stores); i++) {
    char src[512];
    snprintf(src, sizeof src,
             "@group(0) @binding(0) var<storage, read_write> x: array<u32, 4>;\n"
             "@compute @workgroup_size(1) fn main() { %s }\n",
             stores[i]);
    ul__wgsl_writes *w = analyze(src);
    if (w && !ul__wgsl_may_write(w, 0, 0)) UL__FAIL_AT("a store was not seen: %s", stores[i]);
    free(w);
  }
}

/* Reads that are only reads: a binary '&', a comparison, a member of the
 * same name, a phony assignment, a sampled texture and a sampler. */
static void test_reads_stay_reads(void) {
  ul__wgsl_writes *w = analyze(
      "struct S { x: u32 }\n"
      "@group(0) @binding(0) var<storage, read_write> x: array<u32, 4>;\n"
      "@group(0) @binding(1) var<storage, read_write> y: array<S, 4>;\n"
      "@group(0) @binding(2) var tex: texture_2d<f32>;\n"
      "@group(0) @binding(3) var smp: sampler;\n"
      "@group(0) @binding(4) var img: texture_storage_2d<r32uint, write>;\n"
      "@compute @workgroup_size(1) fn main() {\n"
      "  var s: S; s.x = 0xfu & x[0]; _ = x[1]; let b = x[2] <= y[0].x; let c = x[3]>=1u;\n"
      "  let d = (x[0]) & 1u; let e = arrayLength(&y); let f = textureLoad(tex, vec2i(0), 0);\n"
      "}\n");
  ASSERT_TRUE(w != NULL);
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 0));
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 1));
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 2));
  ASSERT_TRUE(!ul__wgsl_may_write(w, 0, 3));
  ASSERT_TRUE(ul__wgsl_may_write(w, 0, 4));
  free(w);
}

/* What the reading cannot follow makes the module unknown: a byte WGSL has
 * no token for, an unclosed comment, malformed UTF-8, a NUL. A type alias
 * of a storage texture, or of a name the module redeclares, is written. */
static void test_what_is_not_followed(void) {
  static const char *const bad[] = {"#", "/* open", "\xc3", "let s = \"x\";", "$"};
  for (size_t i = 0; i < UL__COUNT_OF(bad); i++) {
    char src[512];
    snprintf(src, sizeof src,
             "@group(0) @binding(0) var<storage, read_write> x: array<u32, 4>;\n"
             "@compute @workgroup_size(1) fn main() { let v = x[0]; %s }\n",
             bad[i]);
    ul__wgsl_writes *w = analyze(src);
    if (w) UL__FAIL_AT("module %zu was taken as known", i);
    free(w);
  }
  static const char nul[] = "@group(0) @binding(0) var<storage, read_write> x: array<u32, 4>;\0 x[0] = 1u;";
  ul__wgsl_writes *w = ul__wgsl_analyze(nul, sizeof nul - 1);
  ASSERT_TRUE(w == NULL);
  w = analyze(
      "alias T = texture_storage_2d<r32uint, write>;\n"
      "alias sampler = texture_storage_2d<r32uint, write>;\n"
      "@group(0) @binding(0) var t: T;\n"
      "@group(0) @binding(1) var u: sampler;\n"
      "@compute @workgroup_size(1) fn main() { textureStore(t, vec2i(0), vec4u(1u)); }\n");
  ASSERT_TRUE(!w || (ul__wgsl_may_write(w, 0, 0) && ul__wgsl_may_write(w, 0, 1)));
  free(w);
}

int main(void) {
  RUN_TEST(test_read_only_use_of_read_write);
  RUN_TEST(test_every_way_to_store);
  RUN_TEST(test_members_and_comparisons);
  RUN_TEST(test_unknown_is_everything);
  RUN_TEST(test_storage_textures_are_written);
  RUN_TEST(test_every_line_break_ends_a_comment);
  RUN_TEST(test_unicode_blankspace);
  RUN_TEST(test_unicode_identifiers);
  RUN_TEST(test_shadowed_array_length);
  RUN_TEST(test_left_hand_sides);
  RUN_TEST(test_reads_stay_reads);
  RUN_TEST(test_what_is_not_followed);
  TEST_MAIN_END();
}
