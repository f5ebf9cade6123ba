/* The llama2.c checkpoint reader and the default model generator: layout,
 * pointers and offsets, rejection of every truncation and of hostile header
 * fields, the cache, and bit-for-bit determinism of the generated files. */
#include "llm/gen.h"
#include "llm/model.h"
#include "ul_test.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#define EXPECT_EQ_U(a, b) UL__CMP("EXPECT_EQ", a, ==, b, "%" PRIu64, uint64_t, (void)0)

static char tmpdir[1024];

static void make_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/ul_llm_model_XXXXXX", base && *base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    exit(1);
  }
}

static void remove_tmpdir(void) {
  DIR *d = opendir(tmpdir);
  if (!d) return;
  struct dirent *e;
  char p[PATH_MAX + 256];
  while ((e = readdir(d)))
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
      snprintf(p, sizeof p, "%s/%s", tmpdir, e->d_name);
      unlink(p);
    }
  closedir(d);
  rmdir(tmpdir);
}

static void write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || (n && fwrite(data, 1, n, f) != n)) {
    perror(path);
    exit(1);
  }
  fclose(f);
}

/* A small model: every float holds its own index in the file's float array,
 * so a pointer into the wrong place reads the wrong number. */
static unsigned char *tiny_model(const int32_t hdr[7], size_t *size) {
  llm_layout lay;
  if (llm_layout_compute(hdr, UINT64_MAX, &lay) != UL_OK) return NULL;
  *size = (size_t)lay.total_bytes;
  unsigned char *b = malloc(*size);
  memcpy(b, hdr, 28);
  for (size_t i = 0; i < (*size - 28) / 4; i++) {
    float f = (float)i;
    memcpy(b + 28 + 4 * i, &f, 4);
  }
  return b;
}

static const int32_t tiny_hdr[7] = {8, 12, 2, 4, 2, -7, 6};

static void test_layout_tiny(void) {
  llm_layout lay;
  ASSERT_OK(llm_layout_compute(tiny_hdr, UINT64_MAX, &lay));
  ASSERT_EQ(lay.cfg.dim, 8);
  ASSERT_EQ(lay.cfg.head_size, 2);
  ASSERT_EQ(lay.cfg.kv_dim, 4);
  ASSERT_EQ(lay.cfg.vocab_size, 7);
  ASSERT_TRUE(!lay.cfg.shared_classifier);
  /* By hand: emb 56, rms_att 16, wq 128, wk 64, wv 64, wo 128, rms_ffn 16,
   * w1 192, w2 192, w3 192, rms_final 8, freq 6 + 6, wcls 56 floats. */
  ASSERT_EQ_U(lay.t[LLM_TOKEN_EMBEDDING].offset, 28);
  ASSERT_EQ_U(lay.t[LLM_RMS_ATT].offset, 28 + 4 * 56);
  ASSERT_EQ_U(lay.t[LLM_WQ].offset, 28 + 4 * 72);
  ASSERT_EQ_U(lay.t[LLM_WK].offset, 28 + 4 * 200);
  ASSERT_EQ_U(lay.t[LLM_WK].layer_stride, 32);
  ASSERT_EQ_U(lay.t[LLM_W2].rows, 8);
  ASSERT_EQ_U(lay.t[LLM_W2].cols, 12);
  ASSERT_EQ_U(lay.t[LLM_FREQ_CIS_REAL].count, 6);
  ASSERT_EQ_U(lay.t[LLM_WCLS].offset, 28 + 4 * (56 + 16 + 128 + 64 + 64 + 128 + 16 +
                                                    192 * 3 + 8 + 12));
  ASSERT_EQ_U(lay.total_bytes, lay.t[LLM_WCLS].offset + 4 * 56);

  int32_t shared[7];
  memcpy(shared, tiny_hdr, sizeof shared);
  shared[5] = 7;
  ASSERT_OK(llm_layout_compute(shared, UINT64_MAX, &lay));
  ASSERT_TRUE(lay.cfg.shared_classifier);
  ASSERT_EQ_U(lay.t[LLM_WCLS].offset, 28);
  ASSERT_EQ_U(lay.total_bytes, lay.t[LLM_FREQ_CIS_IMAG].offset + 4 * 6);
}

