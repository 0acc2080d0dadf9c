/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth's lines of the newer logger: canonical event names, a request id on every request line,
 * per-turn detail, a request summary with its turn timings, and the step's length statistics. */
#include "synth.h"

#include <math.h>
#include <stdlib.h>

/* Every turn line carries the request id and the turn; the two engine lines carry the id alone. */
static const TurnLine turn_lines[] = {
  { "turn_start", TURN_LINE_ALWAYS, TURN_FIELD (start), TURN_INSTANT,
    { TV_REQUEST_ID, TV_TURN, TV_SEQUENCE_LENGTH } },
  { "turn_pre_process", TURN_LINE_ALWAYS, TURN_SPAN (start, pre_end),
    { TV_REQUEST_ID, TV_TURN, TV_PROMPT_LENGTH } },
  { "engine_generate_setup", TURN_LINE_ALWAYS, TURN_SPAN (setup_start, setup_end),
    { TV_REQUEST_ID } },
  { "engine_async_generate_actual", TURN_LINE_ALWAYS, TURN_SPAN (actual_start, actual_end),
    { TV_REQUEST_ID } },
  { "turn_engine_call", TURN_LINE_ALWAYS, TURN_SPAN (engine_start, engine_end),
    { TV_REQUEST_ID, TV_TURN, TV_GENERATED_TOKENS, TV_TEXT_LENGTH } },
  { "turn_tool_parsing", TURN_LINE_IF_TOOL_CALLS, TURN_SPAN (parse_start, parse_end),
    { TV_REQUEST_ID, TV_TURN, TV_RAW_TOOL_CALLS, TV_PARSED_TOOL_CALLS } },
  { "turn_post_process", TURN_LINE_ALWAYS, TURN_SPAN (post_start, post_end),
    { TV_REQUEST_ID, TV_TURN, TV_HAS_TOOL_CALLS, TV_PARSED_TOOL_CALLS, TV_FINISH,
      TV_PARSING_DURATION } },
  { "turn_end", TURN_LINE_ALWAYS, TURN_SPAN (start, end),
    { TV_REQUEST_ID, TV_TURN, TV_PRE_DURATION, TV_ENGINE_DURATION, TV_POST_DURATION,
      TV_PARSING_DURATION, TV_HAS_TOOL_CALLS, TV_FINISH, TV_ENGINE_PCT, TV_POST_PCT } },
  /* The tools the turn asked for run after its turn_end and before the next turn_start; the
   * logger has counted the turn as done by then, so they carry the next turn's number. */
  { "tool_execution", TURN_LINE_IF_TOOLS_RUN, TURN_SPAN (exec_start, exec_end),
    { TV_REQUEST_ID, TV_NEXT_TURN } },
  { "tool_response_processing", TURN_LINE_IF_TOOLS_RUN, TURN_SPAN (resp_start, resp_end),
    { TV_REQUEST_ID, TV_NEXT_TURN } },
  { "tool_calling_state", TURN_LINE_IF_TOOLS_RUN, TURN_SPAN (exec_start, tool_state_end),
    { TV_REQUEST_ID, TV_NEXT_TURN } },
};

/* What the summary's turn_timings tell of each turn, after its "turn". */
static const TurnValue turn_timing_values[] = {
  TV_TOTAL_DURATION, TV_PRE_DURATION, TV_ENGINE_DURATION, TV_POST_DURATION, TV_PARSING_DURATION,
  TV_HAS_TOOL_CALLS, TV_FINISH, TV_END,
};

/* The request's summary: its own numbers agree with the turn_end lines it follows. */
static void
emit_request_complete (LineSink *k, const RequestPlan *p, gint64 base)
{
  GString *s = k->s;
  gint64 turn_sum = 0, engine_sum = 0, post_sum = 0;
  for (int t = 0; t < p->n_turns; t++)
    {
      const TurnPlan *tp = &p->turns[t];
      turn_sum += tp->end - tp->start;
      engine_sum += tp->engine_end - tp->engine_start;
      post_sum += tp->post_end - tp->post_start;
    }
  gint64 duration = p->end;

  request_complete_open (k, p, base);
  put_key (s, "user_turns");
  append_int (s, p->user_turns);
  put_key (s, "turns_with_tools");
  append_int (s, p->turns_with_tools);
  put_key (s, "response_length");
  append_int (s, p->response_length);
  put_key (s, "actual_response_tokens");
  append_int (s, p->actual_tokens);
  put_key (s, "total_sequence_length");
  append_int (s, p->prompt_length + p->response_length);
  put_key (s, "avg_turn_duration");
  append_float (s, (double) turn_sum / 1e6 / p->n_turns);
  put_key (s, "avg_engine_call_duration");
  append_float (s, (double) engine_sum / 1e6 / p->n_turns);
  put_key (s, "avg_post_process_duration");
  append_float (s, (double) post_sum / 1e6 / p->n_turns);
  put_key (s, "total_engine_time");
  append_seconds (s, engine_sum);
  put_key (s, "total_post_process_time");
  append_seconds (s, post_sum);
  put_key (s, "engine_time_pct");
  append_float (s, percent (engine_sum, duration));
  put_key (s, "post_process_time_pct");
  append_float (s, percent (post_sum, duration));
  append_lit (s, ", \"turn_timings\": [");
  for (int t = 0; t < p->n_turns; t++)
    {
      if (t > 0)
        append_lit (s, ", ");
      append_lit (s, "{\"turn\": ");
      append_int (s, t);
      append_turn_values (s, p, t, turn_timing_values);
      g_string_append_c (s, '}');
    }
  g_string_append_c (s, ']');
  line_close (k);
}

