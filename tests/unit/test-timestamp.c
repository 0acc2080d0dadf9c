/* SPDX-License-Identifier: Apache-2.0 */
/* test-timestamp.c: the logger's zone-less ISO-8601 times, with and without a fraction.
 * Only differences matter, so the tests compare differences worked out by hand. */
#include <math.h>
#include <string.h>

#include "rolltrace/rt-trace.h"
/* the loader's inline reading of the usual timestamp, and its microseconds without a division */
#include "timestamp-private.h"

static double
ts (const char *s)
{
  double v;
  g_assert_true (rt_parse_timestamp (s, strlen (s), &v));
  return v;
}

static void
test_missing_fraction_means_zero (void)
{
  /* a double holds 2025 (in seconds since 2020) to about 3e-8 s */
  g_assert_cmpfloat_with_epsilon (ts ("2025-06-10T09:00:11.000001") - ts ("2025-06-10T09:00:11"), 1e-6, 1e-7);
}

static void
test_short_fractions_are_scaled (void)
{
  g_assert_cmpfloat_with_epsilon (ts ("2025-06-10T09:00:11.5") - ts ("2025-06-10T09:00:11"), 0.5, 1e-9);
  g_assert_cmpfloat_with_epsilon (ts ("2025-06-10T09:00:11.25") - ts ("2025-06-10T09:00:11"), 0.25, 1e-9);
}

static void
test_microseconds_survive_in_a_double (void)
{
  double a = ts ("2025-07-13T11:04:25.706221"), b = ts ("2025-07-13T11:04:25.706222");
  g_assert_cmpfloat_with_epsilon (b - a, 1e-6, 1e-7);
}

static void
test_day_month_and_leap_year_boundaries (void)
{
  g_assert_cmpfloat (ts ("2025-01-01T00:00:00") - ts ("2024-12-31T23:59:59"), ==, 1);
  g_assert_cmpfloat (ts ("2024-03-01T00:00:00") - ts ("2024-02-28T00:00:00"), ==, 2 * 86400);
  g_assert_cmpfloat (ts ("2025-03-01T00:00:00") - ts ("2025-02-28T00:00:00"), ==, 86400);
  g_assert_cmpfloat (ts ("2020-01-01T00:00:00"), ==, 0);
}

static void
test_a_space_may_separate_date_and_time (void)
{
  g_assert_cmpfloat (ts ("2025-06-10 09:00:11"), ==, ts ("2025-06-10T09:00:11"));
}

static void
test_anything_else_is_refused (void)
{
  const char *bad[] = { "", "2025-06-10", "2025-06-10T09:00", "2025-13-10T09:00:00",
                        "2025-06-10T25:00:00", "2025-06-10T09:00:00.", "2025-06-10T09:00:00Z",
                        "yesterday at noon", "2025/06/10T09:00:00" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      double v;
      g_assert_false (rt_parse_timestamp (bad[i], strlen (bad[i]), &v));
    }
}

static void
test_finish_reason_short_form (void)
{
  g_assert_cmpstr (rt_finish_reason_short ("FinishReasonTypeEnum.STOP"), ==, "STOP");
  g_assert_cmpstr (rt_finish_reason_short ("stop"), ==, "stop");
  g_assert_null (rt_finish_reason_short (NULL));
}

/* Six digits of fraction, the logger's usual form, read as any other number of them is:
 * each is the same time as its seven-digit form (a seventh digit is cut off), and a
 * fraction with anything but a digit in any of its six places is refused. */
static void
test_six_digit_fractions_read_like_the_rest (void)
{
  g_autoptr (GRand) r = g_rand_new_with_seed (16);
  for (guint i = 0; i < 100000; i++)
    {
      char six[32], seven[32];
      int sec = g_rand_int_range (r, 0, 61);
      guint32 micros = (guint32) g_rand_int_range (r, 0, 1000000);
      g_snprintf (six, sizeof six, "2025-06-10T09:00:%02d.%06u", sec, micros);
      g_snprintf (seven, sizeof seven, "%s%u", six, micros % 10);
      double a, b;
      g_assert_true (rt_parse_timestamp (six, strlen (six), &a));
      g_assert_true (rt_parse_timestamp (seven, strlen (seven), &b));
      g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
    }
  const char not_digits[] = { '/', ':', 'a', ' ', '.', '-', (char) 0xb0, '\0' };
  for (int place = 0; place < 6; place++)
    for (guint k = 0; k < G_N_ELEMENTS (not_digits); k++)
      {
        char t[] = "2025-06-10T09:00:12.123456";
        t[20 + place] = not_digits[k];
        double v;
        g_assert_false (rt_parse_timestamp (t, sizeof t - 1, &v));
      }
}

