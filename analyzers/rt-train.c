/* rt-train: the trainer's own console log: where each training step's time goes, and any metric.
 * The rollout traces cover generation only; this is the rest of the step, from verl's log lines. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-stats.h"
#include "rolltrace/rt-trainlog.h"

#include <math.h>
#include <string.h>

static char **opt_metrics;
static char *opt_window;

static const char *const breakdown[] = {
  "timing_s/gen", "timing_s/reward", "timing_s/old_log_prob", "timing_s/ref", "timing_s/values",
  "timing_s/adv", "timing_s/update_critic", "timing_s/update_actor", NULL,
};
static const char *const per_token[] = {
  "timing_per_token_ms/gen", "timing_per_token_ms/update_actor", "timing_per_token_ms/update_critic",
  "timing_per_token_ms/values", "timing_per_token_ms/adv", NULL,
};
static const char *const components[] = {
  "timing_s/gen", "timing_s/update_actor", "timing_s/update_critic", NULL,
};
static const char *const generation[] = {
  "timing_s/gen", "timing_s/generate_sequences", "timing_s/old_log_prob", NULL,
};

typedef struct {
  RtSummary sum;
  double window_mean;
} MetricStats;

static void
metric_stats (const RtMetric *m, guint window, MetricStats *out)
{
  g_autoptr (GArray) v = rt_metric_values (m);
  guint from = v->len > window ? v->len - window : 0;
  out->window_mean = rt_mean (rt_samples_data (v) + from, v->len - from);
  rt_summary_compute (rt_samples_data (v), v->len, &out->sum);
}

/* gnuplot takes a value past about 1e307 as undefined, and overflows computing a range
 * near it: a plot leaves such values out as it does non-finite ones (the summary and
 * --json keep them). A plot with no point left is skipped, not drawn empty or failed.
 * At the other end, a range around one subnormal value collapses ("y_min should not
 * equal y_max"): values smaller than PLOT_MIN in size are drawn as 0, which they are
 * at any scale a plot can show. */
#define PLOT_MAX 1e300
#define PLOT_MIN 1e-300

static double
plottable (double v)
{
  if (!isfinite (v) || fabs (v) > PLOT_MAX)
    return NAN;
  return fabs (v) < PLOT_MIN ? 0 : v;
}

/* The values of a metric a plot can draw, in step order. */
static GArray *
plottable_values (const RtMetric *m)
{
  GArray *v = rt_metric_values (m);
  guint out = 0;
  for (guint i = 0; i < v->len; i++)
    if (!isnan (plottable (g_array_index (v, double, i))))
      g_array_index (v, double, out++) = g_array_index (v, double, i);
  g_array_set_size (v, out);
  return v;
}

static gboolean
has_plottable (const RtMetric *m)
{
  g_autoptr (GArray) v = m ? plottable_values (m) : NULL;
  return v != NULL && v->len > 0;
}

static double
plottable_mean (const RtMetric *m)
{
  g_autoptr (GArray) v = plottable_values (m);
  return rt_mean (rt_samples_data (v), v->len);
}

/* The metrics of `names` that the log has with a value to plot. */
static GPtrArray *
present (const RtTrainLog *log, const char *const *names)
{
  GPtrArray *found = g_ptr_array_new ();
  for (guint i = 0; names[i] != NULL; i++)
    if (has_plottable (rt_train_log_metric (log, names[i])))
      g_ptr_array_add (found, (gpointer) names[i]);
  return found;
}

/* step, then one column per metric; `trailer` (may be NULL) as a last column. */
static GString *
series_table (const RtTrainLog *log, GPtrArray *names, const char *trailer)
{
  GString *tsv = g_string_new ("step");
  for (guint k = 0; k < names->len; k++)
    g_string_append_printf (tsv, "\t%s", (const char *) g_ptr_array_index (names, k));
  if (trailer)
    g_string_append_printf (tsv, "\t%s", trailer);
  g_string_append_c (tsv, '\n');
  for (guint i = 0; i < log->steps->len; i++)
    {
      gint32 step = g_array_index (log->steps, gint32, i);
      rt_tsv_int (tsv, step, names->len == 0 && trailer == NULL);
      for (guint k = 0; k < names->len; k++)
        rt_tsv_num (tsv, plottable (rt_metric_at (rt_train_log_metric (log, g_ptr_array_index (names, k)), step)),
                    k == names->len - 1 && trailer == NULL);
      if (trailer)
        rt_tsv_num (tsv, plottable (rt_metric_at (rt_train_log_metric (log, trailer), step)), TRUE);
    }
  return tsv;
}

