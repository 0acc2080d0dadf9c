/* SPDX-License-Identifier: Apache-2.0 */
/* cache-write.c: writing a cache: a draft beside it that the rows of each file go into as soon as
 * it is read, then the tables and strings, and a rename that makes it the cache. The layout is
 * cache-format-private.h's; cache.c reads it back. */
#define _GNU_SOURCE   /* O_TMPFILE */
#include "cache-format-private.h"
#include "memory-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writing ------------------------------------------------------------------ */

/* The tables of a cache being written, and its strings. */
typedef struct {
  GArray *parts[N_PARTS];   /* of bytes */
  GArray *strings;
  GArray *ids;              /* the request ids */
  GHashTable *shared;       /* strings written once: paths of reasons, names */
  guint64 experiment;       /* string */
  GArray *turn_sums;        /* RtTurnSums of the turns up to turns_summed */
  guint64 turns_summed;
} Writer;

static guint64
add_string (Writer *w, const char *s)
{
  guint64 at = w->strings->len;
  g_array_append_vals (w->strings, s, (guint) strlen (s) + 1);
  return at;
}

static guint64
add_id (Writer *w, const char *s)
{
  guint64 at = w->ids->len;
  g_array_append_vals (w->ids, s, (guint) strlen (s) + 1);
  return at;
}

/* Finish reasons and problem reasons repeat: each is written once. */
static guint64
add_shared_string (Writer *w, const char *s)
{
  gpointer hit = g_hash_table_lookup (w->shared, s);
  if (hit != NULL)
    return GPOINTER_TO_SIZE (hit) - 1;
  guint64 at = add_string (w, s);
  g_hash_table_insert (w->shared, (gpointer) s, GSIZE_TO_POINTER (at + 1));
  return at;
}

static void
writer_clear (Writer *w)
{
  for (Part p = 0; p < N_PARTS; p++)
    g_clear_pointer (&w->parts[p], g_array_unref);
  g_clear_pointer (&w->strings, g_array_unref);
  g_clear_pointer (&w->ids, g_array_unref);
  g_clear_pointer (&w->shared, g_hash_table_unref);
  g_clear_pointer (&w->turn_sums, g_array_unref);
}

/* ---- faults on purpose, for the tests -------------------------------------------- */

/* ROLLTRACE_CACHE_FAULT makes the writer meet what a disk or a kill can do to it, at a
 * place a test chooses rather than one a timer happens to hit (tests/e2e/t-fault-*.sh):
 * "kill@N": SIGKILL once N bytes of the cache are written (the write that crosses N writes
 * only up to it); "enospc@N": every write past N bytes fails with ENOSPC, as on a full
 * disk; "kill@written", "kill@linked", "kill@renamed": SIGKILL at that stage of
 * rt_cache_write (the file complete but nameless; named beside the cache; renamed);
 * "stop@failed" (after another, with a comma): SIGSTOP once a failed write of the rows has
 * been dealt with, for a test to look at the process. */
#define FAULT_ENV "ROLLTRACE_CACHE_FAULT"

typedef struct {
  gboolean kill, enospc;
  guint64 after;              /* bytes: the write that crosses it fails */
  char *kill_stage;           /* or kill at this stage */
  char *stop_stage;           /* SIGSTOP at this stage */
  GMutex lock;
  guint64 written;            /* bytes written so far, by every thread */
} Fault;

static Fault *
fault (void)
{
  static Fault f;
  static gsize parsed;
  if (g_once_init_enter (&parsed))
    {
      f.after = G_MAXUINT64;
      g_auto (GStrv) items = g_strsplit (g_getenv (FAULT_ENV) ? g_getenv (FAULT_ENV) : "", ",", -1);
      for (guint i = 0; items[i] != NULL; i++)
        {
          const char *at = strchr (items[i], '@');
          if (at == NULL)
            continue;
          gboolean kill = g_str_has_prefix (items[i], "kill@");
          if (g_str_has_prefix (items[i], "stop@"))
            f.stop_stage = g_strdup (at + 1);
          else if (kill && !g_ascii_isdigit (at[1]))
            f.kill_stage = g_strdup (at + 1);
          else if (kill || g_str_has_prefix (items[i], "enospc@"))
            {
              f.kill = kill;
              f.enospc = !kill;
              f.after = g_ascii_strtoull (at + 1, NULL, 10);
            }
        }
      g_once_init_leave (&parsed, 1);
    }
  return &f;
}

