/* rt-check: the inventory of an experiment folder, and what is wrong with it.
 * Run it first on a new trace: steps, workers, lines, bad lines and missing files at a glance. */
#include "rolltrace/rt-command.h"

#include <string.h>

/* The inventory of the selected steps (all of them without --steps). */
typedef struct {
  guint n_steps;
  gint32 step_min, step_max;
  guint64 files, lines, events, bad_lines, field_problems, requests, problems_total;
  guint64 glued_lines;
  guint64 other_name_events;   /* events past RT_EVENT_NAMES_MAX distinct names */
  guint max_workers;
  RtSchemaFlags schema;
} Inventory;

static gboolean
file_selected (RtSession *s, guint file)
{
  return rt_session_step_selected (s, rt_trace_file (s->trace, file)->step);
}

static void
take_inventory (RtSession *s, Inventory *inv)
{
  const RtTrace *t = s->trace;
  memset (inv, 0, sizeof *inv);
  guint16 other = rt_event_registry_other_id (t->registry);   /* NONE: no name overflowed */
  for (guint i = 0; i < t->files->len; i++)
    {
      if (!file_selected (s, i))
        continue;
      const RtFile *f = rt_trace_file (t, i);
      inv->files++;
      inv->lines += f->lines;
      inv->events += f->events;
      inv->bad_lines += f->bad_lines;
      inv->field_problems += f->field_problems;
      inv->requests += f->n_complete;
      inv->problems_total += f->problems_total;
      inv->glued_lines += f->glued_lines;
      inv->schema |= f->schema;
      if (other == RT_EVENT_NONE)
        continue;
      const RtEvent *rows = rt_trace_file_events (t, i);
      for (guint k = 0; k < f->n_events; k++)
        inv->other_name_events += rows[k].event == other;
    }
  for (guint i = 0; i < t->steps->len; i++)
    {
      const RtStep *st = rt_trace_step (t, i);
      if (!rt_session_step_selected (s, st->step))
        continue;
      if (inv->n_steps++ == 0)
        inv->step_min = st->step;
      inv->step_max = st->step;
      inv->max_workers = MAX (inv->max_workers, st->n_files);
    }
}

static const char *
schema_name (RtSchemaFlags schema)
{
  if (schema == (RT_SCHEMA_V1 | RT_SCHEMA_V2))
    return "mixed";
  return schema == RT_SCHEMA_V1 ? "v1" : "v2";
}

typedef struct {
  gint32 step, worker;
} Missing;

/* Worker files absent from a selected step while the worker has a file in another step. */
static GArray *
find_missing (RtSession *s)
{
  const RtTrace *t = s->trace;
  GArray *missing = g_array_new (FALSE, FALSE, sizeof (Missing));
  g_autoptr (GHashTable) seen = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr (GArray) workers = g_array_new (FALSE, FALSE, sizeof (gint32));
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
  for (guint si = 0; si < t->steps->len; si++)
    {
      const RtStep *st = rt_trace_step (t, si);
      if (!rt_session_step_selected (s, st->step))
        continue;
      guint k = 0;
      for (guint wi = 0; wi < workers->len; wi++)
        {
          gint32 w = g_array_index (workers, gint32, wi);
          while (k < st->n_files && rt_trace_file (t, st->first_file + k)->worker < w)
            k++;
          if (k < st->n_files && rt_trace_file (t, st->first_file + k)->worker == w)
            continue;
          Missing m = { st->step, w };
          g_array_append_val (missing, m);
        }
    }
  return missing;
}

static void
write_json (RtSession *s, const Inventory *inv, GArray *missing)
{
  const RtTrace *t = s->trace;
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "steps", inv->n_steps);
  rt_jw_member_int (w, "step_min", inv->step_min);
  rt_jw_member_int (w, "step_max", inv->step_max);
  rt_jw_member_int (w, "workers", inv->max_workers);
  rt_jw_member_int (w, "files", (gint64) inv->files);
  rt_jw_member_int (w, "lines", (gint64) inv->lines);
  rt_jw_member_int (w, "events", (gint64) inv->events);
  rt_jw_member_int (w, "bad_lines", (gint64) inv->bad_lines);
  rt_jw_member_int (w, "requests", (gint64) inv->requests);
  rt_jw_member_string (w, "schema", schema_name (inv->schema));
  rt_jw_key (w, "missing");
  rt_jw_begin_array (w);
  for (guint i = 0; i < missing->len; i++)
    {
      const Missing *m = &g_array_index (missing, Missing, i);
      rt_jw_begin_object (w);
      rt_jw_member_int (w, "step", m->step);
      rt_jw_member_int (w, "worker", m->worker);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_member_int (w, "field_problems", (gint64) inv->field_problems);
  rt_jw_member_int (w, "glued_lines", (gint64) inv->glued_lines);
  rt_jw_member_int (w, "other_name_events", (gint64) inv->other_name_events);
  rt_jw_key (w, "duplicates");
  rt_jw_begin_array (w);
  for (guint i = 0; i < t->duplicates->len; i++)
    {
      const RtDuplicate *d = &g_array_index (t->duplicates, RtDuplicate, i);
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "path", d->path);
      rt_jw_member_string (w, "same_as", d->same_as);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_key (w, "strays");
  rt_jw_begin_array (w);
  for (guint i = 0; i < t->strays->len; i++)
    rt_jw_string (w, g_ptr_array_index (t->strays, i));
  rt_jw_end_array (w);
  const RtLoadStats *st = &t->stats;
  rt_jw_key (w, "cache");
  rt_jw_begin_object (w);
  rt_jw_key (w, "used");
  rt_jw_bool (w, st->cache_used);
  rt_jw_key (w, "written");
  rt_jw_bool (w, st->cache_written);
  rt_jw_member_string (w, "rejected", st->cache_rejected);
  rt_jw_member_int (w, "files_cached", st->files_cached);
  rt_jw_member_int (w, "files_resumed", st->files_resumed);
  rt_jw_member_int (w, "files_parsed", st->files_parsed);
  rt_jw_member_int (w, "bytes_read", (gint64) st->bytes_read);
  rt_jw_end_object (w);
  rt_jw_key (w, "problems");
  rt_jw_begin_array (w);
  for (guint i = 0; i < t->problems->len; i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, i);
      if (!file_selected (s, p->file))
        continue;
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "where", p->where);
      rt_jw_member_string (w, "reason", p->reason);
      rt_jw_end_object (w);
    }
  rt_jw_end_array (w);
  rt_jw_end_object (w);
}

