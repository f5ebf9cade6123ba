/* For the probes of bench/probe/: the test file, `n` bytes of a fixed
 * pattern written to `path` and synced; returns the host copy (4 KiB
 * aligned) and leaves the file open read-write in *fd. NULL on failure. */
#ifndef UL_BENCH_PROBE_FILE_H
#define UL_BENCH_PROBE_FILE_H
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static uint8_t *probe_file(const char *path, uint64_t n, int *fd) {
  *fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  uint8_t *host = aligned_alloc(4096, n);
  if (*fd < 0 || !host) return NULL;
  for (uint64_t i = 0; i < n / 8; i++) ((uint64_t *)host)[i] = i * 0x9e3779b97f4a7c15ull;
  if (write(*fd, host, n) != (ssize_t)n) return NULL;
  fsync(*fd);
  return host;
}
#endif
