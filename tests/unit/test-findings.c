/* SPDX-License-Identifier: Apache-2.0 */
/* test-findings.c: every rule of rt-report's findings on the experiment built to fire them all
 * (fixtures/findings/yes) and on the one built to fire none (no); numbers from fixtures/README.md. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include "rolltrace/rt-analyses.h"
#include "test-util.h"

#define EPS 1e-6

static RtFindings *
findings_of (const char *name, const char *train_name)
{
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "findings", name, NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  g_autoptr (RtTrainLog) log = NULL;
  if (train_name != NULL)
    {
      g_autofree char *log_path = g_build_filename (RT_FIXTURES_DIR, "findings", train_name, NULL);
      g_autoptr (GError) error = NULL;
      log = rt_train_log_read (log_path, &error);
      g_assert_no_error (error);
    }
  /* the findings keep no pointer into the trace */
  return rt_findings_analyse (t, NULL, log);
}

static const RtFinding *
fired (const RtFindings *f, const char *id)
{
  const RtFinding *x = rt_findings_find (f, id);
  if (x == NULL)
    g_error ("rule %s did not fire", id);
  g_assert_nonnull (x->title);
  g_assert_nonnull (x->detail);
  return x;
}

static void
assert_evidence (const RtFinding *x, const char *name, double want)
{
  double got = rt_finding_evidence (x, name);
  if (isnan (want))
    g_assert_true (isnan (got));
  else
    g_assert_cmpfloat_with_epsilon (got, want, EPS);
}

static void
test_straggler (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "straggler");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_HIGH);
  /* worker 1 generates 20 s (80 s in step 6) against worker 0's 10 s in all 6 steps; worker 0
   * waits 10 s five times and 70 s once at the barrier: 120 / 6 = 20 s, of its mean total 31 s */
  assert_evidence (x, "worker", 1);
  assert_evidence (x, "steps_slowest", 6);
  assert_evidence (x, "steps", 6);
  assert_evidence (x, "others_wait_s", 20);
  assert_evidence (x, "others_wait_pct", 20.0 / 31 * 100);
  g_assert_cmpstr (x->plot, ==, "workers_steps");
  /* the slowest rotates over 3 workers: each is slowest in 2 of 6 steps, less than half */
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "straggler"));
}

static void
test_straggler_needs_four_steps (void)
{
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "findings", "yes", NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  g_autoptr (RtStepSet) three = rt_test_steps ("1-3");
  g_autoptr (RtFindings) f = rt_findings_analyse (t, three, NULL);
  g_assert_null (rt_findings_find (f, "straggler"));
  g_autoptr (RtStepSet) four = rt_test_steps ("1-4");
  g_autoptr (RtFindings) g = rt_findings_analyse (t, four, NULL);
  assert_evidence (fired (g, "straggler"), "steps", 4);
}

static void
test_barrier_share (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "barrier_share");
  /* steps 1-5: (10 + 0) / 2 of a 21 s step; step 6: (70 + 0) / 2 of 81 s */
  assert_evidence (x, "barrier_pct", (5 * (5.0 / 21) + 35.0 / 81) / 6 * 100);
  /* the steps differ, so the title gives their range (23.8 % five times, 43.2 %), not "every step" */
  g_assert_cmpstr (x->title, ==, "27 % of a step is spent waiting at the barrier (23.8-43.2 % over 6 steps)");
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "barrier_share"));   /* (0 + 1 + 1) / 3 of 14 s: 4.8 % */
}

static void
test_long_tail (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "long_tail");
  /* 22 requests of 2 s and 4 of 40 s: P50 2, P99 at rank 24.75 of 0..25: 40 */
  assert_evidence (x, "p50_s", 2);
  assert_evidence (x, "p99_s", 40);
  assert_evidence (x, "p99_over_p50", 20);
  /* step 6 (the slowest): 6 requests, the last 4 ending together at 41 s: t90 = t100 */
  assert_evidence (x, "tail_share", 0);
  assert_evidence (x, "tail_step", 6);
  g_assert_cmpstr (x->plot, ==, "cdf");
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "long_tail"));   /* every request 2 s, all ending together */
}

