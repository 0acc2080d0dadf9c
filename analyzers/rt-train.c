/* SPDX-License-Identifier: Apache-2.0 */
/* rt-train: the trainer's own console log: where each training step's time goes, and any metric.
 * The rollout traces cover generation only; this is the rest of the step, from verl's log lines. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-plots.h"

#include <math.h>
#include <string.h>

static char **opt_metrics;
static char *opt_window;

/* Says why a plot is not drawn: the log lacks its metrics, or has no value of them to plot. */
static void
skip_note (RtSession *s, const RtTrainPlot *p)
{
  if (s->quiet)
    return;
  /* known is NULL-terminated, and never empty when it is joined */
  const char *const *list = p->known->len > 0 ? (const char *const *) p->known->pdata : p->metrics;
  g_autofree char *names = g_strjoinv (", ", (char **) list);
  if (p->known->len > 0)
    g_printerr ("rt-train: note: %s skipped: no finite value of %s to plot (nan, inf or past "
                "1e300 in size)\n", p->name, names);
  else
    g_printerr ("rt-train: note: %s skipped: the log has none of %s\n", p->name, names);
}

/* Writes the plot's table and fills `template` with `vars`; a plot without data is
 * skipped with a note. */
static gboolean
series_plot (RtSession *s, const RtTrainLog *log, const RtTrainPlot *p, const char *template_name,
             const char *what, const char *const *vars, GError **error)
{
  if (p->found->len == 0)
    {
      skip_note (s, p);
      return TRUE;
    }
  g_autoptr (RtTable) table = rt_train_plot_table (log, p);
  return rt_session_write_table (s, table, p->name, error)
         && rt_session_plot (s, template_name, p->name, what, vars, error);
}

/* A plot of lines, one per metric of the plot that the log has. */
static gboolean
lines_plot (RtSession *s, const RtTrainLog *log, const RtTrainPlot *p, const char *what,
            const char *ylabel, gboolean means, GError **error)
{
  g_autoptr (GString) extra = g_string_new (NULL);
  if (means && p->found->len > 0)
    {
      g_string_append (extra, "set label 1 \"means");
      for (guint k = 0; k < p->found->len; k++)
        g_string_append_printf (extra, "\\n%s %.3g s", (const char *) g_ptr_array_index (p->found, k),
                                g_array_index (p->means, double, k));
      g_string_append (extra, "\" at graph 0.02, graph 0.97 left front");
    }
  g_autofree char *lastcol = g_strdup_printf ("%u", p->found->len + 1);
  g_autofree char *yl = rt_gnuplot_quote (ylabel);
  const char *vars[] = { "YLABEL", yl, "LASTCOL", lastcol, "EXTRA", extra->str, NULL };
  return series_plot (s, log, p, "train-lines", what, vars, error);
}

static gboolean
breakdown_plot (RtSession *s, const RtTrainLog *log, const RtTrainPlot *p, GError **error)
{
  if (p->found->len == 0)
    {
      skip_note (s, p);
      return TRUE;
    }
  return rt_plot_train_breakdown (s, log, p, error);
}

/* A panel's mean as a dashed line across it, labelled with its value. */
static char *
mean_line (double mean)
{
  return g_strdup_printf ("set arrow 1 from graph 0, first %.6g to graph 1, first %.6g nohead dt 2 lc rgb '#888888'\n"
                          "set label 1 'mean %.4g' at graph 0.01, first %.6g offset 0,0.6",
                          mean, mean, mean, mean);
}

static gboolean
throughput_plot (RtSession *s, const RtTrainLog *log, const RtTrain *tr, GError **error)
{
  const RtTrainPlot *p = &tr->plots[RT_TRAIN_THROUGHPUT];
  double mean = p->found->len > 0 ? g_array_index (p->means, double, 0) : NAN;
  g_autofree char *meanline = mean_line (mean);
  /* the time per step below it, with its own mean, when the log has one to plot */
  g_autofree char *step_meanline = mean_line (tr->step_mean);
  const char *vars[] = { "MEANLINE", meanline, "STEP_MEANLINE", step_meanline,
                         "STEP_PANEL", tr->step_plottable ? "1" : "0", NULL };
  return series_plot (s, log, p, "train-throughput", "throughput and time per step", vars, error);
}

/* A metric as terminal text: an escape sequence in a name could drive the terminal, so
 * control characters become spaces and invalid UTF-8 U+FFFD, as in a TSV field. */
static char *
printable (const char *metric)
{
  GString *text = g_string_new (NULL);
  rt_tsv_append_text (text, metric);
  return g_string_free (text, FALSE);
}

