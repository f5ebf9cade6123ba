/* tokenizer.bin: validation (every truncation, hostile fields), BPE merge
 * order, encode/decode round trips on the default vocabulary. */
#include "llm/gen.h"
#include "llm/tokenizer.h"
#include "ul_test.h"

#include <time.h>

/* Serialises a vocabulary: pieces[i] with scores[i]. */
static unsigned char *make_tok(const char *const *pieces, const float *scores, int n,
                               int32_t max_len, size_t *size) {
  size_t sz = 4;
  for (int i = 0; i < n; i++) sz += 8 + strlen(pieces[i]);
  unsigned char *b = malloc(sz), *p = b + 4;
  memcpy(b, &max_len, 4);
  for (int i = 0; i < n; i++) {
    int32_t len = (int32_t)strlen(pieces[i]);
    memcpy(p, &scores[i], 4);
    memcpy(p + 4, &len, 4);
    memcpy(p + 8, pieces[i], (size_t)len);
    p += 8 + len;
  }
  *size = sz;
  return b;
}

static const char *const small_pieces[] = {"<unk>", "<s>", "</s>", " ", "a", "b", "c",
                                           "ab", "bc", " a", " ab", "abc", "ca"};
static const float small_scores[] = {0, 0, 0, 0, 0, 0, 0, -1, -2, -3, -0.5f, 5, -1};
enum { SMALL_N = 13 };

static llm_tokenizer *small_tok(void) {
  size_t n;
  unsigned char *b = make_tok(small_pieces, small_scores, SMALL_N, 5, &n);
  llm_tokenizer *t = NULL;
  ul_status s = llm_tokenizer_load(b, n, SMALL_N, &t);
  free(b);
  return s == UL_OK ? t : NULL;
}

static void expect_tokens(const llm_tokenizer *t, const char *text, bool bos,
                          const int32_t *want, size_t n_want) {
  int32_t got[64];
  size_t n = 0;
  ul_status s = llm_tokenizer_encode(t, text, strlen(text), bos, false, got, 64, &n);
  if (s != UL_OK) {
    UL__FAIL_AT("encode \"%s\": %s", text, ul_last_error());
    return;
  }
  bool same = n == n_want && memcmp(got, want, n * sizeof *got) == 0;
  if (!same) {
    char buf[512];
    int k = 0;
    for (size_t i = 0; i < n && k < 400; i++) k += snprintf(buf + k, sizeof buf - (size_t)k, " %d", got[i]);
    UL__FAIL_AT("encode \"%s\": got [%s ] (%zu tokens, want %zu)", text, n ? buf : "", n, n_want);
  }
}

/* Merges pick the highest-scoring pair first, the leftmost on ties. */
static void test_merge_order(void) {
  llm_tokenizer *t = small_tok();
  ASSERT_TRUE(t != NULL);
  ASSERT_TRUE(!t->has_byte_tokens);
  ASSERT_EQ(llm_tokenizer_find(t, "ab", 2), 7);
  ASSERT_EQ(llm_tokenizer_find(t, "abcd", 4), -1);
  ASSERT_EQ(llm_tokenizer_find(t, "", 0), -1);
  /* "abc": " " a b c -> pairs " a"(-3), "ab"(-1), "bc"(-2): "ab" first,
   * then "abc"(5) beats " ab"(-0.5): [" ", "abc"]. */
  expect_tokens(t, "abc", false, (const int32_t[]){3, 11}, 2);
  /* "ab": " a"(-3) vs "ab"(-1) -> "ab", then " ab"(-0.5): [" ab"]; with BOS. */
  expect_tokens(t, "ab", true, (const int32_t[]){1, 10}, 2);
  /* "cab": " c" no; "ca"(-1) and "ab"(-1) tie: leftmost "ca" wins -> " " ca b */
  expect_tokens(t, "cab", false, (const int32_t[]){3, 12, 5}, 3);
  /* Unknown characters without byte tokens become <unk>. */
  expect_tokens(t, "a\xc3\xa9", false, (const int32_t[]){9, 0, 0}, 3);
  /* Empty text: no dummy prefix. */
  expect_tokens(t, "", true, (const int32_t[]){1}, 1);
  llm_tokenizer_free(t);
}

