/* SPDX-License-Identifier: Apache-2.0 */
/* findings.c: the rules that turn the analyses into findings: what is wrong with a rollout, how
 * badly, and the numbers that show it. Each rule has a fixed id and the thresholds of rt-analyses.h. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-views.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#define PCT(x) ((x) * 100.0)

/* The thresholds appear in the texts as written in rt-analyses.h: one place to change them. */
#define T(x) G_STRINGIFY (x)

const RtFindingRule rt_finding_rules[] = {
  { "straggler", RT_SEVERITY_HIGH,
    "the same worker has the longest generation (async_generate_duration) in at least "
    T (RT_FINDING_STRAGGLER_SHARE) " of at least " T (RT_FINDING_STRAGGLER_MIN_STEPS) " selected steps with two "
    "or more workers: the others wait for it at the barrier" },
  { "trainer_mismatch", RT_SEVERITY_HIGH,
    "with --train: the trainer's timing_s/gen and the trace's rollout time differ by more than "
    T (RT_FINDING_TRAINER_MISMATCH) " of the rollout on the median step (or share no step): logs of different runs?" },
  { "barrier_share", RT_SEVERITY_HIGH,
    "the mean over the selected steps of barrier_wait_duration's share of the step (rt-events) "
    "is above " T (RT_FINDING_BARRIER_PCT) " %" },
  { "long_tail", RT_SEVERITY_MEDIUM,
    "P99 / P50 of the request durations of all selected steps is above " T (RT_FINDING_TAIL_RATIO) ", or the "
    "slowest step's tail_share (rt-timeline: (t100 - t90) / t100) is above " T (RT_FINDING_TAIL_SHARE) },
  { "tail_cause", RT_SEVERITY_INFO,
    "the cause rt-tail names dominant for the tail (launch, extra_turns, slower_turns, tool, other; "
    "duration where not attributed) in the most selected steps, ties to that order; its seconds are "
    "that cause's excess over the bulk summed over those steps" },
  { "whatif_saving", RT_SEVERITY_MEDIUM,
    "deferring the slowest " T (RT_FINDING_DEFER_SHARE) " of each step's requests (K = ceil(" T (RT_FINDING_DEFER_SHARE)
    " R)) or keeping the first " T (RT_FINDING_KEEP_SHARE) " (rt-whatif) saves more than " T (RT_FINDING_WHATIF_SAVED)
    " of the summed rollout: info when every known KS p-value of the cut requests' turns and tokens against the "
    "kept ones' (pooled, both policies) is " T (RT_FINDING_WHATIF_KS_P) " or more, medium when one is below (the "
    "cut ones differ) or none is known" },
  { "truncation", RT_SEVERITY_MEDIUM,
    "more than " T (RT_FINDING_LENGTH_SHARE) " of the complete requests finish with LENGTH (their share of "
    "engine time is told)" },
  { "context_growth", RT_SEVERITY_MEDIUM,
    "the mean engine time of the last turn index that holds at least " T (RT_FINDING_TURN_RECORDS_SHARE)
    " of the turn records is more than " T (RT_FINDING_CONTEXT_GROWTH) " x that of turn 0" },
  { "tool_time", RT_SEVERITY_MEDIUM,
    "the " T (RT_FINDING_TOOL_TOP) " slowest requests of the selected steps spend more than "
    T (RT_FINDING_TOOL_SHARE) " of their time in tool_execution" },
  { "outlier_steps", RT_SEVERITY_MEDIUM,
    "a step's rollout is beyond the mean + " T (RT_FINDING_OUTLIER_STD) " std (population) of the selected "
    "steps' rollouts" },
  { "data_quality", RT_SEVERITY_MEDIUM,
    "a bad line, a missing or empty worker file (medium), or only the last step still being "
    "written (info)" },
  { "rollout_share", RT_SEVERITY_INFO,
    "the mean over the steps of rollout_s / interval_s (rt-overview; steps with both) is below "
    T (RT_FINDING_ROLLOUT_SHARE_LOW) " (training dominates) or above " T (RT_FINDING_ROLLOUT_SHARE_HIGH)
    " (rollout dominates)" },
  { NULL },
};

const char *
rt_severity_name (RtSeverity severity)
{
  switch (severity)
    {
    case RT_SEVERITY_HIGH: return "high";
    case RT_SEVERITY_MEDIUM: return "medium";
    default: return "info";
    }
}

static void
finding_free (RtFinding *f)
{
  g_free (f->title);
  g_free (f->detail);
  g_free (f->plot);
  g_array_unref (f->evidence);
  g_free (f);
}

static int
rule_rank (const char *id)
{
  for (int i = 0; rt_finding_rules[i].id != NULL; i++)
    if (strcmp (rt_finding_rules[i].id, id) == 0)
      return i;
  return G_MAXINT;
}

/* A new finding of rule `id`, its severity the rule's, shown by `plot` (NULL: the section). */
static RtFinding *
finding_add (RtFindings *out, const char *id, const char *section, char *plot, const char *title_fmt, ...)
  G_GNUC_PRINTF (5, 6);

static RtFinding *
finding_add (RtFindings *out, const char *id, const char *section, char *plot, const char *title_fmt, ...)
{
  RtFinding *f = g_new0 (RtFinding, 1);
  int rank = rule_rank (id);
  g_assert (rank != G_MAXINT);
  f->id = rt_finding_rules[rank].id;
  f->severity = rt_finding_rules[rank].severity;
  f->section = section;
  f->plot = plot;
  va_list ap;
  va_start (ap, title_fmt);
  f->title = g_strdup_vprintf (title_fmt, ap);
  va_end (ap);
  f->evidence = g_array_new (FALSE, FALSE, sizeof (RtEvidence));
  g_ptr_array_add (out->findings, f);
  return f;
}

