/* SPDX-License-Identifier: Apache-2.0 */
/* rt-whatif: what a policy would have saved, replayed on each recorded step (keep the first F,
 * cap the turns, a timeout, defer the K slowest), and what it costs. */
#include "rolltrace/analyses/whatif.h"
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-plots.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *opt_keep, *opt_max_turns, *opt_timeout, *opt_defer;

static void
write_policy (RtSession *s, RtJsonWriter *w, const RtWhatif *wi)
{
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "policy", rt_whatif_policy_name (wi->setting.policy));
  rt_jw_member_number (w, "value", wi->setting.value);
  rt_jw_key (w, "steps");
  rt_jw_begin_array (w);
  for (guint i = 0; i < wi->steps->len; i++)
    {
      const RtWhatifStep *st = &g_array_index (wi->steps, RtWhatifStep, i);
      rt_jw_begin_object (w);
      rt_session_json_step (s, st->step);
      rt_jw_member_int (w, "requests", st->requests);
      rt_jw_member_number (w, "recorded_rollout_s", st->recorded_s);
      rt_jw_member_number (w, "predicted_rollout_s", st->predicted_s);
      rt_jw_member_number (w, "saved_s", st->saved_s);
      rt_jw_member_number (w, "saved_share", st->saved_share);
      rt_jw_key (w, "requests_cut");
      if (st->predicted)
        rt_jw_int (w, st->cut);
      else
        rt_jw_null (w);
      rt_jw_member_int (w, "requests_unknown", st->unknown);
      rt_ks_write_json (w, "ks_turns", st->ks_turns[0], st->ks_turns[1]);
      rt_ks_write_json (w, "ks_tokens", st->ks_tokens[0], st->ks_tokens[1]);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "total");
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "steps", wi->steps_predicted);
  rt_jw_member_int (w, "steps_unknown", wi->steps_unknown);
  rt_jw_member_int (w, "requests", wi->requests);
  rt_jw_member_int (w, "requests_cut", wi->cut);
  rt_jw_member_number (w, "recorded_rollout_s", wi->recorded_s);
  rt_jw_member_number (w, "predicted_rollout_s", wi->predicted_s);
  rt_jw_member_number (w, "saved_s", wi->saved_s);
  rt_jw_member_number (w, "saved_share", wi->saved_share);
  rt_ks_write_json (w, "ks_turns", wi->ks_turns[0], wi->ks_turns[1]);
  rt_ks_write_json (w, "ks_tokens", wi->ks_tokens[0], wi->ks_tokens[1]);
  rt_jw_end_object (w);
  rt_jw_end_object (w);
}

/* A whole number >= min (max_turns, defer) or a number > 0 (timeout); FALSE otherwise. */
static gboolean
parse_value (const char *text, gboolean whole, double min, double *out)
{
  char *end;
  errno = 0;
  double v = g_ascii_strtod (text, &end);
  if (*text == '\0' || *end != '\0' || errno != 0 || !isfinite (v))
    return FALSE;
  if (whole && (v != floor (v) || v < min || v > G_MAXINT32))
    return FALSE;
  if (!whole && !(v > 0))
    return FALSE;
  *out = v;
  return TRUE;
}

/* The policies asked for, in the order keep, max_turns, timeout, defer. */
static GArray *
settings_of_options (GError **error)
{
  g_autoptr (GArray) out = g_array_new (FALSE, TRUE, sizeof (RtWhatifSetting));
  RtWhatifSetting set = { 0 };
  if (opt_keep != NULL)
    {
      if (!rt_whatif_parse_fraction (opt_keep, &set.num, &set.den))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                       "--keep %s: give the share of requests to keep, a decimal in (0, 1] (0.9)", opt_keep);
          return NULL;
        }
      set.policy = RT_WHATIF_KEEP;
      set.value = (double) set.num / (double) set.den;
      g_array_append_val (out, set);
    }
  struct { const char *text, *option, *hint; RtWhatifPolicy policy; gboolean whole; double min; } rest[] = {
    { opt_max_turns, "--max-turns", "a whole number of turns, 1 or more", RT_WHATIF_MAX_TURNS, TRUE, 1 },
    { opt_timeout, "--timeout", "seconds, more than 0", RT_WHATIF_TIMEOUT, FALSE, 0 },
    { opt_defer, "--defer", "a whole number of requests, 0 or more", RT_WHATIF_DEFER, TRUE, 0 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (rest); i++)
    {
      if (rest[i].text == NULL)
        continue;
      RtWhatifSetting one = { .policy = rest[i].policy };
      if (!parse_value (rest[i].text, rest[i].whole, rest[i].min, &one.value))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s %s: give %s", rest[i].option, rest[i].text, rest[i].hint);
          return NULL;
        }
      g_array_append_val (out, one);
    }
  if (out->len == 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "give at least one policy: --keep F, --max-turns K, --timeout S or --defer K");
      return NULL;
    }
  return g_steal_pointer (&out);
}

