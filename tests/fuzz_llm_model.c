/* Fuzz target for the checkpoint reader and the tokenizer reader.
 *
 * Each input is written to a memfd and opened by path (/proc/self/fd/N) as a
 * model; the same bytes are loaded as a tokenizer for a vocabulary size
 * taken from the input. What opens is exercised: a short forward pass when
 * the model is small, an encode/decode of the input text when the tokenizer
 * loads.
 *
 * libFuzzer (clang), from the repository root, with SRCS = this file, every
 * .c file in tools/llm, and src/core/{error,log,clock}.c:
 *   clang -std=c11 -D_GNU_SOURCE -DUL_LIBFUZZER -g -O1
 *     -fsanitize=fuzzer,address,undefined -Iinclude -Isrc -Itools $SRCS -lm
 *     -o fuzz_llm_model
 *   ./fuzz_llm_model -max_total_time=60 -max_len=8192 [corpus_dir]
 * Standalone (gcc or clang, no libFuzzer): the same without -DUL_LIBFUZZER
 * and without "fuzzer" in -fsanitize. It mutates valid seed files (a tiny
 * model and the default tokenizer) for a bounded time and exits 0 unless a
 * sanitizer fires:
 *   ./fuzz_llm_model --seconds 20 [--seed N] */
#include "internal.h"
#include "llm/cpu.h"
#include "llm/gen.h"
#include "llm/model.h"
#include "llm/tokenizer.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_model(const uint8_t *data, size_t size) {
  int fd = memfd_create("ul_fuzz_model", MFD_CLOEXEC);
  if (fd < 0) return;
  size_t off = 0;
  while (off < size) {
    ssize_t w = write(fd, data + off, size - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  llm_model *m = NULL;
  if (off == size && llm_model_open(path, &m) == UL_OK) {
    const llm_config *c = &m->cfg;
    /* Run a few positions only when the KV cache and the work are small. */
    uint64_t cache = (uint64_t)c->n_layers * (uint64_t)c->seq_len * (uint64_t)c->kv_dim;
    if (cache <= (1u << 20) && m->file_size <= (1u << 20)) {
      llm_cpu *cpu = NULL;
      if (llm_cpu_create(m, &cpu) == UL_OK) {
        int32_t tok = 0;
        for (int32_t pos = 0; pos < c->seq_len && pos < 3; pos++) {
          const float *lg;
          if (llm_cpu_forward(cpu, tok, pos, &lg) != UL_OK) break;
          tok = llm_argmax(lg, c->vocab_size);
        }
        llm_cpu_destroy(cpu);
      }
    }
    llm_model_close(m);
  }
  close(fd);
}

static void fuzz_tokenizer(const uint8_t *data, size_t size) {
  /* The vocabulary size is not in the file: try the one the bytes imply
   * (count records until the data ends) and a few fixed ones. */
  int32_t sizes[4] = {1, 3, 512, 0};
  size_t off = 4;
  int32_t n = 0;
  while (off + 8 <= size && n < (1 << 16)) {
    int32_t len;
    memcpy(&len, data + off + 4, 4);
    if (len < 0 || (size_t)len > size - off - 8) break;
    off += 8 + (size_t)len;
    n++;
  }
  sizes[3] = n > 0 ? n : 2;
  for (int k = 0; k < 4; k++) {
    llm_tokenizer *t = NULL;
    if (llm_tokenizer_load(data, size, sizes[k], &t) != UL_OK) continue;
    size_t tl = size < 256 ? size : 256;
    int32_t *toks = malloc((tl + 3) * sizeof *toks);
    size_t nt = 0;
    if (toks && llm_tokenizer_encode(t, (const char *)data, tl, t->vocab_size > 2,
                                         false, toks, tl + 3, &nt) == UL_OK) {
      for (size_t i = 0; i < nt; i++) {
        const char *p;
        size_t pl;
        if (llm_tokenizer_decode(t, i ? toks[i - 1] : -1, toks[i], &p, &pl) == UL_OK &&
            pl > (size_t)t->max_token_length)
          __builtin_trap(); /* a piece longer than the longest token */
      }
    }
    free(toks);
    llm_tokenizer_free(t);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_model(data, size);
  fuzz_tokenizer(data, size);
  return 0;
}

#ifndef UL_LIBFUZZER
/* ---- standalone driver: mutate valid seeds for a bounded time ------------ */

static uint64_t rnd(uint64_t *s) { return llm_rng_next(s); }

/* A tiny valid model (dim 8, 2 layers, GQA, vocab 7, separate classifier). */
static bool tiny_model(llm_blob *out) {
  const int32_t hdr[7] = {8, 12, 2, 4, 2, -7, 6};
  llm_layout lay;
  if (llm_layout_compute(hdr, UINT64_MAX, &lay) != UL_OK) return false;
  out->size = (size_t)lay.total_bytes;
  out->data = calloc(1, out->size);
  if (!out->data) return false;
  memcpy(out->data, hdr, sizeof hdr);
  uint64_t s = 1;
  for (size_t i = 28; i + 4 <= out->size; i += 4) {
    float f = llm_rng_float(&s) - 0.5f;
    memcpy(out->data + i, &f, 4);
  }
  return true;
}

static size_t mutate(uint64_t *s, uint8_t *buf, size_t size, size_t cap) {
  static const int32_t interesting[] = {0, 1, -1, 2, 3, 7, 8, 64, 255, 256, 4096, 65536,
                                        INT32_MAX, INT32_MIN, -7, 1 << 20, 1 << 22};
  int steps = 1 + (int)(rnd(s) % 4);
  for (int k = 0; k < steps; k++) {
    switch (rnd(s) % 6) {
    case 0: /* flip a bit */
      if (size) buf[rnd(s) % size] ^= (uint8_t)(1u << (rnd(s) % 8));
      break;
    case 1: /* an interesting int32 at an aligned offset (headers, lengths) */
      if (size >= 4) {
        size_t at = (size_t)(rnd(s) % (size / 4)) * 4;
        if (rnd(s) % 2) at = (size_t)(rnd(s) % (size < 64 ? size / 4 : 16)) * 4;
        int32_t v = interesting[rnd(s) % (sizeof interesting / sizeof *interesting)];
        memcpy(buf + at, &v, 4);
      }
      break;
    case 2: /* truncate */
      if (size) size = (size_t)(rnd(s) % size);
      break;
    case 3: /* extend with random bytes */
    {
      size_t add = (size_t)(rnd(s) % 64);
      while (add-- && size < cap) buf[size++] = (uint8_t)rnd(s);
      break;
    }
    case 4: /* random byte */
      if (size) buf[rnd(s) % size] = (uint8_t)rnd(s);
      break;
    default: /* copy a chunk elsewhere */
      if (size > 8) {
        size_t a = (size_t)(rnd(s) % size), b = (size_t)(rnd(s) % size);
        size_t n = (size_t)(rnd(s) % 32);
        if (a + n > size) n = size - a;
        if (b + n > size) n = size - b;
        memmove(buf + b, buf + a, n);
      }
    }
  }
  return size;
}

int main(int argc, char **argv) {
  double seconds = 10;
  uint64_t seed = ul__now_ns();
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) seed = strtoull(argv[++i], NULL, 0);
    else {
      fprintf(stderr, "usage: %s [--seconds N] [--seed N]\n", argv[0]);
      return 2;
    }
  }
  llm_blob seeds[2];
  if (!tiny_model(&seeds[0]) ||
      llm_gen_build(LLM_DEFAULT_SEED, NULL, &seeds[1]) != UL_OK) {
    fprintf(stderr, "fuzz: cannot build the seed inputs\n");
    return 1;
  }
  /* The seeds themselves must load. */
  LLVMFuzzerTestOneInput(seeds[0].data, seeds[0].size);
  LLVMFuzzerTestOneInput(seeds[1].data, seeds[1].size);
  size_t cap = (seeds[0].size > seeds[1].size ? seeds[0].size : seeds[1].size) + 4096;
  uint8_t *buf = malloc(cap);
  if (!buf) return 1;
  printf("fuzz_llm_model: seed %llu, %.0f s\n", (unsigned long long)seed, seconds);
  uint64_t s = seed, runs = 0, end = ul__now_ns() + (uint64_t)(seconds * 1e9);
  while (ul__now_ns() < end) {
    const llm_blob *src = &seeds[rnd(&s) % 2];
    memcpy(buf, src->data, src->size);
    size_t n = mutate(&s, buf, src->size, cap);
    LLVMFuzzerTestOneInput(buf, n);
    runs++;
  }
  printf("fuzz_llm_model: %llu inputs, no crash\n", (unsigned long long)runs);
  free(buf);
  llm_blob_free(&seeds[0]);
  llm_blob_free(&seeds[1]);
  return 0;
}
#endif