static void
test_truncation (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "truncation");
  /* the 4 long requests end with LENGTH: 4 / 26; engine 4 x 17 of 4 x 17 + 22 x 1.5 */
  assert_evidence (x, "length_requests", 4);
  assert_evidence (x, "requests", 26);
  assert_evidence (x, "length_pct", 4.0 / 26 * 100);
  assert_evidence (x, "engine_pct", 68.0 / 101 * 100);
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "truncation"));
}

/* Many finish reasons, interleaved, more than the verdicts kept on the way (a slot per place
 * of a reason's text, taken over by another that shares it): every request is judged by its
 * own reason's last part all the same. Request i of 300 ends with reason i % 100, "kind_K.LENGTH"
 * for K a multiple of 3 and "kind_K.STOP" otherwise: 34 of 100 reasons, 102 of 300 requests. */
static void
test_truncation_many_reasons (void)
{
  GString *lines = g_string_new (NULL);
  for (guint i = 0; i < 300; i++)
    g_string_append_printf (lines, "{\"event\": \"async_rollout_request_complete\", \"timestamp\": "
                            "\"2025-01-01T10:00:10\", \"duration_sec\": 1, \"extra\": {\"request_id\": "
                            "\"r%u\", \"finish_reason\": \"kind_%u.%s\"}}\n", i, i % 100,
                            i % 100 % 3 == 0 ? "LENGTH" : "STOP");
  g_autofree char *dir = rt_test_experiment_new (lines->str);
  g_string_free (lines, TRUE);
  {
    g_autoptr (RtTrace) t = rt_test_load (dir);
    g_autoptr (RtFindings) f = rt_findings_analyse (t, NULL, NULL);
    const RtFinding *x = fired (f, "truncation");
    assert_evidence (x, "length_requests", 102);
    assert_evidence (x, "requests", 300);
  }
  rt_test_experiment_remove (dir);
}

static void
test_context_growth (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "context_growth");
  /* 34 turn records: 26 of turn 0, 4 each of turns 1 and 2 (>= 1.7): turn 2 engine 9 s
   * against turn 0's (22 x 1.5 + 4 x 2) / 26 */
  assert_evidence (x, "turn", 2);
  assert_evidence (x, "turn_engine_s", 9);
  assert_evidence (x, "turn0_engine_s", 41.0 / 26);
  assert_evidence (x, "ratio", 9 * 26.0 / 41);
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "context_growth"));   /* 0.8 s at both turns */
}

static void
test_tool_time (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "tool_time");
  /* the 10 slowest: 4 of 40 s with 20 s of tools each, 6 of 2 s without */
  assert_evidence (x, "requests", 10);
  assert_evidence (x, "total_s", 172);
  assert_evidence (x, "tool_s", 80);
  assert_evidence (x, "tool_pct", 80.0 / 172 * 100);
  g_assert_cmpstr (x->plot, ==, "requests_top_step_6");
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "tool_time"));   /* 0.2 s of 2 s: 10 % */
}

static void
test_outlier_steps (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "outlier_steps");
  /* rollouts 21 x 5 and 81: mean 31, std sqrt((5 x 100 + 2500) / 6) = sqrt (500) */
  assert_evidence (x, "steps", 1);
  assert_evidence (x, "rollout_mean_s", 31);
  assert_evidence (x, "rollout_std_s", sqrt (500));
  assert_evidence (x, "worst_step", 6);
  assert_evidence (x, "worst_rollout_s", 81);
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "outlier_steps"));   /* every rollout 14 s: std 0 */
}