/* Of n bytes about to be written, how many may be (all but when a fault is due). */
static gsize
fault_allows (gsize n)
{
  Fault *f = fault ();
  if (!f->kill && !f->enospc)
    return n;
  g_mutex_lock (&f->lock);
  guint64 left = f->written < f->after ? f->after - f->written : 0;
  gsize allowed = (gsize) MIN ((guint64) n, left);
  f->written += allowed;
  g_mutex_unlock (&f->lock);
  return allowed;
}

/* The kill of "kill@STAGE", or the stop of "stop@STAGE", at `stage`. */
static void
fault_at (const char *stage)
{
  if (g_strcmp0 (fault ()->kill_stage, stage) == 0)
    raise (SIGKILL);
  if (g_strcmp0 (fault ()->stop_stage, stage) == 0)
    raise (SIGSTOP);
}

/* ---- writing the file ------------------------------------------------------------- */

static int put_all_at (int fd, const void *p, gsize n, guint64 at);

/* Writes all of p at `at`; 0, or the errno of the failure. Thread-safe. */
static int
put_at (int fd, const void *p, gsize n, guint64 at)
{
  gsize allowed = fault_allows (n);
  if (G_LIKELY (allowed == n))
    return put_all_at (fd, p, n, at);
  int e = put_all_at (fd, p, allowed, at);
  if (fault ()->kill)
    raise (SIGKILL);
  return e != 0 ? e : ENOSPC;
}

static int
put_all_at (int fd, const void *p, gsize n, guint64 at)
{
  const guint8 *c = p;
  while (n > 0)
    {
      gssize r = pwrite (fd, c, n, (off_t) at);
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        return r < 0 ? errno : EIO;
      c += r;
      n -= (gsize) r;
      at += (guint64) r;
    }
  return 0;
}

/* A cache being written: a file without a name in the cache's folder (O_TMPFILE), which
 * only a complete write links to a temporary name beside the cache and renames over it.
 * A process killed meanwhile (kill -9, the OOM killer: no handler runs) leaves nothing:
 * the file goes with its last descriptor. Where the file system has no such files, a
 * temporary name from the start, which a signal that can be caught removes. Rows go
 * first, each file's as soon as it has been read (by the thread that read it, while the
 * others go on reading); the tables follow them. */
struct _RtCacheDraft {
  char *dir;
  char *tmp_path;           /* its temporary name: from the start, or once linked; NULL
                             * before and once renamed */
  int fd;
  guint64 end;              /* where the next rows go (the loader serialises this) */
  gint failed;              /* errno of the first failed write, 0: none */
  Writer w;                 /* the tables, once begun */
};

#define TEMP_TEMPLATE ".rolltrace-XXXXXX"   /* what cache-dir.c counts as a leftover */

/* An unnamed file in `dir`, or -1 with errno set (EOPNOTSUPP and the like where the file
 * system or the kernel has none, or /proc, by which it is linked, is missing). */
static int
open_unnamed (const char *dir)
{
#ifdef O_TMPFILE
  if (access ("/proc/self/fd", X_OK) != 0)
    {
      errno = EOPNOTSUPP;
      return -1;
    }
  return open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#else
  errno = EOPNOTSUPP;
  return -1;
#endif
}