static void test_every_truncation_rejected(void) {
  size_t n;
  unsigned char *b = make_tok(small_pieces, small_scores, SMALL_N, 5, &n);
  for (size_t len = 0; len < n; len++) {
    llm_tokenizer *t = (llm_tokenizer *)1;
    ul_status s = llm_tokenizer_load(b, len, SMALL_N, &t);
    if (s != UL_ERR_FORMAT || t) {
      UL__FAIL_AT("length %zu of %zu: got %s", len, n, ul_status_name(s));
      free(b);
      return;
    }
  }
  /* One byte too many, one token too many or too few. */
  unsigned char *b2 = malloc(n + 1);
  memcpy(b2, b, n);
  b2[n] = 0;
  llm_tokenizer *t = NULL;
  ASSERT_STATUS(llm_tokenizer_load(b2, n + 1, SMALL_N, &t), UL_ERR_FORMAT);
  ASSERT_CONTAINS(ul_last_error(), "left over");
  free(b2);
  ASSERT_STATUS(llm_tokenizer_load(b, n, SMALL_N + 1, &t), UL_ERR_FORMAT);
  ASSERT_STATUS(llm_tokenizer_load(b, n, SMALL_N - 1, &t), UL_ERR_FORMAT);
  ASSERT_OK(llm_tokenizer_load(b, n, SMALL_N, &t));
  llm_tokenizer_free(t);
  free(b);
}

static void test_hostile_fields(void) {
  size_t n;
  unsigned char *b = make_tok(small_pieces, small_scores, SMALL_N, 5, &n);
  unsigned char *c = malloc(n);
  const int32_t bad_max[] = {0, -1, INT32_MIN, LLM_MAX_TOKEN_LEN + 1, INT32_MAX};
  for (size_t i = 0; i < LLM_COUNT_OF(bad_max); i++) {
    memcpy(c, b, n);
    memcpy(c, &bad_max[i], 4);
    llm_tokenizer *t = NULL;
    ASSERT_STATUS(llm_tokenizer_load(c, n, SMALL_N, &t), UL_ERR_FORMAT);
    ASSERT_CONTAINS(ul_last_error(), "max_token_length");
  }
  /* The first token's length field is at offset 8, its score at 4. */
  const int32_t bad_len[] = {-1, INT32_MIN, 6 /* > max 5 */, INT32_MAX, 1000};
  for (size_t i = 0; i < LLM_COUNT_OF(bad_len); i++) {
    memcpy(c, b, n);
    memcpy(c + 8, &bad_len[i], 4);
    llm_tokenizer *t = NULL;
    ASSERT_STATUS(llm_tokenizer_load(c, n, SMALL_N, &t), UL_ERR_FORMAT);
  }
  const uint32_t bad_score[] = {0x7fc00000u /* NaN */, 0x7f800000u /* +inf */,
                                0xff800000u /* -inf */};
  for (size_t i = 0; i < LLM_COUNT_OF(bad_score); i++) {
    memcpy(c, b, n);
    memcpy(c + 4, &bad_score[i], 4);
    llm_tokenizer *t = NULL;
    ASSERT_STATUS(llm_tokenizer_load(c, n, SMALL_N, &t), UL_ERR_FORMAT);
    ASSERT_CONTAINS(ul_last_error(), "score");
  }
  llm_tokenizer *t = NULL;
  ASSERT_STATUS(llm_tokenizer_load(b, n, 0, &t), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_tokenizer_load(b, n, -5, &t), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_tokenizer_load(NULL, 5, 3, &t), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_tokenizer_open("/nonexistent/tok.bin", 3, &t), UL_ERR_IO);
  ASSERT_TRUE(t == NULL);
  free(b);
  free(c);
}

