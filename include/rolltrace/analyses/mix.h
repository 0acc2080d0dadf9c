/* SPDX-License-Identifier: Apache-2.0 */
/* analyses/mix.h: mix: is B slower than A because each request is slower, or because B ran a longer
 * mix? The difference of the mean request durations split exactly over length bins (by turns or
 * by generated tokens) into a mix, a speed and an unmatched term (rt-compare --mix). */
#pragma once

#include "rolltrace/analyses/common.h"
#include "rolltrace/analyses/compare.h"
#include "rolltrace/rt-jsonw.h"

G_BEGIN_DECLS

typedef enum { RT_MIX_TURNS, RT_MIX_TOKENS } RtMixBy;

/* The default edges of --mix tokens: 0, 256, 512, ..., 8192 (turns: one bin per value). */
GArray *rt_mix_default_edges (RtMixBy by);   /* double; NULL for turns: per value */
/* "0,256,1024": ascending numbers, at least one; NULL and `error` set otherwise. */
GArray *rt_mix_parse_edges (const char *text, GError **error);

/* One bin [lo, hi) (hi INFINITY: the last of given edges), held by a request of either side.
 * [0] is A (the reference), [1] B. p = n / binned of that side. */
typedef struct {
  double lo, hi;
  guint requests[2];
  double share[2];
  double mean_s[2];           /* NAN where the side has none */
  double s_per_token[2];      /* sum of the durations of those with tokens / their tokens; NAN
                               * unless tokens > 0 */
  double mix_s;               /* (pb - pa) da when na > 0, else 0 */
  double speed_s;             /* pb (db - da) when na > 0 and nb > 0, else 0 */
  double unmatched_s;         /* pb db when na = 0, else 0 */
  double ks_statistic, ks_pvalue;   /* of the bin's durations when both sides have 20 or more; NAN */
} RtMixBin;

typedef struct {
  guint requests;             /* rt-compare's duration sample: complete, with a finite duration */
  guint binned;               /* of them, those in a bin */
  double mean_s;              /* of the binned; NAN: none */
  double tokens;              /* sum over the requests with actual_response_tokens; NAN: none */
  double s_per_token;         /* sum of their durations / tokens; NAN unless tokens > 0 */
} RtMixSide;

typedef struct {
  RtMixBy by;
  GArray *edges;              /* double, or NULL: a bin per value */
  RtMixSide side[2];
  /* b.mean_s - a.mean_s = mix_s + speed_s + unmatched_s (sums over the bins); all NAN when
   * either side has nothing binned */
  double delta_s, mix_s, speed_s, unmatched_s;
  GArray *bins;               /* RtMixBin, ascending */
} RtMix;

/* A (the reference) against B, each over its steps (NULL: all). `edges` is copied; NULL: the
 * default of `by`. */
RtMix *rt_mix_analyse (const RtTrace *a, const RtStepSet *a_steps, const RtTrace *b,
                       const RtStepSet *b_steps, RtMixBy by, const GArray *edges);
void rt_mix_free (RtMix *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtMix, rt_mix_free)

/* The "mix" object of a versus entry: {by, edges, a, b, delta_s, mix_s, speed_s, unmatched_s,
 * bins}; `label`, `path` name A and B. */
void rt_mix_write_json (const RtMix *m, const char *const label[2], const char *const path[2], RtJsonWriter *w);

/* compare_mix_K.tsv: one row per bin */
extern const RtTableSpec rt_mix_bins_spec;
RtTable *rt_mix_bins_table (const RtMix *m);

/* The spec of a mean's difference split into mix, speed and unmatched terms (rt-compare --mix). */
extern const RtAnalysisSpec rt_mix_analysis;

G_END_DECLS
