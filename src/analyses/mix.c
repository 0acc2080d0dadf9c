/* SPDX-License-Identifier: Apache-2.0 */
/* mix.c: the difference of two experiments' mean request durations split over length bins.
 * With p the share of a side's binned requests in a bin and d their mean duration, the mean of
 * the binned is sum p d on each side, so b - a = sum over the bins of
 *   mix (pb - pa) da + speed pb (db - da)        where A has requests in the bin,
 *   unmatched pb db                              where it has none,
 * which holds whatever the bins: a longer mix shows in the first term, slower requests of the
 * same length in the second, lengths A never ran in the third. */
#include "rolltrace/analyses/mix.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#define KS_MIN 20   /* requests on each side of a bin for its KS test */

GArray *
rt_mix_default_edges (RtMixBy by)
{
  if (by == RT_MIX_TURNS)
    return NULL;
  GArray *edges = g_array_new (FALSE, FALSE, sizeof (double));
  double e = 0;
  g_array_append_val (edges, e);
  for (e = 256; e <= 8192; e *= 2)
    g_array_append_val (edges, e);
  return edges;
}

GArray *
rt_mix_parse_edges (const char *text, GError **error)
{
  g_autoptr (GArray) edges = g_array_new (FALSE, FALSE, sizeof (double));
  g_auto (GStrv) parts = g_strsplit (text, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *p = g_strstrip (parts[i]);
      char *end;
      errno = 0;
      double v = g_ascii_strtod (p, &end);
      if (*p == '\0' || *end != '\0' || errno != 0 || !isfinite (v))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--bins %s: '%s' is not a number (give ascending edges: 0,256,1024)", text, p);
          return NULL;
        }
      if (edges->len > 0 && !(v > g_array_index (edges, double, edges->len - 1)))
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--bins %s: the edges must ascend (give 0,256,1024)", text);
          return NULL;
        }
      g_array_append_val (edges, v);
    }
  return g_steal_pointer (&edges);
}

/* A request of the sample: its duration, its length (turns or tokens; -1 unknown), its tokens. */
typedef struct {
  double duration;
  gint64 length;
  gint32 tokens;
} Sample;

static GArray *
side_samples (const RtTrace *t, const RtStepSet *steps, RtMixBy by)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Sample));
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint f = st->first_file; f < st->first_file + st->n_files; f++)
        {
          const RtFile *file = rt_trace_file (t, f);
          for (guint r = 0; r < file->n_requests; r++)
            {
              const RtRequest *q = rt_trace_request (t, file->first_request + r);
              if (!q->complete || isnan (q->total_s))   /* rt-compare's duration sample */
                continue;
              Sample s = { q->total_s, by == RT_MIX_TURNS ? q->turns : q->response_tokens, q->response_tokens };
              g_array_append_val (out, s);
            }
        }
    }
  return out;
}

/* The bin of a length: with edges, the index j of [e_j, e_j+1) (the last open), -1 below the
 * first or unknown; per value, the value itself (-1 unknown). */
static gint64
bin_of (const GArray *edges, gint64 length)
{
  if (length < 0)
    return -1;
  if (edges == NULL)
    return length;
  const double *e = (const double *) edges->data;
  double v = (double) length;
  if (v < e[0])
    return -1;
  guint lo = 0, hi = edges->len;   /* the last edge <= v */
  while (hi - lo > 1)
    {
      guint mid = (lo + hi) / 2;
      if (e[mid] <= v)
        lo = mid;
      else
        hi = mid;
    }
  return lo;
}

/* What a side has in one bin, while the bins are gathered. */
typedef struct {
  guint n[2];
  double sum_s[2];
  double token_s[2], tokens[2];   /* of the requests with tokens */
  GArray *durations[2];
} Gather;

static void
gather_free (gpointer data)
{
  Gather *g = data;
  for (int s = 0; s < 2; s++)
    if (g->durations[s] != NULL)
      g_array_unref (g->durations[s]);
  g_free (g);
}

static int
compare_keys (gconstpointer a, gconstpointer b)
{
  gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;
  return x < y ? -1 : x > y;
}

