/* SPDX-License-Identifier: Apache-2.0 */
/* test-trainlog.c: reading verl's console log lines, one quirk per test.
 * Values as Python prints them, Ray prefixes, colours, progress bars, restarts. */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "rolltrace/rt-trace.h"
#include "rolltrace/rt-trainlog.h"

static double
value (const char *s)
{
  double v;
  g_assert_true (rt_parse_metric_value (s, strlen (s), &v));
  return v;
}

static void
test_values_as_python_prints_them (void)
{
  g_assert_cmpfloat (value ("50.12"), ==, 50.12);
  g_assert_cmpfloat (value ("3"), ==, 3);
  g_assert_cmpfloat (value ("1e-05"), ==, 1e-05);
  g_assert_cmpfloat (value ("-2.5"), ==, -2.5);
  g_assert_cmpfloat (value ("np.float64(0.5)"), ==, 0.5);
  g_assert_cmpfloat (value ("np.int64(3)"), ==, 3);
  g_assert_cmpfloat (value (" 7.0 "), ==, 7.0);
  g_assert_true (isnan (value ("nan")));
  g_assert_true (isnan (value ("inf")));
  g_assert_true (isnan (value ("-inf")));
  g_assert_true (isnan (value ("np.float64(nan)")));
}

static void
test_non_numbers_are_refused (void)
{
  const char *bad[] = { "gsm8k", "", "[1, 2]", "np.float64(", "1.5x", "None" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      double v;
      g_assert_false (rt_parse_metric_value (bad[i], strlen (bad[i]), &v));
    }
}

static gboolean
feed (RtTrainLog *log, const char *line)
{
  return rt_train_log_feed_line (log, line, strlen (line));
}

static void
test_a_plain_metric_line (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  g_assert_true (feed (log, "step:12 - timing_s/gen:50.12 - perf/throughput:1234.5 - critic/score/mean:0.62"));
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/gen"), 12), ==, 50.12);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "critic/score/mean"), 12), ==, 0.62);
  g_assert_true (isnan (rt_metric_at (rt_train_log_metric (log, "timing_s/gen"), 11)));
}

static void
test_ray_prefix_and_colours_are_skipped (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  g_assert_true (feed (log, "\x1b[36m(TaskRunner pid=2255265)\x1b[0m step:3 - a/b:1.5"));
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "a/b"), 3), ==, 1.5);
}

static void
test_progress_bar_before_a_carriage_return (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  g_assert_true (feed (log, "Training Progress:  33%|###3 | 1/3 [01:30<03:00]\r(TaskRunner pid=1) step:2 - x:4"));
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "x"), 2), ==, 4);
}

static void
test_the_later_value_of_a_repeated_step_wins (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  feed (log, "step:2 - x:1 - y:5");
  feed (log, "step:2 - x:9");
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "x"), 2), ==, 9);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "y"), 2), ==, 5);   /* not repeated: kept */
}

static void
test_lines_that_only_mention_step_are_ignored (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  g_assert_false (feed (log, "RuntimeError: step:3 - timing_s/gen:50"));
  g_assert_false (feed (log, "WARNING: the word step: alone"));
  g_assert_false (feed (log, "step:4"));
  g_assert_false (feed (log, "step:x - a:1"));
  g_assert_false (feed (log, "step:5 - name:only-text"));
  g_assert_cmpuint (g_hash_table_size (log->metrics), ==, 0);
}

/* A step line broken in two when the log was copied: the second line only continues it, and is
 * joined, whichever side of the break kept the separator (or a blank of it). */
static void
test_a_line_broken_at_a_separator_is_joined (void)
{
  const char *const broken[][2] = {
    { "step:2 - a:1 -", "timing_s/gen:5.5 - timing_s/step:9" },     /* the separator ends the first */
    { "step:2 - a:1 ", " - timing_s/gen:5.5 - timing_s/step:9" },   /* a web page's wrap at a blank */
    { "step:2 - a:1", "- timing_s/gen:5.5 - timing_s/step:9" },
    { "\x1b[36m(TaskRunner pid=7)\x1b[0m step:2 - a:1 - ", "\x1b[0mtiming_s/gen:5.5 - timing_s/step:9" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (broken); i++)
    {
      g_autoptr (RtTrainLog) log = rt_train_log_new ();
      g_assert_true (feed (log, broken[i][0]));
      g_assert_false (feed (log, broken[i][1]));   /* no step line of its own */
      g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "a"), 2), ==, 1);
      g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/gen"), 2), ==, 5.5);
      g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/step"), 2), ==, 9);
      g_assert_cmpuint (log->joined_lines, ==, 1);
      g_assert_cmpuint (log->cut_lines, ==, 0);
      g_assert_cmpuint (log->steps->len, ==, 1);
      g_assert_cmpuint (log->lines, ==, 2);
    }
}

