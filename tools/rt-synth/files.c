/* rt-synth's worker files: a rank's step as text, its lines in time order with the damage that
 * falls into it, written under a temporary name and renamed when complete. */
#define _POSIX_C_SOURCE 200809L /* fdopen */

#include "synth.h"

#include <glib/gstdio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A file's text in three parts: the preprocessing line, the request lines in the order they
 * were generated (refs says in which order to write them), and the step-level lines after. */
typedef struct {
  GString *head, *body, *tail;
  GArray *refs;
  gsize tail_last_line; /* offset of the last line in tail, for the truncation fault */
} TraceText;

static void
trace_text_clear (TraceText *tt)
{
  g_string_free (tt->head, TRUE);
  g_string_free (tt->body, TRUE);
  g_string_free (tt->tail, TRUE);
  g_array_unref (tt->refs);
}

static int
compare_line_ref (gconstpointer a, gconstpointer b)
{
  const LineRef *x = a, *y = b;
  if (x->end_us != y->end_us)
    return x->end_us < y->end_us ? -1 : 1;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

static void
trace_text_build (TraceText *tt, const Synth *sy, const RankStep *rs, StatsDamage stats_damage)
{
  int n = sy->n_requests;
  const Generation *gen = sy->gen;
  tt->head = g_string_sized_new (256);
  tt->body = g_string_sized_new ((gsize) n * gen->bytes_per_request);
  tt->tail = g_string_sized_new (4096 + (gsize) n * 12);
  tt->refs = g_array_sized_new (FALSE, FALSE, sizeof (LineRef),
                                (guint) (n * gen->lines_per_request));

  g_autofree char *suffix = g_strdup_printf (", \"workid\": %d, \"step\": %d}\n", rs->worker, rs->step);
  LineSink k = { .s = tt->head, .suffix = suffix, .suffix_len = strlen (suffix) };
  emit_section (&k, rs, gen, SEC_PREPROCESSING);

  /* All requests run at once: write each one's lines in its own order, then sort them all by
   * time, which interleaves them the way a shared log file does. */
  g_autofree int *lengths = g_new (int, n);
  g_autofree int *actual = g_new (int, n);
  k.s = tt->body;
  k.refs = tt->refs;
  RequestPlan plan;
  for (int i = 0; i < n; i++)
    {
      request_plan (&plan, sy->seed, rs->step, rs->worker, i, rs->slow, sy->tool_scale);
      gint64 base = rs->end[SEC_PREPROCESSING] + plan.offset;
      gen->emit_request (&k, &plan, base);
      lengths[i] = plan.response_length;
      actual[i] = plan.actual_tokens;
    }
  g_array_sort (tt->refs, compare_line_ref);

  k.s = tt->tail;
  k.refs = NULL;
  for (Section sec = SEC_ASYNC_GENERATE; sec <= SEC_FINAL_CONSTRUCTION; sec++)
    emit_section (&k, rs, gen, sec);
  if (gen->emit_length_stats != NULL)
    gen->emit_length_stats (&k, rs->stats_time, lengths, actual, n, stats_damage);
  tt->tail_last_line = tt->tail->len;
  emit_section (&k, rs, gen, SEC_TOTAL);
}

static gboolean
write_chunk (FILE *f, const char *data, gsize len, guint64 *bytes)
{
  *bytes += len;
  return fwrite (data, 1, len, f) == len;
}

/* Writes the file's lines in time order, with the damage that falls into this file. */
static gboolean
trace_text_write (const TraceText *tt, const FileDamage *dmg, FILE *f, guint64 *lines,
                  guint64 *bytes)
{
  gboolean ok = write_chunk (f, tt->head->str, tt->head->len, bytes);
  *lines += 1;
  const LineRef *refs = (const LineRef *) (gpointer) tt->refs->data;
  guint n = tt->refs->len;
  for (guint i = 0; i <= n && ok; i++)
    {
      for (int j = 0; dmg != NULL && j < dmg->n_inserted; j++)
        if ((guint) (dmg->inserted[j].at * n) == i)
          {
            const char *text = dmg->inserted[j].text;
            ok = ok && write_chunk (f, text, strlen (text), bytes);
            for (const char *c = text; *c; c++)
              *lines += *c == '\n';
          }
      if (i < n)
        ok = ok && write_chunk (f, tt->body->str + refs[i].offset, refs[i].length, bytes);
    }
  *lines += n;

  gsize tail_len = tt->tail->len;
  if (dmg != NULL && dmg->truncate_last)
    {
      /* The process died while writing its last line: cut mid-object, no newline. */
      gsize last_len = tt->tail->len - tt->tail_last_line;
      gsize keep = MAX ((gsize) 1, (gsize) (dmg->truncate_at * (double) last_len));
      tail_len = tt->tail_last_line + MIN (keep, last_len - 2);
    }
  ok = ok && write_chunk (f, tt->tail->str, tail_len, bytes);
  for (gsize i = 0; i < tail_len; i++)
    *lines += tt->tail->str[i] == '\n';
  if (tail_len < tt->tail->len)
    *lines += 1; /* the cut line counts too */
  return ok;
}

/* Writes OUT-relative `path` through a temporary name in the same folder and renames it when
 * complete, so an error never leaves a half-written worker file where an analyzer would read it.
 * tt == NULL writes an empty file. */
static gboolean
write_file_atomically (const Synth *sy, const char *path, const TraceText *tt,
                       const FileDamage *dmg, guint64 *lines, guint64 *bytes, GError **error)
{
  g_autofree char *final_path = g_build_filename (sy->out_dir, path, NULL);
  g_autofree char *dir = g_path_get_dirname (final_path);
  g_autofree char *base = g_path_get_basename (final_path);
  g_autofree char *tmp_path = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);

  int fd = g_mkstemp_full (tmp_path, O_WRONLY, 0644);
  if (fd < 0)
    return synth_io_error (error, errno, "cannot create a file in", dir);
  FILE *f = fdopen (fd, "wb");
  if (f == NULL)
    {
      int saved = errno;
      close (fd);
      g_unlink (tmp_path);
      return synth_io_error (error, saved, "cannot write", final_path);
    }
  /* Few, large writes: the text is already in memory, stdio only batches the pieces. */
  setvbuf (f, NULL, _IOFBF, 1 << 20);
  gboolean ok = tt == NULL || trace_text_write (tt, dmg, f, lines, bytes);
  int saved = errno;
  if (fclose (f) != 0 && ok)
    {
      ok = FALSE;
      saved = errno;
    }
  if (ok && g_rename (tmp_path, final_path) != 0)
    {
      ok = FALSE;
      saved = errno;
    }
  if (!ok)
    {
      g_unlink (tmp_path);
      return synth_io_error (error, saved, "cannot write", final_path);
    }
  return TRUE;
}

