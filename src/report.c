/* SPDX-License-Identifier: Apache-2.0 */
/* report.c: rt-report's content: the analyses run once, then one section per question, each a
 * function of the table `sections` below, made of the pieces of report-pieces.c;
 * report-page.c writes them as the page. */
#include "report-private.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"
#include "tasks-private.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define TOP_REQUESTS 10       /* slowest requests shown */
#define FOLLOWED_REQUESTS 5   /* of them, those followed line by line in a section of their own */
#define GANTT_REQUESTS_MAX 400  /* above this many requests in the slowest step, its Gantt shows the tail */
#define INFLIGHT_WORKERS_MAX 8  /* above this many workers, requests in flight are drawn in total only */

/* ---- the sections ---- */

/* Fills `sec`; returns FALSE with `error` set when a file could not be written. A section with
 * nothing to show says so in a note; one that does not apply sets *shown to FALSE. */
typedef gboolean (*SectionFunc) (RtReport *r, Section *sec, gboolean *shown, GError **error);

static gboolean
section_overview (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  RtOverview *o = r->overview;
  if (o->steps->len == 0)
    {
      rt_section_note (sec, "No selected step has a total_step_duration line: there is no rollout time to show.");
      return TRUE;
    }
  rt_section_caption (sec, r->opts.train
                  ? "Rollout time of the slowest rank per step against the interval to the next step: the gap is "
                    "training and weight sync. Look for steps far above the rest, and whether the trainer's "
                    "timing_s/gen follows the trace's rollout."
                  : "Rollout time of the slowest rank per step against the interval to the next step: the gap is "
                    "training and weight sync. Look for steps far above the rest (marked) and for a drift.");
  if (!rt_plot_overview (r->s, o, error))
    return FALSE;
  rt_section_plot (sec, "overview", "overview");
  rt_section_html (sec, "<p>");
  rt_section_text_printf (sec, "Mean rollout over %u steps: %.2f s.", o->steps->len, o->rollout_mean);
  if (o->n_both > 0)
    rt_section_text_printf (sec, " Over the %u step%s with an interval to the next: interval %.2f s, outside rollout "
                 "%.2f s (rollout %.0f %% of a step).", o->n_both, o->n_both == 1 ? "" : "s", o->interval_mean,
                 o->outside_mean,
                 100 * o->rollout_share);
  rt_section_html (sec, "</p>\n");
  return TRUE;
}

/* The per-step percentiles, the steps with the largest P99 first when they do not all fit. */
static int
compare_p99 (gconstpointer a, gconstpointer b)
{
  const RtCdfStep *x = a, *y = b;
  return x->summary.p99 > y->summary.p99 ? -1 : x->summary.p99 < y->summary.p99 ? 1 : x->step - y->step;
}

static gboolean
section_tail (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  const RtCdfEvent *c = g_ptr_array_index (r->cdf->events, 0);
  if (c->all.n == 0)
    {
      rt_section_note (sec, "No complete request with a duration in the selected steps.");
      return TRUE;
    }
  rt_section_caption (sec, "The CDF of request durations, per step and over all: the further P99 lies right of P50, the more "
                "a step waits for a few slow requests. The table lists each step's percentiles.");
  /* a page stays light whatever the number of steps: a step's line needs no more points than a
   * picture has pixels across, divided among the steps drawn */
  guint step_points = MAX (100u, RT_PLOT_CDF_STEP_POINTS / MAX (1u, c->steps->len / 4));
  if (!rt_plot_cdf (r->s, r->cdf, NULL, MIN (step_points, (guint) RT_PLOT_CDF_STEP_POINTS), error))
    return FALSE;
  rt_section_plot (sec, "cdf", "cdf");
  g_autoptr (RtTable) all = rt_cdf_steps_table (c);
  if (!rt_session_write_table (r->s, all, "cdf_steps", error))
    return FALSE;
  RtCdfEvent shown_event = *c;
  g_autoptr (GArray) steps = g_array_copy (c->steps);
  if (steps->len > TABLE_ROWS_MAX)
    g_array_sort (steps, compare_p99);
  shown_event.steps = steps;
  g_autoptr (RtTable) tab = rt_cdf_steps_table (&shown_event);
  if (steps->len > TABLE_ROWS_MAX)
    rt_section_note (sec, "The steps with the largest P99 first.");
  static const char *const cols[] = { "step", "count", "p50", "p90", "p95", "p99", "max", NULL };
  return rt_section_table (r, sec, tab, cols, NULL, error);
}

static gboolean
section_workers (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  if (r->workers->steps->len == 0)
    {
      rt_section_note (sec, "No selected step has a total_step_duration line.");
      return TRUE;
    }
  rt_section_caption (sec, "Per step, the straggler: the rank the others wait for at the barrier, the one that generated "
                "longest (async_generate_duration), and the imbalance, its generation time over the median rank's. "
                "A rank that is often the straggler makes every other rank wait. Below, every rank's sections in "
                "the slowest step; the critical path is the straggler.");
  if (!rt_plot_workers_steps (r->s, r->workers, error))
    return FALSE;
  rt_section_plot (sec, "workers_steps", "workers_steps");
  int si = r->timeline->step_index;
  if (si < 0)
    return TRUE;
  g_autoptr (RtWorkersStep) ws = rt_workers_step_analyse (r->t, (guint) si);
  if (ws->workers->len == 0)
    return TRUE;
  const RtStepBalance *b = &ws->balance;
  if (!rt_plot_workers_step (r->s, ws, FALSE, error))
    return FALSE;
  g_autofree char *name = g_strdup_printf ("workers_step_%d", b->step);
  rt_section_html (sec, "<p>");
  if (b->slowest_file >= 0 && b->by_generation)
    rt_section_text_printf (sec, "Step %d: worker %d is the straggler: it generated for %.2f s against a median of %.2f s "
                 "(imbalance %.3f); the ranks waited %.2f s at the barrier on average. By total_step_duration, "
                 "which holds that wait, the longest is %.2f s and the median %.2f s.",
                 b->step, b->slowest_worker, b->generation_max, b->generation_median, b->imbalance,
                 ws->barrier_mean_s, b->total_max, b->total_median);
  else if (b->slowest_file >= 0)
    rt_section_text_printf (sec, "Step %d: no rank logged generation time; by total_step_duration the straggler is worker %d "
                 "(%.2f s against a median of %.2f s, imbalance %.3f).", b->step, b->slowest_worker, b->total_max,
                 b->total_median, b->imbalance);
  rt_section_html (sec, "</p>\n");
  rt_section_plot (sec, name, name);
  return TRUE;
}

