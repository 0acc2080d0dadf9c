/* SPDX-License-Identifier: Apache-2.0 */
/* rt-compare: several experiments side by side, the first the reference: request durations,
 * rollout and throughput per step, sections, turns, with ratios and a KS test against the first. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

#include <math.h>
#include <string.h>

static char *opt_labels;
static gboolean opt_fit;
static RtCompareAlign opt_align = RT_COMPARE_ALIGN_STEP;
static char *opt_mix;
static char *opt_bins;

/* --mix adds its split to the comparison. */
static gboolean
runs (G_GNUC_UNUSED const RtSession *s, const RtAnalysisSpec *analysis)
{
  return analysis != &rt_mix_analysis || opt_mix != NULL;
}

static gboolean
parse_align (const char *option, const char *value, G_GNUC_UNUSED gpointer data, GError **error)
{
  if (strcmp (value, "step") == 0)
    opt_align = RT_COMPARE_ALIGN_STEP;
  else if (strcmp (value, "index") == 0)
    opt_align = RT_COMPARE_ALIGN_INDEX;
  else
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s: '%s' is not step or index", option, value);
      return FALSE;
    }
  return TRUE;
}

/* The labels: --labels (one non-empty per experiment) or the folders' names, a repeated one
 * numbered #2, #3... */
static GStrv
experiment_labels (RtSession *s, GError **error)
{
  guint n = s->experiments->len;
  if (opt_labels == NULL)
    {
      GStrv labels = g_new0 (char *, n + 1);
      for (guint e = 0; e < n; e++)
        labels[e] = g_strdup (rt_session_experiment (s, e)->label);
      return labels;
    }
  g_auto (GStrv) given = g_strsplit (opt_labels, ",", -1);
  if (g_strv_length (given) != n)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--labels gives %u label%s for %u experiments",
                   g_strv_length (given), g_strv_length (given) == 1 ? "" : "s", n);
      return NULL;
    }
  for (guint e = 0; e < n; e++)
    if (given[e][0] == '\0')
      {
        g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--labels: label %u is empty", e + 1);
        return NULL;
      }
  return rt_experiment_labels ((const char *const *) given, n);
}

/* A number for the text table: "-" for null. */
static void
cell (GString *out, const char *fmt, double v)
{
  g_autofree char *text = isnan (v) ? g_strdup ("-") : g_strdup_printf (fmt, v);
  g_string_append_printf (out, " %9s", text);
}

static void
print_table (RtSession *s, const RtCompare *c, const char *steps_text)
{
  guint width = 12;
  for (guint e = 0; e < c->n; e++)
    width = MAX (width, MIN (40u, (guint) g_utf8_strlen (c->experiments[e].in.label, -1) + 2));
  rt_session_print (s, "%u experiments, %s; the first is the reference (durations in s)\n", c->n, steps_text);
  g_autoptr (GString) out = g_string_new (NULL);
  g_string_append_printf (out, "%-*s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", width, "experiment", "requests",
                          "mean", "P50", "P90", "P99", "P99.9", "rollout", "interval", "barrier%", "req/s", "tok/s");
  for (guint e = 0; e < c->n; e++)
    {
      const RtCompareExperiment *x = &c->experiments[e];
      g_autoptr (GString) label = g_string_new (NULL);
      rt_tsv_append_text (label, x->in.label);   /* control characters never reach the terminal */
      g_string_append_printf (out, "%-*s %9" G_GUINT64_FORMAT, width, label->str, x->requests);
      cell (out, "%.3f", x->duration.mean);
      cell (out, "%.3f", x->duration.p50);
      cell (out, "%.3f", x->duration.p90);
      cell (out, "%.3f", x->duration.p99);
      cell (out, "%.3f", x->duration.p999);
      cell (out, "%.2f", x->rollout_mean);
      cell (out, "%.2f", x->interval_mean);
      cell (out, "%.2f", x->barrier_share_mean);
      cell (out, "%.3f", x->requests_per_s);
      cell (out, "%.1f", x->tokens_per_s);
      g_string_append_c (out, '\n');
    }
  if (c->n > 1)
    g_string_append_printf (out, "\n%-*s %9s %9s %9s %9s %9s %9s\n", width, "vs the first", "mean", "P50", "P90",
                            "P99", "KS D", "KS p");
  for (guint e = 1; e < c->n; e++)
    {
      const RtCompareVersus *v = &c->versus[e];
      g_autoptr (GString) label = g_string_new (NULL);
      rt_tsv_append_text (label, c->experiments[e].in.label);
      g_string_append_printf (out, "%-*s", width, label->str);
      cell (out, "x%.3f", v->mean_ratio);
      cell (out, "x%.3f", v->p50_ratio);
      cell (out, "x%.3f", v->p90_ratio);
      cell (out, "x%.3f", v->p99_ratio);
      cell (out, "%.4f", v->ks_statistic);
      cell (out, "%.3g", v->ks_pvalue);
      g_string_append_c (out, '\n');
    }
  rt_session_print (s, "%s", out->str);
}

