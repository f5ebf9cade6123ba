/* Internal to unlost's fuzz drivers: replaying saved inputs (a file, or
 * every file of a directory) through LLVMFuzzerTestOneInput before the
 * generated ones, and the drivers' PRNG. */
#ifndef UL_FUZZ_REPLAY_H
#define UL_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "TARGET: WHAT for "TEXT"" on stderr, TEXT's first 200 bytes with every
 * byte that is not printable ASCII (and '"') as \xHH. */
static inline void fuzz_report(const char *target, const char *what, const char *text) {
  fprintf(stderr, "%s: %s for \"", target, what);
  for (const char *p = text; *p && p - text < 200; p++) {
    unsigned char ch = (unsigned char)*p;
    if (ch >= 0x20 && ch < 0x7f && ch != '"') fputc(ch, stderr);
    else fprintf(stderr, "\\x%02x", ch);
  }
  fprintf(stderr, "\"\n");
}

/* Replays one file (at most 1 MiB of it); `trace` names it on stderr. */
static inline uint64_t fuzz_replay_file(const char *path, int trace) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  uint8_t *buf = malloc(1 << 20);
  size_t n = buf ? fread(buf, 1, 1 << 20, f) : 0;
  fclose(f);
  if (!buf) return 0;
  if (trace) fprintf(stderr, "replay %s (%zu bytes)\n", path, n);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 1;
}

/* Replays a file, or every file of a directory; a missing path is skipped.
 * Returns how many inputs ran. */
static inline uint64_t fuzz_replay(const char *path, int trace) {
  struct stat st;
  if (stat(path, &st) != 0) return 0;
  if (!S_ISDIR(st.st_mode)) return fuzz_replay_file(path, trace);
  DIR *d = opendir(path);
  if (!d) return 0;
  uint64_t n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    n += fuzz_replay_file(p, trace);
  }
  closedir(d);
  return n;
}

/* splitmix64, for the generators (the library's own is internal). */
static inline uint64_t fuzz_rnd(uint64_t *s) {
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* The standalone driver of a text fuzz target: `--seconds S` (default 5),
 * `--seed N` (into *rng), saved inputs replayed (files and directories),
 * then inputs from `generate` (at most cap-1 bytes, 512 at most) for S
 * seconds or until *failures. Prints "NAME: N inputs, F failure(s)";
 * returns the exit status. */
static inline int fuzz_drive(const char *name, int argc, char **argv, uint64_t *rng, const int *failures,
                             size_t (*generate)(char *out, size_t cap), size_t cap) {
  double seconds = 5;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--seed") && i + 1 < argc) *rng = strtoull(argv[++i], NULL, 10);
    else fuzz_replay(argv[i], 0);
  }
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long runs = 0;
  char buf[512];
  if (cap > sizeof buf) cap = sizeof buf;
  do {
    for (int k = 0; k < 1000; k++, runs++) {
      size_t n = generate(buf, cap);
      LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
  } while (!*failures && (double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
  printf("%s: %ld inputs, %d failure(s)\n", name, runs, *failures);
  return *failures ? 1 : 0;
}

#endif
