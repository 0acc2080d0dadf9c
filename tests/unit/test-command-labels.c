/* SPDX-License-Identifier: Apache-2.0 */
/* test-command-labels.c: the labels of a command's experiments, from their folders' names.
 * Equal names are told apart by "#2", "#3"..., never by a label another experiment already has. */
#include "rolltrace/rt-command.h"

static void
expect_labels (const char *const *names, const char *const *want)
{
  guint n = g_strv_length ((GStrv) names);
  g_auto (GStrv) labels = rt_experiment_labels (names, n);
  g_assert_cmpuint (g_strv_length (labels), ==, n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (labels[i], ==, want[i]);
}

static void
test_distinct_names_are_their_own_labels (void)
{
  expect_labels ((const char *[]) { "run-a", "run-b", NULL }, (const char *[]) { "run-a", "run-b", NULL });
}

static void
test_equal_names_are_numbered_from_the_second (void)
{
  expect_labels ((const char *[]) { "exp", "other", "exp", "exp", NULL },
                 (const char *[]) { "exp", "other", "exp#2", "exp#3", NULL });
}

static void
test_a_number_already_taken_is_skipped (void)
{
  /* a folder really named "exp#2" keeps its name; the second "exp" takes the next free one */
  expect_labels ((const char *[]) { "exp#2", "exp", "exp", NULL },
                 (const char *[]) { "exp#2", "exp", "exp#3", NULL });
  /* and one that comes after the numbered one is numbered in turn */
  expect_labels ((const char *[]) { "exp", "exp", "exp#2", NULL },
                 (const char *[]) { "exp", "exp#2", "exp#2#2", NULL });
}

static void
test_no_experiment_no_label (void)
{
  g_auto (GStrv) labels = rt_experiment_labels ((const char *[]) { NULL }, 0);
  g_assert_nonnull (labels);
  g_assert_null (labels[0]);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/labels/distinct", test_distinct_names_are_their_own_labels);
  g_test_add_func ("/labels/equal-names-numbered", test_equal_names_are_numbered_from_the_second);
  g_test_add_func ("/labels/taken-number-skipped", test_a_number_already_taken_is_skipped);
  g_test_add_func ("/labels/none", test_no_experiment_no_label);
  return g_test_run ();
}
