/* SPDX-License-Identifier: Apache-2.0 */
/* plots.c: the plots of the analyses, each written once (its TSV and its gnuplot script from a
 * template), for the analyzer that draws it alone and for rt-report, which draws them together. */
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-views.h"
#include "tasks-private.h"

#include <math.h>
#include <string.h>

/* ---- overview ---- */

gboolean
rt_plot_overview (RtSession *s, const RtOverview *o, GError **error)
{
  g_autoptr (RtTable) table = rt_overview_table (o);
  if (!rt_session_write_table (s, table, "overview", error))
    return FALSE;
  GArray *rows = o->steps;
  g_autofree char *means = g_strdup_printf ("\"means\\n\\nrollout    %.1f s (%u steps)\\ninterval   %.1f s (%u)\\n"
                                            "outside    %.1f s (%u)\\nrollout share %.0f%%\"",
                                            o->rollout_mean, rows->len, o->interval_mean, o->n_both,
                                            o->outside_mean, o->n_both, 100 * o->rollout_share);
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autofree char *steps = rt_session_describe_step_indices (s, selected);
  g_autofree char *what = g_strdup_printf ("rollout and step interval, %s", steps);
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < rows->len; i++)
    g_array_append_val (shown, g_array_index (rows, RtOverviewStep, i).step_index);
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  /* drawn only when there are some: gnuplot warns about a series with no point */
  const char *outliers = o->any_outlier
    ? ", \\\n     data using 1:($5 > 0 ? $2 : NaN) with points pt 9 ps 1.6 lc rgb '#d62728' title 'outlier (beyond 2 std)'"
      ", \\\n     data using 1:($6 > 0 ? $3 : NaN) with points pt 9 ps 1.6 lc rgb '#d62728' notitle"
    : "";
  /* with the trainer's log: its own step time and generation time beside the trace's */
  const char *train = o->with_train
    ? ", \\\n     data using 1:7 with linespoints pt 7 ps 0.6 lw 2 lc rgb 'black' title 'trainer: timing_s/step'"
      ", \\\n     data using 1:8 with linespoints pt 6 ps 0.6 lw 2 dt 2 lc rgb '#d62728' title 'trainer: timing_s/gen'"
    : "";
  const char *vars[] = { "MEANS", means, "XTICS", xtics, "OUTLIERS", outliers, "TRAIN", train, NULL };
  return rt_session_plot (s, "overview", "overview", what, vars, error);
}

/* ---- cdf ---- */

#define MAX_STEP_SERIES 12   /* more steps than this are drawn as a grey fan, unlabelled */
#define FIT_CURVE_POINTS 256
#define FIT_COLOUR "'#d62728'"   /* the best fit of the one event, dashed over the black "all" */

/* The best fit of each event (fits: RtFit* or NULL, in the order of cdfs): its CDF dashed on
 * the CDF plot, in the colour of its event when several are overlaid; fit.tsv, and the
 * Q-Q plot of each event's values against its best fit. */
static gboolean
write_fit_plots (RtSession *s, GPtrArray *cdfs, const GPtrArray *fits, GString *tsv, GString *plot,
                 guint block, const char *steps_text, GError **error)
{
  g_autoptr (RtTable) table = rt_table_new (&rt_fit_spec);
  g_autoptr (GString) qq_tsv = g_string_new ("# fit_quantile_s\tdata_quantile_s\n");
  g_autoptr (GString) qq_plot = g_string_new ("plot ");
  gboolean overlay = cdfs->len > 1;
  guint qq_block = 0;
  for (guint e = 0; e < cdfs->len; e++)
    {
      const RtCdfEvent *c = g_ptr_array_index (cdfs, e);
      const RtFit *fit = g_ptr_array_index (fits, e);
      rt_fit_table_add (table, c->event, fit);
      const RtFitModel *best = rt_fit_best (fit);
      if (best == NULL)
        continue;
      g_autofree char *model = rt_fit_model_describe (best);
      g_autofree char *label = overlay ? g_strdup_printf ("%s best fit: %s", c->event, model)
                                       : g_strdup_printf ("best fit: %s", model);
      g_autofree char *title = rt_gnuplot_quote (label);
      g_autofree char *colour = overlay ? g_strdup_printf ("lt %u", e + 1) : g_strdup ("lc rgb " FIT_COLOUR);
      const double *v = c->all.v;
      guint n = c->all.n;
      rt_fit_tsv_cdf_block (tsv, label, best, v[n - fit->n], v[n - 1], FIT_CURVE_POINTS);
      g_string_append_printf (plot, ", \\\n     data index %u using 1:2 with lines %s dt (8,5) lw 2.5 title %s",
                              block++, colour, title);
      rt_fit_tsv_qq_block (qq_tsv, label, best, v, n, 2000);
      g_autofree char *qq_label = overlay ? g_strdup_printf ("%s: %u values against %s", c->event, fit->n, model)
                                          : g_strdup_printf ("%u values against %s", fit->n, model);
      g_autofree char *qq_title = rt_gnuplot_quote (qq_label);
      g_string_append_printf (qq_plot, "%sdata index %u using 1:2 with points pt 7 ps 0.6 %s title %s",
                              qq_block ? ", \\\n     " : "", qq_block,
                              overlay ? colour : "lc rgb '#1f77b4'", qq_title);
      qq_block++;
    }
  if (!rt_session_write_table (s, table, "fit", error))
    return FALSE;
  if (qq_block == 0)
    {
      if (!s->quiet)
        g_printerr ("%s: note: no distribution could be fitted (fewer than one value > 0): no fit_qq plot\n",
                    s->command->name);
      return TRUE;
    }
  g_string_append (qq_plot, ", \\\n     x with lines dt 2 lw 1 lc rgb '#555555' title 'data = fit'\n");
  if (!rt_session_write (s, "fit_qq.tsv", qq_tsv, error))
    return FALSE;
  const RtCdfEvent *first = g_ptr_array_index (cdfs, 0);
  g_autofree char *what = g_strdup_printf ("Q-Q plot of %s against %s, %s", overlay ? "events" : first->event,
                                           overlay ? "the best fit of each" : "its best fit", steps_text);
  const char *vars[] = { "PLOT", qq_plot->str, NULL };
  return rt_session_plot (s, "fit-qq", "fit_qq", what, vars, error);
}

