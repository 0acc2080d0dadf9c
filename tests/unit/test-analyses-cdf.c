/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-cdf.c: rt_cdf_analyse gives the same values and summaries from the cache as
 * from the files, reading each step's sorted durations in place where the cache holds them. */
#include <string.h>

#include "test-util.h"

#define COMPLETE(id, s) \
  "{\"timestamp\": \"2025-06-10T09:00:01\", \"event\": \"async_rollout_request_complete\", " \
  "\"duration_sec\": " s ", \"extra\": {\"request_id\": \"" id "\", \"turns\": 1}}\n"
#define ENGINE(id, s) \
  "{\"timestamp\": \"2025-06-10T09:00:01\", \"event\": \"turn_engine_call\", " \
  "\"duration_sec\": " s ", \"extra\": {\"request_id\": \"" id "\", \"turn\": 0}}\n"

/* Three steps of two workers: step s, worker w holds the text files[s - 1][w]. The durations
 * repeat across steps and workers, so that merging has ties to keep in order. */
static const char *const files[3][2] = {
  { COMPLETE ("a", "3.5") COMPLETE ("b", "0.25") ENGINE ("a", "1.5"),
    COMPLETE ("c", "7") COMPLETE ("d", "0.25") },
  { COMPLETE ("e", "2") ENGINE ("e", "0.5") ENGINE ("e", "0.75"),
    COMPLETE ("f", "11.125") COMPLETE ("g", "3.5") COMPLETE ("h", "0.001") },
  { COMPLETE ("i", "5"), ENGINE ("j", "2.5") COMPLETE ("j", "1e-3") },
};

static char *
file_path (const char *exp, guint step, guint worker)
{
  g_autofree char *name = g_strdup_printf ("step_%u/worker_%u.jsonl", step, worker);
  return g_build_filename (exp, name, NULL);
}

static char *
experiment_new (void)
{
  char *exp = g_dir_make_tmp ("rt-cdf-XXXXXX", NULL);
  g_assert_nonnull (exp);
  for (guint s = 1; s <= 3; s++)
    {
      g_autofree char *step = g_strdup_printf ("%s/step_%u", exp, s);
      g_assert_cmpint (g_mkdir (step, 0700), ==, 0);
      for (guint w = 0; w < 2; w++)
        {
          g_autofree char *path = file_path (exp, s, w);
          g_assert_true (g_file_set_contents (path, files[s - 1][w], -1, NULL));
        }
    }
  return exp;
}

static RtTrace *
load_cached (const char *exp, const char *cache_dir)
{
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = 100, .cache_dir = cache_dir,
                         .reads = RT_READS_DURATIONS };   /* as rt-cdf: sorted durations alone */
  g_autoptr (GError) error = NULL;
  RtTrace *t = rt_trace_load (exp, &opts, &error);
  g_assert_no_error (error);
  return t;
}

static void
assert_same_sorted (const RtSorted *got, const RtSorted *want)
{
  g_assert_cmpuint (got->n, ==, want->n);
  g_assert_true (got->n == 0 || memcmp (got->v, want->v, got->n * sizeof (double)) == 0);
}

static void
assert_same_summary (const RtSummary *got, const RtSummary *want)
{
  g_assert_cmpuint (got->count, ==, want->count);
  /* every field to the bit: the same arithmetic in the same order */
  g_assert_true (memcmp (got, want, sizeof *got) == 0);
}

/* The cdf of `t` is that of a load from the files (`fresh`), value for value. Returns how
 * many of its steps, and whether its whole, were read in place (owned by none). */
static guint
assert_same_cdf (const RtTrace *t, const RtTrace *fresh, const char *steps_spec, const char *event,
                 gboolean *all_in_place)
{
  g_autoptr (RtStepSet) steps = steps_spec ? rt_test_steps (steps_spec) : NULL;
  const char *events[] = { event, NULL };
  g_autoptr (RtCdf) got = rt_cdf_analyse (t, steps, event ? events : NULL);
  g_autoptr (RtCdf) want = rt_cdf_analyse (fresh, steps, event ? events : NULL);
  const RtCdfEvent *g = g_ptr_array_index (got->events, 0), *w = g_ptr_array_index (want->events, 0);
  g_assert_cmpuint (g->steps->len, ==, w->steps->len);
  guint in_place = 0;
  for (guint i = 0; i < g->steps->len; i++)
    {
      const RtCdfStep *gs = &g_array_index (g->steps, RtCdfStep, i);
      const RtCdfStep *ws = &g_array_index (w->steps, RtCdfStep, i);
      g_assert_cmpint (gs->step, ==, ws->step);
      assert_same_sorted (&gs->sorted, &ws->sorted);
      assert_same_summary (&gs->summary, &ws->summary);
      g_assert_true (ws->sorted.owned != NULL);   /* no cache: computed */
      in_place += gs->sorted.owned == NULL;
    }
  assert_same_sorted (&g->all, &w->all);
  assert_same_summary (&g->all_summary, &w->all_summary);
  *all_in_place = g->all.owned == NULL;
  return in_place;
}

