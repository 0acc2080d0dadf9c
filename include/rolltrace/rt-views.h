/* SPDX-License-Identifier: Apache-2.0 */
/* rt-views.h: the questions analyzers ask of the tables, answered once.
 * Request durations of a step, a worker's step-level values, CDF data, summary JSON. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-jsonw.h"
#include "rolltrace/rt-stats.h"
#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-trace.h"

G_BEGIN_DECLS

/* Durations (seconds) of the completed requests of trace->steps[step_index],
 * of one worker or of all (worker < 0). Requests without a duration are left out. */
RtSamples *rt_view_request_durations (const RtTrace *t, guint step_index, gint32 worker);

/* The durations of all the step's complete requests, sorted ascending (rt_sort_doubles):
 * ready in the cache when it holds the step, without reading the request table. */
RtSamples *rt_view_request_durations_sorted (const RtTrace *t, guint step_index);
/* The same without a copy: in place in the cache when it holds them (valid while `t` is). */
RtSorted rt_view_request_durations_sorted_in_place (const RtTrace *t, guint step_index);

/* Values of an event in a step: one per worker file (its sum) for a step-level
 * event, one per line with a duration for any other. */
RtSamples *rt_view_event_values (const RtTrace *t, guint step_index, guint16 event);

/* A worker file's sum of a step-level event; NAN when it has no line of it. */
double rt_view_file_value (const RtFile *f, RtEventId event);

/* Rollout time of a step: max over its workers of total_step_duration; NAN if none has it. */
double rt_view_step_rollout (const RtTrace *t, guint step_index);

/* Index into t->steps of the step with the longest rollout among those `steps` selects (NULL:
 * all), ties to the lower step; -1 when none has one. The one "slowest step" of every command. */
int rt_view_slowest_step (const RtTrace *t, const RtStepSet *steps);

/* Now, in seconds since the epoch: SOURCE_DATE_EPOCH when it is set (the convention of
 * reproducible builds, so that the golden tests compare pages and answers byte for byte),
 * else the clock. */
double rt_now_s (void);

/* A run that writes nothing for this long has stopped: its unfinished last step is incomplete,
 * not still being written. */
#define RT_RUNNING_WINDOW_S 600

typedef enum {
  RT_LAST_STEP_COMPLETE,      /* every worker file of it has its total_step_duration */
  RT_LAST_STEP_RUNNING,       /* unfinished, and some file of the trace changed in the last
                               * RT_RUNNING_WINDOW_S seconds: still being written */
  RT_LAST_STEP_INCOMPLETE,    /* unfinished, and nothing changed for longer: the run stopped */
} RtLastStepState;

typedef struct {
  RtLastStepState state;
  gint32 step;                /* the last step's number; -1 when the trace has no step */
  const char *why;            /* what looks unfinished (static text); NULL when complete */
  double idle_s;              /* seconds from the newest change of any worker file to now_s;
                               * NAN without a file, or when a file is newer than now_s */
  char last_write[20];        /* that change as local "YYYY-MM-DD HH:MM:SS" when idle_s is
                               * known, else "": unlike idle_s, the same from run to run */
} RtLastStep;

/* How the last step of the trace stands at `now_s` (rt_now_s). It looks unfinished when it has
 * no worker file, fewer than the step before it, or a file without total_step_duration. */
RtLastStep rt_view_last_step (const RtTrace *t, double now_s);

/* "running", "incomplete" or "complete": RtLastStep.state in --json. */
const char *rt_last_step_state_name (RtLastStepState state);

/* Which of the optional percentiles a summary shows (rt_table_summary). */
typedef enum {
  RT_SUMMARY_P80 = 1 << 0,
  RT_SUMMARY_P999 = 1 << 1,
} RtSummaryFields;

/* Appends one CDF block (x, fraction) of sorted values to a TSV, thinned to about
 * `max_points` points so that a plot of 300,000 requests stays light; the block ends
 * with two blank lines, gnuplot's index separator. */
void rt_view_tsv_cdf_block (GString *tsv, const char *label, const double *sorted, guint n,
                            guint max_points);

/* One block of rt_view_tsv_cdf_blocks: rt_view_tsv_cdf_block's arguments. */
typedef struct {
  const char *label;
  const double *sorted;
  guint n, max_points;
} RtCdfBlock;

/* rt_view_tsv_cdf_block of each block, in order: those of about the first half of the points
 * appended to `head`, the others to `tail`, each half on a thread of its own when there are
 * enough points to gain by it. The text is head's then tail's. */
void rt_view_tsv_cdf_blocks (GString *head, GString *tail, const RtCdfBlock *blocks, guint n_blocks);

/* gnuplot commands for a CDF plot: dashed verticals at P50..P99.9 of `sum` and a
 * stats box headed `what`. */
void rt_plot_cdf_markers (GString *gp, const RtSummary *sum, const char *what);

G_END_DECLS
