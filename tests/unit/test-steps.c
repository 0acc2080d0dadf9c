/* SPDX-License-Identifier: Apache-2.0 */
/* test-steps.c: the --steps SPEC grammar shared by every command.
 * Accepts N, A-B, A- and commas; anything else is a usage error naming the bad piece.
 * And the whole-number options (--step, --top...). */
#define _GNU_SOURCE
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-steps.h"

#include <dlfcn.h>
#include <errno.h>
#include <locale.h>
#include <string.h>

static void
test_no_spec_selects_every_step (void)
{
  g_autoptr (RtStepSet) all = rt_step_set_parse (NULL, NULL);
  g_assert_true (rt_step_set_is_all (all));
  g_assert_true (rt_step_set_contains (all, 0) && rt_step_set_contains (all, 123456));
}

static void
test_an_empty_spec_is_a_usage_error (void)
{
  /* `--steps "$STEPS"` with STEPS unset must not quietly mean every step */
  const char *specs[] = { "", " ", "," };
  for (guint i = 0; i < G_N_ELEMENTS (specs); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RtStepSet) set = rt_step_set_parse (specs[i], &error);
      g_assert_null (set);
      g_assert_error (error, RT_ERROR, RT_ERROR_USAGE);
    }
}

static void
test_single_step_and_ranges (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (RtStepSet) set = rt_step_set_parse ("3,10-12,50-", &error);
  g_assert_no_error (error);
  g_assert_false (rt_step_set_is_all (set));
  g_assert_true (rt_step_set_contains (set, 3));
  g_assert_false (rt_step_set_contains (set, 4));
  g_assert_true (rt_step_set_contains (set, 10) && rt_step_set_contains (set, 12));
  g_assert_false (rt_step_set_contains (set, 13));
  g_assert_false (rt_step_set_contains (set, 49));
  g_assert_true (rt_step_set_contains (set, 50) && rt_step_set_contains (set, 100000));
}

static void
test_spaces_around_pieces_are_allowed (void)
{
  g_autoptr (RtStepSet) set = rt_step_set_parse (" 2 , 5-6 ", NULL);
  g_assert_nonnull (set);
  g_assert_true (rt_step_set_contains (set, 2) && rt_step_set_contains (set, 6));
}

static void
test_bad_specs_are_usage_errors (void)
{
  const char *bad[] = { "x", "5-3", "-3", "1,,2", "1-2-3", "3.5", "1;2", "99999999999" };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RtStepSet) set = rt_step_set_parse (bad[i], &error);
      g_assert_null (set);
      g_assert_error (error, RT_ERROR, RT_ERROR_USAGE);
      g_assert_nonnull (strstr (error->message, "--steps"));
    }
}

/* GLib's g_ascii_strtoll calls strtoll_l; this one, in the test program, is called in its
 * place, and leaves errno at EAGAIN after a good conversion, as a futex wait inside GLib's
 * first use of its C locale can when another thread takes it at the same moment. */
long long strtoll_l (const char *s, char **end, int base, locale_t locale);

long long
strtoll_l (const char *s, char **end, int base, locale_t locale)
{
  static long long (*real) (const char *, char **, int, locale_t);
  if (real == NULL)
    real = (long long (*) (const char *, char **, int, locale_t)) dlsym (RTLD_NEXT, "strtoll_l");
  long long v = real (s, end, base, locale);
  errno = EAGAIN;
  return v;
}

/* A whole-number option: an optional sign and decimal digits, within the bounds given, read
 * whatever errno the C library leaves (the strtoll_l above); anything else a usage error
 * naming the option. */
static void
test_whole_number_options (void)
{
  /* the wrapper above is the one GLib calls */
  errno = 0;
  g_assert_cmpint (g_ascii_strtoll ("7", NULL, 10), ==, 7);
  g_assert_cmpint (errno, ==, EAGAIN);

  const struct { const char *text; gint64 min, max, want; } good[] = {
    { "1", 0, G_MAXINT32, 1 },
    { "0", 0, G_MAXINT32, 0 },
    { "+3", 0, 10, 3 },
    { "-0", 0, 10, 0 },
    { "007", 0, 10, 7 },
    { "-5", -10, 10, -5 },
    { "2147483647", 0, G_MAXINT32, G_MAXINT32 },
    { "9223372036854775807", 0, G_MAXINT64, G_MAXINT64 },
    { "-9223372036854775808", G_MININT64, 0, G_MININT64 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_autoptr (GError) error = NULL;
      gint64 v = -1;
      g_assert_true (rt_parse_int_option ("--step", good[i].text, good[i].min, good[i].max, &v, &error));
      g_assert_no_error (error);
      g_assert_cmpint (v, ==, good[i].want);
    }
  const struct { const char *text; gint64 min, max; } bad[] = {
    { "", 0, 10 }, { " 1", 0, 10 }, { "1 ", 0, 10 }, { "+", 0, 10 }, { "-", 0, 10 },
    { "1x", 0, 10 }, { "0x10", 0, 100 }, { "--1", -10, 10 }, { "+-1", -10, 10 }, { "1.0", 0, 10 },
    { "11", 0, 10 }, { "-1", 0, 10 }, { "2147483648", 0, G_MAXINT32 },
    { "9223372036854775808", 0, G_MAXINT64 }, { "-9223372036854775809", G_MININT64, 0 },
    { "99999999999999999999999", 0, G_MAXINT64 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr (GError) error = NULL;
      gint64 v = 42;
      g_assert_false (rt_parse_int_option ("--top", bad[i].text, bad[i].min, bad[i].max, &v, &error));
      g_assert_error (error, RT_ERROR, RT_ERROR_USAGE);
      g_assert_nonnull (strstr (error->message, "--top"));
      g_assert_cmpint (v, ==, 42);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/steps/no-spec-selects-every-step", test_no_spec_selects_every_step);
  g_test_add_func ("/steps/an-empty-spec-is-a-usage-error", test_an_empty_spec_is_a_usage_error);
  g_test_add_func ("/steps/single-step-and-ranges", test_single_step_and_ranges);
  g_test_add_func ("/steps/spaces-around-pieces", test_spaces_around_pieces_are_allowed);
  g_test_add_func ("/steps/bad-specs-are-usage-errors", test_bad_specs_are_usage_errors);
  g_test_add_func ("/steps/whole-number-options", test_whole_number_options);
  return g_test_run ();
}
