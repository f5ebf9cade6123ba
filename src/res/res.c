/* The resource registry of a device. */
#include "res/res.h"

struct ul__res {
  uint64_t rebuilds;
};

ul_status ul__res_create(ul_device *d) {
  d->res = calloc(1, sizeof *d->res);
  if (!d->res) return ul__fail(UL_ERR_OUT_OF_MEMORY, "resource registry: out of host memory");
  return UL_OK;
}

ul_status ul__res_destroy(ul_device *d) {
  free(d->res);
  d->res = NULL;
  return UL_OK;
}

ul_status ul__res_rebuild(ul_device *d, uint64_t old_epoch) {
  UL__UNUSED(old_epoch);
  d->res->rebuilds++;
  return UL_OK;
}
