/* SPDX-License-Identifier: Apache-2.0 */
/* load-cache.c: the loader's side of the cache: the answers it holds ready (each step's sorted
 * durations, the turn sums, the requests' engine times), where an experiment's cache lives,
 * and writing a new one from the tables just loaded when what was read made the old one
 * stale. The format itself is cache.c's. */
#include "load-private.h"
#include "rolltrace/rt-cache-dir.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-stats.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>
#include <unistd.h>

/* ---- the answers the cache holds ready ---- */

#define ALL_STEPS (-1)

void
rt_load_forget_durations (RtTracePrivate *priv, guint n_steps)
{
  for (guint si = 0; priv->step_durations != NULL && si < n_steps; si++)
    {
      g_free (priv->step_durations[si].owned);
      priv->step_durations[si] = (RtStepDurations) { 0 };
    }
  g_free (priv->all_durations.owned);
  priv->all_durations = (RtStepDurations) { 0 };
}

/* The durations the load kept of files first_file ... first_file + n_files - 1, sorted (those
 * of their complete requests, as rt_view_request_durations gives them). */
static void
durations_kept (const RtTrace *t, RtStepDurations *sd, guint first_file, guint n_files)
{
  const double *kept = (const double *) (const void *) t->priv->kept_durations->data;
  guint64 n = 0;
  for (guint i = first_file; i < first_file + n_files; i++)
    n += rt_trace_file (t, i)->n_requests;
  sd->owned = g_new (double, MAX (n, 1u));
  sd->n = 0;
  for (guint i = first_file; i < first_file + n_files; i++)
    {
      const double *d = kept + t->priv->files[i].first_duration;
      for (guint32 r = 0; r < rt_trace_file (t, i)->n_requests; r++)
        if (!isnan (d[r]))
          sd->owned[sd->n++] = d[r];
    }
  rt_sort_doubles (sd->owned, sd->n);
  sd->sorted = sd->owned;
}

/* The sorted runs (n of them, at most 2) and the sorted values of `b` (NULL: none) together,
 * sorted. */
static GArray *
merged_with (const double *const *runs, const guint *lens, guint n, const GArray *b)
{
  GArray *merged = rt_samples_new ();
  const double *all[3] = { NULL };
  guint all_lens[3] = { 0 };
  g_assert (n <= 2);
  for (guint i = 0; i < n; i++)
    all[i] = runs[i], all_lens[i] = lens[i];
  if (b != NULL)
    {
      all[n] = (const double *) (const void *) b->data;
      all_lens[n++] = b->len;
    }
  rt_merge_sorted (merged, all, all_lens, n);
  return merged;
}

/* The cache's sorted durations of every file of records 0 ... n_files - 1, in `sd`: in place
 * when the cache holds them as one run; else (a base and its delta) merged, owned. */
static gboolean
all_durations_from_cache (RtCacheMap *cache, guint n_files, RtStepDurations *sd)
{
  const double *runs[2];
  guint lens[2];
  guint n_runs = rt_cache_step_durations_runs (cache, ALL_STEPS, n_files, runs, lens);
  if (n_runs == 1)
    {
      sd->sorted = runs[0];
      sd->n = lens[0];
    }
  else if (n_runs == 2)
    {
      GArray *merged = merged_with (runs, lens, 2, NULL);
      sd->n = merged->len;
      sd->owned = (double *) (void *) g_array_free (merged, FALSE);
      sd->sorted = sd->owned;
    }
  return n_runs > 0;
}

/* The sorted durations of every file, when the cache holds those of the first ones (as records
 * 0 ... k - 1, as it holds them) and the trace the requests of the others: the two merged, the
 * others' sorted first. After a step was appended, the cache's durations of every step before
 * it are merged with one step's, rather than every step's with each other. Left unset
 * otherwise. */
