/* Reading libunlost-webgpu's report lines (cli.h), for the harness that
 * runs programs as children (chaos_webgpu.c) and for unlost exec. */
#include "cli.h"

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
