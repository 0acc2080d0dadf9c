/* SPDX-License-Identifier: Apache-2.0 */
/* plots-compare.c: rt-compare's seven plots, written once for rt-compare and for rt-report's
 * comparison section: request-duration CDFs, steps, throughput, turns, sections, histograms. */
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

#include <math.h>
#include <string.h>

#define HIST_BINS_PER_DECADE 10

/* "steps 1-12" when every experiment has the same steps with data, else each one's. */
char *
rt_compare_describe_steps (const RtCompare *c)
{
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (guint e = 0; e < c->n; e++)
    {
      const GArray *steps = c->experiments[e].steps;
      g_autofree gint32 *numbers = g_new (gint32, MAX (1u, steps->len));
      for (guint i = 0; i < steps->len; i++)
        numbers[i] = g_array_index (steps, RtCompareStep, i).step;
      g_ptr_array_add (texts, rt_describe_steps (numbers, steps->len));
    }
  gboolean same = TRUE;
  for (guint e = 1; e < c->n; e++)
    same = same && strcmp (g_ptr_array_index (texts, e), g_ptr_array_index (texts, 0)) == 0;
  if (same)
    return g_strdup (g_ptr_array_index (texts, 0));
  g_ptr_array_add (texts, NULL);
  return g_strjoinv (" | ", (char **) texts->pdata);
}

/* A plot clause separator: "plot " before the first, ", \" after. */
static void
clause (GString *plot, const char *fmt, ...) G_GNUC_PRINTF (2, 3);
static void
clause (GString *plot, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *text = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  g_string_append (plot, plot->len == 0 ? "plot " : ", \\\n     ");
  g_string_append (plot, text);
}

/* Lines of one experiment: its colour, a point type of its own and a width that narrows along
 * the list, so that equal series (the same engine in both runs) still show both. */
static char *
line_style (guint e)
{
  static const int points[] = { 7, 5, 9, 11, 13, 15 };
  return g_strdup_printf ("lt %u pt %d lw %.1f", e + 1, points[e % G_N_ELEMENTS (points)], MAX (1.2, 5.0 - 2.5 * e));
}

static char *
quoted_label (const RtCompare *c, guint e, const char *suffix)
{
  g_autofree char *text = g_strdup_printf ("%s%s", c->experiments[e].in.label, suffix);
  return rt_gnuplot_quote (text);
}

#define FIT_CURVE_POINTS 256

static gboolean
plot_cdf (RtSession *s, const RtCompare *c, const GPtrArray *fits, const char *steps_text, GError **error)
{
  g_autoptr (GString) tsv = g_string_new ("# duration_s\tfraction; each experiment, then its P50, P90, P99\n");
  g_autoptr (GString) plot = g_string_new (NULL);
  for (guint e = 0; e < c->n; e++)
    {
      const RtCompareExperiment *x = &c->experiments[e];
      rt_view_tsv_cdf_block (tsv, x->in.label, rt_samples_data (x->durations), x->durations->len, 4000);
      g_string_append (tsv, "# P50, P90, P99\n");
      const double marks[][2] = { { x->duration.p50, 0.5 }, { x->duration.p90, 0.9 }, { x->duration.p99, 0.99 } };
      for (guint k = 0; k < G_N_ELEMENTS (marks); k++)
        if (!isnan (marks[k][0]))
          g_string_append_printf (tsv, "%.9g\t%g\n", marks[k][0], marks[k][1]);
      g_string_append (tsv, "\n\n");
      g_autofree char *suffix = g_strdup_printf (": P50 %.3g s, P90 %.3g s, P99 %.3g s", x->duration.p50,
                                                 x->duration.p90, x->duration.p99);
      g_autofree char *title = quoted_label (c, e, suffix);
      clause (plot, "data index %u using 1:2 with steps lw 2.5 lt %u title %s", 2 * e, e + 1, title);
      clause (plot, "data index %u using 1:2 with points pt 7 ps 1.6 lt %u notitle", 2 * e + 1, e + 1);
    }
  /* with --fit, each experiment's best fit dashed in its colour, after the data blocks */
  for (guint e = 0, block = 2 * c->n; fits != NULL && e < c->n; e++)
    {
      const RtFit *fit = g_ptr_array_index (fits, e);
      const RtFitModel *best = rt_fit_best (fit);
      if (best == NULL)
        continue;
      const RtCompareExperiment *x = &c->experiments[e];
      const double *v = rt_samples_data (x->durations);
      guint n = x->durations->len;
      g_autofree char *model = rt_fit_model_describe (best);
      g_autofree char *suffix = g_strdup_printf (" best fit: %s", model);
      g_autofree char *label = g_strdup_printf ("%s%s", x->in.label, suffix);
      rt_fit_tsv_cdf_block (tsv, label, best, v[n - fit->n], v[n - 1], FIT_CURVE_POINTS);
      g_autofree char *title = quoted_label (c, e, suffix);
      clause (plot, "data index %u using 1:2 with lines lt %u dt (8,5) lw 2 title %s", block++, e + 1, title);
    }
  g_string_append_c (plot, '\n');
  if (!rt_session_write (s, "compare_cdf.tsv", tsv, error))
    return FALSE;
  g_autofree char *what = g_strdup_printf ("CDF of request durations, %s (dots: P50, P90, P99)", steps_text);
  const char *vars[] = { "PLOT", plot->str, NULL };
  return rt_session_plot (s, "compare-cdf", "compare_cdf", what, vars, error);
}

