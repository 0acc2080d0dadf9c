/* SPDX-License-Identifier: Apache-2.0 */
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
  const RtRolloutMap *map = rt_session_experiment (s, 0)->rollouts;
  rt_jw_key (w, "rollouts");
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "source", map->source);
  rt_jw_member_string (w, "layout", map->layout == RT_LAYOUT_APPENDED ? "appended" : "folders");
  rt_jw_member_string (w, "disagreement", map->disagreement);
  rt_jw_member_int (w, "likely_validation", map->n_likely_validation);
  member_table (w, "rows", rt_check_rollouts_table (map, s->user_steps));
  rt_jw_end_object (w);
  g_autoptr (RtTrainerSections) ts = rt_trainer_sections_read (t, s->user_steps);
  rt_jw_member_int (w, "trainer_files", ts->files);
  member_table (w, "trainer_sections", rt_trainer_sections_table (ts));
  g_autoptr (RtTable) cache = rt_check_cache_table (t);
  rt_jw_key (w, "cache");
  rt_table_write_json_row (cache, 0, w);
  member_table (w, "problems", rt_check_problems_table (t, c));
  rt_jw_end_object (w);
}

#define ROLLOUTS_LISTED 40   /* folders listed whole; past them, those not plainly training */

/* Each selected folder's rollouts, their kind and how it is known. */
static void
print_rollouts (RtSession *s)
{
  const RtRolloutMap *map = rt_session_experiment (s, 0)->rollouts;
  guint n_train = 0, n_val = 0, n_folders = 0;
  gint32 last = G_MININT32;
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      const RtRollout *r = &g_array_index (map->rollouts, RtRollout, i);
      if (!rt_step_set_contains (s->user_steps, r->step))
        continue;
      *(r->kind == RT_ROLLOUT_TRAINING ? &n_train : &n_val) += 1;
      n_folders += r->step != last;
      last = r->step;
    }
  rt_session_print (s, "rollouts    %u training, %u validation%s in %u folders (%s layout; %s)\n",
                    n_train, n_val, map->n_likely_validation > 0 ? " (some likely validation: below)" : "",
                    n_folders, map->layout == RT_LAYOUT_APPENDED ? "appended" : "folder-per-call", map->source);
  if (map->disagreement != NULL)
    rt_session_print (s, "disagrees   %s\n", map->disagreement);
  gboolean all = s->verbose || n_folders <= ROLLOUTS_LISTED;
  guint hidden = 0;
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      const RtRollout *r = &g_array_index (map->rollouts, RtRollout, i);
      if (!rt_step_set_contains (s->user_steps, r->step))
        continue;
      if (!all && r->kind == RT_ROLLOUT_TRAINING && !r->likely_validation && !r->running)
        {
          hidden++;
          continue;
        }
      g_autofree char *train = r->train_step >= 0 ? g_strdup_printf ("train step %d", r->train_step)
                                                  : g_strdup ("train step ?");
      g_autoptr (GString) evidence = g_string_new (NULL);
      rt_tsv_append_text (evidence, r->evidence);   /* a terminal is another language */
      rt_session_print (s, "  step_%-6d %u %-10s %-14s %5u requests%s  %s\n", r->step, r->index + 1,
                        rt_rollout_kind_name (r->kind), train, r->requests, r->running ? " (running)" : "",
                        evidence->str);
    }
  if (hidden > 0)
    rt_session_print (s, "  ... %u more training rollouts (--verbose lists all)\n", hidden);
}

/* The trainer's own files (rank -1), never a rollout rank. */
static void
print_trainer (RtSession *s)
{
  g_autoptr (RtTrainerSections) ts = rt_trainer_sections_read (s->trace, s->user_steps);
  if (ts->files == 0 && ts->unread == 0)
    return;
  g_autoptr (GString) names = g_string_new (NULL);
  for (guint i = 0; i < ts->sections->len; i++)
    {
      g_string_append (names, i > 0 ? ", " : "");
      rt_tsv_append_text (names, g_array_index (ts->sections, RtTrainerSection, i).event);
    }
  rt_session_print (s, "trainer     %u files worker_-1.jsonl (rank -1, the trainer's own sections: %s), "
                    "%" G_GUINT64_FORMAT " lines, %" G_GUINT64_FORMAT " bad%s\n", ts->files,
                    names->len > 0 ? names->str : "none", ts->lines, ts->bad_lines,
                    ts->unread > 0 ? "; some could not be read" : "");
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
  print_rollouts (s);
  print_trainer (s);
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
  static const RtAnalysisSpec *const analyses[] = { &rt_check_analysis, NULL };
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
                   "[check_duplicates rows], \"strays\": [paths], \"rollouts\": {\"source\" (how the kinds\n"
                   "are known), \"layout\" (\"folders\" or \"appended\"), \"disagreement\" (the trainer's log\n"
                   "and the trace cannot be matched: why; or null), \"likely_validation\" (rollouts the\n"
                   "automatic rule flags), \"rows\": [check_rollouts rows]}, \"trainer_files\" (worker_-1.jsonl\n"
                   "files read), \"trainer_sections\": [trainer_sections rows], \"cache\": {a check_cache\n"
                   "row}, \"problems\": [check_problems rows]}\n\n"
                   "rt-check reads every rollout by default (--rollouts narrows it); it lists each step\n"
                   "folder's rollouts (past 40 folders only those not plainly training, unless --verbose).\n\n"
                   "Example: rt-check logs/exp --json",
    .analyses = analyses,
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACE | RT_COMMAND_LISTS_PROBLEMS | RT_COMMAND_ALL_ROLLOUTS,
  };
  return rt_command_main (&cmd, argc, argv);
}
