/* Internal to unlost: the built-in default model and tokenizer, generated
 * deterministically from a seed (integer PRNG and exact float arithmetic
 * only: the files are bit-identical on every machine), written to a cache
 * directory on first use.
 *
 * Shape of the default model (UL__LLM_GEN_*):
 *   dim 128, hidden_dim 352, n_layers 4, n_heads 4, n_kv_heads 2 (grouped KV,
 *   head_size 32, kv_dim 64), seq_len 256, vocab 768 (header -768: the
 *   classifier is stored separately), about 1.0 M parameters, 3.9 MiB.
 *
 * Vocabulary (llama2.c conventions): 0 <unk>, 1 BOS, 2 EOS, 3..258 byte
 * tokens <0x00>..<0xFF>, then single characters (space, a-z, 0-9,
 * punctuation), then every word of a built-in corpus with a leading space
 * together with all its prefixes (" t", " th", " the") so that BPE merges
 * build whole words, then "<unusedN>" padding.
 *
 * Weights: BOS, the corpus words and "." "," get mutually orthogonal
 * embeddings (rows of a 128x128 Hadamard matrix with random signs and
 * order) plus a shared bias direction; the classifier is built so that, on
 * the bare embedding, logit(next | prev) is a bigram score of the corpus
 * (about 4..5 for pairs seen in it, 0 for unseen words, -12 for tokens that
 * are never predicted: specials, bytes, characters, word prefixes, padding).
 * The layers carry small random weights that shift the logits by a few
 * tenths depending on the whole context, which picks among the corpus
 * continuations: greedy text wanders through the corpus's sentences
 * instead of looping on one. The freq_cis tables are written as zeros (they
 * are unused). */
#ifndef UL_LLM_GEN_H
#define UL_LLM_GEN_H

#include "llm/model.h"
#include "llm/tokenizer.h"

#define UL__LLM_GEN_DIM 128
#define UL__LLM_GEN_HIDDEN 352
#define UL__LLM_GEN_LAYERS 4
#define UL__LLM_GEN_HEADS 4
#define UL__LLM_GEN_KV_HEADS 2
#define UL__LLM_GEN_VOCAB 512
#define UL__LLM_GEN_SEQ_LEN 256
#define UL__LLM_GEN_VERSION 1
#define UL__LLM_DEFAULT_SEED 0x756E6C6F7374ull /* "unlost" */

/* Bytes owned by the caller (free with ul__llm_blob_free). */
typedef struct ul__llm_blob {
  unsigned char *data;
  size_t size;
} ul__llm_blob;
void ul__llm_blob_free(ul__llm_blob *b);

/* The corpus the default model's bigrams come from (static text). */
const char *ul__llm_gen_corpus(void);

/* Builds both files in memory. Either output may be NULL. */
ul_status ul__llm_gen_build(uint64_t seed, ul__llm_blob *model, ul__llm_blob *tokenizer);

/* The cache directory: $UNLOST_CACHE_DIR, else $XDG_CACHE_HOME/unlost, else
 * $HOME/.cache/unlost, else /tmp/unlost-cache (empty variables count as
 * unset). UL_ERR_INVALID_ARGUMENT when it does not fit in cap. */
ul_status ul__llm_gen_cache_dir(char *buf, size_t cap);

/* Writes data to path through a temporary file in the same directory and an
 * atomic rename; readers never see a partial file. UL_ERR_IO. */
ul_status ul__llm_write_file_atomic(const char *path, const void *data, size_t size);

/* Makes sure the default files for `seed` exist in `dir` (NULL: the cache
 * directory, created if missing): an existing file whose size and header
 * match is reused, anything else is replaced. Fills the two paths (cap bytes
 * each). */
ul_status ul__llm_gen_ensure(const char *dir, uint64_t seed, char *model_path,
                             char *tokenizer_path, size_t cap);

/* ensure() with the default seed and cache directory, then opens both. */
ul_status ul__llm_default_open(ul__llm_model **model, ul__llm_tokenizer **tokenizer);

#endif