/* Says why a plot is not drawn: the log lacks its metrics, or has no value of them to plot. */
static gboolean
skip_note (RtSession *s, const RtTrainLog *log, const char *plot, const char *const *names)
{
  if (s->quiet)
    return TRUE;
  g_autoptr (GString) known = g_string_new (NULL);
  g_autoptr (GString) wanted = g_string_new (NULL);
  for (guint i = 0; names[i] != NULL; i++)
    {
      g_string_append_printf (wanted, "%s%s", i ? ", " : "", names[i]);
      if (rt_train_log_metric (log, names[i]) != NULL)
        g_string_append_printf (known, "%s%s", known->len ? ", " : "", names[i]);
    }
  if (known->len > 0)
    g_printerr ("rt-train: note: %s skipped: no finite value of %s to plot (nan, inf or past "
                "1e300 in size)\n", plot, known->str);
  else
    g_printerr ("rt-train: note: %s skipped: the log has none of %s\n", plot, wanted->str);
  return TRUE;
}

/* A plot of lines, one per metric of `names` that the log has. */
static gboolean
lines_plot (RtSession *s, const RtTrainLog *log, const char *name, const char *what,
            const char *ylabel, const char *const *names, gboolean means, GError **error)
{
  g_autoptr (GPtrArray) found = present (log, names);
  if (found->len == 0)
    return skip_note (s, log, name, names);
  g_autoptr (GString) tsv = series_table (log, found, NULL);
  g_autoptr (GString) extra = g_string_new (NULL);
  if (means)
    {
      g_string_append (extra, "set label 1 \"means");
      for (guint k = 0; k < found->len; k++)
        {
          g_string_append_printf (extra, "\\n%s %.3g s", (const char *) g_ptr_array_index (found, k),
                                  plottable_mean (rt_train_log_metric (log, g_ptr_array_index (found, k))));
        }
      g_string_append (extra, "\" at graph 0.02, graph 0.97 left front");
    }
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  g_autofree char *lastcol = g_strdup_printf ("%u", found->len + 1);
  g_autofree char *yl = rt_gnuplot_quote (ylabel);
  const char *vars[] = { "YLABEL", yl, "LASTCOL", lastcol, "EXTRA", extra->str, NULL };
  return rt_session_write (s, tsv_name, tsv, error)
         && rt_session_plot (s, "train-lines", name, what, vars, error);
}

static gboolean
breakdown_plot (RtSession *s, const RtTrainLog *log, GError **error)
{
  g_autoptr (GPtrArray) found = present (log, breakdown);
  if (found->len == 0)
    return skip_note (s, log, "step_timing_breakdown", breakdown);
  g_autoptr (GString) tsv = series_table (log, found, "timing_s/step");
  g_autofree char *lastcol = g_strdup_printf ("%u", found->len + 1);
  g_autofree char *stepcol = g_strdup_printf ("%u", found->len + 2);
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, log->steps->len / 20));
  const char *vars[] = { "LASTCOL", lastcol, "STEPCOL", stepcol, "EVERY", every, NULL };
  return rt_session_write (s, "step_timing_breakdown.tsv", tsv, error)
         && rt_session_plot (s, "train-breakdown", "step_timing_breakdown",
                             "time per training step by section", vars, error);
}

