/* turn-sums.c: what the turns of a trace add up to, the same whether the loader adds them
 * while a cache is written or an analysis while it reads them (RtTurnSums, engine times). */
#include "rolltrace/rt-trace.h"

#include <math.h>

void
rt_turn_sums_add (GArray *sums, const RtTurnFigures *tf, gsize n)
{
  for (const RtTurnFigures *end = tf + n; tf < end; tf++)
    {
      if (tf->turn < 0)
        continue;
      if ((guint) tf->turn >= sums->len)
        g_array_set_size (sums, tf->turn + 1);
      RtTurnSums *s = &g_array_index (sums, RtTurnSums, tf->turn);
      const double parts[RT_N_TURN_PARTS] = {
        [RT_TURN_PRE_PROCESS] = tf->pre_process_s, [RT_TURN_ENGINE_CALL] = tf->engine_call_s,
        [RT_TURN_POST_PROCESS] = tf->post_process_s, [RT_TURN_TOOL_PARSING] = tf->tool_parsing_s,
        [RT_TURN_TOTAL] = tf->total_s,
      };
      s->count++;
      for (int p = 0; p < RT_N_TURN_PARTS; p++)
        if (!isnan (parts[p]))
          {
            s->sum[p] += parts[p];
            s->n[p]++;
          }
    }
}

double
rt_turns_engine_s (const RtTurnFigures *tf, gsize n)
{
  double sum = 0;
  for (const RtTurnFigures *end = tf + n; tf < end; tf++)
    if (isfinite (tf->engine_call_s))
      sum += tf->engine_call_s;
  return sum;
}
