/* SPDX-License-Identifier: Apache-2.0 */
/* rt-plots.h: the plots of the analyses, each written once (its TSV, its gnuplot script) for
 * whichever command draws it: the analyzer of its own, and rt-report, which draws several. */
#pragma once

#include <glib.h>

#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/analyses/tail.h"

G_BEGIN_DECLS

/* Every function writes its data and script into the session's output folder, to be rendered
 * with the others; the plots are named as the analyzer's --help says. FALSE with `error` set
 * when a file could not be written. */

/* overview.tsv, overview: rollout, interval and outside time per step (o->steps not empty). */
gboolean rt_plot_overview (RtSession *s, const RtOverview *o, GError **error);

/* tail_steps.tsv, tail: per step the tail's excess by cause, stacked, above the bubble. */
gboolean rt_plot_tail (RtSession *s, const RtTail *tail, GError **error);

/* cdf.tsv, cdf: the CDF of each event of `cdf` (the first that has values draws the markers), each
 * step's line thinned to about `step_points` points (the whole: 4000). With `fits` (RtFit* or
 * NULL of each event, in order; NULL: none), each best fit dashed on it, fit.tsv and fit_qq. */
#define RT_PLOT_CDF_STEP_POINTS 2000
gboolean rt_plot_cdf (RtSession *s, const RtCdf *cdf, const GPtrArray *fits, guint step_points, GError **error);

/* workers_steps.tsv, workers_steps: slowest worker and imbalance per step (w->steps not empty). */
gboolean rt_plot_workers_steps (RtSession *s, const RtWorkers *w, GError **error);

/* workers_step_N.tsv, workers_step_N: every worker's sections, the critical path marked; with
 * `each_worker` also worker_M_step_N, one chart per worker. */
gboolean rt_plot_workers_step (RtSession *s, const RtWorkersStep *ws, gboolean each_worker, GError **error);

/* "#1 5c1f0a2b, worker 3: 41.20 s, 4 turns, 812 tokens, LENGTH": a slow request in a caption,
 * its id whole when `full_id` (--full-ids), else its first 8 characters. */
char *rt_request_caption (const RtTrace *t, const RtRequest *q, guint rank, gboolean full_id);
/* "request 5c1f0a2b, step 4, worker 3: 41.20 s, 4 turns, 812 tokens, LENGTH": one request
 * followed (rt-requests --id), its id as in rt_request_caption. */
char *rt_request_title (const RtTrace *t, const RtRequest *q, gboolean full_id);
/* "truncation: 6 of the 10 slowest ended on the length limit (LENGTH, up to 4096 tokens)", or
 * NULL when none of them did. */
char *rt_requests_truncation_line (const RtRequests *r);
/* A file name for request id `id`: request_ID, the bytes of ID other than letters, digits,
 * '-' and '_' made '_', cut at 100. */
char *rt_request_plot_name (const char *id);
/* NAME.tsv and NAME (NULL: request_ID, rt_request_plot_name): a Gantt of the view's lines and
 * gaps, those inside another indented under it; the title names the request, its step and worker. */
gboolean rt_plot_request_view (RtSession *s, const RtRequestView *v, const char *name, GError **error);
/* requests_top_step_N.tsv, requests_top_step_N: the slowest requests by phase; with
 * `each_request` also request_K_step_N, one chart per request. */
gboolean rt_plot_requests_top (RtSession *s, const RtRequests *r, gboolean each_request, GError **error);

/* events.tsv, events_pct and events_stacked: each section's share of the step (ev->steps not empty). */
gboolean rt_plot_events (RtSession *s, const RtEvents *ev, GError **error);

/* turns.tsv, turns: time per turn index (turns->turns not empty). */
gboolean rt_plot_turns (RtSession *s, const RtTurns *turns, GError **error);

/* turn_dist_counts/_mean.tsv and plots: requests by number of turns per step. */
gboolean rt_plot_turn_dist (RtSession *s, const RtTurnDist *d, GError **error);

/* timeline_step_N[_ZOOM].tsv and its Gantt of the requests of `workers` (NULL: all) alive in
 * [from_s, to_s) (NAN: unbounded); `name` the plot, `zoom` words for its title ("" for none),
 * `worker_text` the workers asked as given (NULL: all). */
gboolean rt_plot_timeline_gantt (RtSession *s, const RtTimeline *tl, const GArray *workers,
                                 const char *worker_text, const char *name, const char *zoom,
                                 double from_s, double to_s, GError **error);
/* inflight_step_N.tsv and plot: the requests in flight, 50/90/99 % finished marked. */
gboolean rt_plot_timeline_inflight (RtSession *s, const RtTimeline *tl, const GArray *workers,
                                    const char *worker_text, GError **error);
/* One Gantt of rt_plot_timeline: its plot's name, words for its title ("" for none), and
 * its window (NAN: unbounded). */
typedef struct {
  const char *name, *zoom;
  double from_s, to_s;
} RtTimelineGantt;
/* The Gantts listed, as rt_plot_timeline_gantt draws each, then (when `inflight`) the
 * in-flight plot: their data made on two threads where there are two cores (a large Gantt
 * in parts of its workers), their files written in that order. */
gboolean rt_plot_timeline (RtSession *s, const RtTimeline *tl, const GArray *workers, const char *worker_text,
                           const RtTimelineGantt *gantts, guint n_gantts, gboolean inflight, GError **error);

/* step_timing_breakdown.tsv and plot: the time per training step by section (nothing when the
 * log has none of its metrics; rt-train says why). */
gboolean rt_plot_train_breakdown (RtSession *s, const RtTrainLog *log, const RtTrainPlot *p, GError **error);

/* "steps 1-12" when every experiment of `c` has the same steps with data, else each one's,
 * joined by " | ": for titles. */
char *rt_compare_describe_steps (const RtCompare *c);
/* compare_cdf, compare_steps, compare_throughput (reading compare_steps.tsv, which the caller
 * writes from rt_compare_steps_table), compare_turns, compare_turn_dist, compare_events and
 * compare_hist, with their TSV files; `steps_text` names the steps in the titles. `fits`
 * (RtFit* or NULL of each experiment; NULL: none) adds each best fit dashed on compare_cdf. */
/* compare_mix_K: experiment K's mean request duration against the first's, split into mix, speed
 * and unmatched, in all and per bin (rt-compare --mix); the table `name`.tsv is written already. */
gboolean rt_plot_compare_mix (RtSession *s, const RtMix *m, const char *label_a, const char *label_b,
                              const char *name, GError **error);
gboolean rt_plot_compare (RtSession *s, const RtCompare *c, const GPtrArray *fits, const char *steps_text,
                          GError **error);

/* whatif: the recorded and each policy's predicted rollout per step, and the share cut
 * (rt-whatif); `results` holds RtWhatif over the same steps. */
gboolean rt_plot_whatif (RtSession *s, const GPtrArray *results, GError **error);

G_END_DECLS