static void
print_summary (RtSession *s, GPtrArray *results)
{
  rt_session_print (s, "%-10s %8s %6s %8s %14s %14s %10s %7s %10s %10s\n", "policy", "value", "steps", "unknown",
                    "recorded_s", "predicted_s", "saved", "cut", "ks_turns_p", "ks_tok_p");
  for (guint i = 0; i < results->len; i++)
    {
      const RtWhatif *w = g_ptr_array_index (results, i);
      char rec[32], pred[32], saved[32], kt[32], kk[32];
      rt_session_print (s, "%-10s %8g %6u %8u %14s %14s %10s %7u %10s %10s\n",
                        rt_whatif_policy_name (w->setting.policy), w->setting.value, w->steps_predicted,
                        w->steps_unknown, rt_summary_cell (rec, "%.2f", w->recorded_s), rt_summary_cell (pred, "%.2f", w->predicted_s),
                        rt_summary_cell (saved, "%.1f%%", 100 * w->saved_share), w->cut, rt_summary_cell (kt, "%.3g", w->ks_turns[1]),
                        rt_summary_cell (kk, "%.3g", w->ks_tokens[1]));
    }
  rt_session_print (s, "saved: of the recorded rollout, summed over the steps with a prediction; cut: requests "
                    "cut; ks_*_p: the KS p-value of the cut requests' turns and tokens against the kept ones' "
                    "(small: the cut ones differ, the batch is biased)\n");
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (GArray) settings = settings_of_options (error);
  if (settings == NULL)
    return 2;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autoptr (GPtrArray) results = rt_whatif_analyse (s->trace, selected, (const RtWhatifSetting *) settings->data,
                                                     settings->len);

  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, "policies");
  rt_jw_begin_array (w);
  for (guint i = 0; i < results->len; i++)
    write_policy (s, w, g_ptr_array_index (results, i));
  rt_jw_end_array (w);
  rt_jw_end_object (w);

  const RtWhatif *first = g_ptr_array_index (results, 0);
  if (first->steps->len == 0)
    return rt_session_no_data (s, "no selected step has a completed request with a duration and a time");
  gboolean any = FALSE;
  for (guint i = 0; i < results->len; i++)
    any = any || ((const RtWhatif *) g_ptr_array_index (results, i))->steps_predicted > 0;
  if (!any)
    return rt_session_no_data (s, "no policy predicts a step (max_turns: turns or turn_end lines unknown; "
                               "defer: K as many as a step's requests)");
  print_summary (s, results);
  for (guint i = 0; i < results->len; i++)
    {
      const RtWhatif *wi = g_ptr_array_index (results, i);
      g_autoptr (RtTable) table = rt_whatif_steps_table (wi);
      g_autofree char *name = g_strdup_printf ("whatif_%s", rt_whatif_policy_name (wi->setting.policy));
      if (!rt_session_write_table (s, table, name, error))
        return 1;
    }
  return rt_plot_whatif (s, results, error) ? 0 : 1;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "keep", 0, 0, G_OPTION_ARG_STRING, &opt_keep,
      "Keep the first F of each step's requests (over-provisioning), a decimal in (0, 1]", "F" },
    { "max-turns", 0, 0, G_OPTION_ARG_STRING, &opt_max_turns, "Cut every request after K turns (K >= 1)", "K" },
    { "timeout", 0, 0, G_OPTION_ARG_STRING, &opt_timeout, "Cut every request S seconds after its start", "S" },
    { "defer", 0, 0, G_OPTION_ARG_STRING, &opt_defer,
      "Defer each step's K slowest requests to the next step (partial rollout; K >= 0)", "K" },
    G_OPTION_ENTRY_NULL
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_whatif_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-whatif",
    .parameters = "EXP",
    .summary = "What a policy would have saved, replayed on each recorded step: keep the first F of\n"
               "the requests (over-provisioning), cap the turns, a per-request timeout, or defer the\n"
               "K slowest to the next step (partial rollout); and what it costs: the requests cut, and\n"
               "whether their turns and tokens differ from the kept ones' (a KS test).",
    .description =
      "Each policy alone, in the order keep, max_turns, timeout, defer; at least one. Times as\n"
      "rt-tail's: a request is an async_rollout_request_complete line with a finite duration and\n"
      "a readable timestamp, end = timestamp, start = end - duration; t0 the earliest start;\n"
      "e1..eR the ends ascending; recorded_rollout_s = eR - t0. A request keeps its end or is cut\n"
      "at c. keep F: k = ceil(F R) computed exactly (0.28 x 25 = 7), P = e_k, cut when end > P,\n"
      "c = P. defer K: the same with k = R - K; K >= R: no prediction. timeout S: cut when the\n"
      "duration > S, c = start + S. max_turns K: cut when turns > K, c = min(end, the earliest\n"
      "of its own turn_end lines with extra.turn = K - 1); a request with unknown turns, or cut\n"
      "without that line, is unknown, and its step has no prediction. predicted_rollout_s =\n"
      "the latest end once cut - t0. Plot: whatif (recorded against predicted rollout per step\n"
      "for each policy, and the share of requests cut).\n\n"
      "JSON (--json): {\"policies\": [{\"policy\", \"value\", \"steps\": [{\"step\", \"requests\",\n"
      "\"recorded_rollout_s\", \"predicted_rollout_s\", \"saved_s\", \"saved_share\" (of recorded,\n"
      "null unless recorded > 0), \"requests_cut\", \"requests_unknown\", \"ks_turns\", \"ks_tokens\"\n"
      "(rt-compare's {\"statistic\", \"pvalue\"} of the kept against the cut, null when either is\n"
      "empty)}], \"total\": {\"steps\" (with a prediction), \"steps_unknown\" (without), \"requests\",\n"
      "\"requests_cut\", \"recorded_rollout_s\", \"predicted_rollout_s\", \"saved_s\" (sums, null if\n"
      "no step), \"saved_share\", \"ks_turns\", \"ks_tokens\" (of the pooled requests)}}]}. Without a\n"
      "prediction a step's predicted, saved, share, cut and KS are null. Exit status 1 when no\n"
      "step has a request or no policy predicts a step; 2 without a policy or with a value out\n"
      "of range.\n\n"
      "Examples:\n  rt-whatif logs/exp --keep 0.9 --defer 5\n  rt-whatif logs/exp --timeout 120 --max-turns 6",
    .entries = entries,
    .analyses = analyses,
    .run = run,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
