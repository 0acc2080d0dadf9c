/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's lines of the older logger: engine_call, tool_parsing and running_state per turn,
 * the tool calls between turns, no request ids on them, and a short request summary. */
#include "synth.h"

/* engine_call and tool_parsing count turns from 1 while running_state counts from 0, as the old
 * samples show; the tool lines, between a turn and the next, carry no extra at all. */
static const TurnLine turn_lines[] = {
  { "engine_call", TURN_LINE_ALWAYS, TURN_SPAN (engine_start, engine_end),
    { TV_TURN_FROM_1 } },
  { "tool_parsing", TURN_LINE_IF_TOOL_CALLS, TURN_SPAN (parse_start, parse_end),
    { TV_TURN_FROM_1 } },
  { "running_state", TURN_LINE_ALWAYS, TURN_SPAN (start, end), { TV_TURN } },
  { "tool_execution", TURN_LINE_IF_TOOLS_RUN, TURN_SPAN (exec_start, exec_end), { TV_END } },
  { "tool_response_processing", TURN_LINE_IF_TOOLS_RUN, TURN_SPAN (resp_start, resp_end),
    { TV_END } },
  { "tool_calling_state", TURN_LINE_IF_TOOLS_RUN, TURN_SPAN (exec_start, tool_state_end),
    { TV_END } },
};

static void
emit_request (LineSink *k, const RequestPlan *p, gint64 base)
{
  for (int t = 0; t < p->n_turns; t++)
    emit_turn_lines (k, p, base, t, turn_lines, G_N_ELEMENTS (turn_lines));
  request_complete_open (k, p, base);
  line_close (k);
}

const Generation generation_v1 = {
  .name = "v1",
  .section_names = { "preprocessing", "async_generate", "sorting", "barrier", "broadcast",
                     "data_extraction", "padding", "concatenation", "batch_construction",
                     "cache_flush", "final_construction", "total" },
  .emit_request = emit_request,
  .emit_length_stats = NULL, /* the older logger wrote no statistics line */
  .lines_per_request = 10,
  .bytes_per_request = 8 * 170,
};
