/* SPDX-License-Identifier: GPL-3.0-or-later */
/* suite --repeat: a planner's time as the median of its runs and their
 * spread, kept in the report, and compare flagging a time only beyond that
 * spread (and the tolerance). */
#include <string.h>

#include "report-compare.h"

static void
test_median (void)
{
  MpReportResult r = { 0 };
  const gdouble  odd[] = { 0.003, 0.001, 0.002 };
  const gdouble  even[] = { 0.004, 0.001, 0.003, 0.002 };
  const gdouble  one[] = { 0.5 };

  mp_report_result_set_times (&r, odd, 3);
  g_assert_cmpuint (r.runs, ==, 3);
  g_assert_cmpfloat (r.seconds, ==, 0.002);
  g_assert_cmpfloat (r.seconds_min, ==, 0.001);
  g_assert_cmpfloat (r.seconds_max, ==, 0.003);
  mp_report_result_set_times (&r, even, 4);
  g_assert_cmpfloat (r.seconds, ==, 0.0025);
  g_assert_cmpfloat (r.seconds_min, ==, 0.001);
  g_assert_cmpfloat (r.seconds_max, ==, 0.004);
  mp_report_result_set_times (&r, one, 1);
  g_assert_cmpuint (r.runs, ==, 1);
  g_assert_cmpfloat (r.seconds_min, ==, 0.5);
  g_assert_cmpfloat (r.seconds_max, ==, 0.5);
}

/* One graph, one planner, with the given time fields. */
static MpReport *
report (const char *times, GError **error)
{
  g_autofree char *text = g_strdup_printf (
    "{\"format\": \"memplan.report/1\", \"memplan_version\": \"0.1.0\", "
    "\"graphs\": [{\"name\": \"g\", \"file\": \"g.json\", "
    "\"tensors\": 2, \"records\": 2, \"steps\": 2, \"lower_bound\": 64, \"results\": ["
    "{\"planner\": \"naive\", \"arena\": 128, \"lower_bound\": 64, \"valid\": true, %s}]}]}",
    times);

  return mp_report_parse (text, strlen (text), "r.json", error);
}

static void
test_round_trip (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpReport) a = report ("\"seconds\": 0.002, \"runs\": 5, \"seconds_min\": 0.001, "
                                   "\"seconds_max\": 0.004", &error);
  g_autoptr (MpReport) old = NULL;
  g_autoptr (MpReport) b = NULL;
  g_autofree char *json = NULL;
  const MpReportResult *r;

  g_assert_no_error (error);
  json = mp_report_to_json (a);
  g_assert_nonnull (strstr (json, "\"runs\": 5"));
  b = mp_report_parse (json, strlen (json), "b.json", &error);
  g_assert_no_error (error);
  r = ((MpReportGraph *) b->graphs->pdata[0])->results->pdata[0];
  g_assert_cmpuint (r->runs, ==, 5);
  g_assert_cmpfloat (r->seconds, ==, 0.002);
  g_assert_cmpfloat (r->seconds_min, ==, 0.001);
  g_assert_cmpfloat (r->seconds_max, ==, 0.004);

  /* a report from before --repeat: one run, no spread, and none written back */
  old = report ("\"seconds\": 0.25", &error);
  g_assert_no_error (error);
  r = ((MpReportGraph *) old->graphs->pdata[0])->results->pdata[0];
  g_assert_cmpuint (r->runs, ==, 1);
  g_assert_cmpfloat (r->seconds_min, ==, 0.25);
  g_assert_cmpfloat (r->seconds_max, ==, 0.25);
  g_clear_pointer (&json, g_free);
  json = mp_report_to_json (old);
  g_assert_null (strstr (json, "runs"));
}

static void
test_bad (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpReport) outside = report ("\"seconds\": 0.5, \"runs\": 3, \"seconds_min\": 0.1, "
                                         "\"seconds_max\": 0.2", &error);
  g_autoptr (MpReport) zero = NULL;

  g_assert_null (outside);
  g_assert_cmpstr (error->message, ==, "r.json: graph 'g', planner 'naive': \"seconds\" 0.5 must "
                                       "lie between \"seconds_min\" 0.1 and \"seconds_max\" 0.2");
  g_clear_error (&error);
  zero = report ("\"seconds\": 0.5, \"runs\": 0", &error);
  g_assert_null (zero);
  g_assert_cmpstr (error->message, ==,
                   "r.json: graph 'g', planner 'naive': \"runs\" must be at least 1");
}

static MpTimeChange
time_change (const char *base_times, const char *new_times)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (MpReport) base = report (base_times, &error);
  g_autoptr (MpReport) new_report = report (new_times, &error);
  MpCompareOptions options;
  MpComparison    *c;
  MpTimeChange     change;

  g_assert_no_error (error);
  mp_compare_options_init (&options);
  c = mp_report_compare (base, new_report, &options);
  g_assert_cmpuint (c->rows->len, ==, 1);
  change = ((MpCompareRow *) c->rows->pdata[0])->time;
  mp_comparison_free (c);
  return change;
}

static void
test_compare_spread (void)
{
  /* the medians differ ninefold, but one noisy run of BASE reached NEW's */
  g_assert_cmpint (time_change ("\"seconds\": 0.002, \"runs\": 3, \"seconds_min\": 0.0015, "
                                "\"seconds_max\": 0.02",
                                "\"seconds\": 0.018, \"runs\": 3, \"seconds_min\": 0.017, "
                                "\"seconds_max\": 0.019"),
                   ==, MP_TIME_SAME);
  /* runs that do not overlap, beyond tolerance and floor: slower */
  g_assert_cmpint (time_change ("\"seconds\": 0.002, \"runs\": 3, \"seconds_min\": 0.0015, "
                                "\"seconds_max\": 0.0025",
                                "\"seconds\": 0.018, \"runs\": 3, \"seconds_min\": 0.017, "
                                "\"seconds_max\": 0.019"),
                   ==, MP_TIME_SLOWER);
  /* beyond the spread but within the tolerance (50%): the same */
  g_assert_cmpint (time_change ("\"seconds\": 0.010, \"runs\": 3, \"seconds_min\": 0.0099, "
                                "\"seconds_max\": 0.0101",
                                "\"seconds\": 0.013, \"runs\": 3, \"seconds_min\": 0.0129, "
                                "\"seconds_max\": 0.0131"),
                   ==, MP_TIME_SAME);
  /* single runs on both sides: the tolerance alone decides, as before */
  g_assert_cmpint (time_change ("\"seconds\": 0.002", "\"seconds\": 0.018"), ==, MP_TIME_SLOWER);
  /* one side repeated: its spread against the other's single time */
  g_assert_cmpint (time_change ("\"seconds\": 0.018",
                                "\"seconds\": 0.002, \"runs\": 3, \"seconds_min\": 0.0015, "
                                "\"seconds_max\": 0.02"),
                   ==, MP_TIME_SAME);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/report/repeat/median", test_median);
  g_test_add_func ("/analysis/report/repeat/round-trip", test_round_trip);
  g_test_add_func ("/analysis/report/repeat/bad", test_bad);
  g_test_add_func ("/analysis/report/repeat/compare-spread", test_compare_spread);
  return g_test_run ();
}
