/* SPDX-License-Identifier: Apache-2.0 */
/* load.c: loads the worker files that load-discover.c found, in parallel, into tables.
 * Each file comes from the cache, from the cache and its new lines, or is read whole (parse.c). */
#include "load-private.h"
#include "tasks-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-stats.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- work shared by two threads --------------------------------------------------- */

/* How many threads a load may use (RtLoadOptions.n_threads, 0: one per core). */
static guint
n_threads_of (const RtLoadOptions *opts)
{
  return opts->n_threads ? opts->n_threads : g_get_num_processors ();
}

/* ---- loading the files ---------------------------------------------------------- */

typedef struct {
  RtTrace *trace;
  RtCacheMap *cache;
  GMutex lock;
  GCond done_cond;
  guint files_done;
  gint kib_done;                /* progress, KiB read */
  GError *error;                /* the first failure to read a file */
  gint *taken;                  /* (atomic) of each file: a thread has begun reading it */
  gboolean drop_read;           /* what was read is given back (drop_read) */
  guint64 *read_from;           /* of each file: where this load reads it from (after what the
                                 * cache holds of it, if restored); before it is read, where
                                 * the cache's match says it will be (read_ahead_next) */
} LoadJob;

/* The parse read an unterminated last piece that changed or added to its tables: those the cache
 * keeps, as of the last newline, are not the parse's final ones (the parse kept its requests as
 * before the piece, and the turn records' counts then). */
static gboolean
read_past_last_newline (const RtFileParse *p)
{
  const RtResume *rp = &p->resume;
  return rp->requests != NULL || rp->n_requests < p->requests->len || rp->n_timing < p->timing_turns->len
         || rp->n_end < p->end_turns->len;
}

/* Puts the tables of a file just read (those the cache keeps: as of its last newline) aside in
 * the draft, as file_snapshot (load-cache.c) would have made them of what the trace kept. */
static void
spill_tables (RtCacheDraft *draft, RtFileParse *p, GArray *turns, RtFileState *fs)
{
  const RtResume *rp = &p->resume;
  RtCacheSnapshot snap = { .requests = p->requests, .turns = turns,
                           .problems = g_array_sized_new (FALSE, FALSE, sizeof (RtCacheProblem),
                                                          rp->n_problems) };
  g_autoptr (GArray) requests = NULL, derived = NULL;
  /* the tables of the last newline, derived again */
  if (read_past_last_newline (p))
    {
      requests = g_array_new (FALSE, FALSE, sizeof (RtRequest));
      g_array_append_vals (requests, rp->requests ? rp->requests->data : p->requests->data, rp->n_requests);
      derived = g_array_new (FALSE, FALSE, sizeof (RtTurnFigures));
      rt_derive_turns ((RtRequest *) (void *) requests->data, requests->len,
                       (const RtTurnRecord *) (void *) p->timing_turns->data, rp->n_timing,
                       (const RtTurnRecord *) (void *) p->end_turns->data, rp->n_end, derived);
      snap.requests = requests;
      snap.turns = derived;
    }
  rt_load_snapshot_problems (&snap, p->problems, rp->n_problems);
  fs->spill = rt_cache_draft_spill (draft, &snap);
  fs->spilled = fs->spill.size > 0;
  g_array_unref (snap.problems);
}

/* Appends a finished file's rows to the trace; local indices stay local to the file.
 * The first append into each huge page of a table zeroes it under the lock. Bringing the
 * next page in ahead, outside the lock (MADV_POPULATE_WRITE), cut the time spent under the
 * lock, yet neither CPU nor wall time moved (bench/RESULTS.md, "Behind the code"): the zeroing then
 * competes with the other thread's reads instead of filling time it waits anyway. Not done,
 * then. */
static void
merge_file (LoadJob *job, RtFileParse *p)
{
  RtTrace *t = job->trace;
  RtFileState *fs = &t->priv->files[p->file_index];
  GArray *turns = rt_file_parse_collect_turns (p);   /* the thread's */

  g_mutex_lock (&job->lock);
  guint32 turn_base = t->n_cached_turns + t->turns->len;   /* numbered after the cache's */
  p->file->first_turn = turn_base;
  p->file->n_turns = turns->len;
  gboolean durations_alone = t->priv->kept_durations != NULL;
  p->file->first_request = durations_alone ? RT_NONE : t->priv->requests->len;
  p->file->n_requests = p->requests->len;
  p->file->n_events = p->events->len;
  if (durations_alone)
    {
      /* the requests' durations alone (rt_trace_step_sorted_durations makes each step's) */
      fs->first_duration = t->priv->kept_durations->len;
      for (guint i = 0; i < p->requests->len; i++)
        {
          const RtRequest *q = &g_array_index (p->requests, RtRequest, i);
          double d = q->complete ? q->total_s : NAN;
          g_array_append_val (t->priv->kept_durations, d);
        }
    }
  fs->rows_dropped = !t->priv->keeps.rows;
  fs->first_event = fs->rows_dropped ? 0 : t->events->len;
  if (!fs->rows_dropped)
    g_array_append_vals (t->events, p->events->data, p->events->len);
  for (guint i = 0; !durations_alone && i < p->requests->len; i++)
    g_array_index (p->requests, RtRequest, i).first_turn += turn_base;
  if (!durations_alone)
    g_array_append_vals (t->priv->requests, p->requests->data, p->requests->len);
  /* a caller that reads no turn figures, with no cache to write them into, keeps none: on the
   * 10M tree, tens of MB less to copy and to fault in (its zeroed pages are dear on a
   * virtual machine; bench/RESULTS.md, "Behind the code") */
  if (t->priv->keeps.turns || (t->priv->cache_path != NULL && !durations_alone))
    g_array_append_vals (t->turns, turns->data, turns->len);
  t->problems_total += p->file->problems_total;
  t->stats.bytes_read += p->bytes_read;
  if (!durations_alone)
    g_ptr_array_add (t->string_chunks, g_steal_pointer (&p->strings));
  /* (else the requests' texts go with the parse, and what a cache would resume from below) */
  /* A file read in this run makes the cache stale (one restored as it was, with
   * only an unterminated tail read, does not): its rows are written now, while
   * the other threads go on reading, rather than all at the end. */
  RtTracePrivate *priv = t->priv;
  if (fs->origin != RT_FILE_CACHED && priv->cache_path != NULL && priv->draft == NULL
      && !priv->draft_failed)
    {
      priv->draft = rt_cache_draft_new (priv->cache_path, NULL);
      priv->draft_failed = priv->draft == NULL;
      if (priv->draft != NULL && priv->delta_from > 0)
        rt_cache_draft_extend (priv->draft, rt_cache_base (priv->cache));
    }
  /* (a delta holds none of the base's files: those read on since are in the base as they are) */
  RtCacheDraft *draft = p->file_index >= priv->delta_from ? priv->draft : NULL;
  guint64 rows_at = draft ? rt_cache_draft_reserve (draft, p->resume.n_events) : 0;
  g_mutex_unlock (&job->lock);

  if (draft != NULL)
    {
      fs->rows_checksum = rt_cache_draft_put_rows (draft, rows_at, (const RtEvent *) p->events->data,
                                                   p->resume.n_events);
      fs->rows_at = rows_at;
      fs->rows_written = TRUE;
    }
  /* a load that keeps the durations alone keeps no table for the cache either: they are put
   * aside on disk, in the draft's spill, until the cache is written (at 100M lines, 1.7 GB
   * less memory) */
  if (draft != NULL && durations_alone)
    spill_tables (draft, p, turns, fs);

  /* What the cache keeps of the file stays with the trace. The turn records are
   * kept only when an unterminated last piece added some (the cache holds the
   * file as of its last newline); otherwise the trace's turns are what they give,
   * and their memory goes to the next file. */
  if (read_past_last_newline (p))
    {
      fs->timing_turns = g_array_copy (p->timing_turns);   /* p's are the thread's */
      fs->end_turns = g_array_copy (p->end_turns);
    }
  fs->problems = g_steal_pointer (&p->problems);
  fs->resume = p->resume;
  p->resume.requests = NULL;
  if (durations_alone)
    g_clear_pointer (&fs->resume.requests, g_array_unref);   /* no cache to resume */
}

