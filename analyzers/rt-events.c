/* SPDX-License-Identifier: Apache-2.0 */
/* rt-events: what share of each step every step-level section takes, barrier wait included.
 * The share lost at the barrier is the price of the slowest rank, paid by all the others. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

#include <math.h>

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtEvents) ev = rt_events_analyse (s->trace, s->steps);
  g_autoptr (RtTable) table = rt_events_table (ev);

  g_autoptr (RtTrainerSections) trainer = rt_trainer_sections_read (s->trace, s->steps);
  g_autoptr (RtTable) sections = rt_trainer_sections_table (trainer);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_table_write_json (table, w);
  rt_jw_key (w, "trainer_sections");
  rt_table_write_json (sections, w);
  rt_jw_end_object (w);

  if (ev->steps->len == 0)
    return rt_session_no_data (s, "no step has a total_step_duration line");
  rt_session_print (s, "%u steps; mean share of a step:\n", ev->steps->len);
  for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
    if (ev->mean_pct[e] >= 0.05)   /* NAN (no step has it) is left out too */
      rt_session_print (s, "  %-30s %6.2f %%\n", rt_step_event_name (e), ev->mean_pct[e]);
  if (!isnan (ev->barrier_pct))
    rt_session_print (s, "waiting at the barrier for the slowest rank costs %.1f %% of a step on average\n",
                      ev->barrier_pct);
  if (trainer->files > 0)
    rt_session_print (s, "the trainer's own sections (worker_-1.jsonl, rank -1, in %u of the steps), mean per line:\n",
                      trainer->files);
  for (guint i = 0; i < trainer->sections->len; i++)
    {
      const RtTrainerSection *x = &g_array_index (trainer->sections, RtTrainerSection, i);
      g_autoptr (GString) name = g_string_new (NULL);
      rt_tsv_append_text (name, x->event);   /* a terminal is another language */
      rt_session_print (s, "  %-30s %8.3f s\n", name->str,
                        x->with_duration > 0 ? x->total_s / (double) x->with_duration : NAN);
    }
  if (trainer->files > 0 && !rt_session_write_table (s, sections, "trainer_sections", error))
    return 1;
  return rt_plot_events (s, ev, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtAnalysisSpec *const analyses[] = { &rt_events_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-events",
    .parameters = "EXP",
    .summary = "Per step, each step-level section's share of the step: mean over workers of\n"
               "the section / mean over workers of total_step_duration x 100, as lines and as\n"
               "a stacked area.",
    .description = "JSON (--json): {\"steps\": [events rows], \"trainer_sections\": [trainer_sections rows]}\n"
                   "(total_step_duration itself is not in pct; a section no worker logged is null);\n"
                   "events.tsv has the same rows. trainer_sections: the trainer's own sections, from\n"
                   "step_N/worker_-1.jsonl of the 2026 logger (rank -1 is the trainer, not a rollout rank).\n\n"
                   "Example: rt-events logs/exp --steps 1-100",
    .analyses = analyses,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
