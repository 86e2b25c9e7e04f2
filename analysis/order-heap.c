/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "memplan-analysis"

#include <string.h>

#include "order-private.h"

/* A binary heap in a GArray of small elements, shared by the list
 * scheduler and the search. */

static void
swap (GArray *heap, guint i, guint j)
{
  guint  size = g_array_get_element_size (heap);
  guint8 t[64];

  g_assert (size <= sizeof t);
  memcpy (t, heap->data + (gsize) i * size, size);
  memcpy (heap->data + (gsize) i * size, heap->data + (gsize) j * size, size);
  memcpy (heap->data + (gsize) j * size, t, size);
}

static inline gconstpointer
at (GArray *heap, guint i)
{
  return heap->data + (gsize) i * g_array_get_element_size (heap);
}

void
mp_order_heap_push (GArray *heap, gconstpointer elem, MpOrderBefore before)
{
  guint i = heap->len;

  g_array_append_vals (heap, elem, 1);
  while (i > 0 && before (at (heap, i), at (heap, (i - 1) / 2)))
    {
      swap (heap, i, (i - 1) / 2);
      i = (i - 1) / 2;
    }
}

void
mp_order_heap_pop (GArray *heap, gpointer top, MpOrderBefore before)
{
  guint i = 0, n = heap->len - 1;

  memcpy (top, at (heap, 0), g_array_get_element_size (heap));
  swap (heap, 0, n);
  g_array_set_size (heap, n);
  for (;;)
    {
      guint l = 2 * i + 1, r = l + 1, m = i;

      if (l < n && before (at (heap, l), at (heap, m)))
        m = l;
      if (r < n && before (at (heap, r), at (heap, m)))
        m = r;
      if (m == i)
        break;
      swap (heap, i, m);
      i = m;
    }
}
