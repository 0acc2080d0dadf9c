/* rt-cdf: the distribution of request durations (or of any event) per step and over all steps.
 * The tail is the question: P50 to P99.9 are marked on the plot and printed. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-views.h"

#include <math.h>

#define MAX_STEP_SERIES 12   /* more steps than this are drawn as a grey fan, unlabelled */

static char **opt_events;

typedef struct {
  const char *name;         /* canonical */
  guint16 id;
  GArray *step_index;       /* guint: steps with values */
  GPtrArray *step_values;   /* RtSamples*, sorted */
  GArray *step_summary;     /* RtSummary, one per step */
  RtSamples *all;           /* sorted */
  RtSummary all_summary;
} EventCdf;

static void
event_cdf_free (EventCdf *c)
{
  g_array_unref (c->step_index);
  g_ptr_array_unref (c->step_values);
  g_array_unref (c->step_summary);
  g_array_unref (c->all);
  g_free (c);
}

static EventCdf *
event_cdf_collect (RtSession *s, const char *name, guint16 id, GArray *selected)
{
  EventCdf *c = g_new0 (EventCdf, 1);
  c->name = name;
  c->id = id;
  c->step_index = g_array_new (FALSE, FALSE, sizeof (guint));
  c->step_values = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  c->step_summary = g_array_new (FALSE, FALSE, sizeof (RtSummary));
  c->all = rt_samples_new ();
  for (guint i = 0; id != RT_EVENT_NONE && i < selected->len; i++)
    {
      guint si = g_array_index (selected, guint, i);
      RtSamples *v = rt_view_event_values (s->trace, si, id);
      if (v->len == 0)
        {
          g_array_unref (v);
          continue;   /* steps without data are left out */
        }
      g_array_append_vals (c->all, v->data, v->len);
      RtSummary sum;
      rt_summary_compute (rt_samples_data (v), v->len, &sum);   /* sorts v */
      g_array_append_val (c->step_summary, sum);
      g_array_append_val (c->step_index, si);
      g_ptr_array_add (c->step_values, v);
    }
  rt_summary_compute (rt_samples_data (c->all), c->all->len, &c->all_summary);
  return c;
}

static void
write_event_json (RtSession *s, RtJsonWriter *w, const EventCdf *c)
{
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "event", c->name);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  for (guint i = 0; i < c->step_index->len; i++)
    {
      const RtSummary *sum = &g_array_index (c->step_summary, RtSummary, i);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "step", rt_trace_step (s->trace, g_array_index (c->step_index, guint, i))->step);
      rt_view_write_summary (w, sum, RT_SUMMARY_P80 | RT_SUMMARY_P999);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "all");
  rt_jw_begin_object (w);
  rt_view_write_summary (w, &c->all_summary, RT_SUMMARY_P80 | RT_SUMMARY_P999);
  rt_jw_end_object (w);
  rt_jw_end_object (w);
}

