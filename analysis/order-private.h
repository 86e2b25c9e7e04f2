/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "order.h"

G_BEGIN_DECLS

/* What every order method sees: the ops, the buffers they touch (the
 * lifetimes' records: a view counts as its root) and the dependencies. */
enum
{
  MP_ORDER_REC_FROM_START = 1 << 0, /* a planned input: live from the first step */
  MP_ORDER_REC_TO_END = 1 << 1,     /* an output: live to the last step */
};

typedef struct
{
  const MpGraph *graph;
  guint          n_ops;
  guint          n_recs;
  guint64       *bytes;     /* per record */
  guint8        *flags;     /* per record: MP_ORDER_REC_* */
  guint         *n_touch;   /* per record: ops that touch it */
  /* per op o: its records, each once: recs[rec_start[o] .. rec_start[o + 1]) */
  guint         *rec_start;
  guint         *recs;
  guint         *touch_start; /* per record: the ops that touch it, in given order */
  guint         *touch;
  guint         *pred_start;  /* per op: ops that must run before it (each once, given order) */
  guint         *preds;
  guint         *succ_start;
  guint         *succs;
  guint64        from_start_bytes; /* live before any op runs */
} MpOrderProblem;

MpOrderProblem *mp_order_problem_new  (const MpGraph *graph, gboolean plan_inputs);
void            mp_order_problem_free (MpOrderProblem *pb);
guint64         mp_order_problem_peak (const MpOrderProblem *pb, const guint *order,
                                       guint64 *live);

/* A binary heap of GArray elements (at most 64 bytes), the first by before on top. */
typedef gboolean (*MpOrderBefore) (gconstpointer a, gconstpointer b);
void     mp_order_heap_push  (GArray *heap, gconstpointer elem, MpOrderBefore before);
void     mp_order_heap_pop   (GArray *heap, gpointer top, MpOrderBefore before);

/* Each fills order (n_ops) and returns TRUE, or FALSE (with *why) when the
 * method does not apply to this graph. */
void     mp_order_list       (const MpOrderProblem *pb, guint *order);
void     mp_order_dfs        (const MpOrderProblem *pb, guint *order);
void     mp_order_post_order (const MpOrderProblem *pb, guint *order);
gboolean mp_order_tree       (const MpOrderProblem *pb, guint *order, char **why);

/* Exact search from the incumbent order (its peak given): improves order in
 * place; fills the result's lower bound, proof, states and note. FALSE only
 * when cancelled. */
gboolean mp_order_search     (const MpOrderProblem *pb, const MpOrderOptions *options,
                              guint *order, guint64 peak, MpOrderResult *result,
                              GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (MpOrderProblem, mp_order_problem_free)

G_END_DECLS