static void finding_detail (RtFinding *f, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
finding_detail (RtFinding *f, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  f->detail = g_strdup_vprintf (fmt, ap);
  va_end (ap);
}

static void
evidence (RtFinding *f, const char *name, double value)
{
  RtEvidence e = { name, value, NULL };
  g_array_append_val (f->evidence, e);
}

static void
evidence_text (RtFinding *f, const char *name, const char *text)
{
  RtEvidence e = { name, NAN, text };
  g_array_append_val (f->evidence, e);
}

/* ---- straggler ---- */

/* The straggler of a step (rt_step_balance), or -1 when the step has fewer than two files
 * or none logged generation or a total. */
static int
step_straggler_file (const RtTrace *t, guint si)
{
  if (rt_trace_step (t, si)->n_files < 2)
    return -1;
  RtStepBalance b;
  rt_step_balance (t, si, &b);
  return b.slowest_file;
}

static void
rule_straggler (const RtTrace *t, GArray *selected, RtFindings *out)
{
  g_autoptr (GHashTable) counts = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint n_steps = 0;
  for (guint i = 0; i < selected->len; i++)
    {
      int slowest = step_straggler_file (t, g_array_index (selected, guint, i));
      if (slowest < 0)
        continue;
      n_steps++;
      gpointer key = GINT_TO_POINTER (rt_trace_file (t, slowest)->worker + 1);
      g_hash_table_insert (counts, key, GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1));
    }
  if (n_steps < RT_FINDING_STRAGGLER_MIN_STEPS)
    return;
  gint32 worker = -1;
  guint most = 0;
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, counts);
  while (g_hash_table_iter_next (&it, &key, &value))
    {
      gint32 w = GPOINTER_TO_INT (key) - 1;
      guint c = GPOINTER_TO_UINT (value);
      if (c > most || (c == most && w < worker))
        {
          most = c;
          worker = w;
        }
    }
  if (most < RT_FINDING_STRAGGLER_SHARE * n_steps)
    return;

  /* how long the others waited for it, in the steps where it was the slowest */
  double wait_sum = 0, total_sum = 0;
  guint wait_n = 0, total_n = 0;
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      int slowest = step_straggler_file (t, g_array_index (selected, guint, i));
      if (slowest < 0 || rt_trace_file (t, slowest)->worker != worker)
        continue;
      for (guint k = 0; k < st->n_files; k++)
        {
          const RtFile *f = rt_trace_file (t, st->first_file + k);
          double wait = rt_view_file_value (f, RT_EV_BARRIER_WAIT);
          double total = rt_view_file_value (f, RT_EV_TOTAL_STEP);
          if ((int) (st->first_file + k) == slowest)
            continue;
          if (!isnan (wait))
            wait_sum += wait, wait_n++;
          if (!isnan (total))
            total_sum += total, total_n++;
        }
    }
  double wait_mean = wait_n ? wait_sum / wait_n : NAN;
  double wait_pct = wait_n && total_n && total_sum > 0 ? PCT ((wait_sum / wait_n) / (total_sum / total_n)) : NAN;
  RtFinding *f = finding_add (out, "straggler", "workers", g_strdup ("workers_steps"),
                              "Worker %d is the straggler: the slowest in %u of %u steps", worker, most, n_steps);
  if (isnan (wait_mean))
    finding_detail (f, "Worker %d had the longest generation in %u of the %u steps with two or more "
                    "workers; the others logged no barrier wait.", worker, most, n_steps);
  else
    finding_detail (f, "Worker %d had the longest generation in %u of the %u steps with two or more "
                    "workers; in those steps the other workers waited %.2f s for it at the barrier "
                    "on average (%.1f %% of their step).", worker, most, n_steps, wait_mean, wait_pct);
  evidence (f, "worker", worker);
  evidence (f, "steps_slowest", most);
  evidence (f, "steps", n_steps);
  evidence (f, "others_wait_s", wait_mean);
  evidence (f, "others_wait_pct", wait_pct);
}

/* ---- trainer_mismatch ---- */

static void
rule_trainer_mismatch (const RtOverview *o, RtFindings *out)
{
  if (o == NULL || !o->with_train)
    return;
  g_autoptr (GArray) rel = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) gen = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) roll = g_array_new (FALSE, FALSE, sizeof (double));
  for (guint i = 0; i < o->steps->len; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      if (!isfinite (r->train_gen_s) || !(r->rollout_s > 0))
        continue;
      double d = fabs (r->train_gen_s - r->rollout_s) / r->rollout_s;
      g_array_append_val (rel, d);
      g_array_append_val (gen, r->train_gen_s);
      g_array_append_val (roll, r->rollout_s);
    }
  guint n = rel->len;
  if (n == 0)
    {
      RtFinding *f = finding_add (out, "trainer_mismatch", "overview", g_strdup ("overview"),
                                  "The trainer's log shares no step with the trace");
      finding_detail (f, "None of the %u steps with a rollout time has a timing_s/gen in the trainer's "
                      "log: is it the log of another run?", o->steps->len);
      evidence (f, "common_steps", 0);
      return;
    }
  double median = rt_median (rt_samples_data (rel), rel->len);
  if (!(median > RT_FINDING_TRAINER_MISMATCH))
    return;
  double gen_median = rt_median (rt_samples_data (gen), gen->len);
  double roll_median = rt_median (rt_samples_data (roll), roll->len);
  RtFinding *f = finding_add (out, "trainer_mismatch", "overview", g_strdup ("overview"),
                              "The trainer's generation time and the trace disagree by %.0f %%", PCT (median));
  finding_detail (f, "On the median of %u common steps timing_s/gen differs from the trace's rollout time "
                  "by %.1f %% (medians: %.2f s in the log, %.2f s in the trace): logs of different runs, "
                  "or steps numbered differently?", n, PCT (median), gen_median, roll_median);
  evidence (f, "median_difference_pct", PCT (median));
  evidence (f, "common_steps", n);
  evidence (f, "train_gen_median_s", gen_median);
  evidence (f, "rollout_median_s", roll_median);
}

/* ---- barrier_share ---- */