gboolean
rt_plot_cdf (RtSession *s, const RtCdf *cdf, const GPtrArray *fits, guint step_points, GError **error)
{
  GPtrArray *cdfs = cdf->events;
  g_autoptr (GArray) blocks = g_array_new (FALSE, FALSE, sizeof (RtCdfBlock));
  g_autoptr (GPtrArray) labels = g_ptr_array_new_with_free_func (g_free);   /* the blocks' */
  g_autoptr (GString) plot = g_string_new ("plot ");
  g_autoptr (GString) markers = g_string_new (NULL);
  guint block = 0;
  gboolean overlay = cdfs->len > 1;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  gboolean train_named = selected->len > 0 && rt_session_train_steps_differ (s, selected);

  for (guint e = 0; e < cdfs->len; e++)
    {
      const RtCdfEvent *c = g_ptr_array_index (cdfs, e);
      guint n_steps = c->steps->len;
      /* one event: a line per step and the whole; several events: the whole of each */
      for (guint i = 0; !overlay && n_steps > 1 && i < n_steps; i++)
        {
          const RtCdfStep *st = &g_array_index (c->steps, RtCdfStep, i);
          gint32 step = st->step;
          /* with the trainer's steps known (--train), the trainer's step names the curve */
          gint32 train = train_named ? rt_trace_train_step (s->trace, step) : -1;
          char *label = train >= 0 ? g_strdup_printf ("trainer's step %d (step_%d)", train, step)
                                   : g_strdup_printf ("step %d", step);
          g_ptr_array_add (labels, label);
          RtCdfBlock b = { label, st->sorted.v, st->sorted.n, step_points };
          g_array_append_val (blocks, b);
          if (n_steps <= MAX_STEP_SERIES)
            {
              g_autofree char *quoted = rt_gnuplot_quote (label);
              g_string_append_printf (plot, "%sdata index %u using 1:2 with steps lw 1.5 title %s",
                                      block ? ", \\\n     " : "", block, quoted);
            }
          else
            g_string_append_printf (plot, "%sdata index %u using 1:2 with steps lw 1 lc rgb '#c8c8c8' %s",
                                    block ? ", \\\n     " : "", block,
                                    i == 0 ? "title 'one step each'" : "notitle");
          block++;
        }
      char *label = overlay ? g_strdup (c->event) : g_strdup ("all selected steps");
      g_ptr_array_add (labels, label);
      RtCdfBlock b = { label, c->all.v, c->all.n, 4000 };
      g_array_append_val (blocks, b);
      g_autofree char *title = rt_gnuplot_quote (label);
      g_string_append_printf (plot, "%sdata index %u using 1:2 with steps lw 3 %s title %s",
                              block ? ", \\\n     " : "", block,
                              overlay ? "" : "lc rgb 'black'", title);
      block++;
      if (e == 0)
        {
          rt_plot_cdf_markers (markers, &c->all_summary, overlay ? c->event : "all selected steps");
        }
    }
  /* the later blocks go into a text of their own, written after the first */
  g_autoptr (GString) tsv = g_string_new ("# duration_s\tfraction\n");
  g_autoptr (GString) tail = g_string_new (NULL);
  rt_view_tsv_cdf_blocks (tsv, tail, (const RtCdfBlock *) blocks->data, blocks->len);

  g_autofree char *steps_text = rt_session_describe_step_indices (s, selected);
  if (fits != NULL && !write_fit_plots (s, cdfs, fits, tail, plot, block, steps_text, error))
    return FALSE;
  g_string_append_c (plot, '\n');
  const RtCdfEvent *first = g_ptr_array_index (cdfs, 0);
  g_autofree char *what = g_strdup_printf ("CDF of %s, %s", overlay ? "events" : first->event, steps_text);
  g_autofree char *xlabel = g_strdup_printf ("'%s (s, log scale)'",
                                             first->id == RT_EV_REQUEST_COMPLETE && !overlay
                                               ? "request duration" : "duration");

  const GString *parts[] = { tsv, tail };
  if (!rt_session_write_parts (s, "cdf.tsv", parts, G_N_ELEMENTS (parts), error))
    return FALSE;
  const char *vars[] = { "XLABEL", xlabel, "MARKERS", markers->str, "PLOT", plot->str, NULL };
  return rt_session_plot (s, "cdf", "cdf", what, vars, error);
}

/* ---- workers ---- */

gboolean
rt_plot_workers_step (RtSession *s, const RtWorkersStep *ws, gboolean each_worker, GError **error)
{
  g_autoptr (RtTable) table = rt_workers_step_table (ws);
  const RtTrace *t = s->trace;
  const RtStepBalance *b = &ws->balance;
  const RtStep *st = rt_trace_step (t, b->step_index);
  for (guint k = 0; each_worker && k < ws->workers->len; k++)
    {
      /* the worker's own chart */
      const RtWorkerRow *row = &g_array_index (ws->workers, RtWorkerRow, k);
      g_autoptr (RtTable) one = rt_worker_sections_table (row);
      if (rt_table_n_rows (one) == 0)
        continue;   /* an empty file: nothing to draw */
      g_autofree char *name = g_strdup_printf ("worker_%d_step_%d", row->worker, st->step);
      gboolean slowest = (int) row->file == b->slowest_file;
      g_autofree char *what = g_strdup_printf ("worker %d, step %d, total %.2f s%s", row->worker,
                                               st->step, row->sections_s[RT_EV_TOTAL_STEP],
                                               slowest ? " (the straggler: the critical path)" : "");
      const char *vars[] = { "COLOR", slowest ? "rgb '#d62728'" : "1", NULL };
      if (!rt_session_write_table (s, one, name, error)
          || !rt_session_plot (s, "worker", name, what, vars, error))
        return FALSE;
    }

  g_autofree char *name = g_strdup_printf ("workers_step_%d", st->step);
  if (!rt_session_write_table (s, table, name, error))
    return FALSE;
  g_autofree char *marks = NULL;
  if (b->slowest_file >= 0)
    {
      guint x = (guint) b->slowest_file - st->first_file;
      const RtWorkerRow *row = &g_array_index (ws->workers, RtWorkerRow, x);
      double top = row->sections_s[RT_EV_TOTAL_STEP];
      if (isnan (top))
        top = b->by_generation ? b->generation_max : 0;
      g_autofree char *why = b->by_generation
        ? g_strdup_printf ("generated %.1f s", b->generation_max)
        : g_strdup_printf ("total %.1f s", b->total_max);
      marks = g_strdup_printf ("set label 1 'straggler: worker %d, %s' at %u, %.6g "
                               "center offset 0,1.2 front tc rgb '#d62728'\n"
                               "set label 2 \"imbalance %.3f\\n(%s / median %.1f s)\" at screen 0.78, screen 0.25 left",
                               b->slowest_worker, why, x, top, b->imbalance,
                               b->by_generation ? "generation" : "total",
                               b->by_generation ? b->generation_median : b->total_median);
    }
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, st->n_files / 16));
  g_autofree char *what = g_strdup_printf ("step-level sections per worker, step %d", st->step);
  g_autofree char *xrange = g_strdup_printf ("%.1f:%.1f", -0.6, st->n_files - 0.4);
  const char *vars[] = { "MARKS", marks ? marks : "", "EVERY", every, "XRANGE", xrange, NULL };
  return rt_session_plot (s, "workers", name, what, vars, error);
}

