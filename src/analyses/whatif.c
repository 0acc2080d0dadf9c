/* SPDX-License-Identifier: Apache-2.0 */
/* whatif.c: a policy replayed on each recorded step. Every request keeps its end or is cut at a
 * time c; the step would then have ended at the latest of those, and the rollout saved what
 * that is short of the recorded one. Which requests are cut is the price: a KS test of their
 * turns and tokens against the kept ones says whether cutting biased the batch. */
#include "rolltrace/analyses/whatif.h"
#include "rolltrace/analyses/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *
rt_whatif_policy_name (RtWhatifPolicy p)
{
  static const char *const names[RT_N_WHATIF_POLICIES] = { "keep", "max_turns", "timeout", "defer" };
  return p < RT_N_WHATIF_POLICIES ? names[p] : NULL;
}

gboolean
rt_whatif_parse_fraction (const char *text, guint64 *num, guint64 *den)
{
  /* digits, at most one '.', nothing else: read as an integer over a power of ten */
  guint64 n = 0, d = 1;
  gboolean point = FALSE, digit = FALSE;
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p == '.' && !point)
        point = TRUE;
      else if (g_ascii_isdigit (*p) && n < G_MAXUINT64 / 100 && d < G_MAXUINT64 / 100)
        {
          n = n * 10 + (guint64) (*p - '0');
          if (point)
            d *= 10;
          digit = TRUE;
        }
      else
        return FALSE;
    }
  if (!digit || n == 0 || n > d)
    return FALSE;   /* 0 < F <= 1 */
  *num = n;
  *den = d;
  return TRUE;
}

/* KS of samples a (na values) and b into out {statistic, pvalue}, their values ranks below
 * n_values; NAN when either is empty. */
static void
ks_of (const gint32 *a, guint na, const gint32 *b, guint nb, guint32 n_values, double out[2])
{
  out[0] = out[1] = NAN;
  if (na == 0 || nb == 0)
    return;
  out[0] = rt_ks_statistic_ranks (a, na, b, nb, n_values);
  out[1] = rt_ks_pvalue (out[0], na, nb);
}

/* The known turns and tokens of the kept and the cut requests, for the KS tests. */
enum { TURNS_KEPT, TURNS_CUT, TOKENS_KEPT, TOKENS_CUT, N_SAMPLES };

/* A step's: room for all its requests in each, made once for the step, filled again for each
 * policy. */
typedef struct {
  gint32 *v[N_SAMPLES];
  guint n[N_SAMPLES];
} StepSamples;

/* Every predicted step's, tallied by value. */
typedef struct {
  RtKsTally v[N_SAMPLES];
} Samples;

static void
samples_init (Samples *s)
{
  for (int k = 0; k < N_SAMPLES; k++)
    rt_ks_tally_init (&s->v[k]);
}

static void
samples_clear (Samples *s)
{
  for (int k = 0; k < N_SAMPLES; k++)
    rt_ks_tally_clear (&s->v[k]);
}

/* The distinct known values of one figure (turns, tokens) of a step's requests, ascending,
 * and each request's rank among them (-1: unknown). A KS statistic depends on the order of
 * the values alone: a step's tests count ranks, fewer than its requests, made once for all
 * the policies, whatever the values' range. */
typedef struct {
  gint32 *distinct;
  guint32 n_distinct;
  gint32 *rank;               /* by request */
} Ranks;

/* A request's tokens or turns (-1: unknown). */
static inline gint32
figure_of (const RtLateRequest *q, gboolean tokens)
{
  return tokens ? q->tokens : q->turns;
}

