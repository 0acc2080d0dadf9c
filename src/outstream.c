/* SPDX-License-Identifier: Apache-2.0 */
/* outstream.c: a streamed output file under a temporary name, renamed once complete, optionally
 * through GIO's zlib compressor, so that a large export never sits whole in memory. */
#include "rolltrace/rt-outstream.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The writer thread's blocks: what is written is copied into one, and a full block goes to
 * the thread; with BLOCKS of them in turn, memory holds 2 MB whatever the output. A block is
 * NOT a multiple of the page size, on purpose: writes of whole aligned 256 KB let the kernel
 * take large folios for the page cache, and copying into those cost several times as much
 * system time (bench/RESULTS.md, "Behind the code"),
 * while writes that start anywhere in a page get the small ones that rt-trace's own
 * unaligned 256 KB writes always got. */
#define BLOCK_BYTES (((gsize) 256 << 10) - 17)
#define BLOCKS 8

/* Compression level: 1 (the fastest) already shrinks a trace's JSON about tenfold; higher
 * levels cost several times the time for a few percent. */
#define GZIP_LEVEL 1

/* ---- the writer thread ---- */

/* A GOutputStream that hands what it is given to a thread of its own, which writes it to
 * `base` in the same order. A large output costs the kernel about as much to take (its copy
 * into the page cache) as it costs us to make: on its own thread that copy, and gzip's
 * compression, run beside the making on the other core. The first error of the base is
 * kept and returned by the next write, flush or close. */
typedef struct {
  char *data;
  gsize len;
} Block;

typedef struct {
  GOutputStream parent;
  GOutputStream *base;
  GThread *thread;
  GMutex lock;
  GCond cond;
  Block blocks[BLOCKS];
  guint next_fill;            /* the block being filled: blocks are filled and written in turn */
  guint queued, written;      /* blocks handed to the thread, and written (or dropped) by it */
  gboolean stop;              /* the thread ends once it has written every queued block */
  gboolean failed;            /* (under lock) error is set: the thread drops what it is given */
  GError *error;
} RtWriterStream;

typedef GOutputStreamClass RtWriterStreamClass;

static GType rt_writer_stream_get_type (void);
G_DEFINE_TYPE (RtWriterStream, rt_writer_stream, G_TYPE_OUTPUT_STREAM)

static gpointer
writer_thread (gpointer data)
{
  RtWriterStream *w = data;
  g_mutex_lock (&w->lock);
  for (;;)
    {
      while (w->written == w->queued && !w->stop)
        g_cond_wait (&w->cond, &w->lock);
      if (w->written == w->queued)
        break;
      Block *b = &w->blocks[w->written % BLOCKS];
      gboolean drop = w->failed;
      g_mutex_unlock (&w->lock);
      GError *error = NULL;
      gboolean ok = drop || g_output_stream_write_all (w->base, b->data, b->len, NULL, NULL, &error);
      g_mutex_lock (&w->lock);
      if (!ok)
        {
          w->error = error;
          w->failed = TRUE;
        }
      b->len = 0;
      w->written++;
      g_cond_broadcast (&w->cond);
    }
  g_mutex_unlock (&w->lock);
  return NULL;
}

/* Without a thread (none could be started): writes the block being filled here. */
static void
write_block_here (RtWriterStream *w)
{
  Block *b = &w->blocks[w->next_fill];
  GError *error = NULL;
  if (b->len > 0 && !w->failed && !g_output_stream_write_all (w->base, b->data, b->len, NULL, NULL, &error))
    {
      w->error = error;
      w->failed = TRUE;
    }
  b->len = 0;
}

/* Hands the block being filled to the thread (when it holds anything) and waits until the
 * next one is free. */
static void
queue_block (RtWriterStream *w)
{
  if (w->thread == NULL)
    {
      write_block_here (w);
      return;
    }
  g_mutex_lock (&w->lock);
  if (w->blocks[w->next_fill].len > 0)
    {
      w->queued++;
      w->next_fill = w->queued % BLOCKS;
      g_cond_broadcast (&w->cond);
      while (w->queued - w->written >= BLOCKS)
        g_cond_wait (&w->cond, &w->lock);
    }
  g_mutex_unlock (&w->lock);
}