/* One of the slowest requests followed (rt-requests --id): its lines and gaps in a table, and
 * their Gantt. `names` holds the plots' names so far: two ids made the same file name (their
 * other bytes become '_') get "_2", "_3"... */
static gboolean
request_view (RtReport *r, Section *sec, const RtSlowRequest *slow, guint rank, GHashTable *names, GError **error)
{
  const RtTrace *t = r->t;
  g_autoptr (RtRequestView) v = rt_request_view (t, slow->request);
  const RtRequest *q = rt_trace_request (t, slow->request);
  g_autofree char *caption = rt_request_title (t, q, r->s->full_ids);
  rt_section_html (sec, "<h3 class=\"request\" id=\"request-%u\">", rank);
  rt_section_text (sec, caption);
  rt_section_html (sec, "</h3>\n<p>");
  rt_section_text (sec, "Request ");
  rt_section_html (sec, "<code>");
  rt_section_text (sec, rt_request_id (t, q));
  rt_section_html (sec, "</code>");
  rt_section_text_printf (sec, ", step %d: %u lines, %u gaps of %g ms or more (%.3f s in all) where nothing was logged. "
               "A line is indented under the line that holds it; times in seconds from the request's start "
               "(rt-requests EXP --id ID shows the same).", q->step, v->lines, v->gaps,
               RT_REQUEST_GAP_MIN_S * 1000, v->gap_s);
  rt_section_html (sec, "</p>\n");
  if (v->lines == 0)
    {
      return TRUE;
    }
  g_autofree char *base = rt_request_plot_name (rt_request_id (t, q));
  char *name = g_strdup (base);
  for (guint k = 2; g_hash_table_contains (names, name); k++)
    {
      g_free (name);
      name = g_strdup_printf ("%s_%u", base, k);
    }
  g_hash_table_add (names, name);
  g_autoptr (RtTable) lines = rt_request_lines_table (t, v);
  rt_section_html (sec, "<details><summary>");
  guint n_rows = rt_table_n_rows (lines);
  rt_section_text_printf (sec, "the %u row%s, lines and gaps", n_rows, n_rows == 1 ? "" : "s");
  rt_section_html (sec, "</summary><table><thead><tr><th>start (s)</th><th>end (s)</th><th>duration (s)</th><th>turn</th>"
             "<th>event</th></tr></thead><tbody>\n");
  for (guint i = 0; i < v->items->len; i++)
    {
      const RtRequestItem *it = rt_request_item (v, i);
      rt_section_html (sec, "<tr>");
      rt_section_html (sec, "<td class=\"num\">%.6f</td><td class=\"num\">%.6f</td>", it->start_s, it->end_s);
      if (isnan (it->duration_s))
        rt_section_html (sec, "<td class=\"num\">-</td>");
      else
        rt_section_html (sec, "<td class=\"num\">%.6f</td>", it->duration_s);
      rt_section_cell_number (sec, it->turn >= 0 ? it->turn : NAN, RT_COLUMN_INT);
      rt_section_html (sec, "<td style=\"padding-left:%.1fem\">", 0.5 + 1.2 * it->depth);
      rt_section_text (sec, it->row == RT_NONE ? "(gap: nothing logged)" : rt_event_registry_name (t->registry, it->event));
      rt_section_html (sec, "</td></tr>\n");
    }
  rt_section_html (sec, "</tbody></table></details>\n");
  if (!rt_plot_request_view (r->s, v, name, error))
    return FALSE;
  rt_section_plot (sec, name, name);
  return TRUE;
}

static gboolean
section_requests (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  int si = r->timeline->step_index;
  if (si < 0)
    {
      rt_section_note (sec, "No selected step has a rollout time.");
      return TRUE;
    }
  g_autoptr (RtRequests) req = rt_requests_analyse (r->t, (guint) si, -1, TOP_REQUESTS);
  if (req->slowest->len == 0)
    {
      rt_section_text_printf (sec, "Step %d has no complete request with a duration.", req->step);
      return TRUE;
    }
  rt_section_caption (sec, "The slowest requests of the slowest step, their time split by phase: engine time means long "
                "generations, tool time slow tools, and a large unlogged remainder queueing.");
  if (!rt_plot_requests_top (r->s, req, FALSE, error))
    return FALSE;
  g_autofree char *name = g_strdup_printf ("requests_top_step_%d", req->step);
  rt_section_plot (sec, name, name);
  rt_section_html (sec, "<ol class=\"requests\">\n");
  for (guint i = 0; i < req->slowest->len; i++)
    {
      const RtSlowRequest *slow = &g_array_index (req->slowest, RtSlowRequest, i);
      g_autofree char *line = rt_request_caption (r->t, rt_trace_request (r->t, slow->request), i + 1,
                                                  r->s->full_ids);
      rt_section_html (sec, "<li>");
      if (i < FOLLOWED_REQUESTS)
        rt_section_html (sec, "<a href=\"#request-%u\">", i + 1);
      rt_section_text (sec, line);
      if (i < FOLLOWED_REQUESTS)
        rt_section_html (sec, "</a>");
      rt_section_html (sec, "</li>\n");
    }
  rt_section_html (sec, "</ol>\n");
  g_autofree char *truncation = rt_requests_truncation_line (req);
  if (truncation != NULL)
    {
      rt_section_html (sec, "<p class=\"truncation\">");
      rt_section_text (sec, truncation);
      rt_section_html (sec, "</p>\n");
    }
  g_autoptr (GHashTable) names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint i = 0; i < MIN (req->slowest->len, (guint) FOLLOWED_REQUESTS); i++)
    if (!request_view (r, sec, &g_array_index (req->slowest, RtSlowRequest, i), i + 1, names, error))
      return FALSE;
  return TRUE;
}