RtMix *
rt_mix_analyse (const RtTrace *a, const RtStepSet *a_steps, const RtTrace *b, const RtStepSet *b_steps,
                RtMixBy by, const GArray *edges)
{
  RtMix *m = g_new0 (RtMix, 1);
  m->by = by;
  if (edges != NULL)
    {
      m->edges = g_array_sized_new (FALSE, FALSE, sizeof (double), edges->len);
      g_array_append_vals (m->edges, edges->data, edges->len);
    }
  else
    m->edges = rt_mix_default_edges (by);
  m->bins = g_array_new (FALSE, TRUE, sizeof (RtMixBin));

  g_autoptr (GHashTable) bins = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, gather_free);
  double binned_sum[2] = { 0, 0 };
  for (int s = 0; s < 2; s++)
    {
      g_autoptr (GArray) samples = side_samples (s == 0 ? a : b, s == 0 ? a_steps : b_steps, by);
      RtMixSide *side = &m->side[s];
      side->requests = samples->len;
      double tokens = 0, token_s = 0;
      gboolean any_tokens = FALSE;
      for (guint i = 0; i < samples->len; i++)
        {
          const Sample *q = &g_array_index (samples, Sample, i);
          if (q->tokens >= 0)
            {
              tokens += q->tokens;
              token_s += q->duration;
              any_tokens = TRUE;
            }
          gint64 key = bin_of (m->edges, q->length);
          if (key < 0)
            continue;
          Gather *g = g_hash_table_lookup (bins, &key);
          if (g == NULL)
            {
              g = g_new0 (Gather, 1);
              g_hash_table_insert (bins, g_memdup2 (&key, sizeof key), g);
            }
          if (g->durations[s] == NULL)
            g->durations[s] = g_array_new (FALSE, FALSE, sizeof (double));
          g->n[s]++;
          g->sum_s[s] += q->duration;
          g_array_append_val (g->durations[s], q->duration);
          if (q->tokens >= 0)
            {
              g->tokens[s] += q->tokens;
              g->token_s[s] += q->duration;
            }
          side->binned++;
          binned_sum[s] += q->duration;
        }
      side->mean_s = side->binned > 0 ? binned_sum[s] / side->binned : NAN;
      side->tokens = any_tokens ? tokens : NAN;
      side->s_per_token = tokens > 0 ? token_s / tokens : NAN;
    }

  /* the bins held by either side, ascending */
  g_autoptr (GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  GHashTableIter it;
  gpointer key, value;
  g_hash_table_iter_init (&it, bins);
  while (g_hash_table_iter_next (&it, &key, &value))
    g_array_append_val (keys, *(gint64 *) key);
  g_array_sort (keys, compare_keys);

  gboolean totals = m->side[0].binned > 0 && m->side[1].binned > 0;
  double mix = 0, speed = 0, unmatched = 0;
  for (guint i = 0; i < keys->len; i++)
    {
      gint64 k = g_array_index (keys, gint64, i);
      Gather *g = g_hash_table_lookup (bins, &k);
      RtMixBin bin = { .ks_statistic = NAN, .ks_pvalue = NAN };
      if (m->edges == NULL)
        {
          bin.lo = (double) k;
          bin.hi = (double) k + 1;
        }
      else
        {
          bin.lo = g_array_index (m->edges, double, k);
          bin.hi = (guint) k + 1 < m->edges->len ? g_array_index (m->edges, double, k + 1) : INFINITY;
        }
      for (int s = 0; s < 2; s++)
        {
          bin.requests[s] = g->n[s];
          bin.share[s] = m->side[s].binned > 0 ? (double) g->n[s] / m->side[s].binned : NAN;
          bin.mean_s[s] = g->n[s] > 0 ? g->sum_s[s] / g->n[s] : NAN;
          bin.s_per_token[s] = g->tokens[s] > 0 ? g->token_s[s] / g->tokens[s] : NAN;
        }
      double pa = bin.share[0], pb = bin.share[1], da = bin.mean_s[0], db = bin.mean_s[1];
      guint na = g->n[0], nb = g->n[1];
      if (totals)
        {
          bin.mix_s = na > 0 ? (pb - pa) * da : 0;
          bin.speed_s = na > 0 && nb > 0 ? pb * (db - da) : 0;
          bin.unmatched_s = na == 0 ? pb * db : 0;
        }
      else
        bin.mix_s = bin.speed_s = bin.unmatched_s = NAN;
      mix += bin.mix_s;
      speed += bin.speed_s;
      unmatched += bin.unmatched_s;
      if (na >= KS_MIN && nb >= KS_MIN)
        {
          rt_sort_doubles ((double *) g->durations[0]->data, na);
          rt_sort_doubles ((double *) g->durations[1]->data, nb);
          bin.ks_statistic = rt_ks_statistic ((const double *) g->durations[0]->data, na,
                                              (const double *) g->durations[1]->data, nb);
          bin.ks_pvalue = rt_ks_pvalue (bin.ks_statistic, na, nb);
        }
      g_array_append_val (m->bins, bin);
    }
  if (totals)
    {
      m->delta_s = m->side[1].mean_s - m->side[0].mean_s;
      m->mix_s = mix;
      m->speed_s = speed;
      m->unmatched_s = unmatched;
    }
  else
    m->delta_s = m->mix_s = m->speed_s = m->unmatched_s = NAN;
  return m;
}

void
rt_mix_free (RtMix *m)
{
  if (m == NULL)
    return;
  if (m->edges != NULL)
    g_array_unref (m->edges);
  g_array_unref (m->bins);
  g_free (m);
}

static void
pair (RtJsonWriter *w, const char *key, double a, double b)
{
  rt_jw_key (w, key);
  rt_jw_begin_array (w);
  rt_jw_number (w, a);
  rt_jw_number (w, b);
  rt_jw_end_array (w);
}

