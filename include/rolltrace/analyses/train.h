/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/train.h: train: the trainer's console log. */
#pragma once

#include "rolltrace/analyses/common.h"

G_BEGIN_DECLS

typedef struct {
  const char *metric;         /* its name in the log (owned by the log) */
  char *file;                 /* metric_NAME, its plot's files: unique among the log's metrics */
  char *wanted_file;          /* metric_NAME of its name alone, `file` unless another metric has it */
  char *key;                  /* its --json key (valid UTF-8), unique among the log's metrics */
  RtSummary summary;          /* of its finite values */
  double window_mean;         /* of its last `window` finite values */
  gboolean plottable;         /* it has a value a plot can draw (finite, at most 1e300 in size) */
  gboolean chosen;            /* a --metric glob matches it */
} RtTrainMetric;

/* The plots every log gets when it has their metrics, in the order they are drawn. */
typedef enum {
  RT_TRAIN_BREAKDOWN,         /* step_timing_breakdown: time per step by section */
  RT_TRAIN_PER_TOKEN,         /* per_token_timing */
  RT_TRAIN_THROUGHPUT,        /* throughput, and the time per step below it */
  RT_TRAIN_COMPONENTS,        /* component_comparison: generation against the updates */
  RT_TRAIN_GENERATION,        /* generation_timing */
  RT_TRAIN_N_PLOTS
} RtTrainPlotId;

typedef struct {
  const char *name;           /* its files, "step_timing_breakdown" */
  const char *const *metrics; /* the metrics it draws, NULL-terminated */
  const char *trailer;        /* a column after them, drawn apart (timing_s/step), or NULL */
  GPtrArray *found;           /* const char*: the metrics the log has a value to plot of, in
                               * the order of `metrics`; empty: the plot is skipped */
  GArray *means;              /* double: the mean of each found one's values a plot can draw */
  GPtrArray *known;           /* const char*: the metrics the log has at all, plottable or not
                               * (NULL-terminated) */
} RtTrainPlot;

typedef struct {
  guint window;
  GArray *metrics;            /* RtTrainMetric: every metric of the log, in name order */
  GPtrArray *unmatched;       /* const char*: the globs asked that match no metric */
  RtTrainPlot plots[RT_TRAIN_N_PLOTS];
  gboolean step_plottable;    /* timing_s/step has a value to plot */
  double step_mean;           /* the mean of those values, NAN when none */
} RtTrain;

/* `window`: values in window_mean and moving means; `metric_globs` (NULL-terminated, or
 * NULL): the metrics to plot one by one. The result refers to the log and the globs. */
RtTrain *rt_train_analyse (const RtTrainLog *log, guint window, const char *const *metric_globs);
void rt_train_free (RtTrain *tr);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTrain, rt_train_free)

/* the statistics of every metric: train "metrics" (an object keyed by RtTrainMetric.key) */
extern const RtTableSpec rt_train_metrics_spec;
RtTable *rt_train_metrics_table (const RtTrain *tr);
/* step and the found metrics of a plot, then its trailer: NAME.tsv of each RtTrainPlot */
extern const RtTableSpec rt_train_series_spec;
RtTable *rt_train_plot_table (const RtTrainLog *log, const RtTrainPlot *p);
/* one metric and its moving mean over `window` values: metric_NAME.tsv */
extern const RtTableSpec rt_train_metric_spec;
RtTable *rt_train_metric_table (const RtTrainLog *log, const char *metric, guint window);

G_END_DECLS
