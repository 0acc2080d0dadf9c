/* SPDX-License-Identifier: Apache-2.0 */
/* command-output.c: the files a command writes into its output folder (--out), each written
 * whole under a temporary name: data, tables (TSV from an RtTable) and scripts. */
#include "command-private.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* The file at `path` holds exactly the n_parts pieces one after another: read a block at a
 * time, not whole (the data files of a large trace run to megabytes), and only when its size
 * is the same. */
static gboolean
file_holds (const char *path, const RtBytes *parts, guint n_parts)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return FALSE;
  gsize total = 0;
  for (guint i = 0; i < n_parts; i++)
    total += parts[i].len;
  struct stat st;
  gboolean same = fstat (fd, &st) == 0 && S_ISREG (st.st_mode) && (guint64) st.st_size == total;
  const gsize block_size = 64 << 10;
  g_autofree char *block = same ? g_malloc (block_size) : NULL;   /* the caller's own */
  for (guint i = 0; same && i < n_parts; i++)
    for (gsize at = 0; same && at < parts[i].len;)
      {
        gssize r = read (fd, block, MIN (block_size, parts[i].len - at));
        if (r < 0 && errno == EINTR)
          continue;
        same = r > 0 && memcmp (block, (const char *) parts[i].data + at, (gsize) r) == 0;
        at += r > 0 ? (gsize) r : 0;
      }
  char extra;
  same = same && read (fd, &extra, 1) == 0;   /* nor longer than stat said */
  close (fd);
  return same;
}

gboolean
rt_session_write (RtSession *s, const char *name, const GString *content, GError **error)
{
  const GString *parts[] = { content };
  return rt_session_write_parts (s, name, parts, 1, error);
}

gboolean
rt_session_write_parts (RtSession *s, const char *name, const GString *const *parts, guint n_parts,
                        GError **error)
{
  if (!rt_session_ensure_out_dir (s, error))
    return FALSE;
  g_autofree char *path = rt_session_out_path (s, name);
  g_autofree RtBytes *bytes = g_new (RtBytes, MAX (n_parts, 1));
  for (guint i = 0; i < n_parts; i++)
    bytes[i] = (RtBytes) { parts[i]->str, parts[i]->len };
  /* An unchanged file keeps its time stamp, so that `make plots` re-renders only
   * the plots whose data or script changed. */
  if (file_holds (path, bytes, n_parts))
    return TRUE;
  return rt_file_write_atomic_parts (path, bytes, n_parts, error);
}

gboolean
rt_session_write_tsv (RtSession *s, const GString *tsv, const char *stem, GError **error)
{
  return rt_session_write_tsv_parts (s, &tsv, 1, stem, error);
}

gboolean
rt_session_write_tsv_parts (RtSession *s, const GString *const *parts, guint n, const char *stem, GError **error)
{
  g_autofree char *name = g_strdup_printf ("%s.tsv", stem);
  return rt_session_write_parts (s, name, parts, n, error);
}

/* ---- a file compared as its text is made ---- */

struct _RtOutCheck {
  char *path;
  int fd;                     /* the file there, or -1 */
  guint64 size;
};

RtOutCheck *
rt_session_check_new (RtSession *s, const char *name)
{
  RtOutCheck *c = g_new0 (RtOutCheck, 1);
  c->path = rt_session_out_path (s, name);
  c->fd = open (c->path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (c->fd >= 0 && !(fstat (c->fd, &st) == 0 && S_ISREG (st.st_mode)))
    {
      close (c->fd);
      c->fd = -1;
    }
  c->size = c->fd >= 0 ? (guint64) st.st_size : 0;
  return c;
}

void
rt_out_check_free (RtOutCheck *c)
{
  if (c == NULL)
    return;
  if (c->fd >= 0)
    close (c->fd);
  g_free (c->path);
  g_free (c);
}

guint64
rt_out_check_size (const RtOutCheck *c)
{
  return c->size;
}

gsize
rt_out_check_read (RtOutCheck *c, guint64 at, char *buf, gsize n)
{
  if (c->fd < 0 || at >= c->size)
    return 0;
  return rt_read_at (c->fd, buf, MIN (n, c->size - at), at);
}

void
rt_out_part_begin (RtOutPart *p, RtOutCheck *c, guint64 offset, GString *text)
{
  *p = (RtOutPart) { c, offset, 0, c->fd < 0, text };
}

void
rt_out_part_compare (RtOutPart *p)
{
  if (p->differs || p->text->len == 0)
    return;
  /* a block at a time, into room of the caller's own (parts compare on two threads) */
  char block[16 << 10];
  guint64 at = p->offset + p->same;
  for (gsize done = 0; done < p->text->len;)
    {
      gsize n = MIN (sizeof block, p->text->len - done);
      if (rt_out_check_read (p->check, at + done, block, n) != n || memcmp (block, p->text->str + done, n) != 0)
        {
          p->differs = TRUE;
          return;
        }
      done += n;
    }
  p->same += p->text->len;
  g_string_truncate (p->text, 0);
}

gboolean
rt_session_check_finish (RtSession *s, RtOutCheck *c, RtOutPart *parts, guint n_parts, GError **error)
{
  if (!rt_session_ensure_out_dir (s, error))
    return FALSE;
  gboolean same = c->fd >= 0;
  guint64 end = 0;   /* where the parts found the same have come to */
  for (guint i = 0; i < n_parts; i++)
    {
      rt_out_part_compare (&parts[i]);
      same = same && !parts[i].differs && parts[i].offset == end;
      end += parts[i].same;
    }
  /* An unchanged file keeps its time stamp (see rt_session_write_parts). */
  if (same && end == c->size)
    return TRUE;
  /* the parts' bytes found the same are the file's: read again, then everything written */
  g_autoptr (GPtrArray) kept = g_ptr_array_new_with_free_func (g_free);
  g_autofree RtBytes *bytes = g_new (RtBytes, 2 * MAX (n_parts, 1u));
  guint n = 0;
  for (guint i = 0; i < n_parts; i++)
    {
      if (parts[i].same > 0)
        {
          char *old = g_malloc (parts[i].same);
          g_ptr_array_add (kept, old);
          if (rt_out_check_read (c, parts[i].offset, old, parts[i].same) != parts[i].same)
            {
              g_set_error (error, RT_ERROR, RT_ERROR_IO, "%s changed while it was compared", c->path);
              return FALSE;
            }
          bytes[n++] = (RtBytes) { old, parts[i].same };
        }
      bytes[n++] = (RtBytes) { parts[i].text->str, parts[i].text->len };
    }
  return rt_file_write_atomic_parts (c->path, bytes, n, error);
}

gboolean
rt_session_write_table (RtSession *s, const RtTable *table, const char *stem, GError **error)
{
  g_autoptr (GString) tsv = rt_table_tsv (table);
  return rt_session_write_tsv (s, tsv, stem, error);
}
