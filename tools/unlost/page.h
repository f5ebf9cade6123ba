/* The report page and the report's reading (page.c), with jansson. */
#ifndef UL_CLI_PAGE_H
#define UL_CLI_PAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef UL_HAVE_JANSSON
#include <jansson.h>

/* One group that grew between two reports. */
typedef struct page_growth {
  const char *what; /* "kind", "label" or "site" */
  const char *name; /* points into the newer report */
  double before, now;
} page_growth;

/* What grew from `old` to `now` (live bytes by kind, label and site), at
 * most cap entries; returns how many. */
size_t page_diff(json_t *now, json_t *old, page_growth *g, size_t cap);
/* The self-contained page of the report `root` (and what grew since
 * `older`, when not NULL). 0, or -1 on a write error. */
int page_write(FILE *f, json_t *root, json_t *older, const char *title);
#endif

/* "512 B", "4.0 KiB", "1.5 GiB". */
void page_fmt_bytes(char *buf, size_t n, double bytes);

#endif