static void
test_data_quality (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "data_quality");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_MEDIUM);
  assert_evidence (x, "bad_lines", 1);
  assert_evidence (x, "missing_files", 0);
  assert_evidence (x, "empty_files", 0);
  assert_evidence (x, "running_step", NAN);
  g_assert_cmpint (yes->running_step, ==, -1);
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "data_quality"));
}

/* A copy of `no` whose last step's worker 2 has not written its total yet. */
static void
test_data_quality_running_step (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rt-findings-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *cmd = g_strdup_printf ("cp -r '%s/findings/no/.' '%s/'", RT_FIXTURES_DIR, dir);
  g_assert_cmpint (system (cmd), ==, 0);
  g_autofree char *file = g_build_filename (dir, "step_6", "worker_2.jsonl", NULL);
  g_autofree char *text = NULL;
  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  char *last = strstr (text, "{\"timestamp\": \"2025-01-01T10:01:54.000000\", \"event\": \"total_step_duration\"");
  g_assert_nonnull (last);
  *last = '\0';
  g_assert_true (g_file_set_contents (file, text, -1, NULL));

  g_autoptr (RtTrace) t = rt_test_load (dir);
  g_autoptr (RtFindings) f = rt_findings_analyse (t, NULL, NULL);
  g_assert_cmpint (f->running_step, ==, 6);
  const RtFinding *x = fired (f, "data_quality");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_INFO);
  assert_evidence (x, "running_step", 6);
  assert_evidence (x, "bad_lines", 0);
  /* a selection without the running step says nothing */
  g_autoptr (RtStepSet) first = rt_test_steps ("1-5");
  g_autoptr (RtFindings) g = rt_findings_analyse (t, first, NULL);
  g_assert_null (rt_findings_find (g, "data_quality"));
  g_autofree char *rm = g_strdup_printf ("rm -r '%s'", dir);
  g_assert_cmpint (system (rm), ==, 0);
}

static void
test_rollout_share (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  const RtFinding *x = fired (yes, "rollout_share");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_INFO);
  /* steps 1-5: 21 s of rollout every 100 s; step 6 has no next step */
  assert_evidence (x, "rollout_share", 0.21);
  assert_evidence (x, "steps", 5);
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "rollout_share"));   /* 14 s every 20 s: 0.7 */
}

