/* SPDX-License-Identifier: Apache-2.0 */
/* load-lazy.c: what a load keeps of what its caller said it reads (RtLoadOptions.reads), and
 * what it leaves to the first use: the rows and request ids of a file taken
 * from the cache are checked against their checksums when first read, and the file is read
 * again, on its own, when they fail (a damaged cache costs time, never a wrong answer). */
#include "load-private.h"
#include "rolltrace/rt-text.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* What a load keeps, and so what may be read of it later: a read outside it is undeclared. */
RtLoadKeeps
rt_load_keeps (RtReads reads)
{
  if (reads == RT_READS_EVERYTHING)
    reads = RT_READS_ALL;
  const char *check = g_getenv ("ROLLTRACE_CHECK_READS");
  return (RtLoadKeeps) {
    .rows = (reads & RT_READS_ROWS) != 0,
    .requests = (reads & RT_READS_REQUESTS) != 0,
    .turns = (reads & (RT_READS_TURNS | RT_READS_TURN_SUMS)) != 0,
    .turns_summed = (reads & RT_READS_TURN_SUMS) && !(reads & RT_READS_TURNS),
    .ids = (reads & (RT_READS_REQUEST_IDS | RT_READS_SOME_IDS)) != 0,
    .ids_when_read = (reads & RT_READS_SOME_IDS) && !(reads & RT_READS_REQUEST_IDS),
#ifdef NDEBUG
    .strict = check != NULL && strcmp (check, "0") != 0,
#else
    .strict = check == NULL || strcmp (check, "0") != 0,
#endif
  };
}

/* A file of the trace read again on its own, from its first byte (the cache was found damaged
 * where it holds the file, or the load did not keep its rows): `trace` is the trace as it is
 * but for its files (only this one), which the parse points to (cleared after it). */
typedef struct {
  RtTrace trace;
  GArray *files;
  RtFileParse *parse;
  gboolean read;                 /* the file was read to its end */
  GError *error;                 /* or why not */
} Rereading;