/* Waits until every queued block is written; FALSE (and the error) when one failed. */
static gboolean
drain (RtWriterStream *w, GError **error)
{
  queue_block (w);
  g_mutex_lock (&w->lock);
  while (w->written != w->queued)
    g_cond_wait (&w->cond, &w->lock);
  gboolean ok = !w->failed;
  if (!ok)
    g_propagate_error (error, g_error_copy (w->error));
  g_mutex_unlock (&w->lock);
  return ok;
}

static gboolean
writer_failed (RtWriterStream *w, GError **error)
{
  g_mutex_lock (&w->lock);
  gboolean failed = w->failed;
  if (failed)
    g_propagate_error (error, g_error_copy (w->error));
  g_mutex_unlock (&w->lock);
  return failed;
}

static gssize
writer_write (GOutputStream *stream, const void *buffer, gsize count, GCancellable *cancellable, GError **error)
{
  RtWriterStream *w = (RtWriterStream *) stream;
  (void) cancellable;
  if (writer_failed (w, error))
    return -1;
  const char *p = buffer;
  gsize left = count;
  while (left > 0)
    {
      Block *b = &w->blocks[w->next_fill];   /* only this thread touches the block being filled */
      gsize n = MIN (left, BLOCK_BYTES - b->len);
      memcpy (b->data + b->len, p, n);
      b->len += n;
      p += n;
      left -= n;
      if (b->len == BLOCK_BYTES)
        queue_block (w);
    }
  return (gssize) count;
}

static gboolean
writer_flush (GOutputStream *stream, GCancellable *cancellable, GError **error)
{
  RtWriterStream *w = (RtWriterStream *) stream;
  /* a close flushes first: the base is then closed, not flushed (a compressor's flush would
   * add a block that its close alone does not write) */
  return drain (w, error) && (g_output_stream_is_closing (stream) || g_output_stream_flush (w->base, cancellable, error));
}

/* Ends the thread after what is queued. */
static void
stop_thread (RtWriterStream *w)
{
  if (w->thread == NULL)
    return;
  g_mutex_lock (&w->lock);
  w->stop = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
  g_thread_join (g_steal_pointer (&w->thread));
}

static gboolean
writer_close (GOutputStream *stream, GCancellable *cancellable, GError **error)
{
  RtWriterStream *w = (RtWriterStream *) stream;
  gboolean ok = drain (w, error);
  stop_thread (w);
  /* the base is closed whatever happened, as a GFilterOutputStream closes its own */
  return g_output_stream_close (w->base, cancellable, ok ? error : NULL) && ok;
}

static void
rt_writer_stream_finalize (GObject *object)
{
  RtWriterStream *w = (RtWriterStream *) object;
  stop_thread (w);           /* not closed (a failure elsewhere): what was queued is written, or dropped */
  g_object_unref (w->base);
  for (guint i = 0; i < BLOCKS; i++)
    g_free (w->blocks[i].data);
  g_clear_error (&w->error);
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  G_OBJECT_CLASS (rt_writer_stream_parent_class)->finalize (object);
}

static void
rt_writer_stream_class_init (RtWriterStreamClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = rt_writer_stream_finalize;
  klass->write_fn = writer_write;
  klass->flush = writer_flush;
  klass->close_fn = writer_close;
}

static void
rt_writer_stream_init (RtWriterStream *w)
{
  g_mutex_init (&w->lock);
  g_cond_init (&w->cond);
}

GOutputStream *
rt_writer_stream_new_full (GOutputStream *base, gboolean threaded)
{
  RtWriterStream *w = g_object_new (rt_writer_stream_get_type (), NULL);
  w->base = g_object_ref (base);
  for (guint i = 0; i < BLOCKS; i++)
    w->blocks[i].data = g_malloc (BLOCK_BYTES);
  /* where no thread can be had (a limit on processes, or on memory for its stack), the
   * blocks are written by the caller, as they come: slower, never a failed command */
  if (threaded)
    w->thread = g_thread_try_new ("rt-writer", writer_thread, w, NULL);
  return G_OUTPUT_STREAM (w);
}

GOutputStream *
rt_writer_stream_new (GOutputStream *base)
{
  return rt_writer_stream_new_full (base, TRUE);
}

