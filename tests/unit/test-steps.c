/* test-steps.c: the --steps SPEC grammar shared by every command.
 * Accepts N, A-B, A- and commas; anything else is a usage error naming the bad piece. */
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-steps.h"

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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/steps/no-spec-selects-every-step", test_no_spec_selects_every_step);
  g_test_add_func ("/steps/an-empty-spec-is-a-usage-error", test_an_empty_spec_is_a_usage_error);
  g_test_add_func ("/steps/single-step-and-ranges", test_single_step_and_ranges);
  g_test_add_func ("/steps/spaces-around-pieces", test_spaces_around_pieces_are_allowed);
  g_test_add_func ("/steps/bad-specs-are-usage-errors", test_bad_specs_are_usage_errors);
  return g_test_run ();
}