static gboolean
section_turns (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  if (r->turns->turns->len == 0 && r->turn_dist->steps->len == 0)
    {
      rt_section_note (sec, "No turn timings and no turn counts in this trace (the older logger writes neither).");
      return TRUE;
    }
  rt_section_caption (sec, "Mean time of each part of a turn by turn index, and how many turns requests take per step: an "
                "engine time that grows with the turn index is a growing context.");
  if (r->turns->turns->len > 0)
    {
      if (!rt_plot_turns (r->s, r->turns, error))
        return FALSE;
      rt_section_plot (sec, "turns", "turns");
    }
  else
    rt_section_note (sec, "No turn timings (turn_timings or turn_end lines) in this trace.");
  if (r->turn_dist->steps->len > 0)
    {
      if (!rt_plot_turn_dist (r->s, r->turn_dist, error))
        return FALSE;
      rt_section_plot (sec, "turn_dist_counts", "turn_dist_counts");
    }
  return TRUE;
}

static gboolean
section_timeline (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  const RtTimeline *tl = r->timeline;
  if (!tl->found || tl->requests == 0)
    {
      rt_section_note (sec, "No selected step has a rollout time and requests to lay out in time.");
      return TRUE;
    }
  rt_section_caption (sec, "The slowest step on a time line: every request under its rank's sections, and how many were in "
                "flight. A long thin tail after the 90 % mark is the step waiting for its last requests.");
  rt_section_html (sec, "<p>");
  rt_section_text_printf (sec, "Step %d: %u requests; 50 %% had finished at %.2f s, 90 %% at %.2f s, 99 %% at %.2f s, the last at "
               "%.2f s (tail share %.2f); at most %u in flight at once.", tl->step, tl->requests, tl->t50_s,
               tl->t90_s, tl->t99_s, tl->t100_s, tl->tail_share, tl->peak_in_flight);
  rt_section_html (sec, "</p>\n");
  /* every request of a big step is a Gantt gnuplot takes seconds over and nobody reads: its
   * tail, the requests still alive when 90 % had finished, is the part that answers */
  gboolean whole = tl->requests <= GANTT_REQUESTS_MAX || !(tl->t90_s < tl->end_s);
  g_autofree char *gantt = g_strdup_printf (whole ? "timeline_step_%d" : "timeline_step_%d_tail", tl->step);
  g_autofree char *inflight = g_strdup_printf ("inflight_step_%d", tl->step);
  g_autoptr (GArray) none = g_array_new (FALSE, FALSE, sizeof (gint32));
  if (!whole)
    rt_section_note (sec, "More requests than a Gantt shows one by one: the Gantt below is the tail, from 90 % finished.");
  if (!rt_plot_timeline_gantt (r->s, tl, NULL, NULL, gantt, whole ? "" : "its tail (from 90 % of requests finished)",
                               whole ? NAN : tl->t90_s, whole ? NAN : tl->end_s, error)
      || !rt_plot_timeline_inflight (r->s, tl, tl->workers->len > INFLIGHT_WORKERS_MAX ? none : NULL, NULL, error))
    return FALSE;
  rt_section_plot (sec, gantt, gantt);
  rt_section_plot (sec, inflight, inflight);
  return TRUE;
}

static gboolean
section_shares (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  const RtEvents *ev = r->events;
  if (ev->steps->len == 0)
    {
      rt_section_note (sec, "No selected step has a total_step_duration line.");
      return TRUE;
    }
  rt_section_caption (sec, "Each step-level section's share of the step, stacked: generation should dominate; a thick "
                "barrier band is time every rank spends waiting for the slowest.");
  if (!rt_plot_events (r->s, ev, error))
    return FALSE;
  rt_section_plot (sec, "events_stacked", "events");
  rt_section_html (sec, "<table><thead><tr><th>section</th><th>mean share of a step (%%)</th></tr></thead><tbody>\n");
  for (int e = 0; e < RT_EV_TOTAL_STEP; e++)
    if (ev->mean_pct[e] >= 0.05)
      {
        rt_section_html (sec, "<tr><td>");
        rt_section_text (sec, rt_step_event_name (e));
        rt_section_html (sec, "</td><td class=\"num\">%.2f</td></tr>\n", ev->mean_pct[e]);
      }
  rt_section_html (sec, "</tbody></table>\n");
  return TRUE;
}

static gboolean
section_trainer (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  if (r->opts.train == NULL)
    {
      *shown = FALSE;
      return TRUE;
    }
  const RtTrainLog *log = r->opts.train;
  rt_section_html (sec, "<p>");
  rt_section_text_printf (sec, "The trainer's log %s: %u steps.", r->opts.train_path ? r->opts.train_path : "", log->steps->len);
  rt_section_html (sec, "</p>\n");
  if (log->steps->len == 0)
    {
      rt_section_note (sec, "The log has no 'step:N - name:value' line.");
      return TRUE;
    }
  rt_section_caption (sec, "Where each training step's time goes, by section of the trainer's timing_s metrics: generation "
                "against the updates.");
  const RtTrainPlot *p = &r->train->plots[RT_TRAIN_BREAKDOWN];
  if (p->found->len > 0)
    {
      if (!rt_plot_train_breakdown (r->s, log, p, error))
        return FALSE;
      rt_section_plot (sec, p->name, p->name);
    }
  g_autoptr (RtTable) metrics = rt_train_metrics_table (r->train);
  static const char *const cols[] = { "metric", "count", "mean", "min", "median", "max", NULL };
  return rt_section_table (r, sec, metrics, cols, "train_metrics", error);
}

static gboolean
section_quality (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  const RtCheck *c = r->check;
  rt_section_caption (sec, "What was read and what was wrong with it: bad lines are skipped, missing worker files leave a "
                "rank out of its step.");
  rt_section_html (sec, "<table><tbody>\n");
  rt_section_html (sec, "<tr><th>steps</th><td class=\"num\">%u</td></tr>\n", c->n_steps);
  rt_section_html (sec, "<tr><th>worker files</th><td class=\"num\">%" G_GUINT64_FORMAT "</td></tr>\n", c->files);
  rt_section_html (sec, "<tr><th>lines</th><td class=\"num\">%" G_GUINT64_FORMAT "</td></tr>\n", c->lines);
  rt_section_html (sec, "<tr><th>bad lines</th><td class=\"num\">%" G_GUINT64_FORMAT "</td></tr>\n", c->bad_lines);
  rt_section_html (sec, "<tr><th>fields of the wrong type</th><td class=\"num\">%" G_GUINT64_FORMAT "</td></tr>\n",
        c->field_problems);
  rt_section_html (sec, "<tr><th>complete requests</th><td class=\"num\">%" G_GUINT64_FORMAT "</td></tr>\n", c->requests);
  rt_section_html (sec, "<tr><th>missing worker files</th><td class=\"num\">%u</td></tr>\n", c->missing->len);
  rt_section_html (sec, "<tr><th>other entries in the folder</th><td class=\"num\">%u</td></tr>\n", r->t->strays->len);
  rt_section_html (sec, "</tbody></table>\n");
  if (c->missing->len > 0)
    {
      g_autoptr (RtTable) missing = rt_check_missing_table (c);
      rt_section_html (sec, "<h3>Missing worker files</h3>\n");
      if (!rt_section_table (r, sec, missing, NULL, "check_missing", error))
        return FALSE;
    }
  if (c->problems->len > 0)
    {
      g_autoptr (RtTable) problems = rt_check_problems_table (r->t, c);
      rt_section_html (sec, "<h3>The first bad lines</h3>\n");
      if (!rt_section_table (r, sec, problems, NULL, "check_problems", error))
        return FALSE;
    }
  return TRUE;
}

