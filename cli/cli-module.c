/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <gmodule.h>

#include "cli.h"

/* The whole CLI as a module, which the light memplan-cli opens for render
 * and exec (cli-full.c). */
G_MODULE_EXPORT int mp_cli_module_main (int argc, char **argv);

int
mp_cli_module_main (int argc, char **argv)
{
  return mp_cli_main (argc, argv);
}
