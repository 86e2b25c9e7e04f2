/* SPDX-License-Identifier: GPL-3.0-or-later */
/* MiniMalloc's CSV forms, read as MiniMalloc reads them: columns in any
 * order, an inclusive "end", aliases, a byte-order mark, and columns the
 * planners do not use (gaps, unknown ones) read with a note. */
#include <string.h>

#include "graph.h"

static MpGraph *
parse (const char *text, guint64 **offsets, GError **error)
{
  return mp_graph_parse_csv (text, strlen (text), "m.csv", offsets, error);
}

static void
assert_tensor (const MpGraph *g, const char *name, gint64 first, gint64 last, guint64 size)
{
  gint t = mp_graph_find_tensor (g, name);

  g_assert_cmpint (t, >=, 0);
  g_assert_cmpint (g->tensors[t].first, ==, first);
  g_assert_cmpint (g->tensors[t].last, ==, last);
  g_assert_cmpuint (g->tensors[t].size, ==, size);
}

/* start,end: end is inclusive, so [0, 2] is lower 0, upper 3. */
static void
test_inclusive_end (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) g = parse ("id,start,end,size\na,0,2,16\nb,3,3,8\n", NULL, &error);
  g_autoptr (MpGraph) same = parse ("id,lower,upper,size\na,0,3,16\nb,3,4,8\n", NULL, &error);

  g_assert_no_error (error);
  assert_tensor (g, "a", 0, 2, 16);
  assert_tensor (g, "b", 3, 3, 8);
  assert_tensor (same, "a", 0, 2, 16);
  assert_tensor (same, "b", 3, 3, 8);
  g_assert_null (g->note);
}

static void
test_any_order (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree guint64 *offsets = NULL;
  g_autoptr (MpGraph) g = parse ("\xef\xbb\xbfoffset,size,upper,buffer_id,begin\r\n"
                                 "32,16,5,x,1\r\n0,8,2,y,0\r\n",
                                 &offsets, &error);

  g_assert_no_error (error);
  assert_tensor (g, "x", 1, 4, 16);
  assert_tensor (g, "y", 0, 1, 8);
  g_assert_nonnull (offsets);
  g_assert_cmpuint (offsets[0], ==, 32);
  g_assert_cmpuint (offsets[1], ==, 0);
  g_assert_cmpuint (g->alignment, ==, 1);
  g_assert_null (g->note);
}

static void
test_gaps_and_extra (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) g = parse ("id,lower,upper,size,gaps,colour\n"
                                 "a,0,10,4,2-5,red\nb,0,3,4,,blue\nc,1,9,4,3-4 6-7,green\n",
                                 NULL, &error);

  g_assert_no_error (error);
  assert_tensor (g, "a", 0, 9, 4);
  g_assert_cmpstr (g->note, ==, "columns ignored: 'colour'");
  /* MiniMalloc's gaps: a [2, 5) gap of a, and c's two, in the tensors */
  g_assert_cmpuint (g->tensors[0].n_gaps, ==, 1);
  g_assert_cmpint (g_array_index (g->gaps, MpGap, g->tensors[0].gap_first).first, ==, 2);
  g_assert_cmpint (g_array_index (g->gaps, MpGap, g->tensors[0].gap_first).last, ==, 4);
  g_assert_cmpuint (g->tensors[1].n_gaps, ==, 0);
  g_assert_cmpuint (g->tensors[2].n_gaps, ==, 2);
  g_assert_cmpint (g_array_index (g->gaps, MpGap, g->tensors[2].gap_first + 1).first, ==, 6);
}

