/* Built by tests/test_install.sh against an installed unlost (through
 * pkg-config and through find_package) when examples/compute.c is absent, and
 * always to prove where the installed library found its webgpu.h
 * implementation. Usage: install_smoke [PREFIX]; with PREFIX, fails unless
 * the implementation that was loaded lies under PREFIX. */
#include <stdio.h>
#include <string.h>

#include <unlost.h>

int main(int argc, char **argv) {
  const char *prefix = argc > 1 ? argv[1] : NULL;
  ul_env *env = NULL;
  ul_device *dev = NULL;
  ul_env_info ei = {0};
  ul_adapter_info ai = {0};
  int rc = 1;

  printf("unlost %s (header %d.%d.%d)\n", ul_version(), UL_VERSION_MAJOR, UL_VERSION_MINOR,
         UL_VERSION_PATCH);
  if (ul_version_number() != UL_VERSION_NUMBER) {
    fprintf(stderr, "header and library disagree: %d vs %d\n", UL_VERSION_NUMBER,
            ul_version_number());
    return 1;
  }
  ul_status st = ul_env_create(NULL, &env);
  if (st != UL_OK) goto fail;
  if ((st = ul_env_info_get(env, &ei)) != UL_OK) goto fail;
  printf("implementation %s\n", ei.implementation);
  if (prefix && strncmp(ei.implementation, prefix, strlen(prefix)) != 0) {
    fprintf(stderr, "the implementation was not found under %s\n", prefix);
    goto done;
  }
  ul_device_desc dd = {.label = "smoke"};
  if ((st = ul_device_create(env, &dd, &dev)) != UL_OK) goto fail;
  if ((st = ul_device_adapter_info(dev, &ai)) != UL_OK) goto fail;
  printf("adapter %s (%s, %s)\n", ai.name, ul_backend_name(ai.backend),
         ul_adapter_type_name(ai.type));
  rc = 0;
  goto done;
fail:
  fprintf(stderr, "%s: %s\n", ul_status_name(st), ul_last_error());
done:
  if (ul_device_destroy(dev) != UL_OK) rc = 1;
  if (ul_env_destroy(env) != UL_OK) rc = 1;
  return rc;
}
