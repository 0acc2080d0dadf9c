/* SPDX-License-Identifier: Apache-2.0 */
/* check.c: the inventory of an experiment (steps, files, lines, bad lines, requests, logger
 * generation) and what is wrong with it: worker files missing from a step, bad lines. */
#include "rolltrace/analyses/check.h"

#include <math.h>

static void
count_files (const RtTrace *t, const RtStepSet *steps, RtCheck *c)
{
  guint16 other = rt_event_registry_other_id (t->registry);   /* NONE: no name overflowed */
  for (guint i = 0; i < t->files->len; i++)
    {
      const RtFile *f = rt_trace_file (t, i);
      if (!rt_step_set_contains (steps, f->step))
        continue;
      c->files++;
      c->lines += f->lines;
      c->events += f->events;
      c->bad_lines += f->bad_lines;
      c->field_problems += f->field_problems;
      c->requests += f->n_complete;
      c->problems_total += f->problems_total;
      c->glued_lines += f->glued_lines;
      c->schema |= f->schema;
      if (other == RT_EVENT_NONE)
        continue;
      const RtEvent *rows = rt_trace_file_events (t, i);
      for (guint k = 0; k < f->n_events; k++)
        c->other_name_events += rows[k].event == other;
    }
}

/* The workers that have a file in some step, ascending. */
static GArray *
all_workers (const RtTrace *t)
{
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  GArray *workers = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < t->files->len; i++)
    {
      gint32 w = rt_trace_file (t, i)->worker;
      if (!g_hash_table_contains (seen, GINT_TO_POINTER (w + 1)))
        {
          g_hash_table_add (seen, GINT_TO_POINTER (w + 1));
          g_array_append_val (workers, w);
        }
    }
  g_array_sort (workers, rt_compare_gint32);
  return workers;
}

/* Worker files absent from a selected step while the worker has a file in another step. */
static void
find_missing (const RtTrace *t, GArray *selected, RtCheck *c)
{
  g_autoptr (GArray) workers = all_workers (t);
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      guint k = 0;
      for (guint wi = 0; wi < workers->len; wi++)
        {
          gint32 w = g_array_index (workers, gint32, wi);
          while (k < st->n_files && rt_trace_file (t, st->first_file + k)->worker < w)
            k++;
          if (k < st->n_files && rt_trace_file (t, st->first_file + k)->worker == w)
            continue;
          RtMissingFile m = { st->step, w };
          g_array_append_val (c->missing, m);
        }
    }
}

/* Worker files of the selected steps in which no line is an event (nothing, or only bad lines). */
static void
find_empty (const RtTrace *t, GArray *selected, RtCheck *c)
{
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      for (guint k = st->first_file; k < st->first_file + st->n_files; k++)
        if (rt_trace_file (t, k)->events == 0)
          {
            RtMissingFile m = { st->step, rt_trace_file (t, k)->worker };
            g_array_append_val (c->empty, m);
          }
    }
}

RtCheck *
rt_check_analyse (const RtTrace *t, const RtStepSet *steps)
{
  RtCheck *c = g_new0 (RtCheck, 1);
  c->missing = g_array_new (FALSE, FALSE, sizeof (RtMissingFile));
  c->empty = g_array_new (FALSE, FALSE, sizeof (RtMissingFile));
  c->problems = g_array_new (FALSE, FALSE, sizeof (guint));
  count_files (t, steps, c);
  g_autoptr (GArray) selected = rt_trace_select_steps (t, steps);
  for (guint i = 0; i < selected->len; i++)
    {
      const RtStep *st = rt_trace_step (t, g_array_index (selected, guint, i));
      if (c->n_steps++ == 0)
        c->step_min = st->step;
      c->step_max = st->step;
      c->max_workers = MAX (c->max_workers, st->n_files);
    }
  find_missing (t, selected, c);
  find_empty (t, selected, c);
  for (guint i = 0; i < t->problems->len; i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, i);
      if (rt_step_set_contains (steps, rt_trace_file (t, p->file)->step))
        g_array_append_val (c->problems, i);
    }
  return c;
}