static void
rule_barrier_share (const RtEvents *ev, RtFindings *out)
{
  if (ev == NULL || !(ev->barrier_pct > RT_FINDING_BARRIER_PCT))
    return;
  /* the title says the range over the steps, not the mean as if every step were alike */
  double lo = INFINITY, hi = -INFINITY;
  guint n = 0;
  for (guint i = 0; i < ev->steps->len; i++)
    {
      double pct = g_array_index (ev->steps, RtEventsStep, i).pct[RT_EV_BARRIER_WAIT];
      if (isnan (pct))
        continue;
      lo = MIN (lo, pct);
      hi = MAX (hi, pct);
      n++;
    }
  RtFinding *f = n > 1 && hi - lo >= 0.05
    ? finding_add (out, "barrier_share", "sections", g_strdup ("events_stacked"),
                   "%.0f %% of a step is spent waiting at the barrier (%.1f-%.1f %% over %u steps)",
                   ev->barrier_pct, lo, hi, n)
    : finding_add (out, "barrier_share", "sections", g_strdup ("events_stacked"),
                   "%.0f %% of every step is spent waiting at the barrier", ev->barrier_pct);
  finding_detail (f, "Averaged over %u steps, barrier_wait_duration takes %.1f %% of a step (above %.0f %%): "
                  "the ranks wait that long for the slowest one.", n, ev->barrier_pct,
                  RT_FINDING_BARRIER_PCT);
  evidence (f, "barrier_pct", ev->barrier_pct);
  evidence (f, "steps", n);
}

/* ---- long_tail ---- */

static void
rule_long_tail (const RtCdf *cdf, const RtTimeline *tl, RtFindings *out)
{
  const RtCdfEvent *c = cdf && cdf->events->len ? g_ptr_array_index (cdf->events, 0) : NULL;
  double p50 = c && c->all.n ? c->all_summary.p50 : NAN, p99 = c && c->all.n ? c->all_summary.p99 : NAN;
  double ratio = p50 > 0 ? p99 / p50 : NAN;
  double tail = tl && tl->found ? tl->tail_share : NAN;
  gboolean by_ratio = ratio > RT_FINDING_TAIL_RATIO, by_tail = tail > RT_FINDING_TAIL_SHARE;
  if (!by_ratio && !by_tail)
    return;
  RtFinding *f;
  if (by_ratio)
    {
      f = finding_add (out, "long_tail", "tail", g_strdup ("cdf"),
                       "A long tail: P99 of request durations is %.1f x P50", ratio);
      finding_detail (f, "Over %u requests P50 is %.2f s and P99 %.2f s (ratio above %.0f)%s", c->all_summary.count,
                      p50, p99, RT_FINDING_TAIL_RATIO,
                      by_tail ? "; in the slowest step the last 10 % of requests take" : ".");
    }
  else
    {
      f = finding_add (out, "long_tail", "timeline", g_strdup_printf ("inflight_step_%d", tl->step),
                       "A long tail: the last 10 %% of step %d's requests take %.0f %% of it", tl->step, PCT (tail));
      finding_detail (f, "In step %d (the slowest) 90 %% of the requests had finished at %.2f s, the last at %.2f s: "
                      "the tail's share is %.2f (above %.1f).", tl->step, tl->t90_s, tl->t100_s, tail,
                      RT_FINDING_TAIL_SHARE);
    }
  if (by_ratio && by_tail)
    {
      g_autofree char *head = f->detail;
      f->detail = g_strdup_printf ("%s %.0f %% of step %d.", head, PCT (tail), tl->step);
    }
  evidence (f, "p50_s", p50);
  evidence (f, "p99_s", p99);
  evidence (f, "p99_over_p50", ratio);
  evidence (f, "tail_share", tail);
  evidence (f, "tail_step", tl && tl->found ? tl->step : NAN);
}

/* ---- tail_cause ---- */

/* A cause as the text says it. */
static const char *
cause_words (RtTailCause c)
{
  switch (c)
    {
    case RT_TAIL_LAUNCH: return "starting late (launch)";
    case RT_TAIL_EXTRA_TURNS: return "running more turns than the bulk (extra_turns)";
    case RT_TAIL_SLOWER_TURNS: return "slower turns (slower_turns)";
    case RT_TAIL_TOOL: return "slow tools (tool)";
    case RT_TAIL_OTHER: return "time outside the engine and the tools (other)";
    default: return "longer durations, their split unknown (duration)";
    }
}

static void
rule_tail_cause (const RtTail *tail, RtFindings *out)
{
  if (tail == NULL)
    return;
  /* the cause dominant in the most steps, ties to the first */
  RtTailCause cause = RT_TAIL_NONE;
  for (RtTailCause c = 0; c < RT_N_TAIL_CAUSES; c++)
    if (tail->tail_dominant[c] > (cause == RT_TAIL_NONE ? 0 : tail->tail_dominant[cause]))
      cause = c;
  if (cause == RT_TAIL_NONE)
    return;
  RtTailPart part = rt_tail_cause_part (cause);
  double seconds = 0, lateness = 0;
  for (guint i = 0; i < tail->steps->len; i++)
    {
      const RtTailStep *ts = &g_array_index (tail->steps, RtTailStep, i);
      if (ts->tail_dominant != cause)
        continue;
      seconds += ts->tail_excess.v[part];
      lateness += ts->tail_excess.v[RT_PART_LATENESS];
    }
  guint steps = tail->tail_dominant[cause], of = tail->steps->len;
  RtFinding *f = finding_add (out, "tail_cause", "why_tail", g_strdup ("tail"),
                              "%s dominates the tail in %u of %u steps (%.1f s of excess)",
                              rt_tail_cause_name (cause), steps, of, seconds);
  finding_detail (f, "In %u of the %u steps with a request, the requests that ended after 90 %% of them had (the "
                  "tail) were late above all by %s: over those steps that cause's excess over the bulk's mean sums "
                  "to %.2f s, of the tail's %.2f s excess lateness (rt-tail).", steps, of, cause_words (cause),
                  seconds, lateness);
  evidence_text (f, "cause", rt_tail_cause_name (cause));
  evidence (f, "steps", steps);
  evidence (f, "of_steps", of);
  evidence (f, "excess_s", seconds);
  evidence (f, "lateness_excess_s", lateness);
}