gboolean
rt_plot_workers_steps (RtSession *s, const RtWorkers *workers, GError **error)
{
  g_autoptr (RtTable) table = rt_workers_steps_table (workers);
  if (!rt_session_write_table (s, table, "workers_steps", error))
    return FALSE;
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < workers->steps->len; i++)
    g_array_append_val (shown, g_array_index (workers->steps, RtStepBalance, i).step_index);
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what = g_strdup_printf ("the straggler and its imbalance per step, %s", steps);
  const char *vars[] = { "XTICS", xtics, NULL };
  return rt_session_plot (s, "workers-steps", "workers_steps", what, vars, error);
}

/* ---- requests ---- */

/* "41.20 s, 4 turns, 812 tokens, LENGTH" */
static char *
request_figures (const RtTrace *t, const RtRequest *q)
{
  g_autofree char *tokens = q->response_length >= 0 ? g_strdup_printf ("%d tokens", q->response_length)
                                                     : g_strdup ("tokens unknown");
  g_autofree char *turns = q->turns >= 0 ? g_strdup_printf ("%d turns", q->turns) : g_strdup ("turns unknown");
  g_autofree char *duration = isnan (q->total_s) ? g_strdup ("no complete line") : g_strdup_printf ("%.2f s", q->total_s);
  return g_strdup_printf ("%s, %s, %s, %s", duration, turns, tokens,
                          q->finish_reason ? rt_finish_reason_short (rt_request_finish_reason (t, q)) : "finish unknown");
}

char *
rt_request_caption (const RtTrace *t, const RtRequest *q, guint rank, gboolean full_id)
{
  g_autofree char *figures = request_figures (t, q);
  return g_strdup_printf ("#%u %.*s, worker %d: %s", rank, full_id ? G_MAXINT : 8, rt_request_id (t, q), q->worker,
                          figures);
}

char *
rt_request_title (const RtTrace *t, const RtRequest *q, gboolean full_id)
{
  g_autofree char *figures = request_figures (t, q);
  return g_strdup_printf ("request %.*s, step %d, worker %d: %s", full_id ? G_MAXINT : 8, rt_request_id (t, q),
                          q->step, q->worker, figures);
}

char *
rt_requests_truncation_line (const RtRequests *r)
{
  if (r->at_length == 0)
    return NULL;
  g_autofree char *tokens = r->at_length_tokens >= 0 ? g_strdup_printf (", up to %d tokens", r->at_length_tokens)
                                                     : g_strdup ("");
  return g_strdup_printf ("truncation: %u of the %u slowest ended on the length limit (LENGTH%s)", r->at_length,
                          r->slowest->len, tokens);
}

char *
rt_request_plot_name (const char *id)
{
  gsize len = MIN (strlen (id), 100);
  char *name = g_strdup_printf ("request_%.*s", (int) len, id);
  g_strcanon (name + strlen ("request_"), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", '_');
  return name;
}

/* One request's phases as horizontal bars, a phase under the one that holds it, indented. */
static gboolean
plot_request_phases (RtSession *s, const RtRequests *r, guint i, GError **error)
{
  const RtTrace *t = s->trace;
  const RtSlowRequest *slow = &g_array_index (r->slowest, RtSlowRequest, i);
  g_autoptr (RtTable) phases = rt_request_phases_table (t, slow);
  guint rows = rt_table_n_rows (phases);
  double least = INFINITY;
  for (guint k = 0; k < rows; k++)
    least = MIN (least, rt_table_get_number (phases, k, 1));
  /* the bars start a power of ten below the shortest phase (log scale: there is no 0) */
  double from = rows > 0 ? pow (10, floor (log10 (least)) - 1) : 1e-6;
  g_autofree char *name = g_strdup_printf ("request_%u_step_%d", i + 1, r->step);
  g_autofree char *caption = rt_request_caption (t, rt_trace_request (t, slow->request), i + 1, s->full_ids);
  g_autofree char *what = g_strdup_printf ("step %d, %s", r->step, caption);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_autofree char *xmin = g_strdup (g_ascii_dtostr (buf, sizeof buf, from));
  g_autofree char *ymax = g_strdup_printf ("%u", rows);   /* a row at the range's edge loses its label */
  g_autofree char *size = g_strdup_printf ("1280,%u", CLAMP (160 + rows * 26, 400u, 8000u));
  const char *vars[] = { "XMIN", xmin, "YMAX", ymax, "SIZE", size, NULL };
  return rt_session_write_table (s, phases, name, error) && rt_session_plot (s, "request", name, what, vars, error);
}

gboolean
rt_plot_requests_top (RtSession *s, const RtRequests *r, gboolean each_request, GError **error)
{
  const RtTrace *t = s->trace;
  /* one chart per request */
  for (guint i = 0; each_request && i < r->slowest->len; i++)
    if (!plot_request_phases (s, r, i, error))
      return FALSE;

  /* all of them stacked, by the phases that do not overlap and that occur */
  g_autoptr (RtTable) top = rt_requests_top_table (t, r);
  g_autofree char *name = g_strdup_printf ("requests_top_step_%d", r->step);
  g_autofree char *what = g_strdup_printf ("the %u slowest requests of step %d, by phase", r->slowest->len, r->step);
  g_autofree char *lastcol = g_strdup_printf ("%u", r->leaves->len + 2);
  const char *vars[] = { "LASTCOL", lastcol, NULL };
  return rt_session_write_table (s, top, name, error)
         && rt_session_plot (s, "requests-top", name, what, vars, error);
}

/* The colours of a request's lines by phase kind, as rt-timeline draws its phases. */
static const struct { const char *phase, *colour; } line_colours[] = {
  { "enclosing", "#b0b0b0" }, { "pre-process", "#ff7f0e" }, { "engine", "#1f77b4" },
  { "tool", "#2ca02c" }, { "post-process", "#d62728" }, { "other", "#9467bd" }, { "gap", "#e4e4e4" },
};

gboolean
rt_plot_request_view (RtSession *s, const RtRequestView *v, const char *plot_name, GError **error)
{
  const RtTrace *t = s->trace;
  const RtRequest *q = rt_trace_request (t, v->request);
  g_autoptr (RtTable) lines = rt_request_lines_table (t, v);
  g_autofree char *name = plot_name ? g_strdup (plot_name) : rt_request_plot_name (rt_request_id (t, q));
  g_autofree char *what = rt_request_title (t, q, s->full_ids);
  g_autoptr (GString) plots = g_string_new (NULL);
  for (guint c = 0; c < G_N_ELEMENTS (line_colours); c++)
    {
      gboolean occurs = FALSE;
      for (guint k = 0; k < rt_table_n_rows (lines) && !occurs; k++)
        occurs = strcmp (rt_table_get_text (lines, k, 0), line_colours[c].phase) == 0;
      if (!occurs)
        continue;
      g_string_append_printf (plots, "data using (($5+$6)/2):(strcol(1) eq '%s' ? $0 : NaN):(($6-$5)/2):(0.4) "
                              "with boxxyerror fc rgb '%s' title '%s', \\\n     ", line_colours[c].phase,
                              line_colours[c].colour,
                              strcmp (line_colours[c].phase, "gap") == 0 ? "gap: nothing logged" : line_colours[c].phase);
    }
  guint rows = rt_table_n_rows (lines);
  g_autofree char *ymax = g_strdup_printf ("%u", rows);   /* a row at the range's edge loses its label */
  g_autofree char *size = g_strdup_printf ("1400,%u", CLAMP (170 + rows * 17, 500u, 8000u));
  const char *vars[] = { "PLOTS", plots->str, "YMAX", ymax, "SIZE", size, NULL };
  return rt_session_write_table (s, lines, name, error)
         && rt_session_plot (s, "request-lines", name, what, vars, error);
}

/* ---- events ---- */

gboolean
rt_plot_events (RtSession *s, const RtEvents *ev, GError **error)
{
  g_autoptr (RtTable) table = rt_events_table (ev);
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < ev->steps->len; i++)
    g_array_append_val (shown, g_array_index (ev->steps, RtEventsStep, i).step_index);

  /* the stacked areas: band e lies between the sum of the shares before it and
   * that sum plus its own (a missing share counts as 0 there) */
  g_autoptr (GString) plot = g_string_new ("plot ");
  for (int e = RT_EV_TOTAL_STEP - 1; e >= 0; e--)
    {
      g_autoptr (GString) below = g_string_new ("0");
      for (int k = 0; k < e; k++)
        g_string_append_printf (below, "+(valid(%d)?$%d:0)", k + 3, k + 3);
      g_autofree char *title = rt_gnuplot_quote (rt_step_event_name (e));
      g_string_append_printf (plot, "%sdata using 1:(%s+(valid(%d)?$%d:0)):(%s) with filledcurves lc %d title %s",
                              e == RT_EV_TOTAL_STEP - 1 ? "" : ", \\\n     ", below->str, e + 3,
                              e + 3, below->str, e + 1, title);
    }

  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what_pct = g_strdup_printf ("share of the step per section, %s", steps);
  g_autofree char *what_stacked = g_strdup_printf ("share of the step per section (stacked), %s", steps);
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  g_autofree char *lastcol = g_strdup_printf ("%d", RT_EV_TOTAL_STEP + 2);
  const char *vars[] = { "XTICS", xtics, "LASTCOL", lastcol, "PLOT", plot->str, NULL };
  return rt_session_write_table (s, table, "events", error)
         && rt_session_plot_data (s, "events-pct", "events_pct", "events", what_pct, vars, error)
         && rt_session_plot_data (s, "events-stacked", "events_stacked", "events", what_stacked, vars, error);
}