static gboolean
throughput_plot (RtSession *s, const RtTrainLog *log, GError **error)
{
  const char *const names[] = { "perf/throughput", NULL };
  const RtMetric *m = rt_train_log_metric (log, "perf/throughput");
  if (!has_plottable (m))
    return skip_note (s, log, "throughput", names);
  g_autoptr (GPtrArray) cols = g_ptr_array_new ();
  g_ptr_array_add (cols, (gpointer) "perf/throughput");
  g_autoptr (GString) tsv = series_table (log, cols, "timing_s/step");
  double mean = plottable_mean (m);
  g_autofree char *meanline = g_strdup_printf (
      "set arrow from graph 0, first %.6g to graph 1, first %.6g nohead dt 2 lc rgb '#888888'\n"
      "set label 1 'mean %.4g' at graph 0.01, first %.6g offset 0,0.6", mean, mean, mean, mean);
  /* the time per step below it, when the log has one to plot */
  const char *step_panel = has_plottable (rt_train_log_metric (log, "timing_s/step")) ? "1" : "0";
  const char *vars[] = { "MEANLINE", meanline, "STEP_PANEL", step_panel, NULL };
  return rt_session_write (s, "throughput.tsv", tsv, error)
         && rt_session_plot (s, "train-throughput", "throughput", "throughput and time per step",
                             vars, error);
}

/* ---- what the output calls a metric ----
 * A metric's name is whatever the log says: any bytes but NUL, newline and carriage
 * return. Where it becomes a file name, a --json key or terminal text it is made safe
 * there, and, once made safe, two names must not become one: each log's metrics are
 * named once, in name order, so a metric's names never depend on which --metric asks. */

#define FILE_NAME_MAX 100   /* bytes of the metric in metric_NAME: far below NAME_MAX */

/* metric_NAME: letters, digits, '-' and '_' kept, any other byte '_'. `exact` when that
 * is the name itself. */
