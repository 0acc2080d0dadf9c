/* SPDX-License-Identifier: Apache-2.0 */
/* workers.c: where each rank spends a step, and which rank everyone waits for.
 * Per step, the straggler and the imbalance; for one step, every worker's sections. */
#include "rolltrace/analyses/workers.h"
#include "rolltrace/rt-views.h"

#include <math.h>

/* The file of the step with the largest value of section ev (ties to the lower worker, the
 * files being in worker order), its value and the median over the files that logged it. */
static int
largest_file (const RtTrace *t, const RtStep *st, RtEventId ev, double *max, double *median)
{
  g_autoptr (GArray) values = rt_samples_new ();
  int best = -1;
  *max = NAN;
  for (guint k = 0; k < st->n_files; k++)
    {
      double v = rt_view_file_value (rt_trace_file (t, st->first_file + k), ev);
      if (isnan (v))
        continue;
      rt_samples_add (values, v);
      if (best < 0 || v > *max)
        {
          best = (int) (st->first_file + k);
          *max = v;
        }
    }
  *median = rt_median (rt_samples_data (values), values->len);
  return best;
}

void
rt_step_balance (const RtTrace *t, guint si, RtStepBalance *b)
{
  const RtStep *st = rt_trace_step (t, si);
  b->step_index = si;
  b->step = st->step;
  int by_total = largest_file (t, st, RT_EV_TOTAL_STEP, &b->total_max, &b->total_median);
  int by_generation = largest_file (t, st, RT_EV_ASYNC_GENERATE, &b->generation_max, &b->generation_median);
  b->total_imbalance = b->total_max / b->total_median;
  b->by_generation = by_generation >= 0;
  b->slowest_file = b->by_generation ? by_generation : by_total;
  b->slowest_worker = b->slowest_file >= 0 ? rt_trace_file (t, b->slowest_file)->worker : -1;
  b->imbalance = b->by_generation ? b->generation_max / b->generation_median : b->total_imbalance;
}

RtWorkers *
rt_workers_analyse (const RtTrace *t, const RtStepSet *steps)
{
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  RtWorkers *w = g_new0 (RtWorkers, 1);
  w->steps = g_array_new (FALSE, FALSE, sizeof (RtStepBalance));
  w->worst_step = -1;
  w->worst_imbalance = 0;
  for (guint i = 0; i < selected->len; i++)
    {
      RtStepBalance b;
      rt_step_balance (t, g_array_index (selected, guint, i), &b);
      if (b.slowest_file < 0)
        continue;
      g_array_append_val (w->steps, b);
      if (b.imbalance > w->worst_imbalance)
        {
          w->worst_imbalance = b.imbalance;
          w->worst_step = b.step;
        }
    }
  return w;
}

void
rt_workers_free (RtWorkers *w)
{
  if (w == NULL)
    return;
  g_array_unref (w->steps);
  g_free (w);
}

const RtTableSpec rt_workers_steps_spec = {
  "workers_steps", "one per selected step with a total_step_duration or generation line",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("slowest_worker", RT_COLUMN_INT, NULL,
              "the straggler: the worker with the longest async_generate_duration (none logged: the "
              "longest total_step_duration; ties: the lower)") },
    { RT_COL ("generation_max", RT_COLUMN_NUMBER, "s", "its async_generate_duration"), .tsv_name = "generation_max_s" },
    { RT_COL ("generation_median", RT_COLUMN_NUMBER, "s", "the median over the workers that logged one"),
      .tsv_name = "generation_median_s" },
    { RT_COL ("imbalance", RT_COLUMN_NUMBER, NULL, "generation_max / generation_median (none: total_imbalance)") },
    { RT_COL ("total_max", RT_COLUMN_NUMBER, "s", "the longest total_step_duration"), .tsv_name = "total_max_s" },
    { RT_COL ("total_median", RT_COLUMN_NUMBER, "s", "the median over the step's workers"), .tsv_name = "total_median_s" },
    { RT_COL ("total_imbalance", RT_COLUMN_NUMBER, NULL, "total_max / total_median: what the barrier evens out") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_workers_steps_table (const RtWorkers *w)
{
  RtTable *table = rt_table_new (&rt_workers_steps_spec);
  for (guint i = 0; i < w->steps->len; i++)
    {
      const RtStepBalance *b = &g_array_index (w->steps, RtStepBalance, i);
      rt_table_int (table, b->step);
      rt_table_int (table, b->slowest_worker);
      rt_table_number (table, b->generation_max);
      rt_table_number (table, b->generation_median);
      rt_table_number (table, b->imbalance);
      rt_table_number (table, b->total_max);
      rt_table_number (table, b->total_median);
      rt_table_number (table, b->total_imbalance);
    }
  return table;
}

RtWorkersStep *
rt_workers_step_analyse (const RtTrace *t, guint si)
{
  const RtStep *st = rt_trace_step (t, si);
  RtWorkersStep *w = g_new0 (RtWorkersStep, 1);
  rt_step_balance (t, si, &w->balance);
  w->workers = g_array_new (FALSE, FALSE, sizeof (RtWorkerRow));
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      RtWorkerRow row = { .file = st->first_file + k, .worker = f->worker, .requests = f->n_complete };
      for (int e = 0; e < RT_N_STEP_EVENTS; e++)
        row.sections_s[e] = rt_view_file_value (f, e);
      g_autoptr (GArray) durations = rt_view_request_durations (t, si, f->worker);
      /* rt_median sorts, so the maximum is then the last */
      row.request_p50 = rt_median (rt_samples_data (durations), durations->len);
      row.request_max = durations->len ? g_array_index (durations, double, durations->len - 1) : NAN;
      g_array_append_val (w->workers, row);
    }
  g_autoptr (GArray) barrier = rt_view_event_values (t, si, RT_EV_BARRIER_WAIT);
  w->barrier_mean_s = rt_mean (rt_samples_data (barrier), barrier->len);
  w->barrier_slowest_s = w->balance.slowest_file >= 0
    ? rt_view_file_value (rt_trace_file (t, w->balance.slowest_file), RT_EV_BARRIER_WAIT) : NAN;
  return w;
}