/* Reads one file's tables: from the cache where it still describes the file
 * (RT_CACHE_SAME: as it was, but for an unterminated last piece, which the cache
 * never holds; RT_CACHE_GROWN: appended to since), reading on from where the cache
 * stopped; otherwise, or when the cached rows fail their check, from its first byte. */
static gboolean
read_file (LoadJob *job, guint index, RtCacheMatch match, guint record, GError **error)
{
  RtTrace *t = job->trace;
  RtFileState *fs = &t->priv->files[index];
  g_autoptr (RtFileParse) p = rt_file_parse_new (t, index, t->priv->opts.max_problems_per_file,
                                                  &job->kib_done);
  if (match != RT_CACHE_MISS)
    {
      g_auto (RtCacheSnapshot) snap = rt_load_snapshot_init ();
      rt_cache_file_snapshot (job->cache, record, &snap);
      rt_file_parse_restore (p, &snap);
      if (rt_cache_rows_ok (snap.rows, p->resume.n_events, snap.rows_checksum,
                            rt_event_registry_size (t->registry), p->requests->len))
        {
          g_array_append_vals (p->events, snap.rows, p->resume.n_events);
          guint64 cached_to = p->resume.offset;
          job->read_from[index] = cached_to;
          if (!rt_file_parse_read (p, p->resume.offset, p->resume.line, error))
            return FALSE;
          /* only the unterminated last piece was read: the cache holds the file */
          fs->origin = match == RT_CACHE_SAME && p->resume.offset == cached_to ? RT_FILE_CACHED
                                                                                : RT_FILE_RESUMED;
          merge_file (job, p);
          return TRUE;
        }
      /* start again from nothing: the restored tables must not be counted twice */
      g_clear_pointer (&p, rt_file_parse_free);
      p = rt_file_parse_new (t, index, t->priv->opts.max_problems_per_file, &job->kib_done);
    }
  fs->origin = RT_FILE_PARSED;
  job->read_from[index] = 0;
  if (!rt_file_parse_read (p, 0, 0, error))
    return FALSE;
  merge_file (job, p);
  return TRUE;
}

/* Loads one file, and learns what a new cache must keep to tell next time whether
 * the file was only appended to: the checksum of sampled blocks before where
 * reading stopped (see rt_cache_prefix_checksum). */
static gboolean
load_file (LoadJob *job, guint index, GError **error)
{
  RtTrace *t = job->trace;
  RtFileState *fs = &t->priv->files[index];
  const RtFile *f = rt_trace_file (t, index);
  guint record = 0;
  RtCacheMatch match = job->cache != NULL ? rt_cache_match (job->cache, f, &record) : RT_CACHE_MISS;

  /* One descriptor, opened before the file is read, serves both: a grown file's
   * first bytes checked against the cache's, and the blocks a new cache keeps. A
   * file restored as it was keeps the checksum the cache had for it. */
  gboolean sample = t->priv->cache_path != NULL && match != RT_CACHE_SAME;
  int fd = -1;
  if (sample || match == RT_CACHE_GROWN)
    {
      g_autofree char *full = g_build_filename (t->path, f->path, NULL);
      fd = open (full, O_RDONLY | O_CLOEXEC);
    }
  /* grown, but not by appending: rewritten in place with more (or other) bytes */
  if (match == RT_CACHE_GROWN && (fd < 0 || !rt_cache_prefix_same (job->cache, record, fd)))
    match = RT_CACHE_MISS;
  guint8 before[RT_PREFIX_BLOCK];
  gsize before_len = fd >= 0 ? rt_read_at (fd, before, RT_PREFIX_BLOCK, 0) : 0;

  gboolean ok = read_file (job, index, match, record, error);

  fs->prefix_known = FALSE;
  if (ok && fs->origin == RT_FILE_CACHED)
    fs->prefix_known = rt_cache_prefix (job->cache, record, &fs->prefix_checksum);
  else if (ok && fd >= 0)
    {
      /* The blocks are read after the file, so they stand for what was read only if
       * it was not rewritten meanwhile: its first bytes are those seen before. An
       * append, which a running job does all the time, does not change them. */
      guint8 head[RT_PREFIX_BLOCK];
      gsize n = (gsize) MIN (MIN ((guint64) before_len, fs->resume.offset), RT_PREFIX_BLOCK);
      fs->prefix_known = rt_cache_prefix_checksum (fd, fs->resume.offset, head, &fs->prefix_checksum)
                         && memcmp (head, before, n) == 0;
    }
  if (fd >= 0)
    close (fd);
  return ok;
}

/* Tells the kernel that file `index` of `t`, from byte `offset` to its end, will be read soon
 * (`needed`), or not again (posix_fadvise): a hint, which may fail, and none where the system
 * has no such call. Only that part: a file restored from the cache is read from where the
 * cache stopped (a --watch round, most files: nothing), and its bytes before were never asked
 * for. */
static void
advise_file (const RtTrace *t, guint index, guint64 offset, gboolean needed)
{
#if defined (POSIX_FADV_WILLNEED) && defined (POSIX_FADV_DONTNEED)
  if (offset >= rt_trace_file (t, index)->size)
    return;
  g_autofree char *full = g_build_filename (t->path, rt_trace_file (t, index)->path, NULL);
  int fd = open (full, O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      posix_fadvise (fd, (off_t) offset, 0, needed ? POSIX_FADV_WILLNEED : POSIX_FADV_DONTNEED);
      close (fd);
    }
#else
  (void) t;
  (void) index;
  (void) offset;
  (void) needed;
#endif
}

/* Asks the kernel to read ahead the next file no thread has taken yet, whole, while this one is
 * parsed: a tree larger than the page cache is read from the disk, and a thread that reads its
 * file only as it parses it waits for every read the readahead window did not cover (on a
 * tree past RAM, a third of a first load's time went in such waits). */
static void
read_ahead_next (LoadJob *job, guint index)
{
  RtTrace *t = job->trace;
  for (guint j = index + 1; j < t->files->len && j <= index + 8; j++)
    if (!g_atomic_int_get (&job->taken[j]) && t->priv->files[j].origin == RT_FILE_UNREAD)
      {
        advise_file (t, j, job->read_from[j], TRUE);
        return;
      }
}