static void
durations_merged (const RtTrace *t, RtStepDurations *sd)
{
  const RtTracePrivate *priv = t->priv;
  guint k = 0;
  while (k < t->files->len && priv->files[k].as_cached && !priv->files[k].cut && priv->files[k].record == k)
    k++;
  if (k == 0 || k == t->files->len)
    return;
  for (guint i = k; i < t->files->len; i++)
    if (rt_trace_file (t, i)->first_request == RT_NONE)
      return;
  const double *runs[2];
  guint lens[2];
  guint n_runs = rt_cache_step_durations_runs (priv->cache, ALL_STEPS, k, runs, lens);
  if (n_runs == 0)
    return;
  g_autoptr (GArray) rest = rt_samples_new ();
  for (guint i = k; i < t->files->len; i++)
    {
      const RtFile *f = rt_trace_file (t, i);
      for (guint r = 0; r < f->n_requests; r++)
        if (rt_trace_request (t, f->first_request + r)->complete)
          rt_samples_add (rest, rt_trace_request (t, f->first_request + r)->total_s);
    }
  rt_sort_doubles ((double *) (void *) rest->data, rest->len);
  GArray *merged = merged_with (runs, lens, n_runs, rest);
  sd->n = merged->len;
  sd->owned = (double *) (void *) g_array_free (merged, FALSE);
  sd->sorted = sd->owned;
}

/* The cache's sorted durations of the files first_file ... first_file + n_files - 1,
 * kept as `step` (ALL_STEPS: those of every file), when every one of those files is as
 * the cache holds it, as records one after another; or those the load kept of them.
 * Asked once, remembered in `sd`. */
static const double *
durations_from_cache (const RtTrace *t, RtStepDurations *sd, gint32 step, guint first_file,
                      guint n_files, guint *n)
{
  if (!g_atomic_int_get (&sd->looked))
    {
      g_mutex_lock (&t->priv->lazy_lock);
      if (!sd->looked && t->priv->kept_durations != NULL)
        durations_kept (t, sd, first_file, n_files);
      else if (!sd->looked && t->priv->cache != NULL && n_files > 0)
        {
          const RtFileState *first = &t->priv->files[first_file];
          gboolean consecutive = TRUE;
          for (guint k = 0; k < n_files && consecutive; k++)
            {
              const RtFileState *fs = &t->priv->files[first_file + k];
              consecutive = fs->as_cached && !fs->cut && fs->record == first->record + k;
            }
          if (consecutive && step == ALL_STEPS && first->record == 0)
            all_durations_from_cache (t->priv->cache, n_files, sd);
          else if (consecutive)
            sd->sorted = rt_cache_step_durations (t->priv->cache, step, first->record, n_files, &sd->n);
          else if (step == ALL_STEPS)
            durations_merged (t, sd);
        }
      g_atomic_int_set (&sd->looked, TRUE);
      g_mutex_unlock (&t->priv->lazy_lock);
    }
  *n = sd->n;
  return sd->sorted;
}

const RtTurnSums *
rt_trace_turn_sums_ready (const RtTrace *t, guint *n, guint *n_files)
{
  *n = t->priv->n_turn_sums;
  *n_files = t->priv->turn_sums_files;
  return t->priv->turn_sums;
}

double
rt_trace_request_engine_s (const RtTrace *t, const RtRequest *q)
{
  const double *cached = t->priv->cached_engine;
  if (cached != NULL && q >= t->cached_requests && q < t->cached_requests + t->n_cached_requests)
    return cached[q - t->cached_requests];
  return rt_turns_engine_s (q->n_turns > 0 ? rt_trace_turn (t, q->first_turn) : NULL, q->n_turns);
}

const double *
rt_trace_all_sorted_durations (const RtTrace *t, guint *n)
{
  return durations_from_cache (t, &t->priv->all_durations, ALL_STEPS, 0, t->files->len, n);
}

const double *
rt_trace_step_sorted_durations (const RtTrace *t, guint step_index, guint *n)
{
  const RtStep *st = rt_trace_step (t, step_index);
  static const double no_values[1];
  if (st->n_files == 0)
    {
      *n = 0;
      return no_values;   /* no file, no value: nothing to compute either */
    }
  return durations_from_cache (t, &t->priv->step_durations[step_index], st->step, st->first_file,
                               st->n_files, n);
}

gboolean
rt_load_cache_is_large (RtCacheMap *cache)
{
  const char *env = g_getenv ("ROLLTRACE_RELEASE_FROM");
  guint64 from = env != NULL && g_ascii_isdigit (env[0]) ? g_ascii_strtoull (env, NULL, 10) : (guint64) 64 << 20;
  return (guint64) rt_cache_n_requests (cache) * sizeof (RtRequest) >= from;
}

/* ---- writing a new cache ---- */