void
rt_workers_step_free (RtWorkersStep *w)
{
  if (w == NULL)
    return;
  g_array_unref (w->workers);
  g_free (w);
}

const RtTableSpec rt_workers_step_spec = {
  "workers_step", "one per worker file of the step",
  (const RtColumn[]) {
    { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker (rank)") },
    { RT_COL ("total_s", RT_COLUMN_NUMBER, "s", "its total_step_duration"), .flags = RT_COLUMN_JSON_ONLY },
    { RT_COL ("SECTION", RT_COLUMN_NUMBER, "s", "its sum of each step-level section, named after it"), .group = "events", .flags = RT_COLUMN_EACH },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "its complete requests"), .flags = RT_COLUMN_JSON_ONLY },
    { RT_COL ("request_p50", RT_COLUMN_NUMBER, "s", "their median duration"), .flags = RT_COLUMN_JSON_ONLY },
    { RT_COL ("request_max", RT_COLUMN_NUMBER, "s", "their longest duration"), .flags = RT_COLUMN_JSON_ONLY },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_workers_step_table (const RtWorkersStep *w)
{
  RtTable *table = rt_table_new_with_sections (&rt_workers_step_spec, "SECTION", RT_N_STEP_EVENTS);
  for (guint i = 0; i < w->workers->len; i++)
    {
      const RtWorkerRow *row = &g_array_index (w->workers, RtWorkerRow, i);
      rt_table_int (table, row->worker);
      rt_table_number (table, row->sections_s[RT_EV_TOTAL_STEP]);
      for (int e = 0; e < RT_N_STEP_EVENTS; e++)
        rt_table_number (table, row->sections_s[e]);
      rt_table_int (table, row->requests);
      rt_table_number (table, row->request_p50);
      rt_table_number (table, row->request_max);
    }
  return table;
}

const RtTableSpec rt_worker_sections_spec = {
  "worker_sections", "one per step-level section with a positive time",
  (const RtColumn[]) {
    { RT_COL ("section", RT_COLUMN_TEXT, NULL, "the step-level section") },
    { RT_COL ("seconds", RT_COLUMN_NUMBER, "s", "the worker's sum of it") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_worker_sections_table (const RtWorkerRow *row)
{
  RtTable *table = rt_table_new (&rt_worker_sections_spec);
  for (int e = 0; e < RT_N_STEP_EVENTS; e++)
    if (row->sections_s[e] > 0)
      {
        rt_table_text (table, rt_step_event_name (e));
        rt_table_number (table, row->sections_s[e]);
      }
  return table;
}

static const RtTableSpec *const workers_steps_tables[] = { &rt_workers_steps_spec, NULL };

const RtAnalysisSpec rt_workers_steps_analysis = {
  .name = "workers_steps",
  .reads = RT_READS_FILES,
  .steps = RT_STEPS_SELECTED,
  .tables = workers_steps_tables,
  .plots = "workers_steps",
};
static const RtTableSpec *const workers_step_tables[] = { &rt_workers_step_spec, &rt_worker_sections_spec, NULL };

const RtAnalysisSpec rt_workers_step_analysis = {
  .name = "workers_step",
  .reads = RT_READS_REQUESTS,
  .steps = RT_STEPS_ONE,
  .tables = workers_step_tables,
  .plots = "workers_step_N, worker_M_step_N",
};
