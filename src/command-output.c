/* command-output.c: the files a command writes into its output folder (--out), each written
 * whole under a temporary name, and the TSV helpers of the tables not yet declared as RtTable. */
#include "command-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <errno.h>
#include <math.h>
#include <string.h>

char *
rt_session_out_path (RtSession *s, const char *name)
{
  return g_build_filename (s->out_dir, name, NULL);
}

gboolean
rt_session_ensure_out_dir (RtSession *s, GError **error)
{
  if (s->out_ready)
    return TRUE;
  if (g_mkdir_with_parents (s->out_dir, 0777) != 0)
    {
      int e = errno;
      g_set_error (error, RT_ERROR, RT_ERROR_IO, "cannot create output folder %s: %s",
                   s->out_dir, g_strerror (e));
      return FALSE;
    }
  s->out_ready = TRUE;
  return TRUE;
}

gboolean
rt_session_write (RtSession *s, const char *name, const GString *content, GError **error)
{
  if (!rt_session_ensure_out_dir (s, error))
    return FALSE;
  g_autofree char *path = rt_session_out_path (s, name);
  /* An unchanged file keeps its time stamp, so that `make plots` re-renders only
   * the plots whose data or script changed. */
  g_autofree char *old = NULL;
  gsize old_len;
  if (g_file_get_contents (path, &old, &old_len, NULL) && old_len == content->len
      && memcmp (old, content->str, old_len) == 0)
    return TRUE;
  return rt_file_write_atomic (path, content->str, content->len, error);
}

GString *
rt_tsv_new (const char *const *columns)
{
  GString *tsv = g_string_new (NULL);
  for (guint i = 0; columns[i] != NULL; i++)
    {
      if (i > 0)
        g_string_append_c (tsv, '\t');
      g_string_append (tsv, columns[i]);
    }
  g_string_append_c (tsv, '\n');
  return tsv;
}

static void
tsv_end (GString *tsv, gboolean last)
{
  g_string_append_c (tsv, last ? '\n' : '\t');
}

void
rt_tsv_num (GString *tsv, double v, gboolean last)
{
  if (isfinite (v))
    rt_format_double (tsv, v);
  else
    g_string_append (tsv, "NaN");
  tsv_end (tsv, last);
}

void
rt_tsv_int (GString *tsv, gint64 v, gboolean last)
{
  g_string_append_printf (tsv, "%" G_GINT64_FORMAT, v);
  tsv_end (tsv, last);
}

void
rt_tsv_str (GString *tsv, const char *s, gboolean last)
{
  rt_tsv_append_text (tsv, s);
  tsv_end (tsv, last);
}