static void
test_trainer_mismatch (void)
{
  /* yes-train.log says timing_s/gen = 2 x the rollout: 100 % off */
  g_autoptr (RtFindings) yes = findings_of ("yes", "yes-train.log");
  const RtFinding *x = fired (yes, "trainer_mismatch");
  assert_evidence (x, "median_difference_pct", 100);
  assert_evidence (x, "common_steps", 6);
  assert_evidence (x, "train_gen_median_s", 42);
  assert_evidence (x, "rollout_median_s", 21);
  /* no-train.log: 1.05 x: 5 % */
  g_autoptr (RtFindings) no = findings_of ("no", "no-train.log");
  g_assert_null (rt_findings_find (no, "trainer_mismatch"));
  /* without a log the rule is not tried */
  g_autoptr (RtFindings) none = findings_of ("yes", NULL);
  g_assert_null (rt_findings_find (none, "trainer_mismatch"));
  /* another run's log: no step in common */
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rt-findings-XXXXXX", &error);
  g_autofree char *log_path = g_build_filename (dir, "other.log", NULL);
  g_assert_true (g_file_set_contents (log_path, "step:100 - timing_s/gen:14.0\nstep:101 - timing_s/gen:14.0\n", -1, NULL));
  g_autoptr (RtTrainLog) log = rt_train_log_read (log_path, &error);
  g_assert_no_error (error);
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "findings", "no", NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  g_autoptr (RtFindings) other = rt_findings_analyse (t, NULL, log);
  const RtFinding *o = fired (other, "trainer_mismatch");
  assert_evidence (o, "common_steps", 0);
  g_assert_cmpint (g_remove (log_path), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* ---- tail_cause and whatif_saving: fixtures/why-tail (fixtures/README.md) ---- */

static RtFindings *
why_tail_findings (const char *name)
{
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "why-tail", name, NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  return rt_findings_analyse (t, NULL, NULL);
}

static void
test_tail_cause (void)
{
  /* differ: in both steps the tail (2 requests of 4 turns of 3 s against the bulk's 2 of 2 s) is
   * late by extra_turns (4 - 2)(3 + 2)/2 = 5 each: 10 a step, 20 in all; its excess lateness
   * (15 - 6) + (19 - 6) = 22 a step, 44 in all */
  g_autoptr (RtFindings) differ = why_tail_findings ("differ");
  const RtFinding *x = fired (differ, "tail_cause");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_INFO);
  g_assert_cmpstr (rt_finding_evidence_text (x, "cause"), ==, "extra_turns");
  g_assert_true (isnan (rt_finding_evidence (x, "cause")));
  assert_evidence (x, "steps", 2);
  assert_evidence (x, "of_steps", 2);
  assert_evidence (x, "excess_s", 20);
  assert_evidence (x, "lateness_excess_s", 44);
  g_assert_cmpstr (x->plot, ==, "tail");
  g_assert_cmpstr (x->section, ==, "why_tail");
  /* alike: launch in steps 1 and 2 (starts 9 and 13 s after the bulk's: 22 each), slower_turns
   * in step 3: launch, the most steps, with 44 s */
  g_autoptr (RtFindings) alike = why_tail_findings ("alike");
  x = fired (alike, "tail_cause");
  g_assert_cmpstr (rt_finding_evidence_text (x, "cause"), ==, "launch");
  assert_evidence (x, "steps", 2);
  assert_evidence (x, "of_steps", 3);
  assert_evidence (x, "excess_s", 44);
  assert_evidence (x, "lateness_excess_s", 44);
  /* step 3 alone: slower_turns (5 - 2)(2 + 2)/2 + (6 - 2)(2 + 2)/2 = 6 + 8 */
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "why-tail", "alike", NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  g_autoptr (RtStepSet) three = rt_test_steps ("3");
  g_autoptr (RtFindings) f = rt_findings_analyse (t, three, NULL);
  x = fired (f, "tail_cause");
  g_assert_cmpstr (rt_finding_evidence_text (x, "cause"), ==, "slower_turns");
  assert_evidence (x, "excess_s", 14);
  /* no tail at all: every request of `no` (and of `yes`) ends with its step's others */
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "tail_cause"));
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  g_assert_null (rt_findings_find (yes, "tail_cause"));
}

static void
test_whatif_saving_warning (void)
{
  /* differ, each step R = 20, t0 = 1, recorded 18: defer K = ceil(0.05 x 20) = 1, P = e19 = 15,
   * the 19 s request cut, predicted 14, saved 4; keep k = ceil(0.9 x 20) = 18, P = e18 = 6, both
   * tail requests cut, predicted 5, saved 13. Two steps: saved 8 and 26 of 36 */
  g_autoptr (RtFindings) differ = why_tail_findings ("differ");
  const RtFinding *x = fired (differ, "whatif_saving");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_MEDIUM);
  assert_evidence (x, "steps", 2);
  assert_evidence (x, "requests", 40);
  assert_evidence (x, "defer_saved_s", 8);
  assert_evidence (x, "defer_saved_share", 8.0 / 36);
  assert_evidence (x, "defer_requests_cut", 2);
  assert_evidence (x, "keep_saved_s", 26);
  assert_evidence (x, "keep_saved_share", 26.0 / 36);
  assert_evidence (x, "keep_requests_cut", 4);
  /* keep: 36 kept of 2 turns (100 tokens) against 4 cut of 4 (400): D = 1, p = Q(sqrt(36 x 4 / 40));
   * defer keeps the two 15 s requests (4 turns): D = 36/38, p = Q(sqrt(38 x 2 / 40) x 36/38) */
  double keep_p = rt_ks_q (sqrt (36.0 * 4 / 40)), defer_p = rt_ks_q (sqrt (38.0 * 2 / 40) * 36 / 38);
  g_assert_cmpfloat (keep_p, <, 0.05);
  g_assert_cmpfloat (defer_p, >, 0.05);
  assert_evidence (x, "keep_ks_turns_p", keep_p);
  assert_evidence (x, "keep_ks_tokens_p", keep_p);
  assert_evidence (x, "defer_ks_turns_p", defer_p);
  assert_evidence (x, "defer_ks_tokens_p", defer_p);
  assert_evidence (x, "min_pvalue", keep_p);
  g_assert_cmpstr (x->plot, ==, "whatif");
  g_assert_nonnull (strstr (x->title, "differ"));
}