/* One metric with its moving mean, as metric_NAME. */
static gboolean
metric_plot (RtSession *s, const RtTrainLog *log, const RtTrainMetric *m, guint window, GError **error)
{
  g_autofree char *shown = printable (m->metric);
  if (!m->plottable)
    {
      if (!s->quiet)
        g_printerr ("rt-train: note: %s skipped: no finite value of %s to plot (nan, inf or past "
                    "1e300 in size)\n", m->file, shown);
      return TRUE;
    }
  if (strcmp (m->file, m->wanted_file) != 0 && !s->quiet)
    g_printerr ("rt-train: note: %s is drawn as %s (%s is another metric's)\n", shown, m->file, m->wanted_file);
  g_autoptr (RtTable) table = rt_train_metric_table (log, m->metric, window);
  g_autofree char *yl = rt_gnuplot_quote (m->metric);
  g_autofree char *win = g_strdup_printf ("'mean of the last %u steps'", window);
  const char *vars[] = { "YLABEL", yl, "WINDOW", win, NULL };
  return rt_session_write_table (s, table, m->file, error)
         && rt_session_plot (s, "train-metric", m->file, m->metric, vars, error);
}

/* The metrics any --metric matches, each plotted once, in name order. */
static gboolean
metric_plots (RtSession *s, const RtTrainLog *log, const RtTrain *tr, GError **error)
{
  for (guint p = 0; p < tr->unmatched->len && !s->quiet; p++)
    g_printerr ("rt-train: note: no metric matches --metric %s\n", (const char *) g_ptr_array_index (tr->unmatched, p));
  for (guint k = 0; k < tr->metrics->len; k++)
    {
      const RtTrainMetric *m = &g_array_index (tr->metrics, RtTrainMetric, k);
      if (m->chosen && !metric_plot (s, log, m, tr->window, error))
        return FALSE;
    }
  return TRUE;
}

static void
write_json (RtSession *s, const RtTrainLog *log, const RtTrain *tr)
{
  g_autoptr (RtTable) metrics = rt_train_metrics_table (tr);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "steps", log->steps->len);
  rt_jw_member_int (w, "lines", (gint64) log->lines);
  rt_jw_member_int (w, "long_lines", (gint64) log->long_lines);
  rt_jw_member_int (w, "dropped_values", (gint64) log->dropped_values);
  rt_jw_member_int (w, "joined_lines", (gint64) log->joined_lines);
  rt_jw_member_int (w, "cut_lines", (gint64) log->cut_lines);
  rt_jw_key (w, "cuts");
  rt_jw_begin_array (w);
  for (guint i = 0; i < log->cuts->len; i++)
    {
      const RtTrainCut *c = &g_array_index (log->cuts, RtTrainCut, i);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "line", (gint64) c->line);
      rt_jw_member_int (w, "step", c->step);
      rt_jw_member_string (w, "text", c->text);
      rt_jw_key (w, "kept");
      rt_jw_bool (w, c->kept);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "metrics");
  rt_jw_begin_object (w);
  for (guint k = 0; k < tr->metrics->len; k++)
    {
      rt_jw_key (w, g_array_index (tr->metrics, RtTrainMetric, k).key);
      rt_table_write_json_row (metrics, k, w);
    }
  rt_jw_end_object (w);
  rt_jw_end_object (w);
}

static void
print_summary (RtSession *s, const RtTrainLog *log, const RtTrain *tr)
{
  rt_session_print (s, "%u steps (%d to %d), %u metrics, from %" G_GUINT64_FORMAT " metric lines in %"
                    G_GUINT64_FORMAT " lines\n", log->steps->len, g_array_index (log->steps, gint32, 0),
                    g_array_index (log->steps, gint32, log->steps->len - 1), tr->metrics->len,
                    log->metric_lines, log->lines);
  if (log->joined_lines > 0)
    rt_session_print (s, "%" G_GUINT64_FORMAT " wrapped line%s joined to the step line above, %" G_GUINT64_FORMAT
                      " of them across a cut name or value (see the note)\n", log->joined_lines,
                      log->joined_lines == 1 ? "" : "s", log->cut_lines);
  rt_session_print (s, "%-44s %5s %11s %11s %11s %11s %11s %11s %11s\n", "metric", "count", "mean", "std",
                    "min", "median", "p95", "max", "last-window");
  for (guint k = 0; k < tr->metrics->len; k++)
    {
      const RtTrainMetric *m = &g_array_index (tr->metrics, RtTrainMetric, k);
      const RtSummary *sum = &m->summary;
      g_autofree char *shown = printable (m->metric);
      rt_session_print (s, "%-44s %5u %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g\n",
                        shown, sum->count, sum->mean, sum->std, sum->min, sum->p50, sum->p95, sum->max,
                        m->window_mean);
    }
}