/* Gives the page cache's copy of file `index`, read, back to the kernel, when the tree is larger
 * than the page cache can hold (LoadJob.drop_read): it would be evicted before it is read again
 * anyway, and meanwhile crowds out what is still to be read, the cache's draft and the tables
 * put aside, which the end of the load reads back. */
static void
drop_read (LoadJob *job, guint index)
{
  if (job->drop_read)
    advise_file (job->trace, index, job->read_from[index], FALSE);
}

static void
load_one_file (gpointer data, gpointer user_data)
{
  LoadJob *job = user_data;
  guint index = GPOINTER_TO_UINT (data) - 1;
  g_autoptr (GError) error = NULL;
  g_atomic_int_set (&job->taken[index], TRUE);
  read_ahead_next (job, index);
  load_file (job, index, &error);
  drop_read (job, index);

  g_mutex_lock (&job->lock);
  if (error != NULL && job->error == NULL)
    job->error = g_steal_pointer (&error);
  /* the waiting thread is woken by the last file only (it looks at the progress on its own
   * every quarter of a second): woken for every file, it took a core from the readers
   * 1600 times on the 10M tree, with twice as many more switches where it then held the lock */
  if (++job->files_done == job->trace->files->len)
    g_cond_signal (&job->done_cond);
  g_mutex_unlock (&job->lock);
}

static void
show_progress (LoadJob *job, guint64 total_bytes, gint64 started_us, gboolean final)
{
  double secs = (double) (g_get_monotonic_time () - started_us) / 1e6;
  double done = (double) g_atomic_int_get (&job->kib_done) * 1024;
  g_printerr ("\rloading %s: %u/%u files, %.0f/%.0f MB, %.1f s%s",
              job->trace->name, job->files_done, job->trace->files->len,
              done / 1e6, (double) total_bytes / 1e6, secs, final ? "\n" : "");
}

/* Room for n more elements, brought in now; the 2 MiB of slack lets huge pages
 * cover the end of the range too. */
static void
reserve_rows (GArray *a, gsize n)
{
  gsize element = g_array_get_element_size (a);
  guint len = a->len;
  rt_array_make_room (a, n + (2u << 20) / element);
  rt_populate_write (a->data + (gsize) len * element, n * element);
}

/* Takes a file the cache holds as it is now straight into the trace: its requests
 * are appended to the trace's table (`keep_requests`; else they are left there, for
 * take_cached_requests, or because the caller reads none: without RT_READS_REQUESTS),
 * its turns and rows stay in the mapping. `problems`: a scratch array. Touches only the
 * file's own row and state (the caller counts it, and adds its problems_total to the
 * trace's), so that files can be taken on two threads at once, unless `keep_requests`. */
static void
adopt_file (RtTrace *t, RtCacheMap *cache, guint record, guint file_index, GArray *problems,
            gboolean keep_requests)
{
  RtFile *f = &g_array_index (t->files, RtFile, file_index);
  RtFileState *fs = &t->priv->files[file_index];
  guint32 first = t->priv->requests->len;
  g_array_set_size (problems, 0);
  RtCacheSnapshot snap = { .requests = keep_requests ? t->priv->requests : NULL,
                           .turns = NULL, .problems = problems };
  rt_cache_file_snapshot (cache, record, &snap);
  rt_resume_from_snapshot (f, &fs->resume, &snap);

  f->first_request = keep_requests ? first : RT_NONE;
  f->n_requests = fs->resume.n_requests = snap.counters.n_requests;
  fs->resume.n_problems = problems->len;
  for (guint32 k = first; keep_requests && k < t->priv->requests->len; k++)
    {
      RtRequest *q = &g_array_index (t->priv->requests, RtRequest, k);
      q->file = file_index;
      q->step = f->step;
      q->worker = f->worker;
    }
  if (problems->len > 0)   /* (most files have none: no array then, 1,600 fewer to make and free) */
    {
      fs->problems = g_array_sized_new (FALSE, FALSE, sizeof (RtProblem), problems->len);
      g_array_set_clear_func (fs->problems, rt_problem_clear);
      rt_problems_from_snapshot (fs->problems, &snap, f, file_index);
    }
  fs->origin = RT_FILE_CACHED;
  fs->record = record;
  fs->mapped = snap.rows;
  fs->mapped_checksum = snap.rows_checksum;
  fs->prefix_checksum = snap.prefix_checksum;
  fs->prefix_known = snap.prefix_known;
}

static void file_state_clear (RtFileState *fs);

/* Undoes adopt_file (keep_requests FALSE) of file `file_index`: its row as discovery made it,
 * its state as new. */
static void
unadopt_file (RtTrace *t, guint file_index)
{
  RtFile *f = &g_array_index (t->files, RtFile, file_index);
  RtFile found = { .path = f->path, .step = f->step, .worker = f->worker, .size = f->size,
                   .mtime_us = f->mtime_us, .inode = f->inode, .ctime_ns = f->ctime_ns };
  *f = found;
  RtFileState *fs = &t->priv->files[file_index];
  file_state_clear (fs);
  memset (fs, 0, sizeof *fs);
}

/* What the cache keeps the durations of all the steps together as (step numbers are
 * never negative). */
/* The parts of the cached tables of file `file` the caller reads (RtLoadOptions; the turns
 * the cache's turn sums stand in for are not read). */
static RtCacheTables
tables_read (const RtTracePrivate *priv, guint file)
{
  return RT_CACHE_REQUESTS | (!priv->keeps.turns || file < priv->turns_unchecked ? 0 : RT_CACHE_TURNS)
         | (!priv->keeps.ids || priv->keeps.ids_when_read ? 0 : RT_CACHE_IDS);
}

/* trace->requests: the load's own table, numbered after the cache's (if used in place). */
static void
publish_requests (RtTrace *t)
{
  t->requests = (const RtRequest *) t->priv->requests->data;
  t->n_requests = t->n_cached_requests + t->priv->requests->len;
}

/* The requests of files first ... first + n - 1, each taken whole from the cache as the
 * record of its own number, read where the cache keeps them, numbered first: the part of
 * the cache's table that holds them (with those it keeps of a file read on since, which
 * no file then numbers). The files read in this load have theirs numbered after them. Once
 * per load, once every file is read. FALSE when they do not lie there one file after
 * another. */
