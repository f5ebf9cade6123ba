/* Internal to unlost: reader for the llama2.c checkpoint format ("model.bin").
 *
 * File layout (little-endian, as written by llama2.c's export):
 *   int32 dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
 *   (vocab_size < 0: the classifier is stored separately at the end; its
 *   absolute value is the vocabulary size), then float32 arrays, row-major,
 *   one after the other with no padding:
 *     token_embedding [vocab][dim]
 *     rms_att         [L][dim]
 *     wq              [L][dim][dim]         (out x in)
 *     wk              [L][kv_dim][dim]
 *     wv              [L][kv_dim][dim]
 *     wo              [L][dim][dim]
 *     rms_ffn         [L][dim]
 *     w1              [L][hidden][dim]
 *     w2              [L][dim][hidden]
 *     w3              [L][hidden][dim]
 *     rms_final       [dim]
 *     freq_cis_real   [seq_len][head_size/2]   (unused: RoPE is computed)
 *     freq_cis_imag   [seq_len][head_size/2]   (unused)
 *     wcls            [vocab][dim]             (only when vocab_size < 0)
 *   kv_dim = dim * n_kv_heads / n_heads, head_size = dim / n_heads.
 * A matrix [out][in] multiplies as y[i] = sum_j W[i*in + j] * x[j]. Layer l
 * of a per-layer tensor starts layer_stride * l floats into it.
 *
 * Every header field is checked before use (see LLM_MAX_*), sizes are
 * computed in 64 bits with overflow checks, and the whole layout must fit in
 * the file (trailing bytes are allowed). */
#ifndef UL_LLM_MODEL_H
#define UL_LLM_MODEL_H

#include "llm/llm.h"

#include <stdint.h>

/* Sanity bounds on header fields; far above any model unlost runs and low
 * enough that no size computed from them can overflow 64 bits. */
#define LLM_MAX_DIM (1 << 16)
#define LLM_MAX_HIDDEN (1 << 18)
#define LLM_MAX_LAYERS 1024
#define LLM_MAX_VOCAB (1 << 22)
#define LLM_MAX_SEQ_LEN (1 << 20)

#define LLM_HEADER_BYTES 28u

/* X(ID, field, per_layer): the tensors in file order. */
#define LLM_TENSOR_MAP(X)          \
  X(TOKEN_EMBEDDING, token_embedding, 0) \
  X(RMS_ATT, rms_att, 1)               \
  X(WQ, wq, 1)                         \
  X(WK, wk, 1)                         \
  X(WV, wv, 1)                         \
  X(WO, wo, 1)                         \
  X(RMS_FFN, rms_ffn, 1)               \
  X(W1, w1, 1)                         \
  X(W2, w2, 1)                         \
  X(W3, w3, 1)                         \
  X(RMS_FINAL, rms_final, 0)           \
  X(FREQ_CIS_REAL, freq_cis_real, 0)   \
  X(FREQ_CIS_IMAG, freq_cis_imag, 0)   \
  X(WCLS, wcls, 0)

typedef enum llm_tensor_id {
#define LLM_TENSOR_ENUM(ID, field, per_layer) LLM_##ID,
  LLM_TENSOR_MAP(LLM_TENSOR_ENUM)
#undef LLM_TENSOR_ENUM
  LLM_TENSOR_COUNT
} llm_tensor_id;

/* "wq" etc.; static text ("?" outside the range). */
const char *llm_tensor_name(llm_tensor_id id);

typedef struct llm_config {
  int32_t dim, hidden_dim, n_layers, n_heads, n_kv_heads;
  int32_t vocab_size; /* always positive here */
  int32_t seq_len;
  int32_t head_size, kv_dim; /* derived */
  bool shared_classifier;    /* header vocab_size was positive */
} llm_config;

typedef struct llm_tensor_span {
  uint64_t offset;       /* bytes from the start of the file */
  uint64_t count;        /* floats in the whole tensor */
  uint64_t layer_stride; /* floats per layer; == count when not per layer */
  uint32_t rows, cols;   /* shape of one layer's slice ([out][in]) */
} llm_tensor_span;

typedef struct llm_layout {
  llm_config cfg;
  /* WCLS aliases TOKEN_EMBEDDING (same offset) when the classifier is shared. */
  llm_tensor_span t[LLM_TENSOR_COUNT];
  uint64_t total_bytes; /* bytes the layout needs, header included */
} llm_layout;

/* Validates the 7 header fields (in file order) and computes the layout.
 * file_size is the size available (UINT64_MAX for "no limit", as a writer
 * does). UL_ERR_FORMAT with a message naming the field on bad values or when
 * the layout does not fit; UL_ERR_INVALID_ARGUMENT for NULL pointers. */
ul_status llm_layout_compute(const int32_t header[7], uint64_t file_size,
                                 llm_layout *out);

/* An open checkpoint: the file mapped read-only (MAP_PRIVATE). */
typedef struct llm_model {
  llm_config cfg;
  llm_layout layout;
  /* Pointers into the mapping, one per tensor (see the list above). */
#define LLM_TENSOR_FIELD(ID, field, per_layer) const float *field;
  LLM_TENSOR_MAP(LLM_TENSOR_FIELD)
#undef LLM_TENSOR_FIELD
  const void *map;    /* the whole file */
  uint64_t file_size; /* bytes mapped */
  char *path;         /* as given to open; owned */
} llm_model;

/* Opens and validates `path`. *out is owned by the caller (close it).
 * UL_ERR_INVALID_ARGUMENT (NULL), UL_ERR_IO (open/stat/mmap), UL_ERR_FORMAT
 * (short file, bad header, layout larger than the file), UL_ERR_OUT_OF_MEMORY. */
ul_status llm_model_open(const char *path, llm_model **out);
/* Unmaps and frees; NULL is a no-op. */
void llm_model_close(llm_model *m);

/* Pointer to tensor `id` (layer `layer` of a per-layer tensor, else 0) in
 * the mapping, and its byte offset in the file. NULL when out of range. */
const float *llm_model_tensor(const llm_model *m, llm_tensor_id id,
                                  int32_t layer, uint64_t *offset_out);

#endif
