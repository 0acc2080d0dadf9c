/* SPDX-License-Identifier: Apache-2.0 */
/* trainer-files.c: the trainer's own sections, from step_N/worker_-1.jsonl (rank -1): what each
 * section name took over the steps read. Small files, read whole, line by line. */
#include "rolltrace/rt-trainer-files.h"
#include "rolltrace/rt-json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void
section_clear (gpointer data)
{
  g_free (((RtTrainerSection *) data)->event);
}

static int
compare_sections (gconstpointer a, gconstpointer b)
{
  return strcmp (((const RtTrainerSection *) a)->event, ((const RtTrainerSection *) b)->event);
}

/* "step_12/worker_-1.jsonl" -> 12 */
static gboolean
step_of (const char *rel, gint32 *step)
{
  if (!g_str_has_prefix (rel, "step_"))
    return FALSE;
  char *end;
  long v = strtol (rel + 5, &end, 10);
  if (end == rel + 5 || *end != G_DIR_SEPARATOR || v < 0 || v > G_MAXINT32)
    return FALSE;
  *step = (gint32) v;
  return TRUE;
}

static void
read_file (RtTrainerSections *ts, GHashTable *index, RtJsonParser *parser, const char *path)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents (path, &text, &len, NULL) || len > RT_LINE_MAX)
    {
      ts->unread++;
      return;
    }
  ts->files++;
  g_autoptr (GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autofree char *line = g_malloc (MIN (len, RT_LINE_MAX) + RT_JSON_PADDING + 1);
  for (const char *p = text, *end = text + len; p < end;)
    {
      const char *nl = memchr (p, '\n', (gsize) (end - p));
      gsize n = (gsize) ((nl != NULL ? nl : end) - p);
      memcpy (line, p, n);
      memset (line + n, ' ', RT_JSON_PADDING);
      p += n + 1;
      RtLineFields f;
      const char *reason = NULL;
      RtLineStatus status = rt_json_parse_line (parser, line, n, &f, &reason);
      if (status == RT_LINE_EMPTY)
        continue;
      ts->lines++;
      if (status != RT_LINE_OK || f.event.len == 0)
        {
          ts->bad_lines++;
          continue;
        }
      g_autofree char *name = g_utf8_make_valid (f.event.str, (gssize) f.event.len);
      RtTrainerSection *s = g_hash_table_lookup (index, name);
      if (s == NULL)
        {
          s = g_new0 (RtTrainerSection, 1);
          s->event = g_strdup (name);
          g_hash_table_insert (index, s->event, s);
        }
      if (!g_hash_table_contains (seen, s->event))
        {
          g_hash_table_add (seen, s->event);
          s->steps++;
        }
      s->count++;
      if (isfinite (f.duration_s))
        {
          s->with_duration++;
          s->total_s += f.duration_s;
        }
    }
}

RtTrainerSections *
rt_trainer_sections_read (const RtTrace *t, const RtStepSet *steps)
{
  RtTrainerSections *ts = g_new0 (RtTrainerSections, 1);
  ts->sections = g_array_new (FALSE, TRUE, sizeof (RtTrainerSection));
  g_array_set_clear_func (ts->sections, section_clear);
  g_autoptr (GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, g_free);
  g_autoptr (RtJsonParser) parser = rt_json_parser_new ();
  for (guint i = 0; t->trainer_files != NULL && i < t->trainer_files->len; i++)
    {
      const char *rel = g_ptr_array_index (t->trainer_files, i);
      gint32 step;
      if (!step_of (rel, &step) || !rt_step_set_contains (steps, step))
        continue;
      g_autofree char *path = g_build_filename (t->path, rel, NULL);
      read_file (ts, index, parser, path);
    }
  GHashTableIter it;
  gpointer value;
  g_hash_table_iter_init (&it, index);
  while (g_hash_table_iter_next (&it, NULL, &value))
    g_array_append_vals (ts->sections, value, 1);   /* its name is the array's now, the rest a copy */
  g_array_sort (ts->sections, compare_sections);
  return ts;
}

void
rt_trainer_sections_free (RtTrainerSections *ts)
{
  if (ts == NULL)
    return;
  g_array_unref (ts->sections);
  g_free (ts);
}
