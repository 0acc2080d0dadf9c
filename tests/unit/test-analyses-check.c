/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-check.c: rt_check_analyse on the hand-checked fixtures: the inventory of the
 * steps chosen, the worker files missing from them, and which bad lines belong to them. */
#include <string.h>

#include "rolltrace/rt-analyses.h"
#include "test-util.h"

static RtTrace *
load_fixture (const char *name, guint max_problems_per_file)
{
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, name, NULL);
  return rt_test_load_with (path, max_problems_per_file);
}

static void
assert_missing (const RtCheck *c, guint i, gint32 step, gint32 worker)
{
  g_assert_cmpuint (i, <, c->missing->len);
  g_assert_cmpint (g_array_index (c->missing, RtMissingFile, i).step, ==, step);
  g_assert_cmpint (g_array_index (c->missing, RtMissingFile, i).worker, ==, worker);
}

/* 2 steps, 2 workers, 3 files, 10 + 5 + 5 = 20 lines, all events; 4 requests; worker 1 is
 * missing from step 2. */
static void
test_hand_v2_inventory (void)
{
  g_autoptr (RtTrace) t = load_fixture ("hand-v2", 100);
  g_autoptr (RtCheck) c = rt_check_analyse (t, NULL);
  g_assert_cmpuint (c->n_steps, ==, 2);
  g_assert_cmpint (c->step_min, ==, 1);
  g_assert_cmpint (c->step_max, ==, 2);
  g_assert_cmpuint (c->max_workers, ==, 2);
  g_assert_cmpuint (c->files, ==, 3);
  g_assert_cmpuint (c->lines, ==, 20);
  g_assert_cmpuint (c->events, ==, 20);
  g_assert_cmpuint (c->bad_lines, ==, 0);
  g_assert_cmpuint (c->requests, ==, 4);
  g_assert_cmpstr (rt_schema_name (c->schema), ==, "v2");
  g_assert_cmpuint (c->missing->len, ==, 1);
  assert_missing (c, 0, 2, 1);
  g_assert_cmpuint (c->problems->len, ==, 0);
}

/* --steps 2: 1 step, 1 worker, 1 file of 5 lines, 1 request (d), still missing worker 1. */
static void
test_hand_v2_one_step (void)
{
  g_autoptr (RtTrace) t = load_fixture ("hand-v2", 100);
  g_autoptr (RtStepSet) set = rt_test_steps ("2");
  g_autoptr (RtCheck) c = rt_check_analyse (t, set);
  g_assert_cmpuint (c->n_steps, ==, 1);
  g_assert_cmpint (c->step_min, ==, 2);
  g_assert_cmpuint (c->max_workers, ==, 1);
  g_assert_cmpuint (c->files, ==, 1);
  g_assert_cmpuint (c->lines, ==, 5);
  g_assert_cmpuint (c->requests, ==, 1);
  g_assert_cmpuint (c->missing->len, ==, 1);
  assert_missing (c, 0, 2, 1);
}

/* The older logger: schema v1, 12 lines, 3 requests, nothing missing (one worker). */
static void
test_hand_v1_schema (void)
{
  g_autoptr (RtTrace) t = load_fixture ("hand-v1", 100);
  g_autoptr (RtCheck) c = rt_check_analyse (t, NULL);
  g_assert_cmpstr (rt_schema_name (c->schema), ==, "v1");
  g_assert_cmpuint (c->lines, ==, 12);
  g_assert_cmpuint (c->requests, ==, 3);
  g_assert_cmpuint (c->missing->len, ==, 0);
}

/* 12 lines, 7 events, 5 bad lines, 3 field problems, 2 requests, schema mixed, missing:
 * step 2 workers 0 and 1. Listed problems are cut per file; the total still counts all. */
static void
test_damaged_problems (void)
{
  g_autoptr (RtTrace) t = load_fixture ("damaged", 100);
  g_autoptr (RtCheck) c = rt_check_analyse (t, NULL);
  g_assert_cmpuint (c->lines, ==, 12);
  g_assert_cmpuint (c->events, ==, 7);
  g_assert_cmpuint (c->bad_lines, ==, 5);
  g_assert_cmpuint (c->field_problems, ==, 3);
  g_assert_cmpuint (c->requests, ==, 2);
  g_assert_cmpstr (rt_schema_name (c->schema), ==, "mixed");
  g_assert_cmpuint (c->missing->len, ==, 2);
  assert_missing (c, 0, 2, 0);
  assert_missing (c, 1, 2, 1);
  g_assert_cmpuint (c->problems->len, ==, 8);
  g_assert_cmpuint (c->problems_total, ==, 8);
  g_autoptr (RtTable) problems = rt_check_problems_table (t, c);
  g_assert_cmpuint (rt_table_n_rows (problems), ==, 8);
  g_assert_cmpstr (rt_table_get_text (problems, 0, 0), ==, "step_1/worker_0.jsonl:2");
  g_assert_cmpstr (rt_table_get_text (problems, 0, 1), ==, "empty line");

  g_autoptr (RtTrace) cut = load_fixture ("damaged", 2);
  g_autoptr (RtCheck) few = rt_check_analyse (cut, NULL);
  g_assert_cmpuint (few->problems->len, ==, 2);
  g_assert_cmpuint (few->problems_total, ==, 8);
}

/* --steps 2 of damaged: the empty step alone, no file, no line, both workers missing, no
 * problem listed (they are all step 1's). */
static void
test_damaged_empty_step (void)
{
  g_autoptr (RtTrace) t = load_fixture ("damaged", 100);
  g_autoptr (RtStepSet) set = rt_test_steps ("2");
  g_autoptr (RtCheck) c = rt_check_analyse (t, set);
  g_assert_cmpuint (c->n_steps, ==, 1);
  g_assert_cmpuint (c->files, ==, 0);
  g_assert_cmpuint (c->lines, ==, 0);
  g_assert_cmpuint (c->missing->len, ==, 2);
  g_assert_cmpuint (c->problems->len, ==, 0);
  g_assert_cmpuint (c->problems_total, ==, 0);
  g_autoptr (RtTable) missing = rt_check_missing_table (c);
  g_autoptr (GString) tsv = rt_table_tsv (missing);
  g_assert_cmpstr (tsv->str, ==, "step\tworker\n2\t0\n2\t1\n");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analyses/check/hand-v2-inventory", test_hand_v2_inventory);
  g_test_add_func ("/analyses/check/hand-v2-one-step", test_hand_v2_one_step);
  g_test_add_func ("/analyses/check/hand-v1-schema", test_hand_v1_schema);
  g_test_add_func ("/analyses/check/damaged-problems", test_damaged_problems);
  g_test_add_func ("/analyses/check/damaged-empty-step", test_damaged_empty_step);
  return g_test_run ();
}
