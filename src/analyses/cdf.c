/* SPDX-License-Identifier: Apache-2.0 */
/* cdf.c: the distribution of request durations (or of any event's durations) per step and over all.
 * The tail is the question, so every summary carries P50 to P99.9. */
#include "rolltrace/analyses/cdf.h"
#include "rolltrace/analyses/fit.h"
#include "rolltrace/rt-views.h"
#include "../tasks-private.h"

#include <string.h>

static void
cdf_event_free (RtCdfEvent *c)
{
  for (guint i = 0; i < c->steps->len; i++)
    rt_sorted_clear (&g_array_index (c->steps, RtCdfStep, i).sorted);
  g_array_unref (c->steps);
  rt_sorted_clear (&c->all);
  g_free (c);
}

typedef struct {
  RtSorted values;
  RtSummary *out;
} SummaryJob;

static void
summary_run (SummaryJob *job)
{
  rt_summary_of_sorted (job->values.v, job->values.n, job->out);
}

/* The summary of every step's values, side by side (rt_summaries_of_sorted). */
static void
steps_summarise (GArray *steps)
{
  guint n = steps->len;
  g_autofree const double **values = g_new (const double *, n + 1);
  g_autofree guint *lens = g_new (guint, n + 1);
  g_autofree RtSummary *summaries = g_new0 (RtSummary, n + 1);   /* padding too: a summary is
                                                                  * compared whole (memcmp) */
  for (guint i = 0; i < n; i++)
    {
      const RtCdfStep *st = &g_array_index (steps, RtCdfStep, i);
      values[i] = st->sorted.v;
      lens[i] = st->sorted.n;
    }
  rt_summaries_of_sorted (n, values, lens, summaries);
  for (guint i = 0; i < n; i++)
    memcpy (&g_array_index (steps, RtCdfStep, i).summary, &summaries[i], sizeof summaries[i]);
}

/* Below this many values (or on one processor) a thread for the summary of them all costs
 * more than it saves. */
#define ALL_VALUES_FOR_A_THREAD 50000

/* The selected steps' values, each sorted, and their summaries, into c->steps; other
 * events' values also gathered into `values`. */
static void
steps_collect (RtCdfEvent *c, const RtTrace *t, GArray *selected, gboolean durations, GArray *values)
{
  for (guint i = 0; c->id != RT_EVENT_NONE && i < selected->len; i++)
    {
      RtCdfStep st = { .step_index = g_array_index (selected, guint, i) };
      st.step = rt_trace_step (t, st.step_index)->step;
      if (durations)
        st.sorted = rt_view_request_durations_sorted_in_place (t, st.step_index);
      else
        {
          RtSamples *v = rt_view_event_values (t, st.step_index, c->id);
          g_array_append_vals (values, v->data, v->len);
          rt_sort_doubles (rt_samples_data (v), v->len);
          st.sorted = rt_sorted_own (v);
        }
      if (st.sorted.n == 0)
        {
          rt_sorted_clear (&st.sorted);
          continue;   /* steps without data are left out */
        }
      g_array_append_val (c->steps, st);
    }
  steps_summarise (c->steps);
}

/* The request durations of every step: the steps (task 0) and the summary of them all (task 1). */
typedef struct {
  RtCdfEvent *c;
  const RtTrace *t;
  GArray *selected;
  SummaryJob all;
} DurationsJob;

static void
durations_task (gpointer data, guint task)
{
  DurationsJob *job = data;
  if (task == 0)
    steps_collect (job->c, job->t, job->selected, TRUE, NULL);
  else
    summary_run (&job->all);
}

