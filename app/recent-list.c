/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "recent-list.h"

char **
mp_recent_list_push (const char *const *list, const char *uri, guint max)
{
  g_autoptr (GStrvBuilder) out = g_strv_builder_new ();
  guint n = 0;

  g_return_val_if_fail (uri != NULL && max > 0, NULL);
  g_strv_builder_add (out, uri);
  n++;
  for (guint i = 0; list && list[i] && n < max; i++)
    if (!g_str_equal (list[i], uri))
      {
        g_strv_builder_add (out, list[i]);
        n++;
      }
  return g_strv_builder_end (out);
}

char **
mp_recent_list_remove (const char *const *list, const char *uri)
{
  g_autoptr (GStrvBuilder) out = g_strv_builder_new ();

  for (guint i = 0; list && list[i]; i++)
    if (!g_str_equal (list[i], uri))
      g_strv_builder_add (out, list[i]);
  return g_strv_builder_end (out);
}
