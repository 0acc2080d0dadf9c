/* SPDX-License-Identifier: Apache-2.0 */
/* train.c: the trainer's console log as statistics per metric, the names each metric takes in
 * files and JSON, and the series behind rt-train's plots (which ones have anything to draw). */
#include "rolltrace/analyses/train.h"
#include "rolltrace/rt-text.h"

#include <math.h>
#include <string.h>

/* The plots every log gets, when it has their metrics: files, metrics, and a last column. */
static const char *const breakdown[] = {
  "timing_s/gen", "timing_s/reward", "timing_s/old_log_prob", "timing_s/ref", "timing_s/values",
  "timing_s/adv", "timing_s/update_critic", "timing_s/update_actor", NULL,
};
static const char *const per_token[] = {
  "timing_per_token_ms/gen", "timing_per_token_ms/update_actor", "timing_per_token_ms/update_critic",
  "timing_per_token_ms/values", "timing_per_token_ms/adv", NULL,
};
static const char *const throughput[] = { "perf/throughput", NULL };
static const char *const components[] = {
  "timing_s/gen", "timing_s/update_actor", "timing_s/update_critic", NULL,
};
static const char *const generation[] = {
  "timing_s/gen", "timing_s/generate_sequences", "timing_s/old_log_prob", NULL,
};

#define STEP_TIME "timing_s/step"

static const struct {
  const char *name;
  const char *const *metrics;
  const char *trailer;
} plot_defs[RT_TRAIN_N_PLOTS] = {
  [RT_TRAIN_BREAKDOWN] = { "step_timing_breakdown", breakdown, STEP_TIME },
  [RT_TRAIN_PER_TOKEN] = { "per_token_timing", per_token, NULL },
  [RT_TRAIN_THROUGHPUT] = { "throughput", throughput, STEP_TIME },
  [RT_TRAIN_COMPONENTS] = { "component_comparison", components, NULL },
  [RT_TRAIN_GENERATION] = { "generation_timing", generation, NULL },
};

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

