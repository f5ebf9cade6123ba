/* The default model: a vocabulary and bigram classifier derived from a small
 * corpus, transformer layers with small random weights, all from an integer
 * PRNG with exact float arithmetic (see gen.h), and the cache that holds
 * the two files. */
#include "llm/gen.h"

#include "llm/cpu.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

/* Original text; lowercase, words separated by single spaces, "." and ","
 * attached to the word before them. */
static const char corpus[] =
    "the old keeper walked down to the harbor every morning. "
    "she counted the boats and wrote their names in a small book. "
    "when the fog came in, the boats stayed close to the wall. "
    "the children sat on the wall and watched the water. "
    "one morning a strange boat with a red sail drifted into the harbor. "
    "the keeper climbed aboard and found a letter and a lantern. "
    "she read the letter twice, then she lit the lantern. "
    "that night the fog lifted, and the lantern burned until the sun came up.";

const char *llm_gen_corpus(void) { return corpus; }

static const char single_chars[] = " abcdefghijklmnopqrstuvwxyz.,!?'\n";

void llm_blob_free(llm_blob *b) {
  if (!b) return;
  free(b->data);
  b->data = NULL;
  b->size = 0;
}

/* ---- vocabulary ---------------------------------------------------------- */

#define GEN_MAX_PIECE 24
#define GEN_MAX_STREAM 512

typedef struct gen_vocab {
  int32_t n;
  char piece[LLM_GEN_VOCAB][GEN_MAX_PIECE];
  int32_t len[LLM_GEN_VOCAB];
  bool predicted[LLM_GEN_VOCAB]; /* a corpus word, "." or "," */
  int32_t ortho[LLM_GEN_VOCAB];  /* orthogonal slot 1..dim-1, or 0 */
  int32_t n_ortho;
  int32_t stream[GEN_MAX_STREAM]; /* the corpus as tokens, BOS first */
  int32_t n_stream;
} gen_vocab;

static int32_t vocab_find(const gen_vocab *v, const char *s, size_t len) {
  for (int32_t i = 0; i < v->n; i++)
    if ((size_t)v->len[i] == len && memcmp(v->piece[i], s, len) == 0) return i;
  return -1;
}

static ul_status vocab_add(gen_vocab *v, const char *s, size_t len, int32_t *id) {
  int32_t found = vocab_find(v, s, len);
  if (found >= 0) {
    if (id) *id = found;
    return UL_OK;
  }
  if (v->n >= LLM_GEN_VOCAB || len >= GEN_MAX_PIECE)
    return ul_error_set(UL_ERR_INTERNAL, "default model: vocabulary overflows %d tokens",
                    LLM_GEN_VOCAB);
  memcpy(v->piece[v->n], s, len);
  v->piece[v->n][len] = '\0';
  v->len[v->n] = (int32_t)len;
  if (id) *id = v->n;
  v->n++;
  return UL_OK;
}

static ul_status stream_push(gen_vocab *v, int32_t id) {
  if (v->n_stream >= GEN_MAX_STREAM)
    return ul_error_set(UL_ERR_INTERNAL, "default model: corpus too long");
  v->stream[v->n_stream++] = id;
  return UL_OK;
}

static ul_status mark_predicted(gen_vocab *v, int32_t id) {
  if (v->predicted[id]) return UL_OK;
  v->predicted[id] = true;
  if (v->n_ortho + 1 >= LLM_GEN_DIM / 2)
    return ul_error_set(UL_ERR_INTERNAL, "default model: more than %d corpus tokens",
                    LLM_GEN_DIM / 2 - 1);
  v->ortho[id] = ++v->n_ortho;
  return UL_OK;
}