/* ---- tail ---- */

gboolean
rt_plot_tail (RtSession *s, const RtTail *tail, GError **error)
{
  g_autoptr (RtTable) table = rt_tail_steps_table (tail);
  if (!rt_session_write_table (s, table, "tail_steps", error))
    return FALSE;
  if (tail->steps->len == 0)
    return TRUE;
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < tail->steps->len; i++)
    g_array_append_val (shown, g_array_index (tail->steps, RtTailStep, i).step_index);
  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what = g_strdup_printf ("why the tail: its excess over the bulk by cause, and the bubble, %s", steps);
  gint32 first = g_array_index (tail->steps, RtTailStep, 0).step;
  gint32 last = g_array_index (tail->steps, RtTailStep, tail->steps->len - 1).step;
  g_autofree char *xtics = rt_gnuplot_int_tics ("xtics", first, last, 20);
  const char *vars[] = { "XTICS", xtics, "SIZE", "1280,900", NULL };
  return rt_session_plot_data (s, "tail", "tail", "tail_steps", what, vars, error);
}

/* ---- turns ---- */

gboolean
rt_plot_turns (RtSession *s, const RtTurns *turns, GError **error)
{
  g_autoptr (RtTable) table = rt_turns_table (turns);
  guint shown = turns->turns->len;
  if (!rt_session_write_table (s, table, "turns", error))
    return FALSE;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autofree char *steps = rt_session_describe_step_indices (s, selected);
  g_autofree char *what = g_strdup_printf ("time per turn index, %s", steps);
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, shown / 20));
  const char *vars[] = { "EVERY", every, NULL };
  return rt_session_plot (s, "turns", "turns", what, vars, error);
}

gboolean
rt_plot_turn_dist (RtSession *s, const RtTurnDist *d, GError **error)
{
  g_autoptr (RtTable) counts = rt_turn_dist_counts_table (d);
  g_autoptr (RtTable) means = rt_turn_dist_mean_table (d);
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < d->steps->len; i++)
    g_array_append_val (shown, g_array_index (d->steps, RtTurnDistStep, i).step_index);
  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what_counts = g_strdup_printf ("requests by number of turns, %s", steps);
  g_autofree char *what_means = g_strdup_printf ("mean request duration by number of turns, %s", steps);
  g_autofree char *lastcol = g_strdup_printf ("%u", d->all->len + 1);
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, d->steps->len / 20));
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  /* the bars are labelled from a column: the trainer's step (the TSV's last) when known */
  gboolean train = rt_session_train_steps_differ (s, shown);
  g_autofree char *ticcol = g_strdup_printf ("%u", train ? d->all->len + 2 : 1u);
  const char *ticlabel = train ? "set xlabel \"trainer's step (from --train; folders step_N differ)\"" : "";
  const char *vars[] = { "LASTCOL", lastcol, "EVERY", every, "XTICS", xtics, "TICCOL", ticcol,
                         "TICLABEL", ticlabel, NULL };
  return rt_session_write_table (s, counts, "turn_dist_counts", error)
         && rt_session_write_table (s, means, "turn_dist_mean", error)
         && rt_session_plot (s, "turn-dist-counts", "turn_dist_counts", what_counts, vars, error)
         && rt_session_plot (s, "turn-dist-mean", "turn_dist_mean", what_means, vars, error);
}

/* ---- timeline ---- */

/* Above this many requests in one Gantt, each is a thin line without its phases. */
#define THIN_ABOVE 400

