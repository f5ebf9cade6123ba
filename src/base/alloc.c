/* The host-allocation seam (see internal.h). */
#include "internal.h"

static _Atomic long g_countdown = -1;
static _Atomic bool g_continuous;
static _Atomic uint64_t g_failures;

static bool should_fail(void) {
  long n = atomic_load(&g_countdown);
  if (n < 0) return false;
  if (n > 0) {
    atomic_fetch_sub(&g_countdown, 1);
    return false;
  }
  if (!atomic_load(&g_continuous)) atomic_store(&g_countdown, -1);
  atomic_fetch_add(&g_failures, 1);
  return true;
}

bool ul__malloc_should_fail(void) { return should_fail(); }

void *ul__malloc(size_t size) { return should_fail() ? NULL : malloc(size ? size : 1); }
void *ul__realloc(void *p, size_t size) { return should_fail() ? NULL : realloc(p, size ? size : 1); }

void *ul__grow(void *p, uint32_t n, uint32_t *cap, size_t size, uint32_t first) {
  if (n < *cap) return p;
  uint32_t ncap = *cap ? *cap * 2 : first;
  if (ncap <= *cap || (size_t)ncap > SIZE_MAX / size) return NULL;
  void *q = ul__realloc(p, size * ncap);
  if (q) *cap = ncap;
  return q;
}

void ul__malloc_fail_after(long n, bool continuous) {
  atomic_store(&g_continuous, continuous);
  atomic_store(&g_countdown, n);
}

uint64_t ul__malloc_failures(void) { return atomic_load(&g_failures); }
