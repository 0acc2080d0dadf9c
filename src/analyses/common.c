/* SPDX-License-Identifier: Apache-2.0 */
/* common.c: what every analysis shares: the steps a selection names, and summaries as table cells.
 * Kept apart so that each analysis file holds its own arithmetic only. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-views.h"

#include <string.h>

GArray *
rt_trace_select_steps (const RtTrace *t, const RtStepSet *set)
{
  GArray *idx = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < t->steps->len; i++)
    if (set == NULL || rt_step_set_contains (set, rt_trace_step (t, i)->step))
      g_array_append_val (idx, i);
  return idx;
}

GBytes *
rt_trace_step_identity (const RtTrace *t, guint step_index)
{
  const RtStep *st = rt_trace_step (t, step_index);
  GByteArray *out = g_byte_array_new ();
  gint64 head[3] = { step_index, st->step, st->n_files };
  g_byte_array_append (out, (const guint8 *) head, sizeof head);
  for (guint k = 0; k < st->n_files; k++)
    {
      const RtFile *f = rt_trace_file (t, st->first_file + k);
      gint64 stat[4] = { (gint64) f->size, f->mtime_us, (gint64) f->inode, f->ctime_ns };
      g_byte_array_append (out, (const guint8 *) stat, sizeof stat);
      g_byte_array_append (out, (const guint8 *) f->path, strlen (f->path) + 1);
    }
  return g_byte_array_free_to_bytes (out);
}

void
rt_table_summary (RtTable *table, const RtSummary *sum, guint extra)
{
  rt_table_int (table, sum->count);
  rt_table_number (table, sum->mean);
  rt_table_number (table, sum->std);
  rt_table_number (table, sum->min);
  rt_table_number (table, sum->max);
  rt_table_number (table, sum->p50);
  if (extra & RT_SUMMARY_P80)
    rt_table_number (table, sum->p80);
  rt_table_number (table, sum->p90);
  rt_table_number (table, sum->p95);
  rt_table_number (table, sum->p99);
  if (extra & RT_SUMMARY_P999)
    rt_table_number (table, sum->p999);
}

RtTable *
rt_table_new_with_sections (const RtTableSpec *spec, const char *pattern, int n)
{
  RtTable *table = rt_table_new (spec);
  const char *names[RT_N_STEP_EVENTS];
  for (int e = 0; e < n; e++)
    names[e] = rt_step_event_name (e);
  rt_table_expand (table, pattern, names, (guint) n);
  return table;
}

void
rt_step_requests_init (RtStepRequests *it, const RtTrace *t, guint step_index)
{
  const RtStep *st = rt_trace_step (t, step_index);
  it->t = t;
  it->file = st->first_file;
  it->end_file = st->first_file + st->n_files;
  it->at = it->end = NULL;
}

const RtRequest *
rt_step_requests_next_file (RtStepRequests *it)
{
  /* requests are grouped by file, but the files of a step need not hold adjacent ranges (nor
   * lie in one table: rt_trace_request); a file's own are one after another */
  while (it->file < it->end_file)
    {
      const RtFile *f = rt_trace_file (it->t, it->file++);
      if (f->n_requests == 0 || f->first_request == RT_NONE)
        continue;   /* (none, or none taken: without RT_READS_REQUESTS) */
      it->at = rt_trace_request (it->t, f->first_request);
      it->end = it->at + f->n_requests;
      return it->at++;
    }
  it->at = it->end = NULL;
  return NULL;
}