/* ---- the output file ---- */

struct _RtOutStream {
  char *path;
  char *tmp_path;             /* NULL once committed or removed */
  GOutputStream *file;
  GOutputStream *stream;      /* a writer thread over `file`, or over a converter stream over it */
};

gboolean
rt_path_wants_gzip (const char *path)
{
  gsize n = strlen (path);
  return n >= 3 && g_ascii_strcasecmp (path + n - 3, ".gz") == 0;
}

RtOutStream *
rt_out_stream_open (const char *path, gboolean gzip, GError **error)
{
  g_autoptr (RtOutStream) o = g_new0 (RtOutStream, 1);
  o->path = g_strdup (path);
  int fd = rt_temp_create (path, &o->tmp_path, error);
  if (fd < 0)
    return NULL;
  close (fd);
  g_autoptr (GFile) file = g_file_new_for_path (o->tmp_path);
  g_autoptr (GError) local = NULL;
  o->file = G_OUTPUT_STREAM (g_file_append_to (file, G_FILE_CREATE_NONE, NULL, &local));
  if (o->file == NULL)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write %s: %s", path, local->message);
      return NULL;
    }
  g_autoptr (GOutputStream) under = NULL;
  if (gzip)
    {
      g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, GZIP_LEVEL);
      under = g_converter_output_stream_new (o->file, G_CONVERTER (z));   /* compressed on the thread */
    }
  else
    under = g_object_ref (o->file);
  o->stream = rt_writer_stream_new (under);
  return g_steal_pointer (&o);
}

GOutputStream *
rt_out_stream_get (RtOutStream *o)
{
  return o->stream;
}

/* The two files hold the same bytes (FALSE when either cannot be read). */
static gboolean
same_files (const char *a, const char *b)
{
  GStatBuf sa, sb;
  if (g_stat (a, &sa) != 0 || g_stat (b, &sb) != 0 || sa.st_size != sb.st_size || !S_ISREG (sb.st_mode))
    return FALSE;
  FILE *fa = g_fopen (a, "rb"), *fb = g_fopen (b, "rb");
  gboolean same = fa != NULL && fb != NULL;
  enum { CHUNK = 64 << 10 };
  g_autofree char *ba = g_malloc (CHUNK), *bb = g_malloc (CHUNK);
  while (same)
    {
      size_t na = fread (ba, 1, CHUNK, fa), nb = fread (bb, 1, CHUNK, fb);
      same = na == nb && memcmp (ba, bb, na) == 0 && !ferror (fa) && !ferror (fb);
      if (na < CHUNK)
        break;
    }
  if (fa != NULL)
    fclose (fa);
  if (fb != NULL)
    fclose (fb);
  return same;
}

gboolean
rt_out_stream_commit (RtOutStream *o, guint64 *bytes, GError **error)
{
  return rt_out_stream_commit_changed (o, FALSE, bytes, NULL, error);
}

gboolean
rt_out_stream_commit_changed (RtOutStream *o, gboolean keep_same, guint64 *bytes, gboolean *replaced,
                              GError **error)
{
  g_autoptr (GError) local = NULL;
  /* closing the writer writes what it holds, then closes the converter (which writes the
   * compressor's tail) and the file under it */
  if (!g_output_stream_close (o->stream, NULL, &local) || !g_output_stream_close (o->file, NULL, &local))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write %s: %s", o->path, local->message);
      return FALSE;
    }
  GStatBuf st;
  if (bytes != NULL)
    *bytes = g_stat (o->tmp_path, &st) == 0 ? (guint64) st.st_size : 0;
  gboolean replace = !keep_same || !same_files (o->tmp_path, o->path);
  if (replaced != NULL)
    *replaced = replace;
  gboolean ok = rt_temp_finish (o->tmp_path, o->path, replace, error);
  g_clear_pointer (&o->tmp_path, g_free);
  return ok;
}

void
rt_out_stream_free (RtOutStream *o)
{
  if (o == NULL)
    return;
  g_clear_object (&o->stream);
  g_clear_object (&o->file);
  if (o->tmp_path != NULL)
    rt_temp_finish (o->tmp_path, o->path, FALSE, NULL);
  g_free (o->tmp_path);
  g_free (o->path);
  g_free (o);
}