/* From the cache every step's durations, and all of them together, are read where the cache
 * holds them; the answers are those of the files. */
static void
test_cached_durations_are_read_in_place (void)
{
  g_autofree char *exp = experiment_new ();
  g_autofree char *cache = g_dir_make_tmp ("rt-cdf-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) fresh = rt_test_load (exp);
  rt_trace_free (load_cached (exp, cache));
  g_autoptr (RtTrace) t = load_cached (exp, cache);
  g_assert_true (t->stats.cache_used);
  g_assert_cmpuint (t->stats.files_cached, ==, 6);
  gboolean all_in_place;
  g_assert_cmpuint (assert_same_cdf (t, fresh, NULL, NULL, &all_in_place), ==, 3);
  g_assert_true (all_in_place);

  /* some steps: each in place, their whole merged */
  g_assert_cmpuint (assert_same_cdf (t, fresh, "2-3", NULL, &all_in_place), ==, 2);
  g_assert_false (all_in_place);
  g_assert_cmpuint (assert_same_cdf (t, fresh, "1,3", NULL, &all_in_place), ==, 2);
  g_assert_false (all_in_place);
  /* another event: counted from the rows, every array its own */
  rt_trace_free (g_steal_pointer (&t));
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = 100, .cache_dir = cache };
  t = rt_trace_load (exp, &opts, NULL);
  g_assert_nonnull (t);
  g_assert_true (t->stats.cache_used);
  g_assert_cmpuint (assert_same_cdf (t, fresh, NULL, "turn_engine_call", &all_in_place), ==, 0);
  g_assert_false (all_in_place);

  rt_test_remove_tree (cache);
  rt_test_remove_tree (exp);
}

/* One file changed since the cache was written: its step is computed again from the files,
 * the others are read in place, from the cache the trace opened while a new one takes its
 * place; the load after that reads every step in place again, the changed one included. */
static void
test_a_changed_file_is_read_again_and_the_rest_in_place (void)
{
  g_autofree char *exp = experiment_new ();
  g_autofree char *cache = g_dir_make_tmp ("rt-cdf-cache-XXXXXX", NULL);
  rt_trace_free (load_cached (exp, cache));

  g_autofree char *changed = file_path (exp, 2, 1);
  g_autofree char *text = g_strconcat (files[1][1], COMPLETE ("k", "0.5") COMPLETE ("l", "3.5"), NULL);
  g_assert_true (g_file_set_contents (changed, text, -1, NULL));
  g_autoptr (RtTrace) fresh = rt_test_load (exp);

  g_autoptr (RtTrace) t = load_cached (exp, cache);
  g_assert_cmpuint (t->stats.files_cached, ==, 5);
  g_assert_true (t->stats.cache_written);
  gboolean all_in_place;
  g_assert_cmpuint (assert_same_cdf (t, fresh, NULL, NULL, &all_in_place), ==, 2);
  g_assert_false (all_in_place);
  g_autoptr (RtStepSet) two = rt_test_steps ("2");
  g_autoptr (RtCdf) step_two = rt_cdf_analyse (t, two, NULL);
  const RtCdfEvent *c = g_ptr_array_index (step_two->events, 0);
  g_assert_cmpuint (c->all.n, ==, 6);
  g_assert_cmpfloat (c->all.v[0], ==, 0.001);
  g_assert_cmpfloat (c->all.v[5], ==, 11.125);

  g_autoptr (RtTrace) again = load_cached (exp, cache);
  g_assert_cmpuint (again->stats.files_cached, ==, 6);
  g_assert_cmpuint (assert_same_cdf (again, fresh, NULL, NULL, &all_in_place), ==, 3);
  g_assert_true (all_in_place);
  /* and the trace loaded before the new cache still reads the old one's */
  g_assert_cmpuint (assert_same_cdf (t, fresh, "1,3", NULL, &all_in_place), ==, 2);

  rt_test_remove_tree (cache);
  rt_test_remove_tree (exp);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cdf/cached-durations-are-read-in-place", test_cached_durations_are_read_in_place);
  g_test_add_func ("/cdf/a-changed-file-is-read-again-and-the-rest-in-place",
                   test_a_changed_file_is_read_again_and_the_rest_in_place);
  return g_test_run ();
}
