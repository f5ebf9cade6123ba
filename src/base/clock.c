/* Monotonic time. */
#include "internal.h"

#include <errno.h>
#include <time.h>

uint64_t ul__now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t ul__now_coarse_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
  return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

struct timespec ul__deadline(clockid_t clock, uint64_t ns) {
  struct timespec until;
  clock_gettime(clock, &until);
  uint64_t t = (uint64_t)until.tv_nsec + ns;
  until.tv_sec += (time_t)(t / 1000000000ull);
  until.tv_nsec = (long)(t % 1000000000ull);
  return until;
}

void ul__sleep_ns(uint64_t ns) {
  struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}
