/* The benchmarks that time unlost against raw webgpu.h in the same run
 * (bench/internal/): they read internals -- the proc table, native handles,
 * the tracker, the encoder -- so they are built apart from the library and
 * from the CLI's own code, like the tests, and linked into the CLI, whose
 * `unlost bench` calls them. */
#ifndef UL_BENCH_INTERNAL_H
#define UL_BENCH_INTERNAL_H

#include "unlost.h"

#include <stdbool.h>
#include <stdint.h>

/* `unlost bench track|recovery|overhead|decode ARGS`: the exit status
 * (0 success, 1 failure, 2 usage error); `json` selects JSON output. */
int bench_track(int argc, char **argv, bool json);
int bench_recovery(int argc, char **argv, bool json);
int bench_overhead(int argc, char **argv, bool json);
int bench_decode_cmd(int argc, char **argv, bool json);

/* The tracker's hot path alone: ns per alloc+free pair (test_track too). */
ul_status ul__track_bench(bool backtraces, uint32_t pairs, double *ns_per_pair);

#endif