static void
print_summary (RtSession *s, const Inventory *inv, GArray *missing)
{
  const RtTrace *t = s->trace;
  rt_session_print (s, "experiment  %s\n", t->path);
  if (inv->schema == RT_SCHEMA_NEITHER)
    rt_session_print (s, "schema      none (no events)\n");
  else
    rt_session_print (s, "schema      %s (%s)\n", schema_name (inv->schema),
                      inv->schema == RT_SCHEMA_V1 ? "older logger"
                      : inv->schema == RT_SCHEMA_V2 ? "newer logger" : "both loggers");
  rt_session_print (s, "steps       %u (%d to %d)\n", inv->n_steps, inv->step_min, inv->step_max);
  rt_session_print (s, "workers     %u at most in one step\n", inv->max_workers);
  rt_session_print (s, "files       %" G_GUINT64_FORMAT "\n", inv->files);
  rt_session_print (s, "lines       %" G_GUINT64_FORMAT "\n", inv->lines);
  rt_session_print (s, "events      %" G_GUINT64_FORMAT "\n", inv->events);
  rt_session_print (s, "bad lines   %" G_GUINT64_FORMAT "\n", inv->bad_lines);
  if (inv->field_problems)
    rt_session_print (s, "bad fields  %" G_GUINT64_FORMAT " (field of the wrong type, taken as absent)\n",
                      inv->field_problems);
  if (inv->glued_lines)
    rt_session_print (s, "glued lines %" G_GUINT64_FORMAT " (several JSON objects on one line: a lost newline)\n",
                      inv->glued_lines);
  if (inv->other_name_events)
    rt_session_print (s, "other names %" G_GUINT64_FORMAT " events past %d distinct event names, counted as \"%s\"\n",
                      inv->other_name_events, RT_EVENT_NAMES_MAX, RT_EVENT_OTHER_NAME);
  rt_session_print (s, "requests    %" G_GUINT64_FORMAT " completed\n", inv->requests);
  const RtLoadStats *st = &t->stats;
  rt_session_print (s, "loaded      %u files from the cache, %u grown since, %u read%s%s%s\n",
                    st->files_cached, st->files_resumed, st->files_parsed,
                    st->cache_rejected ? " (cache not used: " : "",
                    st->cache_rejected ? st->cache_rejected : "", st->cache_rejected ? ")" : "");
  for (guint i = 0; i < missing->len; i++)
    {
      const Missing *m = &g_array_index (missing, Missing, i);
      rt_session_print (s, "missing     step_%d/worker_%d.jsonl\n", m->step, m->worker);
    }
  for (guint i = 0; i < t->duplicates->len; i++)
    {
      const RtDuplicate *d = &g_array_index (t->duplicates, RtDuplicate, i);
      rt_session_print (s, "duplicate   %s (not read: another name for %s)\n", d->path, d->same_as);
    }
  for (guint i = 0; i < t->strays->len; i++)
    rt_session_print (s, "ignored     %s (not part of the trace)\n",
                      (const char *) g_ptr_array_index (t->strays, i));
  guint64 shown = 0;
  for (guint i = 0; i < t->problems->len && (s->verbose || shown < 10); i++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, i);
      if (!file_selected (s, p->file))
        continue;
      rt_session_print (s, "bad         %s: %s\n", p->where, p->reason);
      shown++;
    }
  if (shown < inv->problems_total)
    rt_session_print (s, "            ... %" G_GUINT64_FORMAT " more (--verbose lists all)\n",
                      inv->problems_total - shown);
}

static int
run (RtSession *s, GError **error)
{
  (void) error;
  Inventory inv;
  take_inventory (s, &inv);   /* the shared layer made sure some step is selected */
  g_autoptr (GArray) missing = find_missing (s);
  write_json (s, &inv, missing);
  print_summary (s, &inv, missing);
  return 0;
}

int
main (int argc, char **argv)
{
  static const RtCommand cmd = {
    .name = "rt-check",
    .parameters = "EXP",
    .summary = "Inventory of a rollout-trace experiment folder EXP/step_N/worker_M.jsonl:\n"
               "steps, workers, files, lines, events, bad lines, requests, logger\n"
               "generation, worker files missing from a step, stray entries, first bad lines;\n"
               "of the steps chosen with --steps, or of all of them.",
    .description = "JSON (--json): {\"steps\", \"step_min\", \"step_max\", \"workers\", \"files\",\n"
                   "\"lines\", \"events\", \"bad_lines\", \"requests\", \"schema\", \"missing\":\n"
                   "[{\"step\", \"worker\"}], \"field_problems\", \"glued_lines\",\n"
                   "\"other_name_events\", \"duplicates\": [{\"path\", \"same_as\"}], \"strays\",\n"
                   "\"cache\", \"problems\": [{\"where\", \"reason\"}]}\n\n"
                   "Example: rt-check logs/exp --json",
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_LISTS_PROBLEMS,
    .min_args = 1,
    .max_args = 1,
  };
  return rt_command_main (&cmd, argc, argv);
}
