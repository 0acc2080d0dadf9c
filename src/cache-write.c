/* SPDX-License-Identifier: Apache-2.0 */
/* cache-write.c: writing a cache: a draft beside it that the rows of each file go into as soon as
 * it is read, then the tables, file by file, and the strings, and a rename that makes it the
 * cache. The layout is cache-format-private.h's; cache.c reads it back. */
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

/* ---- the tables ------------------------------------------------------------------ */

/* A part that grows with the trace, written at its place in the file as it is made: through
 * a buffer, its checksum taken on the way when the part has one of its own. */
typedef struct {
  guint64 at, end;          /* where the buffer's first byte goes; where the part ends */
  gboolean hashed;
  HashStream hash;
  guint8 *buf;
  gsize fill;
} Stream;

#define STREAM_BUFFER (1u << 20)

/* The tables of a cache being written. The parts that grow with the trace (the requests, their
 * turns and engine times, the problems, and the request ids) are written as each file is added,
 * at places laid out from their sizes counted beforehand (rt_cache_draft_begin_tables); the
 * others, of the files and steps, and the strings, are kept until rt_cache_write. */
typedef struct {
  GMutex lock;              /* the strings: files may be spilled from several threads */
  GArray *parts[N_PARTS];   /* of bytes: those kept in memory (from PART_FILES on) */
  Stream streams[N_STREAMED_PARTS];
  Stream ids;               /* the request ids */
  gboolean begun;
  gboolean miscounted;      /* a part came out other than its size counted: not written */
  RtCacheTotals totals;     /* as counted */
  guint64 n_requests, n_turns, n_problems, ids_size;   /* as added so far */
  GArray *strings;
  GHashTable *shared;       /* strings written once: reasons (keys in shared_text) */
  GStringChunk *shared_text;
  guint64 experiment;       /* string */
  gboolean delta;           /* of `base` (rt_cache_draft_extend); else a base */
  RtCacheBase base;         /* all 0 in a base */
  GArray *turn_sums;        /* RtTurnSums of the turns added so far */
  GByteArray *chunk;        /* a file's tables, as one piece (below) */
} Writer;

/* A text of a snapshot's request: kept as its address. */
static inline const char *
text_of (guint64 ref)
{
  return (const char *) (guintptr) ref;
}

static guint64
add_string (Writer *w, const char *s)
{
  guint64 at = w->strings->len;
  g_array_append_vals (w->strings, s, (guint) strlen (s) + 1);
  return at;
}

/* Finish reasons and problem reasons repeat: each is written once. With w->lock held. */
static guint64
add_shared_string (Writer *w, const char *s)
{
  gpointer hit = g_hash_table_lookup (w->shared, s);
  if (hit != NULL)
    return GPOINTER_TO_SIZE (hit) - 1;
  guint64 at = add_string (w, s);
  g_hash_table_insert (w->shared, g_string_chunk_insert (w->shared_text, s), GSIZE_TO_POINTER (at + 1));
  return at;
}

static void
writer_init (Writer *w)
{
  g_mutex_init (&w->lock);
  w->strings = g_array_new (FALSE, FALSE, 1);
  add_string (w, "");   /* at 0, which a request's finish reason takes for none */
  w->shared = g_hash_table_new (g_str_hash, g_str_equal);
  w->shared_text = g_string_chunk_new (4096);
  w->chunk = g_byte_array_new ();
  w->turn_sums = g_array_new (FALSE, TRUE, sizeof (RtTurnSums));
}

static void
writer_clear (Writer *w)
{
  for (Part p = 0; p < N_PARTS; p++)
    g_clear_pointer (&w->parts[p], g_array_unref);
  for (Part p = 0; p < N_STREAMED_PARTS; p++)
    g_clear_pointer (&w->streams[p].buf, g_free);
  g_clear_pointer (&w->ids.buf, g_free);
  g_clear_pointer (&w->strings, g_array_unref);
  g_clear_pointer (&w->shared, g_hash_table_unref);
  g_clear_pointer (&w->shared_text, g_string_chunk_free);
  g_clear_pointer (&w->turn_sums, g_array_unref);
  g_clear_pointer (&w->chunk, g_byte_array_unref);
}

