/* SPDX-License-Identifier: Apache-2.0 */
/* overview.c: how long each step's rollout took, and how long until the next step began.
 * The difference is the time spent outside rollout (training, weight sync); outliers are marked. */
#include "rolltrace/analyses/overview.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-views.h"

#include <math.h>

/* Start of the first step after `si` (in the whole trace, selected or not) that has one and
 * holds a rollout of the kind read: the next training step's, past the validations between. */
static double
next_start (const RtTrace *t, guint si)
{
  for (guint j = si + 1; j < t->steps->len; j++)
    if (!isnan (rt_trace_step (t, j)->start_s)
        && (t->rollouts == NULL
            || rt_rollout_map_find (t->rollouts, rt_trace_step (t, j)->step, (RtRolloutSelect) t->rollouts_read)))
      return rt_trace_step (t, j)->start_s;
  return NAN;
}

/* Marks values further than 2 population std from the mean; returns the mean. */
static double
mark_outliers (GArray *steps, gboolean interval)
{
  g_autoptr (GArray) v = rt_samples_new ();
  for (guint i = 0; i < steps->len; i++)
    {
      RtOverviewStep *r = &g_array_index (steps, RtOverviewStep, i);
      rt_samples_add (v, interval ? r->interval_s : r->rollout_s);
    }
  double mean = rt_mean (rt_samples_data (v), v->len);
  double std = rt_std_population (rt_samples_data (v), v->len);
  for (guint i = 0; i < steps->len; i++)
    {
      RtOverviewStep *r = &g_array_index (steps, RtOverviewStep, i);
      double x = interval ? r->interval_s : r->rollout_s;
      gboolean out = !isnan (x) && std > 0 && fabs (x - mean) > 2 * std;
      *(interval ? &r->interval_outlier : &r->rollout_outlier) = out;
    }
  return mean;
}

/* The trainer's step whose timing_s/gen is the rollout's of folder `step`: its training step by
 * the rollout map when the map knows the trainer's steps (-1: a validation's, or one the log does
 * not know), else the folder's number. */
static gint32
trainer_step_of (const RtTrace *t, gint32 step)
{
  if (t->rollouts == NULL || !t->rollouts->train_steps_known)
    return step;
  const RtRollout *r = rt_rollout_map_find (t->rollouts, step, (RtRolloutSelect) t->rollouts_read);
  return r != NULL && r->kind == RT_ROLLOUT_TRAINING ? r->train_step : -1;
}

RtOverview *
rt_overview_analyse (const RtTrace *t, const RtStepSet *steps, const RtTrainLog *train)
{
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  const RtMetric *train_step = train ? rt_train_log_metric (train, "timing_s/step") : NULL;
  const RtMetric *train_gen = train ? rt_train_log_metric (train, "timing_s/gen") : NULL;
  RtOverview *o = g_new0 (RtOverview, 1);
  o->steps = g_array_new (FALSE, FALSE, sizeof (RtOverviewStep));
  o->with_train = train != NULL;
  for (guint i = 0; i < selected->len; i++)
    {
      guint si = g_array_index (selected, guint, i);
      const RtStep *st = rt_trace_step (t, si);
      RtOverviewStep r = { .step_index = si, .step = st->step, .rollout_s = rt_view_step_rollout (t, si),
                           .interval_s = NAN };
      if (isnan (r.rollout_s))
        continue;   /* no total_step_duration anywhere: the step is left out */
      if (!isnan (st->start_s))
        r.interval_s = next_start (t, si) - st->start_s;
      r.outside_s = r.interval_s - r.rollout_s;
      gint32 at = trainer_step_of (t, st->step);
      r.train_step_s = at >= 0 ? rt_metric_at (train_step, at) : NAN;
      r.train_gen_s = at >= 0 ? rt_metric_at (train_gen, at) : NAN;
      g_array_append_val (o->steps, r);
    }
  o->rollout_mean = mark_outliers (o->steps, FALSE);
  o->interval_mean = mark_outliers (o->steps, TRUE);
  /* the outside time and the shares over the same steps: those that have both figures */
  double outside_sum = 0, share_sum = 0;
  for (guint i = 0; i < o->steps->len; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      if (isfinite (r->rollout_s) && r->interval_s > 0)
        {
          outside_sum += r->outside_s;
          share_sum += r->rollout_s / r->interval_s;
          o->n_both++;
        }
    }
  o->outside_mean = o->n_both > 0 ? outside_sum / o->n_both : NAN;
  o->rollout_share = o->n_both > 0 ? share_sum / o->n_both : NAN;
  for (guint i = 0; i < o->steps->len; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      o->any_outlier = o->any_outlier || r->rollout_outlier || r->interval_outlier;
    }
  return o;
}

void
rt_overview_free (RtOverview *o)
{
  if (o == NULL)
    return;
  g_array_unref (o->steps);
  g_free (o);
}

/* The two declarations differ only in whether the trainer's columns reach the JSON. */
#define OVERVIEW_COLUMNS(train_flags) \
  { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") }, \
  { RT_COL ("rollout_s", RT_COLUMN_NUMBER, "s", "max over workers of total_step_duration") }, \
  { RT_COL ("interval_s", RT_COLUMN_NUMBER, "s", "from this step's start to the next step's (null for the last)") }, \
  { RT_COL ("outside_s", RT_COLUMN_NUMBER, "s", "interval_s - rollout_s: training, weight sync") }, \
  { RT_COL ("rollout_outlier", RT_COLUMN_BOOL, NULL, "rollout_s further than 2 std from the mean") }, \
  { RT_COL ("interval_outlier", RT_COLUMN_BOOL, NULL, "interval_s further than 2 std from the mean") }, \
  { RT_COL ("train_step_s", RT_COLUMN_NUMBER, "s", "the trainer's timing_s/step (--train)"), \
    .tsv_name = "timing_s/step", .flags = (train_flags) }, \
  { RT_COL ("train_gen_s", RT_COLUMN_NUMBER, "s", "the trainer's timing_s/gen (--train)"), \
    .tsv_name = "timing_s/gen", .flags = (train_flags) }, \
  RT_COLUMNS_END

const RtTableSpec rt_overview_spec = {
  "overview", "one per selected step with a total_step_duration line",
  (const RtColumn[]) { OVERVIEW_COLUMNS (RT_COLUMN_TSV_ONLY) },
};

const RtTableSpec rt_overview_train_spec = {
  "overview", "one per selected step with a total_step_duration line",
  (const RtColumn[]) { OVERVIEW_COLUMNS (0) },
};

RtTable *
rt_overview_table (const RtOverview *o)
{
  RtTable *table = rt_table_new (o->with_train ? &rt_overview_train_spec : &rt_overview_spec);
  for (guint i = 0; i < o->steps->len; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      rt_table_int (table, r->step);
      rt_table_number (table, r->rollout_s);
      rt_table_number (table, r->interval_s);
      rt_table_number (table, r->outside_s);
      rt_table_bool (table, r->rollout_outlier);
      rt_table_bool (table, r->interval_outlier);
      rt_table_number (table, r->train_step_s);
      rt_table_number (table, r->train_gen_s);
    }
  return table;
}

static const RtTableSpec *const overview_tables[] = { &rt_overview_train_spec, NULL };

const RtAnalysisSpec rt_overview_analysis = {
  .name = "overview",
  .reads = RT_READS_FILES,
  .steps = RT_STEPS_SELECTED,
  .tables = overview_tables,
  .plots = "overview",
};
