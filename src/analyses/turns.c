/* SPDX-License-Identifier: Apache-2.0 */
/* turns.c: how long each turn of a conversation takes, by turn index.
 * The turn that explodes (usually a late engine call on a long context) shows up here. */
#include "rolltrace/analyses/turns.h"

#include <math.h>

RtTurns *
rt_turns_analyse (const RtTrace *t, const RtStepSet *steps)
{
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  g_autoptr (GArray) sums = g_array_new (FALSE, TRUE, sizeof (RtTurnSums));   /* by turn index */
  /* every step: the cache may hold the sums of the first files ready, the same additions in
   * the same order, from which the others' are added */
  guint n_ready = 0, files_ready = 0;
  const RtTurnSums *ready = selected->len == t->steps->len ? rt_trace_turn_sums_ready (t, &n_ready, &files_ready)
                                                           : NULL;
  if (ready != NULL)
    g_array_append_vals (sums, ready, n_ready);
  else
    files_ready = 0;
  /* a file's turns are its requests', one request after another: read by file, they need
   * no request table (without RT_READS_REQUESTS) */
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint k = 0; k < st->n_files; k++)
        {
          const RtFile *f = rt_trace_file (t, st->first_file + k);
          /* a file's turns lie in one table (the cache's or the load's) */
          if (st->first_file + k >= files_ready && f->n_turns > 0)
            rt_turn_sums_add (sums, rt_trace_turn (t, f->first_turn), f->n_turns);
        }
    }

  RtTurns *turns = g_new0 (RtTurns, 1);
  turns->turns = g_array_new (FALSE, FALSE, sizeof (RtTurnsRow));
  for (guint i = 0; i < sums->len; i++)
    {
      const RtTurnSums *s = &g_array_index (sums, RtTurnSums, i);
      if (s->count == 0)
        continue;   /* an index no record has (a gap below a higher one) */
      RtTurnsRow row = { .turn = (gint32) i, .count = s->count };
      for (int p = 0; p < RT_N_TURN_PARTS; p++)
        {
          guint n = s->count - s->missing[p];
          row.mean_s[p] = n ? s->sum[p] / n : NAN;
        }
      g_array_append_val (turns->turns, row);
    }
  return turns;
}

void
rt_turns_free (RtTurns *turns)
{
  if (turns == NULL)
    return;
  g_array_unref (turns->turns);
  g_free (turns);
}

const RtTableSpec rt_turns_spec = {
  "turns", "one per turn index (from 0) with a turn record",
  (const RtColumn[]) {
    { RT_COL ("turn", RT_COLUMN_INT, NULL, "the turn index, from 0") },
    { RT_COL ("count", RT_COLUMN_INT, NULL, "turn records of that index") },
    /* in RtTurnPart order */
    { RT_COL ("pre_process", RT_COLUMN_NUMBER, "s", "mean pre-processing time") },
    { RT_COL ("engine_call", RT_COLUMN_NUMBER, "s", "mean engine call time") },
    { RT_COL ("post_process", RT_COLUMN_NUMBER, "s", "mean post-processing time") },
    { RT_COL ("tool_parsing", RT_COLUMN_NUMBER, "s", "mean tool parsing time") },
    { RT_COL ("total", RT_COLUMN_NUMBER, "s", "mean time of the whole turn") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_turns_table (const RtTurns *turns)
{
  RtTable *table = rt_table_new (&rt_turns_spec);
  for (guint i = 0; i < turns->turns->len; i++)
    {
      const RtTurnsRow *row = &g_array_index (turns->turns, RtTurnsRow, i);
      rt_table_int (table, row->turn);
      rt_table_int (table, row->count);
      for (int p = 0; p < RT_N_TURN_PARTS; p++)
        rt_table_number (table, row->mean_s[p]);
    }
  return table;
}

static const RtTableSpec *const turns_tables[] = { &rt_turns_spec, NULL };

const RtAnalysisSpec rt_turns_analysis = {
  .name = "turns",
  .reads = RT_READS_TURN_SUMS,
  .steps = RT_STEPS_SELECTED,
  .tables = turns_tables,
  .plots = "turns",
};