/* compare_steps.tsv: column 1 the step, then rollout_s, interval_s, requests_per_s and
 * tokens_per_s, n columns each. */
static guint
steps_column (const RtCompare *c, guint series, guint e)
{
  return 2 + series * c->n + e;
}

static char *
step_xlabel (const RtCompare *c)
{
  g_autoptr (GString) label = g_string_new (NULL);
  rt_tsv_append_text (label, c->experiments[0].in.label);
  g_autofree char *text = g_strdup_printf (c->align == RT_COMPARE_ALIGN_STEP ? "step"
                                           : "step of %s (the others: their k-th step)", label->str);
  return rt_gnuplot_quote (text);
}

/* Round x tics over the rows' steps, so that 500 steps stay readable. */
static char *
step_xtics (const RtCompare *c)
{
  if (c->rows->len == 0)
    return g_strdup ("");
  return rt_gnuplot_int_tics ("xtics", g_array_index (c->rows, RtCompareRow, 0).step,
                              g_array_index (c->rows, RtCompareRow, c->rows->len - 1).step, 20);
}

static gboolean
plot_steps (RtSession *s, const RtCompare *c, const char *steps_text, GError **error)
{
  g_autoptr (GString) plot = g_string_new (NULL);
  for (guint e = 0; e < c->n; e++)
    {
      g_autofree char *rollout = quoted_label (c, e, ": rollout (slowest rank)");
      g_autofree char *interval = quoted_label (c, e, ": step interval");
      g_autofree char *style = line_style (e);
      clause (plot, "data using 1:%u with linespoints ps 0.8 %s title %s", steps_column (c, 0, e), style, rollout);
      clause (plot, "data using 1:%u with linespoints ps 0.8 %s dt 2 title %s", steps_column (c, 1, e), style, interval);
    }
  g_string_append_c (plot, '\n');
  g_autofree char *xlabel = step_xlabel (c);
  g_autofree char *xtics = step_xtics (c);
  g_autofree char *what = g_strdup_printf ("rollout and step interval per step, %s", steps_text);
  const char *vars[] = { "XLABEL", xlabel, "XTICS", xtics, "PLOT", plot->str, NULL };
  return rt_session_plot (s, "compare-steps", "compare_steps", what, vars, error);
}

static gboolean
plot_throughput (RtSession *s, const RtCompare *c, const char *steps_text, GError **error)
{
  g_autoptr (GString) top = g_string_new (NULL), bottom = g_string_new (NULL);
  for (guint e = 0; e < c->n; e++)
    {
      g_autofree char *title = quoted_label (c, e, "");
      g_autofree char *style = line_style (e);
      clause (top, "data using 1:%u with linespoints ps 0.8 %s title %s", steps_column (c, 2, e), style, title);
      clause (bottom, "data using 1:%u with linespoints ps 0.8 %s notitle", steps_column (c, 3, e), style);
    }
  g_string_append_c (top, '\n');
  g_string_append_c (bottom, '\n');
  g_autofree char *xlabel = step_xlabel (c);
  g_autofree char *what = g_strdup_printf ("throughput per rollout second, %s", steps_text);
  g_autofree char *xtics = step_xtics (c);
  const char *vars[] = { "XLABEL", xlabel, "XTICS", xtics, "TOP", top->str, "BOTTOM", bottom->str,
                         "SIZE", "1280,900", NULL };
  return rt_session_plot_data (s, "compare-throughput", "compare_throughput", "compare_steps", what, vars, error);
}

