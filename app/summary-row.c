/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "summary-row.h"
#include "summary-words.h"

struct _MpSummaryRow
{
  GObject  parent_instance;
  char    *planner;
  char    *verdict;            /* summary-words.c says them all */
  char    *verdict_detail;
  char    *notes;              /* the margin, the proof, a differing bound */
  guint64  arena;
  guint64  lower_bound;
  gdouble  ratio;
  gdouble  fragmentation;
  guint    partitions;
  gdouble  seconds;
  gboolean valid;              /* under the schedule it was made for */
  gboolean best;
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
  g_free (self->verdict_detail);
  g_free (self->notes);
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
mp_summary_row_new (const MpPlan *plan, gboolean best, const char *notes)
{
  MpSummaryRow *self = g_object_new (MP_TYPE_SUMMARY_ROW, NULL);

  self->planner = g_strdup (plan->planner);
  self->verdict = mp_summary_verdict (plan);
  self->verdict_detail = mp_summary_verdict_detail (plan);
  self->notes = g_strdup (notes);
  self->best = best;
  self->arena = plan->arena;
  self->lower_bound = plan->lower_bound;
  self->ratio = mp_plan_ratio (plan);
  self->fragmentation = mp_plan_fragmentation (plan);
  self->partitions = plan->n_partitions;
  self->seconds = plan->seconds;
  self->valid = plan->valid;
  return self;
}

gboolean
mp_summary_row_get_best (MpSummaryRow *self)
{
  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), FALSE);
  return self->best;
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
    return self->best ? g_strdup_printf ("★ %s", self->planner) : g_strdup (self->planner);
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
    return g_strdup (self->verdict);
  if (g_str_equal (column, "notes"))
    return g_strdup (self->notes ? self->notes : "");
  g_return_val_if_reached (NULL);
}

char *
mp_summary_row_describe_validity (MpSummaryRow *self)
{
  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), NULL);
  return g_strdup (self->verdict_detail);
}
