/* llama2.c checkpoint reader: validate the header, compute the layout with
 * checked 64-bit arithmetic, map the file, point into it. */
#include "llm/model.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const tensor_names[] = {
#define LLM_TENSOR_NAME(ID, field, per_layer) #field,
    LLM_TENSOR_MAP(LLM_TENSOR_NAME)
#undef LLM_TENSOR_NAME
};

static const bool tensor_per_layer[] = {
#define LLM_TENSOR_PL(ID, field, per_layer) per_layer,
    LLM_TENSOR_MAP(LLM_TENSOR_PL)
#undef LLM_TENSOR_PL
};

const char *llm_tensor_name(llm_tensor_id id) {
  if ((unsigned)id >= LLM_TENSOR_COUNT) return "?";
  return tensor_names[id];
}

/* Checked a*b and a+b; false on overflow. */
static bool mul_u64(uint64_t a, uint64_t b, uint64_t *r) {
  return !__builtin_mul_overflow(a, b, r);
}
static bool add_u64(uint64_t a, uint64_t b, uint64_t *r) {
  return !__builtin_add_overflow(a, b, r);
}

static ul_status check_range(const char *name, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi)
    return ul_error_set(UL_ERR_FORMAT, "header field %s = %lld is outside [%lld, %lld]",
                    name, (long long)v, (long long)lo, (long long)hi);
  return UL_OK;
}

ul_status llm_layout_compute(const int32_t header[7], uint64_t file_size,
                                 llm_layout *out) {
  if (!header || !out)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "model layout: NULL argument");
  memset(out, 0, sizeof *out);
  llm_config c;
  memset(&c, 0, sizeof c);
  c.dim = header[0];
  c.hidden_dim = header[1];
  c.n_layers = header[2];
  c.n_heads = header[3];
  c.n_kv_heads = header[4];
  int64_t vocab = header[5]; /* 64-bit: -INT32_MIN must not overflow */
  c.seq_len = header[6];
  c.shared_classifier = vocab > 0;
  if (vocab < 0) vocab = -vocab;

  ul_status s;
  if ((s = check_range("dim", c.dim, 1, LLM_MAX_DIM)) ||
      (s = check_range("hidden_dim", c.hidden_dim, 1, LLM_MAX_HIDDEN)) ||
      (s = check_range("n_layers", c.n_layers, 1, LLM_MAX_LAYERS)) ||
      (s = check_range("n_heads", c.n_heads, 1, c.dim)) ||
      (s = check_range("n_kv_heads", c.n_kv_heads, 1, c.n_heads)) ||
      (s = check_range("|vocab_size|", vocab, 1, LLM_MAX_VOCAB)) ||
      (s = check_range("seq_len", c.seq_len, 1, LLM_MAX_SEQ_LEN)))
    return s;
  if (c.dim % c.n_heads != 0)
    return ul_error_set(UL_ERR_FORMAT, "n_heads = %d does not divide dim = %d",
                    c.n_heads, c.dim);
  if (c.n_heads % c.n_kv_heads != 0)
    return ul_error_set(UL_ERR_FORMAT, "n_kv_heads = %d does not divide n_heads = %d",
                    c.n_kv_heads, c.n_heads);
  c.vocab_size = (int32_t)vocab;
  c.head_size = c.dim / c.n_heads;
  if (c.head_size % 2 != 0)
    return ul_error_set(UL_ERR_FORMAT, "head size dim/n_heads = %d is odd (RoPE needs pairs)",
                    c.head_size);
  c.kv_dim = c.head_size * c.n_kv_heads;

  const uint64_t D = (uint64_t)c.dim, H = (uint64_t)c.hidden_dim,
                 L = (uint64_t)c.n_layers, V = (uint64_t)vocab,
                 KV = (uint64_t)c.kv_dim, S = (uint64_t)c.seq_len,
                 HS2 = (uint64_t)c.head_size / 2;
  /* rows x cols of one layer's slice, per tensor. */
  const uint64_t shape[LLM_TENSOR_COUNT][2] = {
      [LLM_TOKEN_EMBEDDING] = {V, D}, [LLM_RMS_ATT] = {1, D},
      [LLM_WQ] = {D, D},              [LLM_WK] = {KV, D},
      [LLM_WV] = {KV, D},             [LLM_WO] = {D, D},
      [LLM_RMS_FFN] = {1, D},         [LLM_W1] = {H, D},
      [LLM_W2] = {D, H},              [LLM_W3] = {H, D},
      [LLM_RMS_FINAL] = {1, D},       [LLM_FREQ_CIS_REAL] = {S, HS2},
      [LLM_FREQ_CIS_IMAG] = {S, HS2}, [LLM_WCLS] = {V, D},
  };

  uint64_t off = LLM_HEADER_BYTES;
  for (int i = 0; i < LLM_TENSOR_COUNT; i++) {
    llm_tensor_span *t = &out->t[i];
    t->rows = (uint32_t)shape[i][0];
    t->cols = (uint32_t)shape[i][1];
    if (i == LLM_WCLS && c.shared_classifier) {
      *t = out->t[LLM_TOKEN_EMBEDDING];
      continue;
    }
    uint64_t per = 0, count = 0, bytes = 0, end = 0;
    if (!mul_u64(shape[i][0], shape[i][1], &per) ||
        !mul_u64(per, tensor_per_layer[i] ? L : 1, &count) ||
        !mul_u64(count, sizeof(float), &bytes) || !add_u64(off, bytes, &end))
      return ul_error_set(UL_ERR_FORMAT, "size of tensor %s overflows 64 bits",
                      tensor_names[i]);
    if (end > file_size)
      return ul_error_set(UL_ERR_FORMAT,
                      "file is truncated: tensor %s needs bytes [%llu, %llu) but the "
                      "file has %llu",
                      tensor_names[i], (unsigned long long)off,
                      (unsigned long long)end, (unsigned long long)file_size);
    t->offset = off;
    t->count = count;
    t->layer_stride = per;
    if (!tensor_per_layer[i]) t->layer_stride = count;
    off = end;
  }
  out->cfg = c;
  out->total_bytes = off;
  return UL_OK;
}

