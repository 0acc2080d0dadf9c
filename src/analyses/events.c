/* SPDX-License-Identifier: Apache-2.0 */
/* events.c: what share of each step every step-level section takes, barrier wait included.
 * The share lost at the barrier is the price of the slowest rank, paid by all the others. */
#include "rolltrace/analyses/events.h"
#include "rolltrace/analyses/check.h"
#include "rolltrace/rt-views.h"

#include <math.h>

/* Mean over the step's workers that have a value of the event. */
static double
worker_mean (const RtTrace *t, guint si, RtEventId event)
{
  g_autoptr (GArray) v = rt_view_event_values (t, si, event);
  return rt_mean (rt_samples_data (v), v->len);
}

RtEvents *
rt_events_analyse (const RtTrace *t, const RtStepSet *steps)
{
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  RtEvents *ev = g_new0 (RtEvents, 1);
  ev->steps = g_array_new (FALSE, FALSE, sizeof (RtEventsStep));
  for (guint i = 0; i < selected->len; i++)
    {
      RtEventsStep r = { .step_index = g_array_index (selected, guint, i) };
      r.step = rt_trace_step (t, r.step_index)->step;
      r.total_mean_s = worker_mean (t, r.step_index, RT_EV_TOTAL_STEP);
      if (isnan (r.total_mean_s) || r.total_mean_s <= 0)
        continue;   /* no total_step_duration: no share to compute */
      for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
        r.pct[e] = worker_mean (t, r.step_index, e) / r.total_mean_s * 100;
      r.pct[RT_EV_TOTAL_STEP] = NAN;
      g_array_append_val (ev->steps, r);
    }

  /* a section no worker of a step logged does not count in that step's mean */
  for (int e = 0; e < RT_N_STEP_EVENTS; e++)
    {
      double sum = 0;
      guint n = 0;
      for (guint i = 0; i < ev->steps->len; i++)
        {
          double v = g_array_index (ev->steps, RtEventsStep, i).pct[e];
          if (!isnan (v))
            {
              sum += v;
              n++;
            }
        }
      ev->mean_pct[e] = n > 0 ? sum / n : NAN;
    }
  ev->barrier_pct = ev->mean_pct[RT_EV_BARRIER_WAIT];
  return ev;
}

void
rt_events_free (RtEvents *ev)
{
  if (ev == NULL)
    return;
  g_array_unref (ev->steps);
  g_free (ev);
}

const RtTableSpec rt_events_spec = {
  "events", "one per selected step with a positive total_step_duration",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("total_mean_s", RT_COLUMN_NUMBER, "s", "mean over the step's workers of total_step_duration") },
    { RT_COL ("SECTION", RT_COLUMN_NUMBER, "%", "each section's mean over the workers that logged it / "
              "total_mean_s x 100, named after it (null: no worker logged it)"), .group = "pct", .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_events_table (const RtEvents *ev)
{
  /* total_step_duration is the whole, not one of the shares */
  RtTable *table = rt_table_new_with_sections (&rt_events_spec, "SECTION", RT_EV_TOTAL_STEP);
  for (guint i = 0; i < ev->steps->len; i++)
    {
      const RtEventsStep *r = &g_array_index (ev->steps, RtEventsStep, i);
      rt_table_int (table, r->step);
      rt_table_number (table, r->total_mean_s);
      for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
        rt_table_number (table, r->pct[e]);
    }
  return table;
}

static const RtTableSpec *const events_tables[] = { &rt_events_spec, &rt_trainer_sections_spec, NULL };

const RtAnalysisSpec rt_events_analysis = {
  .name = "events",
  .reads = RT_READS_FILES,
  .steps = RT_STEPS_SELECTED,
  .tables = events_tables,
  .plots = "events_pct, events_stacked",
};
