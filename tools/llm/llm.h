/* The main job's model (a client of include/unlost.h, built into the CLI
 * and the tests, not into the library): what every file of tools/llm/
 * shares. Failures are reported through the library's per-thread error
 * (ul_error_set, ul_error_wrap), so a caller reads one chain from
 * ul_last_error(). */
#ifndef UL_LLM_LLM_H
#define UL_LLM_LLM_H

#include "unlost.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LLM_COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))
#define LLM_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LLM_MAX(a, b) ((a) > (b) ? (a) : (b))

/* strdup that reports out-of-memory as NULL (and NULL for NULL). */
static inline char *llm_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

#endif