/* Why the tail, and what would have helped: rt-tail's causes beside the bubble, then the two
 * policies of the whatif_saving finding replayed by rt-whatif, with what each would have cut. */
static void
whatif_text (Section *sec, const RtWhatif *w, const char *what)
{
  char kt[32], kk[32];
  rt_section_html (sec, "<p>");
  if (w->steps_predicted == 0)
    rt_section_text_printf (sec, "%s: no step has a prediction (a step of one request defers it whole).", what);
  else
    rt_section_text_printf (sec, "%s: over %u step%s with a prediction%s, the rollouts would have taken %.2f s in all instead of "
                 "the recorded %.2f s: %.2f s saved (%.1f %%), %u of %u requests cut. KS p-value of the cut requests' "
                 "turns against the kept ones' %s, of their tokens %s (below %g: they differ, and cutting them "
                 "biases the batch).", what, w->steps_predicted, w->steps_predicted == 1 ? "" : "s",
                 w->steps_unknown > 0 ? " (the others have too few requests)" : "", w->predicted_s, w->recorded_s,
                 w->saved_s, 100 * w->saved_share, w->cut, w->requests,
                 isnan (w->ks_turns[1]) ? "-" : (g_snprintf (kt, sizeof kt, "%.3g", w->ks_turns[1]), kt),
                 isnan (w->ks_tokens[1]) ? "-" : (g_snprintf (kk, sizeof kk, "%.3g", w->ks_tokens[1]), kk),
                 RT_FINDING_WHATIF_KS_P);
  rt_section_html (sec, "</p>\n");
}

static gboolean
section_why_tail (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  (void) shown;
  const RtTail *tail = r->tail;
  if (tail->steps->len == 0)
    {
      rt_section_note (sec, "No selected step has a complete request with a duration and a time.");
      return TRUE;
    }
  rt_section_caption (sec, "Per step, why the requests that ended after 90 % of them had (the tail) were late: their excess "
                "over the mean of those that ended first (the bulk), split exactly by cause and stacked, beside "
                "the bubble, the share of rank-time left idle until the last request ended (rt-tail). Below, what "
                "two policies would have saved, replayed on the recorded steps (rt-whatif).");
  if (!rt_plot_tail (r->s, tail, error))
    return FALSE;
  rt_section_plot (sec, "tail", "tail_steps");

  /* the causes summed over the steps where each is known */
  static const RtTailPart parts[] = { RT_PART_LAUNCH, RT_PART_EXTRA_TURNS, RT_PART_SLOWER_TURNS, RT_PART_TOOL,
                                      RT_PART_OTHER, RT_PART_DURATION };
  double sum[G_N_ELEMENTS (parts)] = { 0 }, bubble = 0;
  guint known[G_N_ELEMENTS (parts)] = { 0 }, bubbles = 0;
  for (guint i = 0; i < tail->steps->len; i++)
    {
      const RtTailStep *ts = &g_array_index (tail->steps, RtTailStep, i);
      for (guint k = 0; k < G_N_ELEMENTS (parts); k++)
        if (!isnan (ts->tail_excess.v[parts[k]]))
          {
            sum[k] += ts->tail_excess.v[parts[k]];
            known[k]++;
          }
      if (!isnan (ts->bubble))
        {
          bubble += ts->bubble;
          bubbles++;
        }
    }
  rt_section_html (sec, "<p>");
  rt_section_text_printf (sec, "%u step%s with a request, %u of them attributed (every request's time split). The cause that "
               "dominates the tail, in steps:", tail->steps->len, tail->steps->len == 1 ? "" : "s",
               tail->attributed_steps);
  for (int c = 0; c <= RT_TAIL_NONE; c++)
    if (tail->tail_dominant[c] > 0)
      rt_section_text_printf (sec, " %s %u;", rt_tail_cause_name (c), tail->tail_dominant[c]);
  rt_section_text (sec, " the tail's excess summed over the steps (where known):");
  for (guint k = 0; k < G_N_ELEMENTS (parts); k++)
    if (known[k] > 0)
      rt_section_text_printf (sec, "%s %s %.2f s", k == 0 ? "" : ",", rt_tail_cause_name ((RtTailCause) k), sum[k]);
  if (bubbles > 0)
    rt_section_text_printf (sec, ". Mean bubble: %.1f %%.", 100 * bubble / bubbles);
  else
    rt_section_text (sec, ".");
  rt_section_html (sec, "</p>\n");
  g_autoptr (RtTable) steps = rt_tail_steps_table (tail);
  /* what the plot shows, as numbers (tail_steps.tsv has every column) */
  static const char *const tail_cols[] = { "step", "tail_s", "bubble", "excess_launch_s", "excess_extra_turns_s",
                                           "excess_slower_turns_s", "excess_tool_s", "excess_other_s",
                                           "tail_dominant", NULL };
  if (!rt_section_table (r, sec, steps, tail_cols, NULL, error))
    return FALSE;

  rt_section_html (sec, "<h3>What would have helped</h3>\n");
  const RtWhatif *defer = g_ptr_array_index (r->whatif, 0), *keep = g_ptr_array_index (r->whatif, 1);
  if (!rt_plot_whatif (r->s, r->whatif, error))
    return FALSE;
  rt_section_plot (sec, "whatif", "whatif");
  g_autofree char *defer_what = g_strdup_printf ("Deferring each step's slowest %g %% to the next (K = ceil(%g R) of "
                                                 "its R requests)", 100 * RT_FINDING_DEFER_SHARE,
                                                 RT_FINDING_DEFER_SHARE);
  g_autofree char *keep_what = g_strdup_printf ("Keeping the first %g %% of each step's requests (k = ceil(%g R))",
                                                100 * RT_FINDING_KEEP_SHARE, RT_FINDING_KEEP_SHARE);
  whatif_text (sec, defer, defer_what);
  whatif_text (sec, keep, keep_what);
  static const char *const whatif_cols[] = { "step", "requests", "recorded_rollout_s", "predicted_rollout_s", "saved_s",
                                             "saved_share", "requests_cut", NULL };
  g_autoptr (RtTable) defer_steps = rt_whatif_steps_table (defer);
  g_autoptr (RtTable) keep_steps = rt_whatif_steps_table (keep);
  rt_section_html (sec, "<h3>");
  rt_section_text_printf (sec, "Defer the slowest %g %%, per step", 100 * RT_FINDING_DEFER_SHARE);
  rt_section_html (sec, "</h3>\n");
  if (!rt_section_table (r, sec, defer_steps, whatif_cols, "whatif_defer", error))
    return FALSE;
  rt_section_html (sec, "<h3>");
  rt_section_text_printf (sec, "Keep the first %g %%, per step", 100 * RT_FINDING_KEEP_SHARE);
  rt_section_html (sec, "</h3>\n");
  return rt_section_table (r, sec, keep_steps, whatif_cols, "whatif_keep", error);
}