/* The bars of the Gantt: what each phase of the table is drawn as. */
static const struct { const char *phase, *title, *colour; gboolean band; } bars[] = {
  { "worker", "worker file span", "#c7c7c7", TRUE },
  { "preprocessing", "step: preprocessing", "#8c564b", TRUE },
  { "generation", "step: generation", "#17becf", TRUE },
  { "barrier wait", "step: barrier wait", "#000000", TRUE },
  { "other sections", "step: other sections", "#bcbd22", TRUE },
  { "waiting", "waiting", "#e4e4e4", FALSE },
  { "pre-process", "pre-process", "#ff7f0e", FALSE },
  { "engine", "engine (generate)", "#1f77b4", FALSE },
  { "tool", "tool execution", "#2ca02c", FALSE },
  { "post-process", "post-process, parsing", "#d62728", FALSE },
  { "other", "other", "#9467bd", FALSE },
  { "unlogged", "alive, no phase logged", "#9ab7d3", FALSE },
  { "request", "request (alive)", "#1f77b4", FALSE },
};

/* Dashed verticals where 50, 90 and 99 % of the step's requests had finished. */
static char *
finish_marks (const RtTimeline *tl)
{
  const struct { const char *name; double v; } marks[] = {
    { "t50", tl->t50_s }, { "t90", tl->t90_s }, { "t99", tl->t99_s },
  };
  GString *gp = g_string_new (NULL);
  for (guint i = 0; i < G_N_ELEMENTS (marks); i++)
    {
      if (isnan (marks[i].v) || (i > 0 && marks[i].v == marks[i - 1].v))
        continue;
      /* marks at one instant share a line and a label: "t90, t99" */
      g_autoptr (GString) label = g_string_new (marks[i].name);
      for (guint j = i + 1; j < G_N_ELEMENTS (marks) && marks[j].v == marks[i].v; j++)
        g_string_append_printf (label, ", %s", marks[j].name);
      g_string_append_printf (gp,
                              "set arrow from %.17g, graph 0 to %.17g, graph 1 nohead dt 2 lw 1.5 lc rgb '#555555' front\n"
                              "set label '%s' at %.17g, graph 1 offset 0, char 0.6 center tc rgb '#555555' front\n",
                              marks[i].v, marks[i].v, label->str, marks[i].v);
    }
  return g_string_free (gp, FALSE);
}

/* A bar [start, end] shows in the window [from_s, to_s] (NAN: open on that side): it overlaps
 * it, not only touches its edge; a bar of no length shows where it stands. */
static gboolean
bar_in_window (double start, double end, double from_s, double to_s)
{
  if (end <= start)
    return !(end < from_s) && !(start > to_s);
  return !(end <= from_s) && !(start >= to_s);
}

/* The bar of the Gantt a phase is drawn as, or -1: found by its phase's first letter before
 * the whole text is compared. */
static int
bar_of_phase (const char *phase)
{
  for (guint b = 0; phase != NULL && b < G_N_ELEMENTS (bars); b++)
    if (phase[0] == bars[b].phase[0] && strcmp (phase, bars[b].phase) == 0)
      return (int) b;
  return -1;
}

/* The bars that show, as gnuplot plot clauses (the legend names only those); `thin`:
 * requests without phases. */
static char *
gantt_clauses (const gboolean occurs[G_N_ELEMENTS (bars)], gboolean thin)
{
  GString *gp = g_string_new (NULL);
  for (guint b = 0; b < G_N_ELEMENTS (bars); b++)
    {
      if (!bars[b].band && (strcmp (bars[b].phase, "request") == 0) != thin)
        continue;
      if (!occurs[b])
        continue;
      /* the worker's span is a thin line under its sections; request bars fill most of a lane */
      double half = strcmp (bars[b].phase, "worker") == 0 ? 0.06 : bars[b].band ? 0.3 : thin ? 0.3 : 0.4;
      g_string_append_printf (gp, "%sdata using (($5+$6)/2):(strcol(4) eq '%s' ? $1 : NaN):(($6-$5)/2):(%g) "
                              "with boxxyerror fc rgb '%s' title '%s'",
                              gp->len ? ", \\\n     " : "", bars[b].phase, half, bars[b].colour, bars[b].title);
    }
  return g_string_free (gp, FALSE);
}

/* an end of a gnuplot range: * for none */
static char *
range_bound (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];
  return isnan (v) ? g_strdup ("*") : g_strdup (g_ascii_dtostr (buf, sizeof buf, v));
}

/* The data of one of the step's plots, made before anything is written, on either thread:
 * a part of a Gantt's (the TSV of the rows of some of its workers, and what its script
 * takes from them) or the in-flight plot's (its TSV). The text is compared with the file
 * already there as it is made, and let go while it is the same: all of it is kept only
 * for a file that changes. */
typedef struct {
  const RtTrace *trace;
  const RtTimeline *tl;
  const GArray *workers;
  gboolean inflight;          /* the in-flight data, not a Gantt's */
  double from_s, to_s;        /* a Gantt's window */
  gboolean thin;              /* its requests without phases (more than THIN_ABOVE) */
  guint first_worker, end_worker;  /* this part's workers: indices into the step's */
  double cost;                /* about how long it takes, to begin with the longest */
  RtOutCheck *check;          /* the file it goes into (the plot's own) */
  GString *tsv;               /* a Gantt's first part's begins with the header line */
  RtOutPart part;             /* tsv compared with the file */
  RtTsvWriter *writer;        /* into tsv, while it is made */
  const char *last_phase;     /* the last bar's phase, and its bar (-1: none) */
  int last_bar;
  guint lanes, n_workers;
  gboolean occurs[G_N_ELEMENTS (bars)];
  GString *tics;
} PlotData;

/* The text of a plot's data compared with the file whenever it has grown by this much (it
 * stays in the cache meanwhile). */
#define COMPARE_EVERY (32 << 10)

/* One bar of a Gantt's part: its row of the TSV; whether its bar shows in the window; "worker
 * M" beside each worker's band in the tics, and the lanes taken, from 0 (the rows come lane
 * after lane). The bar of a phase is not looked up again for a row whose phase is the row
 * above's (the same text). */
static void
gantt_bar (const RtGanttBar *bar, gpointer data)
{
  PlotData *d = data;
  rt_timeline_gantt_bar_tsv (d->writer, bar);
  if (d->tsv->len >= COMPARE_EVERY)
    rt_out_part_compare (&d->part);
  if (bar->phase != d->last_phase)
    {
      d->last_phase = bar->phase;
      d->last_bar = bar_of_phase (bar->phase);
    }
  if (d->last_bar >= 0 && !d->occurs[d->last_bar])
    d->occurs[d->last_bar] = bar_in_window (bar->start_s, bar->end_s, d->from_s, d->to_s);
  d->lanes = MAX (d->lanes, bar->lane + 1);
  if (d->last_bar == 0)   /* "worker" */
    g_string_append_printf (d->tics, "%s'worker %d' %u", d->tics->len ? ", " : "", bar->worker, bar->lane);
}

