/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan"

#include "live-model.h"
#include "live-row.h"

struct _MpLiveModel
{
  GObject        parent_instance;
  const MpGraph *graph;
  const MpPlan  *plan;
  GArray        *records; /* guint, in display order */
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
  return MP_LIVE_MODEL (list)->records->len;
}

static gpointer
get_item (GListModel *list, guint position)
{
  MpLiveModel *self = MP_LIVE_MODEL (list);

  if (position >= self->records->len)
    return NULL;
  if (self->rows->len <= position)
    g_ptr_array_set_size (self->rows, position + 1);
  if (self->rows->pdata[position] == NULL)
    self->rows->pdata[position] = mp_live_row_new (self->graph, self->plan,
                                                   g_array_index (self->records, guint,
                                                                  position));
  return g_object_ref (self->rows->pdata[position]);
}

/* The rows handed out keep their place and show their position's new
 * buffer, so the view keeps its row widgets (GTK would build new ones for
 * new items, which costs far more than the change); only the count's
 * difference is announced. */
static void
update_rows (MpLiveModel *self, guint old_len)
{
  guint len = self->records->len;

  if (self->rows->len > len)
    g_ptr_array_set_size (self->rows, len);
  for (guint i = 0; i < self->rows->len; i++)
    if (self->rows->pdata[i])
      mp_live_row_set (self->rows->pdata[i], self->graph, self->plan,
                       g_array_index (self->records, guint, i));
  if (len < old_len)
    g_list_model_items_changed (G_LIST_MODEL (self), len, old_len - len, 0);
  else if (len > old_len)
    g_list_model_items_changed (G_LIST_MODEL (self), old_len, 0, len - old_len);
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

typedef struct
{
  guint64 key;
  guint64 offset;
  guint   record;
} Keyed;

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

static void
sort_records (MpLiveModel *self)
{
  guint              n = self->records->len;
  guint             *recs = (guint *) (void *) self->records->data;
  g_autofree Keyed  *keyed = NULL;

  if (n < 2)
    return;
  keyed = g_new (Keyed, n);
  for (guint i = 0; i < n; i++)
    keyed[i] = (Keyed) { sort_key (self, recs[i]), self->plan->offsets[recs[i]], recs[i] };
  qsort (keyed, n, sizeof (Keyed), compare_keyed);
  for (guint i = 0; i < n; i++)
    recs[i] = keyed[i].record;
}

static void
mp_live_model_finalize (GObject *object)
{
  g_array_unref (MP_LIVE_MODEL (object)->records);
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
  self->records = g_array_new (FALSE, FALSE, sizeof (guint));
  self->rows = g_ptr_array_new_with_free_func (g_object_unref);
}

MpLiveModel *
mp_live_model_new (void)
{
  return g_object_new (MP_TYPE_LIVE_MODEL, NULL);
}

void
mp_live_model_set (MpLiveModel *self, const MpGraph *graph, const MpPlan *plan, GArray *records)
{
  guint removed;

  g_return_if_fail (MP_IS_LIVE_MODEL (self));

  removed = self->records->len;
  g_array_unref (self->records);
  self->records = records && plan ? records : g_array_new (FALSE, FALSE, sizeof (guint));
  if (records && !plan)
    g_array_unref (records);
  self->graph = graph;
  self->plan = plan;
  sort_records (self);
  update_rows (self, removed);
}

void
mp_live_model_set_sort (MpLiveModel *self, MpLiveSort sort)
{
  g_return_if_fail (MP_IS_LIVE_MODEL (self));
  g_return_if_fail (sort < MP_LIVE_SORT_N);

  if (sort == self->sort)
    return;
  self->sort = sort;
  sort_records (self);
  update_rows (self, self->records->len);
}

MpLiveSort
mp_live_model_get_sort (MpLiveModel *self)
{
  g_return_val_if_fail (MP_IS_LIVE_MODEL (self), MP_LIVE_SORT_OFFSET);
  return self->sort;
}