static llm_tokenizer *default_tok(void) {
  llm_blob blob;
  if (llm_gen_build(LLM_DEFAULT_SEED, NULL, &blob) != UL_OK) return NULL;
  llm_tokenizer *t = NULL;
  ul_status s = llm_tokenizer_load(blob.data, blob.size, LLM_GEN_VOCAB, &t);
  llm_blob_free(&blob);
  return s == UL_OK ? t : NULL;
}

/* decode(encode(text, bos)) must give text back, byte for byte. */
static bool round_trip(const llm_tokenizer *t, const char *text, size_t len, size_t *n_tokens) {
  int32_t *tok = malloc((len + 3) * sizeof *tok);
  size_t n = 0;
  if (llm_tokenizer_encode(t, text, len, true, true, tok, len + 3, &n) != UL_OK ||
      tok[0] != LLM_TOKEN_BOS || tok[n - 1] != LLM_TOKEN_EOS) {
    free(tok);
    return false;
  }
  char *out = malloc(len + 64);
  size_t o = 0;
  bool ok = true;
  for (size_t i = 1; i + 1 < n && ok; i++) {
    const char *p;
    size_t pl;
    ok = llm_tokenizer_decode(t, tok[i - 1], tok[i], &p, &pl) == UL_OK && o + pl <= len;
    if (ok) memcpy(out + o, p, pl);
    o += pl;
  }
  ok = ok && o == len && memcmp(out, text, len) == 0;
  if (n_tokens) *n_tokens = n - 2;
  free(out);
  free(tok);
  return ok;
}

static void test_default_vocabulary(void) {
  llm_tokenizer *t = default_tok();
  ASSERT_TRUE(t != NULL);
  ASSERT_TRUE(t->has_byte_tokens);
  ASSERT_EQ(t->vocab_size, 512);
  EXPECT_EQ(llm_tokenizer_find(t, "<0x41>", 6), 3 + 0x41);
  EXPECT_TRUE(llm_tokenizer_find(t, " keeper", 7) > 258);
  EXPECT_TRUE(llm_tokenizer_find(t, " kee", 4) > 258);
  /* The corpus encodes to whole words and punctuation, one token each. */
  const char *corpus = llm_gen_corpus();
  size_t len = strlen(corpus), words = 0, n = 0;
  for (size_t i = 0; i < len; i++)
    if (corpus[i] == '.' || corpus[i] == ',' ||
        (corpus[i] != ' ' && (i == 0 || corpus[i - 1] == ' ')))
      words++;
  ASSERT_TRUE(round_trip(t, corpus, len, &n));
  EXPECT_EQ(n, words);
  int32_t tok[8];
  expect_tokens(t, "the keeper", true,
                (const int32_t[]){1, llm_tokenizer_find(t, " the", 4),
                                  llm_tokenizer_find(t, " keeper", 7)},
                3);
  ASSERT_STATUS(llm_tokenizer_encode(t, "hello", 5, true, false, tok, 7, &n),
                UL_ERR_INVALID_ARGUMENT);
  llm_tokenizer_free(t);
}