RtCacheDraft *
rt_cache_draft_new (const char *cache_path, GError **error)
{
  g_autofree char *dir = g_path_get_dirname (cache_path);
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int e = errno;
      struct stat st;
      /* "cannot create X: Not a directory" of an X that exists says nothing of what is wrong */
      if (stat (dir, &st) == 0 && !S_ISDIR (st.st_mode))
        g_set_error (error, RT_ERROR, RT_ERROR_IO, "the cache folder %s is not a folder", dir);
      else
        g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create %s: %s", dir, g_strerror (e));
      return NULL;
    }
  char *tmp = NULL;
  int fd = open_unnamed (dir);
  /* (a kernel without O_TMPFILE takes it for O_DIRECTORY: EISDIR) */
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
    {
      /* registered as it is made: a signal while loading removes it */
      g_autofree char *template = g_build_filename (dir, TEMP_TEMPLATE, NULL);
      fd = rt_temp_create_from (template, &tmp, error);
      if (fd < 0)
        return NULL;
    }
  else if (fd < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create a file in %s: %s", dir, g_strerror (e));
      return NULL;
    }
  fchmod (fd, 0600);   /* as the folder: the cache is the user's own */
  RtCacheDraft *d = g_new0 (RtCacheDraft, 1);
  d->dir = g_steal_pointer (&dir);
  d->tmp_path = tmp;
  d->fd = fd;
  d->end = ROWS_START;
  return d;
}

/* Gives a complete unnamed draft its temporary name beside the cache (registered, so that
 * a signal before the rename removes it); 0, or the errno of the failure. */