/* A break inside a name or a value: the pieces are joined as they stand, and the join is
 * counted and listed with its line; the later, whole value replaces the cut one. */
static void
test_a_name_or_value_cut_by_the_break_is_joined_and_listed (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  feed (log, "step:3 - a:1 - timing_s/ge");
  feed (log, "n:12.5 - timing_s/update_actor:3");
  feed (log, "0.25 - timing_s/step:4");
  feed (log, "0");
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/gen"), 3), ==, 12.5);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/update_actor"), 3), ==, 30.25);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/step"), 3), ==, 40);
  g_assert_null (rt_train_log_metric (log, "timing_s/ge"));
  g_assert_null (rt_train_log_metric (log, "n"));
  g_assert_cmpuint (log->joined_lines, ==, 3);
  g_assert_cmpuint (log->cut_lines, ==, 3);
  g_assert_cmpuint (log->cuts->len, ==, 3);
  const RtTrainCut *c = &g_array_index (log->cuts, RtTrainCut, 0);
  g_assert_cmpuint (c->line, ==, 2);
  g_assert_cmpint (c->step, ==, 3);
  g_assert_cmpstr (c->text, ==, "timing_s/gen:12.5");
  g_assert_true (c->kept);
  g_assert_cmpstr (g_array_index (log->cuts, RtTrainCut, 2).text, ==, "timing_s/step:40");
  g_autofree char *note = rt_train_log_describe_joins (log);
  g_assert_nonnull (strstr (note, "line 2 (step 3) 'timing_s/gen:12.5'"));
}

/* A step line whose every item comes after the break is a step all the same. */
static void
test_a_step_line_with_all_its_values_after_the_break (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  g_assert_false (feed (log, "step:4 - timing_s/g"));
  g_assert_cmpuint (log->steps->len, ==, 0);
  feed (log, "en:7");
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/gen"), 4), ==, 7);
  g_assert_cmpuint (log->steps->len, ==, 1);
  g_assert_cmpuint (log->metric_lines, ==, 1);
}

/* A join that reads as no value (the separator itself was lost) is listed as not kept; what
 * stood before the break stays as read. */
static void
test_a_join_that_is_no_value_is_listed (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  feed (log, "step:6 - timing_s/gen:53.0");
  feed (log, "timing_s/update_actor:35.0 - timing_s/step:96");
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/gen"), 6), ==, 53);
  g_assert_null (rt_train_log_metric (log, "timing_s/update_actor"));
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/step"), 6), ==, 96);
  g_assert_cmpuint (log->cut_lines, ==, 1);
  g_assert_false (g_array_index (log->cuts, RtTrainCut, 0).kept);
  g_autofree char *note = rt_train_log_describe_joins (log);
  g_assert_nonnull (strstr (note, "'timing_s/gen:53.0timing_s/update_actor:35.0', no value"));
}

/* What follows a step line and is no continuation ends it: a progress bar, text, a blank line,
 * a Ray-prefixed line, pieces of a progress bar, an empty item; a line after them is not
 * joined. A new step line takes the lines after it. */
static void
test_other_lines_end_a_step_line (void)
{
  const char *const others[] = {
    "Training Progress:  33%|###3      | 1/3 [01:30<03:00]", "", "epoch 1 done",
    "(TaskRunner pid=7) saving the checkpoint", "x:1\ry:2", "a:1 -  - b:2",
  };
  for (guint i = 0; i < G_N_ELEMENTS (others); i++)
    {
      g_autoptr (RtTrainLog) log = rt_train_log_new ();
      feed (log, "step:2 - a:1 -");
      feed (log, others[i]);
      feed (log, "c:3");
      g_assert_null (rt_train_log_metric (log, "c"));
      g_assert_cmpuint (log->joined_lines, ==, 0);
    }
  g_autoptr (RtTrainLog) next = rt_train_log_new ();
  feed (next, "step:2 - a:1 -");
  feed (next, "step:3 - b:2 -");
  feed (next, "c:3");
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (next, "c"), 3), ==, 3);
  g_assert_true (isnan (rt_metric_at (rt_train_log_metric (next, "c"), 2)));

  /* "step:N" inside a name is no step line: timing_s/step continues step 2 */
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  feed (log, "step:2 - a:1 -");
  feed (log, "timing_s/step:90");
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "timing_s/step"), 2), ==, 90);
  g_assert_null (rt_train_log_metric (log, "timing_s/step:90"));
}

/* Pieces without end after a step line (a hostile log): the item they build stops growing at
 * RT_TRAIN_MAX_ITEM, and the cuts kept at RT_TRAIN_MAX_CUTS, however long the log. */