static void
ranks_make (Ranks *out, const RtLateRequest *q, guint n, gboolean tokens)
{
  gint32 lo = G_MAXINT32, hi = -1;
  guint m = 0;
  for (guint i = 0; i < n; i++)
    {
      gint32 v = figure_of (&q[i], tokens);
      if (v < 0)
        continue;
      lo = MIN (lo, v), hi = MAX (hi, v);
      m++;
    }
  out->distinct = g_new (gint32, MAX (m, 1u));
  out->rank = g_new (gint32, MAX (n, 1u));
  guint64 range = m > 0 ? (guint64) hi - (guint64) lo + 1 : 0;
  if (range <= 4 * (guint64) n + 64)
    {
      /* by value: which are present, their ranks in one walk, each request's looked up */
      g_autofree gint32 *at = g_new0 (gint32, MAX (range, 1u));
      for (guint i = 0; i < n; i++)
        {
          gint32 v = figure_of (&q[i], tokens);
          if (v >= 0)
            at[v - lo] = 1;
        }
      guint d = 0;
      for (guint64 k = 0; k < range; k++)
        if (at[k])
          {
            out->distinct[d] = (gint32) (lo + (gint64) k);
            at[k] = (gint32) d++;
          }
      out->n_distinct = d;
      for (guint i = 0; i < n; i++)
        {
          gint32 v = figure_of (&q[i], tokens);
          out->rank[i] = v >= 0 ? at[v - lo] : -1;
        }
      return;
    }
  /* spread thin: sorted, and each found there */
  g_autofree double *sorted = g_new (double, MAX (m, 1u));
  guint d = 0;
  m = 0;
  for (guint i = 0; i < n; i++)
    if (figure_of (&q[i], tokens) >= 0)
      sorted[m++] = figure_of (&q[i], tokens);
  rt_sort_doubles (sorted, m);
  for (guint i = 0; i < m; i++)
    if (d == 0 || (gint32) sorted[i] != out->distinct[d - 1])
      out->distinct[d++] = (gint32) sorted[i];
  out->n_distinct = d;
  for (guint i = 0; i < n; i++)
    {
      gint32 v = figure_of (&q[i], tokens);
      guint a = 0, b = d;   /* the first distinct value >= v: v itself */
      while (v >= 0 && a < b)
        {
          guint mid = a + (b - a) / 2;
          if (out->distinct[mid] < v)
            a = mid + 1;
          else
            b = mid;
        }
      out->rank[i] = v >= 0 ? (gint32) a : -1;
    }
}

static void
ranks_clear (Ranks *r)
{
  g_clear_pointer (&r->distinct, g_free);
  g_clear_pointer (&r->rank, g_free);
}

/* A step's requests as every policy reads them: built once for all the policies (reading its
 * rows is the costly part), with their ends, the earliest start and the latest end. */
typedef struct {
  const RtLateRequests *r;
  double *ends;               /* in any order (rt_ends_at reorders them) */
  double t0, t100;
  Ranks turns, tokens;
  StepSamples samples;        /* the ranks of each policy's kept and cut requests (scratch) */
  guint32 *times;             /* by rank (scratch) */
} StepRequests;

static inline void
step_samples_add (StepSamples *s, const StepRequests *sr, guint i, gboolean cut)
{
  if (sr->turns.rank[i] >= 0)
    s->v[TURNS_KEPT + cut][s->n[TURNS_KEPT + cut]++] = sr->turns.rank[i];
  if (sr->tokens.rank[i] >= 0)
    s->v[TOKENS_KEPT + cut][s->n[TOKENS_KEPT + cut]++] = sr->tokens.rank[i];
}