static int
link_draft (RtCacheDraft *d)
{
  g_autofree char *proc = g_strdup_printf ("/proc/self/fd/%d", d->fd);
  g_autofree char *template = g_build_filename (d->dir, TEMP_TEMPLATE, NULL);
  for (guint attempt = 0; attempt < 100; attempt++)
    {
      char *tmp = rt_temp_name_like (template);
      if (linkat (AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
        {
          d->tmp_path = tmp;
          return 0;
        }
      int e = errno;
      rt_temp_forget (tmp);
      g_free (tmp);
      if (e != EEXIST)
        return e;
    }
  return EEXIST;
}

guint64
rt_cache_draft_reserve (RtCacheDraft *d, guint32 n_rows)
{
  guint64 at = d->end;
  d->end += (guint64) n_rows * sizeof (RtEvent);
  return at;
}

guint64
rt_cache_draft_put_rows (RtCacheDraft *d, guint64 at, const RtEvent *rows, guint32 n_rows)
{
  /* a draft that failed is never written: neither its rows nor their checksum are needed */
  if (g_atomic_int_get (&d->failed) != 0)
    return 0;
  gsize bytes = (gsize) n_rows * sizeof (RtEvent);
  int e = put_at (d->fd, rows, bytes, at);
  if (e != 0 && g_atomic_int_compare_and_exchange (&d->failed, 0, e))
    {
      /* The disk is full (or the file too large): what the draft took goes back to it now,
       * not at the end of a load that may read on for minutes while the job that shares the
       * disk needs it. (A write begun by another thread before it saw the failure may still
       * land: a few rows at most.) */
      int cut G_GNUC_UNUSED = ftruncate (d->fd, 0);   /* (failing that, it comes back at the end) */
      fault_at ("failed");
    }
  return rt_hash64 (rows, bytes, 2);
}

void
rt_cache_draft_free (RtCacheDraft *d)
{
  if (d == NULL)
    return;
  if (d->fd >= 0)
    close (d->fd);   /* an unnamed draft goes with it */
  if (d->tmp_path != NULL)
    {
      g_unlink (d->tmp_path);
      rt_temp_forget (d->tmp_path);
    }
  writer_clear (&d->w);
  g_free (d->tmp_path);
  g_free (d->dir);
  g_free (d);
}

void
rt_cache_draft_begin_tables (RtCacheDraft *d, const char *exp_canonical, RtEventRegistry *reg,
                             guint n_files, guint n_requests, guint n_turns)
{
  Writer *w = &d->w;
  for (Part p = 0; p < N_PARTS; p++)
    w->parts[p] = g_array_new (FALSE, FALSE, 1);
  w->strings = g_array_new (FALSE, FALSE, 1);
  w->ids = g_array_new (FALSE, FALSE, 1);
  w->shared = g_hash_table_new (g_str_hash, g_str_equal);
  /* the tables' sizes are about known: each grows once, on huge pages */
  rt_array_make_room (w->parts[PART_FILES], (gsize) n_files * sizeof (CacheFile));
  rt_array_make_room (w->parts[PART_REQUESTS], (gsize) n_requests * sizeof (CacheRequest));
  rt_array_make_room (w->parts[PART_TURNS], (gsize) n_turns * sizeof (RtTurnFigures));
  rt_array_make_room (w->parts[PART_DURATIONS], (gsize) n_requests * sizeof (double));
  rt_array_make_room (w->parts[PART_ENGINE], (gsize) n_requests * sizeof (double));
  rt_array_make_room (w->strings, (gsize) n_files * 64 + 4096);
  rt_array_make_room (w->ids, (gsize) n_requests * 40 + 4096);
  w->experiment = add_string (w, exp_canonical);
  for (guint i = 0; i < rt_event_registry_size (reg); i++)
    {
      guint64 at = add_string (w, rt_event_registry_name (reg, (guint16) i));
      g_array_append_vals (w->parts[PART_NAMES], &at, sizeof at);
    }
}

void
rt_cache_draft_add_file (RtCacheDraft *d, const RtFile *f, const RtCacheSnapshot *snap, guint64 rows_at)
{
  Writer *w = &d->w;
  const RtFile *c = &snap->counters;
  CacheFile cf = {
    .path = add_string (w, f->path), .step = f->step, .worker = f->worker,
    .size = f->size, .inode = f->inode, .mtime_us = f->mtime_us, .ctime_ns = f->ctime_ns,
    .resume_offset = snap->offset, .resume_line = snap->line,
    .prefix_checksum = snap->prefix_checksum, .prefix_known = (guint32) snap->prefix_known,
    .lines = c->lines, .events = c->events, .bad_lines = c->bad_lines,
    .field_problems = c->field_problems, .problems_total = c->problems_total,
    .glued_lines = c->glued_lines,
    .start_min_s = c->start_min_s, .n_complete = c->n_complete, .schema = c->schema,
    .rows_at = rows_at, .rows_checksum = snap->rows_checksum, .n_rows = c->n_events,
    .n_rollout_ends = c->n_rollout_ends, .n_events_at_end = c->n_events_at_end,
    .n_requests_at_end = c->n_requests_at_end,
    .first_rollout = c->first_rollout,
  };
  memcpy (cf.step_sum_s, c->step_sum_s, sizeof cf.step_sum_s);

  /* requests, each followed in the turns table by its own turns */
  GArray *requests = w->parts[PART_REQUESTS], *turns = w->parts[PART_TURNS];
  GArray *problems = w->parts[PART_PROBLEMS];
  guint32 turn_base = (guint32) (turns->len / sizeof (RtTurnFigures));
  cf.first_turn = turn_base;
  cf.first_request = (guint32) (requests->len / sizeof (CacheRequest));
  cf.n_requests = snap->requests->len;
  cf.ids_at = w->ids->len;
  guint32 record = rt_cache_draft_n_files (d);
  for (guint k = 0; k < snap->requests->len; k++)
    {
      const RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
      const char *reason = (const char *) (guintptr) q->finish_reason;
      CacheRequest cq = {
        .id = add_id (w, (const char *) (guintptr) q->id),
        .finish_reason = reason != NULL ? add_shared_string (w, reason) : 0,
        .end_s = q->end_s, .total_s = q->total_s, .file = record, .step = f->step,
        .worker = f->worker, .turns = q->turns, .response_length = q->response_length,
        .first_turn = turn_base, .n_turns = q->n_turns, .complete = q->complete != 0,
        .turns_from_timings = q->turns_from_timings != 0, .response_tokens = q->response_tokens,
        .own_lines = q->own_lines != 0, .complete_rank = q->complete_rank, .tool_s = q->tool_s,
      };
      g_array_append_vals (requests, &cq, sizeof cq);
      double engine = rt_turns_engine_s (q->n_turns > 0 ? &g_array_index (snap->turns, RtTurnFigures, q->first_turn)
                                                        : NULL, q->n_turns);
      g_array_append_vals (w->parts[PART_ENGINE], &engine, sizeof engine);
      if (q->n_turns > 0)   /* else `turns` may have no storage to point into */
        {
          g_array_append_vals (turns, &g_array_index (snap->turns, RtTurnFigures, q->first_turn),
                               q->n_turns * (guint) sizeof (RtTurnFigures));
          /* the bytes between `turn` and the doubles are nobody's: zeros, not whatever the
           * memory held, go to the file (and into its checksums) */
          RtTurnFigures *added = (RtTurnFigures *) (turns->data + turns->len) - q->n_turns;
          for (guint32 j = 0; j < q->n_turns; j++)
            memset ((char *) &added[j] + sizeof added[j].turn, 0,
                    G_STRUCT_OFFSET (RtTurnFigures, total_s) - sizeof added[j].turn);
        }
      turn_base += q->n_turns;
    }
  cf.n_turns = turn_base - cf.first_turn;
  /* (an array that never grew has no storage: no pointer into it then) */
  const guint8 *its_requests = requests->data ? (const guint8 *) requests->data + requests->len
                                                  - (gsize) cf.n_requests * sizeof (CacheRequest)
                                              : NULL;
  const guint8 *its_turns = turns->data ? (const guint8 *) turns->data + turns->len
                                            - (gsize) cf.n_turns * sizeof (RtTurnFigures)
                                        : NULL;
  cf.requests_checksum = hash_requests ((const CacheRequest *) (const void *) its_requests, cf.n_requests);
  cf.turns_checksum = rt_hash64 (its_turns, (gsize) cf.n_turns * sizeof (RtTurnFigures), 12);
  cf.ids_size = w->ids->len - cf.ids_at;
  cf.ids_checksum = rt_hash64 (w->ids->data ? w->ids->data + cf.ids_at : NULL, cf.ids_size, 4);
  cf.first_problem = (guint32) (problems->len / sizeof (CacheProblem));
  cf.n_problems = snap->problems->len;
  for (guint k = 0; k < snap->problems->len; k++)
    {
      const RtCacheProblem *pr = &g_array_index (snap->problems, RtCacheProblem, k);
      CacheProblem cp = { pr->line, add_shared_string (w, pr->reason) };
      g_array_append_vals (problems, &cp, sizeof cp);
    }
  g_array_append_vals (w->parts[PART_FILES], &cf, sizeof cf);
}

guint
rt_cache_draft_n_files (RtCacheDraft *d)
{
  return d->w.parts[PART_FILES]->len / sizeof (CacheFile);
}

void
rt_cache_draft_mark_turn_sums (RtCacheDraft *d)
{
  Writer *w = &d->w;
  GArray *turns = w->parts[PART_TURNS];
  guint64 n_turns = turns->len / sizeof (RtTurnFigures);
  if (w->turn_sums == NULL)
    w->turn_sums = g_array_new (FALSE, TRUE, sizeof (RtTurnSums));
  if (n_turns > w->turns_summed)
    rt_turn_sums_add (w->turn_sums, (const RtTurnFigures *) (void *) turns->data + w->turns_summed,
                      n_turns - w->turns_summed);
  w->turns_summed = n_turns;
  guint64 kept = w->parts[PART_TURN_SUMS]->len / sizeof (RtTurnSums);
  if (kept + w->turn_sums->len > TURN_SUMS_MAX)
    return;
  CacheTurnMark mark = { .end_record = rt_cache_draft_n_files (d), .n_sums = w->turn_sums->len,
                         .first_sum = kept };
  g_array_append_vals (w->parts[PART_TURN_SUMS], w->turn_sums->data,
                       w->turn_sums->len * (guint) sizeof (RtTurnSums));
  g_array_append_vals (w->parts[PART_TURN_MARKS], &mark, sizeof mark);
}

void
rt_cache_draft_add_step (RtCacheDraft *d, gint32 step, guint first_record, const double *sorted,
                         guint n)
{
  Writer *w = &d->w;
  CacheStep cs = {
    .step = step, .first_file = first_record, .n_files = rt_cache_draft_n_files (d) - first_record,
    .n_durations = n, .first_duration = w->parts[PART_DURATIONS]->len / sizeof (double),
  };
  if (n > 0)
    g_array_append_vals (w->parts[PART_DURATIONS], sorted, n * (guint) sizeof (double));
  g_array_append_vals (w->parts[PART_STEPS], &cs, sizeof cs);
}

gboolean
rt_cache_write (RtCacheDraft *draft, const char *path, GError **error)
{
  g_autoptr (RtCacheDraft) d = draft;
  Writer *w = &d->w;
  CacheHeader h = { .byte_order = BYTE_ORDER_MARK, .format = CACHE_FORMAT,
                    .event_size = sizeof (RtEvent) };
  memcpy (h.magic, "RTCACHE\n", 8);
  g_strlcpy (h.version, RT_VERSION, sizeof h.version);
  h.experiment = w->experiment;
  GArray **parts = w->parts;
  h.n_names = parts[PART_NAMES]->len / sizeof (guint64);
  h.n_files = parts[PART_FILES]->len / sizeof (CacheFile);
  h.n_requests = parts[PART_REQUESTS]->len / sizeof (CacheRequest);
  h.n_turns = parts[PART_TURNS]->len / sizeof (RtTurnFigures);
  h.n_problems = parts[PART_PROBLEMS]->len / sizeof (CacheProblem);
  h.n_steps = parts[PART_STEPS]->len / sizeof (CacheStep);
  h.n_durations = parts[PART_DURATIONS]->len / sizeof (double);
  h.n_turn_sums = parts[PART_TURN_SUMS]->len / sizeof (RtTurnSums);
  h.n_turn_marks = parts[PART_TURN_MARKS]->len / sizeof (CacheTurnMark);
  h.tables_at = d->end;
  h.tables_size = tables_size_for (&h);
  int failed = g_atomic_int_get (&d->failed);
  guint64 at = h.tables_at;
  for (Part p = 0; p < N_PARTS; p++)
    {
      /* requests and turns have their checksums file by file */
      gboolean per_file = p == PART_REQUESTS || p == PART_TURNS;
      h.part_checksum[p] = per_file ? 0 : rt_hash64 (parts[p]->data, parts[p]->len, 1 + p);
      if (failed == 0)
        failed = put_at (d->fd, parts[p]->data, parts[p]->len, at);
      at += parts[p]->len;
    }
  h.strings_at = h.tables_at + h.tables_size;
  h.strings_size = w->strings->len;
  h.strings_checksum = rt_hash64 (w->strings->data, w->strings->len, 3);
  h.ids_at = h.strings_at + h.strings_size;
  h.ids_size = w->ids->len;
  h.total_size = h.ids_at + h.ids_size;
  h.header_checksum = rt_hash64 (&h, offsetof (CacheHeader, header_checksum), 0);
  if (failed == 0)
    failed = put_at (d->fd, w->strings->data, w->strings->len, h.strings_at);
  if (failed == 0)
    failed = put_at (d->fd, w->ids->data, w->ids->len, h.ids_at);
  /* the header last: a cache cut short never has a valid one */
  if (failed == 0)
    failed = put_at (d->fd, &h, sizeof h, 0);
  writer_clear (w);
  fault_at ("written");
  gboolean unnamed = d->tmp_path == NULL;
  if (failed == 0 && unnamed)
    failed = link_draft (d);
  int fd = d->fd;
  d->fd = -1;
  if (close (fd) != 0 && failed == 0)
    failed = errno;
  if (failed != 0)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write the cache in %s: %s", d->dir,
                   g_strerror (failed));
      return FALSE;
    }
  fault_at ("linked");
  /* readers see the old cache or the new one, never half of one */
  if (g_rename (d->tmp_path, path) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot rename %s: %s", d->tmp_path, g_strerror (e));
      return FALSE;
    }
  fault_at ("renamed");
  rt_temp_forget (d->tmp_path);
  g_clear_pointer (&d->tmp_path, g_free);
  return TRUE;
}