static void
test_whatif_saving_recommendation (void)
{
  /* alike: steps 1 and 2 as differ's (recorded 18; defer saves 4, keep 13), step 3 ends at 14
   * (recorded 13; defer P = e19 = 12: saves 2; keep P = 6: saves 8): 10 and 34 of 49. Every
   * request has 2 turns and 100 tokens: D = 0, p = 1 */
  g_autoptr (RtFindings) alike = why_tail_findings ("alike");
  const RtFinding *x = fired (alike, "whatif_saving");
  g_assert_cmpint (x->severity, ==, RT_SEVERITY_INFO);
  assert_evidence (x, "steps", 3);
  assert_evidence (x, "requests", 60);
  assert_evidence (x, "defer_saved_s", 10);
  assert_evidence (x, "defer_saved_share", 10.0 / 49);
  assert_evidence (x, "defer_requests_cut", 3);
  assert_evidence (x, "keep_saved_s", 34);
  assert_evidence (x, "keep_saved_share", 34.0 / 49);
  assert_evidence (x, "keep_requests_cut", 6);
  assert_evidence (x, "defer_ks_turns_p", 1);
  assert_evidence (x, "keep_ks_tokens_p", 1);
  assert_evidence (x, "min_pvalue", 1);
  g_assert_nonnull (strstr (x->title, "look like"));
  /* nothing to save: every request of `no` ends with its step's others */
  g_autoptr (RtFindings) no = findings_of ("no", NULL);
  g_assert_null (rt_findings_find (no, "whatif_saving"));
}

static void
test_whatif_defer_share (void)
{
  /* the policies of whatif_saving are exact fractions; deferring 5 % of fixtures/whatif's steps
   * defers K = ceil(5 R / 100): 1 of step 1's 5 (P = e4 = 10), 2 of step 2's 25 (P = e23 = 23),
   * 1 of step 3's 2 (P = e1 = 3) */
  RtWhatifSetting settings[2];
  rt_finding_whatif_settings (settings);
  g_assert_cmpint (settings[0].policy, ==, RT_WHATIF_DEFER);
  g_assert_cmpuint (settings[0].num * 20, ==, settings[0].den);
  g_assert_cmpint (settings[1].policy, ==, RT_WHATIF_KEEP);
  g_assert_cmpuint (settings[1].num * 10, ==, settings[1].den * 9);
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, "whatif", NULL);
  g_autoptr (RtTrace) t = rt_test_load (path);
  g_autoptr (GArray) all = rt_trace_select_steps (t, NULL);
  g_autoptr (GPtrArray) w = rt_whatif_analyse (t, all, settings, 1);
  const RtWhatif *defer = g_ptr_array_index (w, 0);
  const double want[] = { 10, 23, 3 };
  const guint cut[] = { 1, 2, 1 };
  g_assert_cmpuint (defer->steps->len, ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      const RtWhatifStep *st = &g_array_index (defer->steps, RtWhatifStep, i);
      g_assert_true (st->predicted);
      g_assert_cmpfloat_with_epsilon (st->predicted_s, want[i], EPS);
      g_assert_cmpuint (st->cut, ==, cut[i]);
    }
}

