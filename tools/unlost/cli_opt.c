/* One option parser for every subcommand (issue 40): getopt_long over a
 * table that says, for each long option, what it takes and where its value
 * goes. --opt value and --opt=value both; -h and --help; --json [FILE]
 * (FILE when one follows that does not start with '-', else "-": stdout);
 * a number checked against its bounds (cli_u64 and the others: the
 * library's strict parser). An unknown option, a missing value or a value
 * out of range is a usage error naming the option. */
#include "cli.h"

#include <getopt.h>

static bool take(const char *cmd, const cli_opt *o, char *value, char **argv, int argc) {
  char opt[64];
  snprintf(opt, sizeof opt, "--%s", o->name);
  if (o->given) *o->given = true;
  switch (o->kind) {
  case CLI_FLAG: *(bool *)o->out = true; return true;
  case CLI_TEXT: *(const char **)o->out = value; return true;
  case CLI_U64: return cli_u64(cmd, opt, value, o->lo, o->hi, o->out);
  case CLI_SIZE: return cli_size(cmd, opt, value, o->lo, o->hi, o->out);
  case CLI_INT: return cli_int(cmd, opt, value, (int)o->lo, (int)o->hi, o->out);
  case CLI_F64: return cli_f64(cmd, opt, value, o->flo, o->fhi, o->out);
  case CLI_JSON:
    /* --json FILE: the next word when it is no option (getopt leaves an
     * optional value to --json=FILE). */
    if (!value && optind < argc && argv[optind][0] && argv[optind][0] != '-') value = argv[optind++];
    *(const char **)o->out = value ? value : "-";
    return true;
  }
  return false;
}

int cli_parse(const char *cmd, int argc, char **argv, const cli_opt *opts, unsigned flags, void (*usage)(FILE *),
              int *first) {
  size_t n = 0;
  while (opts[n].name) n++;
  struct option *lo = calloc(n + 2, sizeof *lo);
  if (!lo) {
    fprintf(stderr, "unlost %s: out of memory\n", cmd);
    return 2;
  }
  for (size_t i = 0; i < n; i++)
    lo[i] = (struct option){opts[i].name,
                            opts[i].kind == CLI_FLAG   ? no_argument
                            : opts[i].kind == CLI_JSON ? optional_argument
                                                       : required_argument,
                            NULL, 256 + (int)i};
  lo[n] = (struct option){"help", no_argument, NULL, 'h'};
  int rc = 0, c;
  opterr = 0;
  optind = 0; /* GNU: start over (another parse may have run) */
  while (!rc && (c = getopt_long(argc, argv, flags & CLI_IN_ORDER ? "+:h" : ":h", lo, NULL)) != -1) {
    const char *bad = argv[optind - 1] ? argv[optind - 1] : "";
    if (c == 'h') {
      usage(stdout);
      rc = 1;
    } else if (c == ':') {
      fprintf(stderr, "unlost %s: %s needs a value\n", cmd, bad);
      rc = 2;
    } else if (c == '?' || c < 256 || c >= 256 + (int)n) {
      fprintf(stderr, "unlost %s: unknown option '%s'\n", cmd, bad);
      rc = 2;
    } else if (!take(cmd, &opts[c - 256], optarg, argv, argc)) {
      rc = 2;
    }
  }
  free(lo);
  if (!rc && (flags & CLI_NO_OPERANDS) && optind < argc) {
    fprintf(stderr, "unlost %s: unexpected argument '%s'\n", cmd, argv[optind]);
    rc = 2;
  }
  if (rc == 2) usage(stderr);
  if (first) *first = optind;
  return rc;
}
