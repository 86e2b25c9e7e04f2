/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* Compare With…: a second input (B) loaded beside the shown one (A), both
 * live-bytes curves on one axis above the panes, B's bytes at its peak per
 * op in the By op tab. B is loaded without planners: what it is compared
 * on is its own input's memory, as `memplan-cli diff` compares. */

#include "by-op-view.h"
#include "compare-strip.h"
#include "memplan-window-private.h"

typedef struct
{
  MpWindow *self;
  guint     generation;
} CompareCall;

void
mp_window_compare_init (MpWindow *self)
{
  self->compare_strip = mp_compare_strip_new ();
  gtk_box_prepend (self->plans_box, self->compare_strip);
}

/* After A or B changed, or the theme. */
void
mp_window_compare_update (MpWindow *self)
{
  MpPlanSet *b = self->set ? self->compare_set : NULL;

  mp_compare_strip_set_dark (MP_COMPARE_STRIP (self->compare_strip),
                             mp_view_state_get_dark (self->state));
  mp_compare_strip_set_sets (MP_COMPARE_STRIP (self->compare_strip), self->set, b);
  mp_by_op_view_set_compare (MP_BY_OP_VIEW (self->by_op_view), b);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare-stop", b != NULL);
}

static void
compare_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CompareCall *call = data;
  MpWindow    *self = call->self;
  g_autoptr (GError) error = NULL;
  g_autoptr (MpPlanSet) set = mp_plan_set_build_finish (result, &error);

  if (call->generation == self->compare_generation)
    {
      g_clear_object (&self->compare_cancellable);
      if (set)
        {
          g_clear_pointer (&self->compare_set, mp_plan_set_unref);
          self->compare_set = g_steal_pointer (&set);
          g_autofree char *name = g_path_get_basename (mp_plan_set_get_path (self->compare_set));
          g_autofree char *msg = g_strdup_printf ("Comparing with %s (B): both curves above the "
                                                  "panes, B's bytes per op in the By op tab.",
                                                  name);

          mp_window_compare_update (self);
          mp_window_show_notice (self, msg);
        }
      else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        {
          g_autofree char *msg = g_strdup_printf ("Cannot compare: %s", error->message);

          mp_window_show_error (self, msg);
        }
      g_object_notify (G_OBJECT (self), "busy");
    }
  g_object_unref (self);
  g_free (call);
}

void
mp_window_compare (MpWindow *self, GFile *file)
{
  static const char * const none[] = { NULL };
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  g_autofree char *msg = NULL;
  CompareCall     *call;

  g_return_if_fail (MP_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->compare_cancellable)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_cancellable = g_cancellable_new ();
  self->compare_generation++;
  path = g_file_get_path (file);
  if (path == NULL)
    path = g_file_get_uri (file);
  name = g_file_get_parse_name (file);
  msg = g_strdup_printf ("Loading %s to compare with…", name);
  mp_window_show_notice (self, msg);
  call = g_new0 (CompareCall, 1);
  call->self = g_object_ref (self);
  call->generation = self->compare_generation;
  mp_plan_set_build_async (path, NULL, none, NULL, self->compare_cancellable, NULL, NULL, NULL,
                           compare_done, call);
  g_object_notify (G_OBJECT (self), "busy");
}

void
mp_window_compare_stop (MpWindow *self)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  if (self->compare_cancellable)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_generation++;
  g_clear_pointer (&self->compare_set, mp_plan_set_unref);
  mp_window_compare_update (self);
}

void
mp_window_compare_dispose (MpWindow *self)
{
  if (self->compare_cancellable)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_generation++;
  g_clear_pointer (&self->compare_set, mp_plan_set_unref);
}

MpPlanSet *
mp_window_get_compare_set (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return self->compare_set;
}

const char *
mp_window_get_compare_text (MpWindow *self)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), NULL);
  return mp_compare_strip_get_text (MP_COMPARE_STRIP (self->compare_strip));
}