static void
test_joins_are_bounded (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  feed (log, "step:1 - a:1 - b");
  for (guint i = 0; i < 100000; i++)
    feed (log, "xxxxxxxx");
  g_assert_cmpuint (log->open_item->len, <=, RT_TRAIN_MAX_ITEM);
  g_assert_cmpuint (log->cut_lines, <, RT_TRAIN_MAX_ITEM);
  for (guint i = 0; i < 100000; i++)
    {
      feed (log, "step:1 - a:1 - b:");
      feed (log, "2");
    }
  g_assert_cmpuint (log->cuts->len, ==, RT_TRAIN_MAX_CUTS);
  g_assert_cmpuint (log->cut_lines, >=, 100000);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "b"), 1), ==, 2);
}

/* Writes `text` to a new file and reads it back as a log with lines of at most `line_max` bytes. */
static RtTrainLog *
read_text (const char *text, gsize line_max)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("rt-trainlog-XXXXXX.log", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_file_set_contents (path, text, -1, &error);
  g_assert_no_error (error);
  RtTrainLog *log = rt_train_log_read_with_limit (path, line_max, &error);
  g_assert_no_error (error);
  g_unlink (path);
  return log;
}

static void
test_a_line_of_the_limit_is_read (void)
{
  /* "step:1 - a:1" is 12 bytes: read with a limit of 12, with and without its newline */
  g_autoptr (RtTrainLog) log = read_text ("step:1 - a:1\nstep:2 - a:2", 12);
  g_assert_cmpuint (log->lines, ==, 2);
  g_assert_cmpuint (log->long_lines, ==, 0);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "a"), 2), ==, 2);
}

static void
test_a_line_past_the_limit_is_counted_and_skipped (void)
{
  /* the second line is 13 bytes, one past the limit; the lines around it are still read */
  g_autoptr (RtTrainLog) log = read_text ("step:1 - a:1\nstep:2 - a:22\nstep:3 - a:3\n", 12);
  g_assert_cmpuint (log->lines, ==, 3);
  g_assert_cmpuint (log->long_lines, ==, 1);
  g_assert_cmpuint (log->first_long_line, ==, 2);
  g_assert_true (isnan (rt_metric_at (rt_train_log_metric (log, "a"), 2)));
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "a"), 3), ==, 3);
  g_assert_cmpuint (log->steps->len, ==, 2);
}

static void
test_a_long_line_spanning_many_reads (void)
{
  /* 1000 bytes without a newline against a buffer of 13 bytes: skipped piece by piece, and
   * the line after it, which starts inside the read that found the newline, is whole */
  g_autoptr (GString) text = g_string_new ("step:1 - a:1\n");
  for (guint i = 0; i < 1000; i++)
    g_string_append_c (text, i % 2 ? 'x' : '\r');
  g_string_append (text, "\nstep:2 - a:2\n");
  g_autoptr (RtTrainLog) log = read_text (text->str, 12);
  g_assert_cmpuint (log->lines, ==, 3);
  g_assert_cmpuint (log->long_lines, ==, 1);
  g_assert_cmpuint (log->first_long_line, ==, 2);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "a"), 2), ==, 2);
}

static void
test_a_long_last_line_without_newline (void)
{
  g_autoptr (RtTrainLog) log = read_text ("step:1 - a:1\nstep:2 - a:2 - b:3", 12);
  g_assert_cmpuint (log->lines, ==, 2);
  g_assert_cmpuint (log->long_lines, ==, 1);
  g_assert_cmpuint (log->steps->len, ==, 1);
  g_assert_null (rt_train_log_metric (log, "b"));
}

static void
test_every_line_long (void)
{
  g_autoptr (RtTrainLog) log = read_text ("step:1 - a:10\nstep:2 - a:20\n", 4);
  g_assert_cmpuint (log->lines, ==, 2);
  g_assert_cmpuint (log->long_lines, ==, 2);
  g_assert_cmpuint (log->first_long_line, ==, 1);
  g_assert_cmpuint (log->steps->len, ==, 0);
}

/* The real limit: a sparse file of RT_LINE_MAX + 1 NUL bytes (what a crash leaves), then a
 * good line. The NUL line is not held: it is counted, and the line after it read. */
static void
test_nul_bytes_past_the_real_limit (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("rt-trainlog-XXXXXX.log", &path, &error);
  g_assert_no_error (error);
  const char good[] = "\nstep:7 - a:1.5\n";
  g_assert_cmpint (ftruncate (fd, (off_t) RT_LINE_MAX + 1), ==, 0);
  g_assert_cmpint (pwrite (fd, good, sizeof good - 1, (off_t) RT_LINE_MAX + 1), ==, (gssize) sizeof good - 1);
  close (fd);
  g_autoptr (RtTrainLog) log = rt_train_log_read (path, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_assert_cmpuint (log->lines, ==, 2);
  g_assert_cmpuint (log->long_lines, ==, 1);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "a"), 7), ==, 1.5);
}