static int
run (RtSession *s, GError **error)
{
  gint64 window = 10;
  if (opt_window && !rt_parse_int_option ("--window", opt_window, 1, 1000000, &window, error))
    return 0;
  g_autoptr (RtTrainLog) log = rt_train_log_read (s->args[0], error);
  if (log == NULL)
    return 0;
  if (log->long_lines > 0 && !s->quiet)
    g_printerr ("rt-train: note: %" G_GUINT64_FORMAT " line%s longer than " RT_LINE_MAX_TEXT
                " skipped unread (the first is line %" G_GUINT64_FORMAT ")\n", log->long_lines,
                log->long_lines == 1 ? "" : "s", log->first_long_line);
  if (log->dropped_values > 0 && !s->quiet)
    g_printerr ("rt-train: note: %" G_GUINT64_FORMAT " value%s of metrics past the first %u names "
                "not kept\n", log->dropped_values, log->dropped_values == 1 ? "" : "s", RT_TRAIN_MAX_METRICS);
  g_autofree char *joins = rt_train_log_describe_joins (log);
  if (joins != NULL && !s->quiet)
    g_printerr ("rt-train: note: %s\n", joins);
  g_autoptr (RtTrain) tr = rt_train_analyse (log, (guint) window, (const char *const *) opt_metrics);
  write_json (s, log, tr);
  if (log->steps->len == 0)
    return rt_session_no_data (s, "%s has no metric line: expected lines such as "
                               "'step:12 - timing_s/gen:50.1 - perf/throughput:1234.5' "
                               "(verl's console logger)", s->args[0]);
  print_summary (s, log, tr);

  gboolean ok = breakdown_plot (s, log, &tr->plots[RT_TRAIN_BREAKDOWN], error)
    && lines_plot (s, log, &tr->plots[RT_TRAIN_PER_TOKEN], "time per token by section", "time per token (ms)",
                   FALSE, error)
    && throughput_plot (s, log, tr, error)
    && lines_plot (s, log, &tr->plots[RT_TRAIN_COMPONENTS], "generation against actor and critic updates",
                   "time (s)", TRUE, error)
    && lines_plot (s, log, &tr->plots[RT_TRAIN_GENERATION], "generation timing", "time (s)", FALSE, error)
    && metric_plots (s, log, tr, error);
  return ok ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "metric", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &opt_metrics,
      "Also plot this metric with its moving mean (repeatable; globs such as 'critic/score/*')", "NAME" },
    { "window", 'w', 0, G_OPTION_ARG_STRING, &opt_window,
      "Steps in the moving mean and in window_mean (default 10)", "N" },
    G_OPTION_ENTRY_NULL
  };
  static const RtTableSpec *const tables[] = {
    &rt_train_metrics_spec, &rt_train_series_spec, &rt_train_metric_spec, NULL
  };
  static const RtCommand cmd = {
    .name = "rt-train",
    .parameters = "LOG",
    .summary = "The trainer's console log (verl: 'step:N - name:value - ...' lines, amid Ray\n"
               "prefixes, colours, progress bars and tracebacks; a restarted step's later values\n"
               "win): time per step by section, time per token, throughput, generation against\n"
               "the updates, and any --metric, with a summary of every numeric metric.",
    .description = "Plots: step_timing_breakdown, per_token_timing, throughput, component_comparison,\n"
                   "generation_timing, metric_NAME; a plot whose metrics the log lacks, or has no finite\n"
                   "value of, is skipped. In metric_NAME, every byte of the name but letters, digits, '-'\n"
                   "and '_' is '_', the name is cut to 100 bytes, and _2, _3... follow it when another\n"
                   "metric's name gives the same file.\n"
                   "JSON (--json): {\"steps\", \"lines\", \"long_lines\", \"dropped_values\", \"joined_lines\",\n"
                   "\"cut_lines\", \"cuts\": [{\"line\", \"step\", \"text\", \"kept\"}], \"metrics\": {name: {\"count\",\n"
                   "\"mean\", \"std\", \"min\", \"median\", \"p95\", \"max\", \"window_mean\"}}} (non-finite values left out).\n"
                   "A line copied from a terminal or a web page may come broken in two: a line that only\n"
                   "continues the step line above it (' - name:value' pairs, no 'step:') is joined to it\n"
                   "(joined_lines). Where the break cut a name or a value ('timing_s/ge' then 'n:12.5'), the\n"
                   "pieces are joined as they stand, counted in cut_lines and named in a note and in cuts\n"
                   "(the continuing line, the step, the item as joined, kept: whether it read as a value).\n"
                   "A line longer than " RT_LINE_MAX_TEXT " is skipped unread and counted in long_lines; past\n"
                   G_STRINGIFY (RT_TRAIN_MAX_METRICS) " distinct metric names, the values of new names are counted in dropped_values.\n\n"
                   "Examples:\n  rt-train logs/train.log\n  rt-train logs/train.log --metric 'critic/score/*' --window 20",
    .entries = entries,
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_WRITES_PLOTS,
  };
  return rt_command_main (&cmd, argc, argv);
}
