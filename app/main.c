/* SPDX-License-Identifier: GPL-3.0-or-later */
#include <locale.h>

#include <glib/gi18n.h>

#include "file-util.h"
#include "memplan-application.h"

/* what a reader accepted with a remark (gzip's zero padding), as gzip -d
 * says it */
static void
print_note (const char *path, const char *text)
{
  g_printerr ("memplan: note: %s: %s\n", path, text);
}

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
  mp_file_set_note_func (print_note);
  app = mp_application_new ();
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status ? status : mp_application_get_status (app);
}
