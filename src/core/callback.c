/* Callback records: see ul__cb in core.h. */
#include "core/core.h"

ul__cb *ul__cb_new(void) {
  ul__cb *c = calloc(1, sizeof *c);
  if (c) atomic_store(&c->refs, 2);
  return c;
}

void ul__cb_unref(ul__cb *c) {
  if (c && atomic_fetch_sub(&c->refs, 1) == 1) free(c);
}

void ul__cb_finish(ul__cb *c, uint32_t status, uint32_t type, void *object, WGPUStringView message) {
  c->status = status;
  c->type = type;
  c->object = object;
  ul__sv_copy(message, c->message, sizeof c->message);
  atomic_store(&c->done, true);
  ul__cb_unref(c);
}

void ul__cb_on_status(uint32_t status, WGPUStringView message, void *u1, void *u2) {
  UL__UNUSED(u2);
  ul__cb_finish(u1, status, 0, NULL, message);
}