/* A plot of rt_plot_compare, shown where it was written (it leaves out a plot without values). */
static void
plot_if_written (RtReport *r, Section *sec, const char *name, const char *data_stem)
{
  g_autofree char *script = g_strdup_printf ("%s.gp", name);
  g_autofree char *path = rt_session_out_path (r->s, script);
  if (g_file_test (path, G_FILE_TEST_EXISTS))
    rt_section_plot (sec, name, data_stem);
}

/* The comparison with the experiments of --compare, by rt-compare's analysis and plots: this
 * experiment is the reference, steps paired by number. */
static gboolean
section_comparison (RtReport *r, Section *sec, gboolean *shown, GError **error)
{
  RtSession *s = r->s;
  if (s->experiments == NULL || s->experiments->len < 2)
    {
      *shown = FALSE;
      return TRUE;
    }
  guint n = s->experiments->len;
  g_autofree RtCompareInput *inputs = g_new0 (RtCompareInput, n);
  g_autofree const char **labels = g_new0 (const char *, n + 1);
  for (guint e = 0; e < n; e++)
    {
      const RtExperiment *x = rt_session_experiment (s, e);
      inputs[e] = (RtCompareInput) { x->trace, x->label, x->trace->path, x->step_set };
      labels[e] = x->label;
    }
  g_autoptr (RtCompare) c = rt_compare_analyse (inputs, n, s->steps, RT_COMPARE_ALIGN_STEP);
  rt_section_caption (sec, "This experiment (the first row, the reference) beside each --compare experiment: the ratios of "
                "request-duration percentiles, and the KS test (a small p-value: the durations differ beyond chance); "
                "below, the same views drawn side by side, steps paired by number.");
  for (guint e = 0; e < n; e++)
    if (c->experiments[e].durations->len == 0)
      {
        rt_section_html (sec, "<p class=\"note\">");
        rt_section_text_printf (sec, "%s has no finite request duration in the selected steps.", c->experiments[e].in.label);
        rt_section_html (sec, "</p>\n");
      }
  g_autoptr (RtTable) experiments = rt_compare_experiments_table (c);
  g_autoptr (RtTable) versus = rt_compare_versus_table (c);
  g_autoptr (RtTable) steps = rt_compare_steps_table (c);
  static const char *const experiment_cols[] = { "label", "requests", "mean", "p50", "p90", "p99", "rollout_mean",
                                                 "barrier_share_mean", "requests_per_s", "tokens_per_s", NULL };
  static const char *const versus_cols[] = { "label", "mean_ratio", "p50_ratio", "p90_ratio", "p99_ratio",
                                             "statistic", "pvalue", NULL };
  if (!rt_section_table (r, sec, experiments, experiment_cols, "compare_experiments", error)
      || !rt_section_table (r, sec, versus, versus_cols, "compare_versus", error)
      || !rt_session_write_table (s, steps, "compare_steps", error))
    return FALSE;

  /* the plots' titles name the experiments compared, as rt-compare's do */
  char *subject = s->subject;
  s->subject = g_strjoinv (" vs ", (char **) labels);
  g_autofree char *steps_text = rt_compare_describe_steps (c);
  gboolean drawn = rt_plot_compare (s, c, NULL, steps_text, error);
  g_free (s->subject);
  s->subject = subject;
  if (!drawn)
    return FALSE;
  static const char *const plots[][2] = {
    { "compare_cdf", "compare_cdf" }, { "compare_steps", "compare_steps" },
    { "compare_throughput", "compare_steps" }, { "compare_hist", "compare_hist" },
    { "compare_turns", "compare_turns" }, { "compare_turn_dist", "compare_turn_dist" },
    { "compare_events", "compare_events" },
  };
  for (guint i = 0; i < G_N_ELEMENTS (plots); i++)
    plot_if_written (r, sec, plots[i][0], plots[i][1]);

  /* mix or speed: each one's mean request duration against this one's, split by turns */
  for (guint e = 1; e < n; e++)
    {
      const RtMix *m = g_ptr_array_index (r->mixes, e - 1);
      rt_section_html (sec, "<h3>");
      rt_section_text_printf (sec, "Mix or speed: %s against %s", labels[e], labels[0]);
      rt_section_html (sec, "</h3>\n");
      if (isnan (m->delta_s))
        {
          rt_section_note (sec, "One of the two has no complete request with a known number of turns: no split "
                     "(rt-compare --mix turns says the same).");
          continue;
        }
      rt_section_html (sec, "<p>");
      rt_section_text_printf (sec, "The mean request duration differs by %+.3f s (%.3f s against %.3f s, over %u and %u requests "
                   "with a known number of turns) = mix %+.3f s (a different share of requests per number of turns) "
                   "+ speed %+.3f s (requests of the same number of turns took longer or shorter) + unmatched "
                   "%+.3f s (requests of a number of turns the reference, %s, never ran), as rt-compare --mix turns "
                   "splits it.", m->delta_s,
                   m->side[1].mean_s, m->side[0].mean_s, m->side[1].binned, m->side[0].binned, m->mix_s, m->speed_s,
                   m->unmatched_s, labels[0]);
      rt_section_html (sec, "</p>\n");
      g_autoptr (RtTable) bins = rt_mix_bins_table (m);
      g_autofree char *name = g_strdup_printf ("compare_mix_%u", e + 1);
      if (!rt_section_table (r, sec, bins, NULL, name, error)
          || !rt_plot_compare_mix (s, m, labels[0], labels[e], name, error))
        return FALSE;
      rt_section_plot (sec, name, name);
    }
  return TRUE;
}

