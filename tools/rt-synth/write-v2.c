/* rt-synth's lines of the newer logger: canonical event names, a request id on every request line,
 * per-turn detail, a request summary with its turn timings, and the step's length statistics. */
#include "synth.h"

#include <math.h>
#include <stdlib.h>

static void
emit_turn_v2 (LineSink *k, const RequestPlan *p, gint64 base, int turn)
{
  const TurnPlan *tp = &p->turns[turn];
  GString *s = k->s;
  gint64 pre = tp->pre_end - tp->start;
  gint64 engine = tp->engine_end - tp->engine_start;
  gint64 post = tp->post_end - tp->post_start;
  gint64 parsing = tp->has_tool_calls ? tp->parse_end - tp->parse_start : 0;
  gint64 total = tp->end - tp->start;
  const char *finish = turn_finish_names[tp->finish];

  line_open (k, base + tp->start, "turn_start");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "current_sequence_length");
  append_int (s, tp->sequence_length);
  line_close (k, TRUE);

  line_open_timed (k, base + tp->start, base + tp->pre_end, "turn_pre_process");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "generation_prompt_length");
  append_int (s, tp->generation_prompt_length);
  line_close (k, TRUE);

  emit_request_section (k, p, base, tp->setup_start, tp->setup_end, "engine_generate_setup");
  emit_request_section (k, p, base, tp->actual_start, tp->actual_end, "engine_async_generate_actual");

  line_open_timed (k, base + tp->engine_start, base + tp->engine_end, "turn_engine_call");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "generated_tokens");
  append_int (s, tp->generated_tokens);
  put_key (s, "output_text_length");
  append_int (s, tp->text_length);
  line_close (k, TRUE);

  if (tp->has_tool_calls)
    {
      line_open_timed (k, base + tp->parse_start, base + tp->parse_end, "turn_tool_parsing");
      extra_open_request (k, p->id);
      put_key (s, "turn");
      append_int (s, turn);
      put_key (s, "raw_tool_calls");
      append_int (s, tp->raw_tool_calls);
      put_key (s, "parsed_tool_calls");
      append_int (s, tp->parsed_tool_calls);
      line_close (k, TRUE);
    }

  line_open_timed (k, base + tp->post_start, base + tp->post_end, "turn_post_process");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "has_tool_calls");
  append_bool (s, tp->has_tool_calls);
  put_key (s, "parsed_tool_calls");
  append_int (s, tp->parsed_tool_calls);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, finish);
  g_string_append_c (s, '"');
  put_key (s, "tool_parsing_duration");
  append_seconds (s, parsing);
  line_close (k, TRUE);

  line_open_timed (k, base + tp->start, base + tp->end, "turn_end");
  extra_open_request (k, p->id);
  put_key (s, "turn");
  append_int (s, turn);
  put_key (s, "pre_process_duration");
  append_seconds (s, pre);
  put_key (s, "engine_call_duration");
  append_seconds (s, engine);
  put_key (s, "post_process_duration");
  append_seconds (s, post);
  put_key (s, "tool_parsing_duration");
  append_seconds (s, parsing);
  put_key (s, "has_tool_calls");
  append_bool (s, tp->has_tool_calls);
  put_key (s, "finish_reason");
  g_string_append_c (s, '"');
  g_string_append (s, finish);
  g_string_append_c (s, '"');
  put_key (s, "engine_call_pct");
  append_float (s, percent (engine, total));
  put_key (s, "post_process_pct");
  append_float (s, percent (post, total));
  line_close (k, TRUE);

  if (tp->executes_tools)
    {
      emit_turn_section (k, p, base, tp->exec_start, tp->exec_end, "tool_execution", turn);
      emit_turn_section (k, p, base, tp->resp_start, tp->resp_end, "tool_response_processing", turn);
      emit_turn_section (k, p, base, tp->exec_start, tp->tool_state_end, "tool_calling_state", turn);
    }
}

/* The request's summary: its own numbers agree with the turn_end lines it follows. */
static void
emit_request_complete_v2 (LineSink *k, const RequestPlan *p, gint64 base)
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
      const TurnPlan *tp = &p->turns[t];
      if (t > 0)
        append_lit (s, ", ");
      append_lit (s, "{\"turn\": ");
      append_int (s, t);
      put_key (s, "total_duration");
      append_seconds (s, tp->end - tp->start);
      put_key (s, "pre_process_duration");
      append_seconds (s, tp->pre_end - tp->start);
      put_key (s, "engine_call_duration");
      append_seconds (s, tp->engine_end - tp->engine_start);
      put_key (s, "post_process_duration");
      append_seconds (s, tp->post_end - tp->post_start);
      put_key (s, "tool_parsing_duration");
      append_seconds (s, tp->has_tool_calls ? tp->parse_end - tp->parse_start : 0);
      put_key (s, "has_tool_calls");
      append_bool (s, tp->has_tool_calls);
      put_key (s, "finish_reason");
      g_string_append_c (s, '"');
      g_string_append (s, turn_finish_names[tp->finish]);
      append_lit (s, "\"}");
    }
  g_string_append_c (s, ']');
  line_close (k, TRUE);
}

void
emit_request_v2 (LineSink *k, const RequestPlan *p, gint64 base)
{
  line_open (k, base, "request_start");
  extra_open_request (k, p->id);
  put_key (k->s, "initial_prompt_length");
  append_int (k->s, p->prompt_length);
  line_close (k, TRUE);

  emit_request_section (k, p, base, p->pending_start, p->pending_end, "pending_state_handling");
  emit_request_section (k, p, base, p->tool_create_start, p->tool_create_end,
                        "tool_creation_pending_state");
  if (p->has_interaction)
    emit_request_section (k, p, base, p->interaction_start, p->interaction_end,
                          "interaction_start_pending_state");
  for (int t = 0; t < p->n_turns; t++)
    emit_turn_v2 (k, p, base, t);
  emit_request_section (k, p, base, p->loop_start, p->loop_end, "main_loop");
  emit_request_section (k, p, base, p->reward_start, p->reward_end, "reward_calculation");
  emit_request_section (k, p, base, p->final_start, p->final_end, "finalization");
  emit_request_complete_v2 (k, p, base);
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

void
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
  append_lit (s, ", \"extra\": {\"response_lengths\": ");
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
  line_close (k, TRUE);
}