void
rt_mix_write_json (const RtMix *m, const char *const label[2], const char *const path[2], RtJsonWriter *w)
{
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "by", m->by == RT_MIX_TURNS ? "turns" : "tokens");
  rt_jw_key (w, "edges");
  if (m->edges == NULL)
    rt_jw_null (w);
  else
    {
      rt_jw_begin_array (w);
      for (guint i = 0; i < m->edges->len; i++)
        rt_jw_number (w, g_array_index (m->edges, double, i));
      rt_jw_end_array (w);
    }
  for (int s = 0; s < 2; s++)
    {
      const RtMixSide *side = &m->side[s];
      rt_jw_key (w, s == 0 ? "a" : "b");
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "label", label[s]);
      rt_jw_member_string (w, "path", path[s]);
      rt_jw_member_int (w, "requests", side->requests);
      rt_jw_member_int (w, "binned", side->binned);
      rt_jw_member_number (w, "mean_s", side->mean_s);
      rt_jw_member_number (w, "tokens", side->tokens);
      rt_jw_member_number (w, "s_per_token", side->s_per_token);
      rt_jw_end_object (w);
    }
  rt_jw_member_number (w, "delta_s", m->delta_s);
  rt_jw_member_number (w, "mix_s", m->mix_s);
  rt_jw_member_number (w, "speed_s", m->speed_s);
  rt_jw_member_number (w, "unmatched_s", m->unmatched_s);
  rt_jw_key (w, "bins");
  rt_jw_begin_array (w);
  for (guint i = 0; i < m->bins->len; i++)
    {
      const RtMixBin *bin = &g_array_index (m->bins, RtMixBin, i);
      rt_jw_begin_object (w);
      rt_jw_member_number (w, "lo", bin->lo);
      rt_jw_member_number (w, "hi", isinf (bin->hi) ? NAN : bin->hi);
      rt_jw_key (w, "requests");
      rt_jw_begin_array (w);
      rt_jw_int (w, bin->requests[0]);
      rt_jw_int (w, bin->requests[1]);
      rt_jw_end_array (w);
      pair (w, "share", bin->share[0], bin->share[1]);
      pair (w, "mean_s", bin->mean_s[0], bin->mean_s[1]);
      pair (w, "s_per_token", bin->s_per_token[0], bin->s_per_token[1]);
      rt_jw_member_number (w, "mix_s", bin->mix_s);
      rt_jw_member_number (w, "speed_s", bin->speed_s);
      rt_jw_member_number (w, "unmatched_s", bin->unmatched_s);
      rt_ks_write_json (w, "ks", bin->ks_statistic, bin->ks_pvalue);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);
}

const RtTableSpec rt_mix_bins_spec = {
  "compare_mix", "one per bin held by either side, ascending (rt-compare --mix)",
  (const RtColumn[]) {
    { RT_COL ("lo", RT_COLUMN_NUMBER, NULL, "the bin's lower edge (turns or tokens)") },
    { RT_COL ("hi", RT_COLUMN_NUMBER, NULL, "its upper edge, excluded; empty: none") },
    { RT_COL ("requests_a", RT_COLUMN_INT, NULL, "the reference's requests in it") },
    { RT_COL ("requests_b", RT_COLUMN_INT, NULL, "the other's") },
    { RT_COL ("share_a", RT_COLUMN_NUMBER, NULL, "their share of the reference's binned requests") },
    { RT_COL ("share_b", RT_COLUMN_NUMBER, NULL, "likewise of the other's") },
    { RT_COL ("mean_a", RT_COLUMN_NUMBER, "s", "their mean duration") },
    { RT_COL ("mean_b", RT_COLUMN_NUMBER, "s", "likewise") },
    { RT_COL ("mix", RT_COLUMN_NUMBER, "s", "(share_b - share_a) mean_a where the reference has some") },
    { RT_COL ("speed", RT_COLUMN_NUMBER, "s", "share_b (mean_b - mean_a) where both have some") },
    { RT_COL ("unmatched", RT_COLUMN_NUMBER, "s", "share_b mean_b where the reference has none") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_mix_bins_table (const RtMix *m)
{
  RtTable *table = rt_table_new (&rt_mix_bins_spec);
  for (guint i = 0; i < m->bins->len; i++)
    {
      const RtMixBin *bin = &g_array_index (m->bins, RtMixBin, i);
      rt_table_number (table, bin->lo);
      rt_table_number (table, isinf (bin->hi) ? NAN : bin->hi);
      rt_table_int (table, bin->requests[0]);
      rt_table_int (table, bin->requests[1]);
      rt_table_number (table, bin->share[0]);
      rt_table_number (table, bin->share[1]);
      rt_table_number (table, bin->mean_s[0]);
      rt_table_number (table, bin->mean_s[1]);
      rt_table_number (table, bin->mix_s);
      rt_table_number (table, bin->speed_s);
      rt_table_number (table, bin->unmatched_s);
    }
  return table;
}

static const RtTableSpec *const mix_tables[] = { &rt_mix_bins_spec, NULL };

const RtAnalysisSpec rt_mix_analysis = {
  .name = "mix",
  .reads = RT_READS_REQUESTS,
  .steps = RT_STEPS_SELECTED,
  .tables = mix_tables,
  .plots = "compare_mix_K",
};
