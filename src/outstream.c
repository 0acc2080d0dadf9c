/* outstream.c: a streamed output file under a temporary name, renamed once complete, optionally
 * through GIO's zlib compressor, so that a large export never sits whole in memory. */
#include "rolltrace/rt-outstream.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

/* Compression level: 1 (the fastest) already shrinks a trace's JSON about tenfold; higher
 * levels cost several times the time for a few percent. */
#define GZIP_LEVEL 1

struct _RtOutStream {
  char *path;
  char *tmp_path;             /* NULL once committed or removed */
  GOutputStream *file;
  GOutputStream *stream;      /* `file`, or a converter stream over it */
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
  if (gzip)
    {
      g_autoptr (GZlibCompressor) z = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, GZIP_LEVEL);
      o->stream = g_converter_output_stream_new (o->file, G_CONVERTER (z));
    }
  else
    o->stream = g_object_ref (o->file);
  return g_steal_pointer (&o);
}

GOutputStream *
rt_out_stream_get (RtOutStream *o)
{
  return o->stream;
}

gboolean
rt_out_stream_commit (RtOutStream *o, guint64 *bytes, GError **error)
{
  g_autoptr (GError) local = NULL;
  /* closing the converter writes the compressor's tail and closes the file under it */
  if (!g_output_stream_close (o->stream, NULL, &local) || !g_output_stream_close (o->file, NULL, &local))
    {
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot write %s: %s", o->path, local->message);
      return FALSE;
    }
  GStatBuf st;
  if (bytes != NULL)
    *bytes = g_stat (o->tmp_path, &st) == 0 ? (guint64) st.st_size : 0;
  gboolean ok = rt_temp_finish (o->tmp_path, o->path, TRUE, error);
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
