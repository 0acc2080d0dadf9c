/* SPDX-License-Identifier: Apache-2.0 */
/* turn-sums.c: what the turns of a trace add up to, the same whether the loader adds them
 * while a cache is written or an analysis while it reads them (RtTurnSums, engine times). */
#include "rolltrace/rt-trace.h"

#include <math.h>

/* Adds one record's parts. Nearly every record has all five: one test of their sum (NaN when
 * any is) lets those add without a test per part; the others go part by part. */
static inline void
add_record (RtTurnSums *s, const RtTurnFigures *tf)
{
  s->count++;
  if (G_LIKELY (!isnan (tf->pre_process_s + tf->engine_call_s + tf->post_process_s + tf->tool_parsing_s
                        + tf->total_s)))
    {
      s->sum[RT_TURN_PRE_PROCESS] += tf->pre_process_s;
      s->sum[RT_TURN_ENGINE_CALL] += tf->engine_call_s;
      s->sum[RT_TURN_POST_PROCESS] += tf->post_process_s;
      s->sum[RT_TURN_TOOL_PARSING] += tf->tool_parsing_s;
      s->sum[RT_TURN_TOTAL] += tf->total_s;
      return;
    }
  const double v[RT_N_TURN_PARTS] = {
    [RT_TURN_PRE_PROCESS] = tf->pre_process_s, [RT_TURN_ENGINE_CALL] = tf->engine_call_s,
    [RT_TURN_POST_PROCESS] = tf->post_process_s, [RT_TURN_TOOL_PARSING] = tf->tool_parsing_s,
    [RT_TURN_TOTAL] = tf->total_s,
  };
  for (int p = 0; p < RT_N_TURN_PARTS; p++)
    {
      if (isnan (v[p]))
        s->missing[p]++;
      else
        s->sum[p] += v[p];
    }
}

void
rt_turn_sums_add (GArray *sums, const RtTurnFigures *tf, gsize n)
{
  /* (the array's fields in locals: the counts stored below could be its length, as far as
   * the compiler knows) */
  RtTurnSums *by_turn = (RtTurnSums *) (void *) sums->data;
  guint n_turns = sums->len;
  /* (by index: no turns may come as NULL, and NULL + 0 is no pointer) */
  for (gsize i = 0; i < n; i++)
    {
      const RtTurnFigures *t = &tf[i];
      /* one test for both a turn without an index (negative) and one beyond the sums */
      if (G_UNLIKELY ((guint) t->turn >= n_turns))
        {
          if (t->turn < 0)
            continue;
          g_array_set_size (sums, t->turn + 1);
          by_turn = (RtTurnSums *) (void *) sums->data;
          n_turns = sums->len;
        }
      add_record (&by_turn[t->turn], t);
    }
}

double
rt_turns_engine_s (const RtTurnFigures *tf, gsize n)
{
  double sum = 0;
  for (gsize i = 0; i < n; i++)
    if (isfinite (tf[i].engine_call_s))
      sum += tf[i].engine_call_s;
  return sum;
}
