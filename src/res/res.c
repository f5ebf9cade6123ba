/* The resource registry of a device: setup, teardown with the leak report,
 * and the tracker's public calls (report, budget). */
#include "core/transfer.h"
#include "res/obj.h"

ul_status ul__res_create(ul_device *d) {
  ul__res *r = calloc(1, sizeof *r);
  if (!r) return ul__fail(UL_ERR_OUT_OF_MEMORY, "resource registry: out of host memory");
  r->tag = ul__res_new_tag();
  ul__track_config tc = {0};
  tc.budget_bytes = d->desc.budget_bytes;
  tc.backtraces = d->desc.track_backtraces || ul__opt_flag(UL__OPT_BACKTRACES);
  tc.timeline_bytes = d->desc.timeline_bytes;
  tc.timeline_min_bytes = d->desc.timeline_min_bytes;
  tc.timeline_off = d->desc.timeline_off;
  ul_status s = ul__track_create(&tc, &r->tracker);
  if (s) {
    free(r);
    return s;
  }
  d->res = r;
  d->no_async_checkpoints = ul__opt_number(UL__OPT_CHECKPOINT_ASYNC) == 0;
  d->tracker = r->tracker; /* for core's own notes (src/core/events.c) */
  return UL_OK;
}

/* The device's members of the JSON report: which device, and its losses
 * with what was in flight (malloc'd; NULL when out of memory). */
static char *device_members(ul_device *d) {
  char *losses = ul__forensics_json(d);
  if (!losses) return NULL;
  ul__track_sb sb = {0};
  ul__track_sb_puts(&sb, "\"device\":{\"label\":");
  ul__track_sb_json_str(&sb, d->label);
  ul__track_sb_puts(&sb, ",\"adapter\":");
  ul__track_sb_json_str(&sb, d->info.name);
  ul__track_sb_printf(&sb, ",\"state\":\"%s\",\"epoch\":%llu},",
                      ul_device_state_name((ul_device_state)atomic_load(&d->state)), (unsigned long long)d->epoch);
  ul__track_sb_puts(&sb, losses);
  free(losses);
  return ul__track_sb_take(&sb);
}

ul_status ul__res_destroy(ul_device *d) {
  ul__res *r = d->res;
  if (!r) return UL_OK;
  uint64_t live = 0;
  for (int k = 0; k < UL__OBJ_KIND_COUNT; k++) live += r->live[k];
  /* The final report, with every live object as a leak. */
  const char *path = ul__opt_text(UL__OPT_REPORT);
  if (path) {
    char *extra = device_members(d);
    if (ul__track_write_json_ex(r->tracker, extra, path))
      ul__log(UL__LOG_WARN, "write report to '%s': %s", path, ul_last_error());
    free(extra);
  }
  if (live) {
    char *text = NULL;
    if (!ul__track_report_text(r->tracker, &text) && text)
      ul__log(UL__LOG_WARN, "device '%s' destroyed with %llu live object(s):\n%s", d->label,
              (unsigned long long)live, text);
    free(text);
  }
  /* Release in reverse dependency order. */
  for (int k = UL__OBJ_KIND_COUNT - 1; k >= 0; k--) {
    for (uint32_t i = 1; i < r->next_unused && i < r->cap; i++) {
      ul__obj *o = r->slots[i];
      if (o && (int)o->kind == k) {
        ul__obj_release_native(d, o);
        ul__obj_free(d, o);
      }
    }
  }
  ul__backing_spares_free(d);
  ul__staging_release(d);
  d->tracker = NULL;
  ul__track_destroy(r->tracker);
  free(r->slots);
  free(r->noted);
  free(r->gens);
  free(r->freeq);
  ul__obj_spares_free(r);
  free(r);
  d->res = NULL;
  if (live)
    return ul__fail(UL_ERR_BUSY, "device '%s' was destroyed with %llu live object(s) (released; see the report)",
                    d->label, (unsigned long long)live);
  return UL_OK;
}

ul_status ul_device_report(ul_device *d, ul_report_format format, char **out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "report: NULL argument");
  *out = NULL;
  if ((unsigned)format > UL_REPORT_JSON)
    return ul__fail(UL_ERR_INVALID_ARGUMENT, "report: format %d is not a ul_report_format", (int)format);
  ul__device_lock(d);
  ul_status s;
  if (format == UL_REPORT_JSON) {
    char *extra = device_members(d);
    s = extra ? ul__track_report_json_ex(d->res->tracker, extra, out)
              : ul__fail(UL_ERR_OUT_OF_MEMORY, "report: out of host memory");
    free(extra);
  } else {
    s = ul__track_report_text(d->res->tracker, out);
  }
  ul__device_unlock(d);
  return s;
}

ul_status ul_device_last_loss(ul_device *d, ul_loss_info *out) {
  if (!d || !out) return ul__fail(UL_ERR_INVALID_ARGUMENT, "last loss: NULL argument");
  ul__forensics_last(d, out);
  return UL_OK;
}

ul_status ul_device_report_write(ul_device *d, const char *path) {
  if (!d || !path) return ul__fail(UL_ERR_INVALID_ARGUMENT, "report: NULL argument");
  ul__device_lock(d);
  char *extra = device_members(d);
  ul_status s = extra ? ul__track_write_json_ex(d->res->tracker, extra, path)
                      : ul__fail(UL_ERR_OUT_OF_MEMORY, "report: out of host memory");
  free(extra);
  ul__device_unlock(d);
  return s;
}

ul_status ul_device_set_budget(ul_device *d, uint64_t bytes) {
  if (!d) return ul__fail(UL_ERR_INVALID_ARGUMENT, "set budget: device is NULL");
  ul__device_lock(d);
  ul__track_set_budget(d->res->tracker, bytes);
  ul__device_unlock(d);
  return UL_OK;
}

