/* Internal to the unlost CLI. */
#ifndef UL_CLI_H
#define UL_CLI_H

#include "unlost.h"

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

/* JSON output helpers (cli_json.c). */
void cli_json_string(FILE *f, const char *s);

#endif