/* A clustered bar chart or lines of a table whose column 1 is the x and 2.. one per experiment. */
static gboolean
plot_columns (RtSession *s, const RtCompare *c, const RtTable *table, const char *template_name,
              const char *what, const char *xlabel, const char *ylabel, GError **error)
{
  const char *name = rt_table_name (table);
  g_autoptr (GString) plot = g_string_new (NULL);
  for (guint e = 0; e < c->n; e++)
    {
      g_autofree char *title = quoted_label (c, e, "");
      if (strcmp (template_name, "compare-bars") == 0)
        clause (plot, "data using %u%s lt %u title %s", e + 2, e == 0 ? ":xtic(1)" : "", e + 1, title);
      else
        {
          g_autofree char *style = line_style (e);
          clause (plot, "data using 1:%u with linespoints ps 1.2 %s title %s", e + 2, style, title);
        }
    }
  /* each bar's value over it (a share too small to see is still read): bar e of a cluster of
   * n sits at (e - (n - 1) / 2) / (n + 1) from the cluster's centre (gap 1) */
  for (guint e = 0; strcmp (template_name, "compare-bars") == 0 && e < c->n; e++)
    clause (plot, "data using ($0 + %.6f):%u:(sprintf('%%.1f', column(%u))) with labels offset 0, char 0.6 "
            "font ',8' notitle", (e - (c->n - 1) / 2.0) / (c->n + 1), e + 2, e + 2);
  g_string_append_c (plot, '\n');
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  g_autoptr (GString) tsv = rt_table_tsv (table);
  if (!rt_session_write (s, tsv_name, tsv, error))
    return FALSE;
  if (rt_table_n_rows (table) == 0)
    {
      /* the older logger writes no turn timings: nothing to draw, and no plot to look for */
      if (!s->quiet)
        g_printerr ("%s: note: %s is not drawn: no experiment has a value for it\n", s->command->name, name);
      return TRUE;
    }
  g_autofree char *x = rt_gnuplot_quote (xlabel), *y = rt_gnuplot_quote (ylabel);
  const char *vars[] = { "XLABEL", x, "YLABEL", y, "PLOT", plot->str,
                         "ROTATE", strcmp (name, "compare_events") == 0 ? "set xtics rotate by -30\nset rmargin 12" : "", NULL };
  return rt_session_plot (s, template_name, name, what, vars, error);
}

static gboolean
plot_hist (RtSession *s, const RtCompare *c, const char *steps_text, GError **error)
{
  g_autoptr (RtTable) hist = rt_compare_hist_table (c, HIST_BINS_PER_DECADE);
  g_autoptr (GString) tsv = rt_table_tsv (hist);
  if (!rt_session_write (s, "compare_hist.tsv", tsv, error))
    return FALSE;
  if (rt_table_n_rows (hist) == 0)
    return TRUE;   /* no positive duration anywhere: nothing to draw */
  double lo = rt_table_get_number (hist, 0, 0), hi = rt_table_get_number (hist, rt_table_n_rows (hist) - 1, 1);
  double top = 0;   /* one y scale for every panel, so that heights compare */
  for (guint r = 0; r < rt_table_n_rows (hist); r++)
    for (guint e = 0; e < c->n; e++)
      if (!isnan (rt_table_get_number (hist, r, 2 + e)))
        top = MAX (top, rt_table_get_number (hist, r, 2 + e));
  g_autoptr (GString) panels = g_string_new (NULL);
  for (guint e = 0; e < c->n; e++)
    {
      g_autofree char *label = quoted_label (c, e, "");
      gboolean last = e + 1 == c->n;
      g_string_append_printf (panels,
                              "%s"
                              "set label 1 %s at graph 0.99, graph 0.88 right front font ',12'\n"
                              "%s"
                              "plot data using (sqrt($1*$2)):(column(%u)/2):1:2:(0):%u with boxxyerror lt %u fs solid 0.8 noborder notitle\n",
                              e == 0 ? "" : "unset title\n", label,
                              last ? "set xlabel 'request duration (s, log scale; 10 bins per decade)'\nset format x '%g'\n" : "",
                              e + 3, e + 3, e + 1);
    }
  g_autofree char *layout = g_strdup_printf ("%u", c->n);
  g_autofree char *xrange = g_strdup_printf ("set xrange [%.9g:%.9g]\nset yrange [0:%.6g]", lo, hi, top * 1.1);
  g_autofree char *size = g_strdup_printf ("1280,%u", MAX (720u, 60 + 220 * c->n));
  g_autofree char *what = g_strdup_printf ("request durations in logarithmic bins, %s", steps_text);
  const char *vars[] = { "PANELS", layout, "XRANGE", xrange, "PLOTS", panels->str, "SIZE", size, NULL };
  return rt_session_plot (s, "compare-hist", "compare_hist", what, vars, error);
}

