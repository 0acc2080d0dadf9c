/* turn-sums.c: what the turns of a trace add up to, the same whether the loader adds them
 * while a cache is written or an analysis while it reads them (RtTurnSums, engine times). */
#include "rolltrace/rt-trace.h"

#include <math.h>

/* Adds v to part p of s when it is a number. */
static inline void
add_part (RtTurnSums *s, RtTurnPart p, double v)
{
  if (isnan (v))
    return;
  s->sum[p] += v;
  s->n[p]++;
}

void
rt_turn_sums_add (GArray *sums, const RtTurnFigures *tf, gsize n)
{
  /* (the array's fields in locals: the counts stored below could be its length, as far as
   * the compiler knows) */
  RtTurnSums *base = (RtTurnSums *) (void *) sums->data;
  guint len = sums->len;
  for (const RtTurnFigures *end = tf + n; tf < end; tf++)
    {
      if (tf->turn < 0)
        continue;
      if ((guint) tf->turn >= len)
        {
          g_array_set_size (sums, tf->turn + 1);
          base = (RtTurnSums *) (void *) sums->data;
          len = sums->len;
        }
      RtTurnSums *s = base + tf->turn;
      s->count++;
      add_part (s, RT_TURN_PRE_PROCESS, tf->pre_process_s);
      add_part (s, RT_TURN_ENGINE_CALL, tf->engine_call_s);
      add_part (s, RT_TURN_POST_PROCESS, tf->post_process_s);
      add_part (s, RT_TURN_TOOL_PARSING, tf->tool_parsing_s);
      add_part (s, RT_TURN_TOTAL, tf->total_s);
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
