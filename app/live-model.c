/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include <string.h>

#include "live-model.h"
#include "live-row.h"

typedef struct
{
  guint64 key;
  guint64 offset;
  guint   record;
} Keyed;

struct _MpLiveModel
{
  GObject        parent_instance;
  const MpGraph *graph;
  const MpPlan  *plan;
  GArray        *keyed;   /* Keyed, in display order */
  GPtrArray     *rows;    /* per position, the row handed out (or NULL) */
  MpLiveSort     sort;
};

static void mp_live_model_list_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (MpLiveModel, mp_live_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL,
                                                      mp_live_model_list_init))

static GType
get_item_type (GListModel *list)
{
  return MP_TYPE_LIVE_ROW;
}

static guint
get_n_items (GListModel *list)
{
  return MP_LIVE_MODEL (list)->keyed->len;
}

static gpointer
get_item (GListModel *list, guint position)
{
  MpLiveModel *self = MP_LIVE_MODEL (list);

  if (position >= self->keyed->len)
    return NULL;
  if (self->rows->pdata[position] == NULL)
    self->rows->pdata[position] =
      mp_live_row_new (self->graph, self->plan, g_array_index (self->keyed, Keyed, position).record);
  return g_object_ref (self->rows->pdata[position]);
}

static void
mp_live_model_list_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

/* The key a record sorts on, smaller first; ties go by address. */
static guint64
sort_key (const MpLiveModel *self, guint r)
{
  const MpUsage *u = &self->plan->records[r];

  switch (self->sort)
    {
    case MP_LIVE_SORT_SIZE:
      return G_MAXUINT64 - u->bytes;
    case MP_LIVE_SORT_LIFETIME:
      return G_MAXUINT64 - (u->last - u->first);
    case MP_LIVE_SORT_OP:
      return u->first;
    case MP_LIVE_SORT_OFFSET:
    case MP_LIVE_SORT_N:
    default:
      return self->plan->offsets[r];
    }
}

static int
compare_keyed (gconstpointer a, gconstpointer b)
{
  const Keyed *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  if (x->offset != y->offset)
    return x->offset < y->offset ? -1 : 1;
  return x->record < y->record ? -1 : x->record > y->record;
}

/* The records, keyed and sorted for display. */
static GArray *
sorted (MpLiveModel *self, const GArray *records)
{
  GArray *keyed = g_array_sized_new (FALSE, FALSE, sizeof (Keyed), records ? records->len : 0);

  for (guint i = 0; records && i < records->len; i++)
    {
      guint r = g_array_index (records, guint, i);
      Keyed k = { sort_key (self, r), self->plan->offsets[r], r };

      g_array_append_val (keyed, k);
    }
  g_array_sort (keyed, compare_keyed);
  return keyed;
}

/* Positions [pos, pos + n_removed) give way to add[0 .. n_added). */
static void
splice (MpLiveModel *self, guint pos, guint n_removed, const Keyed *add, guint n_added)
{
  guint tail = self->keyed->len - pos - n_removed;

  g_array_remove_range (self->keyed, pos, n_removed);
  g_array_insert_vals (self->keyed, pos, add, n_added);
  for (guint i = pos; i < pos + n_removed; i++)
    g_clear_object ((MpLiveRow **) &self->rows->pdata[i]);
  if (n_added > n_removed)
    g_ptr_array_set_size (self->rows, self->rows->len + n_added - n_removed);
  memmove (self->rows->pdata + pos + n_added, self->rows->pdata + pos + n_removed,
           tail * sizeof (gpointer));
  if (n_added < n_removed)
    self->rows->len -= n_removed - n_added; /* the tail's pointers moved down */
  memset (self->rows->pdata + pos, 0, n_added * sizeof (gpointer));
  g_list_model_items_changed (G_LIST_MODEL (self), pos, n_removed, n_added);
}

typedef struct
{
  guint old_pos, n_old, new_pos, n_new;
} Run;

