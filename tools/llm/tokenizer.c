/* tokenizer.bin: load with full validation, encode by best-score pair merges,
 * decode with llama2.c's BOS space strip and byte tokens. */
#include "llm/tokenizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <errno.h>
#include <math.h>

static int32_t rd_i32(const unsigned char *p) {
  int32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static float rd_f32(const unsigned char *p) {
  float v;
  memcpy(&v, p, sizeof v);
  return v;
}

static int cmp_bytes(const char *a, size_t alen, const char *b, size_t blen) {
  size_t n = alen < blen ? alen : blen;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return (alen > blen) - (alen < blen);
}

/* Sorts ids by (bytes, id) with a bottom-up merge sort (qsort has no context
 * pointer, and a global would be mutable state). */
static void sort_ids(const llm_tokenizer *t, int32_t *ids, int32_t *tmp, int32_t n) {
  for (int32_t width = 1; width < n; width *= 2) {
    for (int32_t lo = 0; lo < n; lo += 2 * width) {
      int32_t mid = lo + width < n ? lo + width : n;
      int32_t hi = lo + 2 * width < n ? lo + 2 * width : n;
      int32_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        int32_t a = ids[i], b = ids[j];
        int c = cmp_bytes(t->piece[a], (size_t)t->piece_len[a], t->piece[b],
                          (size_t)t->piece_len[b]);
        if (c < 0 || (c == 0 && a < b)) tmp[k++] = ids[i++];
        else tmp[k++] = ids[j++];
      }
      while (i < mid) tmp[k++] = ids[i++];
      while (j < hi) tmp[k++] = ids[j++];
    }
    memcpy(ids, tmp, (size_t)n * sizeof *ids);
  }
}

static bool is_byte_token(const llm_tokenizer *t, int32_t id, unsigned b) {
  static const char hex[] = "0123456789ABCDEF";
  char want[6] = {'<', '0', 'x', hex[b >> 4], hex[b & 15], '>'};
  return t->piece_len[id] == 6 && memcmp(t->piece[id], want, 6) == 0;
}

