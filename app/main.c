/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <locale.h>

#include "memplan-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (MpApplication) app = NULL;
  int status;

  setlocale (LC_ALL, "");
  app = mp_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status ? status : mp_application_get_status (app);
}