/* Only what changed: both lists are in one order, so a merge finds the runs
 * of records that left and came; the rows of the records that stay keep
 * their objects, and so GtkColumnView keeps their widgets. The runs are
 * applied from the last, so each one's position is still the old one. */
static void
update (MpLiveModel *self, GArray *now)
{
  const Keyed *a = (const Keyed *) (void *) self->keyed->data;
  const Keyed *b = (const Keyed *) (void *) now->data;
  guint        m = self->keyed->len, n = now->len, i = 0, j = 0;
  g_autoptr (GArray) runs = g_array_new (FALSE, FALSE, sizeof (Run));

  while (i < m || j < n)
    {
      Run run = { i, 0, j, 0 };

      while ((i < m || j < n) && !(i < m && j < n && compare_keyed (&a[i], &b[j]) == 0))
        {
          if (j >= n || (i < m && compare_keyed (&a[i], &b[j]) < 0))
            i++;
          else
            j++;
        }
      run.n_old = i - run.old_pos;
      run.n_new = j - run.new_pos;
      if (run.n_old || run.n_new)
        g_array_append_val (runs, run);
      if (i < m && j < n)
        i++, j++;
    }
  for (guint k = runs->len; k-- > 0;)
    {
      const Run *r = &g_array_index (runs, Run, k);

      splice (self, r->old_pos, r->n_old, b + r->new_pos, r->n_new);
    }
}

static void
mp_live_model_finalize (GObject *object)
{
  g_array_unref (MP_LIVE_MODEL (object)->keyed);
  g_ptr_array_unref (MP_LIVE_MODEL (object)->rows);
  G_OBJECT_CLASS (mp_live_model_parent_class)->finalize (object);
}

static void
mp_live_model_class_init (MpLiveModelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = mp_live_model_finalize;
}

static void
mp_live_model_init (MpLiveModel *self)
{
  self->keyed = g_array_new (FALSE, FALSE, sizeof (Keyed));
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
}

MpLiveModel *
mp_live_model_new (void)
{
  return g_object_new (MP_TYPE_LIVE_MODEL, NULL);
}

/* Everything afresh: another plan, or another order. */
static void
replace (MpLiveModel *self, GArray *now)
{
  guint removed = self->keyed->len;

  g_array_unref (self->keyed);
  self->keyed = now;
  g_ptr_array_set_size (self->rows, 0);
  g_ptr_array_set_size (self->rows, now->len);
  if (removed || now->len)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, removed, now->len);
}

void
mp_live_model_set (MpLiveModel *self, const MpGraph *graph, const MpPlan *plan, GArray *records)
{
  g_autoptr (GArray) taken = records;

  g_return_if_fail (MP_IS_LIVE_MODEL (self));

  if (plan == NULL)
    {
      self->graph = NULL;
      self->plan = NULL;
      replace (self, g_array_new (FALSE, FALSE, sizeof (Keyed)));
      return;
    }
  if (plan != self->plan || graph != self->graph)
    {
      self->graph = graph;
      self->plan = plan;
      replace (self, sorted (self, taken));
      return;
    }
  {
    g_autoptr (GArray) now = sorted (self, taken);

    update (self, now);
  }
}

void
mp_live_model_set_sort (MpLiveModel *self, MpLiveSort sort)
{
  g_autoptr (GArray) records = NULL;

  g_return_if_fail (MP_IS_LIVE_MODEL (self));
  g_return_if_fail (sort < MP_LIVE_SORT_N);

  if (sort == self->sort)
    return;
  self->sort = sort;
  if (self->plan == NULL)
    return;
  records = g_array_sized_new (FALSE, FALSE, sizeof (guint), self->keyed->len);
  for (guint i = 0; i < self->keyed->len; i++)
    g_array_append_val (records, g_array_index (self->keyed, Keyed, i).record);
  replace (self, sorted (self, records));
}

