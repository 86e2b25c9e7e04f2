/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "cli.h"

int
main (int argc, char **argv)
{
#ifdef MP_CLI_LIGHT
  /* before anything else: the whole CLI does its own setting up */
  if (mp_cli_needs_full (argc, argv))
    return mp_cli_full_main (argc, argv);
#endif
  return mp_cli_main (argc, argv);
}