static const struct {
  const char *name, *title;
  SectionFunc build;
} sections[] = {
  { "overview", "Overview", section_overview },
  { "tail", "The tail", section_tail },
  { "why_tail", "Why the tail, and what would have helped", section_why_tail },
  { "workers", "Workers", section_workers },
  { "requests", "Slowest requests", section_requests },
  { "turns", "Turns", section_turns },
  { "timeline", "Timeline of the slowest step", section_timeline },
  { "sections", "Step sections", section_shares },
  { "trainer", "Trainer metrics", section_trainer },
  { "quality", "Data quality", section_quality },
  { "comparison", "Comparison", section_comparison },
};

/* ---- what a --watch keeps from one round to the next ---- */

/* A round leaves its last steps out of what it keeps: a running job may still write them. */
#define MEMO_OPEN_STEPS 2

/* What an analysis that adds the selected steps one at a time in ascending order had after the
 * first `identities->len` of them in a round, and what those steps were: a later round whose
 * first steps are the same goes on from a copy of it, reading the steps after them alone. */
typedef struct {
  GPtrArray *identities;      /* GBytes: rt_trace_step_identity */
  gpointer state;             /* the analysis's own, or NULL */
  gpointer (*copy) (gconstpointer state);
  GDestroyNotify free;
  guint steps_read;           /* by the last round */
} Kept;

/* rt-tail's and rt-whatif's, which read each step's requests once for both */
typedef struct {
  RtTail *tail;
  RtWhatifReplay *replay;
} TailWhatif;

static void
tail_whatif_free (gpointer data)
{
  TailWhatif *tw = data;
  if (tw == NULL)
    return;
  rt_tail_free (tw->tail);
  rt_whatif_replay_free (tw->replay);
  g_free (tw);
}

static gpointer
tail_whatif_copy (gconstpointer data)
{
  const TailWhatif *tw = data;
  TailWhatif *c = g_new (TailWhatif, 1);
  c->tail = rt_tail_copy (tw->tail);
  c->replay = rt_whatif_replay_copy (tw->replay);
  return c;
}

struct _RtReportMemo {
  Kept tail_whatif, turn_dist, walk;
};

static void
kept_init (Kept *k, gpointer (*copy) (gconstpointer), GDestroyNotify free_state)
{
  k->identities = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  k->copy = copy;
  k->free = free_state;
}

static void
kept_clear (Kept *k)
{
  g_ptr_array_unref (k->identities);
  if (k->state != NULL)
    k->free (k->state);
}

RtReportMemo *
rt_report_memo_new (void)
{
  RtReportMemo *m = g_new0 (RtReportMemo, 1);
  kept_init (&m->tail_whatif, tail_whatif_copy, tail_whatif_free);
  kept_init (&m->turn_dist, (gpointer (*) (gconstpointer)) rt_turn_dist_fill_copy,
             (GDestroyNotify) rt_turn_dist_fill_free);
  kept_init (&m->walk, (gpointer (*) (gconstpointer)) rt_request_walk_copy, (GDestroyNotify) rt_request_walk_free);
  return m;
}

void
rt_report_memo_free (RtReportMemo *m)
{
  if (m == NULL)
    return;
  kept_clear (&m->tail_whatif);
  kept_clear (&m->turn_dist);
  kept_clear (&m->walk);
  g_free (m);
}

guint
rt_report_memo_steps_read (const RtReportMemo *m, RtReportKept which)
{
  const Kept *k[] = { &m->tail_whatif, &m->turn_dist, &m->walk };
  return k[which]->steps_read;
}

/* The identities of the steps `selected` when there is a memo to compare them with, else NULL. */
static GPtrArray *
identities_of (const RtTrace *t, const GArray *selected, const Kept *k)
{
  if (k == NULL)
    return NULL;
  GPtrArray *ids = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  for (guint i = 0; i < selected->len; i++)
    g_ptr_array_add (ids, rt_trace_step_identity (t, g_array_index (selected, guint, i)));
  return ids;
}

/* How many of the steps `ids` the round need not read, with *state a copy of what they gave;
 * 0 when `k` is NULL or its steps are not the first of `ids` as they were. */
static guint
kept_resume (const Kept *k, const GPtrArray *ids, gpointer *state)
{
  *state = NULL;
  if (k == NULL || k->state == NULL || k->identities->len > ids->len)
    return 0;
  for (guint i = 0; i < k->identities->len; i++)
    if (!g_bytes_equal (g_ptr_array_index (k->identities, i), g_ptr_array_index (ids, i)))
      return 0;
  *state = k->copy (k->state);
  return k->identities->len;
}

/* Called before step `i` of `ids` is added to `state`, read from step `from` on: keeps a copy
 * of `state` when `i` is where the round's open steps begin and the memo has fewer. */
static void
kept_before_step (Kept *k, const GPtrArray *ids, guint from, guint i, gconstpointer state)
{
  guint keep = ids != NULL && ids->len > MEMO_OPEN_STEPS ? ids->len - MEMO_OPEN_STEPS : 0;
  if (k == NULL || i != keep || keep <= from)
    return;
  g_ptr_array_set_size (k->identities, 0);
  for (guint n = 0; n < keep; n++)
    g_ptr_array_add (k->identities, g_bytes_ref (g_ptr_array_index (ids, n)));
  if (k->state != NULL)
    k->free (k->state);
  k->state = k->copy (state);
}

/* What an analysis that adds the selected steps one at a time in ascending order (`add`) gives:
 * gone on from a copy of what `k` kept when its steps are the first ones again (`rebase`, if
 * any, fitting that copy to this load, or turning it down), else from `fresh`; `k` keeps anew
 * on the way. */
typedef void (*AddStep) (gpointer state, const RtTrace *t, guint step_index);