void
rt_check_free (RtCheck *c)
{
  if (c == NULL)
    return;
  g_array_unref (c->missing);
  g_array_unref (c->empty);
  g_array_unref (c->problems);
  g_free (c);
}

const char *
rt_schema_name (RtSchemaFlags schema)
{
  if (schema == (RT_SCHEMA_V1 | RT_SCHEMA_V2))
    return "mixed";
  return schema == RT_SCHEMA_V1 ? "v1" : "v2";
}

const RtTableSpec rt_check_missing_spec = {
  "check_missing", "one per worker file absent from a selected step (the worker has a file in another)",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker whose file is missing") },
    RT_COLUMNS_END,
  },
};

const RtTableSpec rt_check_empty_spec = {
  "check_empty", "one per worker file of a selected step in which no line is an event",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step number") },
    { RT_COL ("worker", RT_COLUMN_INT, NULL, "the worker whose file is empty") },
    RT_COLUMNS_END,
  },
};

static RtTable *
files_table (const RtTableSpec *spec, GArray *files)
{
  RtTable *table = rt_table_new (spec);
  for (guint i = 0; i < files->len; i++)
    {
      const RtMissingFile *m = &g_array_index (files, RtMissingFile, i);
      rt_table_int (table, m->step);
      rt_table_int (table, m->worker);
    }
  return table;
}

RtTable *
rt_check_missing_table (const RtCheck *c)
{
  return files_table (&rt_check_missing_spec, c->missing);
}

RtTable *
rt_check_empty_table (const RtCheck *c)
{
  return files_table (&rt_check_empty_spec, c->empty);
}

