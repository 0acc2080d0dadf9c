/* rt-check: the inventory of an experiment folder, and what is wrong with it.
 * Run it first on a new trace: steps, workers, lines, bad lines and missing files at a glance. */
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-command.h"

/* `table` (taken and freed) as the value of `key` in the current object */
static void
member_table (RtJsonWriter *w, const char *key, RtTable *table)
{
  rt_jw_key (w, key);
  rt_table_write_json (table, w);
  rt_table_free (table);
}

static void
write_json (RtSession *s, const RtCheck *c)
{
  const RtTrace *t = s->trace;
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "steps", c->n_steps);
  rt_jw_member_int (w, "step_min", c->step_min);
  rt_jw_member_int (w, "step_max", c->step_max);
  rt_jw_member_int (w, "workers", c->max_workers);
  rt_jw_member_int (w, "files", (gint64) c->files);
  rt_jw_member_int (w, "lines", (gint64) c->lines);
  rt_jw_member_int (w, "events", (gint64) c->events);
  rt_jw_member_int (w, "bad_lines", (gint64) c->bad_lines);
  rt_jw_member_int (w, "requests", (gint64) c->requests);
  rt_jw_member_string (w, "schema", rt_schema_name (c->schema));
  member_table (w, "missing", rt_check_missing_table (c));
  member_table (w, "empty", rt_check_empty_table (c));
  RtLastStep last = rt_view_last_step (t, rt_now_s ());
  rt_jw_key (w, "last_step");
  rt_jw_begin_object (w);
  rt_jw_member_int (w, "step", last.step);
  rt_jw_member_string (w, "state", rt_last_step_state_name (last.state));
  rt_jw_member_string (w, "why", last.why);
  rt_jw_member_string (w, "last_write", last.last_write[0] != '\0' ? last.last_write : NULL);
  rt_jw_end_object (w);
  rt_jw_member_int (w, "field_problems", (gint64) c->field_problems);
  rt_jw_member_int (w, "glued_lines", (gint64) c->glued_lines);
  rt_jw_member_int (w, "other_name_events", (gint64) c->other_name_events);
  member_table (w, "duplicates", rt_check_duplicates_table (t));
  rt_jw_key (w, "strays");
  rt_jw_begin_array (w);
  for (guint i = 0; i < t->strays->len; i++)
    rt_jw_string (w, g_ptr_array_index (t->strays, i));
  rt_jw_end_array (w);
  g_autoptr (RtTable) cache = rt_check_cache_table (t);
  rt_jw_key (w, "cache");
  rt_table_write_json_row (cache, 0, w);
  member_table (w, "problems", rt_check_problems_table (t, c));
  rt_jw_end_object (w);
}

