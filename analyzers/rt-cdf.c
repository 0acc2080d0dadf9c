/* rt-cdf: the distribution of request durations (or of any event) per step and over all steps.
 * The tail is the question: P50 to P99.9 are marked on the plot and printed. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-views.h"

#include <math.h>

#define MAX_STEP_SERIES 12   /* more steps than this are drawn as a grey fan, unlabelled */
#define FIT_CURVE_POINTS 256
#define FIT_COLOUR "'#d62728'"   /* the best fit of the one event, dashed over the black "all" */

static char **opt_events;
static gboolean opt_fit;

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

/* The best fit of each event (fits: RtFit* or NULL, in the order of cdfs): its CDF dashed on
 * the CDF plot, in the colour of its event when several are overlaid; fit.tsv, and the
 * Q-Q plot of each event's values against its best fit. */
static gboolean
write_fit_plots (RtSession *s, GPtrArray *cdfs, GPtrArray *fits, GString *tsv, GString *plot,
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
      const double *v = rt_samples_data (c->all);
      guint n = c->all->len;
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

static gboolean
write_plot (RtSession *s, GPtrArray *cdfs, GPtrArray *fits, GError **error)
{
  g_autoptr (GString) tsv = g_string_new ("# duration_s\tfraction\n");
  g_autoptr (GString) plot = g_string_new ("plot ");
  g_autoptr (GString) markers = g_string_new (NULL);
  guint block = 0;
  gboolean overlay = cdfs->len > 1;

  for (guint e = 0; e < cdfs->len; e++)
    {
      const RtCdfEvent *c = g_ptr_array_index (cdfs, e);
      guint n_steps = c->steps->len;
      /* one event: a line per step and the whole; several events: the whole of each */
      for (guint i = 0; !overlay && n_steps > 1 && i < n_steps; i++)
        {
          const RtCdfStep *st = &g_array_index (c->steps, RtCdfStep, i);
          RtSamples *v = st->sorted;
          gint32 step = st->step;
          g_autofree char *label = g_strdup_printf ("step %d", step);
          rt_view_tsv_cdf_block (tsv, label, rt_samples_data (v), v->len, 2000);
          if (n_steps <= MAX_STEP_SERIES)
            g_string_append_printf (plot, "%sdata index %u using 1:2 with steps lw 1.5 title 'step %d'",
                                    block ? ", \\\n     " : "", block, step);
          else
            g_string_append_printf (plot, "%sdata index %u using 1:2 with steps lw 1 lc rgb '#c8c8c8' %s",
                                    block ? ", \\\n     " : "", block,
                                    i == 0 ? "title 'one step each'" : "notitle");
          block++;
        }
      g_autofree char *label = overlay ? g_strdup (c->event) : g_strdup ("all selected steps");
      rt_view_tsv_cdf_block (tsv, label, rt_samples_data (c->all), c->all->len, 4000);
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
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autofree char *steps_text = rt_session_describe_step_indices (s, selected);
  if (fits != NULL && !write_fit_plots (s, cdfs, fits, tsv, plot, block, steps_text, error))
    return FALSE;
  g_string_append_c (plot, '\n');
  const RtCdfEvent *first = g_ptr_array_index (cdfs, 0);
  g_autofree char *what = g_strdup_printf ("CDF of %s, %s", overlay ? "events" : first->event, steps_text);
  g_autofree char *xlabel = g_strdup_printf ("'%s (s, log scale)'",
                                             first->id == RT_EV_REQUEST_COMPLETE && !overlay
                                               ? "request duration" : "duration");

  if (!rt_session_write (s, "cdf.tsv", tsv, error))
    return FALSE;
  const char *vars[] = { "XLABEL", xlabel, "MARKERS", markers->str, "PLOT", plot->str, NULL };
  return rt_session_plot (s, "cdf", "cdf", what, vars, error);
}

static void
print_fit (RtSession *s, const RtFit *fit)
{
  const RtFitModel *best = rt_fit_best (fit);
  rt_session_print (s, "  fit (values > 0: %u, excluded: %u), best by KS distance: %s\n", fit->n,
                    fit->excluded, best ? rt_fit_dist_name (best->dist) : "none");
  for (guint d = 0; d < RT_FIT_N_DISTS; d++)
    {
      const RtFitModel *m = &fit->dists[d];
      g_autofree char *model = rt_fit_model_describe (m);
      if (m->exists)
        rt_session_print (s, "    %-38s KS %.4f  loglik %.6g  AIC %.6g\n", model, m->ks, m->loglik, m->aic);
      else
        rt_session_print (s, "    %s\n", model);
    }
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
          g_ptr_array_add (fits, c->all->len > 0 ? rt_fit_analyse (rt_samples_data (c->all), c->all->len) : NULL);
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
      if (c->all->len == 0)
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
        print_fit (s, g_ptr_array_index (fits, i));
    }
  if (!any)
    return 1;
  return write_plot (s, cdfs, fits, error) ? 0 : 1;
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
  static const RtTableSpec *const tables[] = { &rt_cdf_steps_spec, &rt_cdf_all_spec, &rt_fit_spec, NULL };
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
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