static gpointer
steps_added (const RtTrace *t, const RtStepSet *steps, Kept *k, gpointer (*fresh) (void),
             gboolean (*rebase) (gpointer state, const RtTrace *t), AddStep add)
{
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  g_autoptr (GPtrArray) ids = identities_of (t, selected, k);
  gpointer state;
  guint from = kept_resume (k, ids, &state);
  if (state != NULL && rebase != NULL && !rebase (state, t))
    {
      k->free (state);
      state = NULL;
      from = 0;
    }
  if (state == NULL)
    state = fresh ();
  for (guint i = from; i < selected->len; i++)
    {
      kept_before_step (k, ids, from, i, state);
      add (state, t, g_array_index (selected, guint, i));
    }
  if (k != NULL)
    k->steps_read = selected->len - from;
  return state;
}

static gpointer
tail_whatif_new (void)
{
  RtWhatifSetting settings[2];
  rt_finding_whatif_settings (settings);
  TailWhatif *tw = g_new (TailWhatif, 1);
  tw->tail = rt_tail_new ();
  tw->replay = rt_whatif_replay_new (settings, G_N_ELEMENTS (settings));
  return tw;
}

/* (each step's requests read once for both) */
static void
tail_whatif_add (gpointer state, const RtTrace *t, guint step_index)
{
  TailWhatif *tw = state;
  g_autoptr (RtLateRequests) requests = rt_late_requests_new (t, step_index, rt_whatif_replay_turn (tw->replay));
  rt_tail_add_step (tw->tail, t, requests);
  rt_whatif_replay_step (tw->replay, requests);
}

void
rt_report_tail_whatif (const RtTrace *t, const RtStepSet *steps, RtReportMemo *memo, RtTail **tail_out,
                       GPtrArray **whatif_out)
{
  TailWhatif *tw = steps_added (t, steps, memo != NULL ? &memo->tail_whatif : NULL, tail_whatif_new, NULL,
                                tail_whatif_add);
  *tail_out = tw->tail;
  *whatif_out = rt_whatif_replay_finish (tw->replay);
  g_free (tw);
}

RtTurnDist *
rt_report_turn_dist (const RtTrace *t, const RtStepSet *steps, RtReportMemo *memo)
{
  return rt_turn_dist_fill_finish (steps_added (t, steps, memo != NULL ? &memo->turn_dist : NULL,
                                                (gpointer (*) (void)) rt_turn_dist_fill_new, NULL,
                                                (AddStep) rt_turn_dist_fill_step));
}

RtRequestWalk *
rt_report_request_walk (const RtTrace *t, const RtStepSet *steps, RtReportMemo *memo)
{
  /* (the requests a kept walk holds, numbered anew in this load's tables) */
  return steps_added (t, steps, memo != NULL ? &memo->walk : NULL, (gpointer (*) (void)) rt_request_walk_new,
                      (gboolean (*) (gpointer, const RtTrace *)) rt_request_walk_rebase,
                      (AddStep) rt_request_walk_step);
}

/* ---- the report ---- */

/* The analyses, each a task that rt_run_shared shares out, the longest first (on the 10M tree:
 * the timeline's spans of the slowest step, the CDF's durations, the turn counts' walk over
 * every request, then the small ones): the two threads then end about together, which two
 * fixed groups did not (figures: bench/RESULTS.md, "Behind the code"). Event rows, read by some of them, are checked
 * once, by whichever thread asks first (rt_trace_file_events). Without a second core the
 * calling thread runs them all. */
static void
analyse_timeline (RtReport *r)
{
  r->timeline = rt_timeline_analyse (r->t, r->s->steps, -1);
}

static void
analyse_cdf (RtReport *r)
{
  r->cdf = rt_cdf_analyse (r->t, r->s->steps, NULL);
}

static void
analyse_turn_dist (RtReport *r)
{
  r->turn_dist = rt_report_turn_dist (r->t, r->s->steps, r->opts.memo);
}

static void
analyse_events (RtReport *r)
{
  r->events = rt_events_analyse (r->t, r->s->steps);
}

static void
analyse_workers (RtReport *r)
{
  r->workers = rt_workers_analyse (r->t, r->s->steps);
}

static void
analyse_check (RtReport *r)
{
  r->check = rt_check_analyse (r->t, r->s->steps);
}

static void
analyse_turns (RtReport *r)
{
  r->turns = rt_turns_analyse (r->t, r->s->steps);
}

static void
analyse_walk (RtReport *r)
{
  r->walk = rt_report_request_walk (r->t, r->s->steps, r->opts.memo);
}

static void
analyse_overview (RtReport *r)
{
  r->overview = rt_overview_analyse (r->t, r->s->steps, r->opts.train);
}

/* rt-tail's and rt-whatif's, over every selected step's requests read once for both (reading
 * them is the costly part) */
static void
analyse_tail_whatif (RtReport *r)
{
  rt_report_tail_whatif (r->t, r->s->steps, r->opts.memo, &r->tail, &r->whatif);
}

/* rt-compare --mix turns of each --compare experiment against this one, as rt-compare pairs them */
static void
analyse_mixes (RtReport *r)
{
  RtSession *s = r->s;
  if (s->experiments == NULL || s->experiments->len < 2)
    return;
  const RtExperiment *a = rt_session_experiment (s, 0);
  r->mixes = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_mix_free);
  for (guint e = 1; e < s->experiments->len; e++)
    {
      const RtExperiment *b = rt_session_experiment (s, e);
      g_ptr_array_add (r->mixes, rt_mix_analyse (a->trace, a->step_set != NULL ? a->step_set : s->steps, b->trace,
                                                 b->step_set != NULL ? b->step_set : s->steps, RT_MIX_TURNS, NULL));
    }
}

static void (*const analyses[]) (RtReport *r) = {
  analyse_timeline, analyse_cdf, analyse_tail_whatif, analyse_turn_dist, analyse_events, analyse_workers,
  analyse_check, analyse_turns, analyse_overview, analyse_walk, analyse_mixes,
};

static void
run_analyses (gpointer data, guint task)
{
  analyses[task] (data);
}

/* Once the analyses are done, the sections and the findings, in three tasks that run side by
 * side, the longest first: the timeline section, the findings (which only read the analyses and
 * the tables), and the other sections. Each section is built apart, into `built` by its
 * number; the page takes them in order. Event rows, read by some of each, are checked once
 * (rt_trace_file_events); the session's list of scripts takes one plot at a time. */