/* One file's tables as one piece, as the writer lays them out from a snapshot (and a spill
 * keeps them): this head, the requests (their ids counted from the piece's own, their turns
 * from its first, `file`, `step` and `worker` 0), the turns, the problems, the ids; each
 * part a multiple of 8 bytes but the ids, which end it. The strings they name are the
 * writer's already. */
typedef struct {
  guint32 n_requests, n_turns, n_problems, unused;
  guint64 ids_size;
} Chunk;

static gsize
chunk_tables_size (const Chunk *c)
{
  return sizeof *c + (gsize) c->n_requests * sizeof (CacheRequest)
         + (gsize) c->n_turns * sizeof (RtTurnFigures) + (gsize) c->n_problems * sizeof (CacheProblem);
}

/* What a snapshot's tables count, as its piece lays them out. */
static Chunk
chunk_count (const RtCacheSnapshot *snap)
{
  Chunk c = { .n_requests = snap->requests->len, .n_problems = snap->problems->len };
  for (guint k = 0; k < snap->requests->len; k++)
    {
      const RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
      c.n_turns += q->n_turns;
      c.ids_size += strlen (text_of (q->id)) + 1;
    }
  return c;
}

static void
chunk_from_snapshot (Writer *w, const RtCacheSnapshot *snap, GByteArray *out)
{
  Chunk c = chunk_count (snap);
  gsize tables = chunk_tables_size (&c);
  g_byte_array_set_size (out, (guint) (tables + c.ids_size));
  memcpy (out->data, &c, sizeof c);
  CacheRequest *cq = (CacheRequest *) (void *) (out->data + sizeof c);
  RtTurnFigures *ct = (RtTurnFigures *) (void *) (cq + c.n_requests);
  CacheProblem *cp = (CacheProblem *) (void *) (ct + c.n_turns);
  char *ids = (char *) out->data + tables;
  guint32 turn = 0;
  guint64 id_at = 0;
  g_mutex_lock (&w->lock);
  for (guint k = 0; k < snap->requests->len; k++)
    {
      const RtRequest *q = &g_array_index (snap->requests, RtRequest, k);
      const char *id = text_of (q->id), *reason = text_of (q->finish_reason);
      gsize id_len = strlen (id) + 1;
      memcpy (ids + id_at, id, id_len);
      cq[k] = (CacheRequest) {
        .id = id_at, .finish_reason = reason != NULL ? add_shared_string (w, reason) : 0,
        .end_s = q->end_s, .total_s = q->total_s, .turns = q->turns,
        .response_length = q->response_length, .first_turn = turn, .n_turns = q->n_turns,
        .complete = q->complete != 0, .turns_from_timings = q->turns_from_timings != 0,
        .response_tokens = q->response_tokens, .own_lines = q->own_lines != 0,
        .complete_rank = q->complete_rank, .tool_s = q->tool_s,
      };
      id_at += id_len;
      if (q->n_turns > 0)   /* else `turns` may have no storage to point into */
        memcpy (ct + turn, &g_array_index (snap->turns, RtTurnFigures, q->first_turn),
                q->n_turns * sizeof (RtTurnFigures));
      /* the bytes between `turn` and the doubles are nobody's: zeros, not whatever the
       * memory held, go to the file (and into its checksums) */
      for (guint32 j = turn; j < turn + q->n_turns; j++)
        memset ((char *) &ct[j] + sizeof ct[j].turn, 0,
                G_STRUCT_OFFSET (RtTurnFigures, total_s) - sizeof ct[j].turn);
      turn += q->n_turns;
    }
  for (guint k = 0; k < snap->problems->len; k++)
    {
      const RtCacheProblem *pr = &g_array_index (snap->problems, RtCacheProblem, k);
      cp[k] = (CacheProblem) { pr->line, add_shared_string (w, pr->reason) };
    }
  g_mutex_unlock (&w->lock);
}