static void
print_summary (RtSession *s, const RtCheck *c)
{
  const RtTrace *t = s->trace;
  rt_session_print (s, "experiment  %s\n", t->path);
  if (c->schema == RT_SCHEMA_NEITHER)
    rt_session_print (s, "schema      none (no events)\n");
  else
    rt_session_print (s, "schema      %s (%s)\n", rt_schema_name (c->schema),
                      c->schema == RT_SCHEMA_V1 ? "older logger"
                      : c->schema == RT_SCHEMA_V2 ? "newer logger" : "both loggers");
  rt_session_print (s, "steps       %u (%d to %d)\n", c->n_steps, c->step_min, c->step_max);
  rt_session_print (s, "workers     %u at most in one step\n", c->max_workers);
  rt_session_print (s, "files       %" G_GUINT64_FORMAT "\n", c->files);
  rt_session_print (s, "lines       %" G_GUINT64_FORMAT "\n", c->lines);
  rt_session_print (s, "events      %" G_GUINT64_FORMAT "\n", c->events);
  rt_session_print (s, "bad lines   %" G_GUINT64_FORMAT "\n", c->bad_lines);
  if (c->field_problems)
    rt_session_print (s, "bad fields  %" G_GUINT64_FORMAT " (field of the wrong type, taken as absent)\n",
                      c->field_problems);
  if (c->glued_lines)
    rt_session_print (s, "glued lines %" G_GUINT64_FORMAT " (several JSON objects on one line: a lost newline)\n",
                      c->glued_lines);
  if (c->other_name_events)
    rt_session_print (s, "other names %" G_GUINT64_FORMAT " events past %d distinct event names, counted as \"%s\"\n",
                      c->other_name_events, RT_EVENT_NAMES_MAX, RT_EVENT_OTHER_NAME);
  rt_session_print (s, "requests    %" G_GUINT64_FORMAT " completed\n", c->requests);
  const RtLoadStats *st = &t->stats;
  rt_session_print (s, "loaded      %u files from the cache, %u grown since, %u read%s%s%s\n",
                    st->files_cached, st->files_resumed, st->files_parsed,
                    st->cache_rejected ? " (cache not used: " : "",
                    st->cache_rejected ? st->cache_rejected : "", st->cache_rejected ? ")" : "");
  for (guint i = 0; i < c->missing->len; i++)
    {
      const RtMissingFile *m = &g_array_index (c->missing, RtMissingFile, i);
      rt_session_print (s, "missing     step_%d/worker_%d.jsonl\n", m->step, m->worker);
    }
  for (guint i = 0; i < c->empty->len; i++)
    {
      const RtMissingFile *m = &g_array_index (c->empty, RtMissingFile, i);
      rt_session_print (s, "empty       step_%d/worker_%d.jsonl (no event in it)\n", m->step, m->worker);
    }
  RtLastStep last = rt_view_last_step (t, rt_now_s ());
  if (last.state == RT_LAST_STEP_RUNNING)
    rt_session_print (s, "last step   %d: still being written (%s; files changed in the last %d minutes)\n",
                      last.step, last.why, RT_RUNNING_WINDOW_S / 60);
  else if (last.state == RT_LAST_STEP_INCOMPLETE)
    rt_session_print (s, "last step   %d: incomplete (%s; nothing written since %s: the run stopped)\n",
                      last.step, last.why, last.last_write);
  for (guint i = 0; i < t->duplicates->len; i++)
    {
      const RtDuplicate *d = &g_array_index (t->duplicates, RtDuplicate, i);
      rt_session_print (s, "duplicate   %s (not read: another name for %s)\n", d->path, d->same_as);
    }
  for (guint i = 0; i < t->strays->len; i++)
    rt_session_print (s, "ignored     %s (not part of the trace)\n",
                      (const char *) g_ptr_array_index (t->strays, i));
  guint64 shown = 0;
  for (; shown < c->problems->len && (s->verbose || shown < 10); shown++)
    {
      const RtProblem *p = &g_array_index (t->problems, RtProblem, g_array_index (c->problems, guint, shown));
      rt_session_print (s, "bad         %s: %s\n", p->where, p->reason);
    }
  if (shown < c->problems_total)
    rt_session_print (s, "            ... %" G_GUINT64_FORMAT " more (--verbose lists all)\n",
                      c->problems_total - shown);
}

static int
run (RtSession *s, GError **error)
{
  (void) error;
  /* the shared layer made sure some step is selected */
  g_autoptr (RtCheck) c = rt_check_analyse (s->trace, s->steps);
  write_json (s, c);
  print_summary (s, c);
  return 0;
}

int
main (int argc, char **argv)
{
  static const RtTableSpec *const tables[] = {
    &rt_check_missing_spec, &rt_check_empty_spec, &rt_check_duplicates_spec, &rt_check_cache_spec,
    &rt_check_problems_spec, NULL
  };
  static const RtCommand cmd = {
    .name = "rt-check",
    .parameters = "EXP",
    .summary = "Inventory of a rollout-trace experiment folder EXP/step_N/worker_M.jsonl:\n"
               "steps, workers, files, lines, events, bad lines, requests, logger\n"
               "generation, worker files missing from a step, stray entries, first bad lines;\n"
               "of the steps chosen with --steps, or of all of them.",
    .description = "JSON (--json): {\"steps\", \"step_min\", \"step_max\", \"workers\", \"files\",\n"
                   "\"lines\", \"events\", \"bad_lines\", \"requests\", \"schema\", \"missing\": [check_missing\n"
                   "rows], \"empty\": [check_empty rows], \"last_step\": {\"step\", \"state\" (\"complete\",\n"
                   "\"running\": unfinished and a worker file changed in the last 10 minutes, or\n"
                   "\"incomplete\": unfinished and nothing written for longer, the run stopped), \"why\"\n"
                   "(what looks unfinished, or null), \"last_write\" (local time of the newest change\n"
                   "of a worker file; null when it is newer than now)},\n"
                   "\"field_problems\", \"glued_lines\", \"other_name_events\", \"duplicates\":\n"
                   "[check_duplicates rows], \"strays\": [paths], \"cache\": {a check_cache row},\n"
                   "\"problems\": [check_problems rows]}\n\n"
                   "Example: rt-check logs/exp --json",
    .tables = tables,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_LISTS_PROBLEMS,
    .requests_unread = rt_command_never_reads_requests,
    .turns_unread = rt_command_never_reads_turns,
  };
  return rt_command_main (&cmd, argc, argv);
}
