/* What the commands that run other programs share (cli.h): this
 * executable's folder (beside it: the tests' programs, the front door's
 * benchmark, libunlost-webgpu in a build tree) and libunlost-webgpu's
 * report lines (the chaos harness, unlost exec). */
#include "cli.h"

#include <unistd.h>

bool cli_self_dir(char *out, size_t cap) {
  ssize_t n = readlink("/proc/self/exe", out, cap - 1);
  if (n <= 0 || (size_t)n >= cap - 1) return false;
  out[n] = '\0';
  char *slash = strrchr(out, '/');
  if (!slash) return false;
  *slash = '\0';
  return true;
}

void layer_report_read(const char *path, layer_report *r) {
  memset(r, 0, sizeof *r);
  FILE *f = fopen(path, "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    unsigned long long c, i, rc, l, fl, re;
    double ms = 0;
    int got = sscanf(line, "calls=%llu injected=%llu recoveries=%llu leaked_devices=%llu failed_devices=%llu "
                           "reentries=%llu recovery_ms=%lf", &c, &i, &rc, &l, &fl, &re, &ms);
    if (got < 5) continue;
    r->present = true;
    r->calls += c;
    r->injected += i;
    r->recoveries = rc;
    r->leaked = l;
    r->failed = fl;
    if (got == 7) r->recovery_ms = ms;
  }
  fclose(f);
}
