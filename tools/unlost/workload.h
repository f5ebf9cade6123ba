/* Internal to the unlost CLI: built-in workloads for chaos and serve. */
#ifndef UL_WORKLOAD_H
#define UL_WORKLOAD_H

#include "unlost.h"

typedef struct workload_result {
  uint8_t output[32768];      /* what the workload computed */
  size_t output_size;
  uint64_t hash;             /* FNV-1a of output */
  uint8_t expected[32768];    /* the same computed on the CPU, without unlost */
  size_t expected_size;
  /* Asynchronous reads the workload issued (accepted with UL_OK), and of
   * those, how many were answered: their callback ran, with the data or an
   * error. A workload waits for its reads before it returns. */
  uint32_t reads_issued, reads_answered;
} workload_result;

typedef ul_status (*workload_fn)(ul_device *dev, workload_result *out);

/* "basic": SOURCE, SHADOW, CALLBACK, LOG and NONE buffers; submissions that
 * each depend on the last; two LOG buffers that ping-pong with a checkpoint
 * between their writes; reads, asynchronous reads of buffers overwritten
 * later, and a checkpoint in the middle. Its expected output is computed on
 * the CPU (expected). Destroys everything it created. */
ul_status workload_basic(ul_device *dev, workload_result *out);
/* "zoo": every object kind and restore policy the API accepts (see
 * zoo.c), with a CPU reference. Destroys everything it created. */
ul_status workload_zoo(ul_device *dev, workload_result *out);
/* "iterate": one thread, a ping-pong stencil over two LOG buffers, a
 * SHADOW uniform written and a pool buffer taken each step, an
 * asynchronous read every 25 steps, a checkpoint every 100 (threads.c). */
ul_status workload_iterate(ul_device *dev, workload_result *out);
/* "threads": several threads on one device, each with three LOG buffers,
 * its own uniform, asynchronous reads and checkpoints (threads.c). */
ul_status workload_threads(ul_device *dev, workload_result *out);
/* "decode": the main job's decode step (tools/llm, the demo's model), a
 * dozen tokens greedily with the KV cache a LOG buffer, against the CPU
 * reference's tokens (wl_decode.c). */
ul_status workload_decode(ul_device *dev, workload_result *out);
/* Steps of both (0: keep; default 200, at most 400) and threads of
 * "threads" (0: keep; default 4, at most 8). */
void workload_iterate_config(uint32_t steps, uint32_t threads);
/* Polls until `want` asynchronous reads were answered (*delivered, set by
 * their callbacks), waiting for the queue in between, for at most 45 s
 * (the library answers every read within its deadline, 30 s by default);
 * the first failed read's status (*status), a failed wait's, or
 * UL_ERR_TIMEOUT. It polls on after a failed wait: the reads are answered
 * all the same. */
ul_status workload_deliver_reads(ul_device *dev, const int *delivered, int want, const ul_status *status);
/* The workload called `name`, or NULL; workload_names lists them. */
workload_fn workload_find(const char *name);
extern const char *const workload_names;

#endif
