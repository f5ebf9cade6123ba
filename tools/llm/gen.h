/* Internal to unlost: the built-in default model and tokenizer, generated
 * deterministically from a seed (integer PRNG and exact float arithmetic
 * only: the files are bit-identical on every machine), written to a cache
 * directory on first use.
 *
 * Shape of the default model (LLM_GEN_*):
 *   dim 128, hidden_dim 352, n_layers 4, n_heads 4, n_kv_heads 2 (grouped KV:
 *   head_size 32, kv_dim 64), seq_len 256, vocab 512 (header -512: the
 *   classifier is stored apart from the embedding); 877,696 floats, a file
 *   of 3,510,812 bytes.
 *
 * Vocabulary (llama2.c conventions): 0 <unk>, 1 BOS, 2 EOS, 3..258 byte
 * tokens <0x00>..<0xFF>, then single characters (space, a-z, ".,!?'" and
 * newline), then every word of a built-in corpus (llm_gen_corpus) with a
 * leading space, together with its prefixes (" t", " th", " the") so that
 * BPE merges build whole words, then "<unusedN>" padding.
 *
 * Weights (details in gen.c): the residual stream's first half holds the
 * current token (corpus tokens on orthogonal directions), its second half a
 * running mean of past tokens written by layer 0's attention. The classifier
 * reads the first half as a bigram table of the corpus (logit about 4..5 for
 * a pair the corpus has, 0 for other words, -12 for tokens never predicted:
 * specials, bytes, characters, word prefixes, padding) and the second half
 * as a penalty on words already said, which keeps greedy text from looping.
 * Every other weight is small and random, so every layer moves the logits.
 * Greedy text from BOS reads like "the harbor. that night the keeper climbed
 * aboard and found a small book. one morning. the harbor every morning. ...".
 * The freq_cis tables are zeros (unused by the format's readers). */
#ifndef UL_LLM_GEN_H
#define UL_LLM_GEN_H

#include "llm/model.h"
#include "llm/tokenizer.h"

#define LLM_GEN_DIM 128
#define LLM_GEN_HIDDEN 352
#define LLM_GEN_LAYERS 4
#define LLM_GEN_HEADS 4
#define LLM_GEN_KV_HEADS 2
#define LLM_GEN_VOCAB 512
#define LLM_GEN_SEQ_LEN 256
#define LLM_GEN_VERSION 1
/* "unlost" + 2: of 48 seeds tried, the one whose greedy path from BOS keeps
 * the widest top-two logit margin (3.6e-3 over 256 tokens, 4.7e-3 over
 * 200), so a GPU port within the tolerance of cpu.h picks the same tokens. */
#define LLM_DEFAULT_SEED 0x756E6C6F7376ull

/* Bytes owned by the caller (free with llm_blob_free). */
typedef struct llm_blob {
  unsigned char *data;
  size_t size;
} llm_blob;
void llm_blob_free(llm_blob *b);

/* The corpus the default model's bigrams come from (static text). */
const char *llm_gen_corpus(void);

/* Builds both files in memory. Either output may be NULL. */
ul_status llm_gen_build(uint64_t seed, llm_blob *model, llm_blob *tokenizer);

/* The cache directory: $UNLOST_CACHE_DIR, else $XDG_CACHE_HOME/unlost, else
 * $HOME/.cache/unlost, else /tmp/unlost-cache (empty variables count as
 * unset). UL_ERR_INVALID_ARGUMENT when it does not fit in cap. */
ul_status llm_gen_cache_dir(char *buf, size_t cap);

/* Writes data to path through a temporary file in the same directory and an
 * atomic rename; readers never see a partial file. UL_ERR_IO. */
ul_status llm_write_file_atomic(const char *path, const void *data, size_t size);

/* Makes sure the default files for `seed` exist in `dir` (NULL: the cache
 * directory, created if missing): an existing file whose size and header
 * match is reused, anything else is replaced. Fills the two paths (cap bytes
 * each). */
ul_status llm_gen_ensure(const char *dir, uint64_t seed, char *model_path,
                             char *tokenizer_path, size_t cap);

/* ensure() with the default seed and cache directory, then opens both. */
ul_status llm_default_open(llm_model **model, llm_tokenizer **tokenizer);

#endif
