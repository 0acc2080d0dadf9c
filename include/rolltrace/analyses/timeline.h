/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/timeline.h: timeline: when requests ran, how many at once, and the tail. */
#pragma once

#include "rolltrace/analyses/common.h"
#include "rolltrace/analyses/spans.h"

G_BEGIN_DECLS

/* Times as in RtSpans: seconds from the step's start. A request (RtSpanRequest) lives over
 * [start_s, end_s); NAN stands for null throughout. */

typedef struct {
  gint32 worker;
  double start_s, end_s;      /* its file's span (RtSpanWorker); NAN for a file without times */
  guint requests;
  guint peak_in_flight;       /* the most of its requests alive at one instant */
  double busy_share;          /* length of the union of its requests' lives / (end_s - start_s);
                               * NAN unless that span is > 0 */
  double barrier_s;           /* its summed barrier_wait_duration (the older `barrier`); NAN: none */
} RtTimelineWorker;

/* Requests in flight after each instant where some began or ended. */
typedef struct {
  double time_s;
  guint total;
  guint first_count;          /* in RtTimeline.inflight_counts: one count per worker of the step */
} RtInflightRow;

typedef struct {
  gboolean has_step;          /* FALSE when "slowest" found no selected step with a rollout time */
  gint32 step;                /* the step asked or found */
  int step_index;             /* index into t->steps; -1 when there is no step, or the one asked
                               * is not selected or not in the trace: every value below is then
                               * null (NAN, and `found` FALSE) and `workers` empty */
  gboolean found;
  RtSpans *spans;             /* the step laid out in time; NULL when step_index < 0 */
  double end_s;               /* the step's last timestamp */
  guint requests;             /* RtSpans.requests->len */
  double t50_s, t90_s, t99_s, t100_s;  /* with the n ends ascending e_1..e_n: e_k, k = ceil(p n / 100) */
  double tail_share;          /* (t100 - t90) / t100, NAN unless t100 > 0 */
  guint peak_in_flight;       /* the most requests alive at one instant (ends before starts at
                               * equal instants), 0 without requests */
  GArray *workers;            /* RtTimelineWorker: every worker file of the step, ascending */
  GArray *inflight;           /* RtInflightRow, ascending time, from 0 (the step's start) to end_s */
  GArray *inflight_counts;    /* guint */
} RtTimeline;

/* The index into t->steps of step number `step` (-1: rt_view_slowest_step of the selected
 * steps) when it is among the selected steps; -1 when it is not. */
int rt_timeline_step_index (const RtTrace *t, const RtStepSet *steps, gint32 step);

/* The timeline of step number `step` (-1: the slowest) among the selected steps:
 * rt_timeline_step_index's. */
RtTimeline *rt_timeline_analyse (const RtTrace *t, const RtStepSet *steps, gint32 step);
void rt_timeline_free (RtTimeline *tl);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtTimeline, rt_timeline_free)

/* every worker of the step: the JSON "workers" and timeline_workers_step_N.tsv */
extern const RtTableSpec rt_timeline_workers_spec;
RtTable *rt_timeline_workers_table (const RtTimeline *tl);

/* time_s, total and a column per worker of `workers` (gint32 worker numbers; NULL: all):
 * inflight_step_N.tsv */
extern const RtTableSpec rt_timeline_inflight_spec;
RtTable *rt_timeline_inflight_table (const RtTimeline *tl, const GArray *workers);
/* Its TSV (rt_table_tsv), written as its rows are made: the table of a long step has
 * thousands of rows of a cell per worker. `n_columns`: the table's. */
GString *rt_timeline_inflight_tsv (const RtTimeline *tl, const GArray *workers, guint *n_columns);
/* That table's columns, without a row; and its rows [from, to) written into w, a writer of
 * those columns (its TSV made a batch of rows at a time). */
RtTable *rt_timeline_inflight_columns (const RtTimeline *tl, const GArray *workers);
void rt_timeline_inflight_rows_tsv (const RtTimeline *tl, const GArray *workers, RtTsvWriter *w, guint from,
                                    guint to);

/* What the Gantt draws; each row is a bar on a lane. Lanes go worker after worker (of
 * `workers`, NULL: all): first the worker's band (its step-level sections, and a row "worker"
 * spanning its file), then one lane per request alive in [from_s, to_s) (NAN: unbounded), by
 * start, then an empty lane. A request has a row "request" (its life), and its life split into
 * its phases by kind and "waiting" (alive in no timed section); where phases overlap, the one
 * that began last (the innermost) is shown. A request without a phase line (the older logger
 * ties none to a request) has "unlogged" over its life instead. A request whose life ends at
 * from_s is left out (a life is [start, end)). Without `phases`, a request has its "request"
 * row alone (a Gantt of too many lanes draws a thin line each). timeline_step_N[_ZOOM].tsv
 * Its request ids are t's own, not copies: t outlives the table. */
extern const RtTableSpec rt_timeline_gantt_spec;
RtTable *rt_timeline_gantt_table (const RtTrace *t, const RtTimeline *tl, const GArray *workers,
                                  double from_s, double to_s, gboolean phases);
/* One of those rows (a bar), as it is made. */
typedef struct {
  guint lane;
  gint32 worker;
  const char *request_id;     /* NULL on a worker's band; t's own */
  const char *phase;          /* static */
  double start_s, end_s;
} RtGanttBar;
typedef void (*RtGanttBarFunc) (const RtGanttBar *bar, gpointer data);
/* The same rows, of the step's workers from index first_worker to end_worker (excluded;
 * 0 and G_MAXUINT: all), handed to `each` one at a time, in order, and kept nowhere: a
 * Gantt with phases has some hundred rows per request, and its data is written as they
 * come; its workers' rows can be made apart (their lanes as in the whole table). */
void rt_timeline_gantt_each (const RtTrace *t, const RtTimeline *tl, const GArray *workers, double from_s,
                             double to_s, gboolean phases, guint first_worker, guint end_worker,
                             RtGanttBarFunc each, gpointer data);
/* A bar as the cells of a row of that table (its TSV written as it comes). */
void rt_timeline_gantt_bar_tsv (RtTsvWriter *w, const RtGanttBar *bar);
/* The lane of the band of the step's worker index k in that table (after all the workers
 * wanted: the number of lanes). */
guint rt_timeline_gantt_first_lane (const RtTimeline *tl, const GArray *workers, double from_s, double to_s, guint k);
/* How many requests of `workers` (NULL: all) that table has a lane for. */
guint rt_timeline_gantt_requests (const RtTimeline *tl, const GArray *workers, double from_s, double to_s);

/* The spec of one step on a time line (rt-timeline). */
extern const RtAnalysisSpec rt_timeline_analysis;

G_END_DECLS