static char *
file_stem (const char *metric, gboolean *exact)
{
  gsize len = strlen (metric);
  char *stem = g_strdup_printf ("metric_%.*s", (int) MIN (len, FILE_NAME_MAX), metric);
  g_strcanon (stem + strlen ("metric_"), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", '_');
  *exact = len <= FILE_NAME_MAX && strcmp (stem + strlen ("metric_"), metric) == 0;
  return stem;
}

/* The --json key: the JSON writer replaces bytes that are not UTF-8 by U+FFFD, so two
 * names that differ only there would give one key twice. */
static char *
json_key (const char *metric, gboolean *exact)
{
  GString *key = g_string_new (NULL);
  *exact = !rt_utf8_append (key, metric, -1);
  return g_string_free (key, FALSE);
}

typedef char *(*BaseName) (const char *metric, gboolean *exact);

/* metric -> a unique name made by `base`: a metric whose base is itself keeps it, the
 * others take their base, or base SEP 2, 3... when another metric has it. */
static GHashTable *
unique_names (GPtrArray *metrics, BaseName base, const char *sep)
{
  GHashTable *names = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);
  /* base -> the next number to try, so that many metrics of one base stay linear */
  g_autoptr (GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (int exact_pass = 1; exact_pass >= 0; exact_pass--)
    for (guint i = 0; i < metrics->len; i++)
      {
        const char *metric = g_ptr_array_index (metrics, i);
        gboolean exact;
        g_autofree char *b = base (metric, &exact);
        if (exact != exact_pass)
          continue;
        char *name = g_strdup (b);
        guint n = MAX (2u, GPOINTER_TO_UINT (g_hash_table_lookup (next, b)));
        for (; g_hash_table_contains (taken, name); n++)
          {
            g_free (name);
            name = g_strdup_printf ("%s%s%u", b, sep, n);
          }
        g_hash_table_insert (next, g_steal_pointer (&b), GUINT_TO_POINTER (n));
        g_hash_table_add (taken, name);
        g_hash_table_insert (names, (gpointer) metric, name);
      }
  return names;
}

typedef struct {
  GPtrArray *metrics;      /* the log's metric names, sorted (owned by the log) */
  GHashTable *files;       /* metric -> metric_NAME, its plot's files without extension */
  GHashTable *keys;        /* metric -> its --json key */
} Naming;

static void
naming_init (Naming *n, const RtTrainLog *log)
{
  n->metrics = rt_train_log_names (log);
  n->files = unique_names (n->metrics, file_stem, "_");
  n->keys = unique_names (n->metrics, json_key, " #");
}

static void
naming_clear (Naming *n)
{
  g_clear_pointer (&n->metrics, g_ptr_array_unref);
  g_clear_pointer (&n->files, g_hash_table_unref);
  g_clear_pointer (&n->keys, g_hash_table_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Naming, naming_clear)

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
metric_plot (RtSession *s, const RtTrainLog *log, const Naming *naming, const char *metric,
             guint window, GError **error)
{
  const RtMetric *m = rt_train_log_metric (log, metric);
  const char *name = g_hash_table_lookup (naming->files, metric);
  g_autofree char *shown = printable (metric);
  if (!has_plottable (m))
    {
      if (!s->quiet)
        g_printerr ("rt-train: note: %s skipped: no finite value of %s to plot (nan, inf or past "
                    "1e300 in size)\n", name, shown);
      return TRUE;
    }
  gboolean exact;
  g_autofree char *wanted = file_stem (metric, &exact);
  if (strcmp (name, wanted) != 0 && !s->quiet)
    g_printerr ("rt-train: note: %s is drawn as %s (%s is another metric's)\n", shown, name, wanted);
  g_autoptr (GString) tsv = g_string_new ("step\tvalue\tmoving_mean\n");
  g_autoptr (GArray) recent = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < log->steps->len; i++)
    {
      gint32 step = g_array_index (log->steps, gint32, i);
      double v = plottable (rt_metric_at (m, step));
      if (isnan (v))
        continue;
      g_array_append_val (recent, v);
      guint from = recent->len > window ? recent->len - window : 0;
      rt_tsv_int (tsv, step, FALSE);
      rt_tsv_num (tsv, v, FALSE);
      rt_tsv_num (tsv, rt_mean (rt_samples_data (recent) + from, recent->len - from), TRUE);
    }
  g_autofree char *tsv_name = g_strdup_printf ("%s.tsv", name);
  g_autofree char *yl = rt_gnuplot_quote (metric);
  g_autofree char *win = g_strdup_printf ("'mean of the last %u steps'", window);
  const char *vars[] = { "YLABEL", yl, "WINDOW", win, NULL };
  return rt_session_write (s, tsv_name, tsv, error)
         && rt_session_plot (s, "train-metric", name, metric, vars, error);
}

/* The metrics any --metric matches, each plotted once, in name order. */
static gboolean
metric_plots (RtSession *s, const RtTrainLog *log, const Naming *naming, guint window, GError **error)
{
  g_autoptr (GHashTable) chosen = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint p = 0; opt_metrics && opt_metrics[p]; p++)
    {
      g_autoptr (GPatternSpec) spec = g_pattern_spec_new (opt_metrics[p]);
      guint matched = 0;
      for (guint k = 0; k < naming->metrics->len; k++)
        if (g_pattern_spec_match_string (spec, g_ptr_array_index (naming->metrics, k)))
          {
            g_hash_table_add (chosen, g_ptr_array_index (naming->metrics, k));
            matched++;
          }
      if (matched == 0 && !s->quiet)
        g_printerr ("rt-train: note: no metric matches --metric %s\n", opt_metrics[p]);
    }
  for (guint k = 0; k < naming->metrics->len; k++)
    if (g_hash_table_contains (chosen, g_ptr_array_index (naming->metrics, k))
        && !metric_plot (s, log, naming, g_ptr_array_index (naming->metrics, k), window, error))
      return FALSE;
  return TRUE;
}