ul_status llm_tokenizer_load(const void *data, size_t size, int32_t vocab_size,
                                 llm_tokenizer **out) {
  if (out) *out = NULL;
  if ((!data && size) || !out)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "load tokenizer: NULL argument");
  if (vocab_size < 1 || vocab_size > (1 << 22))
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "load tokenizer: vocab_size %d is out of range",
                    vocab_size);
  const unsigned char *p = data;
  if (size < 4)
    return ul_error_set(UL_ERR_FORMAT,
                    "load tokenizer: truncated: %zu bytes, max_token_length needs 4", size);
  int32_t max_len = rd_i32(p);
  if (max_len < 1 || max_len > LLM_MAX_TOKEN_LEN)
    return ul_error_set(UL_ERR_FORMAT,
                    "load tokenizer: max_token_length = %d is outside [1, %d]", max_len,
                    LLM_MAX_TOKEN_LEN);

  /* Pass 1: validate every record and size the storage. */
  size_t off = 4, text_bytes = 0;
  for (int32_t i = 0; i < vocab_size; i++) {
    if (size - off < 8)
      return ul_error_set(UL_ERR_FORMAT,
                      "load tokenizer: truncated at token %d of %d (offset %zu of %zu)", i,
                      vocab_size, off, size);
    float score = rd_f32(p + off);
    int32_t len = rd_i32(p + off + 4);
    if (!isfinite(score))
      return ul_error_set(UL_ERR_FORMAT, "load tokenizer: token %d has a non-finite score", i);
    if (len < 0 || len > max_len)
      return ul_error_set(UL_ERR_FORMAT,
                      "load tokenizer: token %d has length %d, outside [0, %d]", i, len,
                      max_len);
    off += 8;
    if (size - off < (size_t)len)
      return ul_error_set(UL_ERR_FORMAT,
                      "load tokenizer: truncated in the bytes of token %d (needs %d at "
                      "offset %zu of %zu)",
                      i, len, off, size);
    off += (size_t)len;
    text_bytes += (size_t)len + 1;
  }
  if (off != size)
    return ul_error_set(UL_ERR_FORMAT,
                    "load tokenizer: %zu bytes left over after %d tokens (expected size %zu)",
                    size - off, vocab_size, off);

  /* Pass 2: copy. */
  llm_tokenizer *t = calloc(1, sizeof *t);
  int32_t *tmp = NULL;
  if (!t) goto oom;
  size_t n = (size_t)vocab_size;
  t->vocab_size = vocab_size;
  t->max_token_length = max_len;
  t->piece = calloc(n, sizeof *t->piece);
  t->piece_len = calloc(n, sizeof *t->piece_len);
  t->score = calloc(n, sizeof *t->score);
  t->sorted = calloc(n, sizeof *t->sorted);
  t->storage = malloc(text_bytes ? text_bytes : 1);
  tmp = calloc(n, sizeof *tmp);
  if (!t->piece || !t->piece_len || !t->score || !t->sorted || !t->storage || !tmp)
    goto oom;
  off = 4;
  char *dst = t->storage;
  for (size_t i = 0; i < n; i++) {
    t->score[i] = rd_f32(p + off);
    int32_t len = rd_i32(p + off + 4);
    off += 8;
    memcpy(dst, p + off, (size_t)len);
    dst[len] = '\0';
    t->piece[i] = dst;
    t->piece_len[i] = len;
    dst += len + 1;
    off += (size_t)len;
    t->sorted[i] = (int32_t)i;
  }
  sort_ids(t, t->sorted, tmp, vocab_size);
  free(tmp);
  for (unsigned b = 0; b < 256; b++) t->bytes[b] = (unsigned char)b;
  t->has_byte_tokens = vocab_size >= LLM_TOKEN_BYTE0 + 256;
  for (unsigned b = 0; b < 256 && t->has_byte_tokens; b++)
    if (!is_byte_token(t, (int32_t)(LLM_TOKEN_BYTE0 + b), b)) t->has_byte_tokens = false;
  *out = t;
  return UL_OK;

oom:
  free(tmp);
  llm_tokenizer_free(t);
  return ul_error_set(UL_ERR_OUT_OF_MEMORY, "load tokenizer: out of memory");
}

ul_status llm_tokenizer_open(const char *path, int32_t vocab_size,
                                 llm_tokenizer **out) {
  if (out) *out = NULL;
  if (!path || !out)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "open tokenizer: NULL argument");
  /* Non-blocking open and a regular-file check first: a FIFO or a device
   * must be refused, not waited on. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ul_error_set(UL_ERR_IO, "open tokenizer '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return ul_error_set(UL_ERR_IO, "open tokenizer '%s': not a regular file", path);
  }
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return ul_error_set(UL_ERR_IO, "open tokenizer '%s': %s", path, strerror(errno));
  }
  unsigned char *buf = NULL;
  size_t len = 0, cap = 0;
  ul_status s = UL_OK;
  for (;;) {
    if (cap - len < 65536) {
      /* Tokenizers are small; refuse anything absurd before allocating it. */
      if (cap > ((size_t)1 << 30)) {
        s = ul_error_set(UL_ERR_FORMAT, "open tokenizer '%s': larger than 1 GiB", path);
        break;
      }
      size_t ncap = cap ? cap * 2 : 65536;
      unsigned char *nb = realloc(buf, ncap);
      if (!nb) {
        s = ul_error_set(UL_ERR_OUT_OF_MEMORY, "open tokenizer '%s': out of memory", path);
        break;
      }
      buf = nb;
      cap = ncap;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) s = ul_error_set(UL_ERR_IO, "open tokenizer '%s': read failed", path);
      break;
    }
  }
  fclose(f);
  if (s == UL_OK) {
    s = llm_tokenizer_load(buf, len, vocab_size, out);
    if (s != UL_OK) s = ul_error_wrap(s, "open tokenizer '%s'", path);
  }
  free(buf);
  return s;
}