static RtCdfEvent *
cdf_event_collect (const RtTrace *t, const char *name, GArray *selected)
{
  RtCdfEvent *c = g_new0 (RtCdfEvent, 1);
  c->id = rt_event_registry_lookup (t->registry, name);
  c->event = c->id != RT_EVENT_NONE ? rt_event_registry_name (t->registry, c->id) : name;
  c->steps = g_array_new (FALSE, FALSE, sizeof (RtCdfStep));
  /* request durations come sorted (in place in the cache, when it holds them), and the
   * sorted steps merge into the sorted whole */
  gboolean durations = c->id == RT_EV_REQUEST_COMPLETE;
  guint n_all;
  const double *all = durations && selected->len == t->steps->len
                        ? rt_trace_all_sorted_durations (t, &n_all) : NULL;
  if (all != NULL)
    {
      /* every step selected: the cache has them sorted together; their summary (two passes
       * over them all, each a chain of additions) is made meanwhile by a helper, when it
       * starts in time */
      c->all = rt_sorted_borrow (all, n_all);
      DurationsJob job = { c, t, selected, { c->all, &c->all_summary } };
      rt_run_shared (2, n_all >= ALL_VALUES_FOR_A_THREAD ? g_get_num_processors () : 1, durations_task, &job);
      return c;
    }
  g_autoptr (GArray) values = durations ? NULL : rt_samples_new ();   /* of other events */
  steps_collect (c, t, selected, durations, values);
  if (durations)
    {
      guint n = c->steps->len;
      g_autofree const double **runs = g_new (const double *, n + 1);
      g_autofree guint *lens = g_new (guint, n + 1);
      for (guint i = 0; i < n; i++)
        {
          const RtCdfStep *st = &g_array_index (c->steps, RtCdfStep, i);
          runs[i] = st->sorted.v;
          lens[i] = st->sorted.n;
        }
      RtSamples *merged = rt_samples_new ();
      rt_merge_sorted (merged, runs, lens, n);
      c->all = rt_sorted_own (merged);
    }
  else
    {
      rt_sort_doubles (rt_samples_data (values), values->len);
      c->all = rt_sorted_own (g_steal_pointer (&values));
    }
  rt_summary_of_sorted (c->all.v, c->all.n, &c->all_summary);
  return c;
}

RtCdf *
rt_cdf_analyse (const RtTrace *t, const RtStepSet *steps, const char *const *events)
{
  static const char *const default_events[] = { "async_rollout_request_complete", NULL };
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  RtCdf *cdf = g_new0 (RtCdf, 1);
  cdf->events = g_ptr_array_new_with_free_func ((GDestroyNotify) cdf_event_free);
  for (const char *const *name = events ? events : default_events; *name != NULL; name++)
    g_ptr_array_add (cdf->events, cdf_event_collect (t, *name, selected));
  return cdf;
}

void
rt_cdf_free (RtCdf *cdf)
{
  if (cdf == NULL)
    return;
  g_ptr_array_unref (cdf->events);
  g_free (cdf);
}

#define CDF_SUMMARY_COLUMNS \
  RT_SUMMARY_COLUMNS_HEAD ("s"), RT_SUMMARY_COLUMN_P80 ("s"), RT_SUMMARY_COLUMNS_TAIL ("s"), \
  RT_SUMMARY_COLUMN_P999 ("s")

const RtTableSpec rt_cdf_steps_spec = {
  "cdf_steps", "one per selected step with values",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    CDF_SUMMARY_COLUMNS,
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_cdf_all_spec = {
  "cdf_all", "the values of all selected steps together",
  (const RtColumn[]) { CDF_SUMMARY_COLUMNS, RT_COLUMNS_END },
};

RtTable *
rt_cdf_steps_table (const RtCdfEvent *e)
{
  RtTable *table = rt_table_new (&rt_cdf_steps_spec);
  for (guint i = 0; i < e->steps->len; i++)
    {
      const RtCdfStep *st = &g_array_index (e->steps, RtCdfStep, i);
      rt_table_int (table, st->step);
      rt_table_summary (table, &st->summary, RT_SUMMARY_P80 | RT_SUMMARY_P999);
    }
  return table;
}

RtTable *
rt_cdf_all_table (const RtCdfEvent *e)
{
  RtTable *table = rt_table_new (&rt_cdf_all_spec);
  rt_table_summary (table, &e->all_summary, RT_SUMMARY_P80 | RT_SUMMARY_P999);
  return table;
}

static const RtTableSpec *const cdf_tables[] = { &rt_cdf_steps_spec, &rt_cdf_all_spec, &rt_fit_spec, NULL };

const RtAnalysisSpec rt_cdf_analysis = {
  .name = "cdf",
  .reads = RT_READS_DURATIONS,
  .steps = RT_STEPS_SELECTED,
  .tables = cdf_tables,
  .plots = "cdf",
};
static const RtTableSpec *const cdf_events_tables[] = { &rt_cdf_steps_spec, &rt_cdf_all_spec, &rt_fit_spec, NULL };

const RtAnalysisSpec rt_cdf_events_analysis = {
  .name = "cdf_events",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_DURATIONS,
  .steps = RT_STEPS_SELECTED,
  .tables = cdf_events_tables,
  .plots = "cdf",
};