static void
emit_request (LineSink *k, const RequestPlan *p, gint64 base)
{
  line_open (k, base, "request_start");
  line_request_id (k, p);
  put_key (k->s, "initial_prompt_length");
  append_int (k->s, p->prompt_length);
  line_close (k);

  emit_request_section (k, p, base, p->pending_start, p->pending_end, "pending_state_handling");
  emit_request_section (k, p, base, p->tool_create_start, p->tool_create_end,
                        "tool_creation_pending_state");
  if (p->has_interaction)
    emit_request_section (k, p, base, p->interaction_start, p->interaction_end,
                          "interaction_start_pending_state");
  for (int t = 0; t < p->n_turns; t++)
    emit_turn_lines (k, p, base, t, turn_lines, G_N_ELEMENTS (turn_lines));
  emit_request_section (k, p, base, p->loop_start, p->loop_end, "main_loop");
  emit_request_section (k, p, base, p->reward_start, p->reward_end, "reward_calculation");
  emit_request_section (k, p, base, p->final_start, p->final_end, "finalization");
  emit_request_complete (k, p, base);
}

static int
compare_int (gconstpointer a, gconstpointer b)
{
  int x = *(const int *) a, y = *(const int *) b;
  return (x > y) - (x < y);
}

/* numpy.percentile's default (linear interpolation between closest ranks). */
static double
percentile_linear (const int *sorted, int n, double q)
{
  double rank = q / 100.0 * (n - 1);
  int lo = (int) floor (rank);
  int hi = MIN (lo + 1, n - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

static void
append_int_list (GString *s, const int *v, int n)
{
  g_string_append_c (s, '[');
  for (int i = 0; i < n; i++)
    {
      if (i > 0)
        append_lit (s, ", ");
      append_int (s, v[i]);
    }
  g_string_append_c (s, ']');
}

static void
emit_length_stats (LineSink *k, gint64 when, const int *lengths, const int *actual, int n,
                   StatsDamage damage)
{
  GString *s = k->s;
  g_autofree int *sorted = g_memdup2 (lengths, sizeof (int) * n);
  qsort (sorted, n, sizeof (int), compare_int);
  gint64 sum = 0;
  int over_500 = 0, over_1000 = 0;
  for (int i = 0; i < n; i++)
    {
      sum += lengths[i];
      over_500 += lengths[i] > 500;
      over_1000 += lengths[i] > 1000;
    }
  double mean = (double) sum / n;
  double median = percentile_linear (sorted, n, 50);
  double p95 = percentile_linear (sorted, n, 95);
  if (damage == STATS_NAN_P95)
    p95 = NAN;
  if (damage == STATS_INF_MEAN_MIN)
    mean = INFINITY;

  line_open (k, when, "step_response_length_stats");
  line_key (k, "response_lengths");
  append_int_list (s, lengths, n);
  put_key (s, "actual_response_tokens");
  append_int_list (s, actual, n);
  put_key (s, "response_length_mean");
  append_float (s, mean);
  put_key (s, "response_length_median");
  append_float (s, median);
  put_key (s, "response_length_p80");
  append_float (s, percentile_linear (sorted, n, 80));
  put_key (s, "response_length_p95");
  append_float (s, p95);
  put_key (s, "response_length_max");
  append_int (s, sorted[n - 1]);
  put_key (s, "response_length_min");
  if (damage == STATS_INF_MEAN_MIN)
    append_lit (s, "-Infinity");
  else
    append_int (s, sorted[0]);
  put_key (s, "requests_over_500");
  append_int (s, over_500);
  put_key (s, "requests_over_1000");
  append_int (s, over_1000);
  put_key (s, "batch_size");
  append_int (s, n);
  line_close (k);
}

const Generation generation_v2 = {
  .name = "v2",
  .section_names = { "preprocessing_duration", "async_generate_duration", "sorting_duration",
                     "barrier_wait_duration", "broadcast_duration", "data_extraction_duration",
                     "padding_duration", "concatenation_duration", "batch_construction_duration",
                     "cache_flush_duration", "final_construction_duration", "total_step_duration" },
  .emit_request = emit_request,
  .emit_length_stats = emit_length_stats,
  .lines_per_request = 32,
  .bytes_per_request = 30 * 340,
};
