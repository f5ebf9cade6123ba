/* Callback records: see ul__cb in core.h. */
#include "core/core.h"

ul__cb *ul__cb_new(void) {
  /* Not calloc: the message buffer is written before it is read, and
   * zeroing it costs more than the rest of an error scope. */
  ul__cb *c = malloc(sizeof *c);
  if (!c) return NULL;
  atomic_init(&c->refs, 2);
  atomic_init(&c->done, false);
  c->status = c->type = 0;
  c->object = NULL;
  c->next = NULL;
  c->message[0] = 0;
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