/* ---- whatif_saving ---- */

void
rt_finding_whatif_settings (RtWhatifSetting settings[2])
{
  /* the shares as written in findings.h, read as exact fractions (0.05 is 5/100) */
  settings[0] = (RtWhatifSetting) { .policy = RT_WHATIF_DEFER, .value = RT_FINDING_DEFER_SHARE };
  settings[1] = (RtWhatifSetting) { .policy = RT_WHATIF_KEEP, .value = RT_FINDING_KEEP_SHARE };
  gboolean ok = rt_whatif_parse_fraction (T (RT_FINDING_DEFER_SHARE), &settings[0].num, &settings[0].den)
                && rt_whatif_parse_fraction (T (RT_FINDING_KEEP_SHARE), &settings[1].num, &settings[1].den);
  g_assert (ok);
}

/* A number in a sentence by `format`: "-" when unknown. */
static const char *
number_text (char buf[32], const char *format, double v)
{
  if (isnan (v))
    return "-";
  g_snprintf (buf, 32, format, v);
  return buf;
}

static void
rule_whatif_saving (const RtWhatif *defer, const RtWhatif *keep, RtFindings *out)
{
  if (defer == NULL || keep == NULL)
    return;
  double defer_share = defer->steps_predicted > 0 ? defer->saved_share : NAN;
  double keep_share = keep->steps_predicted > 0 ? keep->saved_share : NAN;
  if (!(defer_share > RT_FINDING_WHATIF_SAVED) && !(keep_share > RT_FINDING_WHATIF_SAVED))
    return;
  /* the KS tests known, and whether one says the cut requests differ */
  const double p[4] = { defer->ks_turns[1], defer->ks_tokens[1], keep->ks_turns[1], keep->ks_tokens[1] };
  double min_p = NAN;
  for (int i = 0; i < 4; i++)
    if (!isnan (p[i]) && !(p[i] >= min_p))
      min_p = p[i];
  gboolean known = !isnan (min_p), differ = min_p < RT_FINDING_WHATIF_KS_P;
  const char *verdict = differ ? "but the cut requests differ from the kept ones"
                               : known ? "and the cut requests look like the kept ones"
                                       : "and whether the cut requests differ is unknown";
  char saved_defer[32], saved_keep[32];
  RtFinding *f = finding_add (out, "whatif_saving", "why_tail", g_strdup ("whatif"),
                              "Deferring the slowest %.0f %% would save %s of the rollout, keeping the first %.0f %% "
                              "%s, %s", PCT (RT_FINDING_DEFER_SHARE),
                              number_text (saved_defer, "%.0f %%", PCT (defer_share)),
                              PCT (RT_FINDING_KEEP_SHARE), number_text (saved_keep, "%.0f %%", PCT (keep_share)),
                              verdict);
  if (known && !differ)
    f->severity = RT_SEVERITY_INFO;   /* a recommendation: nothing says cutting biases the batch */
  char p_text[4][32];
  g_autofree char *verdict_text =
    differ ? g_strdup_printf ("one below %g, so the cut requests differ from the kept ones and cutting them would "
                              "bias the batch", RT_FINDING_WHATIF_KS_P)
    : known ? g_strdup_printf ("none below %g, so nothing says the cut requests differ: either policy is worth a try",
                               RT_FINDING_WHATIF_KS_P)
            : g_strdup ("none known (no turns or tokens), so whether cutting would bias the batch is unknown");
  finding_detail (f, "Replayed on the recorded steps (rt-whatif): deferring each step's slowest %.0f %% (K = "
                  "ceil(%g R)) cuts %u of %u requests and saves %.2f s of %.2f s of rollout; keeping the first "
                  "%.0f %% (k = ceil(%g R)) cuts %u and saves %.2f s of %.2f s. KS p-values of the cut requests' "
                  "turns and tokens against the kept ones': defer %s and %s, keep %s and %s: %s.", PCT (RT_FINDING_DEFER_SHARE), RT_FINDING_DEFER_SHARE,
                  defer->cut, defer->requests, defer->saved_s, defer->recorded_s, PCT (RT_FINDING_KEEP_SHARE),
                  RT_FINDING_KEEP_SHARE, keep->cut, keep->saved_s, keep->recorded_s,
                  number_text (p_text[0], "%.3g", p[0]), number_text (p_text[1], "%.3g", p[1]), number_text (p_text[2], "%.3g", p[2]),
                  number_text (p_text[3], "%.3g", p[3]), verdict_text);
  evidence (f, "steps", keep->steps_predicted);
  evidence (f, "requests", keep->requests);
  evidence (f, "defer_saved_s", defer->steps_predicted > 0 ? defer->saved_s : NAN);
  evidence (f, "defer_saved_share", defer_share);
  evidence (f, "defer_requests_cut", defer->cut);
  evidence (f, "keep_saved_s", keep->steps_predicted > 0 ? keep->saved_s : NAN);
  evidence (f, "keep_saved_share", keep_share);
  evidence (f, "keep_requests_cut", keep->cut);
  evidence (f, "defer_ks_turns_p", p[0]);
  evidence (f, "defer_ks_tokens_p", p[1]);
  evidence (f, "keep_ks_turns_p", p[2]);
  evidence (f, "keep_ks_tokens_p", p[3]);
  evidence (f, "min_pvalue", min_p);
}

/* ---- truncation ---- */

/* Whether request q (complete) finished at the length limit. The same few reasons recur, each
 * kept once (its text at one place) but not one after another: the verdict on each is kept in
 * `memo` by where its text is, a slot per place (a reason that shares a slot with another takes
 * it over). The table belongs to the caller: nothing is shared between calls. */
#define LENGTH_MEMO_BITS 6
#define LENGTH_MEMO_SLOTS (1 << LENGTH_MEMO_BITS)
typedef struct {
  guint64 reason[LENGTH_MEMO_SLOTS];   /* 0: empty (0 is no reason, whose verdict is FALSE) */
  gboolean is_length[LENGTH_MEMO_SLOTS];
} LengthMemo;

