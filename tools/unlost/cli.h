/* Internal to the unlost CLI. */
#ifndef UL_CLI_H
#define UL_CLI_H

#include "unlost.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cli_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
} cli_command;

int cmd_doctor(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_chaos(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_exec(int argc, char **argv);

/* This executable's folder into out (cli_child.c); false when it cannot
 * be read or does not fit. */
bool cli_self_dir(char *out, size_t cap);

/* libunlost-webgpu's report (UNLOST_CHAOS_REPORT): one line each time the
 * process's last instance went, or at its exit. calls and injected start
 * again with each line and are summed; the rest are the process's totals
 * so far (the last line's). present: a line was found. */
typedef struct layer_report {
  bool present;
  uint64_t calls, injected, recoveries, leaked, failed;
  double recovery_ms;
} layer_report;
void layer_report_read(const char *path, layer_report *r);

/* The option parser of every subcommand (cli_opt.c, over getopt_long): a
 * table of long options ended by {0}, each with where its value goes. */
typedef enum cli_kind {
  CLI_FLAG, /* bool *: set when given */
  CLI_TEXT, /* const char **: the value */
  CLI_U64,  /* uint64_t *, in [lo, hi] */
  CLI_SIZE, /* uint64_t *, in [lo, hi], K, M, G, T suffixes */
  CLI_INT,  /* int *, in [lo, hi] */
  CLI_F64,  /* double *, in [flo, fhi] */
  CLI_JSON  /* const char **: --json [FILE]; "-" (stdout) when no FILE follows */
} cli_kind;
typedef struct cli_opt {
  const char *name; /* without "--" */
  cli_kind kind;
  void *out;
  uint64_t lo, hi;
  double flo, fhi;
  bool *given; /* optional: set when the option was given */
} cli_opt;
/* An option without bounds: CLI_O("lib", CLI_TEXT, &lib). */
#define CLI_O(name_, kind_, out_) {.name = (name_), .kind = (kind_), .out = (out_)}
#define CLI_IN_ORDER 1u    /* options end at the first operand (a program and its arguments follow) */
#define CLI_NO_OPERANDS 2u /* an operand is a usage error */
/* Parses argv[1..argc): 0 when every option was good (*first: the index of
 * the first operand; argv is permuted so that operands come last unless
 * CLI_IN_ORDER); 1 after -h/--help (usage printed to stdout: exit 0); 2 on
 * a usage error (said on stderr, with the usage). */
int cli_parse(const char *cmd, int argc, char **argv, const cli_opt *opts, unsigned flags, void (*usage)(FILE *),
              int *first);

/* Option values (cli_num.c): the whole text a number in [lo, hi], or a
 * message "unlost CMD: OPT: ..." on stderr and false. cli_size takes K, M,
 * G, T suffixes (binary). cli_int: lo >= 0. */
bool cli_u64(const char *cmd, const char *opt, const char *value, uint64_t lo, uint64_t hi, uint64_t *out);
bool cli_size(const char *cmd, const char *opt, const char *value, uint64_t lo, uint64_t hi, uint64_t *out);
bool cli_f64(const char *cmd, const char *opt, const char *value, double lo, double hi, double *out);
bool cli_int(const char *cmd, const char *opt, const char *value, int lo, int hi, int *out);
/* The same without a message (the caller words it); ul_last_error() says why. */
bool cli_parse_u64(const char *value, uint64_t lo, uint64_t hi, uint64_t *out);
bool cli_parse_f64(const char *value, double lo, double hi, double *out);

/* --listen HOST:PORT (listen.c): HOST an IPv4 literal or a bracketed IPv6
 * literal (names are not resolved), PORT 0..65535 (0: any free port);
 * multicast and broadcast refused. On false `why` says what is wrong. */
typedef struct cli_listen_addr {
  int family; /* AF_INET or AF_INET6 */
  struct sockaddr_in v4;
  struct sockaddr_in6 v6;
  char host[INET6_ADDRSTRLEN + 2];
  unsigned port;
  bool wildcard; /* 0.0.0.0 or [::]: every interface */
} cli_listen_addr;
bool cli_parse_listen(const char *s, cli_listen_addr *a, char *why, size_t cap);
/* A label for metrics: printable UTF-8 (no control characters), 1..128 bytes. */
bool cli_label_ok(const char *s);

/* JSON output helpers (cli_json.c). */
/* Whether this build writes JSON documents (with jansson); when not, says so
 * on stderr for `who` ("unlost chaos") and its --json. */
bool cli_json_available(const char *who);
#ifdef UL_HAVE_JANSSON
#include <jansson.h>
/* The real v rounded to `decimals` places, as "%.*f" printed it (null when
 * not finite; NULL out of memory). */
json_t *cli_json_real(double v, int decimals);
/* v as the string "%016llx". */
json_t *cli_json_hex64(uint64_t v);
/* Adds key: v (stolen) to the object o; false when v is NULL or out of
 * memory, so that `ok &= cli_json_set(...)` notes any loss. */
bool cli_json_set(json_t *o, const char *key, json_t *v);
/* Sets key: v for each (const char *key, double v) pair up to a NULL key,
 * each real rounded to `decimals` places (cli_json_real); false when one
 * could not be set (o NULL: out of memory). */
bool cli_json_reals(json_t *o, int decimals, ...);
/* Writes doc (the reference stolen), compact, keys in the order they were
 * set, and a newline, to path ("-": stdout). false, with why on stderr
 * after `who`, when it could not (doc NULL: out of memory). */
bool cli_json_write(const char *who, const char *path, json_t *doc);
#endif

#endif
