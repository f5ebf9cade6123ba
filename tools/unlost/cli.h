/* Internal to the unlost CLI. */
#ifndef UL_CLI_H
#define UL_CLI_H

#include "unlost.h"

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

/* JSON output helpers (cli_json.c). */
void cli_json_string(FILE *f, const char *s);

#endif