/* One step under the policy; the kept and cut samples of a predicted step go to `pooled`. */
static void
replay_step (StepRequests *sr, const RtWhatifSetting *set, RtWhatifStep *out, Samples *pooled)
{
  const RtLateRequest *q = (const RtLateRequest *) sr->r->requests->data;
  guint n = sr->r->requests->len;
  double *ends = sr->ends;
  double t0 = sr->t0;
  *out = (RtWhatifStep) { .step_index = sr->r->step_index, .step = sr->r->step, .requests = n, .predicted_s = NAN,
                          .saved_s = NAN, .saved_share = NAN,
                          .ks_turns = { NAN, NAN }, .ks_tokens = { NAN, NAN } };
  if (n == 0)
    return;
  out->recorded_s = sr->t100 - t0;

  /* the cut point of keep and defer: e_k */
  double p = NAN;
  if (set->policy == RT_WHATIF_KEEP)
    p = rt_ends_at (ends, n, set->num, set->den);
  else if (set->policy == RT_WHATIF_DEFER)
    {
      /* K as given, or the share num / den of the step's requests rounded up */
      guint64 k = set->den > 0 ? (set->num * n + set->den - 1) / set->den : (guint64) set->value;
      if (k >= n)
        return;   /* every request deferred: no prediction */
      p = rt_select_double (ends, n, (guint) (n - k - 1));
    }

  StepSamples *s = &sr->samples;
  memset (s->n, 0, sizeof s->n);
  double latest = -INFINITY;
  guint cut = 0, unknown = 0;
  for (guint i = 0; i < n; i++)
    {
      double end = q[i].end_s, c = end;
      gboolean is_cut = FALSE;
      switch (set->policy)
        {
        case RT_WHATIF_KEEP:
        case RT_WHATIF_DEFER:
          is_cut = end > p;
          c = p;
          break;
        case RT_WHATIF_TIMEOUT:
          is_cut = q[i].duration_s > set->value;
          c = q[i].start_s + set->value;
          break;
        case RT_WHATIF_MAX_TURNS:
          if (q[i].turns < 0)
            {
              unknown++;
              continue;
            }
          is_cut = q[i].turns > (gint32) set->value;
          if (is_cut && isnan (q[i].cut_turn_end_s))
            {
              unknown++;   /* cut, but no turn_end of turn K - 1 says when */
              continue;
            }
          c = MIN (end, q[i].cut_turn_end_s);
          break;
        case RT_N_WHATIF_POLICIES:
          g_assert_not_reached ();
        }
      latest = MAX (latest, is_cut ? c : end);
      cut += is_cut;
      step_samples_add (s, sr, i, is_cut);
    }
  out->unknown = unknown;
  if (unknown > 0)
    return;   /* a request whose fate is unknown: no prediction */
  out->predicted = TRUE;
  out->predicted_s = latest - t0;
  out->saved_s = out->recorded_s - out->predicted_s;
  out->saved_share = out->recorded_s > 0 ? out->saved_s / out->recorded_s : NAN;
  out->cut = cut;
  for (int k = 0; k < N_SAMPLES; k++)
    {
      /* the values themselves, each once with its count: the ranks are the step's own */
      const Ranks *ranks = k < TOKENS_KEPT ? &sr->turns : &sr->tokens;
      memset (sr->times, 0, ranks->n_distinct * sizeof *sr->times);
      for (guint j = 0; j < s->n[k]; j++)
        sr->times[s->v[k][j]]++;
      for (guint32 d = 0; d < ranks->n_distinct; d++)
        if (sr->times[d] > 0)
          rt_ks_tally_add (&pooled->v[k], ranks->distinct[d], sr->times[d]);
    }
  ks_of (s->v[TURNS_KEPT], s->n[TURNS_KEPT], s->v[TURNS_CUT], s->n[TURNS_CUT], sr->turns.n_distinct, out->ks_turns);
  ks_of (s->v[TOKENS_KEPT], s->n[TOKENS_KEPT], s->v[TOKENS_CUT], s->n[TOKENS_CUT], sr->tokens.n_distinct,
         out->ks_tokens);
}

/* The totals of a policy over the steps it predicts, and the KS of their pooled requests. */
static void
whatif_finish (RtWhatif *w, double recorded, double predicted, Samples *pooled)
{
  if (w->steps_predicted > 0)
    {
      w->recorded_s = recorded;
      w->predicted_s = predicted;
      w->saved_s = recorded - predicted;
      w->saved_share = recorded > 0 ? w->saved_s / recorded : NAN;
    }
  else
    w->recorded_s = w->predicted_s = w->saved_s = w->saved_share = NAN;
  const RtKsTally *v = pooled->v;
  w->ks_turns[0] = rt_ks_statistic_tallies (&v[TURNS_KEPT], &v[TURNS_CUT]);
  w->ks_turns[1] = rt_ks_pvalue (w->ks_turns[0], (guint) v[TURNS_KEPT].n, (guint) v[TURNS_CUT].n);
  w->ks_tokens[0] = rt_ks_statistic_tallies (&v[TOKENS_KEPT], &v[TOKENS_CUT]);
  w->ks_tokens[1] = rt_ks_pvalue (w->ks_tokens[0], (guint) v[TOKENS_KEPT].n, (guint) v[TOKENS_CUT].n);
}