/* The memo must never change an answer: a sequence with minute, hour, day and year
 * changes, repeated minutes and seconds, and bad strings in between (which must not poison
 * it, nor a bad fraction after a good second). */
static void
test_the_minute_memo_gives_the_same_answers (void)
{
  static const char *const seq[] = {
    "2025-06-10T09:00:11.000001", "2025-06-10T09:00:59.999999", "2025-06-10T09:01:00",
    "2025-06-10T09:01:00.5", "2025-06-10 09:01:07.25", "2025-06-10T09:01:61",
    "2025-06-10T09:01:7", "2025-06-10T09:01:07Z", "2025-06-10T09:01", "not a time at all!!",
    "2025-06-10T09:01:08.", "2025-06-10T09:59:59.123456", "2025-06-10T10:00:00.000001",
    "2025-06-10T23:59:60", "2025-06-11T00:00:00", "2025-13-11T00:00:00", "2025-06-11T00:00:01",
    "2024-12-31T23:59:59.999999", "2025-01-01T00:00:00", "2025-01-01T00:00:00.0000009",
    "2025-01-01T00:0x:00", "2025-01-01T00:00:00",
    "2025-01-01T00:00:08.", "2025-01-01T00:00:08.5", "2025-01-01T00:00:61.5", "2025-01-01T00:00:08.25",
    "2025-01-01T00:00:6x.5", "2025-01-01T00:00:60.5", "2025-01-01T00:01:60.5", "2025-01-01T00:00:60.5",
  };
  RtTimestampMemo memo = { .valid = FALSE };
  for (guint i = 0; i < G_N_ELEMENTS (seq); i++)
    {
      double plain = -1, memoized = -2;
      gboolean ok_plain = rt_parse_timestamp (seq[i], strlen (seq[i]), &plain);
      gboolean ok_memo = rt_parse_timestamp_memo (seq[i], strlen (seq[i]), &memo, &memoized);
      g_assert_cmpint (ok_plain, ==, ok_memo);
      if (ok_plain)
        g_assert_cmpmem (&plain, sizeof plain, &memoized, sizeof memoized);
    }
}

/* Every six-digit fraction gives the seconds the division gives, bit for bit: the loader's
 * microseconds are made without one (rt_timestamp_micros_s), checked here for each of the
 * million values it can be given, alone and in a timestamp read by the loader's inline path
 * (its memo set by the second before) and by the library's. */
static void
test_every_fraction_reads_as_the_division (void)
{
  char text[32];
  double second = ts ("2025-06-10T09:00:12");
  RtTimestampMemo memo = { .valid = FALSE };
  double got;
  g_assert_true (rt_parse_timestamp_memo ("2025-06-10T09:00:12.000000", 26, &memo, &got));
  for (guint32 x = 0; x < 1000000; x++)
    {
      double want = (double) x / 1e6, alone = rt_timestamp_micros_s (x);
      if (memcmp (&alone, &want, sizeof want) != 0)
        g_error ("%06u microseconds: %.17g, the division %.17g", x, alone, want);
      g_snprintf (text, sizeof text, "2025-06-10T09:00:12.%06u", x);
      double inline_read = -1, library_read = -1, whole = second + want;
      g_assert_true (rt_timestamp_memo_read (text, 26, &memo, &inline_read));
      g_assert_true (rt_parse_timestamp (text, 26, &library_read));
      if (memcmp (&inline_read, &whole, sizeof whole) != 0 || memcmp (&library_read, &whole, sizeof whole) != 0)
        g_error ("%s: %.17g inline, %.17g by the library, %.17g wanted", text, inline_read, library_read, whole);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/timestamp/missing-fraction-means-zero", test_missing_fraction_means_zero);
  g_test_add_func ("/timestamp/short-fractions-are-scaled", test_short_fractions_are_scaled);
  g_test_add_func ("/timestamp/microseconds-survive", test_microseconds_survive_in_a_double);
  g_test_add_func ("/timestamp/day-month-leap-year", test_day_month_and_leap_year_boundaries);
  g_test_add_func ("/timestamp/space-separator", test_a_space_may_separate_date_and_time);
  g_test_add_func ("/timestamp/anything-else-is-refused", test_anything_else_is_refused);
  g_test_add_func ("/timestamp/finish-reason-short-form", test_finish_reason_short_form);
  g_test_add_func ("/timestamp/six-digit-fractions-read-like-the-rest", test_six_digit_fractions_read_like_the_rest);
  g_test_add_func ("/timestamp/every-fraction-reads-as-the-division", test_every_fraction_reads_as_the_division);
  g_test_add_func ("/timestamp/the-minute-memo-gives-the-same-answers",
                   test_the_minute_memo_gives_the_same_answers);
  return g_test_run ();
}
