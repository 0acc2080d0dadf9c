/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/overview.h: overview: rollout and step interval per step. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

typedef struct {
  guint step_index;
  gint32 step;
  double rollout_s;           /* max over workers of total_step_duration */
  double interval_s;          /* this step's start to the start of the next step of the whole
                               * trace; NAN for the last step or a step without a start */
  double outside_s;           /* interval_s - rollout_s: training, weight sync */
  gboolean rollout_outlier;   /* further than 2 population std from the mean */
  gboolean interval_outlier;
  double train_step_s;        /* the trainer's timing_s/step for the step; NAN without it */
  double train_gen_s;         /* its timing_s/gen */
} RtOverviewStep;

typedef struct {
  GArray *steps;              /* RtOverviewStep of the selected steps with a rollout time */
  gboolean with_train;        /* a trainer's log was given: its columns mean something */
  double rollout_mean;        /* over those steps; NAN when none */
  double interval_mean;       /* over those with an interval */
  guint n_both;               /* the steps with both a rollout and an interval > 0, over which: */
  double outside_mean;        /* the mean of outside_s */
  double rollout_share;       /* the mean of rollout_s / interval_s: the rollout's share of a step
                               * (the rollout_share finding's); 1 - it is outside rollout */
  gboolean any_outlier;       /* some step is a rollout or interval outlier */
} RtOverview;

/* `train` (NULL: none) adds the trainer's timing_s/step and timing_s/gen of each step. */
RtOverview *rt_overview_analyse (const RtTrace *t, const RtStepSet *steps, const RtTrainLog *train);
void rt_overview_free (RtOverview *o);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtOverview, rt_overview_free)

/* overview.tsv and the JSON "steps". The TSV always has the trainer's columns (NaN without
 * a log, so that the plot script reads the same columns); the JSON only with a log. So two
 * declarations: without a log those columns are TSV-only. rt_overview_table picks. */
extern const RtTableSpec rt_overview_spec;
extern const RtTableSpec rt_overview_train_spec;
RtTable *rt_overview_table (const RtOverview *o);

/* The spec of one row per step (rt-overview): the files' step-level sums alone. */
extern const RtAnalysisSpec rt_overview_analysis;

G_END_DECLS