static void test_round_trips(void) {
  llm_tokenizer *t = default_tok();
  ASSERT_TRUE(t != NULL);
  static const char *texts[] = {
      "",
      "a",
      " leading space",
      "two  spaces and trailing ",
      "Capitals, Digits 0123 and <0x41> look-alikes!",
      "caf\xc3\xa9 \xe2\x98\x95 \xf0\x9f\x8c\x8a unicode",
      "broken utf8 \xc3 \xe2\x98 \xff\xfe and a NUL",
      "the keeper\nthe harbor\n\n",
  };
  for (size_t i = 0; i < LLM_COUNT_OF(texts); i++)
    if (!round_trip(t, texts[i], strlen(texts[i]), NULL))
      UL__FAIL_AT("round trip of text %zu \"%s\"", i, texts[i]);
  /* Embedded NUL bytes and every byte value. */
  char all[512];
  for (int i = 0; i < 512; i++) all[i] = (char)(i * 7 + 3);
  EXPECT_TRUE(round_trip(t, all, sizeof all, NULL));
  /* Random ASCII words. */
  uint64_t r = 42;
  for (int k = 0; k < 200; k++) {
    char buf[64];
    int n = 1 + (int)(r % 60);
    for (int i = 0; i < n; i++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      buf[i] = " abcdefghijklmnopqrstuvwxyz.,"[(r >> 33) % 29];
    }
    if (!round_trip(t, buf, (size_t)n, NULL)) {
      UL__FAIL_AT("round trip of random text %d \"%.*s\"", k, n, buf);
      break;
    }
  }
  llm_tokenizer_free(t);
}

static void test_decode(void) {
  llm_tokenizer *t = default_tok();
  ASSERT_TRUE(t != NULL);
  int32_t the = llm_tokenizer_find(t, " the", 4);
  const char *p;
  size_t n;
  ASSERT_OK(llm_tokenizer_decode(t, LLM_TOKEN_BOS, the, &p, &n));
  ASSERT_TRUE(n == 3 && memcmp(p, "the", 3) == 0);
  ASSERT_OK(llm_tokenizer_decode(t, the, the, &p, &n));
  ASSERT_TRUE(n == 4 && memcmp(p, " the", 4) == 0);
  ASSERT_OK(llm_tokenizer_decode(t, -1, LLM_TOKEN_BYTE0 + 0x0A, &p, &n));
  ASSERT_TRUE(n == 1 && p[0] == '\n');
  ASSERT_OK(llm_tokenizer_decode(t, -1, LLM_TOKEN_BYTE0, &p, &n));
  ASSERT_TRUE(n == 1 && p[0] == '\0');
  ASSERT_STATUS(llm_tokenizer_decode(t, -1, 512, &p, &n), UL_ERR_INVALID_ARGUMENT);
  ASSERT_STATUS(llm_tokenizer_decode(t, -1, -1, &p, &n), UL_ERR_INVALID_ARGUMENT);
  ASSERT_TRUE(n == 0 && p && *p == '\0');
  llm_tokenizer_free(t);
}

/* A vocabulary too small for BOS/EOS refuses to emit them. */
static void test_tiny_vocab(void) {
  static const char *const pieces[] = {"x"};
  static const float scores[] = {0};
  size_t n;
  unsigned char *b = make_tok(pieces, scores, 1, 1, &n);
  llm_tokenizer *t = NULL;
  ASSERT_OK(llm_tokenizer_load(b, n, 1, &t));
  free(b);
  int32_t tok[8];
  size_t nt = 0;
  EXPECT_EQ(llm_tokenizer_encode(t, "xy", 2, true, false, tok, 8, &nt),
            UL_ERR_INVALID_ARGUMENT);
  ul_status s = llm_tokenizer_encode(t, "xy", 2, false, false, tok, 8, &nt);
  EXPECT_EQ(s, UL_OK);
  EXPECT_EQ(nt, 2); /* "x", <unk> */
  EXPECT_EQ(tok[0], 0);
  EXPECT_EQ(tok[1], LLM_TOKEN_UNK);
  llm_tokenizer_free(t);
}

/* The merge rule written plainly (llama2.c's loop: rescan every pair, take
 * the highest score, the leftmost on ties), as the reference for the
 * library's heap. Starts from the library's own pieces before merging:
 * encode with a vocabulary of single characters gives them. */