static ul_status build_vocab(gen_vocab *v) {
  memset(v, 0, sizeof *v);
  static const char hex[] = "0123456789ABCDEF";
  ul_status s;
  if ((s = vocab_add(v, "<unk>", 5, NULL)) || (s = vocab_add(v, "\n<s>\n", 5, NULL)) ||
      (s = vocab_add(v, "\n</s>\n", 6, NULL)))
    return s;
  for (int b = 0; b < 256; b++) {
    char p[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
    if ((s = vocab_add(v, p, 6, NULL))) return s;
  }
  for (const char *c = single_chars; *c; c++)
    if ((s = vocab_add(v, c, 1, NULL))) return s;

  /* BOS takes an orthogonal slot: it is the context of the first word. */
  v->ortho[LLM_TOKEN_BOS] = ++v->n_ortho;
  if ((s = stream_push(v, LLM_TOKEN_BOS))) return s;
  for (const char *p = corpus; *p;) {
    while (*p == ' ') p++;
    const char *w = p;
    while (*p >= 'a' && *p <= 'z') p++;
    size_t wl = (size_t)(p - w);
    if (wl == 0 && *p && *p != ' ' && *p != '.' && *p != ',')
      return ul_error_set(UL_ERR_INTERNAL, "default model: corpus has '%c'", *p);
    if (wl > 0) {
      char buf[GEN_MAX_PIECE];
      if (wl + 1 >= GEN_MAX_PIECE)
        return ul_error_set(UL_ERR_INTERNAL, "default model: corpus word too long");
      buf[0] = ' ';
      memcpy(buf + 1, w, wl);
      int32_t id = -1;
      for (size_t k = 2; k <= wl + 1; k++)
        if ((s = vocab_add(v, buf, k, &id))) return s;
      if ((s = mark_predicted(v, id)) || (s = stream_push(v, id))) return s;
    }
    while (*p == '.' || *p == ',') {
      int32_t id = vocab_find(v, p, 1);
      if ((s = mark_predicted(v, id)) || (s = stream_push(v, id))) return s;
      p++;
    }
  }
  for (int32_t i = 0; v->n < LLM_GEN_VOCAB; i++) {
    char p[GEN_MAX_PIECE];
    int n = snprintf(p, sizeof p, "<unused%d>", i);
    if ((s = vocab_add(v, p, (size_t)n, NULL))) return s;
  }
  return UL_OK;
}

/* ---- files --------------------------------------------------------------- */

static void put_i32(unsigned char *p, int32_t v) { memcpy(p, &v, sizeof v); }
static void put_f32(unsigned char *p, float v) { memcpy(p, &v, sizeof v); }

static ul_status build_tokenizer(const gen_vocab *v, llm_blob *out) {
  size_t size = 4;
  int32_t max_len = 1;
  for (int32_t i = 0; i < v->n; i++) {
    size += 8 + (size_t)v->len[i];
    if (v->len[i] > max_len) max_len = v->len[i];
  }
  out->data = malloc(size);
  if (!out->data) return ul_error_set(UL_ERR_OUT_OF_MEMORY, "default tokenizer: out of memory");
  out->size = size;
  unsigned char *p = out->data;
  put_i32(p, max_len);
  p += 4;
  for (int32_t i = 0; i < v->n; i++) {
    /* Longer pieces first; ties go to the lower id. Exact in float. */
    float score = (float)v->len[i] - (float)i / 4096.0f;
    put_f32(p, score);
    put_i32(p + 4, v->len[i]);
    memcpy(p + 8, v->piece[i], (size_t)v->len[i]);
    p += 8 + v->len[i];
  }
  return UL_OK;
}

/* A uniform integer in [-half, half) times scale (a power of two): exact. */
static float rand_weight(uint64_t *rng, int32_t half, float scale) {
  int64_t r = (int64_t)(llm_rng_next(rng) % (uint64_t)(2 * half)) - half;
  return (float)r * scale;
}

static int32_t parity(uint32_t x) { return (int32_t)(__builtin_popcount(x) & 1); }

/* The residual stream has two halves of B = dim/2 floats. The first holds
 * the current token: corpus tokens get mutually orthogonal directions there
 * (rows of a BxB Hadamard matrix with random signs and order; row 0 is a
 * bias direction every corpus token carries at 0.75). The second holds the
 * history: layer 0's attention has zero queries, so it averages all
 * positions, and its value/output matrices copy the first half of every
 * past token into the second half. The classifier reads the first half as a
 * bigram table and the second as a penalty on tokens already seen (in
 * proportion to how often), which keeps greedy text from looping. The other
 * weights are small and random, so every layer moves the logits a little. */
#define GEN_HALF (LLM_GEN_DIM / 2)
/* Scales of the random weights (uniform in [-a, a)). Changing any constant
 * here changes the files: bump LLM_GEN_VERSION and the pinned hashes. */
#define GEN_A_QK (1.0f / 4.0f)
#define GEN_A_V (1.0f / 8.0f)
#define GEN_A_O (1.0f / 32.0f)
#define GEN_A_13 (1.0f / 8.0f)
#define GEN_A_2 (1.0f / 32.0f)
/* Classifier terms, in 1/64 logit units. */
#define GEN_PENALTY 512 /* 8 x the token's share of the history */
#define GEN_BIAS_NEVER (-1024) /* -16 along the 0.75 bias direction: -12 */
#define GEN_SCORE_BASE 256     /* 4 for a pair seen in the corpus */
#define GEN_SCORE_EXTRA 16     /* + 0.25 per further occurrence, up to 4 */
#define GEN_SCORE_JITTER 32    /* + below 0.5, so continuations rarely tie */
#define GEN_ROW_NOISE 16 /* per entry, so no two rows are equal */

typedef struct gen_basis {
  int32_t sign[GEN_HALF], perm[GEN_HALF];
} gen_basis;

static void basis_init(gen_basis *h, uint64_t *rng, bool keep_row0) {
  for (int j = 0; j < GEN_HALF; j++) h->sign[j] = (llm_rng_next(rng) >> 63) ? -1 : 1;
  for (int r = 0; r < GEN_HALF; r++) h->perm[r] = r;
  int lo = keep_row0 ? 1 : 0;
  for (int r = GEN_HALF - 1; r > lo; r--) {
    int k = lo + (int)(llm_rng_next(rng) % (uint64_t)(r - lo + 1));
    int t = h->perm[r];
    h->perm[r] = h->perm[k];
    h->perm[k] = t;
  }
}

/* Entry (row, j) of the signed, permuted Hadamard matrix: +-1. */
static int32_t basis_at(const gen_basis *h, int32_t row, int32_t j) {
  return h->sign[j] * (parity((uint32_t)(h->perm[row] & j)) ? -1 : 1);
}

static ul_status build_model(const gen_vocab *v, uint64_t seed, llm_blob *out) {
  enum { D = LLM_GEN_DIM, V = LLM_GEN_VOCAB, B = GEN_HALF };
  const int32_t header[7] = {D, LLM_GEN_HIDDEN, LLM_GEN_LAYERS, LLM_GEN_HEADS,
                             LLM_GEN_KV_HEADS, -V, LLM_GEN_SEQ_LEN};
  _Static_assert(LLM_GEN_DIM / LLM_GEN_HEADS * LLM_GEN_KV_HEADS == GEN_HALF,
                 "the history copy needs kv_dim == dim / 2");
  llm_layout lay;
  if (llm_layout_compute(header, UINT64_MAX, &lay))
    return ul_error_wrap(UL_ERR_INTERNAL, "default model");
  out->data = calloc(1, (size_t)lay.total_bytes);
  int64_t(*isum)[D] = calloc(V, sizeof *isum);
  int32_t *pair = calloc((size_t)B * V, sizeof *pair); /* [prev slot][next] */
  if (!out->data || !isum || !pair) {
    free(isum);
    free(pair);
    llm_blob_free(out);
    return ul_error_set(UL_ERR_OUT_OF_MEMORY, "default model: out of memory");
  }
  out->size = (size_t)lay.total_bytes;
  unsigned char *base = out->data;
  for (int i = 0; i < 7; i++) put_i32(base + 4 * i, header[i]);
#define T(id) ((float *)(void *)(base + lay.t[LLM_##id].offset))
  uint64_t rng = seed;
  gen_basis tokb, valb;
  basis_init(&tokb, &rng, true);
  basis_init(&valb, &rng, false);

  /* Embeddings: corpus tokens are slot + 0.75 bias in the first half; the
   * others are random there. The history half starts at zero. */
  float *emb = T(TOKEN_EMBEDDING);
  for (int32_t t = 0; t < V; t++)
    for (int j = 0; j < B; j++)
      emb[(size_t)t * D + j] =
          v->ortho[t] ? (float)basis_at(&tokb, v->ortho[t], j) + 0.75f * (float)basis_at(&tokb, 0, j)
                      : rand_weight(&rng, 1536, 1.0f / 1024.0f);

  /* Classifier, first half: sum over previous tokens a of score(a, b) * a's
   * direction; never-predicted tokens get the negative bias. Second half:
   * minus b's own direction (the history penalty). */
  for (int32_t i = 0; i < v->n_stream; i++) {
    int32_t a = v->stream[i];
    int32_t b = i + 1 < v->n_stream ? v->stream[i + 1] : v->stream[1]; /* wrap */
    pair[(size_t)v->ortho[a] * V + (size_t)b]++;
  }
  for (int32_t slot = 1; slot <= v->n_ortho; slot++) {
    for (int32_t b = 0; b < V; b++) {
      int32_t c = pair[(size_t)slot * V + (size_t)b];
      if (!c) continue;
      int64_t score = GEN_SCORE_BASE + GEN_SCORE_EXTRA * LLM_MIN(c - 1, 4) +
                      (int64_t)(llm_rng_next(&rng) % GEN_SCORE_JITTER);
      for (int j = 0; j < B; j++) isum[b][j] += score * basis_at(&tokb, slot, j);
    }
  }
  free(pair);
  for (int32_t b = 0; b < V; b++) {
    if (!v->predicted[b]) {
      for (int j = 0; j < B; j++) isum[b][j] += GEN_BIAS_NEVER * basis_at(&tokb, 0, j);
      continue;
    }
    for (int j = 0; j < D; j++)
      isum[b][j] += (int64_t)(llm_rng_next(&rng) % (2 * GEN_ROW_NOISE + 1)) - GEN_ROW_NOISE;
    for (int j = 0; j < B; j++)
      isum[b][B + j] -= GEN_PENALTY * basis_at(&tokb, v->ortho[b], j);
  }
  /* A slot direction has squared norm B, and 1/64 units: divide by 64 * B.
   * Exact: isum is an integer well inside 24 bits. */
  float *wcls = T(WCLS);
  for (int32_t b = 0; b < V; b++)
    for (int j = 0; j < D; j++)
      wcls[(size_t)b * D + j] = (float)isum[b][j] / (float)(64 * B);
  free(isum);

  /* Random layers first, then layer 0's attention is replaced by the
   * history copy. */
  static const struct {
    llm_tensor_id id;
    float a;
  } mats[] = {{LLM_WQ, GEN_A_QK}, {LLM_WK, GEN_A_QK}, {LLM_WV, GEN_A_V},
              {LLM_WO, GEN_A_O},  {LLM_W1, GEN_A_13}, {LLM_W2, GEN_A_2},
              {LLM_W3, GEN_A_13}};
  for (size_t k = 0; k < LLM_COUNT_OF(mats); k++) {
    float *w = (float *)(void *)(base + lay.t[mats[k].id].offset);
    for (uint64_t i = 0; i < lay.t[mats[k].id].count; i++)
      w[i] = rand_weight(&rng, 2048, mats[k].a / 2048.0f);
  }
  float *wq = T(WQ), *wv = T(WV), *wo = T(WO);
  for (int i = 0; i < D * D; i++) wq[i] = 0.0f;
  /* v = G x[0..B) with G an orthonormal Hadamard (entries +-1/sqrt(B)).
   * With zero queries each head outputs the mean of its KV head's values;
   * wo reads heads 0 and n_heads/2 (one per KV head) and writes G^T mean(v)
   * into the second half: the mean of the first halves, copied. */
  enum { HS = LLM_GEN_DIM / LLM_GEN_HEADS };
  const float g = 1.0f / 8.0f;
  _Static_assert(GEN_HALF == 64 && LLM_GEN_KV_HEADS == 2, "g is 1/sqrt(GEN_HALF)");
  for (int i = 0; i < D * D; i++) wo[i] = 0.0f;
  for (int i = 0; i < B; i++) {
    int head_out = i < HS ? i : i + HS; /* head 0 or head 2 */
    for (int j = 0; j < D; j++) wv[i * D + j] = j < B ? g * (float)basis_at(&valb, i, j) : 0.0f;
    for (int j = B; j < D; j++) wo[j * D + head_out] = g * (float)basis_at(&valb, i, j - B);
  }
  float *ra = T(RMS_ATT), *rf = T(RMS_FFN), *rfin = T(RMS_FINAL);
  for (int j = 0; j < D; j++) ra[j] = 1.0f; /* layer 0: an exact copy */
  for (uint64_t i = D; i < lay.t[LLM_RMS_ATT].count; i++)
    ra[i] = 1.0f + rand_weight(&rng, 32, 1.0f / 256.0f);
  for (uint64_t i = 0; i < lay.t[LLM_RMS_FFN].count; i++)
    rf[i] = 1.0f + rand_weight(&rng, 32, 1.0f / 256.0f);
  for (int j = 0; j < D; j++) rfin[j] = 1.0f;
#undef T
  return UL_OK;
}

ul_status llm_gen_build(uint64_t seed, llm_blob *model, llm_blob *tokenizer) {
  if (model) memset(model, 0, sizeof *model);
  if (tokenizer) memset(tokenizer, 0, sizeof *tokenizer);
  gen_vocab *v = malloc(sizeof *v);
  if (!v) return ul_error_set(UL_ERR_OUT_OF_MEMORY, "default model: out of memory");
  ul_status s = build_vocab(v);
  if (!s && tokenizer) s = build_tokenizer(v, tokenizer);
  if (!s && model) s = build_model(v, seed, model);
  free(v);
  if (s) {
    llm_blob_free(model);
    llm_blob_free(tokenizer);
  }
  return s;
}

/* ---- cache --------------------------------------------------------------- */

static const char *env_nonempty(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

ul_status llm_gen_cache_dir(char *buf, size_t cap) {
  if (!buf || cap == 0) return ul_error_set(UL_ERR_INVALID_ARGUMENT, "cache dir: NULL buffer");
  const char *e;
  int n;
  if ((e = env_nonempty("UNLOST_CACHE_DIR"))) n = snprintf(buf, cap, "%s", e);
  else if ((e = env_nonempty("XDG_CACHE_HOME"))) n = snprintf(buf, cap, "%s/unlost", e);
  else if ((e = env_nonempty("HOME"))) n = snprintf(buf, cap, "%s/.cache/unlost", e);
  else n = snprintf(buf, cap, "/tmp/unlost-cache");
  if (n < 0 || (size_t)n >= cap)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "cache dir: path longer than %zu bytes", cap);
  return UL_OK;
}

/* mkdir -p */
static ul_status make_dirs(const char *dir) {
  char path[PATH_MAX];
  size_t n = strlen(dir);
  if (n == 0 || n >= sizeof path)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "create directory: bad path length");
  memcpy(path, dir, n + 1);
  for (size_t i = 1; i <= n; i++) {
    if (path[i] != '/' && path[i] != '\0') continue;
    char c = path[i];
    path[i] = '\0';
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
      return ul_error_set(UL_ERR_IO, "create directory '%s': %s", path, strerror(errno));
    path[i] = c;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return ul_error_set(UL_ERR_IO, "create directory '%s': not a directory", dir);
  return UL_OK;
}

ul_status llm_write_file_atomic(const char *path, const void *data, size_t size) {
  if (!path || (!data && size))
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "write file: NULL argument");
  char tmp[PATH_MAX];
  int n = snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
  if (n < 0 || (size_t)n >= sizeof tmp)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "write '%s': path too long", path);
  int fd = mkstemp(tmp);
  if (fd < 0) return ul_error_set(UL_ERR_IO, "write '%s': create temporary: %s", path, strerror(errno));
  const unsigned char *p = data;
  size_t left = size;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int e = w < 0 ? errno : EIO;
      close(fd);
      unlink(tmp);
      return ul_error_set(UL_ERR_IO, "write '%s': %s", tmp, strerror(e));
    }
    p += w;
    left -= (size_t)w;
  }
  /* mkstemp makes 0600; a cache file may be shared by the user's tools. */
  if (fchmod(fd, 0644) != 0 || fsync(fd) != 0) {
    int e = errno;
    close(fd);
    unlink(tmp);
    return ul_error_set(UL_ERR_IO, "write '%s': %s", tmp, strerror(e));
  }
  if (close(fd) != 0) {
    int e = errno;
    unlink(tmp);
    return ul_error_set(UL_ERR_IO, "write '%s': close: %s", tmp, strerror(e));
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    return ul_error_set(UL_ERR_IO, "write '%s': rename: %s", path, strerror(e));
  }
  return UL_OK;
}

