/* The timeline ring (see timeline.h). A fixed number of 256-byte records
 * allocated at the first one; when full, the oldest are overwritten and
 * counted as dropped. Samples are written at most every interval_ns while
 * live bytes change, and before every event, so an event's time always
 * has the memory state that led to it. */
#include "track_int.h"

static const char *const g_tl_names[] = {
#define UL__TL_TYPE_NAME(name, text) text,
    UL__TL_TYPE_MAP(UL__TL_TYPE_NAME)
#undef UL__TL_TYPE_NAME
};

const char *ul__tl_type_name(ul__tl_type t) {
  return (unsigned)t < UL__TL_TYPE_COUNT ? g_tl_names[t] : "unknown";
}

static ul__tl_rec *tl_next(ul__tl *tl) {
  if (tl->off || tl->failed) return NULL;
  if (!tl->recs) {
    tl->recs = malloc((size_t)tl->cap * sizeof *tl->recs);
    if (!tl->recs) {
      tl->failed = true; /* a timeline is not worth failing a create for */
      return NULL;
    }
  }
  ul__tl_rec *r = &tl->recs[tl->head % tl->cap];
  tl->head++;
  memset(r, 0, sizeof *r);
  return r;
}

static void tl_sample(ul__tracker *tr, uint64_t now) {
  ul__tl_rec *r = tl_next(&tr->tl);
  if (!r) return;
  r->t_ns = now;
  r->type = UL__TL_SAMPLE;
  r->bytes = tr->stats.total.live_bytes;
  r->number = tr->stats.total.live_objects;
  for (int k = 0; k < UL__TRACK_KIND_COUNT; k++) r->kind_bytes[k] = tr->stats.by_kind[k].live_bytes;
  tr->tl.last_sample_ns = now;
  tr->tl.dirty = false;
}

void ul__tl_changed(ul__tracker *tr, uint64_t now) {
  if (now - tr->tl.last_sample_ns >= tr->tl.interval_ns || !tr->tl.head) tl_sample(tr, now);
  else tr->tl.dirty = true;
}

static uint32_t to_us(uint64_t ns) { return ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000); }

void ul__tl_push(ul__tracker *tr, uint64_t now, const ul__tl_event *ev) {
  if (tr->tl.dirty) tl_sample(tr, now);
  ul__tl_rec *r = tl_next(&tr->tl);
  if (!r) return;
  r->t_ns = now;
  r->type = (uint8_t)ev->type;
  r->kind = ev->kind;
  r->bytes = ev->bytes;
  r->dur_ns = ev->dur_ns;
  r->number = ev->number;
  r->phase_us[0] = to_us(ev->phases.device);
  r->phase_us[1] = to_us(ev->phases.objects);
  r->phase_us[2] = to_us(ev->phases.contents);
  r->phase_us[3] = to_us(ev->phases.callbacks);
  r->phase_us[4] = to_us(ev->phases.replay);
  if (ev->text) {
    /* Cut at a UTF-8 boundary, so the report stays valid text. */
    size_t n = strnlen(ev->text, sizeof r->text - 1);
    if (ev->text[n])
      while (n && ((unsigned char)ev->text[n] & 0xC0) == 0x80) n--;
    memcpy(r->text, ev->text, n);
    r->text[n] = 0;
  }
}

void ul__tl_copy(ul__tracker *tr, ul__tl_rec **out, size_t *n, uint64_t *dropped) {
  ul__tl *tl = &tr->tl;
  *out = NULL;
  *n = 0;
  *dropped = tl->head > tl->cap ? tl->head - tl->cap : 0;
  if (!tl->recs || !tl->head) return;
  size_t count = (size_t)(tl->head < tl->cap ? tl->head : tl->cap);
  ul__tl_rec *a = malloc(count * sizeof *a);
  if (!a) return;
  uint64_t first = tl->head - count;
  for (size_t i = 0; i < count; i++) a[i] = tl->recs[(first + i) % tl->cap];
  *out = a;
  *n = count;
}