struct _RtWhatifReplay {
  GPtrArray *out;             /* RtWhatif, one per setting */
  RtWhatifSetting *settings;  /* a copy of the caller's, `n` of them */
  guint n;
  Samples *pooled;
  double *recorded, *predicted;
  gint32 turn;                /* max_turns K reads the end of each request's turn K - 1; else -1 */
};

RtWhatifReplay *
rt_whatif_replay_new (const RtWhatifSetting *settings, guint n)
{
  RtWhatifReplay *rp = g_new0 (RtWhatifReplay, 1);
  rp->out = g_ptr_array_new_with_free_func ((GDestroyNotify) rt_whatif_free);
  rp->settings = g_memdup2 (settings, sizeof *settings * MAX (n, 1u));
  rp->n = n;
  rp->pooled = g_new (Samples, MAX (n, 1u));
  rp->recorded = g_new0 (double, MAX (n, 1u));
  rp->predicted = g_new0 (double, MAX (n, 1u));
  rp->turn = -1;
  for (guint p = 0; p < n; p++)
    {
      RtWhatif *w = g_new0 (RtWhatif, 1);
      w->setting = settings[p];
      w->steps = g_array_new (FALSE, TRUE, sizeof (RtWhatifStep));
      g_ptr_array_add (rp->out, w);
      samples_init (&rp->pooled[p]);
      if (settings[p].policy == RT_WHATIF_MAX_TURNS)
        rp->turn = (gint32) settings[p].value - 1;
    }
  return rp;
}

gint32
rt_whatif_replay_turn (const RtWhatifReplay *rp)
{
  return rp->turn;
}

static void
tally_copy (RtKsTally *to, const RtKsTally *from)
{
  to->count = g_array_copy (from->count);
  to->large = g_array_copy (from->large);
  to->n = from->n;
}

RtWhatifReplay *
rt_whatif_replay_copy (const RtWhatifReplay *rp)
{
  RtWhatifReplay *c = rt_whatif_replay_new (rp->settings, rp->n);
  for (guint p = 0; p < rp->n; p++)
    {
      RtWhatif *to = g_ptr_array_index (c->out, p);
      const RtWhatif *from = g_ptr_array_index (rp->out, p);
      GArray *steps = to->steps;
      *to = *from;
      to->steps = steps;
      g_array_append_vals (steps, from->steps->data, from->steps->len);
      samples_clear (&c->pooled[p]);
      for (int k = 0; k < N_SAMPLES; k++)
        tally_copy (&c->pooled[p].v[k], &rp->pooled[p].v[k]);
      c->recorded[p] = rp->recorded[p];
      c->predicted[p] = rp->predicted[p];
    }
  return c;
}


void
rt_whatif_replay_step (RtWhatifReplay *rp, const RtLateRequests *r)
{
  guint nr = r->requests->len;
  if (nr == 0)
    return;   /* a step without a request is left out */
  const RtLateRequest *q = (const RtLateRequest *) r->requests->data;
  StepRequests sr = { .r = r, .ends = rt_late_requests_ends (r), .t0 = q[0].start_s, .t100 = q[0].end_s };
  for (guint k = 1; k < nr; k++)
    sr.t0 = MIN (sr.t0, q[k].start_s), sr.t100 = MAX (sr.t100, q[k].end_s);
  ranks_make (&sr.turns, q, nr, FALSE);
  ranks_make (&sr.tokens, q, nr, TRUE);
  g_autofree gint32 *room = g_new (gint32, (gsize) N_SAMPLES * nr);
  g_autofree guint32 *times = g_new (guint32, nr);
  sr.times = times;
  for (int k = 0; k < N_SAMPLES; k++)
    sr.samples.v[k] = room + (gsize) k * nr;
  for (guint p = 0; p < rp->n; p++)
    {
      RtWhatif *w = g_ptr_array_index (rp->out, p);
      RtWhatifStep st;
      replay_step (&sr, &rp->settings[p], &st, &rp->pooled[p]);
      g_array_append_val (w->steps, st);
      if (!st.predicted)
        {
          w->steps_unknown++;
          continue;
        }
      w->steps_predicted++;
      w->requests += st.requests;
      w->cut += st.cut;
      rp->recorded[p] += st.recorded_s;
      rp->predicted[p] += st.predicted_s;
    }
  g_free (sr.ends);
  ranks_clear (&sr.turns);
  ranks_clear (&sr.tokens);
}

