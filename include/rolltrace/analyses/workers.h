/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/workers.h: workers: the ranks of a step, and the one everybody waits for. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

/* The straggler of a step: the worker file the others wait for at the barrier. The barrier
 * evens the totals out, so it is the one with the largest async_generate_duration (older:
 * async_generate) summed over its file; when no file of the step logged generation, the one
 * with the largest total_step_duration. Ties to the lower worker. */
typedef struct {
  guint step_index;
  gint32 step;
  int slowest_file;           /* the straggler, index into t->files; -1 when no file has either */
  gint32 slowest_worker;      /* its worker; -1 likewise */
  gboolean by_generation;     /* chosen by generation time (FALSE: by the total) */
  double generation_max, generation_median;   /* over the files that logged one; NAN: none */
  double total_max, total_median;             /* likewise of total_step_duration */
  /* generation_max / generation_median, or total_max / total_median when no generation */
  double imbalance;
  double total_imbalance;     /* total_max / total_median: what the barrier leaves of it */
} RtStepBalance;

void rt_step_balance (const RtTrace *t, guint step_index, RtStepBalance *out);

typedef struct {
  GArray *steps;              /* RtStepBalance of the selected steps with a total */
  gint32 worst_step;          /* the step with the largest imbalance, -1 when none */
  double worst_imbalance;
} RtWorkers;

RtWorkers *rt_workers_analyse (const RtTrace *t, const RtStepSet *steps);
void rt_workers_free (RtWorkers *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtWorkers, rt_workers_free)

extern const RtTableSpec rt_workers_steps_spec;
RtTable *rt_workers_steps_table (const RtWorkers *w);

typedef struct {
  guint file;                 /* index into t->files */
  gint32 worker;
  double sections_s[RT_N_STEP_EVENTS];  /* its sum of each step-level section; NAN: none */
  guint requests;             /* complete requests */
  double request_p50, request_max;      /* of their durations; NAN when none */
} RtWorkerRow;

typedef struct {
  RtStepBalance balance;
  GArray *workers;            /* RtWorkerRow, by worker */
  double barrier_slowest_s;   /* barrier wait of the slowest worker */
  double barrier_mean_s;      /* mean over the workers that logged one */
} RtWorkersStep;

RtWorkersStep *rt_workers_step_analyse (const RtTrace *t, guint step_index);
void rt_workers_step_free (RtWorkersStep *w);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtWorkersStep, rt_workers_step_free)

/* worker, total, every section, requests: workers_step_N.tsv and --step's "workers" */
extern const RtTableSpec rt_workers_step_spec;
RtTable *rt_workers_step_table (const RtWorkersStep *w);
/* one worker's sections with a positive time: worker_M_step_N.tsv */
extern const RtTableSpec rt_worker_sections_spec;
RtTable *rt_worker_sections_table (const RtWorkerRow *row);

/* The spec of each step's straggler (rt-workers): the files' step-level sums alone. */
extern const RtAnalysisSpec rt_workers_steps_analysis;

/* The spec of every worker's sections in one step (rt-workers --step). */
extern const RtAnalysisSpec rt_workers_step_analysis;

G_END_DECLS