/* A snapshot with arrays of its own (see RtCacheSnapshot). */
RtCacheSnapshot
rt_load_snapshot_init (void)
{
  RtCacheSnapshot snap = { 0 };
  snap.requests = g_array_new (FALSE, FALSE, sizeof (RtRequest));
  snap.turns = g_array_new (FALSE, FALSE, sizeof (RtTurnFigures));
  snap.problems = g_array_new (FALSE, FALSE, sizeof (RtCacheProblem));
  return snap;
}

void
rt_load_snapshot_clear (RtCacheSnapshot *snap)
{
  g_clear_pointer (&snap->requests, g_array_unref);
  g_clear_pointer (&snap->turns, g_array_unref);
  g_clear_pointer (&snap->problems, g_array_unref);
}

void
rt_load_snapshot_problems (RtCacheSnapshot *snap, const GArray *problems, guint32 n)
{
  for (guint32 k = 0; k < n; k++)
    {
      const RtProblem *pr = &g_array_index (problems, RtProblem, k);
      RtCacheProblem cp = { pr->line, pr->reason };
      g_array_append_val (snap->problems, cp);
    }
}

char *
rt_cache_default_dir (void)
{
  return g_build_filename (g_get_user_cache_dir (), "rolltrace", NULL);
}

/* The cache file of an experiment: one per canonical path. */
char *
rt_load_cache_path (const char *dir, const char *exp_canonical)
{
  g_autofree char *digest = g_compute_checksum_for_string (G_CHECKSUM_SHA256, exp_canonical, -1);
  g_autofree char *name = g_strdup_printf ("%.32s.rtc", digest);
  return g_build_filename (dir, name, NULL);
}

/* What the cache keeps of file i: its tables as of its last newline, from its turn
 * records when it was read in this run, else (taken from the cache) as the trace
 * holds them. `snap`'s arrays are filled (the caller's, emptied first). */
static void
file_snapshot (const RtTrace *t, guint i, RtCacheSnapshot *snap)
{
  const RtFile *f = rt_trace_file (t, i);
  const RtFileState *fs = &t->priv->files[i];
  const RtResume *rp = &fs->resume;
  snap->counters = rp->counters;
  snap->counters.n_events = rp->n_events;
  snap->offset = rp->offset;
  snap->line = rp->line;
  snap->prefix_checksum = fs->prefix_checksum;
  snap->prefix_known = fs->prefix_known;
  snap->rows = NULL;
  g_array_set_size (snap->requests, 0);
  g_array_set_size (snap->turns, 0);
  g_array_set_size (snap->problems, 0);
  if (fs->spilled)
    return;   /* its tables are in the draft's spill (RtFileState.spill) */
  if (f->first_request == RT_NONE)
    {
      /* taken whole from the cache without its requests (without RT_READS_REQUESTS):
       * they, its turns and problems are still there (the caller checked them) */
      RtCacheSnapshot cached = *snap;
      rt_cache_file_snapshot (t->priv->cache, fs->record, &cached);
      return;
    }

  const RtRequest *src = rp->requests ? (const RtRequest *) rp->requests->data
                                      : rt_trace_request (t, f->first_request);
  g_array_append_vals (snap->requests, src, rp->n_requests);
  if (rp->requests == NULL && (t->request_ids_at != 0 || t->request_texts_at != 0))
    for (guint k = 0; k < snap->requests->len; k++)
      {
        /* the trace's table, numbering texts from the cache's used in place: texts as their
         * addresses, as the draft takes them (those kept as of the last newline have them so) */
        RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
        q->id = rt_text_ref (rt_request_id (t, q));
        q->finish_reason = rt_text_ref (rt_request_finish_reason (t, q));
      }
  if (fs->timing_turns != NULL)
    rt_derive_turns ((RtRequest *) snap->requests->data, snap->requests->len,
                     (const RtTurnRecord *) fs->timing_turns->data, rp->n_timing,
                     (const RtTurnRecord *) fs->end_turns->data, rp->n_end, snap->turns);
  else
    for (guint k = 0; k < snap->requests->len; k++)
      {
        RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
        if (q->n_turns > 0)   /* a range is in one table, the cache's or the load's */
          g_array_append_vals (snap->turns, rt_trace_turn (t, q->first_turn), q->n_turns);
        q->first_turn = snap->turns->len - q->n_turns;
      }
  rt_load_snapshot_problems (snap, fs->problems, rp->n_problems);
}