static void
test_alignment (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpGraph) same = parse ("id,lower,upper,size,alignment\na,0,1,4,16\nb,0,1,4,16\n",
                                    NULL, &error);
  g_autoptr (MpGraph) mixed = parse ("id,lower,upper,size,alignment\na,0,1,4,1\nb,0,1,4,64\n",
                                     NULL, &error);

  g_assert_no_error (error);
  /* each buffer keeps its own alignment; the graph's stays 1 */
  g_assert_cmpuint (same->alignment, ==, 1);
  g_assert_cmpuint (same->tensors[0].alignment, ==, 16);
  g_assert_null (same->note);
  g_assert_cmpuint (mixed->alignment, ==, 1);
  g_assert_cmpuint (mixed->tensors[0].alignment, ==, 1);
  g_assert_cmpuint (mixed->tensors[1].alignment, ==, 64);
  g_assert_null (mixed->note);
}

static void
test_bad (void)
{
  static const char *cases[][2] = {
    { "id,start,end,size\na,3,2,4\n", "m.csv: line 2 (buffer 'a'): end 2 must be at least start 3" },
    { "id,lower,upper,size\na,3,3,4\n",
      "m.csv: line 2 (buffer 'a'): upper 3 must be greater than lower 3" },
    { "id,lower,start,upper,size\na,0,0,1,4\n",
      "m.csv: line 1: columns 'lower' and 'start' name the same thing" },
    { "id,size,size,lower,upper\na,4,4,0,1\n", "m.csv: line 1: column 'size' appears twice" },
    { "id,lower,end\na,0,1\n",
      "m.csv: line 1: expected a header naming the columns id, lower, upper and size in any "
      "order (or start and an inclusive end), got 'id,lower,end'" },
    { "id,lower,upper,size,alignment\na,0,1,4,3\n",
      "m.csv: line 2 (buffer 'a'): alignment must be a power of two from 1 to 2^30, got 3" },
    { "size,id,lower,upper\nx,a,0,1\n",
      "m.csv: line 2 (buffer 'a'): size 'x' is not a non-negative integer" },
    { "id,lower,upper,size,gaps\na,0,1,4\n", "m.csv: line 2: expected 5 fields, found 4" },
    { "id,lower,upper,size,gaps\na,0,9,4,2-x\n",
      "m.csv: line 2 (buffer 'a'): gaps '2-x' is not L-U or L-U@lo:hi with non-negative "
      "integers" },
    { "id,lower,upper,size,gaps\na,0,9,4,3-3\n",
      "m.csv: line 2 (buffer 'a'): gaps '3-3' is empty: its end must be past its start" },
    { "id,lower,upper,size,gaps\na,2,9,4,1-3\n",
      "m.csv: line 2 (buffer 'a'): gaps '1-3' lies outside the buffer's lifetime" },
    { "id,lower,upper,size,gaps\na,0,9,4,1-3@2:5\n",
      "m.csv: line 2 (buffer 'a'): gaps '1-3@2:5' has a window that is not inside the buffer "
      "(lo <= hi <= size)" },
    { "id,lower,upper,size,gaps\na,0,9,4,1-3 2-4\n",
      "m.csv: line 2 (buffer 'a'): gaps '2-4' overlaps another gap of the buffer" },
    { "id,lower,upper,size,hint\na,0,9,4,-2\n",
      "m.csv: line 2 (buffer 'a'): hint '-2' is not -1 or an offset from 0 to 2^48" },
    { "id,lower,upper,size,fixed_offset\na,0,9,4,x\n",
      "m.csv: line 2 (buffer 'a'): fixed_offset 'x' is not -1 or an offset from 0 to 2^48" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (MpGraph) g = parse (cases[i][0], NULL, &error);

      g_assert_null (g);
      g_assert_cmpstr (error->message, ==, cases[i][1]);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/usage-csv/inclusive-end", test_inclusive_end);
  g_test_add_func ("/analysis/usage-csv/any-order", test_any_order);
  g_test_add_func ("/analysis/usage-csv/gaps-and-extra", test_gaps_and_extra);
  g_test_add_func ("/analysis/usage-csv/alignment", test_alignment);
  g_test_add_func ("/analysis/usage-csv/bad", test_bad);
  return g_test_run ();
}