gboolean
rt_plot_compare (RtSession *s, const RtCompare *c, const GPtrArray *fits, const char *steps_text, GError **error)
{
  g_autoptr (RtTable) turns = rt_compare_turns_table (c);
  g_autoptr (RtTable) turn_dist = rt_compare_turn_dist_table (c);
  g_autoptr (RtTable) events = rt_compare_events_table (c);
  g_autofree char *turns_what = g_strdup_printf ("mean engine time per turn, %s", steps_text);
  g_autofree char *dist_what = g_strdup_printf ("requests by number of turns, %s", steps_text);
  g_autofree char *events_what = g_strdup_printf ("mean share of the step per section, %s", steps_text);
  return plot_cdf (s, c, fits, steps_text, error)
         && plot_steps (s, c, steps_text, error)
         && plot_columns (s, c, turns, "compare-lines", turns_what, "turn index (from 0)",
                          "mean engine call time (s)", error)
         && plot_columns (s, c, turn_dist, "compare-bars", dist_what, "number of turns",
                          "share of complete requests (%)", error)
         && plot_columns (s, c, events, "compare-bars", events_what, "step-level section",
                          "mean share of total_step_duration (%)", error)
         && plot_throughput (s, c, steps_text, error)
         && plot_hist (s, c, steps_text, error);
}

gboolean
rt_plot_compare_mix (RtSession *s, const RtMix *m, const char *label_a, const char *label_b, const char *name,
                     GError **error)
{
  /* the totals, a header line first as in every data file: x, value, colour (the sum first, then
   * the three terms as in the bins) */
  g_autofree char *totals = g_strdup_printf ("x\tseconds\tcolour\n0\t%.9g\t1\n1\t%.9g\t2\n2\t%.9g\t3\n3\t%.9g\t4",
                                             isnan (m->delta_s) ? 0 : m->delta_s, isnan (m->mix_s) ? 0 : m->mix_s,
                                             isnan (m->speed_s) ? 0 : m->speed_s,
                                             isnan (m->unmatched_s) ? 0 : m->unmatched_s);
  const char *by = m->by == RT_MIX_TURNS ? "turns" : "generated tokens";
  g_autofree char *left = g_strdup_printf ("%s against %s: %+.3f s", label_b, label_a, m->delta_s);
  g_autofree char *left_q = rt_gnuplot_quote (left);
  g_autofree char *right = g_strdup_printf ("by %s bin", by);
  g_autofree char *right_q = rt_gnuplot_quote (right);
  g_autofree char *xlabel = g_strdup_printf ("%s (bin)", by);
  g_autofree char *xlabel_q = rt_gnuplot_quote (xlabel);
  g_autofree char *what = g_strdup_printf ("mean request duration split by %s: mix, speed, unmatched", by);
  /* a bin per value: its value; else [lo, hi) as "lo-hi", the last open one "lo+" */
  const char *ticlabel = m->edges == NULL ? "sprintf('%g', $1)"
                                          : "stringcolumn(2) eq 'NaN' ? sprintf('%g+', $1) : sprintf('%g-%g', $1, $2)";
  const char *vars[] = { "TOTALS", totals, "LEFT_TITLE", left_q, "RIGHT_TITLE", right_q, "XLABEL", xlabel_q,
                         "TICLABEL", ticlabel, NULL };
  return rt_session_plot (s, "compare-mix", name, what, vars, error);
}
