/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <locale.h>

#include <glib/gi18n.h>

#include "memplan-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (MpApplication) app = NULL;
  int status;

  setlocale (LC_ALL, "");
  /* the .ui templates' translatable strings come from this domain */
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  app = mp_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status ? status : mp_application_get_status (app);
}
