/* Sliding time window of outcome counts, slow calls and latency histograms,
 * as Hystrix's rolling buckets: bucket_count buckets of bucket_ns each, ring
 * indexed by epoch = t / bucket_ns. A bucket whose epoch has left the window
 * is stale and is reset when its slot is reused. */
#include "health/health.h"

ul_status ul__health_window_init(ul__health_window *w, uint32_t bucket_count, uint64_t bucket_ns) {
  memset(w, 0, sizeof *w);
  if (bucket_count == 0 || bucket_ns == 0)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "window: %u buckets of %llu ns", bucket_count,
                    (unsigned long long)bucket_ns);
  w->buckets = calloc(bucket_count, sizeof *w->buckets);
  if (!w->buckets)
    return ul__fail(UL_ERR_OUT_OF_MEMORY, "window: %u buckets", bucket_count);
  w->bucket_count = bucket_count;
  w->bucket_ns = bucket_ns;
  ul__health_window_clear(w);
  return UL_OK;
}

void ul__health_window_free(ul__health_window *w) {
  free(w->buckets);
  w->buckets = NULL;
  w->bucket_count = 0;
}

static void ul__wbucket_reset(ul__health_wbucket *b, uint64_t epoch) {
  b->epoch = epoch;
  memset(b->outcomes, 0, sizeof b->outcomes);
  b->slow = 0;
  b->timed = 0;
  for (size_t op = 0; op < UL__HEALTH_OP_COUNT; op++) ul__health_hist_clear(&b->lat[op]);
}

void ul__health_window_clear(ul__health_window *w) {
  for (uint32_t i = 0; i < w->bucket_count; i++) ul__wbucket_reset(&w->buckets[i], 0);
}

/* Epochs are t / bucket_ns + 1 so that 0 means "never used". */
static uint64_t ul__epoch(const ul__health_window *w, uint64_t t_ns) {
  return t_ns / w->bucket_ns + 1;
}

static bool ul__live(const ul__health_window *w, const ul__health_wbucket *b, uint64_t now_epoch) {
  return b->epoch != 0 && b->epoch <= now_epoch && now_epoch - b->epoch < w->bucket_count;
}

void ul__health_window_add(ul__health_window *w, uint64_t t_ns, ul__health_op op,
                           ul__health_outcome o, bool timed, uint64_t latency_ns, bool slow) {
  if (!w->buckets || (unsigned)o >= UL__HEALTH_OUTCOME_COUNT || (unsigned)op >= UL__HEALTH_OP_COUNT)
    return;
  uint64_t epoch = ul__epoch(w, t_ns);
  ul__health_wbucket *b = &w->buckets[epoch % w->bucket_count];
  if (b->epoch != epoch) {
    if (b->epoch > epoch) return; /* older than the window: the slot moved on */
    ul__wbucket_reset(b, epoch);
  }
  b->outcomes[o]++;
  if (timed) {
    b->timed++;
    if (slow) b->slow++;
    ul__health_hist_add(&b->lat[op], latency_ns);
  }
}

void ul__health_window_totals(const ul__health_window *w, uint64_t now_ns, ul__health_window_sum *out) {
  memset(out, 0, sizeof *out);
  if (!w->buckets) return;
  uint64_t now_epoch = ul__epoch(w, now_ns);
  for (uint32_t i = 0; i < w->bucket_count; i++) {
    const ul__health_wbucket *b = &w->buckets[i];
    if (!ul__live(w, b, now_epoch)) continue;
    for (size_t o = 0; o < UL__HEALTH_OUTCOME_COUNT; o++) out->outcomes[o] += b->outcomes[o];
    out->slow += b->slow;
    out->timed += b->timed;
  }
  for (size_t o = 0; o < UL__HEALTH_OUTCOME_COUNT; o++)
    if (o != UL__HEALTH_VALIDATION) out->calls += out->outcomes[o];
  out->faults = out->outcomes[UL__HEALTH_INTERNAL] + out->outcomes[UL__HEALTH_LOSS] +
                out->outcomes[UL__HEALTH_TIMEOUT];
}

void ul__health_window_hist(const ul__health_window *w, uint64_t now_ns, ul__health_op op,
                            ul__health_hist *out) {
  ul__health_hist_clear(out);
  if (!w->buckets || (unsigned)op >= UL__HEALTH_OP_COUNT) return;
  uint64_t now_epoch = ul__epoch(w, now_ns);
  for (uint32_t i = 0; i < w->bucket_count; i++) {
    const ul__health_wbucket *b = &w->buckets[i];
    if (ul__live(w, b, now_epoch)) ul__health_hist_merge(out, &b->lat[op]);
  }
}
