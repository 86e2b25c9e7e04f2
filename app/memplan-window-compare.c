/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* Compare With…: a second input (B) loaded beside the shown one (A), both
 * live-bytes curves on one axis above the panes, B's bytes at its peak per
 * op in the By op tab. B is loaded without planners: what it is compared
 * on is its own input's memory, as `memplan-cli diff` compares. */

#include "by-op-view.h"
#include "trace-diff.h"
#include "compare-strip.h"
#include "memplan-window-private.h"

typedef struct
{
  MpWindow *self;
  guint     generation;
} CompareCall;

/* The worker's job: B loaded for its curve, and mp_trace_diff of A's file
 * against B's for the attribution (each file read again, one at a time). */
typedef struct
{
  char        *path_a;
  char        *path_b;
  MpPlanSet   *set;
  MpTraceDiff *diff;
} CompareJob;

static void
compare_job_free (gpointer data)
{
  CompareJob *job = data;

  g_free (job->path_a);
  g_free (job->path_b);
  g_clear_pointer (&job->set, mp_plan_set_unref);
  g_clear_pointer (&job->diff, mp_trace_diff_free);
  g_free (job);
}

static void
compare_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  static const char * const none[] = { NULL };
  CompareJob *job = data;
  GError     *error = NULL;

  if (!(job->set = mp_plan_set_build (job->path_b, NULL, none, NULL, cancellable, &error)) ||
      g_cancellable_set_error_if_cancelled (cancellable, &error) ||
      !(job->diff = mp_trace_diff_files (job->path_a, job->path_b, NULL, NULL, &error)))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

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

  /* A replaced (another file opened): compare the new A with B again */
  if (b && !self->compare_cancellable &&
      g_strcmp0 (self->compare_a, mp_plan_set_get_path (self->set)) != 0)
    {
      g_autoptr (GFile) file = g_file_new_for_path (mp_plan_set_get_path (b));

      mp_window_compare (self, file);
      return;
    }
  mp_compare_strip_set_dark (MP_COMPARE_STRIP (self->compare_strip),
                             mp_view_state_get_dark (self->state));
  mp_compare_strip_set_sets (MP_COMPARE_STRIP (self->compare_strip), self->set, b);
  mp_by_op_view_set_compare (MP_BY_OP_VIEW (self->by_op_view), b ? self->compare_diff : NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare-stop", b != NULL);
}

static void
compare_done (GObject *source, GAsyncResult *result, gpointer data)
{
  CompareCall *call = data;
  MpWindow    *self = call->self;
  g_autoptr (GError) error = NULL;
  CompareJob  *job = g_task_get_task_data (G_TASK (result));

  if (call->generation == self->compare_generation)
    {
      g_clear_object (&self->compare_cancellable);
      if (g_task_propagate_boolean (G_TASK (result), &error))
        {
          mp_by_op_view_set_compare (MP_BY_OP_VIEW (self->by_op_view), NULL);
          g_clear_pointer (&self->compare_set, mp_plan_set_unref);
          g_clear_pointer (&self->compare_diff, mp_trace_diff_free);
          g_free (self->compare_a);
          self->compare_set = g_steal_pointer (&job->set);
          self->compare_diff = g_steal_pointer (&job->diff);
          self->compare_a = g_steal_pointer (&job->path_a);
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
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  g_autofree char *msg = NULL;
  CompareCall     *call;
  CompareJob      *job;
  g_autoptr (GTask) task = NULL;

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
  job = g_new0 (CompareJob, 1);
  job->path_a = self->file ? g_file_get_path (self->file) : NULL;
  job->path_b = g_steal_pointer (&path);
  if (job->path_a == NULL)
    {
      compare_job_free (job);
      g_object_unref (call->self);
      g_free (call);
      g_clear_object (&self->compare_cancellable);
      mp_window_show_error (self, "Cannot compare: open a file first (A), then compare it with "
                                  "another (B).");
      return;
    }
  task = g_task_new (NULL, self->compare_cancellable, compare_done, call);
  g_task_set_task_data (task, job, compare_job_free);
  g_task_run_in_thread (task, compare_thread);
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
  mp_by_op_view_set_compare (MP_BY_OP_VIEW (self->by_op_view), NULL);
  g_clear_pointer (&self->compare_set, mp_plan_set_unref);
  g_clear_pointer (&self->compare_diff, mp_trace_diff_free);
  g_clear_pointer (&self->compare_a, g_free);
  mp_window_compare_update (self);
}

void
mp_window_compare_dispose (MpWindow *self)
{
  if (self->compare_cancellable)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_generation++;
  if (self->by_op_view)
    mp_by_op_view_set_compare (MP_BY_OP_VIEW (self->by_op_view), NULL);
  g_clear_pointer (&self->compare_set, mp_plan_set_unref);
  g_clear_pointer (&self->compare_diff, mp_trace_diff_free);
  g_clear_pointer (&self->compare_a, g_free);
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
