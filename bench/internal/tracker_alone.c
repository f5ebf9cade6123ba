/* The tracker's hot path alone, on a fresh tracker with a few objects live:
 * one alloc and one free per pair (`unlost bench track` and test_track). */
#include "bench_internal.h"
#include "track/track_int.h"

ul_status ul__track_bench(bool backtraces, uint32_t pairs, double *ns_per_pair) {
  if (!ns_per_pair || pairs == 0)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "track bench: no pairs or no output");
  *ns_per_pair = 0;
  ul__track_config cfg = {.backtraces = backtraces};
  ul__tracker *tr;
  ul_status st = ul__track_create(&cfg, &tr);
  if (st != UL_OK) return ul__wrap(st, "track bench");
  /* A few objects stay live so the tables are not trivially empty. */
  uint64_t keep[64];
  ul__track_desc d = {.kind = UL__TRACK_BUFFER, .size = 4096, .label = "bench",
                      .site = UL__TRACK_HERE};
  for (size_t i = 0; i < UL__COUNT_OF(keep); i++) {
    if ((st = ul__track_alloc(tr, &d, &keep[i])) != UL_OK) goto done;
  }
  uint64_t t0 = ul__now_ns();
  for (uint32_t i = 0; i < pairs; i++) {
    uint64_t id;
    d.size = 256 + (i & 1023);
    if ((st = ul__track_alloc(tr, &d, &id)) != UL_OK) goto done;
    if ((st = ul__track_free(tr, id)) != UL_OK) goto done;
  }
  *ns_per_pair = (double)(ul__now_ns() - t0) / (double)pairs;
done:
  ul__track_destroy(tr);
  return st == UL_OK ? UL_OK : ul__wrap(st, "track bench");
}