static size_t reference_merge(const llm_tokenizer *t, int32_t *tok, size_t first, size_t n) {
  char buf[512];
  for (;;) {
    float best = 0;
    int32_t best_id = -1;
    size_t at = 0;
    for (size_t i = first; i + 1 < n; i++) {
      size_t la = (size_t)t->piece_len[tok[i]], lb = (size_t)t->piece_len[tok[i + 1]];
      if (la + lb > (size_t)t->max_token_length || la + lb > sizeof buf) continue;
      memcpy(buf, t->piece[tok[i]], la);
      memcpy(buf + la, t->piece[tok[i + 1]], lb);
      int32_t id = llm_tokenizer_find(t, buf, la + lb);
      if (id >= 0 && (best_id < 0 || t->score[id] > best)) {
        best = t->score[id];
        best_id = id;
        at = i;
      }
    }
    if (best_id < 0) return n;
    tok[at] = best_id;
    memmove(tok + at + 1, tok + at + 2, (n - at - 2) * sizeof *tok);
    n--;
  }
}

/* The library's merges equal the plain rule's on random texts, and a long
 * prompt encodes in near-linear time (64 KiB took 138 s with the rescan). */
static void test_merges_match_the_plain_rule(void) {
  llm_tokenizer *t = default_tok();
  ASSERT_TRUE(t != NULL);
  uint64_t rng = 7;
  static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz       .,eeeettaaoonnss\n";
  for (int round = 0; round < 60; round++) {
    size_t len = 1 + (size_t)(round * 37 % 700);
    char *text = malloc(len + 1);
    for (size_t i = 0; i < len; i++) {
      rng = rng * 6364136223846793005ull + 1442695040888963407ull;
      text[i] = alphabet[(rng >> 33) % (sizeof alphabet - 1)];
    }
    text[len] = '\0';
    int32_t *got = malloc((len + 3) * sizeof *got), *want = malloc((len + 3) * sizeof *want);
    size_t ng = 0;
    ASSERT_OK(llm_tokenizer_encode(t, text, len, true, false, got, len + 3, &ng));
    /* The unmerged pieces: BOS, the leading space, one per character. */
    size_t nw = 0;
    want[nw++] = LLM_TOKEN_BOS;
    want[nw++] = llm_tokenizer_find(t, " ", 1);
    for (size_t i = 0; i < len; i++) {
      int32_t id = llm_tokenizer_find(t, text + i, 1);
      want[nw++] = id >= 0 ? id : LLM_TOKEN_BYTE0 + (unsigned char)text[i];
    }
    nw = reference_merge(t, want, 1, nw);
    ASSERT_EQ(ng, nw);
    ASSERT_EQ(memcmp(got, want, ng * sizeof *got), 0);
    free(text);
    free(got);
    free(want);
  }
  size_t big = 64 * 1024;
  char *text = malloc(big + 1);
  for (size_t i = 0; i < big; i++) text[i] = alphabet[(i * 7919 + i / 13) % (sizeof alphabet - 1)];
  text[big] = '\0';
  int32_t *tok = malloc((big + 3) * sizeof *tok);
  size_t n = 0;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  ASSERT_OK(llm_tokenizer_encode(t, text, big, true, false, tok, big + 3, &n));
  clock_gettime(CLOCK_MONOTONIC, &b);
  double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
  printf("  64 KiB prompt: %zu tokens in %.3f s\n", n, s);
  EXPECT_TRUE(s < 10.0); /* a bound against quadratic time, not a benchmark */
  free(text);
  free(tok);
  llm_tokenizer_free(t);
}

int main(void) {
  ul_test_watchdog(60);
  RUN_TEST(test_merge_order);
  RUN_TEST(test_every_truncation_rejected);
  RUN_TEST(test_hostile_fields);
  RUN_TEST(test_default_vocabulary);
  RUN_TEST(test_round_trips);
  RUN_TEST(test_merges_match_the_plain_rule);
  RUN_TEST(test_decode);
  RUN_TEST(test_tiny_vocab);
  TEST_MAIN_END();
}