/* The rows of file i as of its last newline, when the load kept none of them (without
 * RT_READS_ROWS) but the old cache holds the file as it is: one read past its last newline only,
 * an unterminated last piece a running worker is still writing. NULL otherwise, or when they
 * fail their check. */
static const RtEvent *
old_cache_rows (RtTrace *t, guint i)
{
  const RtFileState *fs = &t->priv->files[i];
  if (fs->origin != RT_FILE_CACHED || t->priv->cache == NULL)
    return NULL;
  RtCacheSnapshot cached = { .problems = g_array_new (FALSE, FALSE, sizeof (RtCacheProblem)) };
  rt_cache_file_snapshot (t->priv->cache, fs->record, &cached);
  g_array_unref (cached.problems);
  if (cached.counters.n_events != fs->resume.n_events
      || !rt_cache_rows_ok (cached.rows, cached.counters.n_events, cached.rows_checksum,
                            rt_event_registry_size (t->registry), cached.counters.n_requests))
    return NULL;
  return cached.rows;
}

/* Puts the rows of file i (as of its last newline) into the draft, unless written while
 * loading; a file that changed while analysed (uncacheable) is left out. */
static gboolean
put_rows (RtTrace *t, RtCacheDraft *d, guint i, GError **error)
{
  RtFileState *fs = &t->priv->files[i];
  if (fs->rows_written)
    return TRUE;
  const RtEvent *rows = fs->rows_dropped ? old_cache_rows (t, i) : NULL;
  if (fs->rows_dropped && rows == NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "the rows of %s were not kept", rt_trace_file (t, i)->path);
      return FALSE;
    }
  /* rows taken from the old cache are checked here: their file is read again
   * when they fail, and left out when it no longer holds what was cached */
  if (rows == NULL)
    rows = rt_trace_file_events (t, i);
  if (fs->uncacheable)
    return TRUE;
  fs->rows_at = rt_cache_draft_reserve (d, fs->resume.n_events);
  fs->rows_checksum = rt_cache_draft_put_rows (d, fs->rows_at, rows, fs->resume.n_events);
  fs->rows_written = TRUE;
  /* copied: the old cache's pages of them go back now, not at exit (a cache rewritten for
   * one appended step held every row of the old one resident: 4 GB at 100M lines) */
  rt_trace_file_events_done (t, i);
  return TRUE;
}

/* Adds to `totals` what the tables of file i will add to the cache (what file_snapshot
 * gives, counted without copying where it can be). */
static gboolean
count_tables (const RtTrace *t, guint i, RtCacheSnapshot *snap, RtCacheTotals *totals, GError **error)
{
  const RtFile *f = rt_trace_file (t, i);
  const RtFileState *fs = &t->priv->files[i];
  /* tables taken from the old cache (or left there) go into the new one: all checked now
   * (the caller may have read fewer) */
  if (fs->origin == RT_FILE_CACHED && !fs->spilled
      && !rt_cache_file_tables_ok (t->priv->cache, fs->record, RT_CACHE_ALL_TABLES))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "the old cache's tables of %s are damaged", f->path);
      return FALSE;
    }
  if (fs->spilled)
    rt_cache_draft_count (NULL, &fs->spill, totals);
  else if (t->priv->kept_durations != NULL)
    {
      /* a load that keeps durations alone put the tables aside, or failed to */
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "the tables of %s were not kept", f->path);
      return FALSE;
    }
  else if (f->first_request == RT_NONE)
    rt_cache_file_count (t->priv->cache, fs->record, totals);
  else if (fs->timing_turns != NULL)
    {
      /* its turns as of its last newline are derived: counted as made */
      file_snapshot (t, i, snap);
      rt_cache_draft_count (snap, NULL, totals);
    }
  else
    {
      const RtResume *rp = &fs->resume;
      const RtRequest *src = rp->requests ? (const RtRequest *) rp->requests->data
                                          : rt_trace_request (t, f->first_request);
      totals->n_requests += rp->n_requests;
      totals->n_problems += rp->n_problems;
      for (guint k = 0; k < rp->n_requests; k++)
        {
          totals->n_turns += src[k].n_turns;
          totals->ids_size += strlen (rt_request_id (t, &src[k])) + 1;
        }
    }
  return TRUE;
}