ul_status llm_model_open(const char *path, llm_model **out) {
  if (out) *out = NULL;
  if (!path || !out)
    return ul_error_set(UL_ERR_INVALID_ARGUMENT, "open model: NULL argument");
  /* Non-blocking: a FIFO or a device must be refused, not waited on. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return ul_error_set(UL_ERR_IO, "open model '%s': %s", path, strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return ul_error_set(UL_ERR_IO, "open model '%s': stat: %s", path, strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return ul_error_set(UL_ERR_IO, "open model '%s': not a regular file", path);
  }
  uint64_t size = (uint64_t)st.st_size;
  if (st.st_size < (off_t)LLM_HEADER_BYTES) {
    close(fd);
    return ul_error_set(UL_ERR_FORMAT,
                    "open model '%s': file is truncated: %llu bytes, the header "
                    "alone needs %u",
                    path, (unsigned long long)size, LLM_HEADER_BYTES);
  }
  if (size > (uint64_t)SIZE_MAX) {
    close(fd);
    return ul_error_set(UL_ERR_IO, "open model '%s': too large to map", path);
  }
  void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  close(fd); /* the mapping keeps the file */
  if (map == MAP_FAILED)
    return ul_error_set(UL_ERR_IO, "open model '%s': mmap: %s", path,
                    strerror(map_errno));

  int32_t header[7];
  memcpy(header, map, sizeof header);
  llm_model *m = calloc(1, sizeof *m);
  ul_status s = UL_OK;
  if (!m) {
    s = ul_error_set(UL_ERR_OUT_OF_MEMORY, "open model '%s': out of memory", path);
    goto fail;
  }
  m->map = map;
  m->file_size = size;
  if ((s = llm_layout_compute(header, size, &m->layout)) != UL_OK) {
    s = ul_error_wrap(s, "open model '%s'", path);
    goto fail;
  }
  m->path = llm_strdup(path);
  if (!m->path) {
    s = ul_error_set(UL_ERR_OUT_OF_MEMORY, "open model '%s': out of memory", path);
    goto fail;
  }
  m->cfg = m->layout.cfg;
  const unsigned char *base = map;
#define LLM_TENSOR_PTR(ID, field, per_layer) \
  m->field = (const float *)(const void *)(base + m->layout.t[LLM_##ID].offset);
  LLM_TENSOR_MAP(LLM_TENSOR_PTR)
#undef LLM_TENSOR_PTR
  *out = m;
  return UL_OK;

fail:
  munmap(map, (size_t)size);
  if (m) free(m->path);
  free(m);
  return s;
}

void llm_model_close(llm_model *m) {
  if (!m) return;
  if (m->map) munmap((void *)m->map, (size_t)m->file_size);
  free(m->path);
  free(m);
}

const float *llm_model_tensor(const llm_model *m, llm_tensor_id id,
                                  int32_t layer, uint64_t *offset_out) {
  if (!m || (unsigned)id >= LLM_TENSOR_COUNT) return NULL;
  const llm_tensor_span *t = &m->layout.t[id];
  int32_t layers = tensor_per_layer[id] ? m->cfg.n_layers : 1;
  if (layer < 0 || layer >= layers) return NULL;
  uint64_t off = t->offset + (uint64_t)layer * t->layer_stride * sizeof(float);
  if (offset_out) *offset_out = off;
  return (const float *)(const void *)((const unsigned char *)m->map + off);
}