/* Rows of a Gantt of a worker: a band per worker and section, and per request of the
 * window, with phases two per timed line at most. */
static gsize
gantt_rows_of (const RtTimeline *tl, guint k, double from_s, double to_s, gboolean thin)
{
  const RtSpans *sp = tl->spans;
  const RtSpanWorker *w = rt_spans_worker (sp, k);
  gsize rows = 1 + w->n_sections;
  for (guint i = 0; i < w->n_requests; i++)
    {
      const RtSpanRequest *q = rt_spans_request (sp, w->first_request + i);
      if (!(!isnan (from_s) && q->end_s <= from_s) && !(!isnan (to_s) && q->start_s >= to_s))
        rows += thin ? 1 : 2 + 2 * (gsize) q->n_lines;
    }
  return rows;
}

/* The first line at or after `at` in the file (its size when there is none). */
static guint64
line_start (RtOutCheck *c, guint64 at)
{
  char block[256];
  guint64 size = rt_out_check_size (c);
  if (at == 0)
    return 0;
  for (at--; at < size;)   /* from the byte before: a line begins after its newline */
    {
      gsize n = rt_out_check_read (c, at, block, sizeof block);
      const char *nl = n > 0 ? memchr (block, '\n', n) : NULL;
      if (nl != NULL)
        return at + (guint64) (nl - block) + 1;
      if (n == 0)
        break;
      at += n;
    }
  return size;
}

/* The lane a Gantt's TSV line at `at` begins with: G_MAXINT64 at the file's end, -1 for a
 * line without one (the header, before every lane). */
static gint64
line_lane (RtOutCheck *c, guint64 at)
{
  char text[24];
  gsize n = rt_out_check_read (c, at, text, sizeof text);
  if (n == 0)
    return G_MAXINT64;
  gint64 lane = 0;
  gsize i = 0;
  for (; i < n && i < 18 && g_ascii_isdigit (text[i]); i++)
    lane = lane * 10 + (text[i] - '0');
  return i > 0 && i < n && text[i] == '\t' ? lane : -1;
}

/* Where a part of a Gantt whose first row is on `lane` would begin in the file there, were
 * it the same: its lines come by lane, so at the first line of that lane or a later one,
 * found by bisection. A file that is not the same may give any place: the comparison
 * then tells. */
static guint64
gantt_part_offset (RtOutCheck *c, guint lane)
{
  guint64 lo = 0, hi = rt_out_check_size (c);
  while (lo < hi)
    {
      guint64 mid = lo + (hi - lo) / 2;
      if (line_lane (c, line_start (c, mid)) >= (gint64) lane)
        hi = mid;
      else
        lo = mid + 1;
    }
  return line_start (c, lo);
}

/* Rows of the in-flight TSV written between two comparisons at most */
#define INFLIGHT_BATCH 512

static void
plot_data_make (PlotData *d)
{
  d->tsv = g_string_sized_new (2 * COMPARE_EVERY);
  if (d->inflight)
    {
      g_autoptr (RtTable) columns = rt_timeline_inflight_columns (d->tl, d->workers);
      guint n = d->tl->inflight->len, n_columns = rt_table_n_columns (columns);
      d->n_workers = n_columns - 2;
      rt_out_part_begin (&d->part, d->check, 0, d->tsv);
      if (d->part.differs)   /* kept whole: room for it at once, some 24 bytes and 4 a count */
        rt_string_grow (d->tsv, MIN ((gsize) (n + 1) * (24 + 4 * n_columns) + 4096, (gsize) 256 << 20));
      g_autoptr (RtTsvWriter) w = rt_tsv_writer_new (columns, d->tsv, TRUE);
      for (guint from = 0; from < n; from += INFLIGHT_BATCH)
        {
          rt_timeline_inflight_rows_tsv (d->tl, d->workers, w, from, MIN (from + INFLIGHT_BATCH, n));
          if (d->tsv->len >= COMPARE_EVERY)
            rt_out_part_compare (&d->part);
        }
      return;
    }
  guint64 offset = 0;
  if (d->first_worker > 0 && rt_out_check_size (d->check) > 0)
    offset = gantt_part_offset (d->check, rt_timeline_gantt_first_lane (d->tl, d->workers, d->from_s, d->to_s,
                                                                        d->first_worker));
  rt_out_part_begin (&d->part, d->check, offset, d->tsv);
  if (d->part.differs)
    {
      /* kept whole: room for it at once (only the pages written are touched), some 80
       * bytes a row */
      gsize rows = 0;
      guint n_workers = d->tl->spans ? d->tl->spans->workers->len : 0;
      for (guint k = d->first_worker; k < MIN (d->end_worker, n_workers); k++)
        rows += gantt_rows_of (d->tl, k, d->from_s, d->to_s, d->thin);
      rt_string_grow (d->tsv, MIN (rows * 80 + 4096, (gsize) 256 << 20));
    }
  d->tics = g_string_new (NULL);
  g_autoptr (RtTable) columns = rt_table_new (&rt_timeline_gantt_spec);
  d->writer = rt_tsv_writer_new (columns, d->tsv, d->first_worker == 0);
  d->last_phase = NULL;
  d->last_bar = -1;
  /* a thin line per request draws no phase: the data file holds none either */
  rt_timeline_gantt_each (d->trace, d->tl, d->workers, d->from_s, d->to_s, !d->thin, d->first_worker,
                          d->end_worker, gantt_bar, d);
  g_clear_pointer (&d->writer, rt_tsv_writer_free);
}

static void
plot_data_clear (PlotData *d)
{
  if (d->tsv != NULL)
    g_string_free (d->tsv, TRUE);
  if (d->tics != NULL)
    g_string_free (d->tics, TRUE);
}

/* The parts of one Gantt, in worker order, and what its script needs. */
typedef struct {
  const char *name, *zoom;
  double from_s, to_s;
  guint requests;
  gboolean thin;
  guint first_part, n_parts;  /* in the plots' data */
  RtOutCheck *check;          /* its TSV file */
} GanttPlan;

/* Splits a Gantt into parts of about equal rows (at most 3, and parts of at least some
 * thousands of rows), appending them to `data`. */