static void test_open_pointers_and_offsets(void) {
  size_t n = 0;
  unsigned char *b = tiny_model(tiny_hdr, &n);
  ASSERT_TRUE(b != NULL);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/tiny.bin", tmpdir);
  write_file(path, b, n);
  free(b);
  llm_model *m = NULL;
  ASSERT_OK(llm_model_open(path, &m));
  ASSERT_EQ_U(m->file_size, n);
#define CHECK_TENSOR(ID, field, per_layer)                                          \
  {                                                                                 \
    uint64_t off = m->layout.t[LLM_##ID].offset;                                \
    EXPECT_TRUE((const unsigned char *)m->field == (const unsigned char *)m->map + off); \
    EXPECT_EQ((int64_t)m->field[0], (int64_t)(off - 28) / 4);                      \
  }
  LLM_TENSOR_MAP(CHECK_TENSOR)
#undef CHECK_TENSOR
  uint64_t off = 0;
  const float *wk1 = llm_model_tensor(m, LLM_WK, 1, &off);
  ASSERT_TRUE(wk1 == m->wk + 32);
  ASSERT_EQ_U(off, m->layout.t[LLM_WK].offset + 32 * 4);
  ASSERT_TRUE(llm_model_tensor(m, LLM_WK, 2, NULL) == NULL);
  ASSERT_TRUE(llm_model_tensor(m, LLM_RMS_FINAL, 1, NULL) == NULL);
  ASSERT_TRUE(llm_model_tensor(m, LLM_RMS_FINAL, 0, NULL) == m->rms_final);
  ASSERT_STR_EQ(llm_tensor_name(LLM_W3), "w3");
  llm_model_close(m);
}

/* Every proper prefix of a valid file is refused with UL_ERR_FORMAT; the
 * whole file and the file with trailing bytes open. */
static void test_every_truncation_rejected(void) {
  size_t n = 0;
  unsigned char *b = tiny_model(tiny_hdr, &n);
  ASSERT_TRUE(b != NULL);
  b = realloc(b, n + 16);
  memset(b + n, 0xAB, 16);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/trunc.bin", tmpdir);
  for (size_t len = 0; len < n; len++) {
    write_file(path, b, len);
    llm_model *m = (llm_model *)1;
    ul_status s = llm_model_open(path, &m);
    if (s != UL_ERR_FORMAT || m != NULL) {
      UL__FAIL_AT("length %zu of %zu: got %s (%s)", len, n, ul_status_name(s), ul_last_error());
      llm_model_close(m);
      free(b);
      return;
    }
    if (len >= 28) ASSERT_CONTAINS(ul_last_error(), "truncated");
  }
  for (size_t len = n; len <= n + 16; len += 16) {
    write_file(path, b, len);
    llm_model *m = NULL;
    ASSERT_OK(llm_model_open(path, &m));
    llm_model_close(m);
  }
  free(b);
}

static void test_hostile_header_fields(void) {
  static const struct {
    int field;
    int32_t value;
    const char *msg;
  } cases[] = {
      {0, 0, "dim"},          {0, -8, "dim"},        {0, INT32_MAX, "dim"},
      {0, INT32_MIN, "dim"},  {0, 10, "divide"},     {1, 0, "hidden_dim"},
      {1, -1, "hidden_dim"},  {1, INT32_MAX, "hidden_dim"}, {2, 0, "n_layers"},
      {2, -3, "n_layers"},    {2, 1 << 30, "n_layers"},     {3, 0, "n_heads"},
      {3, -4, "n_heads"},     {3, 9, "n_heads"},     {3, 3, "divide"},
      {3, 8, "n_kv_heads"} /* head_size 1: 2 kv heads still divide 8 → odd check */,
      {4, 0, "n_kv_heads"},   {4, -2, "n_kv_heads"}, {4, 3, "divide"},
      {4, 5, "n_kv_heads"},   {5, 0, "vocab"},       {5, INT32_MIN, "vocab"},
      {5, INT32_MAX, "vocab"}, {5, -(1 << 23), "vocab"},   {6, 0, "seq_len"},
      {6, -1, "seq_len"},     {6, INT32_MAX, "seq_len"},
      {6, 1 << 20, "truncated"}, /* in range, but the freq tables overflow the file */
      {1, 1 << 18, "truncated"},
  };
  size_t n = 0;
  unsigned char *b = tiny_model(tiny_hdr, &n);
  ASSERT_TRUE(b != NULL);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/hostile.bin", tmpdir);
  for (size_t i = 0; i < LLM_COUNT_OF(cases); i++) {
    int32_t hdr[7];
    memcpy(hdr, tiny_hdr, sizeof hdr);
    hdr[cases[i].field] = cases[i].value;
    memcpy(b, hdr, sizeof hdr);
    write_file(path, b, n);
    llm_model *m = NULL;
    ul_status s = llm_model_open(path, &m);
    if (s != UL_ERR_FORMAT || m) {
      UL__FAIL_AT("case %zu (field %d = %d): got %s", i, cases[i].field, cases[i].value,
                  ul_status_name(s));
      llm_model_close(m);
      continue;
    }
    if (cases[i].field == 3 && cases[i].value == 8) {
      /* n_heads 8 over dim 8: head size 1 is odd. */
      EXPECT_TRUE(strstr(ul_last_error(), "odd") != NULL);
      continue;
    }
    if (!strstr(ul_last_error(), cases[i].msg))
      UL__FAIL_AT("case %zu: message \"%s\" lacks \"%s\"", i, ul_last_error(), cases[i].msg);
  }
  free(b);
}

static void test_bad_arguments_and_io(void) {
  llm_model *m = NULL;
  ASSERT_STATUS(llm_model_open(NULL, &m), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_model_open("/x", NULL), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_layout_compute(NULL, 0, NULL), UL_ERR_INVALID_ARGUMENT);
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/does-not-exist.bin", tmpdir);
  ASSERT_STATUS(llm_model_open(path, &m), UL_ERR_IO);
  ASSERT_CONTAINS(ul_last_error(), "does-not-exist.bin");
  ASSERT_STATUS(llm_model_open(tmpdir, &m), UL_ERR_IO); /* a directory */
  ASSERT_TRUE(m == NULL);
  llm_model_close(NULL);
}

static uint64_t fnv1a(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

/* The generator uses only integer randomness and exact float operations, so
 * the files are the same bytes on every machine and compiler: pinned here. */
static void test_default_is_bit_identical(void) {
  llm_blob m1, t1, m2, t2;
  ASSERT_OK(llm_gen_build(LLM_DEFAULT_SEED, &m1, &t1));
  ASSERT_OK(llm_gen_build(LLM_DEFAULT_SEED, &m2, &t2));
  EXPECT_EQ(m1.size, 3510812);
  EXPECT_EQ(t1.size, 6823);
  EXPECT_TRUE(m1.size == m2.size && memcmp(m1.data, m2.data, m1.size) == 0);
  EXPECT_TRUE(t1.size == t2.size && memcmp(t1.data, t2.data, t1.size) == 0);
  EXPECT_EQ_U(fnv1a(m1.data, m1.size), 0xa80bab5a43b90f63ull);
  EXPECT_EQ_U(fnv1a(t1.data, t1.size), 0x54249e1a6c9b770aull);
  llm_blob m3;
  ASSERT_OK(llm_gen_build(LLM_DEFAULT_SEED + 1, &m3, NULL));
  EXPECT_TRUE(m3.size == m1.size && memcmp(m3.data, m1.data, m1.size) != 0);
  llm_blob_free(&m1);
  llm_blob_free(&t1);
  llm_blob_free(&m2);
  llm_blob_free(&t2);
  llm_blob_free(&m3);
}

static bool read_all(const char *path, llm_blob *out) {
  FILE *f = fopen(path, "rb");
  if (!f) return false;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  out->data = malloc((size_t)n + 1);
  out->size = fread(out->data, 1, (size_t)n, f);
  fclose(f);
  return out->size == (size_t)n;
}

static void test_default_cache_round_trip(void) {
  char dir[PATH_MAX], mp[PATH_MAX], tp[PATH_MAX];
  /* A nested directory that does not exist yet. */
  snprintf(dir, sizeof dir, "%s/cache", tmpdir);
  ASSERT_OK(llm_gen_ensure(dir, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  llm_blob want_m, want_t, got;
  ASSERT_OK(llm_gen_build(LLM_DEFAULT_SEED, &want_m, &want_t));
  ASSERT_TRUE(read_all(mp, &got));
  EXPECT_TRUE(got.size == want_m.size && memcmp(got.data, want_m.data, got.size) == 0);
  llm_blob_free(&got);
  ASSERT_TRUE(read_all(tp, &got));
  EXPECT_TRUE(got.size == want_t.size && memcmp(got.data, want_t.data, got.size) == 0);
  llm_blob_free(&got);

  llm_model *m = NULL;
  ASSERT_OK(llm_model_open(mp, &m));
  EXPECT_EQ(m->cfg.dim, LLM_GEN_DIM);
  EXPECT_EQ(m->cfg.hidden_dim, LLM_GEN_HIDDEN);
  EXPECT_EQ(m->cfg.n_layers, LLM_GEN_LAYERS);
  EXPECT_EQ(m->cfg.n_heads, LLM_GEN_HEADS);
  EXPECT_EQ(m->cfg.n_kv_heads, LLM_GEN_KV_HEADS);
  EXPECT_EQ(m->cfg.vocab_size, LLM_GEN_VOCAB);
  EXPECT_EQ(m->cfg.seq_len, LLM_GEN_SEQ_LEN);
  EXPECT_TRUE(!m->cfg.shared_classifier);
  EXPECT_EQ_U(m->layout.total_bytes, m->file_size);
  /* A tensor read through its file offset equals the one in memory. */
  uint64_t off = 0;
  const float *w2 = llm_model_tensor(m, LLM_W2, 3, &off);
  ASSERT_TRUE(w2 && off + 4 <= want_m.size);
  EXPECT_TRUE(memcmp(want_m.data + off, w2, 4 * 8) == 0);
  llm_model_close(m);

  /* Reused when it matches: the same inode stays. */
  struct stat st1, st2;
  ASSERT_TRUE(stat(mp, &st1) == 0);
  ASSERT_OK(llm_gen_ensure(dir, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  ASSERT_TRUE(stat(mp, &st2) == 0);
  EXPECT_EQ_U(st1.st_ino, st2.st_ino);

  /* Replaced when the header or size is wrong. */
  write_file(mp, "garbage", 7);
  int32_t bad_hdr[8] = {0};
  write_file(tp, bad_hdr, sizeof bad_hdr);
  ASSERT_OK(llm_gen_ensure(dir, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  ASSERT_TRUE(read_all(mp, &got));
  EXPECT_TRUE(got.size == want_m.size && memcmp(got.data, want_m.data, got.size) == 0);
  llm_blob_free(&got);
  ASSERT_TRUE(read_all(tp, &got));
  EXPECT_TRUE(got.size == want_t.size && memcmp(got.data, want_t.data, got.size) == 0);
  llm_blob_free(&got);
  /* Poisoned: the header and size intact, the weights zeroed (and one
   * byte of the tokenizer changed): regenerated, never reused. */
  {
    unsigned char *poison = malloc(want_m.size);
    ASSERT_TRUE(poison != NULL);
    memcpy(poison, want_m.data, LLM_HEADER_BYTES);
    memset(poison + LLM_HEADER_BYTES, 0, want_m.size - LLM_HEADER_BYTES);
    write_file(mp, poison, want_m.size);
    memcpy(poison, want_t.data, want_t.size);
    poison[want_t.size - 1] ^= 0x5a;
    write_file(tp, poison, want_t.size);
    free(poison);
    ASSERT_OK(llm_gen_ensure(dir, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
    ASSERT_TRUE(read_all(mp, &got));
    EXPECT_TRUE(got.size == want_m.size && memcmp(got.data, want_m.data, got.size) == 0);
    llm_blob_free(&got);
    ASSERT_TRUE(read_all(tp, &got));
    EXPECT_TRUE(got.size == want_t.size && memcmp(got.data, want_t.data, got.size) == 0);
    llm_blob_free(&got);
  }
  llm_blob_free(&want_m);
  llm_blob_free(&want_t);
  unlink(mp);
  unlink(tp);
  rmdir(dir);

  char small[8];
  ASSERT_STATUS(llm_gen_ensure(dir, 1, small, small, sizeof small),
                UL_ERR_INVALID_ARGUMENT);
}

static void test_cache_dir_precedence(void) {
  char buf[PATH_MAX];
  char *saved[3];
  const char *names[3] = {"UNLOST_CACHE_DIR", "XDG_CACHE_HOME", "HOME"};
  for (int i = 0; i < 3; i++) saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
  setenv("UNLOST_CACHE_DIR", "/a", 1);
  setenv("XDG_CACHE_HOME", "/b", 1);
  setenv("HOME", "/c", 1);
  ASSERT_OK(llm_gen_cache_dir(buf, sizeof buf));
  EXPECT_TRUE(strcmp(buf, "/a") == 0);
  setenv("UNLOST_CACHE_DIR", "", 1);
  ASSERT_OK(llm_gen_cache_dir(buf, sizeof buf));
  EXPECT_TRUE(strcmp(buf, "/b/unlost") == 0);
  unsetenv("XDG_CACHE_HOME");
  ASSERT_OK(llm_gen_cache_dir(buf, sizeof buf));
  EXPECT_TRUE(strcmp(buf, "/c/.cache/unlost") == 0);
  unsetenv("HOME");
  ASSERT_OK(llm_gen_cache_dir(buf, sizeof buf));
  EXPECT_TRUE(strcmp(buf, "/tmp/unlost-cache") == 0);
  ASSERT_STATUS(llm_gen_cache_dir(buf, 4), UL_ERR_INVALID_ARGUMENT);
  for (int i = 0; i < 3; i++) {
    if (saved[i]) setenv(names[i], saved[i], 1);
    else unsetenv(names[i]);
    free(saved[i]);
  }
}

static void test_default_open_uses_cache_dir(void) {
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/envcache", tmpdir);
  char *saved = getenv("UNLOST_CACHE_DIR") ? strdup(getenv("UNLOST_CACHE_DIR")) : NULL;
  setenv("UNLOST_CACHE_DIR", dir, 1);
  llm_model *m = NULL;
  llm_tokenizer *t = NULL;
  ul_status s = llm_default_open(&m, &t);
  if (saved) setenv("UNLOST_CACHE_DIR", saved, 1);
  else unsetenv("UNLOST_CACHE_DIR");
  free(saved);
  ASSERT_OK(s);
  EXPECT_EQ(t->vocab_size, m->cfg.vocab_size);
  llm_model_close(m);
  llm_tokenizer_free(t);
  char mp[PATH_MAX], tp[PATH_MAX];
  ASSERT_OK(llm_gen_ensure(dir, LLM_DEFAULT_SEED, mp, tp, sizeof mp));
  unlink(mp);
  unlink(tp);
  rmdir(dir);
}

int main(void) {
  ul_test_watchdog(120);
  make_tmpdir();
  RUN_TEST(test_layout_tiny);
  RUN_TEST(test_open_pointers_and_offsets);
  RUN_TEST(test_every_truncation_rejected);
  RUN_TEST(test_hostile_header_fields);
  RUN_TEST(test_bad_arguments_and_io);
  RUN_TEST(test_default_is_bit_identical);
  RUN_TEST(test_default_cache_round_trip);
  RUN_TEST(test_cache_dir_precedence);
  RUN_TEST(test_default_open_uses_cache_dir);
  remove_tmpdir();
  TEST_MAIN_END();
}