typedef struct {
  RtReport *r;
  Section *built[G_N_ELEMENTS (sections)];   /* NULL: not shown */
  GError *error[G_N_ELEMENTS (sections)];    /* of a section that could not write a file */
} Assembly;

static void
build_section (Assembly *a, guint i)
{
  Section *sec = g_new0 (Section, 1);
  sec->name = sections[i].name;
  sec->title = sections[i].title;
  sec->pieces = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_section_piece_free);
  gboolean shown = TRUE;
  if (!sections[i].build (a->r, sec, &shown, &a->error[i]) || !shown)
    g_clear_pointer (&sec, rt_section_free);
  a->built[i] = sec;
}

static void
assemble (gpointer data, guint task)
{
  Assembly *a = data;
  RtReport *r = a->r;
  if (task == 0)
    {
      for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
        if (sections[i].build == section_timeline)
          build_section (a, i);
    }
  else if (task == 1)
    {
      RtFindingsInput in = { r->overview, r->cdf, r->events, r->turns, r->timeline, r->check, r->tail,
                             g_ptr_array_index (r->whatif, 0), g_ptr_array_index (r->whatif, 1), r->walk };
      r->findings = rt_findings_from (r->t, r->s->steps, &in);
    }
  else
    for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
      if (sections[i].build != section_timeline)
        build_section (a, i);
}

RtReport *
rt_report_build (RtSession *s, const RtReportOptions *opts, GError **error)
{
  g_autoptr (RtReport) r = g_new0 (RtReport, 1);
  r->s = s;
  r->t = s->trace;
  r->opts = *opts;
  guint n_threads = g_get_num_processors ();
  rt_run_shared (G_N_ELEMENTS (analyses), n_threads, run_analyses, r);
  if (opts->train != NULL)
    r->train = rt_train_analyse (opts->train, 10, NULL);

  r->sections = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_section_free);
  r->names = g_ptr_array_new ();
  r->plots = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  if (!rt_session_ensure_out_dir (s, error))
    return NULL;
  g_autofree Assembly *a = g_new0 (Assembly, 1);
  a->r = r;
  rt_run_shared (3, n_threads, assemble, a);
  gboolean failed = FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (sections); i++)
    {
      if (a->error[i] != NULL)
        {
          /* the first section's error is told */
          if (!failed)
            g_propagate_error (error, g_steal_pointer (&a->error[i]));
          g_clear_error (&a->error[i]);
          failed = TRUE;
        }
      Section *sec = a->built[i];
      if (sec == NULL)
        continue;
      g_ptr_array_add (r->sections, sec);
      g_ptr_array_add (r->names, (gpointer) sec->name);
      for (guint k = 0; k < sec->pieces->len; k++)
        {
          const Piece *p = g_ptr_array_index (sec->pieces, k);
          if (p->kind == PIECE_SVG)
            g_hash_table_add (r->plots, g_strdup (p->text));
        }
    }
  if (failed)
    return NULL;
  /* the scripts as the sections came to write them, side by side: in one order, whatever it was */
  if (s->scripts != NULL)
    g_ptr_array_sort (s->scripts, rt_compare_strings);
  if (!rt_session_render (s, error))
    return NULL;
  return g_steal_pointer (&r);
}

void
rt_report_free (RtReport *r)
{
  if (r == NULL)
    return;
  g_clear_pointer (&r->overview, rt_overview_free);
  g_clear_pointer (&r->cdf, rt_cdf_free);
  g_clear_pointer (&r->workers, rt_workers_free);
  g_clear_pointer (&r->events, rt_events_free);
  g_clear_pointer (&r->turns, rt_turns_free);
  g_clear_pointer (&r->turn_dist, rt_turn_dist_free);
  g_clear_pointer (&r->timeline, rt_timeline_free);
  g_clear_pointer (&r->check, rt_check_free);
  g_clear_pointer (&r->train, rt_train_free);
  g_clear_pointer (&r->tail, rt_tail_free);
  g_clear_pointer (&r->whatif, g_ptr_array_unref);
  g_clear_pointer (&r->walk, rt_request_walk_free);
  g_clear_pointer (&r->mixes, g_ptr_array_unref);
  g_clear_pointer (&r->findings, rt_findings_free);
  g_clear_pointer (&r->sections, g_ptr_array_unref);
  g_clear_pointer (&r->names, g_ptr_array_unref);
  g_clear_pointer (&r->plots, g_hash_table_unref);
  g_free (r);
}

const RtFindings *
rt_report_findings (const RtReport *r)
{
  return r->findings;
}

const GPtrArray *
rt_report_section_names (const RtReport *r)
{
  return r->names;
}

gboolean
rt_report_has_data (const RtReport *r)
{
  const RtCdfEvent *c = g_ptr_array_index (r->cdf->events, 0);
  return r->overview->steps->len > 0 || c->all.n > 0;
}

void
rt_report_write_json (const RtReport *r, RtJsonWriter *w)
{
  rt_jw_begin_object (w);
  rt_jw_key (w, "findings");
  rt_findings_write_json (r->findings, w);
  rt_jw_key (w, "sections");
  rt_jw_begin_array (w);
  for (guint i = 0; i < r->names->len; i++)
    rt_jw_string (w, g_ptr_array_index (r->names, i));
  rt_jw_end_array (w);
  if (r->mixes != NULL)
    {
      /* with --compare: rt-compare --mix turns's "mix" of each versus entry */
      rt_jw_key (w, "comparison");
      rt_jw_begin_object (w);
      rt_jw_key (w, "versus");
      rt_jw_begin_array (w);
      for (guint e = 1; e <= r->mixes->len; e++)
        {
          const RtExperiment *a = rt_session_experiment (r->s, 0), *b = rt_session_experiment (r->s, e);
          const char *const label[2] = { a->label, b->label };
          const char *const path[2] = { a->trace->path, b->trace->path };
          rt_jw_begin_object (w);
          rt_jw_member_string (w, "label", b->label);
          rt_jw_key (w, "mix");
          rt_mix_write_json (g_ptr_array_index (r->mixes, e - 1), label, path, w);
          rt_jw_end_object (w);
        }
      rt_jw_end_array (w);
      rt_jw_end_object (w);
    }
  rt_jw_end_object (w);
}

const RtAnalysisSpec rt_report_analysis = {
  .name = "report",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_TURN_SUMS | RT_READS_SOME_IDS,
  .steps = RT_STEPS_SELECTED,
  .plots = "those of its sections",
};
