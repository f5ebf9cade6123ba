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
#include <stdio.h>
#include <stdlib.h>

/* Sorts n samples ascending (the medians and quartiles of every bench). */
static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static inline void bench_sort(double *v, int n) { qsort(v, (size_t)n, sizeof *v, bench_cmp_double); }
/* The q-quantile (0..1) of n sorted samples, interpolated between the two
 * nearest (q 0.5: the median, 0.25 and 0.75: the quartiles). */
static inline double bench_quantile(const double *sorted, int n, double q) {
  if (n <= 0) return 0;
  double at = q * (n - 1);
  int lo = (int)at;
  if (lo >= n - 1) return sorted[n - 1];
  return sorted[lo] + (at - lo) * (sorted[lo + 1] - sorted[lo]);
}

/* `unlost bench track|recovery|overhead|decode ARGS`: the exit status
 * (0 success, 1 failure, 2 usage error); `json` selects JSON output. */
/* Each benchmark: argv[0] its name, then its options (cli_parse); json:
 * one JSON object on stdout instead of the text. */
int bench_track(int argc, char **argv, bool json);
/* The usage of every benchmark (bench.c): unlost bench --help's text. */
void bench_sub_usage(FILE *f);
int bench_recovery(int argc, char **argv, bool json);
int bench_overhead(int argc, char **argv, bool json);
int bench_decode_cmd(int argc, char **argv, bool json);

/* The tracker's hot path alone: ns per alloc+free pair (test_track too). */
ul_status ul__track_bench(bool backtraces, uint32_t pairs, double *ns_per_pair);

#endif