static void
rereading_clear (Rereading *r)
{
  g_clear_pointer (&r->parse, rt_file_parse_free);
  g_clear_pointer (&r->files, g_array_unref);
  g_clear_error (&r->error);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (Rereading, rereading_clear)

static void
read_alone (RtTrace *t, guint file, Rereading *r)
{
  RtFile scratch = *rt_trace_file (t, file);   /* a parse resets the counters of its file */
  r->files = g_array_new (FALSE, FALSE, sizeof (RtFile));
  g_array_append_val (r->files, scratch);
  r->trace = *t;
  r->trace.files = r->files;
  r->parse = rt_file_parse_new (&r->trace, 0, 0, NULL);
  r->read = rt_file_parse_read (r->parse, 0, 0, &r->error);
}

/* read_alone, because the cache was found damaged where it holds the file. */
static void
read_again (RtTrace *t, guint file, Rereading *r)
{
  const RtFile *f = rt_trace_file (t, file);
  g_printerr ("rolltrace: note: the cache of %s is damaged; reading %s again\n", t->path, f->path);
  /* the next run must not meet it again (unless another run has replaced it) */
  rt_cache_discard (t->priv->cache, t->priv->cache_path);
  read_alone (t, file, r);
}

/* The rows of a file taken whole from the cache failed their check, after its other
 * tables (requests, turns, counters) were taken from the same cache: read the file
 * again. Its rows are then the very ones those tables were made with when they give
 * the checksum the cache kept for them, which they do unless the file has changed
 * since it was found (its identity, inode, size, times, said it had not). */
static void
reread_rows (RtTrace *t, guint file)
{
  RtFileState *fs = &t->priv->files[file];
  RtFile *f = &g_array_index (t->files, RtFile, file);
  guint n_names = rt_event_registry_size (t->registry);   /* before the parse adds any */
  g_auto (Rereading) again = { 0 };
  read_again (t, file, &again);
  const RtFileParse *p = again.parse;
  gboolean read = again.read;
  const RtEvent *rows = (const RtEvent *) p->events->data;
  guint32 n_events = fs->cut ? fs->whole_events : f->n_events;
  guint32 n_requests = fs->cut ? fs->whole_requests : f->n_requests;
  fs->own_events = g_array_sized_new (FALSE, FALSE, sizeof (RtEvent), n_events);
  if (read && p->events->len >= n_events
      && rt_cache_rows_ok (rows, n_events, fs->mapped_checksum, n_names, n_requests))
    {
      g_array_append_vals (fs->own_events, rows, n_events);
      return;
    }

  /* The file no longer holds what was cached, and the answers may already have used
   * its other tables. No answer about it can then be that of one fresh load: say so,
   * take its rows as they are now, kept to what those tables can name, and keep the
   * file out of any new cache. */
  g_printerr ("rolltrace: note: %s changed while it was being analysed%s%s: its events are "
              "taken as they are now, its requests and counters as they were\n",
              f->path, read ? "" : ": ", read ? "" : again.error->message);
  fs->uncacheable = TRUE;
  for (guint i = 0; read && i < p->events->len && fs->own_events->len < n_events; i++)
    {
      RtEvent ev = rows[i];
      if (ev.event >= n_names)
        continue;   /* a name none of the tables knows */
      if (ev.request != RT_NONE && ev.request >= n_requests)
        ev.request = RT_NONE;
      g_array_append_val (fs->own_events, ev);
    }
  if (fs->cut)
    {
      fs->whole_events = fs->own_events->len;
      f->n_events = MIN (f->n_events, fs->own_events->len);
    }
  else
    f->n_events = fs->own_events->len;
}

/* The ids of a file taken whole from the cache failed their check, when one was first read
 * (RT_READS_SOME_IDS), after its requests were taken from the same cache:
 * read the file again for its requests' ids, which come in the same order unless the file
 * has changed since it was found. */
static void
reread_ids (RtTrace *t, guint file)
{
  RtFileState *fs = &t->priv->files[file];
  const RtFile *f = rt_trace_file (t, file);
  g_auto (Rereading) again = { 0 };
  read_again (t, file, &again);
  RtFileParse *p = again.parse;
  gboolean read = again.read;
  fs->own_ids = g_ptr_array_new ();
  fs->own_ids_text = g_steal_pointer (&p->strings);
  guint32 n_requests = fs->cut ? fs->whole_requests : f->n_requests;
  for (guint k = 0; read && k < p->requests->len && k < n_requests; k++)
    g_ptr_array_add (fs->own_ids, (gpointer) rt_text_at (g_array_index (p->requests, RtRequest, k).id));
  if (!read || p->requests->len != n_requests)
    {
      /* no answer about it can be that of one fresh load: say so, and keep it out of any
       * new cache; the requests it no longer has are named by an empty id */
      g_printerr ("rolltrace: note: %s changed while it was being analysed%s%s: the ids of its "
                  "requests are taken as they are now\n", f->path, read ? "" : ": ", read ? "" : again.error->message);
      fs->uncacheable = TRUE;
    }
}

/* A read of what the load was told would not be read (RtLoadOptions.reads): stopped where
 * reads are checked (the tests, debug builds), said once otherwise. */
static void undeclared_read (const RtTrace *t, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
undeclared_read (const RtTrace *t, const char *fmt, ...)
{
  static gint said;
  va_list args;
  va_start (args, fmt);
  g_autofree char *what = g_strdup_vprintf (fmt, args);
  va_end (args);
  if (t->priv->keeps.strict)
    g_error ("rolltrace: %s", what);
  if (g_atomic_int_compare_and_exchange (&said, 0, 1))
    g_printerr ("rolltrace: internal error: %s (a missing RT_READS_ need); please report it\n", what);
}

/* The rows of a file the load did not keep: read from the file now, as a fresh load would
 * have kept them. */
static const RtEvent *
undeclared_rows (const RtTrace *t, guint file)
{
  RtFileState *fs = &t->priv->files[file];
  const RtFile *f = rt_trace_file (t, file);
  undeclared_read (t, "the rows of %s were not kept (RT_READS_ROWS was not declared), yet are read", f->path);
  g_mutex_lock (&t->priv->lazy_lock);
  if (fs->own_events == NULL)
    {
      g_auto (Rereading) again = { 0 };
      read_alone ((RtTrace *) t, file, &again);
      guint n = MIN (again.parse->events->len, f->n_events);
      fs->own_events = g_array_sized_new (FALSE, FALSE, sizeof (RtEvent), n);
      g_array_append_vals (fs->own_events, again.parse->events->data, n);
      if (n < f->n_events)
        ((RtFile *) f)->n_events = n;
    }
  g_mutex_unlock (&t->priv->lazy_lock);
  return (const RtEvent *) fs->own_events->data;
}

const char *
rt_trace_request_id_checked (const RtTrace *t, const RtRequest *q)
{
  RtFileState *fs = &t->priv->files[q->file];
  if (!g_atomic_int_get (&fs->ids_ready))
    {
      /* by one thread, any other that asks meanwhile waiting for the verdict; a file's whose
       * requests were read (not taken whole from the cache) are checked already */
      g_mutex_lock (&t->priv->lazy_lock);
      if (!fs->ids_ready && fs->origin == RT_FILE_CACHED
          && !rt_cache_file_tables_ok (t->priv->cache, fs->record, RT_CACHE_IDS))
        reread_ids ((RtTrace *) t, q->file);
      else if (!fs->ids_ready && fs->origin == RT_FILE_CACHED && t->priv->release_tables)
        /* the file's ids were read whole for their check: the few asked for come back */
        rt_cache_release_file_tables (t->priv->cache, fs->record, 1, RT_CACHE_IDS);
      g_atomic_int_set (&fs->ids_ready, TRUE);
      g_mutex_unlock (&t->priv->lazy_lock);
    }
  if (fs->own_ids != NULL)
    {
      const RtFile *f = rt_trace_file (t, q->file);
      guint k = (guint) (q - rt_trace_request (t, f->first_request)) + fs->cut_requests_at;
      return k < fs->own_ids->len ? g_ptr_array_index (fs->own_ids, k) : "";
    }
  return (const char *) (t->request_ids_at + (guintptr) q->id);
}

const RtEvent *
rt_trace_file_events (const RtTrace *t, guint file)
{
  RtFileState *fs = &t->priv->files[file];
  const RtFile *f = rt_trace_file (t, file);
  if (fs->cut_events != NULL)
    return (const RtEvent *) fs->cut_events->data;
  if (fs->rows_dropped)
    return undeclared_rows (t, file);
  /* a file cut to its first rollout: its first rows, checked with the whole file's */
  guint32 n_events = fs->cut ? fs->whole_events : f->n_events;
  guint32 n_requests = fs->cut ? fs->whole_requests : f->n_requests;
  if (fs->mapped == NULL)   /* no row at all: the table has no storage to point into */
    return t->events->len > 0 ? &g_array_index (t->events, RtEvent, fs->first_event) : NULL;
  /* checked when first used, not when loaded: a command that never reads rows (rt-check,
   * rt-workers...) then never pays for reading them. By one thread, any other that asks for
   * this file meanwhile waiting for the verdict, while other threads check other files: under
   * one lock for all, rt-export's two threads and rt-report's took turns. A file read again
   * is read under the trace's lock, as the parse may add names to the registry. */
  if (g_once_init_enter (&fs->rows_ready))
    {
      if (!rt_cache_rows_ok (fs->mapped, n_events, fs->mapped_checksum,
                             rt_event_registry_size (t->registry), n_requests))
        {
          g_mutex_lock (&t->priv->lazy_lock);
          reread_rows ((RtTrace *) t, file);
          g_mutex_unlock (&t->priv->lazy_lock);
        }
      g_once_init_leave (&fs->rows_ready, 1);
    }
  return fs->own_events != NULL ? (const RtEvent *) fs->own_events->data : fs->mapped;
}

const RtTurnFigures *
rt_trace_turn_missing (const RtTrace *t, guint32 i)
{
  static const RtTurnFigures unknown = { -1, NAN, NAN, NAN, NAN, NAN };
  undeclared_read (t, "turn %" G_GUINT32_FORMAT " is not in the trace (%" G_GUINT64_FORMAT " turns%s), yet is read",
                   i, rt_trace_n_turns (t), t->priv->keeps.turns ? "" : ": RT_READS_TURNS was not declared");
  return &unknown;
}

void
rt_trace_requests_done (const RtTrace *t, guint first_file, guint n_files)
{
  const RtTracePrivate *priv = t->priv;
  if (!priv->release_tables)
    return;
  /* used in place, every file the record of its own number (take_cached_requests); those read
   * on keep theirs in the load's own table, and give back the cache's older copy */
  guint n_records = rt_cache_n_files (priv->cache);
  if (first_file < n_records)
    rt_cache_release_file_tables (priv->cache, first_file, MIN (n_files, n_records - first_file),
                                  RT_CACHE_REQUESTS | RT_CACHE_IDS);
}

void
rt_trace_file_events_done (const RtTrace *t, guint file)
{
  RtFileState *fs = &t->priv->files[file];
  if (fs->mapped == NULL || fs->own_events != NULL || t->priv->cache == NULL)
    return;                   /* rows in our own memory: the table still owns them */
  /* the whole file's rows (a file cut to its first rollout maps them all) */
  const RtFile *f = rt_trace_file (t, file);
  rt_cache_release_rows (t->priv->cache, fs->mapped, fs->cut ? fs->whole_events : f->n_events);
}

