/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Shared by the GUI test programs: running the main loop until a condition
 * holds, with a guard so that a stuck test fails instead of hanging. */

#include <glib.h>

/* Generous: planning the sample graphs takes milliseconds. */
#define WAIT_SECONDS 60

static gboolean
test_gui_timed_out (gpointer data)
{
  *(gboolean *) data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop until cond (data) is TRUE or the guard fires. */
static inline void
run_until (gboolean (*cond) (gpointer), gpointer data)
{
  gboolean late = FALSE;
  guint    guard = g_timeout_add_seconds (WAIT_SECONDS, test_gui_timed_out, &late);

  while (!cond (data) && !late)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (late);
  g_source_remove (guard);
}
