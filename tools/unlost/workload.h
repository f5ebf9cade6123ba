/* Internal to the unlost CLI: built-in workloads for chaos and serve. */
#ifndef UL_WORKLOAD_H
#define UL_WORKLOAD_H

#include "unlost.h"

typedef struct workload_result {
  uint8_t output[8192];      /* what the workload computed */
  size_t output_size;
  uint64_t hash;             /* FNV-1a of output */
  uint8_t expected[8192];    /* the same computed on the CPU, without unlost */
  size_t expected_size;
} workload_result;

typedef ul_status (*workload_fn)(ul_device *dev, workload_result *out);

/* "basic": SOURCE, SHADOW, CALLBACK, LOG and NONE buffers; submissions that
 * each depend on the last; two LOG buffers that ping-pong with a checkpoint
 * between their writes; reads, asynchronous reads of buffers overwritten
 * later, and a checkpoint in the middle. Its expected output is computed on
 * the CPU (expected). Destroys everything it created. */
ul_status workload_basic(ul_device *dev, workload_result *out);
workload_fn workload_find(const char *name);

#endif
