/* SPDX-License-Identifier: Apache-2.0 */
/* rt-tail: why the tail: for each step, the requests that ended after 90 % had, and why each was
 * late as an exact sum (launch, extra turns, slower turns, tools, other), beside the bubble. */
#include "rolltrace/analyses/tail.h"
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-plots.h"

#include <math.h>


static const char *const part_keys[RT_N_PARTS] = {
  "lateness", "launch", "duration", "engine", "tool", "other", "turns", "engine_per_turn", "extra_turns",
  "slower_turns",
};

/* {key: value} of parts [from, to], skipping `skip_a` and `skip_b` */
static void
write_parts (RtJsonWriter *w, const char *key, const RtTailParts *p, int from, int to, int skip_a, int skip_b)
{
  rt_jw_key (w, key);
  rt_jw_begin_object (w);
  for (int k = from; k <= to; k++)
    if (k != skip_a && k != skip_b)
      rt_jw_member_number (w, part_keys[k], p->v[k]);
  rt_jw_end_object (w);
}

static void
write_dominant (RtJsonWriter *w, RtTailCause c)
{
  rt_jw_key (w, "dominant");
  rt_jw_string (w, c == RT_TAIL_NONE ? NULL : rt_tail_cause_name (c));
}

static void
write_counts (RtJsonWriter *w, const char *key, const guint *counts)
{
  rt_jw_key (w, key);
  rt_jw_begin_object (w);
  for (int c = 0; c <= RT_TAIL_NONE; c++)
    rt_jw_member_int (w, rt_tail_cause_name (c), counts[c]);
  rt_jw_end_object (w);
}

static void
write_json (RtSession *s, const RtTail *tail)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  for (guint i = 0; i < tail->steps->len; i++)
    {
      const RtTailStep *ts = &g_array_index (tail->steps, RtTailStep, i);
      rt_jw_begin_object (w);
      rt_session_json_step (s, ts->step);
      rt_jw_member_int (w, "requests", ts->requests);
      rt_jw_member_int (w, "workers", ts->workers);
      rt_jw_member_int (w, "attributed", ts->attributed);
      rt_jw_member_int (w, "unattributed", ts->unattributed);
      rt_jw_member_number (w, "t0_s", ts->t0_s);
      rt_jw_member_number (w, "t90_s", ts->t90_s);
      rt_jw_member_number (w, "t100_s", ts->t100_s);
      rt_jw_member_number (w, "window_s", ts->window_s);
      rt_jw_member_number (w, "tail_s", ts->tail_s);
      rt_jw_member_number (w, "tail_window_share", ts->tail_window_share);
      rt_jw_member_number (w, "bubble", ts->bubble);
      rt_jw_key (w, "bulk");
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "requests", ts->bulk_requests);
      write_parts (w, "mean", &ts->bulk_mean, RT_PART_LATENESS, RT_PART_ENGINE_PER_TURN, -1, -1);
      rt_jw_end_object (w);
      rt_jw_key (w, "tail");
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "requests", ts->tail_requests);
      write_parts (w, "sum", &ts->tail_sum, RT_PART_LATENESS, RT_PART_OTHER, -1, -1);
      write_parts (w, "excess", &ts->tail_excess, RT_PART_LATENESS, RT_PART_SLOWER_TURNS, RT_PART_TURNS,
                   RT_PART_ENGINE_PER_TURN);
      write_dominant (w, ts->tail_dominant);
      rt_jw_end_object (w);
      rt_jw_key (w, "last");
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "worker", ts->last_worker);
      rt_jw_member_string (w, "request_id", ts->last_request_id);
      rt_jw_member_number (w, "end_s", ts->last_end_s);
      write_parts (w, "components", &ts->last, RT_PART_LATENESS, RT_PART_ENGINE_PER_TURN, -1, -1);
      write_parts (w, "excess", &ts->last_excess, RT_PART_LATENESS, RT_PART_SLOWER_TURNS, RT_PART_TURNS,
                   RT_PART_ENGINE_PER_TURN);
      write_dominant (w, ts->last_dominant);
      rt_jw_end_object (w);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "summary");
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "steps", tail->steps->len);
  rt_jw_member_int (w, "attributed_steps", tail->attributed_steps);
  write_counts (w, "tail_dominant", tail->tail_dominant);
  write_counts (w, "last_dominant", tail->last_dominant);
  rt_jw_end_object (w);
  rt_jw_end_object (w);
}