/* The values of a metric a plot can draw, in step order; empty for NULL. */
static GArray *
plottable_values (const RtMetric *m)
{
  GArray *v = m ? rt_metric_values (m) : g_array_new (FALSE, FALSE, sizeof (double));
  guint out = 0;
  for (guint i = 0; i < v->len; i++)
    if (!isnan (plottable (g_array_index (v, double, i))))
      g_array_index (v, double, out++) = g_array_index (v, double, i);
  g_array_set_size (v, out);
  return v;
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

/* Gives each metric of `metrics` (RtTrainMetric) a unique name made by `base`, stored at
 * `offset` in it: a metric whose base is itself keeps it, the others take their base, or
 * base SEP 2, 3... when another metric has it. */
static void
unique_names (GArray *metrics, BaseName base, const char *sep, gsize offset)
{
  g_autoptr (GHashTable) taken = g_hash_table_new (g_str_hash, g_str_equal);
  /* base -> the next number to try, so that many metrics of one base stay linear */
  g_autoptr (GHashTable) next = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (int exact_pass = 1; exact_pass >= 0; exact_pass--)
    for (guint i = 0; i < metrics->len; i++)
      {
        RtTrainMetric *m = &g_array_index (metrics, RtTrainMetric, i);
        gboolean exact;
        g_autofree char *b = base (m->metric, &exact);
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
        G_STRUCT_MEMBER (char *, m, offset) = name;
      }
}

static void
metric_stats (const RtTrainLog *log, guint window, RtTrainMetric *out)
{
  g_autoptr (GArray) v = rt_metric_values (rt_train_log_metric (log, out->metric));
  guint from = v->len > window ? v->len - window : 0;
  out->window_mean = rt_mean (rt_samples_data (v) + from, v->len - from);
  out->plottable = FALSE;
  for (guint i = 0; i < v->len && !out->plottable; i++)
    out->plottable = !isnan (plottable (g_array_index (v, double, i)));
  rt_summary_compute (rt_samples_data (v), v->len, &out->summary);   /* sorts */
}

static void
choose_metrics (RtTrain *tr, const char *const *globs)
{
  for (guint p = 0; globs && globs[p]; p++)
    {
      g_autoptr (GPatternSpec) spec = g_pattern_spec_new (globs[p]);
      guint matched = 0;
      for (guint k = 0; k < tr->metrics->len; k++)
        {
          RtTrainMetric *m = &g_array_index (tr->metrics, RtTrainMetric, k);
          if (g_pattern_spec_match_string (spec, m->metric))
            {
              m->chosen = TRUE;
              matched++;
            }
        }
      if (matched == 0)
        g_ptr_array_add (tr->unmatched, (gpointer) globs[p]);
    }
}

static void
plot_find (const RtTrainLog *log, guint id, RtTrainPlot *p)
{
  p->name = plot_defs[id].name;
  p->metrics = plot_defs[id].metrics;
  p->trailer = plot_defs[id].trailer;
  p->found = g_ptr_array_new ();
  p->means = g_array_new (FALSE, FALSE, sizeof (double));
  p->known = g_ptr_array_new_null_terminated (0, NULL, TRUE);
  for (guint i = 0; p->metrics[i] != NULL; i++)
    {
      const RtMetric *m = rt_train_log_metric (log, p->metrics[i]);
      if (m != NULL)
        g_ptr_array_add (p->known, (gpointer) p->metrics[i]);
      g_autoptr (GArray) v = plottable_values (m);
      if (v->len == 0)
        continue;
      double mean = rt_mean (rt_samples_data (v), v->len);
      g_ptr_array_add (p->found, (gpointer) p->metrics[i]);
      g_array_append_val (p->means, mean);
    }
}

static void
train_metric_clear (RtTrainMetric *m)
{
  g_clear_pointer (&m->file, g_free);
  g_clear_pointer (&m->wanted_file, g_free);
  g_clear_pointer (&m->key, g_free);
}

RtTrain *
rt_train_analyse (const RtTrainLog *log, guint window, const char *const *metric_globs)
{
  RtTrain *tr = g_new0 (RtTrain, 1);
  tr->window = window;
  tr->metrics = g_array_new (FALSE, TRUE, sizeof (RtTrainMetric));
  g_array_set_clear_func (tr->metrics, (GDestroyNotify) train_metric_clear);
  g_autoptr (GPtrArray) names = rt_train_log_names (log);
  for (guint k = 0; k < names->len; k++)
    {
      RtTrainMetric m = { .metric = g_ptr_array_index (names, k) };
      gboolean exact;
      m.wanted_file = file_stem (m.metric, &exact);
      metric_stats (log, window, &m);
      g_array_append_val (tr->metrics, m);
    }
  unique_names (tr->metrics, file_stem, "_", G_STRUCT_OFFSET (RtTrainMetric, file));
  unique_names (tr->metrics, json_key, " #", G_STRUCT_OFFSET (RtTrainMetric, key));
  tr->unmatched = g_ptr_array_new ();
  choose_metrics (tr, metric_globs);
  for (guint id = 0; id < RT_TRAIN_N_PLOTS; id++)
    plot_find (log, id, &tr->plots[id]);
  g_autoptr (GArray) step_times = plottable_values (rt_train_log_metric (log, STEP_TIME));
  tr->step_plottable = step_times->len > 0;
  tr->step_mean = tr->step_plottable ? rt_mean (rt_samples_data (step_times), step_times->len) : NAN;
  return tr;
}

void
rt_train_free (RtTrain *tr)
{
  if (tr == NULL)
    return;
  g_array_unref (tr->metrics);
  g_ptr_array_unref (tr->unmatched);
  for (guint id = 0; id < RT_TRAIN_N_PLOTS; id++)
    {
      g_ptr_array_unref (tr->plots[id].found);
      g_array_unref (tr->plots[id].means);
      g_ptr_array_unref (tr->plots[id].known);
    }
  g_free (tr);
}

const RtTableSpec rt_train_metrics_spec = {
  "train_metrics", "one per metric of the log, in name order (its finite values)",
  (const RtColumn[]) {
    { RT_COL ("metric", RT_COLUMN_TEXT, NULL, "the metric's name (in JSON, the key of its object)"),
      .flags = RT_COLUMN_TSV_ONLY },
    { RT_COL ("count", RT_COLUMN_INT, NULL, "how many finite values") },
    { RT_COL ("mean", RT_COLUMN_NUMBER, NULL, "mean") },
    { RT_COL ("std", RT_COLUMN_NUMBER, NULL, "standard deviation (population)") },
    { RT_COL ("min", RT_COLUMN_NUMBER, NULL, "smallest") },
    { RT_COL ("median", RT_COLUMN_NUMBER, NULL, "median") },
    { RT_COL ("p95", RT_COLUMN_NUMBER, NULL, "95th percentile") },
    { RT_COL ("max", RT_COLUMN_NUMBER, NULL, "largest") },
    { RT_COL ("window_mean", RT_COLUMN_NUMBER, NULL, "mean of the last --window values") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_train_metrics_table (const RtTrain *tr)
{
  RtTable *table = rt_table_new (&rt_train_metrics_spec);
  for (guint k = 0; k < tr->metrics->len; k++)
    {
      const RtTrainMetric *m = &g_array_index (tr->metrics, RtTrainMetric, k);
      rt_table_text (table, m->metric);
      rt_table_int (table, m->summary.count);
      rt_table_number (table, m->summary.mean);
      rt_table_number (table, m->summary.std);
      rt_table_number (table, m->summary.min);
      rt_table_number (table, m->summary.p50);
      rt_table_number (table, m->summary.p95);
      rt_table_number (table, m->summary.max);
      rt_table_number (table, m->window_mean);
    }
  return table;
}

const RtTableSpec rt_train_series_spec = {
  "train_series", "one per step of the log",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the training step"), .flags = RT_COLUMN_TRAINER_STEP },
    { RT_COL ("METRIC", RT_COLUMN_NUMBER, NULL,
              "each metric drawn, named after it; NaN where it has no value a plot can draw"),
      .flags = RT_COLUMN_EACH },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_train_plot_table (const RtTrainLog *log, const RtTrainPlot *p)
{
  g_autoptr (GPtrArray) names = g_ptr_array_copy (p->found, NULL, NULL);
  if (p->trailer != NULL)
    g_ptr_array_add (names, (gpointer) p->trailer);
  RtTable *table = rt_table_new (&rt_train_series_spec);
  rt_table_expand (table, "METRIC", (const char *const *) names->pdata, names->len);
  g_autofree const RtMetric **metrics = g_new (const RtMetric *, MAX (names->len, 1u));
  for (guint k = 0; k < names->len; k++)
    metrics[k] = rt_train_log_metric (log, g_ptr_array_index (names, k));
  for (guint i = 0; i < log->steps->len; i++)
    {
      gint32 step = g_array_index (log->steps, gint32, i);
      rt_table_int (table, step);
      for (guint k = 0; k < names->len; k++)
        rt_table_number (table, plottable (rt_metric_at (metrics[k], step)));
    }
  return table;
}

const RtTableSpec rt_train_metric_spec = {
  "train_metric", "one per step at which the metric has a value a plot can draw",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the training step"), .flags = RT_COLUMN_TRAINER_STEP },
    { RT_COL ("value", RT_COLUMN_NUMBER, NULL, "the metric's value (below 1e-300 in size: 0)") },
    { RT_COL ("moving_mean", RT_COLUMN_NUMBER, NULL, "the mean of the last --window such values") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_train_metric_table (const RtTrainLog *log, const char *metric, guint window)
{
  const RtMetric *m = rt_train_log_metric (log, metric);
  RtTable *table = rt_table_new (&rt_train_metric_spec);
  g_autoptr (GArray) recent = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < log->steps->len; i++)
    {
      gint32 step = g_array_index (log->steps, gint32, i);
      double v = plottable (rt_metric_at (m, step));
      if (isnan (v))
        continue;
      g_array_append_val (recent, v);
      guint from = recent->len > window ? recent->len - window : 0;
      rt_table_int (table, step);
      rt_table_number (table, v);
      rt_table_number (table, rt_mean (rt_samples_data (recent) + from, recent->len - from));
    }
  return table;
}
