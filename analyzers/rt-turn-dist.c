/* rt-turn-dist: how many turns requests take, step by step, and what each extra turn costs.
 * A shift towards longer conversations explains a slower rollout before any profiler does. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-views.h"

#include <math.h>

typedef struct {
  gint32 turns;
  guint count;
  double sum_s;
  guint n_timed;
} TurnBin;

typedef struct {
  guint step_index;
  guint requests;
  GArray *bins;   /* TurnBin, one per number of turns that occurs, ascending: sized by
                   * what the trace holds, never by one absurd value of `turns` */
} StepDist;

/* The bin of `turns`, or where it would go. */
static guint
bin_position (const GArray *bins, gint32 turns)
{
  guint lo = 0, hi = bins->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (g_array_index (bins, TurnBin, mid).turns < turns)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static const TurnBin *
bin_find (const GArray *bins, gint32 turns)
{
  guint at = bin_position (bins, turns);
  return at < bins->len && g_array_index (bins, TurnBin, at).turns == turns
           ? &g_array_index (bins, TurnBin, at) : NULL;
}

static void
bin_add (GArray *bins, gint32 turns, double total_s)
{
  guint at = bin_position (bins, turns);
  if (at == bins->len || g_array_index (bins, TurnBin, at).turns != turns)
    {
      TurnBin fresh = { .turns = turns };
      g_array_insert_val (bins, at, fresh);
    }
  TurnBin *b = &g_array_index (bins, TurnBin, at);
  b->count++;
  if (!isnan (total_s))
    {
      b->sum_s += total_s;
      b->n_timed++;
    }
}

static double
bin_mean (const TurnBin *b)
{
  return b != NULL && b->n_timed ? b->sum_s / b->n_timed : NAN;
}

static guint
bin_count (const TurnBin *b)
{
  return b != NULL ? b->count : 0;
}

static void
write_bins (RtJsonWriter *w, const GArray *bins)
{
  rt_jw_begin_array (w);
  for (guint n = 0; n < bins->len; n++)
    {
      const TurnBin *b = &g_array_index (bins, TurnBin, n);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "turns", b->turns);
      rt_jw_member_int (w, "count", b->count);
      rt_jw_member_number (w, "mean_s", bin_mean (b));
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
}

static gboolean
write_plots (RtSession *s, GArray *dists, const GArray *all, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (GString) counts = g_string_new ("step");
  g_autoptr (GString) means = g_string_new ("step");
  for (guint n = 0; n < all->len; n++)
    {
      gint32 turns = g_array_index (all, TurnBin, n).turns;
      g_string_append_printf (counts, "\t%d", turns);
      g_string_append_printf (means, "\t%d", turns);
    }
  g_string_append_c (counts, '\n');
  g_string_append_c (means, '\n');
  g_autoptr (GArray) shown = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < dists->len; i++)
    {
      const StepDist *d = &g_array_index (dists, StepDist, i);
      gint32 step = rt_trace_step (t, d->step_index)->step;
      g_array_append_val (shown, d->step_index);
      rt_tsv_int (counts, step, FALSE);
      rt_tsv_int (means, step, FALSE);
      for (guint k = 0; k < all->len; k++)
        {
          const TurnBin *b = bin_find (d->bins, g_array_index (all, TurnBin, k).turns);
          rt_tsv_int (counts, bin_count (b), k == all->len - 1);
          rt_tsv_num (means, bin_mean (b), k == all->len - 1);
        }
    }
  g_autofree char *steps = rt_session_describe_step_indices (s, shown);
  g_autofree char *what_counts = g_strdup_printf ("requests by number of turns, %s", steps);
  g_autofree char *what_means = g_strdup_printf ("mean request duration by number of turns, %s", steps);
  g_autofree char *lastcol = g_strdup_printf ("%u", all->len + 1);
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, dists->len / 20));
  g_autofree char *xtics = rt_session_step_xtics (s, shown);
  const char *vars[] = { "LASTCOL", lastcol, "EVERY", every, "XTICS", xtics, NULL };
  return rt_session_write (s, "turn_dist_counts.tsv", counts, error)
         && rt_session_write (s, "turn_dist_mean.tsv", means, error)
         && rt_session_plot (s, "turn-dist-counts", "turn_dist_counts", what_counts, vars, error)
         && rt_session_plot (s, "turn-dist-mean", "turn_dist_mean", what_means, vars, error);
}

static int
run (RtSession *s, GError **error)
{
  const RtTrace *t = s->trace;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autoptr (GArray) dists = g_array_new (FALSE, FALSE, sizeof (StepDist));
  g_autoptr (GArray) all = g_array_new (FALSE, TRUE, sizeof (TurnBin));
  for (guint i = 0; i < selected->len; i++)
    {
      StepDist d = { g_array_index (selected, guint, i), 0, g_array_new (FALSE, TRUE, sizeof (TurnBin)) };
      const RtStep *st = rt_trace_step (t, d.step_index);
      for (guint k = 0; k < st->n_files; k++)
        {
          const RtFile *f = rt_trace_file (t, st->first_file + k);
          for (guint r = 0; r < f->n_requests; r++)
            {
              const RtRequest *q = rt_trace_request (t, f->first_request + r);
              if (!q->complete)
                continue;
              d.requests++;
              if (q->turns < 0)
                continue;
              bin_add (d.bins, q->turns, q->total_s);
              bin_add (all, q->turns, q->total_s);
            }
        }
      if (d.requests == 0)
        g_array_unref (d.bins);   /* no requests: the step is left out */
      else
        g_array_append_val (dists, d);
    }

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  for (guint i = 0; i < dists->len; i++)
    {
      const StepDist *d = &g_array_index (dists, StepDist, i);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "step", rt_trace_step (t, d->step_index)->step);
      rt_jw_member_int (w, "requests", d->requests);
      rt_jw_key (w, "by_turns");
      write_bins (w, d->bins);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "all");
  write_bins (w, all);
  rt_jw_end_object (w);

  int status = 0;
  if (dists->len == 0)
    {
      status = rt_session_no_data (s, "no completed request in the selected steps");
    }
  else
    {
      rt_session_print (s, "turns  requests  mean duration (all selected steps)\n");
      for (guint n = 0; n < all->len; n++)
        {
          const TurnBin *b = &g_array_index (all, TurnBin, n);
          rt_session_print (s, "%5d %9u %10.2f s\n", b->turns, b->count, bin_mean (b));
        }
      if (!write_plots (s, dists, all, error))
        status = 1;
    }
  for (guint i = 0; i < dists->len; i++)
    g_array_unref (g_array_index (dists, StepDist, i).bins);
  return status;
}

int
main (int argc, char **argv)
{
  static const RtCommand cmd = {
    .name = "rt-turn-dist",
    .parameters = "EXP",
    .summary = "Per step, how many requests took 1, 2, 3... turns (the `turns` of\n"
               "async_rollout_request_complete; stacked bars) and their mean duration (a line\n"
               "per number of turns).",
    .description = "JSON (--json): {\"steps\": [{\"step\", \"requests\", \"by_turns\": [{\"turns\", \"count\",\n"
                   "\"mean_s\"}]}], \"all\": [{\"turns\", \"count\", \"mean_s\"}]}\n\n"
                   "Example: rt-turn-dist logs/exp",
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