static gboolean
take_requests_in_place (RtTrace *t, guint first, guint n)
{
  RtTracePrivate *priv = t->priv;
  /* the records of a delta are read on (never complete: see load_files), their requests the
   * load's own: those in place are the base's */
  guint in_base = rt_cache_n_base_files (priv->cache);
  n = MIN (first + n, in_base) - MIN (first, in_base);
  first = MIN (first, in_base);
  /* every request of the range is in the trace's table (t->requests), those of a file read anew
   * since too, which no file numbers: checked as well, so that none points out of the tables
   * (their file, their turns, their id) */
  for (guint r = first; r < first + n; r++)
    if (!rt_cache_file_tables_ok (priv->cache, r, RT_CACHE_REQUESTS))
      return FALSE;
  const char *ids, *texts;
  guint32 count;
  const RtRequest *at = rt_cache_requests (priv->cache, first, n, &count, &ids, &texts);
  if (at == NULL)
    return FALSE;
  guint32 base = n > 0 ? rt_cache_first_request (priv->cache, first) : 0;
  for (guint i = 0; i < t->files->len; i++)
    {
      RtFile *f = &g_array_index (t->files, RtFile, i);
      if (f->first_request != RT_NONE)
        f->first_request += count;   /* the load's own */
      else if (i >= first && i < first + n)
        f->first_request = rt_cache_first_request (priv->cache, i) - base;
    }
  /* the texts of the load's own requests as the cache's count theirs (modulo 2^64: the
   * accessors' sum is their address again) */
  for (guint k = 0; k < priv->requests->len; k++)
    {
      RtRequest *q = &g_array_index (priv->requests, RtRequest, k);
      q->id -= (guintptr) ids;
      if (q->finish_reason != 0)
        q->finish_reason -= (guintptr) texts;
    }
  t->cached_requests = at;
  t->n_cached_requests = count;
  if (priv->engine != NULL)
    priv->cached_engine = priv->engine + base;
  t->request_ids_at = (guintptr) ids;
  t->request_texts_at = (guintptr) texts;
  priv->requests_in_place = TRUE;
  /* A large table is not kept resident: its pages, read by the checks, go back now, and those
   * an analysis reads step by step go back after each step (rt_trace_requests_done), so that a
   * command's memory does not grow with the trace (at 104M lines, 300 MB of requests and 140
   * MB of ids a cached rt-report held). A smaller one stays: faulting it in again would cost
   * the commands that read it whole a few milliseconds for memory that does not matter. */
  priv->release_tables = rt_load_cache_is_large (priv->cache);
  if (priv->release_tables)
    rt_cache_release_file_tables (priv->cache, first, n, RT_CACHE_REQUESTS | RT_CACHE_IDS);
  publish_requests (t);
  return TRUE;
}

/* Takes from the cache the requests adopt_files left there of files first ... first + n - 1
 * (those read on from the cache have theirs already): in place when the cache holds every
 * file in order (no copy, no memory of their own), else copied into the trace's table. FALSE
 * when the tables of one of them fail their checks (none is taken then). */
static gboolean
take_cached_requests (RtTrace *t, guint first, guint n)
{
  RtTracePrivate *priv = t->priv;
  RtCacheMap *cache = priv->cache;
  guint64 n_requests = 0;
  for (guint i = first; i < first + n; i++)
    if (rt_trace_file (t, i)->first_request == RT_NONE)
      {
        if (!rt_cache_file_tables_ok (cache, priv->files[i].record, tables_read (priv, i)))
          return FALSE;
        n_requests += rt_trace_file (t, i)->n_requests;
      }
  if (priv->cache_in_order && take_requests_in_place (t, first, n))
    return TRUE;
  /* copied, they have no engine times from the cache: their turns are read after all */
  for (guint i = first; priv->turns_unchecked > 0 && i < first + n; i++)
    if (rt_trace_file (t, i)->first_request == RT_NONE
        && !rt_cache_file_tables_ok (cache, priv->files[i].record, RT_CACHE_TURNS))
      return FALSE;
  priv->turns_unchecked = 0;
  reserve_rows (t->priv->requests, n_requests);
  gboolean release = rt_load_cache_is_large (cache);
  g_autoptr (GArray) problems = g_array_new (FALSE, FALSE, sizeof (RtCacheProblem));
  for (guint i = first; i < first + n; i++)
    {
      RtFile *f = &g_array_index (t->files, RtFile, i);
      if (f->first_request != RT_NONE)
        continue;
      guint32 at = t->priv->requests->len;
      g_array_set_size (problems, 0);
      RtCacheSnapshot snap = { .requests = t->priv->requests, .turns = NULL, .problems = problems };
      rt_cache_file_snapshot (cache, priv->files[i].record, &snap);
      if (release)   /* copied: the cache's pages of them go back now (see check_tables_slice) */
        rt_cache_release_file_tables (cache, priv->files[i].record, 1, RT_CACHE_REQUESTS);
      f->first_request = at;
      for (guint32 k = at; k < t->priv->requests->len; k++)
        {
          RtRequest *q = &g_array_index (t->priv->requests, RtRequest, k);
          q->file = i;
          q->step = f->step;
          q->worker = f->worker;
        }
    }
  if (n == t->files->len)
    rt_cache_requests_taken (cache);   /* the trace has its own now */
  publish_requests (t);
  return TRUE;
}

/* The checks of the cached tables of the files to be taken from the cache (see adopt_files),
 * in slices of files that rt_run_shared shares out; and, beside them, the check of the
 * cache's turn sums, and the taking of the files whose requests stay in the cache, each
 * slice its own. */
#define TABLE_CHECK_SLICES 8

typedef struct {
  RtTrace *t;
  RtCacheMap *cache;
  const RtCacheMatch *matches;
  const guint *records;
  const gboolean *complete;
  gboolean keep_requests, turns_by_file;
  RtCacheTables prefetch;       /* the tables whose pages each slice brings in first */
  gboolean check_sums;          /* task 0 checks the turn sums (rt_cache_turn_sums_ok) */
  gboolean sums_bad;            /* ...and they failed */
  gboolean adopt;               /* each slice takes its files (adopt_file, requests left) */
  gboolean release;             /* each slice gives back the pages it checked */
  guint n_slices;
  gint failed;                  /* (atomic) some check failed: the others may stop */
  guint64 problems_total[TABLE_CHECK_SLICES];   /* of the files each slice took */
  guint adopted[TABLE_CHECK_SLICES];            /* how many */
} TableChecks;

