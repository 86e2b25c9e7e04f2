/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "summary-row.h"

struct _MpSummaryRow
{
  GObject  parent_instance;
  char    *planner;
  char    *verdict;            /* the engine's words (verdict.h) */
  char    *other;              /* the other schedule's failure, or NULL */
  char    *proof;              /* an exact search's status, or NULL */
  char    *note;
  guint64  arena;
  guint64  lower_bound;
  gdouble  ratio;
  gdouble  fragmentation;
  guint    partitions;
  gdouble  seconds;
  gboolean valid;              /* under the schedule it was made for */
  gboolean proved_optimal;
};

G_DEFINE_FINAL_TYPE (MpSummaryRow, mp_summary_row, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_PLANNER,
  PROP_ARENA,
  PROP_LOWER_BOUND,
  PROP_RATIO,
  PROP_FRAGMENTATION,
  PROP_PARTITIONS,
  PROP_SECONDS,
  PROP_VALID,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
mp_summary_row_finalize (GObject *object)
{
  MpSummaryRow *self = MP_SUMMARY_ROW (object);

  g_free (self->planner);
  g_free (self->verdict);
  g_free (self->other);
  g_free (self->proof);
  g_free (self->note);
  G_OBJECT_CLASS (mp_summary_row_parent_class)->finalize (object);
}

static void
mp_summary_row_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  MpSummaryRow *self = MP_SUMMARY_ROW (object);

  switch (prop_id)
    {
    case PROP_PLANNER:
      g_value_set_string (value, self->planner);
      break;
    case PROP_ARENA:
      g_value_set_uint64 (value, self->arena);
      break;
    case PROP_LOWER_BOUND:
      g_value_set_uint64 (value, self->lower_bound);
      break;
    case PROP_RATIO:
      g_value_set_double (value, self->ratio);
      break;
    case PROP_FRAGMENTATION:
      g_value_set_double (value, self->fragmentation);
      break;
    case PROP_PARTITIONS:
      g_value_set_uint (value, self->partitions);
      break;
    case PROP_SECONDS:
      g_value_set_double (value, self->seconds);
      break;
    case PROP_VALID:
      g_value_set_boolean (value, self->valid);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
mp_summary_row_class_init (MpSummaryRowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags   flags = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  object_class->finalize = mp_summary_row_finalize;
  object_class->get_property = mp_summary_row_get_property;

  properties[PROP_PLANNER] = g_param_spec_string ("planner", NULL, NULL, NULL, flags);
  properties[PROP_ARENA] = g_param_spec_uint64 ("arena", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_LOWER_BOUND] =
    g_param_spec_uint64 ("lower-bound", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_RATIO] = g_param_spec_double ("ratio", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_FRAGMENTATION] =
    g_param_spec_double ("fragmentation", NULL, NULL, 0, 1, 0, flags);
  properties[PROP_PARTITIONS] =
    g_param_spec_uint ("partitions", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_SECONDS] = g_param_spec_double ("seconds", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_VALID] = g_param_spec_boolean ("valid", NULL, NULL, FALSE, flags);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
mp_summary_row_init (MpSummaryRow *self)
{
}

MpSummaryRow *
mp_summary_row_new (const MpPlan *plan)
{
  MpSummaryRow *self = g_object_new (MP_TYPE_SUMMARY_ROW, NULL);

  self->planner = g_strdup (plan->planner);
  self->verdict = mp_plan_verdict (plan);
  self->other = mp_plan_verdict_other (plan);
  self->proof = mp_plan_proof (plan);
  self->note = g_strdup (plan->note);
  self->arena = plan->arena;
  self->lower_bound = plan->lower_bound;
  self->ratio = mp_plan_ratio (plan);
  self->fragmentation = mp_plan_fragmentation (plan);
  self->partitions = plan->n_partitions;
  self->seconds = plan->seconds;
  self->valid = plan->valid;
  self->proved_optimal = plan->proved_optimal;
  return self;
}

const char *
mp_summary_row_get_planner (MpSummaryRow *self)
{
  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), NULL);
  return self->planner;
}

char *
mp_summary_row_format (MpSummaryRow *self, const char *column)
{
  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), NULL);

  if (g_str_equal (column, "planner"))
    return self->proved_optimal ? g_strdup_printf ("%s (proved)", self->planner)
                                : g_strdup (self->planner);
  if (g_str_equal (column, "arena"))
    return mp_format_bytes (self->arena);
  if (g_str_equal (column, "lower-bound"))
    return mp_format_bytes (self->lower_bound);
  if (g_str_equal (column, "ratio"))
    return g_strdup_printf ("%.4f", self->ratio);
  if (g_str_equal (column, "fragmentation"))
    return g_strdup_printf ("%.2f %%", 100.0 * self->fragmentation);
  if (g_str_equal (column, "partitions"))
    return self->partitions ? g_strdup_printf ("%u", self->partitions) : g_strdup ("—");
  if (g_str_equal (column, "seconds"))
    return mp_format_seconds (self->seconds);
  if (g_str_equal (column, "valid"))
    {
      if (self->proof && self->valid)
        return g_strdup_printf ("%s; %s", self->verdict, self->proof);
      return g_strdup (self->verdict);
    }
  g_return_val_if_reached (NULL);
}

char *
mp_summary_row_describe_validity (MpSummaryRow *self)
{
  GString *s;

  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), NULL);

  s = g_string_new (self->verdict);
  s->str[0] = g_ascii_toupper (s->str[0]);
  if (self->other)
    g_string_append_printf (s, "\n%c%s", g_ascii_toupper (self->other[0]), self->other + 1);
  if (self->proof)
    g_string_append_printf (s, "\n%c%s.", g_ascii_toupper (self->proof[0]), self->proof + 1);
  return g_string_free (s, FALSE);
}