static void
print_summary (RtSession *s, const RtTail *tail)
{
  rt_session_print (s, "%u step%s with requests, %u attributed; seconds from the step's start\n", tail->steps->len,
                    tail->steps->len == 1 ? "" : "s", tail->attributed_steps);
  rt_session_print (s, "  %6s %8s %8s %8s %7s %5s %9s %9s %9s %9s %9s  %-12s %s\n", "step", "requests", "t90_s",
                    "t100_s", "bubble", "tail", "launch", "extra_t", "slower_t", "tool", "other", "dominant",
                    "last (worker, why)");
  for (guint i = 0; i < tail->steps->len; i++)
    {
      const RtTailStep *ts = &g_array_index (tail->steps, RtTailStep, i);
      const double *x = ts->tail_excess.v;
      char c[5][32], bubble[32];
      const RtTailPart shown[5] = { RT_PART_LAUNCH, RT_PART_EXTRA_TURNS, RT_PART_SLOWER_TURNS, RT_PART_TOOL, RT_PART_OTHER };
      for (int k = 0; k < 5; k++)
        rt_summary_cell (c[k], "%.2f", x[shown[k]]);
      rt_session_print (s, "  %6d %8u %8.2f %8.2f %7s %5u %9s %9s %9s %9s %9s  %-12s %d, %s\n", ts->step, ts->requests,
                        ts->t90_s, ts->t100_s, rt_summary_cell (bubble, "%.1f%%", 100 * ts->bubble), ts->tail_requests, c[0], c[1],
                        c[2], c[3], c[4],
                        rt_tail_cause_name (ts->tail_dominant), ts->last_worker,
                        rt_tail_cause_name (ts->last_dominant));
    }
  rt_session_print (s, "  the tail's excess over the bulk's mean, summed over its requests; dominant: steps per cause:");
  for (int c = 0; c <= RT_TAIL_NONE; c++)
    if (tail->tail_dominant[c] > 0)
      rt_session_print (s, " %s %u", rt_tail_cause_name (c), tail->tail_dominant[c]);
  rt_session_print (s, "\n");
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (GArray) one = NULL;
  if (s->step != NULL)
    {
      guint si;
      if (!rt_session_resolve_step (s, &si, error))
        return 0;   /* the error decides the exit status */
      one = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_val (one, si);
    }
  g_autoptr (GArray) selected = one ? NULL : rt_session_selected_steps (s);
  g_autoptr (RtTail) tail = rt_tail_analyse (s->trace, NULL, one ? one : selected);
  write_json (s, tail);
  if (tail->steps->len == 0)
    return rt_session_no_data (s, "no selected step has a completed request with a duration and a time");
  print_summary (s, tail);
  return rt_plot_tail (s, tail, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_tail_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-tail",
    .parameters = "EXP",
    .summary = "Why the tail: for each step, the requests that ended after 90 % of them had (the\n"
               "tail), and why each was late as an exact sum against the requests that ended first\n"
               "(the bulk): it started late (launch), ran more turns (extra turns), its turns were\n"
               "slower (slower turns), its tools were slow (tool) or time went elsewhere (other);\n"
               "beside the share of rank-time left idle before the last request ended (bubble).",
    .description =
      "Times are seconds from the step's start (as rt-timeline). A request is an\n"
      "async_rollout_request_complete line with a finite duration_sec and a readable timestamp:\n"
      "end = timestamp, start = end - duration. Its own lines are those of its worker file with\n"
      "its request_id, when that id is non-empty and on one complete line of the file only;\n"
      "engine = the finite engine_call_duration of its turn records (turn_timings, else its\n"
      "turn_end lines), tool = its tool_execution lines, other = duration - engine - tool. It is\n"
      "attributed with own lines, a record and turns >= 1 (the older logger: never; then launch\n"
      "and duration only). Tail: end > t90; bulk: the rest. n = turns, e = engine / n; the\n"
      "bulk's n_b = mean turns, e_b = mean engine / n_b; excess X = X - the bulk's mean X;\n"
      "extra_turns = (n - n_b)(e + e_b)/2, slower_turns = (e - e_b)(n + n_b)/2, so that\n"
      "lateness = launch + duration, duration = engine + tool + other, engine = extra_turns +\n"
      "slower_turns, excesses too. Plot: tail (per step, the tail's excess by cause stacked,\n"
      "beside the bubble).\n\n"
      "JSON (--json): {\"steps\": [{\"step\", \"requests\", \"workers\" (with a request),\n"
      "\"attributed\", \"unattributed\", \"t0_s\" (min start), \"t90_s\" (e_k of the ends ascending,\n"
      "k = ceil(9R/10)), \"t100_s\", \"window_s\" (t100 - t0), \"tail_s\" (t100 - t90),\n"
      "\"tail_window_share\" (tail_s / window_s), \"bubble\" (sum over the workers of (t100 - their\n"
      "last end) / (workers x window_s); both null unless window_s > 0), \"bulk\": {\"requests\",\n"
      "\"mean\": {\"lateness\", \"launch\", \"duration\", \"engine\", \"tool\", \"other\", \"turns\",\n"
      "\"engine_per_turn\"}}, \"tail\": {\"requests\", \"sum\": {\"lateness\", \"launch\", \"duration\",\n"
      "\"engine\", \"tool\", \"other\"}, \"excess\": {those, \"extra_turns\", \"slower_turns\"},\n"
      "\"dominant\"}, \"last\" (the latest end; ties: the lower worker, the earlier line):\n"
      "{\"worker\", \"request_id\", \"end_s\", \"components\": {the sum's keys, \"turns\",\n"
      "\"engine_per_turn\"}, \"excess\", \"dominant\"}}], \"summary\": {\"steps\", \"attributed_steps\",\n"
      "\"tail_dominant\", \"last_dominant\" (steps per cause: launch, extra_turns, slower_turns,\n"
      "tool, other, duration, none)}}. Not attributed: engine, tool, other, turns,\n"
      "engine_per_turn and the split null (in the bulk, unless all its requests are; in the\n"
      "tail likewise). dominant: the largest excess > 0 of launch, extra_turns, slower_turns,\n"
      "tool, other (not attributed: launch, duration), ties to the first; else null. Steps\n"
      "without a request are left out; exit 1 when none is left.\n\n"
      "Examples:\n  rt-tail logs/exp\n  rt-tail logs/exp --step slowest --json",
    .entries = entries,
    .analyses = analyses,
    .step_help = "Only this step among those --steps selects (\"slowest\": the longest rollout); default: every step",
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
