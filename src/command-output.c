/* command-output.c: the files a command writes into its output folder (--out), each written
 * whole under a temporary name: data, tables (TSV from an RtTable) and scripts. */
#include "command-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <errno.h>
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

gboolean
rt_session_write_table (RtSession *s, const RtTable *table, const char *stem, GError **error)
{
  g_autoptr (GString) tsv = rt_table_tsv (table);
  g_autofree char *name = g_strdup_printf ("%s.tsv", stem);
  return rt_session_write (s, name, tsv, error);
}
