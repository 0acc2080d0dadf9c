/* SPDX-License-Identifier: Apache-2.0 */
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

/* Where a line says which rank and step wrote it: the loggers end it with workid and step, the
 * 2026 one (--validation append) writes step and worker right after the timestamp. */
typedef struct {
  char prefix[64], suffix[64];
} LineFrame;

static void
line_frame_set (LineSink *k, LineFrame *f, const Synth *sy, int step, int worker)
{
  if (sy->validation == VALIDATION_APPEND)
    {
      g_snprintf (f->prefix, sizeof f->prefix, ", \"step\": %d, \"worker\": %d", step, worker);
      g_strlcpy (f->suffix, "}\n", sizeof f->suffix);
    }
  else
    {
      f->prefix[0] = '\0';
      g_snprintf (f->suffix, sizeof f->suffix, ", \"workid\": %d, \"step\": %d}\n", worker, step);
    }
  k->prefix = f->prefix;
  k->prefix_len = strlen (f->prefix);
  k->suffix = f->suffix;
  k->suffix_len = strlen (f->suffix);
}

static void
trace_text_build (TraceText *tt, const Synth *sy, const RankStep *rs, StatsDamage stats_damage)
{
  int n = rs->n_requests;
  const Generation *gen = sy->gen;
  tt->head = g_string_sized_new (256);
  tt->body = g_string_sized_new ((gsize) n * gen->bytes_per_request);
  tt->tail = g_string_sized_new (4096 + (gsize) n * 12);
  tt->refs = g_array_sized_new (FALSE, FALSE, sizeof (LineRef),
                                (guint) (n * gen->lines_per_request));

  LineFrame frame;
  LineSink k = { .s = tt->head };
  line_frame_set (&k, &frame, sy, rs->step, rs->worker);
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
      request_plan (&plan, rs->style, sy->seed, rs->key, rs->worker, i, rs->slow,
                    rs->tool_scale * rs->squeeze);
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
  for (gsize i = 0; i < tt->head->len; i++)
    *lines += tt->head->str[i] == '\n';
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
 * tt == NULL writes an empty file; `appended` (or NULL) follows tt: the validation the 2026
 * logger appends to a training step's files. */
static gboolean
write_file_atomically (const Synth *sy, const char *path, const TraceText *tt,
                       const FileDamage *dmg, const TraceText *appended, guint64 *lines,
                       guint64 *bytes, GError **error)
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
  if (ok && tt != NULL && appended != NULL)
    ok = trace_text_write (appended, NULL, f, lines, bytes);
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

  TraceText tt, val;
  gboolean need_text = fate == FILE_PRESENT || n_copies > 0;
  /* the 2026 logger appends the validation after this step to the same file */
  int vi = sy->steps[rs->step_index].validation;
  gboolean appends = need_text && vi >= 0 && !sy->vals[vi].own_folder;
  if (need_text)
    trace_text_build (&tt, sy, rs, dmg != NULL ? dmg->stats : STATS_INTACT);
  if (appends)
    trace_text_build (&val, sy, synth_val_rank (sy, vi, rs->worker), STATS_INTACT);

  gboolean ok = TRUE;
  if (fate != FILE_MISSING)
    ok = write_file_atomically (sy, path, fate == FILE_EMPTY ? NULL : &tt, dmg,
                                appends ? &val : NULL, &lines, &bytes, &error);
  for (int c = 0; ok && c < n_copies; c++)
    ok = write_file_atomically (sy, dmg->copies[c], &tt, dmg, appends ? &val : NULL, &copy_lines,
                                &copy_bytes, &error);
  if (need_text)
    trace_text_clear (&tt);
  if (appends)
    trace_text_clear (&val);

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

static void
synth_count (Synth *sy, guint64 lines, guint64 bytes)
{
  g_mutex_lock (&sy->lock);
  sy->lines += lines;
  sy->bytes += bytes;
  sy->files += 1;
  g_mutex_unlock (&sy->lock);
}

/* GThreadPool task: a validation rollout's file in a folder of its own (every validation in the
 * folders layout, the one before training in the appended one). Validation is never damaged. */
void
val_rank_write (gpointer data, gpointer user_data)
{
  RankStep *rs = data;
  Synth *sy = user_data;
  if (g_atomic_int_get (&sy->failed) || !sy->vals[rs->step_index].own_folder)
    return;
  g_autofree char *path = g_strdup_printf ("step_%d/worker_%d.jsonl", rs->step, rs->worker);
  guint64 lines = 0, bytes = 0;
  GError *error = NULL;
  TraceText tt;
  trace_text_build (&tt, sy, rs, STATS_INTACT);
  gboolean ok = write_file_atomically (sy, path, &tt, NULL, NULL, &lines, &bytes, &error);
  trace_text_clear (&tt);
  if (!ok)
    synth_fail (sy, error);
  else
    synth_count (sy, lines, bytes);
}

/* The 2026 logger's trainer-side sections, in step_N/worker_-1.jsonl of every training step:
 * the phases of the training after the step's rollout, one after the other, without extra. */
gboolean
trainer_files_write (Synth *sy, GError **error)
{
  for (int si = 0; si < sy->n_steps; si++)
    {
      const StepPlan *sp = &sy->steps[si];
      gint64 durations[N_TRAIN_PHASES];
      training_phases_us (sy, si, durations);
      TraceText tt = {
        .head = g_string_new (NULL),
        .body = g_string_new (NULL),
        .tail = g_string_new (NULL),
        .refs = g_array_new (FALSE, FALSE, sizeof (LineRef)),
      };
      LineFrame frame;
      LineSink k = { .s = tt.head };
      line_frame_set (&k, &frame, sy, sp->folder, -1);
      gint64 t = step_rollout_end (sy, si);
      for (int p = 0; p < N_TRAIN_PHASES; p++)
        {
          line_open_timed (&k, t, t + durations[p], train_phases[p].section_name);
          line_close (&k);
          t += durations[p];
        }
      g_autofree char *path = g_strdup_printf ("step_%d/worker_-1.jsonl", sp->folder);
      guint64 lines = 0, bytes = 0;
      gboolean ok = write_file_atomically (sy, path, &tt, NULL, NULL, &lines, &bytes, error);
      trace_text_clear (&tt);
      if (!ok)
        return FALSE;
      synth_count (sy, lines, bytes);
    }
  return TRUE;
}