void
rt_cache_draft_count (const RtCacheSnapshot *snap, const RtCacheSpill *spill, RtCacheTotals *totals)
{
  Chunk c = spill != NULL ? (Chunk) { .n_requests = spill->n_requests, .n_turns = spill->n_turns,
                                      .n_problems = spill->n_problems, .ids_size = spill->ids_size }
                          : chunk_count (snap);
  totals->n_requests += c.n_requests;
  totals->n_turns += c.n_turns;
  totals->n_problems += c.n_problems;
  totals->ids_size += c.ids_size;
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
  guint64 tables_at;        /* once the tables are begun */
  gint failed;              /* errno of the first failed write, 0: none */
  Writer w;                 /* the tables */
  GRWLock writing;          /* held for reading by a loading thread's write, for writing
                             * by draft_fail */
  int spill_fd;             /* the tables of files spilled while loading, or -1 */
  guint64 spill_end;        /* where the next goes (under w.lock) */
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

/* A new file in `dir`, the cache's folder: without a name (open_unnamed), or where the file
 * system has no such files, with a temporary name (*tmp, registered: a signal that can be
 * caught removes it). -1 with `error` set when neither can be made. */
static int
open_beside (const char *dir, char **tmp, GError **error)
{
  *tmp = NULL;
  int fd = open_unnamed (dir);
  /* (a kernel without O_TMPFILE takes it for O_DIRECTORY: EISDIR) */
  if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
    {
      g_autofree char *template = g_build_filename (dir, TEMP_TEMPLATE, NULL);
      return rt_temp_create_from (template, tmp, error);
    }
  if (fd < 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create a file in %s: %s", dir, g_strerror (e));
    }
  return fd;
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
  char *tmp;   /* (a signal while loading removes a named draft) */
  int fd = open_beside (dir, &tmp, error);
  if (fd < 0)
    return NULL;
  fchmod (fd, 0600);   /* as the folder: the cache is the user's own */
  RtCacheDraft *d = g_new0 (RtCacheDraft, 1);
  d->dir = g_steal_pointer (&dir);
  d->tmp_path = tmp;
  d->fd = fd;
  d->end = ROWS_START;
  d->spill_fd = -1;
  g_rw_lock_init (&d->writing);
  writer_init (&d->w);
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

/* A write failed with `e` (none when 0): the first failure is remembered (the draft is never
 * written then), and what the draft and its spill took of the disk goes back to it now, not
 * at the end of a load that may read on for minutes while the job that shares the disk needs
 * it: the disk is full, or the file too large. The loading threads' writes each hold
 * `writing` for reading and look at the failure under it: the truncation waits for those
 * begun before it, and no write lands after it. */
static void
draft_fail (RtCacheDraft *d, int e)
{
  if (e == 0 || !g_atomic_int_compare_and_exchange (&d->failed, 0, e))
    return;
  g_rw_lock_writer_lock (&d->writing);
  /* (failing that, it comes back at the end) */
  int cut G_GNUC_UNUSED = ftruncate (d->fd, 0);
  g_mutex_lock (&d->w.lock);
  if (d->spill_fd >= 0)
    cut = ftruncate (d->spill_fd, 0);
  g_mutex_unlock (&d->w.lock);
  g_rw_lock_writer_unlock (&d->writing);
  fault_at ("failed");
}

/* Writes n bytes at `at` of `fd` for a loading thread, unless the draft failed: 0, or the
 * errno of the failure (draft_fail it, with `writing` no longer held). */
static int
put_while_loading (RtCacheDraft *d, int fd, const void *p, gsize n, guint64 at)
{
  g_rw_lock_reader_lock (&d->writing);
  int e = g_atomic_int_get (&d->failed) != 0 ? -1 : put_at (fd, p, n, at);
  g_rw_lock_reader_unlock (&d->writing);
  return e;
}

gboolean
rt_cache_draft_ok (RtCacheDraft *d, GError **error)
{
  int failed = g_atomic_int_get (&d->failed);
  if (failed == 0)
    return TRUE;
  g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write the cache in %s: %s", d->dir,
               g_strerror (failed));
  return FALSE;
}

guint64
rt_cache_draft_reserve (RtCacheDraft *d, guint32 n_rows)
{
  g_assert (!d->w.begun);   /* the ids and tables are laid out after the rows */
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
  int e = put_while_loading (d, d->fd, rows, bytes, at);
  if (e != 0)
    {
      draft_fail (d, MAX (e, 0));
      return 0;
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
  if (d->spill_fd >= 0)
    close (d->spill_fd);
  if (d->tmp_path != NULL)
    {
      g_unlink (d->tmp_path);
      rt_temp_forget (d->tmp_path);
    }
  writer_clear (&d->w);
  g_mutex_clear (&d->w.lock);
  g_rw_lock_clear (&d->writing);
  g_free (d->tmp_path);
  g_free (d->dir);
  g_free (d);
}

/* ---- the tables, file by file ----------------------------------------------------- */

static void
stream_start (Stream *s, guint64 at, guint64 size, gboolean hashed, guint64 seed)
{
  *s = (Stream) { .at = at, .end = at + size, .hashed = hashed };
  hash_stream_start (&s->hash, seed);
  s->buf = g_malloc (STREAM_BUFFER);
}

static void
stream_flush (RtCacheDraft *d, Stream *s)
{
  if (s->fill > 0 && g_atomic_int_get (&d->failed) == 0)
    draft_fail (d, put_at (d->fd, s->buf, s->fill, s->at));
  s->at += s->fill;
  s->fill = 0;
}

static void
stream_put (RtCacheDraft *d, Stream *s, const void *p, gsize n)
{
  if (s->at + s->fill + n > s->end)
    {
      /* more than counted: the parts after it would be overwritten */
      d->w.miscounted = TRUE;
      return;
    }
  if (s->hashed)
    hash_stream_put (&s->hash, p, n);
  const guint8 *c = p;
  while (n > 0)
    {
      gsize take = MIN (n, STREAM_BUFFER - s->fill);
      memcpy (s->buf + s->fill, c, take);
      s->fill += take;
      c += take;
      n -= take;
      if (s->fill == STREAM_BUFFER)
        stream_flush (d, s);
    }
}

/* Flushed, and exactly as long as counted. */
static gboolean
stream_end (RtCacheDraft *d, Stream *s)
{
  stream_flush (d, s);
  return s->at == s->end;
}

/* Each file's tables put aside begin on a page of their own: once added to the tables, their
 * pages go back to the disk (rt_cache_draft_add_file), so that the draft and the spill
 * together take about what the cache will. */
#define SPILL_PAGE 4096u

/* The room a piece of `size` bytes takes in the spill: whole pages. */
static guint64
spill_room (guint64 size)
{
  return (size + SPILL_PAGE - 1) & ~(guint64) (SPILL_PAGE - 1);
}

RtCacheSpill
rt_cache_draft_spill (RtCacheDraft *d, const RtCacheSnapshot *snap)
{
  RtCacheSpill spill = { 0 };
  if (g_atomic_int_get (&d->failed) != 0)
    return spill;
  g_autoptr (GByteArray) chunk = g_byte_array_new ();
  chunk_from_snapshot (&d->w, snap, chunk);
  g_mutex_lock (&d->w.lock);
  int e = 0;
  if (d->spill_fd < 0)
    {
      /* beside the draft, on the same disk: unnamed, or named only for as long as it takes
       * to open it */
      g_autofree char *name = NULL;
      d->spill_fd = open_beside (d->dir, &name, NULL);
      e = d->spill_fd < 0 ? (errno != 0 ? errno : EIO) : 0;
      if (name != NULL)
        {
          g_unlink (name);
          rt_temp_forget (name);
        }
    }
  int fd = d->spill_fd;
  spill.at = d->spill_end;
  d->spill_end += spill_room (chunk->len);
  g_mutex_unlock (&d->w.lock);
  if (e == 0)
    e = put_while_loading (d, fd, chunk->data, chunk->len, spill.at);
  if (e != 0)
    {
      draft_fail (d, MAX (e, 0));
      return spill;
    }
  const Chunk *c = (const Chunk *) (const void *) chunk->data;
  spill.size = chunk->len;
  spill.n_requests = c->n_requests;
  spill.n_turns = c->n_turns;
  spill.n_problems = c->n_problems;
  spill.ids_size = c->ids_size;
  return spill;
}

void
rt_cache_draft_begin_tables (RtCacheDraft *d, const char *exp_canonical, RtEventRegistry *reg,
                             guint n_files, const RtCacheTotals *totals)
{
  Writer *w = &d->w;
  w->begun = TRUE;
  w->totals = *totals;
  for (Part p = N_STREAMED_PARTS; p < N_PARTS; p++)
    w->parts[p] = g_array_new (FALSE, FALSE, 1);
  /* after the rows, the ids; then the tables, those written as files are added first */
  guint64 ids_at = d->end;
  stream_start (&w->ids, ids_at, totals->ids_size, FALSE, 0);
  guint64 at = (ids_at + totals->ids_size + 7) & ~(guint64) 7;
  d->tables_at = at;
  const guint64 sizes[N_STREAMED_PARTS] = {
    [PART_REQUESTS] = totals->n_requests * sizeof (CacheRequest),
    [PART_TURNS] = totals->n_turns * sizeof (RtTurnFigures),
    [PART_PROBLEMS] = totals->n_problems * sizeof (CacheProblem),
    [PART_ENGINE] = totals->n_requests * sizeof (double),
  };
  for (Part p = 0; p < N_STREAMED_PARTS; p++)
    {
      /* requests and turns have their checksums file by file */
      gboolean hashed = p != PART_REQUESTS && p != PART_TURNS;
      stream_start (&w->streams[p], at, sizes[p], hashed, 1 + p);
      at += sizes[p];
    }
  rt_array_make_room (w->parts[PART_FILES], (gsize) n_files * sizeof (CacheFile));
  rt_array_make_room (w->parts[PART_DURATIONS], (gsize) totals->n_requests * sizeof (double));
  w->experiment = add_string (w, exp_canonical);
  for (guint i = 0; i < rt_event_registry_size (reg); i++)
    {
      guint64 name = add_string (w, rt_event_registry_name (reg, (guint16) i));
      g_array_append_vals (w->parts[PART_NAMES], &name, sizeof name);
    }
}

void
rt_cache_draft_add_file (RtCacheDraft *d, const RtFile *f, const RtCacheSnapshot *snap, guint64 rows_at,
                         const RtCacheSpill *spill)
{
  Writer *w = &d->w;
  g_assert (w->begun);
  if (spill != NULL)
    {
      g_byte_array_set_size (w->chunk, (guint) spill->size);
      if (spill->size < sizeof (Chunk) || rt_read_at (d->spill_fd, w->chunk->data, spill->size, spill->at) != spill->size)
        {
          draft_fail (d, EIO);
          memset (w->chunk->data, 0, MIN (spill->size, sizeof (Chunk)));
          g_byte_array_set_size (w->chunk, sizeof (Chunk));
        }
#ifdef FALLOC_FL_PUNCH_HOLE
      /* (where the file system cannot, they go back when the draft is done) */
      int punched G_GNUC_UNUSED = fallocate (d->spill_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
                                             (off_t) spill->at,
                                             (off_t) spill_room (spill->size));
#endif
    }
  else
    chunk_from_snapshot (w, snap, w->chunk);
  Chunk *c = (Chunk *) (void *) w->chunk->data;
  CacheRequest *cq = (CacheRequest *) (void *) (c + 1);
  RtTurnFigures *ct = (RtTurnFigures *) (void *) (cq + c->n_requests);
  CacheProblem *cp = (CacheProblem *) (void *) (ct + c->n_turns);
  const char *ids = (const char *) w->chunk->data + chunk_tables_size (c);
  guint32 record = rt_cache_draft_n_files (d) - (guint32) w->base.n_files;   /* its own number */

  const RtFile *n = &snap->counters;
  CacheFile cf = {
    .path = add_string (w, f->path), .step = f->step, .worker = f->worker,
    .size = f->size, .inode = f->inode, .mtime_us = f->mtime_us, .ctime_ns = f->ctime_ns,
    .resume_offset = snap->offset, .resume_line = snap->line,
    .prefix_checksum = snap->prefix_checksum, .prefix_known = (guint32) snap->prefix_known,
    .lines = n->lines, .events = n->events, .bad_lines = n->bad_lines,
    .field_problems = n->field_problems, .problems_total = n->problems_total,
    .glued_lines = n->glued_lines,
    .start_min_s = n->start_min_s, .n_complete = n->n_complete, .schema = n->schema,
    .rows_at = rows_at, .rows_checksum = snap->rows_checksum, .n_rows = n->n_events,
    .n_rollout_ends = n->n_rollout_ends, .n_events_at_end = n->n_events_at_end,
    .n_requests_at_end = n->n_requests_at_end,
    .first_rollout = n->first_rollout,
    .first_request = (guint32) w->n_requests, .n_requests = c->n_requests,
    .first_turn = (guint32) w->n_turns, .n_turns = c->n_turns,
    .first_problem = (guint32) w->n_problems, .n_problems = c->n_problems,
    .ids_at = w->ids_size, .ids_size = c->ids_size,
  };
  memcpy (cf.step_sum_s, n->step_sum_s, sizeof cf.step_sum_s);

  /* the requests as the cache numbers them: ids and turns in its tables, and their file */
  for (guint32 k = 0; k < c->n_requests; k++)
    {
      double engine = rt_turns_engine_s (cq[k].n_turns > 0 ? &ct[cq[k].first_turn] : NULL, cq[k].n_turns);
      stream_put (d, &w->streams[PART_ENGINE], &engine, sizeof engine);
      cq[k].id += cf.ids_at;
      cq[k].first_turn += cf.first_turn;
      cq[k].file = record;
      cq[k].step = f->step;
      cq[k].worker = f->worker;
    }
  cf.requests_checksum = hash_requests (cq, c->n_requests);
  cf.turns_checksum = rt_hash64 (ct, (gsize) c->n_turns * sizeof (RtTurnFigures), 12);
  cf.ids_checksum = rt_hash64 (ids, c->ids_size, 4);
  rt_turn_sums_add (w->turn_sums, ct, c->n_turns);
  stream_put (d, &w->streams[PART_REQUESTS], cq, (gsize) c->n_requests * sizeof (CacheRequest));
  stream_put (d, &w->streams[PART_TURNS], ct, (gsize) c->n_turns * sizeof (RtTurnFigures));
  stream_put (d, &w->streams[PART_PROBLEMS], cp, (gsize) c->n_problems * sizeof (CacheProblem));
  stream_put (d, &w->ids, ids, c->ids_size);
  w->n_requests += c->n_requests;
  w->n_turns += c->n_turns;
  w->n_problems += c->n_problems;
  w->ids_size += c->ids_size;
  g_array_append_vals (w->parts[PART_FILES], &cf, sizeof cf);
}

guint
rt_cache_draft_n_files (RtCacheDraft *d)
{
  return (guint) d->w.base.n_files + d->w.parts[PART_FILES]->len / sizeof (CacheFile);
}

void
rt_cache_draft_extend (RtCacheDraft *d, RtCacheBase base)
{
  g_assert (!d->w.begun);
  d->w.delta = TRUE;
  d->w.base = base;
}

void
rt_cache_draft_mark_turn_sums (RtCacheDraft *d)
{
  Writer *w = &d->w;
  if (w->delta)
    return;
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
  g_assert (w->begun);
  CacheHeader h = { .byte_order = BYTE_ORDER_MARK, .format = CACHE_FORMAT,
                    .event_size = sizeof (RtEvent) };
  memcpy (h.magic, "RTCACHE\n", 8);
  g_strlcpy (h.version, RT_VERSION, sizeof h.version);
  h.experiment = w->experiment;
  h.base_checksum = w->base.checksum;
  GArray **parts = w->parts;
  h.n_names = parts[PART_NAMES]->len / sizeof (guint64);
  h.n_files = parts[PART_FILES]->len / sizeof (CacheFile);
  h.n_requests = w->n_requests;
  h.n_turns = w->n_turns;
  h.n_problems = w->n_problems;
  h.n_steps = parts[PART_STEPS]->len / sizeof (CacheStep);
  h.n_durations = parts[PART_DURATIONS]->len / sizeof (double);
  h.n_turn_sums = parts[PART_TURN_SUMS]->len / sizeof (RtTurnSums);
  h.n_turn_marks = parts[PART_TURN_MARKS]->len / sizeof (CacheTurnMark);
  h.ids_at = w->ids.end - w->totals.ids_size;
  h.ids_size = w->ids_size;
  h.tables_at = d->tables_at;

  /* every part written as files were added is as long as counted, and ends where the next
   * begins: what the reader finds from the counts */
  gboolean whole = stream_end (d, &w->ids) && !w->miscounted && h.ids_size == w->totals.ids_size;
  guint64 at = h.tables_at;
  for (Part p = 0; p < N_STREAMED_PARTS; p++)
    {
      whole = whole && stream_end (d, &w->streams[p]) && w->streams[p].at == at + part_size (&h, p);
      h.part_checksum[p] = w->streams[p].hashed ? hash_stream_end (&w->streams[p].hash) : 0;
      at += part_size (&h, p);
    }
  int failed = g_atomic_int_get (&d->failed);
  /* the few bytes between the ids and the tables too: every byte of the file is written, and
   * counted by a fault's bytes (kill@N meets the last one) */
  static const guint8 zeros[8];
  guint64 ids_end = h.ids_at + h.ids_size;
  if (failed == 0 && h.tables_at > ids_end)
    failed = put_at (d->fd, zeros, h.tables_at - ids_end, ids_end);
  for (Part p = N_STREAMED_PARTS; p < N_PARTS; p++)
    {
      h.part_checksum[p] = rt_hash64 (parts[p]->data, parts[p]->len, 1 + p);
      if (failed == 0)
        failed = put_at (d->fd, parts[p]->data, parts[p]->len, at);
      at += parts[p]->len;
    }
  h.strings_at = h.tables_at + tables_size_for (&h);
  h.strings_size = w->strings->len;
  h.strings_checksum = rt_hash64 (w->strings->data, w->strings->len, 3);
  h.total_size = h.strings_at + h.strings_size;
  h.header_checksum = rt_hash64 (&h, offsetof (CacheHeader, header_checksum), 0);
  if (failed == 0)
    failed = put_at (d->fd, w->strings->data, w->strings->len, h.strings_at);
  if (failed == 0 && !whole)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write the cache in %s: its tables came "
                   "out other than counted (a bug: please report it)", d->dir);
      return FALSE;
    }
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