static void
gantt_plan (GanttPlan *g, GArray *data, RtSession *s, const RtTimeline *tl, const GArray *workers)
{
  const RtTrace *t = s->trace;
  g_autofree char *file = g_strdup_printf ("%s.tsv", g->name);
  g->check = rt_session_check_new (s, file);
  g->requests = rt_timeline_gantt_requests (tl, workers, g->from_s, g->to_s);
  g->thin = g->requests > THIN_ABOVE;
  g->first_part = data->len;
  guint n_workers = tl->spans ? tl->spans->workers->len : 0;
  g_autofree gsize *rows = g_new0 (gsize, MAX (n_workers, 1u));
  gsize all = 0;
  for (guint k = 0; k < n_workers; k++)
    all += rows[k] = gantt_rows_of (tl, k, g->from_s, g->to_s, g->thin);
  guint n_parts = (guint) CLAMP (all / 6000, 1, 3);
  guint k = 0;
  gsize before = 0;
  for (guint part = 0; part < n_parts; part++)
    {
      guint first = k;
      gsize part_rows = 0;
      for (; k < n_workers && (part == n_parts - 1 || (before + part_rows) * n_parts < all * (part + 1)); k++)
        part_rows += rows[k];
      before += part_rows;
      PlotData d = { .trace = t, .tl = tl, .workers = workers, .from_s = g->from_s, .to_s = g->to_s,
                     .thin = g->thin, .first_worker = first, .end_worker = part == n_parts - 1 ? G_MAXUINT : k,
                     .cost = 10.0 * (double) part_rows, .check = g->check };
      g_array_append_val (data, d);
    }
  g->n_parts = n_parts;
}

/* Writes one Gantt from the data of its parts. */
static gboolean
gantt_write (RtSession *s, const RtTimeline *tl, const GanttPlan *g, PlotData *parts, const char *worker_text,
             GError **error)
{
  gboolean occurs[G_N_ELEMENTS (bars)] = { FALSE };
  g_autoptr (GString) tics = g_string_new (NULL);
  g_autofree RtOutPart *tsv = g_new (RtOutPart, g->n_parts);
  guint lanes = 0;
  for (guint i = 0; i < g->n_parts; i++)
    {
      for (guint b = 0; b < G_N_ELEMENTS (bars); b++)
        occurs[b] = occurs[b] || parts[i].occurs[b];
      if (tics->len > 0 && parts[i].tics->len > 0)
        g_string_append (tics, ", ");
      g_string_append (tics, parts[i].tics->str);
      lanes = MAX (lanes, parts[i].lanes);
      tsv[i] = parts[i].part;
    }
  g_autofree char *clauses = gantt_clauses (occurs, g->thin);
  g_autofree char *marks = finish_marks (tl);
  g_autofree char *from_text = range_bound (g->from_s), *to_text = range_bound (g->to_s);
  g_autofree char *xrange = g_strdup_printf ("%s:%s", from_text, to_text);
  g_autofree char *ymax = g_strdup_printf ("%u", lanes);
  int height = (int) CLAMP (180 + lanes * (g->thin ? 3 : 12), 600, 8000);
  g_autofree char *size = g_strdup_printf ("1400,%d", height);
  g_autofree char *on = worker_text ? g_strdup_printf (", worker %s", worker_text) : g_strdup ("");
  g_autofree char *what = g_strdup_printf ("step %d%s%s%s, %u requests%s", tl->step, on, *g->zoom ? ", " : "",
                                           g->zoom, g->requests,
                                           g->thin ? " (one thin line each, no phases: more than 400)" : "");
  const char *vars[] = { "XRANGE", xrange, "YMAX", ymax, "YTICS", tics->str, "MARKS", marks, "PLOTS", clauses,
                         "SIZE", size, NULL };
  return rt_session_check_finish (s, g->check, tsv, g->n_parts, error)
         && rt_session_plot (s, "timeline", g->name, what, vars, error);
}

/* Writes the in-flight plot from its data. */
static char *
inflight_name (const RtTimeline *tl)
{
  return g_strdup_printf ("inflight_step_%d", tl->step);
}

static RtOutCheck *
inflight_check (RtSession *s, const RtTimeline *tl)
{
  g_autofree char *name = inflight_name (tl);
  g_autofree char *file = g_strdup_printf ("%s.tsv", name);
  return rt_session_check_new (s, file);
}

static gboolean
inflight_write (RtSession *s, PlotData *d, const char *worker_text, GError **error)
{
  const RtTimeline *tl = d->tl;
  g_autofree char *name = inflight_name (tl);
  g_autofree char *lastcol = g_strdup_printf ("%u", d->n_workers + 2);
  /* past a dozen workers the legend would hide the plot: their lines stay, unnamed */
  const char *worker_title = d->n_workers <= 12 ? "title columnhead(c)" : "notitle lc rgb '#bbbbbb' lw 1";
  g_autofree char *marks = finish_marks (tl);
  g_autofree char *what = g_strdup_printf ("step %d%s%s, requests in flight", tl->step,
                                           worker_text ? ", worker " : "", worker_text ? worker_text : "");
  g_autofree char *ytics = rt_gnuplot_int_tics ("ytics", 0, (gint32) MAX (tl->peak_in_flight, 1u), 10);
  const char *vars[] = { "LASTCOL", lastcol, "WORKER_TITLE", worker_title, "MARKS", marks, "YTICS", ytics, NULL };
  return rt_session_check_finish (s, d->check, &d->part, 1, error)
         && rt_session_plot (s, "inflight", name, what, vars, error);
}

/* The plots' data, made in the order of `order` (the longest first). */
typedef struct {
  PlotData *data;
  const guint *order;
} PlotJobs;

static void
plot_job_run (gpointer p, guint i)
{
  PlotJobs *jobs = p;
  plot_data_make (&jobs->data[jobs->order[i]]);
}

/* Makes the plots' data, on a second thread too when there is a second core. */
static void
plot_data_make_all (PlotData *data, guint n)
{
  /* the longest first (a few plots: by insertion; equal costs keep their order) */
  g_autofree guint *order = g_new (guint, MAX (n, 1u));
  for (guint i = 0; i < n; i++)
    {
      guint j = i;
      for (; j > 0 && data[order[j - 1]].cost < data[i].cost; j--)
        order[j] = order[j - 1];
      order[j] = i;
    }
  PlotJobs jobs = { data, order };
  rt_run_shared (n, g_get_num_processors (), plot_job_run, &jobs);
}

/* One Gantt: the requests of `workers` alive in [from_s, to_s] (NAN: the whole step). */
gboolean
rt_plot_timeline_gantt (RtSession *s, const RtTimeline *tl, const GArray *workers,
                        const char *worker_text, const char *name, const char *zoom,
                        double from_s, double to_s, GError **error)
{
  RtTimelineGantt one = { name, zoom, from_s, to_s };
  return rt_plot_timeline (s, tl, workers, worker_text, &one, 1, FALSE, error);
}