void llm_tokenizer_free(llm_tokenizer *t) {
  if (!t) return;
  free(t->piece);
  free(t->piece_len);
  free(t->score);
  free(t->sorted);
  free(t->storage);
  free(t);
}

int32_t llm_tokenizer_find(const llm_tokenizer *t, const char *str, size_t len) {
  if (!t || (!str && len)) return -1;
  /* Lower bound over (bytes, id): the first id with these bytes. */
  int32_t lo = 0, hi = t->vocab_size;
  while (lo < hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int32_t id = t->sorted[mid];
    if (cmp_bytes(t->piece[id], (size_t)t->piece_len[id], str, len) < 0) lo = mid + 1;
    else hi = mid;
  }
  if (lo < t->vocab_size) {
    int32_t id = t->sorted[lo];
    if (cmp_bytes(t->piece[id], (size_t)t->piece_len[id], str, len) == 0) return id;
  }
  return -1;
}

/* Bytes in the UTF-8 sequence that starts with lead byte c (1 for bytes that
 * cannot start one; the caller then checks continuation bytes). */
static size_t utf8_len(unsigned char c) {
  if (c >= 0xF0 && c <= 0xF7) return 4;
  if (c >= 0xE0) return c <= 0xEF ? 3 : 1;
  if (c >= 0xC0) return 2;
  return 1;
}

/* A candidate merge: pieces a (at node `left`) and b (its neighbour) make
 * token id of this score. */
typedef struct merge_cand {
  float score;
  size_t left;
  int32_t a, b, id;
} merge_cand;

/* Heap order: the higher score first; among equal scores the leftmost. */
static bool cand_before(const merge_cand *x, const merge_cand *y) {
  return x->score > y->score || (x->score == y->score && x->left < y->left);
}

static void heap_push(merge_cand *h, size_t *n, merge_cand c) {
  size_t i = (*n)++;
  while (i && cand_before(&c, &h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = c;
}

static merge_cand heap_pop(merge_cand *h, size_t *n) {
  merge_cand top = h[0], last = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n) break;
    if (c + 1 < *n && cand_before(&h[c + 1], &h[c])) c++;
    if (!cand_before(&h[c], &last)) break;
    h[i] = h[c];
    i = c;
  }
  if (*n) h[i] = last;
  return top;
}

/* Pushes the pair (left, right) when the two pieces make a token. */
static void push_pair(const llm_tokenizer *t, char *buf, size_t mlen, const int32_t *tok, size_t left,
                      size_t right, merge_cand *heap, size_t *hn) {
  int32_t a = tok[left], b = tok[right];
  size_t la = (size_t)t->piece_len[a], lb = (size_t)t->piece_len[b];
  if (la + lb > mlen) return;
  memcpy(buf, t->piece[a], la);
  memcpy(buf + la, t->piece[b], lb);
  int32_t id = llm_tokenizer_find(t, buf, la + lb);
  if (id >= 0) heap_push(heap, hn, (merge_cand){t->score[id], left, a, b, id});
}