static int
run (RtSession *s, GError **error)
{
  guint n = s->experiments->len;
  if (opt_mix != NULL && strcmp (opt_mix, "turns") != 0 && strcmp (opt_mix, "tokens") != 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--mix %s: give turns or tokens", opt_mix);
      return 2;
    }
  if (opt_bins != NULL && opt_mix == NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--bins sets the bins of --mix: give --mix turns|tokens too");
      return 2;
    }
  if (opt_bins != NULL)
    {
      g_autoptr (GError) bad = NULL;
      g_autoptr (GArray) edges = rt_mix_parse_edges (opt_bins, &bad);
      if (edges == NULL)
        {
          g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s", bad->message);
          return 2;
        }
    }
  g_auto (GStrv) labels = experiment_labels (s, error);
  if (labels == NULL)
    return 2;
  g_free (s->subject);   /* plot titles name the experiments by their labels */
  s->subject = g_strjoinv (" vs ", labels);

  g_autofree RtCompareInput *inputs = g_new0 (RtCompareInput, n);
  for (guint e = 0; e < n; e++)
    inputs[e] = (RtCompareInput) { rt_session_experiment (s, e)->trace, labels[e], s->args[e],
                                   rt_session_experiment (s, e)->step_set };
  g_autoptr (RtCompare) c = rt_compare_analyse (inputs, n, s->steps, opt_align);

  /* --fit: the fit of each experiment's durations (rt-cdf's "all"); NULL where it has none */
  g_autoptr (GPtrArray) fits = NULL;
  if (opt_fit)
    {
      fits = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_fit_free);
      for (guint e = 0; e < n; e++)
        {
          const RtSamples *d = c->experiments[e].durations;
          g_ptr_array_add (fits, d->len > 0 ? rt_fit_analyse (rt_samples_data (d), d->len) : NULL);
        }
    }

  /* --mix: each experiment after the first against the first, over length bins */
  g_autoptr (GPtrArray) mixes = NULL;
  if (opt_mix != NULL)
    {
      RtMixBy by = strcmp (opt_mix, "turns") == 0 ? RT_MIX_TURNS : RT_MIX_TOKENS;
      g_autoptr (GArray) edges = opt_bins != NULL ? rt_mix_parse_edges (opt_bins, NULL) : NULL;
      mixes = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_mix_free);
      for (guint e = 1; e < n; e++)
        g_ptr_array_add (mixes, rt_mix_analyse (inputs[0].trace, inputs[0].steps != NULL ? inputs[0].steps : s->steps,
                                                inputs[e].trace, inputs[e].steps != NULL ? inputs[e].steps : s->steps,
                                                by, edges));
    }

  g_autoptr (RtTable) experiments = rt_compare_experiments_table (c);
  g_autoptr (RtTable) versus = rt_compare_versus_table (c);
  g_autoptr (RtTable) steps = rt_compare_steps_table (c);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "experiments");
  rt_jw_begin_array (w);
  for (guint e = 0; e < n; e++)
    {
      rt_jw_begin_object (w);
      rt_table_write_json_members (experiments, e, w);
      if (fits != NULL)
        {
          rt_jw_key (w, "fit");
          rt_fit_write_json (g_ptr_array_index (fits, e), w);
        }
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "versus");
  rt_jw_begin_array (w);
  for (guint e = 1; e < n; e++)
    {
      rt_jw_begin_object (w);
      rt_table_write_json_members (versus, e - 1, w);
      if (mixes != NULL)
        {
          const char *const label[2] = { labels[0], labels[e] };
          const char *const path[2] = { s->args[0], s->args[e] };
          rt_jw_key (w, "mix");
          rt_mix_write_json (g_ptr_array_index (mixes, e - 1), label, path, w);
        }
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "steps");
  rt_table_write_json (steps, w);
  rt_jw_end_object (w);

  int status = 0;
  for (guint e = 0; e < n; e++)
    if (c->experiments[e].durations->len == 0)
      {
        g_autoptr (GString) label = g_string_new (NULL);
        rt_tsv_append_text (label, c->experiments[e].in.label);
        status = rt_session_no_data (s, "%s (%s): no finite request duration in the selected steps",
                                     label->str, s->args[e]);
      }
  for (guint e = 1; mixes != NULL && e < n; e++)
    {
      const RtMix *m = g_ptr_array_index (mixes, e - 1);
      for (int side = 0; side < 2; side++)
        if (m->side[side].binned == 0)
          {
            guint x = side == 0 ? 0 : e;
            g_autoptr (GString) label = g_string_new (NULL);
            rt_tsv_append_text (label, c->experiments[x].in.label);
            status = rt_session_no_data (s, "--mix %s: %s (%s) has no request in a bin (%s unknown or below "
                                         "the first edge)", opt_mix, label->str, s->args[x], opt_mix);
          }
    }
  g_autofree char *steps_text = rt_compare_describe_steps (c);
  print_table (s, c, steps_text);
  for (guint e = 1; mixes != NULL && e < n; e++)
    {
      const RtMix *m = g_ptr_array_index (mixes, e - 1);
      g_autoptr (GString) label = g_string_new (NULL);
      rt_tsv_append_text (label, c->experiments[e].in.label);
      if (isnan (m->delta_s))
        continue;
      rt_session_print (s, "%s: mean %+.3f s against the first (by %s, %u and %u requests binned): mix %+.3f s, "
                        "speed %+.3f s, unmatched %+.3f s\n", label->str, m->delta_s, opt_mix,
                        m->side[0].binned, m->side[1].binned, m->mix_s, m->speed_s, m->unmatched_s);
    }
  for (guint e = 0; fits != NULL && e < n; e++)
    if (g_ptr_array_index (fits, e) != NULL)
      {
        g_autoptr (GString) label = g_string_new (NULL);
        rt_tsv_append_text (label, c->experiments[e].in.label);
        g_autofree char *text = rt_fit_text (g_ptr_array_index (fits, e), "  ");
        rt_session_print (s, "%s: %s", label->str, text + 2);
      }
  if (status != 0)
    return status;
  for (guint e = 1; mixes != NULL && e < n; e++)
    {
      const RtMix *m = g_ptr_array_index (mixes, e - 1);
      g_autoptr (RtTable) bins = rt_mix_bins_table (m);
      g_autofree char *name = g_strdup_printf ("compare_mix_%u", e + 1);
      if (!rt_session_write_table (s, bins, name, error) || !rt_plot_compare_mix (s, m, c->experiments[0].in.label,
                                                                                 c->experiments[e].in.label, name, error))
        return 1;
    }
  return rt_session_write_table (s, experiments, "compare_experiments", error)
         && rt_session_write_table (s, versus, "compare_versus", error)
         && rt_session_write_table (s, steps, "compare_steps", error)
         && rt_plot_compare (s, c, fits, steps_text, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "labels", 'l', 0, G_OPTION_ARG_STRING, &opt_labels,
      "One non-empty label per experiment, comma-separated, in the order given (default: the folders' names)", "A,B,..." },
    { "align", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_align,
      "Pair the steps of the experiments by number (step, the default) or by position (index)", "step|index" },
    { "fit", 0, 0, G_OPTION_ARG_NONE, &opt_fit,
      "Fit exponential, lognormal, gamma and Weibull distributions to each experiment's request "
      "durations, as rt-cdf --fit does (see its --help)", NULL },
    { "mix", 0, 0, G_OPTION_ARG_STRING, &opt_mix,
      "Split each experiment's mean request duration against the first's over length bins, by turns "
      "or generated tokens (see below)", "turns|tokens" },
    { "bins", 0, 0, G_OPTION_ARG_STRING, &opt_bins,
      "With --mix: the bins' edges, ascending (default: a bin per number of turns; tokens "
      "0,256,512,1024,2048,4096,8192)", "EDGES" },
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_compare_analysis, &rt_mix_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-compare",
    .parameters = "EXP_A EXP_B [EXP_C...]",
    .summary = "Several experiments side by side, the first the reference: request durations (count,\n"
               "mean, P50...P99.9), rollout and step interval, barrier share, requests and response\n"
               "tokens per rollout second; for each after the first, its ratios to the first and a\n"
               "two-sample Kolmogorov-Smirnov test of its request durations against the first's.\n"
               "--steps selects step numbers in every experiment first.",
    .description = "Writes compare_cdf, compare_steps, compare_turns, compare_turn_dist, compare_events,\n"
                   "compare_throughput and compare_hist (.tsv data, .gp scripts, the plots) into --out.\n"
                   "JSON (--json): {\"experiments\": [compare_experiments rows], \"versus\": [compare_versus\n"
                   "rows], \"steps\": [compare_steps rows]}. A step's value is rt-overview's on the whole\n"
                   "experiment (its interval runs to the next step, selected or not); a step with data is\n"
                   "one rt-overview lists. Exit status 1, naming it, when an experiment has no finite\n"
                   "request duration in the selected steps (the JSON is still printed).\n\n"
                   "--fit: each experiment object also has \"fit\", rt-cdf --fit's object for its request\n"
                   "durations (the sample of \"duration\"): {\"n\", \"excluded\", \"best\", \"dists\": [...]},\n"
                   "null when it has none; each best fit is drawn dashed on compare_cdf.\n\n"
                   "--mix turns|tokens [--bins EDGES]: is an experiment slower because each request is\n"
                   "slower, or because it ran a longer mix? Each versus entry gets \"mix\": {\"by\", \"edges\"\n"
                   "(null: a bin per value), \"a\", \"b\" (each {\"label\", \"path\", \"requests\", \"binned\",\n"
                   "\"mean_s\" of the binned, \"tokens\" (sum over the requests with\n"
                   "actual_response_tokens, null if none), \"s_per_token\" (their durations over tokens)}),\n"
                   "\"delta_s\" = b.mean_s - a.mean_s = \"mix_s\" + \"speed_s\" + \"unmatched_s\", \"bins\"}. A bin\n"
                   "[lo, hi) (hi null: open; below the first edge or unknown: unbinned), held by a request of\n"
                   "either side: {\"lo\", \"hi\", \"requests\" [na, nb], \"share\" [pa, pb] (of the binned),\n"
                   "\"mean_s\" [da, db], \"s_per_token\" [a, b], \"mix_s\" = (pb - pa) da if na > 0,\n"
                   "\"speed_s\" = pb (db - da) if na > 0 and nb > 0, \"unmatched_s\" = pb db if na = 0 (else 0),\n"
                   "\"ks\": {\"statistic\", \"pvalue\"} of the bin's durations when both sides have 20 or\n"
                   "more, else null}. Nothing binned on a side: totals null, exit 1. Writes compare_mix_K\n"
                   "(.tsv and plot) for experiment K against the first.\n\n"
                   "Examples:\n  rt-compare logs/baseline logs/new-tool-server\n"
                   "  rt-compare logs/a logs/b logs/c --labels bs64,bs128,bs256 --steps 10-\n"
                   "  rt-compare logs/resumed logs/fresh --align index\n"
                   "  rt-compare logs/a logs/b --mix tokens\n"
                   "  rt-compare logs/a logs/b --fit --json",
    .entries = entries,
    .analyses = analyses,
    .runs = runs,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACES | RT_COMMAND_WRITES_PLOTS,
    .min_args = 2,
    .max_args = 64,
  };
  return rt_command_main (&cmd, argc, argv);
}