gboolean
rt_plot_timeline_inflight (RtSession *s, const RtTimeline *tl, const GArray *workers,
                           const char *worker_text, GError **error)
{
  g_autoptr (RtOutCheck) check = inflight_check (s, tl);
  PlotData d = { .trace = s->trace, .tl = tl, .workers = workers, .inflight = TRUE, .check = check };
  plot_data_make (&d);
  gboolean ok = inflight_write (s, &d, worker_text, error);
  plot_data_clear (&d);
  return ok;
}

gboolean
rt_plot_timeline (RtSession *s, const RtTimeline *tl, const GArray *workers, const char *worker_text,
                  const RtTimelineGantt *gantts, guint n_gantts, gboolean inflight, GError **error)
{
  /* the data of each plot (of each part of a large Gantt) is made apart from the others
   * (the tables are only read), then the files are written in order */
  g_autoptr (GArray) data = g_array_new (FALSE, FALSE, sizeof (PlotData));
  g_autofree GanttPlan *plans = g_new0 (GanttPlan, MAX (n_gantts, 1u));
  for (guint i = 0; i < n_gantts; i++)
    {
      plans[i] = (GanttPlan) { .name = gantts[i].name, .zoom = gantts[i].zoom,
                               .from_s = gantts[i].from_s, .to_s = gantts[i].to_s };
      gantt_plan (&plans[i], data, s, tl, workers);
    }
  guint inflight_at = data->len;
  g_autoptr (RtOutCheck) inflight_file = inflight ? inflight_check (s, tl) : NULL;
  if (inflight)
    {
      /* a cell of it takes about a tenth of a Gantt's row */
      PlotData d = { .trace = s->trace, .tl = tl, .workers = workers, .inflight = TRUE,
                     .cost = (double) tl->inflight->len * (2 + tl->workers->len), .check = inflight_file };
      g_array_append_val (data, d);
    }
  PlotData *all = (PlotData *) (void *) data->data;
  plot_data_make_all (all, data->len);

  gboolean ok = TRUE;
  for (guint i = 0; ok && i < n_gantts; i++)
    ok = gantt_write (s, tl, &plans[i], &all[plans[i].first_part], worker_text, error);
  if (ok && inflight)
    ok = inflight_write (s, &all[inflight_at], worker_text, error);
  for (guint i = 0; i < data->len; i++)
    plot_data_clear (&all[i]);
  for (guint i = 0; i < n_gantts; i++)
    rt_out_check_free (plans[i].check);
  return ok;
}

/* ---- the trainer's log ---- */

gboolean
rt_plot_train_breakdown (RtSession *s, const RtTrainLog *log, const RtTrainPlot *p, GError **error)
{
  if (p->found->len == 0)
    return TRUE;
  g_autofree char *lastcol = g_strdup_printf ("%u", p->found->len + 1);
  g_autofree char *stepcol = g_strdup_printf ("%u", p->found->len + 2);
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, log->steps->len / 20));
  const char *vars[] = { "LASTCOL", lastcol, "STEPCOL", stepcol, "EVERY", every, NULL };
  g_autoptr (RtTable) table = rt_train_plot_table (log, p);
  return rt_session_write_table (s, table, p->name, error)
         && rt_session_plot (s, "train-breakdown", p->name, "time per training step by section", vars, error);
}

/* ---- whatif ---- */

/* A number of a plot's data file; NaN where there is none (gnuplot leaves it out). */
static void
put_number (GString *out, double v)
{
  if (isnan (v))
    g_string_append (out, "NaN");
  else
    rt_format_g (out, v, 9);
}

gboolean
rt_plot_whatif (RtSession *s, const GPtrArray *results, GError **error)
{
  const RtWhatif *first = g_ptr_array_index (results, 0);
  g_autoptr (GString) tsv = g_string_new ("step\trecorded_s");
  for (guint p = 0; p < results->len; p++)
    {
      const char *name = rt_whatif_policy_name (((const RtWhatif *) g_ptr_array_index (results, p))->setting.policy);
      g_string_append_printf (tsv, "\tpredicted_%s_s\tcut_%s_pct", name, name);
    }
  g_string_append_c (tsv, '\n');
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < first->steps->len; i++)
    {
      const RtWhatifStep *st0 = &g_array_index (first->steps, RtWhatifStep, i);
      g_array_append_val (shown, st0->step_index);
      g_string_append_printf (tsv, "%d\t", st0->step);
      put_number (tsv, st0->recorded_s);
      for (guint p = 0; p < results->len; p++)
        {
          const RtWhatifStep *st = &g_array_index (((const RtWhatif *) g_ptr_array_index (results, p))->steps,
                                                   RtWhatifStep, i);
          g_string_append_c (tsv, '\t');
          put_number (tsv, st->predicted_s);
          g_string_append_c (tsv, '\t');
          put_number (tsv, st->predicted ? 100.0 * st->cut / st->requests : NAN);
        }
      g_string_append_c (tsv, '\n');
    }
  if (!rt_session_write (s, "whatif.tsv", tsv, error))
    return FALSE;
  g_autoptr (GString) plot = g_string_new ("plot data using 1:2 with linespoints pt 7 ps 0.6 lw 2 lc rgb 'black' title 'recorded'");
  for (guint p = 0; p < results->len; p++)
    {
      const RtWhatif *w = g_ptr_array_index (results, p);
      gboolean defer_share = w->setting.policy == RT_WHATIF_DEFER && w->setting.den > 0;
      g_autofree char *label = defer_share ? g_strdup_printf ("defer the slowest %g %%", 100 * w->setting.value)
                                           : g_strdup_printf ("%s %g", rt_whatif_policy_name (w->setting.policy),
                                                              w->setting.value);
      g_autofree char *title = rt_gnuplot_quote (label);
      g_autofree char *cut_label = g_strdup_printf ("cut by %s", label);
      g_autofree char *cut_title = rt_gnuplot_quote (cut_label);
      g_string_append_printf (plot, ", \\\n     data using 1:%u with linespoints pt 5 ps 0.6 lw 2 lc %u title %s",
                              3 + 2 * p, p + 1, title);
      g_string_append_printf (plot, ", \\\n     data using 1:%u axes x1y2 with lines dt 2 lw 1 lc %u title %s",
                              4 + 2 * p, p + 1, cut_title);
    }
  g_string_append_c (plot, '\n');
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what = g_strdup_printf ("recorded and predicted rollout per policy, %s", steps);
  const char *vars[] = { "XTICS", xtics, "PLOT", plot->str, NULL };
  return rt_session_plot (s, "whatif", "whatif", what, vars, error);
}