static void
check_tables_slice (gpointer data, guint task)
{
  TableChecks *tc = data;
  if (tc->check_sums && task-- == 0)
    {
      tc->sums_bad = !rt_cache_turn_sums_ok (tc->cache);
      return;
    }
  guint slice = task;
  guint n_files = tc->t->files->len;
  guint first = (guint) ((guint64) n_files * slice / tc->n_slices);
  guint end = (guint) ((guint64) n_files * (slice + 1) / tc->n_slices);
  const RtTracePrivate *priv = tc->t->priv;
  if (tc->prefetch != 0)
    {
      /* (without the turns the cache's turn sums stand in for) */
      guint split = CLAMP (priv->turns_unchecked, first, end);
      g_autofree guint *mine = g_new (guint, end - first + 1);
      for (guint part = 0; part < 2; part++)
        {
          guint n = 0;
          for (guint i = part ? split : first; i < (part ? end : split); i++)
            if (tc->matches[i] != RT_CACHE_MISS)
              mine[n++] = tc->records[i];
          if (n > 0)
            rt_cache_prefetch_file_tables (tc->cache, mine, n,
                                           part ? tc->prefetch : tc->prefetch & ~RT_CACHE_TURNS);
        }
    }
  /* each record is checked by one slice only: files have records of their own */
  for (guint i = first; i < end && !g_atomic_int_get (&tc->failed); i++)
    {
      gboolean ok = TRUE;
      if (tc->matches[i] != RT_CACHE_MISS && (tc->keep_requests || !tc->complete[i]))
        ok = rt_cache_file_tables_ok (tc->cache, tc->records[i],
                                      tc->complete[i] ? tables_read (priv, i) : RT_CACHE_ALL_TABLES);
      else if (tc->matches[i] != RT_CACHE_MISS && tc->turns_by_file && i >= priv->turns_unchecked)
        ok = rt_cache_file_tables_ok (tc->cache, tc->records[i], RT_CACHE_TURNS);
      if (!ok)
        g_atomic_int_set (&tc->failed, TRUE);
    }
  /* a large cache's tables, checked, go back (rt_trace_requests_done says why): read again from
   * the page cache when an analysis comes to them */
  guint lo = G_MAXUINT, hi = 0;
  for (guint i = first; tc->release && i < end; i++)
    if (tc->matches[i] != RT_CACHE_MISS)
      {
        lo = MIN (lo, tc->records[i]);
        hi = MAX (hi, tc->records[i] + 1);
      }
  if (hi > lo)
    rt_cache_release_file_tables (tc->cache, lo, hi - lo, RT_CACHE_ALL_TABLES);
  /* taken here rather than one after another once all are checked (thousands of files,
   * their states' pages touched for the first time on the calling thread);
   * undone should another slice fail its checks */
  if (!tc->adopt || g_atomic_int_get (&tc->failed))
    return;
  g_autoptr (GArray) problems = g_array_new (FALSE, FALSE, sizeof (RtCacheProblem));
  for (guint i = first; i < end; i++)
    if (tc->matches[i] == RT_CACHE_SAME && tc->complete[i])
      {
        adopt_file (tc->t, tc->cache, tc->records[i], i, problems, FALSE);
        tc->problems_total[slice] += rt_trace_file (tc->t, i)->problems_total;
        tc->adopted[slice]++;
      }
}

/* Runs the checks `tc` describes: in slices, two at a time when they are many (a helper is
 * not started for a few files, nor for none: rt-check checks only those it reads on from
 * the cache). The checksums of the requests are most of a cached rt-turn-dist. */
static void
check_tables (TableChecks *tc, guint n_threads)
{
  guint n_files = tc->t->files->len;
  guint to_check = 0;
  for (guint i = 0; i < n_files; i++)
    to_check += tc->matches[i] != RT_CACHE_MISS
                && (tc->keep_requests || !tc->complete[i]
                    || (tc->turns_by_file && i >= tc->t->priv->turns_unchecked));
  tc->n_slices = to_check == 0 ? 0 : MIN (n_files, TABLE_CHECK_SLICES);
  guint n_tasks = tc->n_slices + (tc->check_sums ? 1 : 0);
  rt_run_shared (n_tasks, to_check >= TABLE_CHECK_SLICES ? n_threads : 1, check_tables_slice, tc);
}

/* Adopts the files the cache holds as they are now with nothing to read
 * (matches[i] RT_CACHE_SAME and complete[i]; records[i]: where the cache holds file
 * i), with as much of their tables as the caller reads: when every file is as the
 * cache holds it (`whole`: no new cache will be written), the requests (and turns)
 * of a caller that never reads them are left out, provided the cache holds every
 * step's durations, which stand in for them. FALSE when tables that must be taken,
 * or that the files read on from the cache take, fail their checks (nothing was
 * taken then). */
static gboolean
adopt_files (RtTrace *t, RtCacheMap *cache, const RtCacheMatch *matches, const guint *records,
             const gboolean *complete, gboolean whole, GArray *problems)
{
  RtTracePrivate *priv = t->priv;
  guint n_files = t->files->len;
  gboolean keep_requests = !whole || priv->keeps.requests;
  for (guint i = 0; !keep_requests && i < n_files; i++)
    if (matches[i] == RT_CACHE_SAME)
      {
        priv->files[i].as_cached = TRUE;   /* what durations_from_cache asks */
        priv->files[i].record = records[i];
      }
  for (guint si = 0; !keep_requests && si < t->steps->len; si++)
    {
      guint n;
      keep_requests = rt_trace_step_sorted_durations (t, si, &n) == NULL;
    }
  /* every file as cached (but for unterminated last pieces, read on here): the caller may
   * want one step's requests only, which it can tell once the rest is loaded
   * (take_deferred_requests) */
  if (keep_requests && whole && priv->opts.requests_of_one_step != NULL)
    {
      priv->requests_deferred = TRUE;
      keep_requests = FALSE;
    }
  /* each file taken whole the record of its own number (as in a cache this load would write;
   * those read, or read on, have requests of their own, numbered after): the requests can be
   * read where the cache keeps them (take_cached_requests), also when steps were appended */
  priv->cache_in_order = TRUE;
  for (guint i = 0; priv->cache_in_order && i < n_files; i++)
    priv->cache_in_order = matches[i] != RT_CACHE_SAME || !complete[i] || records[i] == i;
  /* the first files with nothing to read, each the record of its own number: for a caller
   * that reads the turns of every file only summed, the cache's turn sums of some of them are
   * those of their turns here, which need not be checked then when the requests are used in
   * place (their engine times being the cache's too), or not taken at all. The sums and engine
   * times themselves are checked beside the files' tables */
  guint prefix = 0;
  while (priv->keeps.turns_summed && prefix < n_files && matches[prefix] == RT_CACHE_SAME && complete[prefix]
         && records[prefix] == prefix)
    prefix++;
  if (prefix > 0)
    priv->turn_sums = rt_cache_turn_sums_unchecked (cache, prefix, &priv->n_turn_sums, &priv->turn_sums_files,
                                                    &priv->engine);
  if (priv->turn_sums != NULL && (!keep_requests || priv->cache_in_order))
    priv->turns_unchecked = priv->turn_sums_files;
  /* in place once the files read on are read, and numbered after them (take_cached_requests) */
  gboolean copy = keep_requests && !priv->cache_in_order;
  /* a file restored from the cache and read on needs all its tables, whatever the caller;
   * one that reads no request but turns reads those of the files taken whole */
  TableChecks tc = {
    .t = t, .cache = cache, .matches = matches, .records = records, .complete = complete,
    .keep_requests = keep_requests,
    .turns_by_file = !keep_requests && priv->keeps.turns,
    .prefetch = keep_requests && whole ? tables_read (priv, n_files) : 0,
    .check_sums = priv->turn_sums != NULL,
    .adopt = !copy,
    .release = rt_load_cache_is_large (cache),
  };
  if (tc.turns_by_file)
    tc.prefetch = RT_CACHE_TURNS;
  check_tables (&tc, n_threads_of (&priv->opts));
  if (tc.sums_bad && !g_atomic_int_get (&tc.failed))
    {
      /* damaged turn sums: the turns they would have stood in for are checked after all
       * (each file's other tables were, once), and read */
      priv->turn_sums = NULL;
      priv->engine = NULL;
      priv->turns_unchecked = 0;
      tc.check_sums = FALSE;
      tc.adopt = FALSE;
      tc.prefetch = 0;
      check_tables (&tc, n_threads_of (&priv->opts));
    }
  gboolean tables_ok = !g_atomic_int_get (&tc.failed);
  guint adopted = 0;
  for (guint k = 0; k < TABLE_CHECK_SLICES; k++)
    adopted += tc.adopted[k];
  if (!tables_ok)
    {
      for (guint i = 0; adopted > 0 && i < n_files; i++)
        if (priv->files[i].origin == RT_FILE_CACHED)
          unadopt_file (t, i);
      for (guint i = 0; i < n_files; i++)
        priv->files[i].as_cached = FALSE;
      rt_load_forget_durations (priv, t->steps->len);
      priv->requests_deferred = FALSE;
      priv->cache_in_order = FALSE;
      priv->turn_sums = NULL;
      priv->engine = NULL;
      priv->turns_unchecked = 0;
      return FALSE;
    }
  if (keep_requests && !copy)
    priv->requests_deferred = TRUE;
  if (copy)
    {
      /* the exact size: the table then grows without a copy */
      reserve_rows (t->priv->requests, rt_cache_n_requests (cache));
    }
  for (guint k = 0; k < TABLE_CHECK_SLICES; k++)
    t->problems_total += tc.problems_total[k];
  t->stats.files_cached += adopted;
  for (guint i = 0; i < n_files; i++)
    if (matches[i] == RT_CACHE_SAME)
      {
        priv->files[i].as_cached = TRUE;   /* (what durations_from_cache asks) */
        priv->files[i].record = records[i];
        if (complete[i] && priv->files[i].origin != RT_FILE_CACHED)
          {
            adopt_file (t, cache, records[i], i, problems, copy);
            if (copy && tc.release)   /* copied: the cache's pages of them go back now */
              rt_cache_release_file_tables (cache, records[i], 1, RT_CACHE_REQUESTS);
            t->problems_total += rt_trace_file (t, i)->problems_total;
            t->stats.files_cached++;
          }
      }
  if (copy)
    rt_cache_requests_taken (cache);   /* the trace has its own now */
  return TRUE;
}

