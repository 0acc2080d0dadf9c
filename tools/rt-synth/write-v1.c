/* rt-synth's lines of the older logger: engine_call, tool_parsing and running_state per turn,
 * no request ids on them, and a short request summary. */
#include "synth.h"

/* The older logger: turn lines without request ids, engine_call and tool_parsing counting turns
 * from 1 while running_state counts from 0 (as the old samples show), and a short summary. */
void
emit_request_v1 (LineSink *k, const RequestPlan *p, gint64 base)
{
  GString *s = k->s;
  for (int t = 0; t < p->n_turns; t++)
    {
      const TurnPlan *tp = &p->turns[t];
      line_open_timed (k, base + tp->engine_start, base + tp->engine_end, "engine_call");
      append_lit (s, ", \"extra\": {\"turn\": ");
      append_int (s, t + 1);
      line_close (k, TRUE);
      if (tp->has_tool_calls)
        {
          line_open_timed (k, base + tp->parse_start, base + tp->parse_end, "tool_parsing");
          append_lit (s, ", \"extra\": {\"turn\": ");
          append_int (s, t + 1);
          line_close (k, TRUE);
        }
      line_open_timed (k, base + tp->start, base + tp->end, "running_state");
      append_lit (s, ", \"extra\": {\"turn\": ");
      append_int (s, t);
      line_close (k, TRUE);
    }
  line_open_timed (k, base, base + p->end, "async_rollout_request_complete");
  extra_open_request (k, p->id);
  put_key (s, "batch_data_id");
  append_int (s, p->batch_data_id);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, request_finish_names[p->finish]);
  g_string_append_c (s, '"');
  put_key (s, "turns");
  append_int (s, p->n_turns);
  line_close (k, TRUE);
}