/* Frees the replay but its results, which it returns. */
static GPtrArray *
replay_free_but_out (RtWhatifReplay *rp)
{
  for (guint p = 0; p < rp->n; p++)
    samples_clear (&rp->pooled[p]);
  GPtrArray *out = rp->out;
  g_free (rp->settings);
  g_free (rp->pooled);
  g_free (rp->recorded);
  g_free (rp->predicted);
  g_free (rp);
  return out;
}

GPtrArray *
rt_whatif_replay_finish (RtWhatifReplay *rp)
{
  for (guint p = 0; p < rp->n; p++)
    whatif_finish (g_ptr_array_index (rp->out, p), rp->recorded[p], rp->predicted[p], &rp->pooled[p]);
  return replay_free_but_out (rp);
}

void
rt_whatif_replay_free (RtWhatifReplay *rp)
{
  if (rp != NULL)
    g_ptr_array_unref (replay_free_but_out (rp));
}

GPtrArray *
rt_whatif_analyse (const RtTrace *t, const GArray *step_indices, const RtWhatifSetting *settings, guint n)
{
  RtWhatifReplay *rp = rt_whatif_replay_new (settings, n);
  for (guint i = 0; i < step_indices->len; i++)
    {
      g_autoptr (RtLateRequests) r = rt_late_requests_new (t, g_array_index (step_indices, guint, i),
                                                           rt_whatif_replay_turn (rp));
      rt_whatif_replay_step (rp, r);
    }
  return rt_whatif_replay_finish (rp);
}

void
rt_whatif_free (RtWhatif *w)
{
  if (w == NULL)
    return;
  g_array_unref (w->steps);
  g_free (w);
}

const RtTableSpec rt_whatif_steps_spec = {
  "whatif_POLICY", "one per selected step with a request, for one policy",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "its requests") },
    { RT_COL ("recorded_rollout_s", RT_COLUMN_NUMBER, "s", "t100 - t0") },
    { RT_COL ("predicted_rollout_s", RT_COLUMN_NUMBER, "s", "the latest end once cut - t0; empty: no prediction") },
    { RT_COL ("saved_s", RT_COLUMN_NUMBER, "s", "recorded - predicted") },
    { RT_COL ("saved_share", RT_COLUMN_NUMBER, NULL, "saved / recorded") },
    { RT_COL ("requests_cut", RT_COLUMN_INT, NULL, "requests cut; empty: no prediction") },
    { RT_COL ("requests_unknown", RT_COLUMN_INT, NULL, "max_turns: requests whose turns, or cut, are unknown") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_whatif_steps_table (const RtWhatif *w)
{
  RtTable *table = rt_table_new (&rt_whatif_steps_spec);
  for (guint i = 0; i < w->steps->len; i++)
    {
      const RtWhatifStep *st = &g_array_index (w->steps, RtWhatifStep, i);
      rt_table_int (table, st->step);
      rt_table_int (table, st->requests);
      rt_table_number (table, st->recorded_s);
      rt_table_number (table, st->predicted_s);
      rt_table_number (table, st->saved_s);
      rt_table_number (table, st->saved_share);
      if (st->predicted)
        rt_table_int (table, st->cut);
      else
        rt_table_null (table);
      rt_table_int (table, st->unknown);
    }
  return table;
}

static const RtTableSpec *const whatif_tables[] = { &rt_whatif_steps_spec, NULL };

const RtAnalysisSpec rt_whatif_analysis = {
  .name = "whatif",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_TURN_SUMS | RT_READS_SOME_IDS,
  .steps = RT_STEPS_SELECTED,
  .tables = whatif_tables,
  .plots = "whatif",
};