/* A delta holds at most this share of the base's bytes of JSONL: its files are copied out at
 * every load, and written again with each new step, where the base's are used in place. */
#define DELTA_SHARE_MAX 8

/* The first file of the delta this load writes, when it writes one (RtTracePrivate.delta_from):
 * the files of the cache's base are the first ones, each as it was; every other one is in a step
 * after theirs (new, or in the old delta); and they hold at most 1/DELTA_SHARE_MAX of the base's
 * bytes. 0 otherwise: a new base. (No other file: the delta's are gone, and so goes the delta.) */
static guint
delta_from (const RtTrace *t, RtCacheMap *cache, const RtCacheMatch *matches, const guint *records)
{
  guint n_base = rt_cache_n_base_files (cache);
  if (n_base == 0 || n_base > t->files->len)
    return 0;
  guint64 base_bytes = 0, delta_bytes = 0;
  for (guint i = 0; i < n_base; i++)
    {
      if (matches[i] != RT_CACHE_SAME || records[i] != i)
        return 0;
      base_bytes += rt_trace_file (t, i)->size;
    }
  gint32 last_step = rt_trace_file (t, n_base - 1)->step;
  for (guint i = n_base; i < t->files->len; i++)
    {
      if (rt_trace_file (t, i)->step <= last_step)
        return 0;
      delta_bytes += rt_trace_file (t, i)->size;
    }
  return delta_bytes <= base_bytes / DELTA_SHARE_MAX ? n_base : 0;
}

/* The files read on from the cache without a pool (see load_files). */
typedef struct {
  LoadJob *job;
  GArray *files;                /* guint: their indices */
} InlineReads;

static void
read_inline (gpointer data, guint task)
{
  InlineReads *ir = data;
  load_one_file (GUINT_TO_POINTER (g_array_index (ir->files, guint, task) + 1), ir->job);
}

/* Below this much JSONL to read, no pool is started: the calling thread reads it, with a
 * helper when there are several files. */
#define INLINE_READ_BYTES (4u << 20)