/* GThreadPool task: generate one (step, worker) file and its copies. */
void
rank_step_write (gpointer data, gpointer user_data)
{
  RankStep *rs = data;
  Synth *sy = user_data;
  if (g_atomic_int_get (&sy->failed))
    return;
  int idx = rs->step_index * sy->n_workers + rs->worker;
  const FileDamage *dmg = sy->damage != NULL ? &sy->damage[idx] : NULL;
  FileFate fate = dmg != NULL ? dmg->fate : FILE_PRESENT;
  int n_copies = dmg != NULL ? dmg->n_copies : 0;
  g_autofree char *path = g_strdup_printf ("step_%d/worker_%d.jsonl", rs->step, rs->worker);
  guint64 lines = 0, bytes = 0, copy_lines = 0, copy_bytes = 0;
  GError *error = NULL;

  TraceText tt;
  gboolean need_text = fate == FILE_PRESENT || n_copies > 0;
  if (need_text)
    trace_text_build (&tt, sy, rs, dmg != NULL ? dmg->stats : STATS_INTACT);

  gboolean ok = TRUE;
  if (fate != FILE_MISSING)
    ok = write_file_atomically (sy, path, fate == FILE_EMPTY ? NULL : &tt, dmg, &lines, &bytes,
                                &error);
  for (int c = 0; ok && c < n_copies; c++)
    ok = write_file_atomically (sy, dmg->copies[c], &tt, dmg, &copy_lines, &copy_bytes, &error);
  if (need_text)
    trace_text_clear (&tt);

  if (!ok)
    {
      synth_fail (sy, error);
      return;
    }
  g_mutex_lock (&sy->lock);
  sy->lines += lines;
  sy->bytes += bytes;
  sy->files += fate != FILE_MISSING;
  g_mutex_unlock (&sy->lock);
}