/* (the verdict on a reason not in `memo` at its slot) */
static gboolean
length_verdict (const RtTrace *t, const RtRequest *q, LengthMemo *memo, guint slot)
{
  memo->reason[slot] = q->finish_reason;
  memo->is_length[slot] = rt_request_at_length (t, q);
  return memo->is_length[slot];
}

/* Inline: it runs for every complete request. */
static inline gboolean
finished_at_length (const RtTrace *t, const RtRequest *q, LengthMemo *memo)
{
  guint slot = (guint) ((q->finish_reason * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> (64 - LENGTH_MEMO_BITS));
  if (G_LIKELY (memo->reason[slot] == q->finish_reason))
    return memo->is_length[slot];
  return length_verdict (t, q, memo, slot);
}

/* ---- the one walk over the requests (truncation, tool_time) ---- */

typedef struct {
  guint request;
  double total_s, tool_s;
  guint step_index, file_in_step, in_file;   /* where it is: its step, the file among the step's,
                                              * the request among the file's */
} SlowOne;

/* Slowest first; ties to the lower step, the lower worker, then the lower request id. */
static int
compare_slow (gconstpointer a, gconstpointer b, gpointer data)
{
  const RtTrace *t = data;
  const SlowOne *x = a, *y = b;
  if (x->total_s != y->total_s)
    return x->total_s > y->total_s ? -1 : 1;
  const RtRequest *qx = rt_trace_request (t, x->request), *qy = rt_trace_request (t, y->request);
  if (qx->step != qy->step)
    return qx->step < qy->step ? -1 : 1;
  if (qx->worker != qy->worker)
    return qx->worker < qy->worker ? -1 : 1;
  return strcmp (rt_request_id (t, qx), rt_request_id (t, qy));
}

/* What the rules need of every request of the selected steps, in one walk over them: the
 * complete requests, those of them that finished at the length limit, and the
 * RT_FINDING_TOOL_TOP slowest complete requests with a duration, slowest first (only theirs
 * are then looked up in the rows: a few files', not every step's). */
struct _RtRequestWalk {
  guint64 complete, length;
  GArray *slow;   /* SlowOne */
};

/* Keeps request `one` (no faster than *floor_s) among the slowest, sorted, the last one
 * dropping out when full; *floor_s is then the last kept's duration. Apart from the walk,
 * which calls it for a few requests only: its registers are the walk's (its counts stayed in
 * memory with this inlined). */
static G_GNUC_NO_INLINE void
keep_slow (const RtTrace *t, GArray *slow, const SlowOne *one, double *floor_s)
{
  const guint top = RT_FINDING_TOOL_TOP;
  if (slow->len == top
      && compare_slow (one, &g_array_index (slow, SlowOne, top - 1), (gpointer) t) >= 0)
    return;
  guint at = slow->len < top ? slow->len : top - 1;
  if (slow->len < top)
    g_array_set_size (slow, slow->len + 1);
  SlowOne *best = (SlowOne *) slow->data;
  while (at > 0 && compare_slow (one, &best[at - 1], (gpointer) t) < 0)
    {
      best[at] = best[at - 1];
      at--;
    }
  best[at] = *one;
  if (slow->len == top)
    *floor_s = best[top - 1].total_s;
}

RtRequestWalk *
rt_request_walk_new (void)
{
  RtRequestWalk *walk = g_new0 (RtRequestWalk, 1);
  walk->slow = g_array_new (FALSE, FALSE, sizeof (SlowOne));
  return walk;
}

void
rt_request_walk_step (RtRequestWalk *walk, const RtTrace *t, guint step_index)
{
  GArray *slow = walk->slow;
  /* once full, the duration of the last kept */
  double floor_s = slow->len == RT_FINDING_TOOL_TOP ? g_array_index (slow, SlowOne, slow->len - 1).total_s
                                                     : -INFINITY;
  guint64 complete = 0, length = 0;
  LengthMemo memo = { { 0 }, { FALSE } };
  const RtStep *st = rt_trace_step (t, step_index);
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      if (f->n_requests == 0 || f->first_request == RT_NONE)
        continue;
      /* a file's requests lie in one table: walked by pointer */
      const RtRequest *first = rt_trace_request (t, f->first_request), *end = first + f->n_requests;
      for (const RtRequest *q = first; q < end; q++)
        {
          if (!q->complete)
            continue;
          complete++;
          length += finished_at_length (t, q, &memo);
          /* without a duration (NaN), or once full faster than the last kept: out,
           * whatever the ties would say */
          if (q->total_s >= floor_s)
            {
              guint in_file = (guint) (q - first);
              SlowOne one = { f->first_request + in_file, q->total_s, 0, step_index, k, in_file };
              keep_slow (t, slow, &one, &floor_s);
            }
        }
    }
  rt_trace_requests_done (t, st->first_file, st->n_files);
  walk->complete += complete;
  walk->length += length;
}

RtRequestWalk *
rt_request_walk_copy (const RtRequestWalk *walk)
{
  RtRequestWalk *c = g_memdup2 (walk, sizeof *walk);
  c->slow = g_array_copy (walk->slow);
  return c;
}

gboolean
rt_request_walk_rebase (RtRequestWalk *walk, const RtTrace *t)
{
  for (guint k = 0; k < walk->slow->len; k++)
    {
      SlowOne *one = &g_array_index (walk->slow, SlowOne, k);
      if (one->step_index >= t->steps->len)
        return FALSE;
      const RtStep *st = rt_trace_step (t, one->step_index);
      if (one->file_in_step >= st->n_files)
        return FALSE;
      const RtFile *f = rt_trace_file (t, st->first_file + one->file_in_step);
      if (f->first_request == RT_NONE || one->in_file >= f->n_requests)
        return FALSE;
      one->request = f->first_request + one->in_file;
    }
  return TRUE;
}

