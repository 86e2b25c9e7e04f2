/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

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

/* The rows array's free function: rows are made on demand, so most
 * slots are NULL. */
static void
row_unref (gpointer row)
{
  if (row != NULL)
    g_object_unref (row);
}

/* Only what changed, in one signal: both lists are in one order, so one
 * merge carries the rows of the records that stay over to their new
 * positions, and the records the two lists share at both ends are left out
 * of the change. GTK 4.8 finds a row's widget again by its item, and makes
 * a new widget (every cell's setup, its style) for an item it has not
 * seen: so the rows of records that left are given to records that came,
 * and a jump of the step cursor rebinds the visible rows instead of
 * building them. One items_changed, not one per run that differs (GTK
 * rebinds its visible rows on each). O(m + n). */
static void
update (MpLiveModel *self, GArray *now)
{
  const Keyed *a = (const Keyed *) (void *) self->keyed->data;
  const Keyed *b = (const Keyed *) (void *) now->data;
  guint        m = self->keyed->len, n = now->len, i = 0, j = 0, head = 0, tail = 0;
  GPtrArray   *rows = g_ptr_array_new_full (n, row_unref);

  g_ptr_array_set_size (rows, n);
  while (i < m && j < n)
    {
      int c = compare_keyed (&a[i], &b[j]);

      if (c == 0)
        rows->pdata[j++] = g_steal_pointer (&self->rows->pdata[i++]);
      else if (c < 0)
        i++;
      else
        j++;
    }
  while (head < m && head < n && compare_keyed (&a[head], &b[head]) == 0)
    head++;
  while (tail < m - head && tail < n - head &&
         compare_keyed (&a[m - 1 - tail], &b[n - 1 - tail]) == 0)
    tail++;
  /* a row that left goes to the first free position at or after its own:
   * the rows made are the ones around the visible positions, which the
   * view keeps */
  for (i = head, j = head; i < m - tail; i++)
    {
      MpLiveRow *row = g_steal_pointer (&self->rows->pdata[i]);

      if (row == NULL)
        continue;
      j = MAX (j, MIN (i, n - tail));
      while (j < n - tail && rows->pdata[j] != NULL)
        j++;
      if (j == n - tail)
        {
          g_object_unref (row);
          continue;
        }
      mp_live_row_set_record (row, self->graph, self->plan, b[j].record);
      rows->pdata[j++] = row;
    }
  g_array_unref (self->keyed);
  self->keyed = g_array_ref (now);
  g_ptr_array_unref (self->rows);
  self->rows = rows;
  if (m - head - tail || n - head - tail)
    g_list_model_items_changed (G_LIST_MODEL (self), head, m - head - tail, n - head - tail);
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
  self->rows = g_ptr_array_new_with_free_func (row_unref);
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