const RtTableSpec rt_check_problems_spec = {
  "check_problems", "one per bad line (or field) listed of the selected steps' files",
  (const RtColumn[]) {
    { RT_COL ("where", RT_COLUMN_TEXT, NULL, "the file and line") },
    { RT_COL ("reason", RT_COLUMN_TEXT, NULL, "what is wrong with it") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_check_problems_table (const RtTrace *t, const RtCheck *c)
{
  RtTable *table = rt_table_new (&rt_check_problems_spec);
  for (guint i = 0; i < c->problems->len; i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, g_array_index (c->problems, guint, i));
      rt_table_text (table, p->where);
      rt_table_text (table, p->reason);
    }
  return table;
}

const RtTableSpec rt_check_duplicates_spec = {
  "check_duplicates", "one per file not read, as another name for a step and worker was",
  (const RtColumn[]) {
    { RT_COL ("path", RT_COLUMN_TEXT, NULL, "the file not read") },
    { RT_COL ("same_as", RT_COLUMN_TEXT, NULL, "the file read in its place") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_check_duplicates_table (const RtTrace *t)
{
  RtTable *table = rt_table_new (&rt_check_duplicates_spec);
  for (guint i = 0; i < t->duplicates->len; i++)
    {
      const RtDuplicate *d = &g_array_index (t->duplicates, RtDuplicate, i);
      rt_table_text (table, d->path);
      rt_table_text (table, d->same_as);
    }
  return table;
}

const RtTableSpec rt_check_cache_spec = {
  "check_cache", "how the trace was loaded, one row",
  (const RtColumn[]) {
    { RT_COL ("used", RT_COLUMN_BOOL, NULL, "a valid cache was found and used") },
    { RT_COL ("written", RT_COLUMN_BOOL, NULL, "a new cache was written") },
    { RT_COL ("rejected", RT_COLUMN_TEXT, NULL, "why an existing cache was not trusted; null when it was") },
    { RT_COL ("files_cached", RT_COLUMN_INT, NULL, "files taken from the cache as they were") },
    { RT_COL ("files_resumed", RT_COLUMN_INT, NULL, "files grown since cached, read from where the cache stopped") },
    { RT_COL ("files_parsed", RT_COLUMN_INT, NULL, "files read from their first byte") },
    { RT_COL ("bytes_read", RT_COLUMN_INT, "bytes", "JSONL bytes read in this load") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_check_cache_table (const RtTrace *t)
{
  const RtLoadStats *st = &t->stats;
  RtTable *table = rt_table_new (&rt_check_cache_spec);
  rt_table_bool (table, st->cache_used);
  rt_table_bool (table, st->cache_written);
  rt_table_text (table, st->cache_rejected);
  rt_table_int (table, st->files_cached);
  rt_table_int (table, st->files_resumed);
  rt_table_int (table, st->files_parsed);
  rt_table_int (table, (gint64) st->bytes_read);
  return table;
}

const RtTableSpec rt_check_rollouts_spec = {
  "check_rollouts", "one per rollout of a selected step folder, in time order",
  (const RtColumn[]) {
    { RT_COL ("step", RT_COLUMN_INT, NULL, "the step folder's number") },
    { RT_COL ("rollout", RT_COLUMN_INT, NULL, "1 for the folder's first rollout, 2 for the second...") },
    { RT_COL ("kind", RT_COLUMN_TEXT, NULL, "training or validation") },
    { RT_COL ("train_step", RT_COLUMN_INT, NULL, "the trainer's step (of a validation: the step its metrics are "
              "logged at, 0 before training); null when not known") },
    { RT_COL ("requests", RT_COLUMN_INT, NULL, "requests begun in it, over the folder's worker files") },
    { RT_COL ("running", RT_COLUMN_BOOL, NULL, "no total_step_duration line ends it (yet)") },
    { RT_COL ("likely_validation", RT_COLUMN_BOOL, NULL, "without a trainer's log: fewer than half the median "
              "rollout's requests (shown, not left out)") },
    { RT_COL ("evidence", RT_COLUMN_TEXT, NULL, "how its kind is known") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_check_rollouts_table (const RtRolloutMap *map, const RtStepSet *steps)
{
  RtTable *table = rt_table_new (&rt_check_rollouts_spec);
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      const RtRollout *r = &g_array_index (map->rollouts, RtRollout, i);
      if (!rt_step_set_contains (steps, r->step))
        continue;
      rt_table_int (table, r->step);
      rt_table_int (table, r->index + 1);
      rt_table_text_borrowed (table, rt_rollout_kind_name (r->kind));
      if (r->train_step >= 0)
        rt_table_int (table, r->train_step);
      else
        rt_table_null (table);
      rt_table_int (table, r->requests);
      rt_table_bool (table, r->running);
      rt_table_bool (table, r->likely_validation);
      rt_table_text (table, r->evidence);
    }
  return table;
}

const RtTableSpec rt_trainer_sections_spec = {
  "trainer_sections", "one per section name of the trainer's files (step_N/worker_-1.jsonl) of the selected steps",
  (const RtColumn[]) {
    { RT_COL ("event", RT_COLUMN_TEXT, NULL, "the section's name as logged") },
    { RT_COL ("steps", RT_COLUMN_INT, NULL, "trainer files (steps) that hold it") },
    { RT_COL ("count", RT_COLUMN_INT, NULL, "its lines") },
    { RT_COL ("total_s", RT_COLUMN_NUMBER, "s", "the sum of its finite duration_sec") },
    { RT_COL ("mean_s", RT_COLUMN_NUMBER, "s", "total_s over the lines with a finite duration_sec") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_trainer_sections_table (const RtTrainerSections *ts)
{
  RtTable *table = rt_table_new (&rt_trainer_sections_spec);
  for (guint i = 0; i < ts->sections->len; i++)
    {
      const RtTrainerSection *x = &g_array_index (ts->sections, RtTrainerSection, i);
      rt_table_text (table, x->event);
      rt_table_int (table, x->steps);
      rt_table_int (table, (gint64) x->count);
      rt_table_number (table, x->total_s);
      rt_table_number (table, x->with_duration > 0 ? x->total_s / (double) x->with_duration : NAN);
    }
  return table;
}

static const RtTableSpec *const check_tables[] = { &rt_check_missing_spec, &rt_check_empty_spec, &rt_check_duplicates_spec, &rt_check_cache_spec, &rt_check_problems_spec, &rt_check_rollouts_spec, &rt_trainer_sections_spec, NULL };

const RtAnalysisSpec rt_check_analysis = {
  .name = "check",
  .reads = RT_READS_ROWS,
  .steps = RT_STEPS_SELECTED,
  .tables = check_tables,
  .plots = NULL,
};