static gboolean
load_files (RtTrace *trace, RtCacheMap *cache, GError **error)
{
  const RtLoadOptions *opts = &trace->priv->opts;
  g_autofree gint *taken = g_new0 (gint, MAX (trace->files->len, 1u));
  g_autofree guint64 *read_from = g_new0 (guint64, MAX (trace->files->len, 1u));
  LoadJob job = { .trace = trace, .cache = cache, .taken = taken, .read_from = read_from };
  g_mutex_init (&job.lock);
  g_cond_init (&job.done_cond);

  guint n_threads = n_threads_of (opts);
  guint64 total_bytes = 0;
  for (guint i = 0; i < trace->files->len; i++)
    total_bytes += rt_trace_file (trace, i)->size;
  /* a tree larger than the memory cannot stay in the page cache: read in order, each file would
   * push out one still to be read (ROLLTRACE_DROP_READ=1: any tree, for the tests) */
  long pages = sysconf (_SC_PHYS_PAGES), page = sysconf (_SC_PAGESIZE);
  job.drop_read = (pages > 0 && page > 0 && total_bytes > (guint64) pages * (guint64) page)
                  || g_strcmp0 (g_getenv ("ROLLTRACE_DROP_READ"), "1") == 0;

  /* Reserve the tables for the whole experiment at once (lines run 200-400 bytes;
   * a request takes some kilobytes, a turn at least one): appending file after
   * file then never copies them, and reserved memory that is never written is
   * never resident. Not when a cache will hold them. */
  if (cache == NULL)
    {
      if (trace->priv->keeps.rows)
        rt_array_make_room (trace->events, total_bytes / 160 + 1024);
      rt_array_make_room (trace->priv->requests, total_bytes / 4096 + 1024);
      rt_array_make_room (trace->turns, total_bytes / 2048 + 1024);
    }

  /* Files the cache holds exactly as they are now are taken over here, in bulk,
   * before any thread starts; only the others are read. */
  guint64 to_read = 0;
  g_autoptr (GArray) problems = g_array_new (FALSE, FALSE, sizeof (RtCacheProblem));
  guint n_files = trace->files->len;
  /* what the cache holds of each file, where, and whether nothing is left to read */
  g_autofree RtCacheMatch *matches = g_new0 (RtCacheMatch, n_files + 1);
  g_autofree guint *records = g_new0 (guint, n_files + 1);
  g_autofree gboolean *complete = g_new0 (gboolean, n_files + 1);
  gboolean whole = cache != NULL && rt_cache_n_files (cache) == n_files;
  if (cache != NULL)   /* files taken whole keep their turns there: numbered first */
    trace->cached_turns = rt_cache_turns (cache, &trace->n_cached_turns);
  for (guint i = 0; i < n_files; i++)
    {
      const RtFile *f = rt_trace_file (trace, i);
      matches[i] = cache != NULL ? rt_cache_match (cache, f, &records[i]) : RT_CACHE_MISS;
      if (matches[i] == RT_CACHE_MISS)
        to_read += f->size;
      else
        {
          /* a file of the delta is restored (its tables copied) rather than taken in place */
          complete[i] = matches[i] == RT_CACHE_SAME && rt_cache_complete (cache, records[i], f)
                        && records[i] < rt_cache_n_base_files (cache);
          read_from[i] = rt_cache_resume_offset (cache, records[i]);
          if (!complete[i])
            to_read += f->size - read_from[i];
        }
      whole = whole && matches[i] == RT_CACHE_SAME;
    }
  if (cache != NULL && trace->priv->cache_path != NULL)
    trace->priv->delta_from = delta_from (trace, cache, matches, records);
  if (cache != NULL && !adopt_files (trace, cache, matches, records, complete, whole, problems))
    {
      /* its tables failed their checks before any was used: as if there were none */
      trace->stats.cache_used = FALSE;
      trace->stats.cache_rejected = "damaged tables";
      g_clear_pointer (&trace->priv->cache, rt_cache_close);
      job.cache = cache = NULL;
      memset (read_from, 0, sizeof *read_from * n_files);
      trace->priv->delta_from = 0;
      trace->cached_turns = NULL;
      trace->n_cached_turns = 0;
      to_read = total_bytes;
    }
  job.files_done = trace->stats.files_cached;

  /* With a cache, what is left to read is often only the newest lines of a
   * running job: read here, as starting a pool would cost more. Each such file is
   * restored whole from the cache before its last lines are read (a cost per file, however
   * few the bytes: bench/RESULTS.md, "Behind the code"): with several, a helper takes some. */
  gboolean inline_read = cache != NULL && to_read < INLINE_READ_BYTES;
  if (inline_read)
    {
      InlineReads ir = { .job = &job, .files = g_array_new (FALSE, FALSE, sizeof (guint)) };
      for (guint i = 0; i < trace->files->len; i++)
        if (trace->priv->files[i].origin == RT_FILE_UNREAD)
          g_array_append_val (ir.files, i);
      rt_run_shared (ir.files->len, n_threads, read_inline, &ir);
      g_array_unref (ir.files);
    }

  GThreadPool *pool = g_thread_pool_new (load_one_file, &job, (gint) n_threads, FALSE, error);
  if (pool == NULL)
    return FALSE;
  gboolean pushed = TRUE;   /* each file with a thread to read it, or one already there */
  for (guint i = 0; i < trace->files->len; i++)
    if (trace->priv->files[i].origin == RT_FILE_UNREAD)
      pushed &= g_thread_pool_push (pool, GUINT_TO_POINTER (i + 1), NULL);

  /* Wait, drawing a progress line once loading has taken more than a second. */
  gint64 started = g_get_monotonic_time ();
  gboolean shown = FALSE;
  g_mutex_lock (&job.lock);
  while (job.files_done < trace->files->len)
    {
      g_cond_wait_until (&job.done_cond, &job.lock, g_get_monotonic_time () + G_USEC_PER_SEC / 4);
      if (opts->progress && g_get_monotonic_time () - started > G_USEC_PER_SEC)
        {
          show_progress (&job, total_bytes, started, FALSE);
          shown = TRUE;
        }
      /* No thread could be started for the files left (a limit on processes, or on memory
       * for their stacks): the pool keeps them queued for a thread that never comes, and
       * the load waited for ever. They are read here instead, once no thread of the pool is
       * left: a thread leaves only when the queue is empty. */
      if (!pushed && pool != NULL)
        {
          g_mutex_unlock (&job.lock);
          if (g_thread_pool_get_num_threads (pool) == 0 && g_thread_pool_unprocessed (pool) > 0)
            {
              g_thread_pool_free (g_steal_pointer (&pool), TRUE, TRUE);   /* the queue dropped */
              for (guint i = 0; i < trace->files->len; i++)
                if (trace->priv->files[i].origin == RT_FILE_UNREAD && !g_atomic_int_get (&job.taken[i]))
                  load_one_file (GUINT_TO_POINTER (i + 1), &job);
            }
          g_mutex_lock (&job.lock);
        }
    }
  g_mutex_unlock (&job.lock);
  if (pool != NULL)
    g_thread_pool_free (pool, FALSE, TRUE);
  if (shown)
    show_progress (&job, total_bytes, started, TRUE);

  g_mutex_clear (&job.lock);
  g_cond_clear (&job.done_cond);
  if (job.error != NULL)
    {
      g_propagate_error (error, job.error);
      return FALSE;
    }
  return TRUE;
}

/* Takes from the cache the requests adopt_files left there for the caller to choose: of the
 * one step RtLoadOptions.requests_of_one_step names, else of every file. FALSE when the
 * tables of one of them fail their checks (none is taken then). */
static gboolean
take_deferred_requests (RtTrace *t)
{
  RtTracePrivate *priv = t->priv;
  guint first = 0, n = t->files->len, si;
  if (priv->opts.requests_of_one_step != NULL
      && priv->opts.requests_of_one_step (t, priv->opts.requests_of_one_step_data, &si)
      && si < t->steps->len)
    {
      first = rt_trace_step (t, si)->first_file;
      n = rt_trace_step (t, si)->n_files;
    }
  priv->requests_deferred = FALSE;
  return take_cached_requests (t, first, n);
}

static int
compare_problems (gconstpointer a, gconstpointer b)
{
  const RtProblem *pa = a, *pb = b;
  if (pa->file != pb->file)
    return pa->file < pb->file ? -1 : 1;
  return pa->line < pb->line ? -1 : pa->line > pb->line;
}

/* Every file's problems, in file and line order, in one list. */
static void
gather_problems (RtTrace *trace)
{
  for (guint i = 0; i < trace->files->len; i++)
    {
      GArray *fp = trace->priv->files[i].problems;
      for (guint k = 0; fp && k < fp->len; k++)
        {
          RtProblem pr = g_array_index (fp, RtProblem, k);
          pr.where = g_strdup (pr.where);
          g_array_append_val (trace->problems, pr);
        }
    }
  g_array_sort (trace->problems, compare_problems);
}

void
rt_trace_finish_steps (RtTrace *trace)
{
  for (guint i = 0; i < trace->steps->len; i++)
    {
      RtStep *st = &g_array_index (trace->steps, RtStep, i);
      st->start_s = NAN;
      for (guint k = 0; k < st->n_files; k++)
        {
          double s = rt_trace_file (trace, st->first_file + k)->start_min_s;
          if (!isnan (s) && (isnan (st->start_s) || s < st->start_s))
            st->start_s = s;
        }
    }
}

static void
duplicate_clear (gpointer data)
{
  RtDuplicate *d = data;
  g_free (d->path);
  g_free (d->same_as);
}