/* A log of one metric line repeated without end keeps a point per step, not per line:
 * memory follows the steps, never the length of the log. */
static void
test_repeated_steps_are_folded (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  for (guint i = 0; i < 100000; i++)
    {
      g_autofree char *line = g_strdup_printf ("step:%u - a:%u", 1 + i % 3, i);
      feed (log, line);
    }
  const RtMetric *a = rt_train_log_metric (log, "a");
  g_assert_cmpuint (a->points->len, <=, 2 * 3 + 64);
  g_assert_cmpuint (log->steps->len, <=, 2 * 3 + 64);
  /* the last value of each step wins, folded or not */
  g_assert_cmpfloat (rt_metric_at (a, 1), ==, 99999);
  g_assert_cmpfloat (rt_metric_at (a, 2), ==, 99997);
  g_assert_cmpfloat (rt_metric_at (a, 3), ==, 99998);
  g_assert_cmpuint (a->points->len, ==, 3);
}

/* Past RT_TRAIN_MAX_METRICS distinct names, a new name's values are counted, not kept;
 * the names already known go on being read. */
static void
test_names_past_the_limit_are_counted (void)
{
  g_autoptr (RtTrainLog) log = rt_train_log_new ();
  g_autoptr (GString) line = g_string_new ("step:1");
  for (guint i = 0; i < RT_TRAIN_MAX_METRICS + 5; i++)
    g_string_append_printf (line, " - m%u:%u", i, i);
  g_assert_true (feed (log, line->str));
  g_assert_true (feed (log, "step:2 - m0:7 - other:1"));
  g_assert_cmpuint (g_hash_table_size (log->metrics), ==, RT_TRAIN_MAX_METRICS);
  g_assert_cmpuint (log->dropped_values, ==, 6);
  g_assert_cmpfloat (rt_metric_at (rt_train_log_metric (log, "m0"), 2), ==, 7);
  g_autofree char *last = g_strdup_printf ("m%u", RT_TRAIN_MAX_METRICS - 1);
  g_assert_nonnull (rt_train_log_metric (log, last));
  g_assert_null (rt_train_log_metric (log, "other"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/trainlog/values-as-python-prints-them", test_values_as_python_prints_them);
  g_test_add_func ("/trainlog/non-numbers-are-refused", test_non_numbers_are_refused);
  g_test_add_func ("/trainlog/a-plain-metric-line", test_a_plain_metric_line);
  g_test_add_func ("/trainlog/ray-prefix-and-colours-are-skipped", test_ray_prefix_and_colours_are_skipped);
  g_test_add_func ("/trainlog/progress-bar-before-a-carriage-return", test_progress_bar_before_a_carriage_return);
  g_test_add_func ("/trainlog/the-later-value-of-a-repeated-step-wins", test_the_later_value_of_a_repeated_step_wins);
  g_test_add_func ("/trainlog/lines-that-only-mention-step-are-ignored", test_lines_that_only_mention_step_are_ignored);
  g_test_add_func ("/trainlog/a-line-broken-at-a-separator-is-joined", test_a_line_broken_at_a_separator_is_joined);
  g_test_add_func ("/trainlog/a-name-or-value-cut-by-the-break-is-joined-and-listed",
                   test_a_name_or_value_cut_by_the_break_is_joined_and_listed);
  g_test_add_func ("/trainlog/a-step-line-with-all-its-values-after-the-break",
                   test_a_step_line_with_all_its_values_after_the_break);
  g_test_add_func ("/trainlog/a-join-that-is-no-value-is-listed", test_a_join_that_is_no_value_is_listed);
  g_test_add_func ("/trainlog/other-lines-end-a-step-line", test_other_lines_end_a_step_line);
  g_test_add_func ("/trainlog/joins-are-bounded", test_joins_are_bounded);
  g_test_add_func ("/trainlog/a-line-of-the-limit-is-read", test_a_line_of_the_limit_is_read);
  g_test_add_func ("/trainlog/a-line-past-the-limit-is-counted-and-skipped",
                   test_a_line_past_the_limit_is_counted_and_skipped);
  g_test_add_func ("/trainlog/a-long-line-spanning-many-reads", test_a_long_line_spanning_many_reads);
  g_test_add_func ("/trainlog/a-long-last-line-without-newline", test_a_long_last_line_without_newline);
  g_test_add_func ("/trainlog/every-line-long", test_every_line_long);
  g_test_add_func ("/trainlog/nul-bytes-past-the-real-limit", test_nul_bytes_past_the_real_limit);
  g_test_add_func ("/trainlog/repeated-steps-are-folded", test_repeated_steps_are_folded);
  g_test_add_func ("/trainlog/names-past-the-limit-are-counted", test_names_past_the_limit_are_counted);
  return g_test_run ();
}