static void
write_json (RtSession *s, const RtTrainLog *log, const Naming *naming, guint window)
{
  RtJsonWriter *w = rt_session_json (s);
  GPtrArray *names = naming->metrics;
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "steps", log->steps->len);
  rt_jw_member_int (w, "lines", (gint64) log->lines);
  rt_jw_member_int (w, "long_lines", (gint64) log->long_lines);
  rt_jw_member_int (w, "dropped_values", (gint64) log->dropped_values);
  rt_jw_key (w, "metrics");
  rt_jw_begin_object (w);
  for (guint k = 0; k < names->len; k++)
    {
      MetricStats st;
      metric_stats (rt_train_log_metric (log, g_ptr_array_index (names, k)), window, &st);
      rt_jw_key (w, g_hash_table_lookup (naming->keys, g_ptr_array_index (names, k)));
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "count", st.sum.count);
      rt_jw_member_number (w, "mean", st.sum.mean);
      rt_jw_member_number (w, "std", st.sum.std);
      rt_jw_member_number (w, "min", st.sum.min);
      rt_jw_member_number (w, "median", st.sum.p50);
      rt_jw_member_number (w, "p95", st.sum.p95);
      rt_jw_member_number (w, "max", st.sum.max);
      rt_jw_member_number (w, "window_mean", st.window_mean);
      rt_jw_end_object (w);
    }
  rt_jw_end_object (w);
  rt_jw_end_object (w);
}

static void
print_summary (RtSession *s, const RtTrainLog *log, const Naming *naming, guint window)
{
  GPtrArray *names = naming->metrics;
  rt_session_print (s, "%u steps (%d to %d), %u metrics, from %" G_GUINT64_FORMAT " metric lines in %"
                    G_GUINT64_FORMAT " lines\n", log->steps->len, g_array_index (log->steps, gint32, 0),
                    g_array_index (log->steps, gint32, log->steps->len - 1), names->len,
                    log->metric_lines, log->lines);
  rt_session_print (s, "%-44s %5s %11s %11s %11s %11s %11s %11s %11s\n", "metric", "count", "mean", "std",
                    "min", "median", "p95", "max", "last-window");
  for (guint k = 0; k < names->len; k++)
    {
      MetricStats st;
      metric_stats (rt_train_log_metric (log, g_ptr_array_index (names, k)), window, &st);
      g_autofree char *shown = printable (g_ptr_array_index (names, k));
      rt_session_print (s, "%-44s %5u %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g %11.4g\n",
                        shown, st.sum.count, st.sum.mean,
                        st.sum.std, st.sum.min, st.sum.p50, st.sum.p95, st.sum.max, st.window_mean);
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
  g_auto (Naming) naming = { 0 };
  naming_init (&naming, log);
  write_json (s, log, &naming, (guint) window);
  if (log->steps->len == 0)
    return rt_session_no_data (s, "%s has no metric line: expected lines such as "
                               "'step:12 - timing_s/gen:50.1 - perf/throughput:1234.5' "
                               "(verl's console logger)", s->args[0]);
  if (!s->json && !s->quiet)   /* the summary is silent then: no need to compute it */
    print_summary (s, log, &naming, (guint) window);

  gboolean ok = breakdown_plot (s, log, error)
    && lines_plot (s, log, "per_token_timing", "time per token by section", "time per token (ms)",
                   per_token, FALSE, error)
    && throughput_plot (s, log, error)
    && lines_plot (s, log, "component_comparison", "generation against actor and critic updates",
                   "time (s)", components, TRUE, error)
    && lines_plot (s, log, "generation_timing", "generation timing", "time (s)", generation, FALSE, error)
    && metric_plots (s, log, &naming, (guint) window, error);
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
                   "JSON (--json): {\"steps\", \"lines\", \"long_lines\", \"metrics\": {name: {\"count\", \"mean\",\n"
                   "\"std\", \"min\", \"median\", \"p95\", \"max\", \"window_mean\"}}} (non-finite values left out).\n"
                   "A line longer than " RT_LINE_MAX_TEXT " is skipped unread and counted in long_lines; past\n"
                   G_STRINGIFY (RT_TRAIN_MAX_METRICS) " distinct metric names, the values of new names are counted in dropped_values.\n\n"
                   "Examples:\n  rt-train logs/train.log\n  rt-train logs/train.log --metric 'critic/score/*' --window 20",
    .entries = entries,
    .run = run,
    .flags = RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
