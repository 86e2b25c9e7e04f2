/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "summary-row.h"
#include "summary-words.h"

struct _MpSummaryRow
{
  GObject  parent_instance;
  char    *planner;
  char    *cells[MP_PLAN_N_COLUMNS]; /* the engine's words (plan-table.h) */
  gboolean fails[MP_PLAN_N_COLUMNS];
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
  for (guint i = 0; i < MP_PLAN_N_COLUMNS; i++)
    g_free (self->cells[i]);
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
  for (guint i = 0; i < MP_PLAN_N_COLUMNS; i++)
    {
      self->cells[i] = mp_plan_cell (plan, i);
      self->fails[i] = mp_plan_cell_fails (plan, i);
    }
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
  const MpPlanColumnInfo *info = mp_plan_column_lookup (column);

  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), NULL);

  if (g_str_equal (column, "notes"))
    return g_strdup (self->notes ? self->notes : "");
  g_return_val_if_fail (info != NULL, NULL);
  if (info->column == MP_PLAN_COLUMN_PLANNER && self->best)
    return g_strdup_printf ("★ %s", self->planner);
  return g_strdup (self->cells[info->column]);
}

gboolean
mp_summary_row_fails (MpSummaryRow *self, const char *column)
{
  const MpPlanColumnInfo *info = mp_plan_column_lookup (column);

  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), FALSE);
  return info != NULL && self->fails[info->column];
}

char *
mp_summary_row_describe_validity (MpSummaryRow *self)
{
  g_return_val_if_fail (MP_IS_SUMMARY_ROW (self), NULL);
  return g_strdup (self->verdict_detail);
}
