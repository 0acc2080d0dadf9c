/* SPDX-License-Identifier: Apache-2.0 */
/* p99-straggler.c: the rolltrace library from a program of one's own: load an experiment (through
 * the cache), find its slowest step, and print that step's P99 request duration and its straggler. */
#include <rolltrace/rt-analyses.h>

#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  if (argc != 2 || strcmp (argv[1], "--help") == 0)
    {
      fprintf (stderr, "usage: %s EXP\n", argv[0]);
      return 2;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *cache_dir = rt_cache_default_dir ();
  RtLoadOptions opts = { .max_problems_per_file = 10, .cache_dir = cache_dir };
  g_autoptr (RtTrace) trace = rt_trace_load (argv[1], &opts, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "%s: %s\n", argv[0], error->message);
      return 1;
    }

  /* every step's straggler; the slowest step is the one with the longest rollout */
  g_autoptr (RtWorkers) workers = rt_workers_analyse (trace, NULL);
  const RtStepBalance *slowest = NULL;
  for (guint i = 0; i < workers->steps->len; i++)
    {
      const RtStepBalance *b = &g_array_index (workers->steps, RtStepBalance, i);
      if (slowest == NULL || b->total_max > slowest->total_max)
        slowest = b;
    }
  if (slowest == NULL)
    {
      fprintf (stderr, "%s: no step of %s has a total_step_duration line\n", argv[0], argv[1]);
      return 1;
    }

  /* the request durations of that step alone */
  g_autofree char *spec = g_strdup_printf ("%d", slowest->step);
  g_autoptr (RtStepSet) only = rt_step_set_parse (spec, &error);
  g_autoptr (RtCdf) cdf = rt_cdf_analyse (trace, only, NULL);
  const RtCdfEvent *durations = g_ptr_array_index (cdf->events, 0);

  printf ("slowest step: %d (rollout %.3f s)\n", slowest->step, slowest->total_max);
  printf ("P99 request duration: %.3f s of %u requests\n", durations->all_summary.p99,
          durations->all_summary.count);
  /* the straggler is the rank the others wait for: the one that generated longest */
  printf ("straggler: worker %d (generated %.3f x as long as the median worker)\n", slowest->slowest_worker,
          slowest->imbalance);
  return 0;
}