/* True when `path` holds exactly `want`, every byte: a cache whose header
 * and size are intact but whose contents were damaged or tampered with is
 * regenerated, never reused. (The generator builds `want` anyway, so the
 * comparison is the check: no separate checksum to keep in step.) */
static bool file_matches(const char *path, const llm_blob *want) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return false;
  struct stat st;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size == (uint64_t)want->size;
  unsigned char buf[65536];
  for (size_t off = 0; ok && off < want->size;) {
    size_t n = want->size - off < sizeof buf ? want->size - off : sizeof buf;
    ssize_t r = pread(fd, buf, n, (off_t)off);
    if (r < 0 && errno == EINTR) continue;
    ok = r == (ssize_t)n && memcmp(buf, want->data + off, n) == 0;
    off += n;
  }
  close(fd);
  return ok;
}

ul_status llm_gen_ensure(const char *dir, uint64_t seed, char *model_path,
                             char *tokenizer_path, size_t cap) {
  if (!model_path || !tokenizer_path || cap == 0)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "default model: NULL argument");
  char cache[PATH_MAX];
  ul_status s;
  if (!dir) {
    if ((s = llm_gen_cache_dir(cache, sizeof cache)))
      return ul_error_wrap(s, "default model");
    dir = cache;
  }
  int n1 = snprintf(model_path, cap, "%s/default-v%d-%016llx.model.bin", dir,
                    LLM_GEN_VERSION, (unsigned long long)seed);
  int n2 = snprintf(tokenizer_path, cap, "%s/default-v%d-%016llx.tokenizer.bin", dir,
                    LLM_GEN_VERSION, (unsigned long long)seed);
  if (n1 < 0 || (size_t)n1 >= cap || n2 < 0 || (size_t)n2 >= cap)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "default model: path longer than %zu bytes", cap);
  if ((s = make_dirs(dir))) return ul_error_wrap(s, "default model");

  llm_blob model = {0}, tok = {0};
  if ((s = llm_gen_build(seed, &model, &tok))) return s;
  if (!file_matches(model_path, &model))
    s = llm_write_file_atomic(model_path, model.data, model.size);
  if (!s && !file_matches(tokenizer_path, &tok))
    s = llm_write_file_atomic(tokenizer_path, tok.data, tok.size);
  llm_blob_free(&model);
  llm_blob_free(&tok);
  return s ? ul_error_wrap(s, "default model") : UL_OK;
}

ul_status llm_default_open(llm_model **model, llm_tokenizer **tokenizer) {
  if (model) *model = NULL;
  if (tokenizer) *tokenizer = NULL;
  if (!model || !tokenizer)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "open default model: NULL argument");
  char mp[PATH_MAX], tp[PATH_MAX];
  ul_status s = llm_gen_ensure(NULL, LLM_DEFAULT_SEED, mp, tp, sizeof mp);
  if (s) return s;
  if ((s = llm_model_open(mp, model))) return s;
  if ((s = llm_tokenizer_open(tp, (*model)->cfg.vocab_size, tokenizer))) {
    llm_model_close(*model);
    *model = NULL;
    return s;
  }
  return UL_OK;
}