static gboolean
write_plot (RtSession *s, GPtrArray *cdfs, GError **error)
{
  g_autoptr (GString) tsv = g_string_new ("# duration_s\tfraction\n");
  g_autoptr (GString) plot = g_string_new ("plot ");
  g_autoptr (GString) markers = g_string_new (NULL);
  guint block = 0;
  gboolean overlay = cdfs->len > 1;

  for (guint e = 0; e < cdfs->len; e++)
    {
      const EventCdf *c = g_ptr_array_index (cdfs, e);
      guint n_steps = c->step_index->len;
      /* one event: a line per step and the whole; several events: the whole of each */
      for (guint i = 0; !overlay && n_steps > 1 && i < n_steps; i++)
        {
          RtSamples *v = g_ptr_array_index (c->step_values, i);
          gint32 step = rt_trace_step (s->trace, g_array_index (c->step_index, guint, i))->step;
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
      g_autofree char *label = overlay ? g_strdup (c->name) : g_strdup ("all selected steps");
      rt_view_tsv_cdf_block (tsv, label, rt_samples_data (c->all), c->all->len, 4000);
      g_autofree char *title = rt_gnuplot_quote (label);
      g_string_append_printf (plot, "%sdata index %u using 1:2 with steps lw 3 %s title %s",
                              block ? ", \\\n     " : "", block,
                              overlay ? "" : "lc rgb 'black'", title);
      block++;
      if (e == 0)
        {
          rt_plot_cdf_markers (markers, &c->all_summary, overlay ? c->name : "all selected steps");
        }
    }
  g_string_append_c (plot, '\n');

  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autofree char *steps_text = rt_session_describe_step_indices (s, selected);
  const EventCdf *first = g_ptr_array_index (cdfs, 0);
  g_autofree char *what = g_strdup_printf ("CDF of %s, %s", overlay ? "events" : first->name, steps_text);
  g_autofree char *xlabel = g_strdup_printf ("'%s (s, log scale)'",
                                             first->id == RT_EV_REQUEST_COMPLETE && !overlay
                                               ? "request duration" : "duration");

  if (!rt_session_write (s, "cdf.tsv", tsv, error))
    return FALSE;
  const char *vars[] = { "XLABEL", xlabel, "MARKERS", markers->str, "PLOT", plot->str, NULL };
  return rt_session_plot (s, "cdf", "cdf", what, vars, error);
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autoptr (GPtrArray) cdfs = g_ptr_array_new_with_free_func ((GDestroyNotify) event_cdf_free);
  const char *default_events[] = { "async_rollout_request_complete", NULL };
  const char *const *names = opt_events ? (const char *const *) opt_events : default_events;

  for (guint i = 0; names[i] != NULL; i++)
    {
      guint16 id = rt_event_registry_lookup (s->trace->registry, names[i]);
      const char *canonical = id != RT_EVENT_NONE ? rt_event_registry_name (s->trace->registry, id)
                                                  : names[i];
      g_ptr_array_add (cdfs, event_cdf_collect (s, canonical, id, selected));
    }

  RtJsonWriter *w = rt_session_json (s);
  if (cdfs->len == 1)
    write_event_json (s, w, g_ptr_array_index (cdfs, 0));
  else
    {
      rt_jw_begin_object (w);
      rt_jw_key (w, "events");
      rt_jw_begin_array (w);
      for (guint i = 0; i < cdfs->len; i++)
        write_event_json (s, w, g_ptr_array_index (cdfs, i));
      rt_jw_end_array (w);
      rt_jw_end_object (w);
    }

  gboolean any = FALSE;
  for (guint i = 0; i < cdfs->len; i++)
    {
      EventCdf *c = g_ptr_array_index (cdfs, i);
      if (c->all->len == 0)
        {
          rt_session_no_data (s, "no %s values with a duration in the selected steps", c->name);
          continue;
        }
      any = TRUE;
      const RtSummary sum = c->all_summary;
      rt_session_print (s, "%s over %u steps: %u values\n", c->name, c->step_index->len, sum.count);
      rt_session_print (s, "  mean %.3f s  std %.3f s  min %.3f s  max %.3f s\n", sum.mean, sum.std,
                        sum.min, sum.max);
      rt_session_print (s, "  P50 %.3f  P80 %.3f  P90 %.3f  P95 %.3f  P99 %.3f  P99.9 %.3f s\n",
                        sum.p50, sum.p80, sum.p90, sum.p95, sum.p99, sum.p999);
    }
  if (!any)
    return 1;
  return write_plot (s, cdfs, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "event", 'e', 0, G_OPTION_ARG_STRING_ARRAY, &opt_events,
      "Event whose durations to plot (repeat to overlay; older names accepted; "
      "default async_rollout_request_complete)", "NAME" },
    G_OPTION_ENTRY_NULL
  };
  static const RtCommand cmd = {
    .name = "rt-cdf",
    .parameters = "EXP",
    .summary = "CDF of request durations (duration_sec of async_rollout_request_complete)\n"
               "per selected step and over all selected steps, with P50/P80/P90/P95/P99/P99.9\n"
               "marked. With --event, the durations of other events: a step-level event gives\n"
               "one value per worker file (its sum), any other one value per line.",
    .description = "Writes cdf.tsv, cdf.gp and the rendered plot into --out.\n"
                   "JSON (--json): {\"event\", \"steps\": [{\"step\", \"count\", \"mean\", \"std\",\n"
                   "\"min\", \"max\", \"p50\", \"p80\", \"p90\", \"p95\", \"p99\", \"p999\"}], \"all\": {...}};\n"
                   "with several --event: {\"events\": [that, ...]}.\n\n"
                   "Examples:\n  rt-cdf logs/exp\n  rt-cdf logs/exp --steps 10-20 --event turn_engine_call --event tool_execution",
    .entries = entries,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
