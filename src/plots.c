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