ul_status llm_tokenizer_encode(const llm_tokenizer *t, const char *text,
                                   size_t len, bool bos, bool eos, int32_t *tokens,
                                   size_t cap, size_t *n_out) {
  if (n_out) *n_out = 0;
  if (!t || (!text && len) || !tokens || !n_out)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "encode: NULL argument");
  if (len > SIZE_MAX - 3 || cap < len + 3)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT,
                    "encode: capacity %zu is below text length + 3 = %zu", cap, len + 3);
  if ((bos || eos) && t->vocab_size <= LLM_TOKEN_EOS)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT,
                    "encode: a vocabulary of %d has no BOS/EOS tokens", t->vocab_size);
  size_t n = 0;
  if (bos) tokens[n++] = LLM_TOKEN_BOS;
  size_t first = n; /* merges never cross BOS */
  if (len > 0) {
    int32_t space = llm_tokenizer_find(t, " ", 1);
    if (space >= 0) tokens[n++] = space;
  }
  const unsigned char *s = (const unsigned char *)text;
  for (size_t i = 0; i < len;) {
    size_t cl = utf8_len(s[i]);
    if (cl > len - i) cl = 1;
    for (size_t k = 1; k < cl; k++)
      if ((s[i + k] & 0xC0) != 0x80) { cl = 1; break; }
    int32_t id = llm_tokenizer_find(t, text + i, cl);
    if (id >= 0) {
      tokens[n++] = id;
    } else {
      for (size_t k = 0; k < cl; k++)
        tokens[n++] = t->has_byte_tokens ? LLM_TOKEN_BYTE0 + s[i + k]
                                         : LLM_TOKEN_UNK;
    }
    i += cl;
  }

  /* Merge the best pair until none is a token: the pair of highest score,
   * the leftmost among equals (llama2.c's rule). A heap of candidate pairs
   * over a linked list of the pieces makes it O(n log n) rather than a
   * rescan of the whole text per merge; an entry whose pieces changed since
   * it was pushed is skipped when it comes up. A merged piece longer than
   * max_token_length cannot be a token, so the scratch is bounded. */
  size_t mlen = (size_t)t->max_token_length;
  size_t m = n - first;
  char *buf = malloc(2 * mlen + 1);
  size_t *next = malloc((m + 1) * sizeof *next), *prev = malloc((m + 1) * sizeof *prev);
  merge_cand *heap = malloc((3 * m + 1) * sizeof *heap);
  if (!buf || !next || !prev || !heap) {
    free(buf);
    free(next);
    free(prev);
    free(heap);
    return ul_error_set(UL_ERR_OUT_OF_MEMORY, "encode: out of memory");
  }
  int32_t *tok = tokens + first;
  for (size_t i = 0; i < m; i++) {
    next[i] = i + 1; /* m: the end */
    prev[i] = i ? i - 1 : SIZE_MAX;
  }
  size_t hn = 0;
  for (size_t i = 0; i + 1 < m; i++) push_pair(t, buf, mlen, tok, i, i + 1, heap, &hn);
  while (hn) {
    merge_cand c = heap_pop(heap, &hn);
    size_t r = next[c.left];
    /* Stale: the left piece was merged away or changed, or its neighbour did. */
    if (tok[c.left] != c.a || r >= m || tok[r] != c.b || prev[r] != c.left) continue;
    tok[c.left] = c.id;
    tok[r] = -1;
    next[c.left] = next[r];
    if (next[r] < m) prev[next[r]] = c.left;
    if (prev[c.left] != SIZE_MAX) push_pair(t, buf, mlen, tok, prev[c.left], c.left, heap, &hn);
    if (next[c.left] < m) push_pair(t, buf, mlen, tok, c.left, next[c.left], heap, &hn);
  }
  size_t k = 0;
  for (size_t i = 0; i < m; i = next[i]) tok[k++] = tok[i];
  n = first + k;
  free(next);
  free(prev);
  free(heap);
  free(buf);
  if (eos) tokens[n++] = LLM_TOKEN_EOS;
  *n_out = n;
  return UL_OK;
}

ul_status llm_tokenizer_decode(const llm_tokenizer *t, int32_t prev,
                                   int32_t token, const char **piece, size_t *len) {
  if (!t || !piece || !len)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "decode: NULL argument");
  *piece = "";
  *len = 0;
  if (token < 0 || token >= t->vocab_size)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "decode: token %d is outside [0, %d)", token,
                    t->vocab_size);
  if (t->has_byte_tokens && token >= LLM_TOKEN_BYTE0 &&
      token < LLM_TOKEN_BYTE0 + 256) {
    *piece = (const char *)&t->bytes[token - LLM_TOKEN_BYTE0];
    *len = 1;
    return UL_OK;
  }
  const char *p = t->piece[token];
  size_t n = (size_t)t->piece_len[token];
  if (prev == LLM_TOKEN_BOS && n > 0 && p[0] == ' ') {
    p++;
    n--;
  }
  *piece = p;
  *len = n;
  return UL_OK;
}