RtTrace *
rt_trace_load (const char *exp_path, const RtLoadOptions *opts, GError **error)
{
  static const RtLoadOptions defaults = { .max_problems_per_file = 1000 };
  if (opts == NULL)
    opts = &defaults;

  if (!g_file_test (exp_path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT, "%s: no such experiment folder",
                   exp_path);
      rt_trace_kept_cache_free (opts->kept_cache);
      return NULL;
    }
  if (!g_file_test (exp_path, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT,
                   "%s is not a folder: expected EXP/step_N/worker_M.jsonl", exp_path);
      rt_trace_kept_cache_free (opts->kept_cache);
      return NULL;
    }

  g_autoptr (RtTrace) trace = g_new0 (RtTrace, 1);
  trace->path = g_strdup (exp_path);
  g_autofree char *canonical = g_canonicalize_filename (exp_path, NULL);
  trace->name = g_path_get_basename (canonical);
  trace->registry = rt_event_registry_new ();
  trace->files = g_array_new (FALSE, TRUE, sizeof (RtFile));
  trace->steps = g_array_new (FALSE, TRUE, sizeof (RtStep));
  trace->events = g_array_new (FALSE, FALSE, sizeof (RtEvent));
  trace->turns = g_array_new (FALSE, FALSE, sizeof (RtTurnFigures));
  trace->strays = g_ptr_array_new_with_free_func (g_free);
  trace->trainer_files = g_ptr_array_new_with_free_func (g_free);
  trace->duplicates = g_array_new (FALSE, FALSE, sizeof (RtDuplicate));
  g_array_set_clear_func (trace->duplicates, duplicate_clear);
  trace->problems = g_array_new (FALSE, FALSE, sizeof (RtProblem));
  g_array_set_clear_func (trace->problems, rt_problem_clear);
  trace->string_chunks = g_ptr_array_new_with_free_func ((GDestroyNotify) g_string_chunk_free);
  trace->priv = g_new0 (RtTracePrivate, 1);
  g_mutex_init (&trace->priv->lazy_lock);
  trace->priv->opts = *opts;
  trace->priv->keeps = rt_load_keeps (opts->reads);
  trace->priv->requests = g_array_new (FALSE, FALSE, sizeof (RtRequest));
  /* a caller that reads no request, id, turn or row gets each step's durations: of each
   * request the load keeps that alone (at 100M lines, 30 MB instead of 300 MB of requests and
   * 180 MB of ids), and a cache to write gets the rest of each file's tables on disk */
  RtLoadKeeps *k = &trace->priv->keeps;
  if (!k->requests && !k->ids && !k->turns && !k->rows)
    trace->priv->kept_durations = g_array_new (FALSE, FALSE, sizeof (double));
  trace->priv->opts.cache_dir = NULL;
  if (g_strcmp0 (g_getenv ("ROLLTRACE_PARSE"), "lines") == 0)
    trace->priv->opts.line_by_line = TRUE;

  if (opts->cache_dir != NULL)
    trace->priv->cache_path = rt_load_cache_path (opts->cache_dir, canonical);
  RtCacheMap *cache = NULL;
  if (!rt_load_discover (trace, canonical, n_threads_of (opts), &cache, error))
    return NULL;
  trace->priv->cache = cache;
  trace->stats.cache_used = cache != NULL;
  /* with a cache, files come from it as they are: the durations alone are kept only when
   * every file is read (the tables the new cache needs are put aside as they are read) */
  if (cache != NULL)
    g_clear_pointer (&trace->priv->kept_durations, g_array_unref);
  trace->priv->files = g_new0 (RtFileState, trace->files->len);
  trace->priv->step_durations = g_new0 (RtStepDurations, trace->steps->len);
  if (!load_files (trace, cache, error))
    return NULL;
  publish_requests (trace);
  gather_problems (trace);
  rt_trace_finish_steps (trace);
  /* (before a new cache is written, which checks every table it copies from the old one: a
   * file's tables found damaged there are no longer taken, even those the caller reads) */
  if (trace->priv->requests_deferred && !take_deferred_requests (trace))
    {
      /* Damaged requests, found after the rest was taken from the same cache: this cache
       * answers nothing; it goes, and the experiment is read again (and cached anew). */
      rt_cache_discard (trace->priv->cache, trace->priv->cache_path);
      g_clear_pointer (&trace, rt_trace_free);
      RtLoadOptions again = *opts;
      again.kept_cache = NULL;   /* (this load took it) */
      trace = rt_trace_load (exp_path, &again, error);
      if (trace != NULL)
        trace->stats.cache_rejected = "damaged tables";
      return g_steal_pointer (&trace);
    }
  rt_load_update_cache (trace, trace->priv->cache);
  /* ids left unchecked: checked when read */
  trace->request_ids_unchecked = trace->priv->cache != NULL && trace->priv->keeps.ids_when_read;
  return g_steal_pointer (&trace);
}

RtCacheMap *
rt_trace_take_cache (RtTrace *t)
{
  return g_steal_pointer (&t->priv->cache);
}

void
rt_trace_kept_cache_free (RtCacheMap *cache)
{
  rt_cache_close (cache);
}

static void
file_state_clear (RtFileState *fs)
{
  g_clear_pointer (&fs->timing_turns, g_array_unref);
  g_clear_pointer (&fs->end_turns, g_array_unref);
  g_clear_pointer (&fs->problems, g_array_unref);
  g_clear_pointer (&fs->resume.requests, g_array_unref);
  g_clear_pointer (&fs->own_events, g_array_unref);
  g_clear_pointer (&fs->own_ids, g_ptr_array_unref);
  g_clear_pointer (&fs->own_ids_text, g_string_chunk_free);
  g_clear_pointer (&fs->cut_events, g_array_unref);
}

void
rt_trace_free (RtTrace *trace)
{
  if (trace == NULL)
    return;
  if (trace->priv != NULL)
    {
      for (guint i = 0; trace->priv->files && i < trace->files->len; i++)
        file_state_clear (&trace->priv->files[i]);
      g_free (trace->priv->files);
      rt_load_forget_durations (trace->priv, trace->steps->len);
      g_free (trace->priv->step_durations);
      g_clear_pointer (&trace->priv->kept_durations, g_array_unref);
      g_clear_pointer (&trace->priv->draft, rt_cache_draft_free);
      g_clear_pointer (&trace->priv->cache, rt_cache_close);
      g_clear_pointer (&trace->priv->opts.kept_cache, rt_cache_close);   /* (never opened) */
      g_free (trace->priv->cache_path);
      g_clear_pointer (&trace->priv->requests, g_array_unref);
      g_mutex_clear (&trace->priv->lazy_lock);
      g_free (trace->priv);
    }
  for (guint i = 0; trace->files && i < trace->files->len; i++)
    g_free (g_array_index (trace->files, RtFile, i).path);
  g_clear_pointer (&trace->files, g_array_unref);
  g_clear_pointer (&trace->steps, g_array_unref);
  g_clear_pointer (&trace->events, g_array_unref);
  g_clear_pointer (&trace->turns, g_array_unref);
  g_clear_pointer (&trace->strays, g_ptr_array_unref);
  g_clear_pointer (&trace->trainer_files, g_ptr_array_unref);
  g_clear_pointer (&trace->duplicates, g_array_unref);
  g_clear_pointer (&trace->problems, g_array_unref);
  g_clear_pointer (&trace->string_chunks, g_ptr_array_unref);
  g_clear_pointer (&trace->registry, rt_event_registry_free);
  g_free (trace->path);
  g_free (trace->name);
  g_free (trace);
}

int
rt_trace_find_step (const RtTrace *t, gint32 step)
{
  for (guint i = 0; i < t->steps->len; i++)
    if (rt_trace_step (t, i)->step == step)
      return (int) i;
  return -1;
}
