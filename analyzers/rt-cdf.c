/* SPDX-License-Identifier: Apache-2.0 */
/* rt-cdf: the distribution of request durations (or of any event) per step and over all steps.
 * The tail is the question: P50 to P99.9 are marked on the plot and printed. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-plots.h"
#include "rolltrace/rt-views.h"

#include <math.h>

static char **opt_events;
static gboolean opt_fit;

/* Request durations come from the request table (or ready sorted from the cache): only
 * --event reads the event rows, and then the request table too (when it names
 * async_rollout_request_complete, a step the cache does not hold must be computed). */
static gboolean
runs (G_GNUC_UNUSED const RtSession *s, const RtAnalysisSpec *analysis)
{
  return (analysis == &rt_cdf_events_analysis) == (opt_events != NULL);
}

static void
write_event_json (RtJsonWriter *w, const RtCdfEvent *c, const RtFit *fit)
{
  g_autoptr (RtTable) steps = rt_cdf_steps_table (c);
  g_autoptr (RtTable) all = rt_cdf_all_table (c);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "event", c->event);
  rt_jw_key (w, "steps");
  rt_table_write_json (steps, w);
  rt_jw_key (w, "all");
  rt_table_write_json_row (all, 0, w);
  if (opt_fit)
    {
      rt_jw_key (w, "fit");
      rt_fit_write_json (fit, w);
    }
  rt_jw_end_object (w);
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtCdf) cdf = rt_cdf_analyse (s->trace, s->steps, (const char *const *) opt_events);
  GPtrArray *cdfs = cdf->events;
  /* the fit of each event's pooled values; none (NULL) for an event without a value */
  g_autoptr (GPtrArray) fits = NULL;
  if (opt_fit)
    {
      fits = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_fit_free);
      for (guint i = 0; i < cdfs->len; i++)
        {
          const RtCdfEvent *c = g_ptr_array_index (cdfs, i);
          g_ptr_array_add (fits, c->all.n > 0 ? rt_fit_analyse (c->all.v, c->all.n) : NULL);
        }
    }

  RtJsonWriter *w = rt_session_json (s);
  if (cdfs->len == 1)
    write_event_json (w, g_ptr_array_index (cdfs, 0), fits ? g_ptr_array_index (fits, 0) : NULL);
  else
    {
      rt_jw_begin_object (w);
      rt_jw_key (w, "events");
      rt_jw_begin_array (w);
      for (guint i = 0; i < cdfs->len; i++)
        write_event_json (w, g_ptr_array_index (cdfs, i), fits ? g_ptr_array_index (fits, i) : NULL);
      rt_jw_end_array (w);
      rt_jw_end_object (w);
    }

  gboolean any = FALSE;
  for (guint i = 0; i < cdfs->len; i++)
    {
      const RtCdfEvent *c = g_ptr_array_index (cdfs, i);
      if (c->all.n == 0 && rt_event_registry_lookup (s->trace->registry, c->event) == RT_EVENT_NONE)
        {
          g_autofree char *closest = rt_event_registry_closest (s->trace->registry, c->event, 5);
          rt_session_no_data (s, "the trace has no event named %s (the closest: %s; rt-events lists "
                              "the step sections, rt-export --table events every line)", c->event, closest);
          continue;
        }
      if (c->all.n == 0)
        {
          rt_session_no_data (s, "no %s values with a duration in the selected steps", c->event);
          continue;
        }
      any = TRUE;
      const RtSummary sum = c->all_summary;
      rt_session_print (s, "%s over %u steps: %u values\n", c->event, c->steps->len, sum.count);
      rt_session_print (s, "  mean %.3f s  std %.3f s  min %.3f s  max %.3f s\n", sum.mean, sum.std,
                        sum.min, sum.max);
      rt_session_print (s, "  P50 %.3f  P80 %.3f  P90 %.3f  P95 %.3f  P99 %.3f  P99.9 %.3f s\n",
                        sum.p50, sum.p80, sum.p90, sum.p95, sum.p99, sum.p999);
      if (fits != NULL)
        {
          g_autofree char *text = rt_fit_text (g_ptr_array_index (fits, i), "  ");
          rt_session_print (s, "%s", text);
        }
    }
  if (!any)
    return 1;
  return rt_plot_cdf (s, cdf, fits, RT_PLOT_CDF_STEP_POINTS, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "event", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &opt_events,
      "Event whose durations to plot (repeat to overlay; older names accepted; "
      "default async_rollout_request_complete)", "NAME" },
    { "fit", 0, 0, G_OPTION_ARG_NONE, &opt_fit,
      "Fit exponential, lognormal, gamma and Weibull distributions to each event's values "
      "(see below)", NULL },
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_cdf_analysis, &rt_cdf_events_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-cdf",
    .parameters = "EXP",
    .summary = "CDF of request durations (duration_sec of async_rollout_request_complete)\n"
               "per selected step and over all selected steps, with P50/P80/P90/P95/P99/P99.9\n"
               "marked. With --event, the durations of other events: a step-level event gives\n"
               "one value per worker file (its sum), any other one value per line.",
    .description = "Writes cdf.tsv (the CDF points), cdf.gp and the rendered plot into --out.\n"
                   "JSON (--json): {\"event\", \"steps\": [cdf_steps rows], \"all\": {a cdf_all row}};\n"
                   "with several --event: {\"events\": [that, ...]}.\n\n"
                   "--fit fits four distributions by maximum likelihood, location fixed at 0, to the\n"
                   "values > 0 of each event over all selected steps (the others are counted as\n"
                   "excluded):\n"
                   "  exponential: scale = mean x;\n"
                   "  lognormal: mu = mean(ln x), sigma = sqrt(mean((ln x - mu)^2));\n"
                   "  gamma: shape k solving ln k - digamma(k) = ln(mean x) - mean(ln x),\n"
                   "    scale = mean x / k;\n"
                   "  weibull: shape c solving sum(x^c ln x)/sum(x^c) - 1/c - mean(ln x) = 0,\n"
                   "    scale = (mean(x^c))^(1/c)\n"
                   "(the equations solved by Brent's method to 1e-14 relative). For each: the KS\n"
                   "distance D = max over the sorted values of max(i/n - F(x_i), F(x_i) - (i-1)/n),\n"
                   "the log-likelihood and AIC = 2k - 2 lnL (k = 1 for the exponential, 2 otherwise);\n"
                   "best = the smallest D, ties to the earlier of the four. The best fit is drawn\n"
                   "dashed on cdf, named with its parameters; fit_qq plots the values against its\n"
                   "quantiles at (i - 1/2)/n; fit.tsv has every fit. JSON: each event object gets\n"
                   "\"fit\": {\"n\" (values > 0), \"excluded\" (the others), \"best\" (name or null),\n"
                   "\"dists\": [{\"dist\": \"exponential\"|\"lognormal\"|\"gamma\"|\"weibull\", \"params\":\n"
                   "{\"scale\"} | {\"mu\", \"sigma\"} | {\"shape\", \"scale\"}, \"ks\", \"loglik\", \"aic\"}, in\n"
                   "that order]}; an estimate that does not exist (exponential: n = 0; the others:\n"
                   "fewer than two distinct values > 0) has null params, ks, loglik and aic; \"fit\"\n"
                   "is null for an event without any value.\n\n"
                   "Examples:\n  rt-cdf logs/exp\n  rt-cdf logs/exp --steps 10-20 --event turn_engine_call --event tool_execution\n"
                   "  rt-cdf logs/exp --fit --json",
    .entries = entries,
    .analyses = analyses,
    .runs = runs,
    .tables_heading = "Tables (the JSON's arrays and objects named above; the files rt-cdf writes are cdf.tsv,\n"
                      "the sorted values of each step and of all as CDF points, and with --fit fit.tsv and\n"
                      "fit_qq.tsv; rt-report writes cdf_steps.tsv), by column:",
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
