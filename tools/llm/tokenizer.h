/* Internal to unlost: reader, encoder and decoder for llama2.c's tokenizer.bin.
 *
 * File layout (little-endian): int32 max_token_length, then for each of the
 * vocab_size tokens (vocab_size comes from the model, not from this file):
 * float32 score, int32 len, len bytes (no terminator). Checked on load:
 * 1 <= max_token_length <= LLM_MAX_TOKEN_LEN, 0 <= len <=
 * max_token_length, finite scores, every byte inside the file and no bytes
 * left over.
 *
 * Conventions (llama2.c's): id 0 <unk>, 1 BOS, 2 EOS; ids 3..258 are the raw
 * byte tokens "<0x00>".."<0xFF>" when the vocabulary has them (checked at
 * load, see has_byte_tokens). Encoding puts a " " token in front of
 * non-empty text (the "dummy prefix"), looks each UTF-8 character up (falling
 * back to byte tokens, or <unk> without them), then repeatedly merges the
 * adjacent pair whose concatenation is a token with the highest score (the
 * leftmost pair on ties). Decoding strips the leading space of the piece
 * that follows BOS, so decode(encode(text, bos)) == text. */
#ifndef UL_LLM_TOKENIZER_H
#define UL_LLM_TOKENIZER_H

#include "llm/llm.h"

#include <stdint.h>

#define LLM_MAX_TOKEN_LEN 4096
#define LLM_TOKEN_UNK 0
#define LLM_TOKEN_BOS 1
#define LLM_TOKEN_EOS 2
#define LLM_TOKEN_BYTE0 3

typedef struct llm_tokenizer {
  int32_t vocab_size;
  int32_t max_token_length;
  bool has_byte_tokens; /* ids 3..258 are "<0x00>".."<0xFF>" */
  char **piece;         /* [vocab] NUL-terminated copies (may hold NULs) */
  int32_t *piece_len;   /* [vocab] */
  float *score;         /* [vocab] */
  int32_t *sorted;      /* [vocab] ids by (bytes, id) for binary search */
  char *storage;        /* one block for all pieces */
  unsigned char bytes[256]; /* bytes[b] == b: what a byte token decodes to */
} llm_tokenizer;

/* Parses a tokenizer image of `size` bytes for a vocabulary of vocab_size.
 * The data is copied; *out is owned by the caller (free it). */
ul_status llm_tokenizer_load(const void *data, size_t size, int32_t vocab_size,
                                 llm_tokenizer **out);
/* Reads `path` and loads it. UL_ERR_IO when the file cannot be read. */
ul_status llm_tokenizer_open(const char *path, int32_t vocab_size,
                                 llm_tokenizer **out);
/* NULL is a no-op. */
void llm_tokenizer_free(llm_tokenizer *t);

/* Id of the token whose bytes are exactly str[0..len), lowest id among
 * duplicates; -1 when there is none. */
int32_t llm_tokenizer_find(const llm_tokenizer *t, const char *str, size_t len);

/* Encodes text[0..len) into tokens[0..*n_out). cap must be at least len + 3
 * (the most tokens any text can take), else UL_ERR_INVALID_ARGUMENT.
 * UL_ERR_OUT_OF_MEMORY is possible (a scratch buffer). */
ul_status llm_tokenizer_encode(const llm_tokenizer *t, const char *text,
                                   size_t len, bool bos, bool eos, int32_t *tokens,
                                   size_t cap, size_t *n_out);

/* The text of `token` when it follows `prev` (-1 for none): *piece points into
 * the tokenizer (valid until it is freed) and is *len bytes long (may be 0,
 * may hold a NUL byte). UL_ERR_INVALID_ARGUMENT for an id out of range. */
ul_status llm_tokenizer_decode(const llm_tokenizer *t, int32_t prev,
                                   int32_t token, const char **piece, size_t *len);

#endif
