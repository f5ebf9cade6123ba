/* Internal to unlost's fuzz drivers: replaying saved inputs (a file, or
 * every file of a directory) through LLVMFuzzerTestOneInput before the
 * generated ones, and the drivers' PRNG. */
#ifndef UL_FUZZ_REPLAY_H
#define UL_FUZZ_REPLAY_H

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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

#endif