/* The sorted durations of step si the cache is to keep: those the next load will find
 * when it finds the step's files as they are, which is what the trace holds of them
 * now (a file with an unterminated last piece is read on as it was this time): the old
 * cache's when the step is as it holds it, else made of the requests, those of a file the
 * load left in the old cache (in place, taken once the cache is written) read from there. */
static GArray *
step_durations_to_cache (const RtTrace *t, guint si)
{
  const RtStep *st = rt_trace_step (t, si);
  guint n;
  const double *cached = NULL;
  for (guint i = st->first_file; i < st->first_file + st->n_files && cached == NULL; i++)
    if (rt_trace_file (t, i)->first_request == RT_NONE)
      cached = rt_trace_step_sorted_durations (t, si, &n);
  GArray *v = rt_samples_new ();
  if (cached != NULL)
    {
      g_array_append_vals (v, cached, n);
      return v;
    }
  /* what rt_view_request_durations (t, si, -1) gives, sorted (a unit test holds them equal) */
  g_autoptr (GArray) left = NULL;   /* (its tables were checked: count_tables) */
  for (guint i = st->first_file; i < st->first_file + st->n_files; i++)
    {
      const RtFile *f = rt_trace_file (t, i);
      const RtRequest *requests = f->first_request != RT_NONE ? rt_trace_request (t, f->first_request) : NULL;
      if (requests == NULL)
        {
          left = left != NULL ? left : g_array_new (FALSE, FALSE, sizeof (RtRequest));
          g_array_set_size (left, 0);
          g_autoptr (GArray) problems = g_array_new (FALSE, FALSE, sizeof (RtCacheProblem));
          RtCacheSnapshot snap = { .requests = left, .problems = problems };
          rt_cache_file_snapshot (t->priv->cache, t->priv->files[i].record, &snap);
          requests = (const RtRequest *) (const void *) left->data;
        }
      for (guint r = 0; r < f->n_requests; r++)
        if (requests[r].complete)
          rt_samples_add (v, requests[r].total_s);
    }
  rt_sort_doubles ((double *) v->data, v->len);
  return v;
}

/* File i's tables were read from the old cache for the new one (counted, or copied): where
 * the old cache is large, their pages go back, as its rows' do (a cache rewritten for one
 * appended step otherwise held every request, id and turn of the old one resident). */
static void
old_tables_done (const RtTrace *t, guint i)
{
  const RtTracePrivate *priv = t->priv;
  const RtFileState *fs = &priv->files[i];
  if (priv->cache != NULL && fs->origin == RT_FILE_CACHED && rt_load_cache_is_large (priv->cache))
    rt_cache_release_file_tables (priv->cache, fs->record, 1, RT_CACHE_ALL_TABLES);
}

/* Writes the whole trace as a new cache, completing the draft begun while loading
 * (or a new one), and renames it into place: a base, or the old base's delta (of files
 * delta_from ...: see load_files), which leaves the base as it is. */