static void
test_ranked_by_severity (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", "yes-train.log");
  /* every rule fires but the tail's two (no step of yes has a tail: fixtures/why-tail has),
   * high first, then medium, then info, each in the order of the rules */
  const char *want[] = { "straggler", "trainer_mismatch", "barrier_share", "long_tail", "truncation",
                         "context_growth", "tool_time", "outlier_steps", "data_quality", "rollout_share" };
  g_assert_cmpuint (yes->findings->len, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < G_N_ELEMENTS (want); i++)
    g_assert_cmpstr (((RtFinding *) g_ptr_array_index (yes->findings, i))->id, ==, want[i]);
  for (guint i = 0; rt_finding_rules[i].id != NULL; i++)
    if (strcmp (rt_finding_rules[i].id, "tail_cause") != 0 && strcmp (rt_finding_rules[i].id, "whatif_saving") != 0)
      g_assert_nonnull (rt_findings_find (yes, rt_finding_rules[i].id));
  g_autoptr (RtFindings) no = findings_of ("no", "no-train.log");
  g_assert_cmpuint (no->findings->len, ==, 0);
  /* the warning of whatif_saving ranks with the medium ones, tail_cause with the info ones */
  g_autoptr (RtFindings) differ = why_tail_findings ("differ");
  const char *differ_want[] = { "long_tail", "whatif_saving", "tail_cause" };
  g_assert_cmpuint (differ->findings->len, ==, G_N_ELEMENTS (differ_want));
  for (guint i = 0; i < G_N_ELEMENTS (differ_want); i++)
    g_assert_cmpstr (((RtFinding *) g_ptr_array_index (differ->findings, i))->id, ==, differ_want[i]);
}

static void
test_json (void)
{
  g_autoptr (RtFindings) yes = findings_of ("yes", NULL);
  g_autoptr (GString) out = g_string_new (NULL);
  RtJsonWriter w;
  rt_jw_init (&w, out);
  rt_findings_write_json (yes, &w);
  g_assert_true (g_str_has_prefix (out->str, "[{\"id\": \"straggler\", \"severity\": \"high\", \"title\": "));
  g_assert_nonnull (strstr (out->str, "\"evidence\": {\"worker\": 1, \"steps_slowest\": 6, \"steps\": 6, "));
  g_assert_nonnull (strstr (out->str, "\"running_step\": null"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/findings/straggler", test_straggler);
  g_test_add_func ("/findings/straggler-needs-four-steps", test_straggler_needs_four_steps);
  g_test_add_func ("/findings/barrier-share", test_barrier_share);
  g_test_add_func ("/findings/long-tail", test_long_tail);
  g_test_add_func ("/findings/truncation", test_truncation);
  g_test_add_func ("/findings/truncation-many-reasons", test_truncation_many_reasons);
  g_test_add_func ("/findings/context-growth", test_context_growth);
  g_test_add_func ("/findings/tool-time", test_tool_time);
  g_test_add_func ("/findings/outlier-steps", test_outlier_steps);
  g_test_add_func ("/findings/data-quality", test_data_quality);
  g_test_add_func ("/findings/data-quality-running-step", test_data_quality_running_step);
  g_test_add_func ("/findings/rollout-share", test_rollout_share);
  g_test_add_func ("/findings/trainer-mismatch", test_trainer_mismatch);
  g_test_add_func ("/findings/tail-cause", test_tail_cause);
  g_test_add_func ("/findings/whatif-saving-warning", test_whatif_saving_warning);
  g_test_add_func ("/findings/whatif-saving-recommendation", test_whatif_saving_recommendation);
  g_test_add_func ("/findings/whatif-defer-share", test_whatif_defer_share);
  g_test_add_func ("/findings/ranked-by-severity", test_ranked_by_severity);
  g_test_add_func ("/findings/json", test_json);
  return g_test_run ();
}
