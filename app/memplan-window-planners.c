/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

/* The Planners menu: one planner.NAME action and check button each; the
 * set enabled is the window's planners property. */

#include "memplan-window-private.h"

GStrv
mp_window_dup_enabled_planners (MpWindow *self)
{
  g_autoptr (GStrvBuilder) b = g_strv_builder_new ();
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  for (guint i = 0; i < n; i++)
    if (g_hash_table_contains (self->enabled, infos[i].name))
      g_strv_builder_add (b, infos[i].name);
  return g_strv_builder_end (b);
}

static void
planner_state_changed (GSimpleAction *action, GVariant *value, gpointer data)
{
  MpWindow            *self = data;
  const MpPlannerInfo *info = mp_planner_lookup (g_action_get_name (G_ACTION (action)));

  g_simple_action_set_state (action, value);
  if (g_variant_get_boolean (value))
    g_hash_table_add (self->enabled, (gpointer) info->name);
  else
    g_hash_table_remove (self->enabled, info->name);
  g_object_notify (G_OBJECT (self), "planners");
  mp_window_start_build (self, FALSE);
}

gboolean
mp_window_get_planner_enabled (MpWindow *self, const char *planner)
{
  g_return_val_if_fail (MP_IS_WINDOW (self), FALSE);
  return g_hash_table_contains (self->enabled, planner);
}

void
mp_window_set_planner_enabled (MpWindow *self, const char *planner, gboolean enabled)
{
  g_return_if_fail (MP_IS_WINDOW (self));
  g_return_if_fail (mp_planner_lookup (planner) != NULL);

  if (mp_window_get_planner_enabled (self, planner) != enabled)
    g_action_group_change_action_state (G_ACTION_GROUP (self->planner_actions), planner,
                                        g_variant_new_boolean (enabled));
}

void
mp_window_set_planners (MpWindow *self, const char * const *planners)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  g_return_if_fail (MP_IS_WINDOW (self));

  /* one replan, not one per toggle */
  g_hash_table_remove_all (self->enabled);
  for (guint i = 0; i < n; i++)
    {
      gboolean on = planners == NULL || g_strv_contains (planners, infos[i].name);
      GAction *action = g_action_map_lookup_action (G_ACTION_MAP (self->planner_actions),
                                                    infos[i].name);

      if (on)
        g_hash_table_add (self->enabled, (gpointer) infos[i].name);
      g_simple_action_set_state (G_SIMPLE_ACTION (action), g_variant_new_boolean (on));
    }
  g_object_notify (G_OBJECT (self), "planners");
  mp_window_start_build (self, FALSE);
}

void
mp_window_planners_init (MpWindow *self)
{
  guint                n;
  const MpPlannerInfo *infos = mp_planners (&n);

  self->planner_actions = g_simple_action_group_new ();
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (GSimpleAction) action =
        g_simple_action_new_stateful (infos[i].name, NULL, g_variant_new_boolean (TRUE));
      g_autofree char *action_name = g_strconcat ("planner.", infos[i].name, NULL);
      g_autofree char *label = g_strdup_printf ("%s — %s", infos[i].name, infos[i].title);
      g_autofree char *tip = i < 9 ? g_strdup_printf ("%s (Alt+%u)", infos[i].description, i + 1)
                                   : g_strdup (infos[i].description);
      GtkWidget       *check = gtk_check_button_new_with_label (label);

      g_signal_connect (action, "change-state", G_CALLBACK (planner_state_changed), self);
      g_action_map_add_action (G_ACTION_MAP (self->planner_actions), G_ACTION (action));
      g_hash_table_add (self->enabled, (gpointer) infos[i].name);
      gtk_actionable_set_action_name (GTK_ACTIONABLE (check), action_name);
      gtk_widget_set_tooltip_text (check, tip);
      gtk_box_append (self->planners_box, check);
    }
  gtk_widget_insert_action_group (GTK_WIDGET (self), "planner",
                                  G_ACTION_GROUP (self->planner_actions));
}