static gboolean
write_cache (RtTrace *t, GError **error)
{
  RtTracePrivate *priv = t->priv;
  guint from = priv->delta_from;
  g_autofree char *delta_path = rt_cache_delta_path (priv->cache_path);
  if (from > 0 && from == t->files->len)
    {
      /* the base's files alone, as they were: the delta's are gone (its steps removed), and so
       * goes the delta, the base left as it is (rewriting it would cost a whole write) */
      if (g_unlink (delta_path) != 0 && errno != ENOENT)
        {
          int e = errno;
          g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot remove %s: %s", delta_path, g_strerror (e));
          return FALSE;
        }
      return TRUE;
    }
  gboolean begun = priv->draft != NULL;   /* while loading: then already the delta, if one */
  g_autoptr (RtCacheDraft) d = begun ? g_steal_pointer (&priv->draft)
                                     : rt_cache_draft_new (priv->cache_path, error);
  if (d == NULL)
    return FALSE;
  if (from > 0 && !begun)
    rt_cache_draft_extend (d, rt_cache_base (priv->cache));
  g_autofree char *exp = g_canonicalize_filename (t->path, NULL);
  if (!rt_cache_draft_ok (d, error))
    return FALSE;   /* (a file's tables put aside may be missing then) */

  /* the rows of every file, as of its last newline, after the header (those not written while
   * loading now), and what the tables will hold */
  g_auto (RtCacheSnapshot) snap = rt_load_snapshot_init ();
  RtCacheTotals totals = { 0 };
  guint n_added = 0;
  for (guint i = from; i < t->files->len; i++)
    {
      if (!put_rows (t, d, i, error))
        return FALSE;
      if (priv->files[i].uncacheable)
        continue;
      if (!count_tables (t, i, &snap, &totals, error))
        return FALSE;
      old_tables_done (t, i);
      n_added++;
    }
  rt_cache_draft_begin_tables (d, exp, t->registry, n_added, &totals);

  /* then each file's tables, and each step's durations */
  g_autoptr (GArray) all = rt_samples_new ();   /* every step's, while all are kept */
  gboolean all_steps = TRUE;
  for (guint si = 0; si < t->steps->len; si++)
    {
      const RtStep *st = rt_trace_step (t, si);
      if (st->n_files > 0 && st->first_file < from)
        continue;   /* the base's (a delta begins with a step) */
      guint first_record = rt_cache_draft_n_files (d);
      gboolean all_kept = TRUE;
      for (guint i = st->first_file; i < st->first_file + st->n_files; i++)
        {
          const RtFileState *fs = &priv->files[i];
          all_kept = all_kept && !fs->uncacheable;
          if (fs->uncacheable)
            continue;
          file_snapshot (t, i, &snap);
          snap.rows_checksum = fs->rows_checksum;
          rt_cache_draft_add_file (d, rt_trace_file (t, i), &snap, fs->rows_at,
                                   fs->spilled ? &fs->spill : NULL);
          old_tables_done (t, i);
        }
      rt_cache_draft_mark_turn_sums (d);
      g_autoptr (GArray) durations = all_kept && st->n_files > 0 ? step_durations_to_cache (t, si) : NULL;
      if (durations != NULL)
        {
          rt_cache_draft_add_step (d, st->step, first_record, (const double *) durations->data,
                                   durations->len);
          g_array_append_vals (all, durations->data, durations->len);
        }
      all_steps = all_steps && (durations != NULL || (all_kept && st->n_files == 0));
    }
  if (all_steps && t->files->len > 0)
    {
      /* the records of every file the draft holds (a delta's own, which the reader merges with
       * the base's: rt_cache_step_durations_runs): what rt_trace_all_sorted_durations finds */
      rt_sort_doubles ((double *) all->data, all->len);
      g_assert (rt_cache_draft_n_files (d) == t->files->len);
      rt_cache_draft_add_step (d, ALL_STEPS, from, (const double *) all->data, all->len);
    }
  if (!rt_cache_write (g_steal_pointer (&d), from > 0 ? delta_path : priv->cache_path, error))
    return FALSE;
  /* a new base: the delta of the old one goes (it would name a base that is no longer there) */
  if (from == 0)
    g_unlink (delta_path);
  return TRUE;
}

/* Tallies where the files came from, and writes a new cache when anything was read. */
void
rt_load_update_cache (RtTrace *trace, RtCacheMap *cache)
{
  RtLoadStats *st = &trace->stats;
  st->files_cached = 0;   /* counted again, with those restored and read on */
  for (guint i = 0; i < trace->files->len; i++)
    switch (trace->priv->files[i].origin)
      {
      case RT_FILE_PARSED: st->files_parsed++; break;
      case RT_FILE_RESUMED: st->files_resumed++; break;
      case RT_FILE_CACHED: st->files_cached++; break;
      case RT_FILE_UNREAD: g_assert_not_reached ();
      }
  if (trace->priv->cache_path == NULL)
    return;
  /* stale: something was read, or the cache knew files that are gone */
  gboolean stale = cache == NULL || st->files_parsed > 0 || st->files_resumed > 0
                   || rt_cache_n_files (cache) != st->files_cached;
  if (!stale)
    return;
  g_autoptr (GError) error = NULL;
  if (!write_cache (trace, &error))
    {
      /* a cache is a convenience: failing to write one is worth a note, not an error */
      g_printerr ("rolltrace: note: no cache written: %s\n", error->message);
      return;
    }
  st->cache_written = TRUE;
  /* one cache per experiment, never removed by its own loads: the folder is kept within its
   * limit here, the caches used longest ago going first */
  g_autofree char *dir = g_path_get_dirname (trace->priv->cache_path);
  rt_cache_dir_enforce_limit (dir, trace->priv->cache_path);
}

