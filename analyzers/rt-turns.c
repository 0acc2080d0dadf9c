/* rt-turns: how long each turn of a conversation takes, by turn index.
 * The turn that explodes (usually a late engine call on a long context) shows up here. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-views.h"

#include <math.h>

enum { PRE, ENGINE, POST, TOOL, TOTAL, N_PARTS };
static const char *const part_names[N_PARTS] = {
  "pre_process", "engine_call", "post_process", "tool_parsing", "total",
};

typedef struct {
  guint count;
  double sum[N_PARTS];
  guint n[N_PARTS];      /* records with that part present */
} TurnRow;

static void
add_part (TurnRow *row, int part, double v)
{
  if (isnan (v))
    return;
  row->sum[part] += v;
  row->n[part]++;
}

static double
part_mean (const TurnRow *row, int part)
{
  return row->n[part] ? row->sum[part] / row->n[part] : NAN;
}

/* Every turn record of the selected steps' requests, grouped by turn index. */
static GArray *
collect_turns (RtSession *s)
{
  const RtTrace *t = s->trace;
  GArray *rows = g_array_new (FALSE, TRUE, sizeof (TurnRow));
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint k = 0; k < st->n_files; k++)
        {
          const RtFile *f = rt_trace_file (t, st->first_file + k);
          for (guint r = 0; r < f->n_requests; r++)
            {
              const RtRequest *q = rt_trace_request (t, f->first_request + r);
              for (guint j = 0; j < q->n_turns; j++)
                {
                  const RtTurnFigures *tf = &g_array_index (t->turns, RtTurnFigures, q->first_turn + j);
                  if (tf->turn < 0)
                    continue;
                  if ((guint) tf->turn >= rows->len)
                    g_array_set_size (rows, tf->turn + 1);
                  TurnRow *row = &g_array_index (rows, TurnRow, tf->turn);
                  row->count++;
                  add_part (row, PRE, tf->pre_process_s);
                  add_part (row, ENGINE, tf->engine_call_s);
                  add_part (row, POST, tf->post_process_s);
                  add_part (row, TOOL, tf->tool_parsing_s);
                  add_part (row, TOTAL, tf->total_s);
                }
            }
        }
    }
  return rows;
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (GArray) rows = collect_turns (s);
  const char *cols[] = { "turn", "count", "pre_process", "engine_call", "post_process",
                         "tool_parsing", "total", NULL };
  g_autoptr (GString) tsv = rt_tsv_new (cols);
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "turns");
  rt_jw_begin_array (w);
  guint shown = 0;
  for (guint i = 0; i < rows->len; i++)
    {
      const TurnRow *row = &g_array_index (rows, TurnRow, i);
      if (row->count == 0)
        continue;
      shown++;
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "turn", i);
      rt_jw_member_int (w, "count", row->count);
      rt_tsv_int (tsv, i, FALSE);
      rt_tsv_int (tsv, row->count, FALSE);
      for (int p = 0; p < N_PARTS; p++)
        {
          rt_jw_member_number (w, part_names[p], part_mean (row, p));
          rt_tsv_num (tsv, part_mean (row, p), p == N_PARTS - 1);
        }
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);

  if (shown == 0)
    {
      return rt_session_no_data (s, "no turn timings: neither turn_timings in async_rollout_request_complete "
                                 "nor turn_end lines (the older logger writes neither)");
    }
  rt_session_print (s, "turn  count   engine_call   total (mean s)\n");
  for (guint i = 0; i < rows->len; i++)
    {
      const TurnRow *row = &g_array_index (rows, TurnRow, i);
      if (row->count)
        rt_session_print (s, "%4u %6u %13.3f %8.3f\n", i, row->count, part_mean (row, ENGINE),
                          part_mean (row, TOTAL));
    }

  if (!rt_session_write (s, "turns.tsv", tsv, error))
    return 1;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autofree char *steps = rt_session_describe_step_indices (s, selected);
  g_autofree char *what = g_strdup_printf ("time per turn index, %s", steps);
  g_autofree char *every = g_strdup_printf ("%u", MAX (1u, shown / 20));
  const char *vars[] = { "EVERY", every, NULL };
  return rt_session_plot (s, "turns", "turns", what, vars, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const RtCommand cmd = {
    .name = "rt-turns",
    .parameters = "EXP",
    .summary = "Per turn index (0-based): mean pre-process, engine call, post-process, tool\n"
               "parsing and total time, and the number of turn records. Source: the turn_timings\n"
               "of each async_rollout_request_complete; for requests without them, their\n"
               "turn_end lines.",
    .description = "JSON (--json): {\"turns\": [{\"turn\", \"count\", \"pre_process\", \"engine_call\",\n"
                   "\"post_process\", \"tool_parsing\", \"total\"}]}. Exit status 1 when the trace\n"
                   "has no turn timings (older logger).\n\nExample: rt-turns logs/exp --steps 1-50",
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