void
rt_request_walk_counts (const RtRequestWalk *walk, guint64 *complete, guint64 *length, GArray **slowest)
{
  *complete = walk->complete;
  *length = walk->length;
  if (slowest == NULL)
    return;
  *slowest = g_array_sized_new (FALSE, FALSE, sizeof (guint), walk->slow->len);
  for (guint k = 0; k < walk->slow->len; k++)
    g_array_append_val (*slowest, g_array_index (walk->slow, SlowOne, k).request);
}

void
rt_request_walk_free (RtRequestWalk *walk)
{
  if (walk == NULL)
    return;
  g_array_unref (walk->slow);
  g_free (walk);
}

static void
rule_truncation (const RtTrace *t, GArray *selected, const RtRequestWalk *walk, RtFindings *out)
{
  guint64 complete = walk->complete, length = walk->length;
  LengthMemo memo = { { 0 }, { FALSE } };
  double share = complete ? (double) length / complete : NAN;
  if (!(share > RT_FINDING_LENGTH_SHARE))
    return;
  /* the engine times (every turn of every request) only for a finding to show */
  double engine = 0, engine_length = 0;
  for (guint i = 0; i < selected->len; i++)
    {
      RtStepRequests it;
      rt_step_requests_init (&it, t, g_array_index (selected, guint, i));
      for (const RtRequest *q; (q = rt_step_requests_next (&it)) != NULL;)
        if (q->complete)
          {
            double e = rt_trace_request_engine_s (t, q);
            engine += e;
            if (finished_at_length (t, q, &memo))
              engine_length += e;
          }
    }
  double engine_pct = engine > 0 ? PCT (engine_length / engine) : NAN;
  RtFinding *f = finding_add (out, "truncation", "requests", NULL,
                              "%.0f %% of requests are cut off at the length limit", PCT (share));
  if (isnan (engine_pct))
    finding_detail (f, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " complete requests finish with LENGTH "
                    "(above %.0f %%); the trace has no engine times to weigh them.", length, complete,
                    PCT (RT_FINDING_LENGTH_SHARE));
  else
    finding_detail (f, "%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " complete requests finish with LENGTH "
                    "(above %.0f %%), and they take %.1f %% of the engine time: generation that is thrown away "
                    "or truncated.", length, complete, PCT (RT_FINDING_LENGTH_SHARE), engine_pct);
  evidence (f, "length_requests", (double) length);
  evidence (f, "requests", (double) complete);
  evidence (f, "length_pct", PCT (share));
  evidence (f, "engine_pct", engine_pct);
}

/* ---- context_growth ---- */

static void
rule_context_growth (const RtTurns *turns, RtFindings *out)
{
  if (turns == NULL || turns->turns->len == 0)
    return;
  const RtTurnsRow *first = &g_array_index (turns->turns, RtTurnsRow, 0);
  if (first->turn != 0 || !(first->mean_s[RT_TURN_ENGINE_CALL] > 0))
    return;
  guint64 records = 0;
  for (guint i = 0; i < turns->turns->len; i++)
    records += g_array_index (turns->turns, RtTurnsRow, i).count;
  const RtTurnsRow *last = NULL;
  for (guint i = 0; i < turns->turns->len; i++)
    {
      const RtTurnsRow *row = &g_array_index (turns->turns, RtTurnsRow, i);
      if (row->count >= RT_FINDING_TURN_RECORDS_SHARE * records && !isnan (row->mean_s[RT_TURN_ENGINE_CALL]))
        last = row;
    }
  double ratio = last ? last->mean_s[RT_TURN_ENGINE_CALL] / first->mean_s[RT_TURN_ENGINE_CALL] : NAN;
  if (!(ratio > RT_FINDING_CONTEXT_GROWTH))
    return;
  RtFinding *f = finding_add (out, "context_growth", "turns", g_strdup ("turns"),
                              "Turn %d's engine call takes %.1f x as long as turn 0's", last->turn, ratio);
  finding_detail (f, "The mean engine time grows from %.2f s at turn 0 to %.2f s at turn %d (%u of %" G_GUINT64_FORMAT
                  " turn records): the context grows with every turn.", first->mean_s[RT_TURN_ENGINE_CALL],
                  last->mean_s[RT_TURN_ENGINE_CALL], last->turn, last->count, records);
  evidence (f, "turn", last->turn);
  evidence (f, "turn_engine_s", last->mean_s[RT_TURN_ENGINE_CALL]);
  evidence (f, "turn0_engine_s", first->mean_s[RT_TURN_ENGINE_CALL]);
  evidence (f, "ratio", ratio);
  evidence (f, "turn_records", last->count);
}

/* ---- tool_time ---- */

static void
rule_tool_time (const RtTrace *t, GArray *slow, RtFindings *out, gint32 *shown_step)
{
  guint16 tool = rt_event_registry_lookup (t->registry, "tool_execution");
  for (guint k = 0; tool != RT_EVENT_NONE && k < slow->len; k++)
    {
      SlowOne *one = &g_array_index (slow, SlowOne, k);
      double sum = rt_request_event_sum (t, one->request, tool);
      one->tool_s = isnan (sum) ? 0 : sum;   /* +inf and -inf lines */
    }
  guint n = MIN (slow->len, (guint) RT_FINDING_TOOL_TOP);
  double total = 0, tools = 0;
  for (guint k = 0; k < n; k++)
    {
      total += g_array_index (slow, SlowOne, k).total_s;
      tools += g_array_index (slow, SlowOne, k).tool_s;
    }
  if (n > 0)
    *shown_step = rt_trace_request (t, g_array_index (slow, SlowOne, 0).request)->step;
  double share = total > 0 ? tools / total : NAN;
  if (!(share > RT_FINDING_TOOL_SHARE))
    return;
  RtFinding *f = finding_add (out, "tool_time", "requests", g_strdup_printf ("requests_top_step_%d", *shown_step),
                              "The slowest requests spend %.0f %% of their time in tools", PCT (share));
  finding_detail (f, "The %u slowest requests took %.1f s together, %.1f s of it in tool_execution (%.1f %%, "
                  "above %.0f %%): the tools, not the engine, make the tail.", n, total, tools, PCT (share),
                  PCT (RT_FINDING_TOOL_SHARE));
  evidence (f, "requests", n);
  evidence (f, "total_s", total);
  evidence (f, "tool_s", tools);
  evidence (f, "tool_pct", PCT (share));
}

/* ---- outlier_steps ---- */

static void
rule_outlier_steps (const RtOverview *o, RtFindings *out)
{
  if (o == NULL || o->steps->len < 2)
    return;
  guint n = o->steps->len;
  double mean = 0, var = 0;
  for (guint i = 0; i < n; i++)
    mean += g_array_index (o->steps, RtOverviewStep, i).rollout_s;
  mean /= n;
  for (guint i = 0; i < n; i++)
    {
      double d = g_array_index (o->steps, RtOverviewStep, i).rollout_s - mean;
      var += d * d;
    }
  double std = sqrt (var / n), limit = mean + RT_FINDING_OUTLIER_STD * std;
  guint count = 0;
  const RtOverviewStep *worst = NULL;
  for (guint i = 0; i < n; i++)
    {
      const RtOverviewStep *r = &g_array_index (o->steps, RtOverviewStep, i);
      if (r->rollout_s > limit)
        {
          count++;
          if (worst == NULL || r->rollout_s > worst->rollout_s)
            worst = r;
        }
    }
  if (count == 0)
    return;
  RtFinding *f = count == 1
    ? finding_add (out, "outlier_steps", "overview", g_strdup ("overview"),
                   "Step %d's rollout is an outlier (%.1f s)", worst->step, worst->rollout_s)
    : finding_add (out, "outlier_steps", "overview", g_strdup ("overview"),
                   "%u steps have outlier rollouts, the worst step %d (%.1f s)", count, worst->step, worst->rollout_s);
  finding_detail (f, "%u of %u steps took longer than the mean + %.0f std (%.2f + %.0f x %.2f = %.2f s); the slowest, "
                  "step %d, took %.2f s.", count, n, RT_FINDING_OUTLIER_STD, mean, RT_FINDING_OUTLIER_STD, std, limit,
                  worst->step, worst->rollout_s);
  evidence (f, "steps", count);
  evidence (f, "rollout_mean_s", mean);
  evidence (f, "rollout_std_s", std);
  evidence (f, "worst_step", worst->step);
  evidence (f, "worst_rollout_s", worst->rollout_s);
}

/* ---- data_quality ---- */

static void
rule_data_quality (const RtTrace *t, GArray *selected, const RtCheck *c, RtFindings *out)
{
  guint64 empty = 0;
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint k = 0; k < st->n_files; k++)
        empty += rt_trace_file (t, st->first_file + k)->events == 0;
    }
  guint64 bad = c ? c->bad_lines : 0;
  guint missing = c ? c->missing->len : 0;
  const RtLastStep *last = &out->last_step;
  gint32 running = out->running_step;
  gboolean running_selected = FALSE, incomplete_selected = FALSE;
  for (guint i = 0; i < selected->len && last->why != NULL; i++)
    if (rt_trace_step (t, g_array_index (selected, guint, i))->step == last->step)
      {
        running_selected = last->state == RT_LAST_STEP_RUNNING;
        incomplete_selected = last->state == RT_LAST_STEP_INCOMPLETE;
      }
  if (bad == 0 && missing == 0 && empty == 0 && !running_selected && !incomplete_selected)
    return;
  /* a missing or empty file of the running step is the step being written, not damage */
  guint missing_elsewhere = 0;
  for (guint i = 0; i < missing; i++)
    missing_elsewhere += g_array_index (c->missing, RtMissingFile, i).step != running;
  gboolean damaged = bad > 0 || missing_elsewhere > 0 || (empty > 0 && !running_selected) || incomplete_selected;
  RtFinding *f = finding_add (out, "data_quality", "quality", NULL, "%s",
                              damaged ? "The trace is damaged: bad lines or missing files"
                                      : "A step is still being written");
  if (!damaged)
    {
      f->severity = RT_SEVERITY_INFO;
      g_free (f->title);
      f->title = g_strdup_printf ("Step %d is still being written", running);
    }
  GString *d = g_string_new (NULL);
  g_string_append_printf (d, "%" G_GUINT64_FORMAT " bad line%s, %u missing and %" G_GUINT64_FORMAT
                          " empty worker file%s in the selected steps", bad, bad == 1 ? "" : "s", missing,
                          empty, empty == 1 ? "" : "s");
  if (running_selected)
    g_string_append_printf (d, "; step %d is still being written (%s, and the files changed in the last %d "
                            "minutes)", running, last->why, RT_RUNNING_WINDOW_S / 60);
  if (incomplete_selected)
    g_string_append_printf (d, "; step %d is incomplete (%s) and nothing was written since %s: the run "
                            "stopped", last->step, last->why, last->last_write);
  g_string_append (d, damaged ? ". The data quality section lists the first bad lines." : ".");
  f->detail = g_string_free (d, FALSE);
  evidence (f, "bad_lines", (double) bad);
  evidence (f, "missing_files", missing);
  evidence (f, "empty_files", (double) empty);
  evidence (f, "running_step", running_selected ? running : NAN);
  evidence (f, "incomplete_step", incomplete_selected ? last->step : NAN);
}

/* ---- rollout_share ---- */

static void
rule_rollout_share (const RtOverview *o, RtFindings *out)
{
  if (o == NULL || o->n_both == 0)
    return;
  guint n = o->n_both;
  double share = o->rollout_share;
  gboolean low = share < RT_FINDING_ROLLOUT_SHARE_LOW, high = share > RT_FINDING_ROLLOUT_SHARE_HIGH;
  if (!low && !high)
    return;
  RtFinding *f = finding_add (out, "rollout_share", "overview", g_strdup ("overview"),
                              low ? "Rollout is only %.0f %% of a step" : "Rollout is %.0f %% of a step", PCT (share));
  finding_detail (f, "Averaged over %u steps, the rollout takes %.1f %% of the interval between step starts "
                  "(%s %.0f %%): %s.", n, PCT (share), low ? "below" : "above",
                  PCT (low ? RT_FINDING_ROLLOUT_SHARE_LOW : RT_FINDING_ROLLOUT_SHARE_HIGH),
                  low ? "training and weight sync dominate the step" : "generation dominates the step");
  evidence (f, "rollout_share", share);
  evidence (f, "steps", n);
}

/* ---- all of them ---- */

static int
compare_findings (gconstpointer a, gconstpointer b)
{
  const RtFinding *x = *(RtFinding *const *) a, *y = *(RtFinding *const *) b;
  if (x->severity != y->severity)
    return x->severity < y->severity ? -1 : 1;
  return rule_rank (x->id) - rule_rank (y->id);
}

RtFindings *
rt_findings_from (const RtTrace *t, const RtStepSet *steps, const RtFindingsInput *in)
{
  RtFindings *out = g_new0 (RtFindings, 1);
  out->findings = g_ptr_array_new_with_free_func ((GDestroyNotify) finding_free);
  out->last_step = rt_view_last_step (t, rt_now_s ());
  out->running_step = out->last_step.state == RT_LAST_STEP_RUNNING ? out->last_step.step : -1;
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  gint32 top_step = -1;
  rule_straggler (t, selected, out);
  rule_trainer_mismatch (in->overview, out);
  rule_barrier_share (in->events, out);
  rule_long_tail (in->cdf, in->timeline, out);
  rule_tail_cause (in->tail, out);
  rule_whatif_saving (in->defer, in->keep, out);
  g_autoptr (RtRequestWalk) own = NULL;
  RtRequestWalk *walk = in->walk;
  if (walk == NULL)
    {
      walk = own = rt_request_walk_new ();
      for (guint i = 0; i < selected->len; i++)
        rt_request_walk_step (walk, t, g_array_index (selected, guint, i));
    }
  rule_truncation (t, selected, walk, out);
  rule_context_growth (in->turns, out);
  rule_tool_time (t, walk->slow, out, &top_step);
  rule_outlier_steps (in->overview, out);
  rule_data_quality (t, selected, in->check, out);
  rule_rollout_share (in->overview, out);
  /* truncation is shown by the slowest requests' chart too, when there is one */
  RtFinding *trunc = (RtFinding *) rt_findings_find (out, "truncation");
  if (trunc != NULL && top_step >= 0)
    trunc->plot = g_strdup_printf ("requests_top_step_%d", top_step);
  g_ptr_array_sort (out->findings, compare_findings);
  return out;
}

RtFindings *
rt_findings_analyse (const RtTrace *t, const RtStepSet *steps, const RtTrainLog *train)
{
  g_autoptr (RtOverview) overview = rt_overview_analyse (t, steps, train);
  g_autoptr (RtCdf) cdf = rt_cdf_analyse (t, steps, NULL);
  g_autoptr (RtEvents) events = rt_events_analyse (t, steps);
  g_autoptr (RtTurns) turns = rt_turns_analyse (t, steps);
  g_autoptr (RtTimeline) timeline = rt_timeline_analyse (t, steps, -1);
  g_autoptr (RtCheck) check = rt_check_analyse (t, steps);
  g_autoptr (RtTail) tail = rt_tail_analyse (t, steps, NULL);
  RtWhatifSetting settings[2];
  rt_finding_whatif_settings (settings);
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  g_autoptr (GPtrArray) whatif = rt_whatif_analyse (t, selected, settings, 2);
  RtFindingsInput in = { overview, cdf, events, turns, timeline, check, tail, g_ptr_array_index (whatif, 0),
                         g_ptr_array_index (whatif, 1), NULL };
  return rt_findings_from (t, steps, &in);
}

void
rt_findings_free (RtFindings *f)
{
  if (f == NULL)
    return;
  g_ptr_array_unref (f->findings);
  g_free (f);
}

const RtFinding *
rt_findings_find (const RtFindings *f, const char *id)
{
  for (guint i = 0; i < f->findings->len; i++)
    {
      const RtFinding *x = g_ptr_array_index (f->findings, i);
      if (strcmp (x->id, id) == 0)
        return x;
    }
  return NULL;
}

static const RtEvidence *
evidence_find (const RtFinding *finding, const char *name)
{
  for (guint i = 0; i < finding->evidence->len; i++)
    {
      const RtEvidence *e = &g_array_index (finding->evidence, RtEvidence, i);
      if (strcmp (e->name, name) == 0)
        return e;
    }
  return NULL;
}

double
rt_finding_evidence (const RtFinding *finding, const char *name)
{
  const RtEvidence *e = evidence_find (finding, name);
  return e != NULL ? e->value : NAN;
}

const char *
rt_finding_evidence_text (const RtFinding *finding, const char *name)
{
  const RtEvidence *e = evidence_find (finding, name);
  return e != NULL ? e->text : NULL;
}

void
rt_findings_write_json (const RtFindings *f, RtJsonWriter *w)
{
  rt_jw_begin_array (w);
  for (guint i = 0; i < f->findings->len; i++)
    {
      const RtFinding *x = g_ptr_array_index (f->findings, i);
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "id", x->id);
      rt_jw_member_string (w, "severity", rt_severity_name (x->severity));
      rt_jw_member_string (w, "title", x->title);
      rt_jw_member_string (w, "detail", x->detail);
      rt_jw_key (w, "evidence");
      rt_jw_begin_object (w);
      for (guint k = 0; k < x->evidence->len; k++)
        {
          const RtEvidence *e = &g_array_index (x->evidence, RtEvidence, k);
          /* counts, workers and steps read as whole numbers */
          if (e->text != NULL)
            rt_jw_member_string (w, e->name, e->text);
          else if (isfinite (e->value) && e->value == floor (e->value) && fabs (e->value) < 9007199254740992.0)
            rt_jw_member_int (w, e->name, (gint64) e->value);
          else
            rt_jw_member_number (w, e->name, e->value);
        }
      rt_jw_end_object (w);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
}
