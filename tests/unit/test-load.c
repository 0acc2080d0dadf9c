/* SPDX-License-Identifier: Apache-2.0 */
/* test-load.c: the loader turns a folder into tables, on the hand-checked fixtures.
 * Also what only files can show: huge lines, unterminated lines, errors for a bad folder. */
#define _GNU_SOURCE   /* O_TMPFILE */
#include <fcntl.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache-format-private.h"
#include "load-private.h"
#include "rolltrace/rt-analyses.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-stats.h"
#include "rolltrace/rt-trace.h"
#include "rolltrace/rt-views.h"
#include "test-util.h"

static char *
fixture (const char *name)
{
  return g_build_filename (RT_FIXTURES_DIR, name, NULL);
}

/* Loads `path` with `opts` (at most 100 problems kept per file), which must succeed. */
/* Every table but the turns' figures (read or summed). */
#define NO_TURNS (RT_READS_ALL & ~(RT_READS_TURNS | RT_READS_TURN_SUMS))

static RtTrace *
load_with (const char *path, RtLoadOptions opts)
{
  opts.max_problems_per_file = 100;
  g_autoptr (GError) error = NULL;
  RtTrace *t = rt_trace_load (path, &opts, &error);
  g_assert_no_error (error);
  return t;
}

static RtTrace *
load (const char *path, guint threads)
{
  return load_with (path, (RtLoadOptions) { .n_threads = threads });
}

static RtTrace *
load_threads_cache (const char *path, guint threads, const char *cache_dir)
{
  return load_with (path, (RtLoadOptions) { .n_threads = threads, .cache_dir = cache_dir });
}

static const RtRequest *
find_request (const RtTrace *t, const char *id)
{
  for (guint i = 0; i < t->n_requests; i++)
    if (strcmp (rt_request_id (t, rt_trace_request (t, i)), id) == 0)
      return rt_trace_request (t, i);
  g_assert_not_reached ();
}

static void
test_hand_fixture_tables (void)
{
  g_autofree char *path = fixture ("hand-v2");
  g_autoptr (RtTrace) t = load (path, 0);
  g_assert_cmpuint (t->steps->len, ==, 2);
  g_assert_cmpuint (t->files->len, ==, 3);
  g_assert_cmpint (rt_trace_step (t, 0)->step, ==, 1);
  g_assert_cmpuint (rt_trace_step (t, 0)->n_files, ==, 2);
  /* step 1 starts when worker 0's preprocessing started: 10:00:02 - 2 s */
  g_assert_cmpfloat_with_epsilon (rt_trace_step (t, 1)->start_s - rt_trace_step (t, 0)->start_s, 60, 1e-6);

  const RtFile *w0 = rt_trace_file (t, 0);
  g_assert_cmpuint (w0->lines, ==, 10);
  g_assert_cmpuint (w0->n_complete, ==, 2);
  g_assert_cmpfloat (w0->step_sum_s[RT_EV_TOTAL_STEP], ==, 15);
  g_assert_true (isnan (w0->step_sum_s[RT_EV_SORTING]));
  /* padding logged twice in step 2: the worker's value is the sum */
  g_assert_cmpfloat (rt_trace_file (t, 2)->step_sum_s[RT_EV_PADDING], ==, 0.75);

  const RtRequest *a = find_request (t, "a");
  g_assert_true (a->complete);
  g_assert_cmpfloat (a->total_s, ==, 8);
  g_assert_cmpint (a->turns, ==, 2);
  g_assert_cmpint (a->response_length, ==, 100);
  g_assert_cmpstr (rt_request_finish_reason (t, a), ==, "FinishReasonTypeEnum.STOP");
  /* no turn_timings: its two turn_end lines stand in */
  g_assert_false (a->turns_from_timings);
  g_assert_cmpuint (a->n_turns, ==, 2);
  const RtTurnFigures *a1 = rt_trace_turn (t, a->first_turn + 1);
  g_assert_cmpint (a1->turn, ==, 1);
  g_assert_cmpfloat (a1->total_s, ==, 4.0);
  g_assert_cmpfloat (a1->pre_process_s, ==, 1.0);

  const RtRequest *c = find_request (t, "c");
  g_assert_true (c->turns_from_timings);
  g_assert_cmpuint (c->n_turns, ==, 3);
  g_assert_cmpint (c->worker, ==, 1);

  /* every event carrying a's id points at a's row */
  guint with_a = 0;
  const RtFile *fa = rt_trace_file (t, a->file);
  const RtEvent *rows = rt_trace_file_events (t, a->file);
  for (guint i = 0; i < fa->n_events; i++)
    if (rows[i].request != RT_NONE && rt_trace_request (t, fa->first_request + rows[i].request) == a)
      with_a++;
  g_assert_cmpuint (with_a, ==, 5);   /* request_start, engine call, 2 turn_end, complete */
}

static void
test_older_logger_names_are_canonical_in_the_tables (void)
{
  g_autofree char *path = fixture ("hand-v1");
  g_autoptr (RtTrace) t = load (path, 1);
  g_assert_cmpint (rt_trace_step (t, 0)->step, ==, 3);   /* numeric order: 3 before 10 */
  g_assert_cmpint (rt_trace_step (t, 1)->step, ==, 10);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpint (f->schema, ==, RT_SCHEMA_V1);
  g_assert_cmpfloat (f->step_sum_s[RT_EV_TOTAL_STEP], ==, 9);
  g_assert_cmpfloat (f->step_sum_s[RT_EV_BARRIER_WAIT], ==, 2);
  g_assert_cmpuint (rt_event_registry_lookup (t->registry, "turn_engine_call"), !=, RT_EVENT_NONE);
}

static void
test_damaged_fixture_counts (void)
{
  g_autofree char *path = fixture ("damaged");
  g_autoptr (RtTrace) t = load (path, 0);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpuint (f->lines, ==, 12);
  g_assert_cmpuint (f->events, ==, 7);
  g_assert_cmpuint (f->bad_lines, ==, 5);
  g_assert_cmpuint (f->field_problems, ==, 3);
  g_assert_cmpuint (f->n_complete, ==, 2);
  /* the CRLF line still counts; the string "9.5" does not */
  g_assert_cmpfloat (f->step_sum_s[RT_EV_TOTAL_STEP], ==, 9.0);
  g_assert_cmpint (f->schema, ==, RT_SCHEMA_V1 | RT_SCHEMA_V2);
  const RtFile *empty = rt_trace_file (t, 1);
  g_assert_cmpuint (empty->lines, ==, 0);
  g_assert_cmpuint (t->steps->len, ==, 2);   /* step_2 has no worker file, step_x is no step */
  g_assert_cmpuint (t->strays->len, ==, 4);

  const RtProblem *last = &g_array_index (t->problems, RtProblem, t->problems->len - 1);
  g_assert_cmpstr (last->where, ==, "step_1/worker_0.jsonl:12");
  g_assert_nonnull (strstr (last->reason, "truncated"));
}

/* Writes `content` as EXP/step_1/worker_0.jsonl in a new temporary folder. */
static char *
make_experiment (const char *content, gsize len)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("rt-test-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *step = g_build_filename (dir, "step_1", NULL);
  g_assert_cmpint (g_mkdir (step, 0755), ==, 0);
  g_autofree char *file = g_build_filename (step, "worker_0.jsonl", NULL);
  g_assert_true (g_file_set_contents (file, content, (gssize) len, NULL));
  return dir;
}

static void
remove_experiment (const char *dir)
{
  g_autofree char *file = g_build_filename (dir, "step_1", "worker_0.jsonl", NULL);
  g_autofree char *step = g_build_filename (dir, "step_1", NULL);
  g_remove (file);
  g_rmdir (step);
  g_rmdir (dir);
}

static void
test_a_line_longer_than_the_read_buffer (void)
{
  /* 9 MB of response lengths in one line, between two ordinary lines */
  GString *s = g_string_new ("{\"event\": \"preprocessing_duration\", \"duration_sec\": 1.0}\n"
                             "{\"event\": \"step_response_length_stats\", \"extra\": {\"response_lengths\": [");
  for (int i = 0; i < 1500000; i++)
    g_string_append (s, i ? ", 4096" : "4096");
  g_string_append (s, "]}}\n{\"event\": \"total_step_duration\", \"duration_sec\": 2.0}\n");
  g_autofree char *dir = make_experiment (s->str, s->len);
  g_string_free (s, TRUE);
  g_autoptr (RtTrace) t = load (dir, 1);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpuint (f->lines, ==, 3);
  g_assert_cmpuint (f->events, ==, 3);
  g_assert_cmpfloat (f->step_sum_s[RT_EV_TOTAL_STEP], ==, 2.0);
  remove_experiment (dir);
}

static void
test_a_complete_last_line_without_newline_counts (void)
{
  const char *text = "{\"event\": \"total_step_duration\", \"duration_sec\": 2.0}\n"
                     "{\"event\": \"total_step_duration\", \"duration_sec\": 3.0}";
  g_autofree char *dir = make_experiment (text, strlen (text));
  g_autoptr (RtTrace) t = load (dir, 1);
  g_assert_cmpuint (rt_trace_file (t, 0)->lines, ==, 2);
  g_assert_cmpuint (rt_trace_file (t, 0)->bad_lines, ==, 0);
  g_assert_cmpfloat (rt_trace_file (t, 0)->step_sum_s[RT_EV_TOTAL_STEP], ==, 5.0);
  remove_experiment (dir);
}

/* A file's cut-off last line is parsed where it lies in the read buffer, after the lines
 * before it were: the byte the parser finds after it (here the closing brace of the line
 * before, read into the same place) must not complete a broken object. */
static void
test_what_the_buffer_held_does_not_complete_a_cut_last_line (void)
{
  /* the first line is one byte longer than the cut one, and ends with a brace */
  const char *text = "{\"event\": \"padding\", \"duration_sec\": 2}\n"
                     "{\"event\": \"e\": \"f\", \"duration_sec\": 3}";
  g_autofree char *dir = make_experiment (text, strlen (text));
  g_autoptr (RtTrace) t = load (dir, 1);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpuint (f->lines, ==, 2);
  g_assert_cmpuint (f->events, ==, 1);
  g_assert_cmpuint (f->bad_lines, ==, 1);
  remove_experiment (dir);
}

/* Request ids and event names are told apart by every byte and by their length: ids and
 * names of 1 to 47 bytes, each beside one that differs only in its first or its last byte,
 * and each beside itself one byte shorter, all become requests and events of their own. */
static void
test_ids_and_names_one_byte_apart_stay_apart (void)
{
  const char *base = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJK";   /* 47 bytes */
  g_autoptr (GPtrArray) texts = g_ptr_array_new_with_free_func (g_free);
  for (int len = 1; len <= 47; len++)
    {
      g_ptr_array_add (texts, g_strndup (base, len));
      char *first = g_strndup (base, len), *last = g_strndup (base, len);
      first[0] = '#';
      last[len - 1] = '#';
      g_ptr_array_add (texts, first);
      if (len > 1)
        g_ptr_array_add (texts, last);
      else
        g_free (last);
    }
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < texts->len; i++)
    g_string_append_printf (s, "{\"event\": \"turn_start\", \"extra\": {\"request_id\": \"%s\"}}\n"
                               "{\"event\": \"async_rollout_request_complete\", \"extra\": "
                               "{\"request_id\": \"%s\", \"turns\": %u}}\n"
                               "{\"event\": \"%s\", \"duration_sec\": %u}\n",
                            (char *) texts->pdata[i], (char *) texts->pdata[i], i, (char *) texts->pdata[i], i);
  g_autofree char *dir = make_experiment (s->str, s->len);
  g_string_free (s, TRUE);
  g_autoptr (RtTrace) t = load (dir, 1);
  g_assert_cmpuint (t->n_requests, ==, texts->len);
  for (guint i = 0; i < texts->len; i++)
    g_assert_cmpint (find_request (t, texts->pdata[i])->turns, ==, (gint) i);
  const RtEvent *rows = rt_trace_file_events (t, 0);
  g_assert_cmpuint (rt_trace_file (t, 0)->n_events, ==, 3 * texts->len);
  for (guint i = 0; i < texts->len; i++)
    {
      const RtEvent *start = &rows[3 * i], *named = &rows[3 * i + 2];
      g_assert_cmpuint (start->request, ==, rows[3 * i + 1].request);
      g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, rt_trace_file (t, 0)->first_request + start->request)), ==,
                       texts->pdata[i]);
      g_assert_cmpstr (rt_event_registry_name (t->registry, named->event), ==, texts->pdata[i]);
      g_assert_cmpfloat (named->duration_s, ==, i);
    }
  rt_trace_file_events_done (t, 0);
  remove_experiment (dir);
}

/* A second complete line for an id opens a new request (a rerun after a restart), and the
 * lines of that id after it belong to the new one, whether they follow it at once or come
 * after other requests' lines. */
static void
test_a_rerun_takes_over_its_id (void)
{
  const char *text =
    "{\"event\": \"turn_start\", \"extra\": {\"request_id\": \"a\"}}\n"
    "{\"event\": \"async_rollout_request_complete\", \"extra\": {\"request_id\": \"a\", \"turns\": 1}}\n"
    "{\"event\": \"async_rollout_request_complete\", \"extra\": {\"request_id\": \"a\", \"turns\": 2}}\n"
    "{\"event\": \"turn_start\", \"extra\": {\"request_id\": \"a\"}}\n"
    "{\"event\": \"turn_start\", \"extra\": {\"request_id\": \"b\"}}\n"
    "{\"event\": \"turn_start\", \"extra\": {\"request_id\": \"a\"}}\n"
    "{\"event\": \"async_rollout_request_complete\", \"extra\": {\"request_id\": \"a\", \"turns\": 3}}\n"
    "{\"event\": \"turn_start\", \"extra\": {\"request_id\": \"b\"}}\n";
  g_autofree char *dir = make_experiment (text, strlen (text));
  g_autoptr (RtTrace) t = load (dir, 1);
  g_assert_cmpuint (t->n_requests, ==, 4);   /* a three times, b once */
  const RtEvent *rows = rt_trace_file_events (t, 0);
  const guint32 expected[] = { 0, 0, 1, 1, 2, 1, 3, 2 };
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpuint (rows[i].request, ==, expected[i]);
  g_assert_cmpint (rt_trace_request (t, 0)->turns, ==, 1);
  g_assert_cmpint (rt_trace_request (t, 1)->turns, ==, 2);
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, 2)), ==, "b");
  g_assert_false (rt_trace_request (t, 2)->complete);
  g_assert_cmpint (rt_trace_request (t, 3)->turns, ==, 3);
  rt_trace_file_events_done (t, 0);
  remove_experiment (dir);
}

static void
test_thread_count_does_not_change_the_tables (void)
{
  g_autofree char *path = fixture ("hand-v2");
  g_autoptr (RtTrace) one = load (path, 1);
  g_autoptr (RtTrace) many = load (path, 4);
  g_assert_cmpuint (one->events->len, ==, many->events->len);
  for (guint i = 0; i < one->files->len; i++)
    {
      const RtFile *a = rt_trace_file (one, i), *b = rt_trace_file (many, i);
      g_assert_cmpstr (a->path, ==, b->path);
      g_assert_cmpuint (a->n_events, ==, b->n_events);
      for (guint e = 0; e < a->n_events; e++)
        {
          const RtEvent *x = &rt_trace_file_events (one, i)[e];
          const RtEvent *y = &rt_trace_file_events (many, i)[e];
          g_assert_cmpmem (&x->end_s, sizeof x->end_s, &y->end_s, sizeof y->end_s);
          g_assert_cmpmem (&x->duration_s, sizeof x->duration_s, &y->duration_s, sizeof y->duration_s);
          g_assert_cmpuint (x->request, ==, y->request);
          g_assert_cmpint (x->turn, ==, y->turn);
          g_assert_cmpstr (rt_event_registry_name (one->registry, x->event), ==,
                           rt_event_registry_name (many->registry, y->event));
        }
    }
}

static char *folder_listing (const char *dir);

/* How many requests the files of t hold. */
static guint64
files_requests (const RtTrace *t)
{
  guint64 n = 0;
  for (guint i = 0; i < t->files->len; i++)
    n += rt_trace_file (t, i)->first_request != RT_NONE ? rt_trace_file (t, i)->n_requests : 0;
  return n;
}

/* The same files, requests, turns and problems in both; the same rows too when `rows`. */
static void
assert_same_tables (const RtTrace *a, const RtTrace *b, gboolean rows)
{
  g_assert_cmpuint (a->files->len, ==, b->files->len);
  for (guint i = 0; i < a->files->len; i++)
    {
      const RtFile *x = rt_trace_file (a, i), *y = rt_trace_file (b, i);
      g_assert_cmpstr (x->path, ==, y->path);
      g_assert_cmpuint (x->lines, ==, y->lines);
      g_assert_cmpuint (x->bad_lines, ==, y->bad_lines);
      g_assert_cmpuint (x->n_events, ==, y->n_events);
      g_assert_cmpuint (x->n_requests, ==, y->n_requests);
      g_assert_cmpuint (x->n_complete, ==, y->n_complete);
      g_assert_cmpmem (&x->start_min_s, sizeof (double), &y->start_min_s, sizeof (double));
      for (guint e = 0; rows && e < x->n_events; e++)
        {
          const RtEvent *p = &rt_trace_file_events (a, i)[e], *q = &rt_trace_file_events (b, i)[e];
          g_assert_cmpmem (&p->end_s, sizeof p->end_s, &q->end_s, sizeof q->end_s);
          g_assert_cmpmem (&p->duration_s, sizeof p->duration_s, &q->duration_s, sizeof q->duration_s);
          g_assert_cmpuint (p->request, ==, q->request);
          g_assert_cmpint (p->turn, ==, q->turn);
          g_assert_cmpstr (rt_event_registry_name (a->registry, p->event), ==,
                           rt_event_registry_name (b->registry, q->event));
        }
    }
  /* (files are appended as their threads finish them: requests are compared file by file;
   * a table used in place may number a request of no file, the cache's older copy of those of
   * a file read on since) */
  g_assert_cmpuint (files_requests (a), ==, files_requests (b));
  g_assert_cmpuint (files_requests (b), <=, b->n_requests);
  for (guint i = 0; i < a->files->len; i++)
    for (guint r = 0; r < rt_trace_file (a, i)->n_requests; r++)
      {
        const RtRequest *x = rt_trace_request (a, rt_trace_file (a, i)->first_request + r);
        const RtRequest *y = rt_trace_request (b, rt_trace_file (b, i)->first_request + r);
        g_assert_cmpstr (rt_request_id (a, x), ==, rt_request_id (b, y));
        g_assert_cmpstr (rt_request_finish_reason (a, x), ==, rt_request_finish_reason (b, y));
        g_assert_cmpmem (&x->total_s, sizeof (double), &y->total_s, sizeof (double));
        g_assert_cmpint (x->turns, ==, y->turns);
        g_assert_cmpuint (x->n_turns, ==, y->n_turns);
        for (guint k = 0; k < x->n_turns; k++)
          {
            const RtTurnFigures *p = rt_trace_turn (a, x->first_turn + k);
            const RtTurnFigures *q = rt_trace_turn (b, y->first_turn + k);
            g_assert_cmpint (p->turn, ==, q->turn);
            g_assert_cmpmem (&p->total_s, sizeof (double), &q->total_s, sizeof (double));
            g_assert_cmpmem (&p->engine_call_s, sizeof (double), &q->engine_call_s, sizeof (double));
          }
      }
  g_assert_cmpuint (a->problems->len, ==, b->problems->len);
  g_assert_cmpuint (a->problems_total, ==, b->problems_total);
}

/* A load of `path` from the cache in `dir` takes every file from it, with the tables of `full`
 * (a load without a cache); the cache and its folder are then removed. */
static void
assert_cache_holds_the_tables (const char *path, const char *dir, const RtTrace *full)
{
  g_autoptr (RtTrace) cached = load_threads_cache (path, 2, dir);
  g_assert_cmpuint (cached->stats.files_cached, ==, cached->files->len);
  assert_same_tables (full, cached, TRUE);
  rt_test_remove_tree (dir);
}

/* A load for a command that reads no event rows keeps none in memory, and every other
 * table as a full load has it; the cache it writes still holds every row. */
static void
test_rows_unread_keeps_the_other_tables_and_caches_every_row (void)
{
  const char *fixtures[] = { "hand-v1", "hand-v2", "damaged", "timeline" };
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture (fixtures[i]);
      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) full = load (path, 2);
      g_autoptr (RtTrace) lean = load_with (path, (RtLoadOptions) { .n_threads = 2, .cache_dir = dir,
                                                                    .reads = RT_READS_ALL & ~RT_READS_ROWS });
      g_assert_true (lean->stats.cache_written);
      g_assert_cmpuint (full->events->len, >, 0);
      g_assert_cmpuint (lean->events->len, ==, 0);
      assert_same_tables (full, lean, FALSE);

      assert_cache_holds_the_tables (path, dir, full);
    }
}

static GArray *sorted_durations (const RtTrace *t, guint si);

enum { RUNNING_PARTIAL, RUNNING_RERUN, RUNNING_NEW_REQUEST };
static char *copy_hand_v2_running (guint last_piece);
static void assert_same_turn_answers (const RtTrace *t, const RtTrace *fresh);

/* A caller that reads durations alone (rt-cdf) keeps no request and no id: each step's sorted
 * durations, and every step's, are made of the durations the load kept, the very values a full
 * load's request table gives; the files keep their request counts. With a cache to write, the
 * other tables are put aside on disk as files are read: the cache holds them as a full load
 * would have written them (the last file of the running copies ends in an unterminated piece,
 * the second's a whole line that changes a request and its turns: the cache keeps the tables
 * as of the last newline, and a load from it reads that piece on). */
static void
test_durations_alone_keep_no_request (void)
{
  const char *fixtures[] = { "hand-v1", "hand-v2", "damaged", "timeline", "samples/exp-v2-damaged",
                             "running", "running-rerun", "running-new-request" };
  for (guint c = 0; c < 2 * G_N_ELEMENTS (fixtures); c++)
    {
      guint i = c / 2;
      gboolean cached = c % 2 == 1;
      g_autofree char *path = g_str_has_prefix (fixtures[i], "running")
                                ? copy_hand_v2_running (strcmp (fixtures[i], "running") == 0 ? RUNNING_PARTIAL
                                                        : strcmp (fixtures[i], "running-rerun") == 0 ? RUNNING_RERUN
                                                        : RUNNING_NEW_REQUEST)
                                : fixture (fixtures[i]);
      g_autofree char *dir = cached ? g_dir_make_tmp ("rt-cache-XXXXXX", NULL) : NULL;
      g_autoptr (RtTrace) full = load (path, 2);
      g_autoptr (RtTrace) lean = load_with (path, (RtLoadOptions) { .n_threads = 2, .cache_dir = dir,
                                                                    .reads = RT_READS_DURATIONS });
      g_assert_true (lean->stats.cache_written == cached);
      g_assert_cmpuint (lean->n_requests, ==, 0);
      g_assert_cmpuint (lean->string_chunks->len, ==, 0);
      g_assert_cmpuint (lean->steps->len, ==, full->steps->len);
      g_autoptr (GArray) all = rt_samples_new ();
      for (guint si = 0; si < full->steps->len; si++)
        {
          const RtStep *st = rt_trace_step (full, si);
          for (guint k = 0; k < st->n_files; k++)
            {
              g_assert_cmpuint (rt_trace_file (lean, st->first_file + k)->first_request, ==, RT_NONE);
              g_assert_cmpuint (rt_trace_file (lean, st->first_file + k)->n_requests, ==,
                                rt_trace_file (full, st->first_file + k)->n_requests);
            }
          g_autoptr (GArray) want = sorted_durations (full, si);
          g_array_append_vals (all, want->data, want->len);
          guint n;
          const double *got = rt_trace_step_sorted_durations (lean, si, &n);
          g_assert_nonnull (got);
          g_assert_cmpuint (n, ==, want->len);
          g_assert_cmpmem (got, n * sizeof (double), want->data, want->len * sizeof (double));
        }
      rt_sort_doubles ((double *) all->data, all->len);
      guint n;
      const double *got = rt_trace_all_sorted_durations (lean, &n);
      g_assert_cmpmem (got, n * sizeof (double), all->data, all->len * sizeof (double));
      if (cached)
        {
          {
            g_autoptr (RtTrace) summed = load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir,
                                                                            .reads = RT_READS_ALL & ~RT_READS_TURNS });
            if (rt_trace_n_turns (full) > 0)
              assert_same_turn_answers (summed, full);
          }
          assert_cache_holds_the_tables (path, dir, full);
        }
      if (g_str_has_prefix (fixtures[i], "running"))
        rt_test_remove_tree (path);
    }
}

/* How many of the pages wholly inside [lo, hi) this process has mapped (/proc/self/pagemap's
 * present bit, which needs no privilege). */
static guint
pages_present (const void *lo, const void *hi)
{
  const gsize page = (gsize) sysconf (_SC_PAGESIZE);
  guintptr start = ((guintptr) lo + page - 1) / page * page, end = (guintptr) hi / page * page;
  int fd = open ("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  guint present = 0;
  for (guintptr at = start; at < end; at += page)
    {
      guint64 entry = 0;
      g_assert_cmpint (pread (fd, &entry, sizeof entry, (off_t) (at / page * sizeof entry)), ==, sizeof entry);
      present += (guint) (entry >> 63);
    }
  close (fd);
  return present;
}

/* A large cache's requests, used in place, are not kept resident (ROLLTRACE_RELEASE_FROM makes
 * this small one large): their pages go back once the load has checked them, come in as they
 * are read, and go back once the reader is done with them (rt_trace_requests_done), the ids
 * too; what is read of them is the same either way. */
static void
test_large_cache_tables_go_back_once_read (void)
{
  g_autofree char *path = fixture ("samples/exp-v2-damaged");
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) full = load (path, 2);
  rt_trace_free (load_threads_cache (path, 2, dir));
  g_setenv ("ROLLTRACE_RELEASE_FROM", "1", TRUE);
  g_autoptr (RtTrace) t = load_with (path, (RtLoadOptions) {
    .n_threads = 2, .cache_dir = dir,
    .reads = RT_READS_REQUESTS | RT_READS_SOME_IDS | RT_READS_TURN_SUMS });
  g_unsetenv ("ROLLTRACE_RELEASE_FROM");
  g_assert_cmpuint (t->stats.files_cached, ==, t->files->len);
  g_assert_nonnull (t->cached_requests);
  const RtRequest *lo = t->cached_requests, *hi = lo + t->n_cached_requests;
  g_assert_cmpuint ((guintptr) hi - (guintptr) lo, >=, 3 * (gsize) sysconf (_SC_PAGESIZE));
  g_assert_cmpuint (pages_present (lo, hi), ==, 0);
  double sum = 0, want = 0;
  for (guint i = 0; i < t->files->len; i++)
    for (guint r = 0; r < rt_trace_file (t, i)->n_requests; r++)
      {
        const RtRequest *q = rt_trace_request (t, rt_trace_file (t, i)->first_request + r);
        const RtRequest *w = rt_trace_request (full, rt_trace_file (full, i)->first_request + r);
        sum += q->complete ? q->total_s : 0;
        want += w->complete ? w->total_s : 0;
        g_assert_cmpstr (rt_request_id (t, q), ==, rt_request_id (full, w));
      }
  g_assert_cmpmem (&sum, sizeof sum, &want, sizeof want);
  g_assert_cmpuint (pages_present (lo, hi), >, 0);
  rt_trace_requests_done (t, 0, t->files->len);
  g_assert_cmpuint (pages_present (lo, hi), ==, 0);
  g_assert_cmpstr (rt_request_id (t, lo), ==, rt_request_id (full, rt_trace_request (full, rt_trace_file (full, lo->file)->first_request)));
  rt_test_remove_tree (dir);
}

/* ...and asking such a trace for rows is a programming error: stopped loudly where reads are
 * checked (the tests, debug builds); elsewhere the rows are read from the file then, the very
 * rows a full load keeps, and it is said once. */
static void
test_rows_unread_are_not_read_silently (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = fixture ("hand-v2");
      g_setenv ("ROLLTRACE_CHECK_READS", "1", TRUE);
      RtLoadOptions opts = { .max_problems_per_file = 100, .reads = RT_READS_ALL & ~RT_READS_ROWS };
      g_autoptr (RtTrace) t = rt_trace_load (path, &opts, NULL);
      rt_trace_file_events (t, 0);
      return;
    }
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*were not kept (RT_READS_ROWS was not declared)*");

  g_autofree char *path = fixture ("hand-v2");
  g_autofree char *old = g_strdup (g_getenv ("ROLLTRACE_CHECK_READS"));
  g_setenv ("ROLLTRACE_CHECK_READS", "0", TRUE);
  g_autoptr (RtTrace) full = load (path, 1);
  g_autoptr (RtTrace) lean = load_with (path, (RtLoadOptions) { .n_threads = 1, .reads = RT_READS_ALL & ~RT_READS_ROWS });
  if (old != NULL)
    g_setenv ("ROLLTRACE_CHECK_READS", old, TRUE);
  else
    g_unsetenv ("ROLLTRACE_CHECK_READS");
  for (guint i = 0; i < full->files->len; i++)
    {
      const RtFile *ff = rt_trace_file (full, i), *lf = rt_trace_file (lean, i);
      g_assert_cmpuint (lf->n_events, ==, ff->n_events);
      g_assert_cmpmem (rt_trace_file_events (lean, i), lf->n_events * sizeof (RtEvent),
                       rt_trace_file_events (full, i), ff->n_events * sizeof (RtEvent));
    }
}

/* A load for a command that reads no turn figures and writes no cache keeps none, and every
 * other table as a full load has it (each request's count of turns too); one that writes a
 * cache keeps them all, for the cache. Asking such a trace for a turn stops loudly. */
static void
test_turns_unread_without_a_cache_are_not_kept (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = fixture ("hand-v2");
      g_setenv ("ROLLTRACE_CHECK_READS", "1", TRUE);
      g_autoptr (RtTrace) t = load_with (path, (RtLoadOptions) { .n_threads = 1, .reads = NO_TURNS });
      rt_trace_turn (t, 0);
      return;
    }
  const char *fixtures[] = { "hand-v1", "hand-v2", "damaged", "timeline" };
  guint64 turns_seen = 0;
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture (fixtures[i]);
      g_autoptr (RtTrace) full = load (path, 2);
      g_autoptr (RtTrace) lean = load_with (path, (RtLoadOptions) { .n_threads = 2, .reads = NO_TURNS });
      turns_seen += full->turns->len;
      g_assert_cmpuint (lean->turns->len, ==, 0);
      /* (each file's requests where its row says: the threads merge the files in any order) */
      g_assert_cmpuint (lean->files->len, ==, full->files->len);
      for (guint i = 0; i < lean->files->len; i++)
        {
          const RtFile *lf = rt_trace_file (lean, i), *ff = rt_trace_file (full, i);
          g_assert_cmpuint (lf->n_requests, ==, ff->n_requests);
          for (guint r = 0; r < lf->n_requests; r++)
            g_assert_cmpuint (rt_trace_request (lean, lf->first_request + r)->n_turns, ==,
                              rt_trace_request (full, ff->first_request + r)->n_turns);
        }

      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) caching = load_with (path, (RtLoadOptions) { .n_threads = 2, .cache_dir = dir,
                                                                       .reads = NO_TURNS });
      g_assert_true (caching->stats.cache_written);
      g_assert_cmpuint (caching->turns->len, ==, full->turns->len);
      assert_cache_holds_the_tables (path, dir, full);
    }
  g_assert_cmpuint (turns_seen, >, 0);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_failed ();
  g_test_trap_assert_stderr ("*turn 0 is not in the trace (0 turns: RT_READS_TURNS was not declared), yet is read*");
}

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The names in a folder, sorted, joined by spaces. */
static char *
folder_listing (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (d);
  g_autoptr (GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **) names->pdata);
}

static void
test_a_cache_folder_holds_only_finished_caches (void)
{
  g_autofree char *path = fixture ("hand-v2");
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  RtLoadOptions opts = { .max_problems_per_file = 100, .cache_dir = dir };
  for (int run = 0; run < 2; run++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RtTrace) t = rt_trace_load (path, &opts, &error);
      g_assert_no_error (error);
      g_assert_true (run == 0 ? t->stats.cache_written : t->stats.cache_used);
      g_autofree char *listing = folder_listing (dir);
      /* one cache, no temporary file beside it */
      g_assert_true (g_str_has_suffix (listing, ".rtc"));
      g_assert_null (strchr (listing, ' '));
      g_assert_false (g_str_has_prefix (listing, "."));
    }
  g_autofree char *listing = folder_listing (dir);
  g_autofree char *cache = g_build_filename (dir, listing, NULL);
  g_unlink (cache);
  g_rmdir (dir);
}

static void
test_an_abandoned_cache_draft_leaves_nothing (void)
{
  g_autofree char *dir = g_dir_make_tmp ("rt-draft-XXXXXX", NULL);
  g_autofree char *cache = g_build_filename (dir, "some.rtc", NULL);
  g_autoptr (GError) error = NULL;
  RtCacheDraft *d = rt_cache_draft_new (cache, &error);
  g_assert_no_error (error);
  RtEvent rows[3] = { { 1.0, 0.5, RT_NONE, 3, -1 }, { 2.0, 0.25, 0, 4, 1 }, { 3.0, NAN, 0, 5, 2 } };
  guint64 at = rt_cache_draft_reserve (d, 3);
  guint64 again = rt_cache_draft_reserve (d, 1);
  g_assert_cmpuint (again - at, ==, 3 * sizeof (RtEvent));
  g_assert_cmpuint (rt_cache_draft_put_rows (d, at, rows, 3), ==, rt_hash64 (rows, sizeof rows, 2));
  /* nameless while it is written (nothing a kill -9 could leave), where the file system
   * has such files; else under a temporary name, which a signal that can be caught removes */
  g_autofree char *during = folder_listing (dir);
  int probe = open (dir, O_TMPFILE | O_RDWR, 0600);
  if (probe >= 0)
    {
      g_assert_cmpstr (during, ==, "");
      close (probe);
    }
  else
    g_assert_true (g_str_has_prefix (during, ".rolltrace-"));
  rt_cache_draft_free (d);   /* a load that failed, or found nothing to cache */
  g_autofree char *after = folder_listing (dir);
  g_assert_cmpstr (after, ==, "");
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

#define LINE(ev, extra) "{\"timestamp\": \"2025-06-10T09:00:01\", \"event\": \"" ev "\", " extra "}\n"
static const char cached_text[] =
  LINE ("request_start", "\"extra\": {\"request_id\": \"a\"}")
  LINE ("turn_engine_call", "\"duration_sec\": 1.5, \"extra\": {\"request_id\": \"a\", \"turn\": 0}")
  LINE ("turn_engine_call", "\"duration_sec\": 0.5, \"extra\": {\"request_id\": \"b\", \"turn\": 0}")
  LINE ("async_rollout_request_complete", "\"duration_sec\": 3.0, \"extra\": {\"request_id\": \"a\", \"turns\": 1}");

/* The one .rtc file in `dir`, or NULL. */
static char *
cache_file_in (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_suffix (name, ".rtc"))
      return g_build_filename (dir, name, NULL);
  return NULL;
}

/* Loads `exp` with a cache in `cache_dir`, twice, damaging the cached rows in
 * between: the second load takes the file whole from the damaged cache. */
static RtTrace *
load_over_damaged_rows (const char *exp, const char *cache_dir)
{
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = 100, .cache_dir = cache_dir };
  g_autoptr (GError) error = NULL;
  g_autoptr (RtTrace) first = rt_trace_load (exp, &opts, &error);
  g_assert_no_error (error);
  g_assert_true (first->stats.cache_written);
  g_autofree char *cache = cache_file_in (cache_dir);
  g_assert_nonnull (cache);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (cache, &data, &len, NULL));
  data[256 + 8] ^= 0x5A;   /* the first row's request index */
  g_assert_true (g_file_set_contents (cache, data, (gssize) len, NULL));
  RtTrace *t = rt_trace_load (exp, &opts, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (t->stats.files_cached, ==, 1);   /* rows are checked when used */
  return t;
}

/* The durations of a step's complete requests, sorted, computed from the request table. */
static GArray *
sorted_durations (const RtTrace *t, guint si)
{
  GArray *v = rt_view_request_durations (t, si, -1);
  rt_sort_doubles ((double *) v->data, v->len);
  return v;
}

/* Loads `path` with the cache in `dir` for a command that reads neither rows nor requests
 * (its files' turns it may read, by RtFile.first_turn). */
static RtTrace *
load_lean (const char *path, const char *dir)
{
  return load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir, .reads = RT_READS_ALL & ~(RT_READS_ROWS | RT_READS_REQUESTS) });
}

/* From the cache, a command that reads no request gets none copied: each step's sorted
 * durations, kept in the cache, stand in for them, the very values the table gives; the
 * files keep their request counts. Reading them again gives the tables a fresh load has. */
static void
test_cached_step_durations_stand_in_for_the_requests (void)
{
  const char *fixtures[] = { "hand-v1", "hand-v2", "damaged", "timeline" };
  guint64 all_left_out = 0;   /* "damaged" has unterminated last lines: none of its own */
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture (fixtures[i]);
      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) full = load (path, 2);
      g_autoptr (RtTrace) first = load_lean (path, dir);
      g_assert_true (first->stats.cache_written);
      g_assert_cmpuint (first->n_requests, ==, full->n_requests);   /* read: kept */

      g_autoptr (RtTrace) lean = load_lean (path, dir);
      g_assert_true (lean->stats.cache_used);
      g_assert_false (lean->stats.cache_written);
      g_assert_cmpuint (full->n_requests, >, 0);
      g_assert_cmpuint (lean->turns->len, ==, 0);
      guint64 kept = 0, left_out = 0;
      for (guint f = 0; f < lean->files->len; f++)
        {
          const RtFile *lf = rt_trace_file (lean, f);
          g_assert_cmpuint (lf->n_requests, ==, rt_trace_file (full, f)->n_requests);
          /* a file whose unterminated last piece is read again keeps its own */
          *(lf->first_request == RT_NONE ? &left_out : &kept) += lf->n_requests;
        }
      g_assert_cmpuint (lean->n_requests, ==, kept);
      g_assert_cmpuint (kept + left_out, ==, full->n_requests);
      all_left_out += left_out;
      for (guint si = 0; si < full->steps->len; si++)
        {
          g_autoptr (GArray) want = sorted_durations (full, si);
          guint n;
          const double *got = rt_trace_step_sorted_durations (lean, si, &n);
          g_assert_nonnull (got);
          g_assert_cmpuint (n, ==, want->len);
          g_assert_true (n == 0 || memcmp (got, want->data, n * sizeof (double)) == 0);
        }
      /* and all the steps' together */
      g_autoptr (GArray) want_all = g_array_new (FALSE, FALSE, sizeof (double));
      for (guint si = 0; si < full->steps->len; si++)
        {
          g_autoptr (GArray) step = sorted_durations (full, si);
          g_array_append_vals (want_all, step->data, step->len);
        }
      rt_sort_doubles ((double *) want_all->data, want_all->len);
      guint n_all;
      const double *all = rt_trace_all_sorted_durations (lean, &n_all);
      g_assert_nonnull (all);
      g_assert_cmpuint (n_all, ==, want_all->len);
      g_assert_true (n_all == 0 || memcmp (all, want_all->data, n_all * sizeof (double)) == 0);

      g_autoptr (RtTrace) cached = load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir });
      g_assert_cmpuint (cached->files->len, ==, full->files->len);
      assert_same_tables (full, cached, TRUE);

      rt_test_remove_tree (dir);
    }
  g_assert_cmpuint (all_left_out, >, 0);
}

/* Damaged durations in the cache are not used: the requests are copied, and the
 * durations computed from them, as if the cache had never held any. */
static void
test_damaged_cached_durations_fall_back_to_the_requests (void)
{
  g_autofree char *path = fixture ("hand-v2");
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) full = load (path, 1);
  rt_trace_free (load_lean (path, dir));
  g_autofree char *cache = cache_file_in (dir);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (cache, &data, &len, NULL));
  guint64 tables_at, tables_end;
  memcpy (&tables_at, data + 48, 8);    /* the header's tables_at, and strings_at: where the */
  memcpy (&tables_end, data + 64, 8);   /* tables end */
  g_assert_cmpuint (tables_at, <, tables_end);
  g_assert_cmpuint (tables_end, <=, len);
  data[tables_end - 3] ^= 0x40;   /* the last duration, the last part */
  g_assert_true (g_file_set_contents (cache, data, (gssize) len, NULL));

  g_autoptr (RtTrace) t = load_lean (path, dir);
  g_assert_true (t->stats.cache_used);
  g_assert_cmpuint (t->n_requests, ==, full->n_requests);
  for (guint si = 0; si < t->steps->len; si++)
    {
      guint n;
      g_assert_null (rt_trace_step_sorted_durations (t, si, &n));
      g_autoptr (GArray) want = sorted_durations (full, si);
      g_autoptr (GArray) got = rt_view_request_durations_sorted (t, si);
      g_assert_cmpuint (got->len, ==, want->len);
      g_assert_true (got->len == 0 || memcmp (got->data, want->data, got->len * sizeof (double)) == 0);
    }
  g_unlink (cache);
  g_rmdir (dir);
}

/* The cache's checksum sees every bit flipped, wherever it is (in a 64-byte block, in the
 * 8-byte words after the blocks, in the last bytes), two blocks swapped, the length, the seed,
 * and a word equal to a lane's constant does not hide what came before it. */
static void
test_cache_checksum_sees_every_change (void)
{
  guint8 buf[64 * 3 + 8 * 3 + 5];
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 37 + 11);
  const guint64 base = rt_hash64 (buf, sizeof buf, 9);
  for (guint i = 0; i < sizeof buf; i++)
    for (guint bit = 0; bit < 8; bit++)
      {
        buf[i] ^= (guint8) (1u << bit);
        g_assert_cmpuint (rt_hash64 (buf, sizeof buf, 9), !=, base);
        buf[i] ^= (guint8) (1u << bit);
      }
  g_assert_cmpuint (rt_hash64 (buf, sizeof buf, 9), ==, base);
  g_assert_cmpuint (rt_hash64 (buf, sizeof buf - 1, 9), !=, base);
  g_assert_cmpuint (rt_hash64 (buf, sizeof buf, 10), !=, base);
  guint8 swapped[sizeof buf];
  memcpy (swapped, buf, sizeof buf);
  memcpy (swapped, buf + 64, 64);
  memcpy (swapped + 64, buf, 64);
  g_assert_cmpuint (rt_hash64 (swapped, sizeof buf, 9), !=, base);
  /* the second word of the second block made the first lane's constant (its product is
   * then 0): a change in the first block still shows */
  const guint64 k = 0x9E3779B97F4A7C15ull;
  memcpy (buf + 64 + 8, &k, 8);
  guint64 with_k = rt_hash64 (buf, sizeof buf, 9);
  buf[3] ^= 1;
  g_assert_cmpuint (rt_hash64 (buf, sizeof buf, 9), !=, with_k);
}

/* The checksum is part of the cache's format: however it is computed, its values stay those
 * the caches already written hold (these were made before the words of a block were read one
 * by one: a cache of that day is still taken). They are a little-endian machine's: a word is
 * read in the machine's byte order, and a cache is for one byte order. */
static void
test_cache_checksum_values_are_the_formats (void)
{
  guint8 buf[64 * 3 + 8 * 3 + 5];
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 37 + 11);
  static const struct {
    gsize len;
    guint64 sum;
  } known[] = {
    { 0, 0x884c631e69e87326ull }, { 5, 0xf60c1fb64cec7ec2ull }, { 8, 0xd0936c214a62d41aull },
    { 64, 0x70be03bfb6f568ceull }, { 100, 0xdac5d0309545bc4bull }, { 221, 0x5dea526b2f0accb5ull },
  };
  if (G_BYTE_ORDER != G_LITTLE_ENDIAN)
    {
      g_test_skip ("the values are a little-endian machine's");
      return;
    }
  for (guint k = 0; k < G_N_ELEMENTS (known); k++)
    g_assert_cmphex (rt_hash64 (buf, known[k].len, 9), ==, known[k].sum);
}

/* The checksum of bytes that come piece by piece (HashStream: the cache writer's parts written
 * as files are added) is rt_hash64 of them all, however they are cut: every length up to three
 * blocks and more, cut at every point into two, and into pieces of every size from 1 to 70. */
static void
test_cache_checksum_in_pieces_is_the_whole (void)
{
  guint8 buf[64 * 3 + 8 * 3 + 5];
  for (guint i = 0; i < sizeof buf; i++)
    buf[i] = (guint8) (i * 37 + 11);
  for (gsize len = 0; len <= sizeof buf; len++)
    {
      const guint64 whole = rt_hash64 (buf, len, 9);
      for (gsize cut = 0; cut <= len; cut++)
        {
          HashStream h;
          hash_stream_start (&h, 9);
          hash_stream_put (&h, buf, cut);
          hash_stream_put (&h, buf + cut, len - cut);
          g_assert_cmphex (hash_stream_end (&h), ==, whole);
        }
      for (gsize piece = 1; piece <= 70; piece++)
        {
          HashStream h;
          hash_stream_start (&h, 9);
          for (gsize at = 0; at < len; at += piece)
            hash_stream_put (&h, buf + at, MIN (piece, len - at));
          g_assert_cmphex (hash_stream_end (&h), ==, whole);
        }
    }
  HashStream none;
  hash_stream_start (&none, 9);
  hash_stream_put (&none, NULL, 0);
  g_assert_cmphex (hash_stream_end (&none), ==, rt_hash64 (NULL, 0, 9));
}

/* A cached file's rows are taken only if none names an event past the registry's or a
 * request past the file's (RT_NONE, none, is fine), each at its edge, wherever the row is. */
static void
test_cached_rows_bounds_at_their_edges (void)
{
  RtEvent rows[5];
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    rows[i] = (RtEvent) { .end_s = i, .duration_s = 1, .request = RT_NONE, .event = 0, .turn = -1 };
  const guint n_names = 7;
  const guint32 n_requests = 3;
  const gsize size = sizeof rows;
  g_assert_true (rt_cache_rows_ok (rows, 5, rt_hash64 (rows, size, 2), n_names, n_requests));
  g_assert_true (rt_cache_rows_ok (rows, 0, rt_hash64 (rows, 0, 2), 0, 0));
  for (guint at = 0; at < G_N_ELEMENTS (rows); at++)
    {
      struct { guint16 event; guint32 request; gboolean ok; } cases[] = {
        { n_names - 1, RT_NONE, TRUE }, { n_names, RT_NONE, FALSE }, { G_MAXUINT16, RT_NONE, FALSE },
        { 0, n_requests - 1, TRUE }, { 0, n_requests, FALSE }, { 0, RT_NONE - 1, FALSE },
      };
      for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
        {
          RtEvent keep = rows[at];
          rows[at].event = cases[c].event;
          rows[at].request = cases[c].request;
          g_assert_cmpint (rt_cache_rows_ok (rows, 5, rt_hash64 (rows, size, 2), n_names, n_requests),
                           ==, cases[c].ok);
          /* a file without requests: any request index is past its end */
          if (cases[c].request != RT_NONE)
            g_assert_false (rt_cache_rows_ok (rows, 5, rt_hash64 (rows, size, 2), n_names, 0));
          rows[at] = keep;
        }
    }
  /* and a checksum that does not match is never taken */
  g_assert_false (rt_cache_rows_ok (rows, 5, rt_hash64 (rows, size, 2) ^ 1, n_names, n_requests));
}

/* RtLoadOptions.requests_of_one_step: the step in `data`, or none (G_MAXUINT). */
static gboolean
step_in_data (const RtTrace *t, gpointer data, guint *step_index)
{
  (void) t;
  *step_index = GPOINTER_TO_UINT (data);
  return *step_index != G_MAXUINT;
}

static RtTrace *
load_one_step (const char *path, const char *dir, guint step_index)
{
  return load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir,
                                           .requests_of_one_step = step_in_data,
                                           .requests_of_one_step_data = GUINT_TO_POINTER (step_index) });
}

/* From the cache, a command that reads one step's requests gets that step's copied, as a
 * full load has them, and no other file's (but those whose unterminated last piece is
 * read on); one that cannot name a step gets every one. */
static void
test_requests_of_one_step_only_from_the_cache (void)
{
  const char *fixtures[] = { "hand-v2", "damaged", "timeline" };
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture (fixtures[i]);
      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) full = load (path, 2);
      g_assert_cmpuint (full->steps->len, >=, 2);
      g_autoptr (RtTrace) first = load_one_step (path, dir, 0);   /* no cache yet: all read */
      g_assert_true (first->stats.cache_written);
      assert_same_tables (full, first, TRUE);
      for (guint si = 0; si < full->steps->len; si++)
        {
          g_autoptr (RtTrace) t = load_one_step (path, dir, si);
          g_assert_true (t->stats.cache_used);
          g_assert_false (t->stats.cache_written);
          const RtStep *st = rt_trace_step (t, si);
          guint64 taken = 0, left_out = 0;
          for (guint f = 0; f < t->files->len; f++)
            {
              const RtFile *tf = rt_trace_file (t, f), *ff = rt_trace_file (full, f);
              g_assert_cmpuint (tf->n_requests, ==, ff->n_requests);
              gboolean in_step = f >= st->first_file && f < st->first_file + st->n_files;
              if (tf->first_request == RT_NONE)
                {
                  g_assert_false (in_step);
                  left_out += tf->n_requests;
                  continue;
                }
              taken += tf->n_requests;
              for (guint r = 0; r < tf->n_requests; r++)
                {
                  const RtRequest *x = rt_trace_request (full, ff->first_request + r);
                  const RtRequest *y = rt_trace_request (t, tf->first_request + r);
                  g_assert_cmpstr (rt_request_id (full, x), ==, rt_request_id (t, y));
                  g_assert_cmpmem (&x->total_s, sizeof (double), &y->total_s, sizeof (double));
                  g_assert_cmpuint (y->file, ==, f);
                  g_assert_cmpint (y->step, ==, tf->step);
                  g_assert_cmpint (y->worker, ==, tf->worker);
                  g_assert_cmpuint (x->n_turns, ==, y->n_turns);
                  for (guint k = 0; k < x->n_turns; k++)
                    {
                      const RtTurnFigures *p = rt_trace_turn (full, x->first_turn + k);
                      const RtTurnFigures *q = rt_trace_turn (t, y->first_turn + k);
                      g_assert_cmpint (p->turn, ==, q->turn);   /* (their padding differs) */
                      g_assert_cmpmem (&p->total_s, sizeof (RtTurnFigures) - G_STRUCT_OFFSET (RtTurnFigures, total_s),
                                       &q->total_s, sizeof (RtTurnFigures) - G_STRUCT_OFFSET (RtTurnFigures, total_s));
                    }
                }
            }
          g_assert_cmpuint (files_requests (t), ==, taken);
          g_assert_cmpuint (taken + left_out, ==, full->n_requests);
          /* (the step's part of the cache's table, used in place, may hold the older copy of
           * the requests of a file read on since, which no file numbers) */
          g_assert_cmpuint (t->n_requests, <=, taken + t->n_cached_requests);
          if (si == 0 && g_strcmp0 (fixtures[i], "hand-v2") == 0)
            g_assert_cmpuint (left_out, >, 0);   /* the fixture's other step has requests */
        }
      g_autoptr (RtTrace) all = load_one_step (path, dir, G_MAXUINT);
      g_assert_true (all->stats.cache_used);
      assert_same_tables (full, all, TRUE);
      rt_test_remove_tree (dir);
    }
}

/* Flips one bit of the request ids of the cache in `dir`: the first id's first character, or
 * with `last` the last id's last character (before the tables since format 15). */
static void
damage_cache_id (const char *dir, gboolean last)
{
  g_autofree char *cache = cache_file_in (dir);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (cache, &data, &len, NULL));
  guint64 ids_at, ids_size;
  memcpy (&ids_at, data + 88, 8);   /* the header's ids_at and ids_size: the request ids */
  memcpy (&ids_size, data + 96, 8);
  g_assert_cmpuint (ids_size, >, 1);
  if (last)
    {
      g_assert_cmpuint (ids_at + ids_size, <=, len);
      g_assert_cmpint (data[ids_at + ids_size - 1], ==, '\0');
      data[ids_at + ids_size - 2] ^= 0x01;
    }
  else
    {
      g_assert_cmpuint (ids_at + ids_size, <=, len);
      data[ids_at] ^= 0x01;
    }
  g_assert_true (g_file_set_contents (cache, data, (gssize) len, NULL));
}

/* The requests of the step asked for are checked when they are taken, after the rest of the
 * trace came from the same cache: damaged, the cache goes and the experiment is read again,
 * with a new cache written, to the tables of a fresh load. */
static void
test_damaged_requests_of_one_step_read_everything_again (void)
{
  g_autofree char *path = fixture ("hand-v2");
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) full = load (path, 1);
  rt_trace_free (load_one_step (path, dir, 0));
  damage_cache_id (dir, FALSE);

  g_autoptr (RtTrace) t = load_one_step (path, dir, 0);
  g_assert_false (t->stats.cache_used);
  g_assert_cmpstr (t->stats.cache_rejected, ==, "damaged tables");
  g_assert_true (t->stats.cache_written);
  assert_same_tables (full, t, TRUE);
  g_autoptr (RtTrace) again = load_one_step (path, dir, 0);   /* the new cache serves */
  g_assert_true (again->stats.cache_used);
  g_assert_null (again->stats.cache_rejected);
  rt_test_remove_tree (dir);
}

static RtTrace *
load_ids_unread (const char *path, const char *dir)
{
  return load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir, .reads = NO_TURNS & ~(RT_READS_REQUEST_IDS | RT_READS_SOME_IDS) });
}

/* A command that reads no request id (nor turn) does not check those of the cache: damaged
 * ids leave it the cache and every figure of the requests; one that reads them finds the
 * damage, and reads the experiment again. */
static void
test_unread_request_ids_are_not_checked (void)
{
  g_autofree char *path = fixture ("hand-v2");
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) full = load (path, 1);
  rt_trace_free (load_ids_unread (path, dir));
  damage_cache_id (dir, FALSE);

  g_autoptr (RtTrace) lean = load_ids_unread (path, dir);
  g_assert_true (lean->stats.cache_used);
  g_assert_cmpuint (lean->n_requests, ==, full->n_requests);
  for (guint f = 0; f < full->files->len; f++)
    for (guint r = 0; r < rt_trace_file (full, f)->n_requests; r++)
      {
        const RtRequest *x = rt_trace_request (full, rt_trace_file (full, f)->first_request + r);
        const RtRequest *y = rt_trace_request (lean, rt_trace_file (lean, f)->first_request + r);
        g_assert_cmpmem (&x->total_s, sizeof (double), &y->total_s, sizeof (double));
        g_assert_cmpint (x->complete, ==, y->complete);
        g_assert_cmpint (x->turns, ==, y->turns);
        g_assert_cmpuint (x->n_turns, ==, y->n_turns);
      }

  g_autoptr (RtTrace) t = load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir });
  g_assert_false (t->stats.cache_used);
  g_assert_cmpstr (t->stats.cache_rejected, ==, "damaged tables");
  assert_same_tables (full, t, TRUE);
  rt_test_remove_tree (dir);
}

/* Ids left unchecked by the command never reach a new cache: writing one (a file grew)
 * checks every table it copies from the old cache, and writes none from damaged ones. */
static void
test_unchecked_request_ids_never_reach_a_new_cache (void)
{
  g_autofree char *exp = g_dir_make_tmp ("rt-test-XXXXXX", NULL);
  g_autofree char *step = g_build_filename (exp, "step_1", NULL);
  g_assert_cmpint (g_mkdir (step, 0755), ==, 0);
  g_autofree char *w0 = g_build_filename (step, "worker_0.jsonl", NULL);
  g_autofree char *w1 = g_build_filename (step, "worker_1.jsonl", NULL);
  g_assert_true (g_file_set_contents (w0, cached_text, -1, NULL));
  g_assert_true (g_file_set_contents (w1, cached_text, -1, NULL));
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  rt_trace_free (load_ids_unread (exp, dir));
  damage_cache_id (dir, FALSE);   /* worker_0's request "a" */
  g_autofree char *grown = g_strconcat (cached_text, LINE ("request_start", "\"extra\": {\"request_id\": \"c\"}"), NULL);
  g_assert_true (g_file_set_contents (w1, grown, -1, NULL));

  g_autoptr (RtTrace) lean = load_ids_unread (exp, dir);
  g_assert_true (lean->stats.cache_used);
  g_assert_false (lean->stats.cache_written);   /* its tables were damaged */

  g_autoptr (RtTrace) t = load_with (exp, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir });
  const RtFile *f0 = rt_trace_file (t, 0);
  g_assert_cmpuint (f0->n_requests, ==, 2);
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, f0->first_request)), ==, "a");
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, f0->first_request + 1)), ==, "b");

  rt_test_remove_tree (dir);
  g_unlink (w0);
  g_unlink (w1);
  g_rmdir (step);
  g_rmdir (exp);
}

/* Each file's turns (RtFile.first_turn, n_turns) in `t` are `full`'s, and its requests'
 * turns in `full` are its turns, one request after another. */
static void
assert_file_turns (const RtTrace *full, const RtTrace *t)
{
  for (guint f = 0; f < full->files->len; f++)
    {
      const RtFile *a = rt_trace_file (full, f), *b = rt_trace_file (t, f);
      guint32 next = a->first_turn;
      for (guint r = 0; r < a->n_requests; r++)
        {
          const RtRequest *q = rt_trace_request (full, a->first_request + r);
          g_assert_cmpuint (q->first_turn, ==, next);
          next += q->n_turns;
        }
      g_assert_cmpuint (next, ==, a->first_turn + a->n_turns);
      g_assert_cmpuint (a->n_turns, ==, b->n_turns);
      for (guint k = 0; k < a->n_turns; k++)
        {
          const RtTurnFigures *x = rt_trace_turn (full, a->first_turn + k);
          const RtTurnFigures *y = rt_trace_turn (t, b->first_turn + k);
          g_assert_cmpint (x->turn, ==, y->turn);
          g_assert_cmpmem (&x->total_s, sizeof (RtTurnFigures) - G_STRUCT_OFFSET (RtTurnFigures, total_s),
                           &y->total_s, sizeof (RtTurnFigures) - G_STRUCT_OFFSET (RtTurnFigures, total_s));
        }
    }
}

/* A command that reads turns but no request (rt-turns) gets every file's turns without the
 * request table, checked: damaged turns in the cache send it back to the files. */
static void
test_turns_by_file_without_requests (void)
{
  const char *fixtures[] = { "hand-v2", "damaged", "timeline", "findings/yes" };
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture (fixtures[i]);
      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) full = load (path, 2);
      assert_file_turns (full, full);
      g_autoptr (RtTrace) first = load_lean (path, dir);
      assert_file_turns (full, first);
      g_autoptr (RtTrace) lean = load_lean (path, dir);
      g_assert_true (lean->stats.cache_used);
      assert_file_turns (full, lean);
      g_autoptr (RtTrace) cached = load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir });
      g_assert_true (cached->stats.cache_used);
      assert_file_turns (full, cached);
      rt_test_remove_tree (dir);
    }

  /* a turn's figures damaged (found by its total and pre-processing time, which lie side
   * by side only in the turns table) */
  g_autofree char *path = fixture ("hand-v2");
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) full = load (path, 1);
  g_assert_cmpuint (rt_trace_n_turns (full), >, 0);
  const RtTurnFigures *tf = rt_trace_turn (full, 0);
  rt_trace_free (load_lean (path, dir));
  g_autofree char *cache = cache_file_in (dir);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (cache, &data, &len, NULL));
  guint64 tables_at;
  memcpy (&tables_at, data + 48, 8);
  gsize hit = 0;
  for (gsize at = tables_at; hit == 0 && at + 2 * sizeof (double) <= len; at++)
    if (memcmp (data + at, &tf->total_s, 2 * sizeof (double)) == 0)
      hit = at;
  g_assert_cmpuint (hit, >, 0);
  data[hit] ^= 0x01;
  g_assert_true (g_file_set_contents (cache, data, (gssize) len, NULL));
  g_autoptr (RtTrace) t = load_lean (path, dir);
  g_assert_false (t->stats.cache_used);
  g_assert_cmpstr (t->stats.cache_rejected, ==, "damaged tables");
  assert_file_turns (full, t);
  g_unlink (cache);
  g_rmdir (dir);
}

/* Rows given back after use (rt_trace_file_events_done) read the same when asked for again:
 * from the cache's mapping, and from a load's own memory, which keeps them. */
static void
test_rows_given_back_read_the_same_again (void)
{
  g_autoptr (GString) text = g_string_new (NULL);
  for (int i = 0; i < 3000; i++)   /* rows over several pages */
    g_string_append_printf (text, LINE ("turn_engine_call", "\"duration_sec\": %d.25, \"extra\": "
                                        "{\"request_id\": \"r%d\", \"turn\": 0}"), i, i);
  g_autofree char *exp = make_experiment (text->str, text->len);
  g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = 100, .cache_dir = cache_dir };
  for (int run = 0; run < 2; run++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RtTrace) t = rt_trace_load (exp, &opts, &error);
      g_assert_no_error (error);
      g_assert_true (run == 0 ? t->stats.cache_written : t->stats.cache_used);
      guint n = rt_trace_file (t, 0)->n_events;
      g_assert_cmpuint (n, ==, 3000);
      g_autofree RtEvent *before = g_memdup2 (rt_trace_file_events (t, 0), n * sizeof (RtEvent));
      rt_trace_file_events_done (t, 0);
      g_assert_cmpmem (rt_trace_file_events (t, 0), n * sizeof (RtEvent), before, n * sizeof (RtEvent));
      g_assert_cmpfloat (rt_trace_file_events (t, 0)[2999].duration_s, ==, 2999.25);
    }
  g_autofree char *cache = cache_file_in (cache_dir);
  g_unlink (cache);
  remove_experiment (exp);
  g_rmdir (cache_dir);
}

static void
test_damaged_rows_are_read_again_to_a_fresh_loads_rows (void)
{
  g_autofree char *exp = make_experiment (cached_text, sizeof cached_text - 1);
  g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) cached = load_over_damaged_rows (exp, cache_dir);
  g_autoptr (RtTrace) fresh = load (exp, 1);
  const RtFile *f = rt_trace_file (fresh, 0);
  g_assert_cmpuint (rt_trace_file (cached, 0)->n_events, ==, f->n_events);
  g_assert_cmpmem (rt_trace_file_events (cached, 0), f->n_events * sizeof (RtEvent),
                   rt_trace_file_events (fresh, 0), f->n_events * sizeof (RtEvent));
  /* the damaged cache is gone: the next run writes a good one */
  g_autofree char *left = cache_file_in (cache_dir);
  g_assert_null (left);
  remove_experiment (exp);
  g_rmdir (cache_dir);
}

/* Runs the test in a subprocess, which must pass and say that it read a damaged file again
 * (stderr matching `said`), once. */
static void
run_in_subprocess_reading_again_once (const char *said)
{
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stderr (said);
  g_test_trap_assert_stderr_unmatched ("*is damaged; reading*is damaged; reading*");
}

/* Threads that ask for a file's damaged rows at once: started together, each records
 * what it was given. */
typedef struct {
  const RtTrace *t;
  gint *go;
  const RtEvent *rows;
} RowsAsker;

static gpointer
ask_for_rows (gpointer data)
{
  RowsAsker *a = data;
  while (!g_atomic_int_get (a->go))
    ;
  a->rows = rt_trace_file_events (a->t, 0);
  return NULL;
}

#define ROWS_ASKERS 8

/* Analyses run on several threads (rt-report's do): a file whose cached rows fail their
 * check when several ask for them at once is read again once, and every thread is given
 * the same rows, a fresh load's. */
static void
test_damaged_rows_asked_from_threads_are_read_again_once (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *exp = make_experiment (cached_text, sizeof cached_text - 1);
      g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) cached = load_over_damaged_rows (exp, cache_dir);
      g_autoptr (RtTrace) fresh = load (exp, 1);
      gint go = 0;
      RowsAsker askers[ROWS_ASKERS];
      GThread *threads[ROWS_ASKERS];
      for (guint i = 0; i < ROWS_ASKERS; i++)
        {
          askers[i] = (RowsAsker) { cached, &go, NULL };
          threads[i] = g_thread_new ("rows", ask_for_rows, &askers[i]);
        }
      g_atomic_int_set (&go, 1);
      for (guint i = 0; i < ROWS_ASKERS; i++)
        g_thread_join (threads[i]);
      const RtFile *f = rt_trace_file (fresh, 0);
      g_assert_cmpuint (rt_trace_file (cached, 0)->n_events, ==, f->n_events);
      for (guint i = 0; i < ROWS_ASKERS; i++)
        {
          g_assert_true (askers[i].rows == askers[0].rows);
          g_assert_cmpmem (askers[i].rows, f->n_events * sizeof (RtEvent), rt_trace_file_events (fresh, 0),
                           f->n_events * sizeof (RtEvent));
        }
      remove_experiment (exp);
      g_rmdir (cache_dir);
      return;
    }
  run_in_subprocess_reading_again_once ("*is damaged; reading*");
}

/* A copy of fixtures/hand-v2 (two steps, three files, turn_timings in each) whose last file
 * ends in an unterminated piece, as a running job's does: a cached load reads that file on.
 * The piece: the beginning of a line (RUNNING_PARTIAL), or a whole line without its newline,
 * a rerun's complete line for a request of the file (RUNNING_RERUN) or a new request's start
 * (RUNNING_NEW_REQUEST). */
static char *
copy_hand_v2_running (guint last_piece)
{
  static const char *const files[] = { "step_1/worker_0.jsonl", "step_1/worker_1.jsonl", "step_2/worker_0.jsonl" };
  g_autofree char *from = fixture ("hand-v2");
  char *dir = g_dir_make_tmp ("rt-test-XXXXXX", NULL);
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *src = g_build_filename (from, files[i], NULL);
      g_autofree char *dst = g_build_filename (dir, files[i], NULL);
      g_autofree char *folder = g_path_get_dirname (dst);
      g_autofree char *text = NULL;
      gsize len;
      g_assert_cmpint (g_mkdir_with_parents (folder, 0755), ==, 0);
      g_assert_true (g_file_get_contents (src, &text, &len, NULL));
      g_autoptr (GString) content = g_string_new_len (text, (gssize) len);
      if (i == G_N_ELEMENTS (files) - 1 && last_piece == RUNNING_NEW_REQUEST)
        g_string_append (content, "{\"timestamp\": \"2025-01-01T10:01:12.5\", \"event\": \"request_start\", "
                                  "\"extra\": {\"request_id\": \"z\"}, \"workid\": 0, \"step\": 2}");
      else if (i == G_N_ELEMENTS (files) - 1 && last_piece == RUNNING_RERUN)
        {
          /* its request's complete line again, as a rerun's, with a longer duration: it changes
           * that request and adds turns */
          const char *line = strstr (content->str, "{\"timestamp\": \"2025-01-01T10:01:11\", \"event\": \"async_rollout_request_complete\"");
          g_assert_nonnull (line);
          g_autofree char *again = g_strndup (line, strchr (line, '\n') - line);
          char *duration = strstr (again, "\"duration_sec\": 10.0");
          g_assert_nonnull (duration);
          duration[strlen ("\"duration_sec\": 1")] = '1';
          g_string_append (content, again);
        }
      else if (i == G_N_ELEMENTS (files) - 1)
        g_string_append (content, "{\"timestamp\": \"2025-06-10T09:");
      g_assert_true (g_file_set_contents (dst, content->str, (gssize) content->len, NULL));
    }
  return dir;
}

static void
remove_hand_v2_copy (const char *dir)
{
  static const char *const files[] = { "step_1/worker_0.jsonl", "step_1/worker_1.jsonl", "step_2/worker_0.jsonl",
                                       "step_1", "step_2" };
  for (guint i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      g_remove (path);
    }
  g_rmdir (dir);
}

/* The turns analysis of `t` is that of `fresh`, bit for bit. */
static void
assert_same_turns (const RtTrace *t, const RtTrace *fresh)
{
  g_autoptr (RtTurns) got = rt_turns_analyse (t, NULL);
  g_autoptr (RtTurns) want = rt_turns_analyse (fresh, NULL);
  g_assert_cmpuint (got->turns->len, ==, want->turns->len);
  g_assert_cmpuint (want->turns->len, >, 0);
  g_assert_cmpmem (got->turns->data, got->turns->len * sizeof (RtTurnsRow), want->turns->data,
                   want->turns->len * sizeof (RtTurnsRow));
}

/* ...and each request's engine time too. */
static void
assert_same_turn_answers (const RtTrace *t, const RtTrace *fresh)
{
  assert_same_turns (t, fresh);
  g_assert_cmpuint (t->files->len, ==, fresh->files->len);
  for (guint i = 0; i < fresh->files->len; i++)
    {
      const RtFile *f = rt_trace_file (t, i), *w = rt_trace_file (fresh, i);
      g_assert_cmpuint (f->n_requests, ==, w->n_requests);
      for (guint r = 0; r < w->n_requests; r++)
        {
          const RtRequest *q = rt_trace_request (fresh, w->first_request + r);
          double want_s = rt_turns_engine_s (q->n_turns ? rt_trace_turn (fresh, q->first_turn) : NULL, q->n_turns);
          double got_s = rt_trace_request_engine_s (t, rt_trace_request (t, f->first_request + r));
          g_assert_cmpmem (&got_s, sizeof got_s, &want_s, sizeof want_s);
        }
    }
}

/* Flips a byte of part `part` of the cache in `dir` (0: requests, turns, problems, engine
 * times, files, names, turn sums, in the cache's order), `at` bytes into it. */
static void
damage_cache_part (const char *dir, guint part, gsize at)
{
  g_autofree char *cache = cache_file_in (dir);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (cache, &data, &len, NULL));
  guint64 tables_at, n[4];
  guint32 n_names;
  memcpy (&tables_at, data + 48, 8);
  memcpy (&n_names, data + 20, 4);
  memcpy (n, data + 112, sizeof n);   /* files, requests, turns, problems */
  const gsize sizes[] = { n[1] * sizeof (RtRequest), n[2] * sizeof (RtTurnFigures), n[3] * 16,
                          n[1] * sizeof (double),
                          n[0] * 456,   /* a CacheFile: 320 bytes, and 136 of its rollouts since format 11 */
                          (gsize) n_names * 8 };
  gsize offset = tables_at + at;
  for (guint p = 0; p < part; p++)
    offset += sizes[p];
  g_assert_cmpuint (offset, <, len);
  data[offset] ^= 0x40;
  g_assert_true (g_file_set_contents (cache, data, (gssize) len, NULL));
}

/* No turns (a request without any) may come as NULL: nothing is added, and no pointer is
 * made from NULL (clang's UBSan stopped the cache writer's fuzz seeds on NULL + 0). */
static void
test_no_turns_sum_to_nothing (void)
{
  g_autoptr (GArray) sums = g_array_new (FALSE, TRUE, sizeof (RtTurnSums));
  rt_turn_sums_add (sums, NULL, 0);
  g_assert_cmpuint (sums->len, ==, 0);
  g_assert_cmpfloat (rt_turns_engine_s (NULL, 0), ==, 0.0);
  const RtTurnFigures two[2] = { { .turn = 1, .engine_call_s = 2.5, .total_s = NAN, .pre_process_s = 1,
                                   .post_process_s = 1, .tool_parsing_s = 1 },
                                 { .turn = -1, .engine_call_s = NAN } };
  rt_turn_sums_add (sums, two, 2);
  g_assert_cmpuint (sums->len, ==, 2);
  const RtTurnSums *s = &g_array_index (sums, RtTurnSums, 1);
  g_assert_cmpuint (s->count, ==, 1);
  g_assert_cmpuint (s->missing[RT_TURN_TOTAL], ==, 1);
  g_assert_cmpfloat (s->sum[RT_TURN_ENGINE_CALL], ==, 2.5);
  g_assert_cmpfloat (rt_turns_engine_s (two, 2), ==, 2.5);
}

/* A command that reads the turns only summed (rt-report, rt-turns) takes the cache's turn sums
 * of the steps whose files are all as cached, and the engine times of the requests, and
 * leaves their turns unchecked: its answers are a fresh load's, even when those turns are
 * damaged; a command that reads them turns such a cache away. */
static void
test_turn_sums_stand_in_for_the_turns (void)
{
  g_autofree char *exp = copy_hand_v2_running (RUNNING_PARTIAL);
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) fresh = load (exp, 1);
  rt_trace_free (load_with (exp, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir }));
  RtLoadOptions summed = { .n_threads = 1, .cache_dir = dir, .reads = RT_READS_ALL & ~RT_READS_TURNS };
  {
    g_autoptr (RtTrace) t = load_with (exp, summed);
    g_assert_true (t->stats.cache_used);
    g_assert_cmpuint (t->stats.files_parsed, ==, 0);   /* the last one's last piece read on */
    guint n, n_files;
    const RtTurnSums *ready = rt_trace_turn_sums_ready (t, &n, &n_files);
    g_assert_nonnull (ready);
    g_assert_cmpuint (n_files, ==, 2);                  /* step 1's */
    g_autoptr (GArray) want = g_array_new (FALSE, TRUE, sizeof (RtTurnSums));
    for (guint i = 0; i < n_files; i++)
      rt_turn_sums_add (want, rt_trace_turn (fresh, rt_trace_file (fresh, i)->first_turn),
                        rt_trace_file (fresh, i)->n_turns);
    g_assert_cmpuint (n, ==, want->len);
    g_assert_cmpmem (ready, n * sizeof *ready, want->data, want->len * sizeof (RtTurnSums));
    assert_same_turn_answers (t, fresh);
  }
  /* the first file's first turn damaged: never read by the one, found by the other */
  damage_cache_part (dir, 1, G_STRUCT_OFFSET (RtTurnFigures, engine_call_s) + 7);
  {
    g_autoptr (RtTrace) t = load_with (exp, summed);
    g_assert_true (t->stats.cache_used);
    assert_same_turn_answers (t, fresh);
  }
  {
    /* (a caller that reads no request, as rt-turns, neither) */
    RtLoadOptions no_requests = summed;
    no_requests.reads &= ~RT_READS_REQUESTS;
    g_autoptr (RtTrace) t = load_with (exp, no_requests);
    g_assert_true (t->stats.cache_used);
    g_assert_cmpuint (rt_trace_file (t, 0)->first_request, ==, RT_NONE);
    assert_same_turns (t, fresh);
  }
  {
    g_autoptr (RtTrace) t = load_with (exp, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir });
    g_assert_cmpstr (t->stats.cache_rejected, ==, "damaged tables");
    assert_same_turn_answers (t, fresh);
  }
  rt_test_remove_tree (dir);
  remove_hand_v2_copy (exp);
}

/* Damaged turn sums are not used: the turns are checked and added up instead. */
static void
test_damaged_turn_sums_fall_back_to_the_turns (void)
{
  g_autofree char *exp = copy_hand_v2_running (RUNNING_PARTIAL);
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) fresh = load (exp, 1);
  rt_trace_free (load_with (exp, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir }));
  damage_cache_part (dir, 6, G_STRUCT_OFFSET (RtTurnSums, sum) + 7);
  g_autoptr (RtTrace) t = load_with (exp, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir,
                                                            .reads = RT_READS_ALL & ~RT_READS_TURNS });
  g_assert_true (t->stats.cache_used);
  guint n, n_files;
  g_assert_null (rt_trace_turn_sums_ready (t, &n, &n_files));
  assert_same_turn_answers (t, fresh);
  rt_test_remove_tree (dir);
  remove_hand_v2_copy (exp);
}

/* Every request's id of `t` is the fresh load's, asked for by `n_threads` threads at once. */
typedef struct {
  const RtTrace *t, *fresh;
  gint *go;
  gboolean same;
} IdsAsker;

static gpointer
ask_for_ids (gpointer data)
{
  IdsAsker *a = data;
  while (!g_atomic_int_get (a->go))
    ;
  a->same = a->t->files->len == a->fresh->files->len;
  for (guint i = 0; a->same && i < a->fresh->files->len; i++)
    {
      const RtFile *f = rt_trace_file (a->t, i), *w = rt_trace_file (a->fresh, i);
      a->same = f->n_requests == w->n_requests;
      for (guint r = 0; a->same && r < w->n_requests; r++)
        a->same = strcmp (rt_request_id (a->t, rt_trace_request (a->t, f->first_request + r)),
                          rt_request_id (a->fresh, rt_trace_request (a->fresh, w->first_request + r))) == 0;
    }
  return NULL;
}

static void
assert_same_ids (const RtTrace *t, const RtTrace *fresh, guint n_threads)
{
  gint go = 0;
  IdsAsker askers[ROWS_ASKERS];
  GThread *threads[ROWS_ASKERS];
  g_assert_cmpuint (n_threads, <=, ROWS_ASKERS);
  for (guint i = 0; i < n_threads; i++)
    {
      askers[i] = (IdsAsker) { t, fresh, &go, FALSE };
      threads[i] = g_thread_new ("ids", ask_for_ids, &askers[i]);
    }
  g_atomic_int_set (&go, 1);
  for (guint i = 0; i < n_threads; i++)
    {
      g_thread_join (threads[i]);
      g_assert_true (askers[i].same);
    }
}

/* A command that reads few ids (rt-report) has a cache's ids of a file checked when one is
 * first read: a load over damaged ids uses the cache, and each id read is the fresh load's,
 * the damaged file's read again from the file, once, however many threads ask at once; a
 * command that reads every id turns such a cache away while loading. */
static void
test_ids_checked_when_read (void)
{
  if (g_test_subprocess ())
    {
      g_autofree char *path = fixture ("hand-v2");
      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) fresh = load (path, 1);
      RtLoadOptions when_read = { .n_threads = 1, .cache_dir = dir, .reads = RT_READS_ALL & ~RT_READS_REQUEST_IDS };
      rt_trace_free (load_with (path, when_read));
      {
        g_autoptr (RtTrace) t = load_with (path, when_read);   /* a good cache */
        g_assert_true (t->stats.cache_used);
        assert_same_ids (t, fresh, 1);
      }
      damage_cache_id (dir, FALSE);   /* worker_0's request "a" */
      {
        g_autoptr (RtTrace) t = load_with (path, when_read);
        g_assert_true (t->stats.cache_used);
        g_assert_cmpuint (t->stats.files_cached, ==, fresh->files->len);
        assert_same_ids (t, fresh, ROWS_ASKERS);
      }
      g_autofree char *gone = cache_file_in (dir);   /* the damaged cache goes */
      g_assert_null (gone);
      rt_trace_free (load_with (path, when_read));
      damage_cache_id (dir, FALSE);
      {
        g_autoptr (RtTrace) t = load_with (path, (RtLoadOptions) { .n_threads = 1, .cache_dir = dir });
        g_assert_cmpstr (t->stats.cache_rejected, ==, "damaged tables");
        assert_same_ids (t, fresh, 1);
      }
      rt_test_remove_tree (dir);
      return;
    }
  run_in_subprocess_reading_again_once ("*is damaged; reading step_1/worker_0.jsonl again*");
}

static void
test_a_file_changed_under_damaged_rows_is_no_crash (void)
{
  /* The rows fail their check after the file's requests were taken from the cache,
   * and the file no longer holds what was cached (fewer lines, another event name,
   * more requests): the rows given stay within the tables the analyzers hold. It
   * used to end the process (g_error). */
  g_autofree char *exp = make_experiment (cached_text, sizeof cached_text - 1);
  g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) t = load_over_damaged_rows (exp, cache_dir);
  guint n_names = rt_event_registry_size (t->registry);
  const RtFile *f = rt_trace_file (t, 0);
  guint32 n_requests = f->n_requests, n_events = f->n_events;
  g_assert_cmpuint (n_requests, ==, 2);
  static const char changed[] =
    LINE ("brand_new_event", "\"duration_sec\": 1.0, \"extra\": {\"request_id\": \"x\"}")
    LINE ("turn_engine_call", "\"duration_sec\": 2.5, \"extra\": {\"request_id\": \"y\", \"turn\": 0}")
    LINE ("turn_engine_call", "\"duration_sec\": 4.5, \"extra\": {\"request_id\": \"z\", \"turn\": 0}");
  g_autofree char *file = g_build_filename (exp, "step_1", "worker_0.jsonl", NULL);
  g_assert_true (g_file_set_contents (file, changed, sizeof changed - 1, NULL));

  const RtEvent *rows = rt_trace_file_events (t, 0);
  g_assert_cmpuint (f->n_events, <=, n_events);
  g_assert_cmpuint (f->n_events, >, 0);
  for (guint i = 0; i < f->n_events; i++)
    {
      g_assert_cmpuint (rows[i].event, <, n_names);
      g_assert_true (rows[i].request == RT_NONE || rows[i].request < n_requests);
    }
  g_assert_true (t->priv->files[0].uncacheable);
  remove_experiment (exp);
  g_rmdir (cache_dir);
}

static void
test_bad_folders_give_one_clear_error (void)
{
  g_autofree char *hand = fixture ("hand-v2");
  g_autofree char *file = g_build_filename (hand, "step_1", "worker_0.jsonl", NULL);
  g_autofree char *empty = g_dir_make_tmp ("rt-empty-XXXXXX", NULL);
  const char *paths[] = { "/nonexistent/rolltrace/exp", file, empty };
  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (RtTrace) t = rt_trace_load (paths[i], NULL, &error);
      g_assert_null (t);
      g_assert_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT);
      g_assert_nonnull (strstr (error->message, paths[i]));
    }
  g_rmdir (empty);
}

/* A load from a cache that holds every file, in order, with nothing to read but unterminated
 * last pieces, reads the requests where the cache keeps them (no copy): the same requests,
 * ids and finish reasons as a full load, those of a file read on in the load's own table,
 * numbered after the cache's. */
static void
test_requests_in_place_from_the_cache (void)
{
  const char *fixtures[] = { "hand-v2", "damaged", "timeline" };
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autofree char *path = fixture (fixtures[i]);
      g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) full = load (path, 2);
      g_autoptr (RtTrace) first = load_threads_cache (path, 2, dir);
      g_assert_true (first->stats.cache_written);
      g_assert_cmpuint (first->n_cached_requests, ==, 0);   /* all read: its own table */
      g_assert_cmpuint (first->n_requests, ==, full->n_requests);

      g_autoptr (RtTrace) t = load_threads_cache (path, 2, dir);
      g_assert_true (t->stats.cache_used);
      g_assert_false (t->stats.cache_written);
      g_assert_cmpuint (t->n_cached_requests, >, 0);
      guint64 own = 0, read_on = 0;
      for (guint f = 0; f < t->files->len; f++)
        {
          const RtFile *tf = rt_trace_file (t, f);
          if (tf->first_request >= t->n_cached_requests)
            {
              own += tf->n_requests;
              read_on++;
            }
          else   /* the whole range in the cache's table */
            g_assert_cmpuint ((guint64) tf->first_request + tf->n_requests, <=, t->n_cached_requests);
        }
      g_assert_cmpuint (t->n_requests - t->n_cached_requests, ==, own);
      g_assert_cmpuint (t->stats.files_cached, ==, t->files->len);   /* (those read on too) */
      if (g_strcmp0 (fixtures[i], "damaged") == 0)
        g_assert_cmpuint (read_on, >, 0);   /* its cut last line is read on */
      assert_same_tables (full, t, TRUE);

      rt_test_remove_tree (dir);
    }
}

static char *make_wide_experiment (guint n_steps);

/* How many pages of the file at `path` the page cache holds (mincore of a mapping of it). */
static gsize
file_pages_cached (const char *path)
{
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  struct stat st;
  g_assert_cmpint (fstat (fd, &st), ==, 0);
  const gsize page = (gsize) sysconf (_SC_PAGESIZE), n = ((gsize) st.st_size + page - 1) / page;
  void *map = mmap (NULL, (gsize) st.st_size, PROT_READ, MAP_SHARED, fd, 0);
  g_assert_true (map != MAP_FAILED);
  g_autofree unsigned char *in = g_new0 (unsigned char, n);
  g_assert_cmpint (mincore (map, (gsize) st.st_size, in), ==, 0);
  gsize cached = 0;
  for (gsize i = 0; i < n; i++)
    cached += in[i] & 1;
  munmap (map, (gsize) st.st_size);
  close (fd);
  return cached;
}

/* A tree larger than the memory (ROLLTRACE_DROP_READ=1 makes this small one so) gives each file's
 * pages back to the kernel once read (what it read of them): they would push out those still to
 * be read, and the cache's draft. The tables are those of a load that keeps them. */
static void
test_files_read_past_memory_are_not_kept_cached (void)
{
  g_autofree char *exp = make_wide_experiment (3);
  g_autoptr (RtTrace) kept = load (exp, 2);
  g_autofree char *file = g_build_filename (exp, rt_trace_file (kept, 0)->path, NULL);
  /* written back first: the kernel gives back clean pages only */
  int fd = open (file, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fsync (fd), ==, 0);
  close (fd);
  rt_trace_free (load (exp, 2));
  g_assert_cmpuint (file_pages_cached (file), >, 0);

  g_setenv ("ROLLTRACE_DROP_READ", "1", TRUE);
  g_autoptr (RtTrace) dropped = load (exp, 2);
  g_unsetenv ("ROLLTRACE_DROP_READ");
  g_assert_cmpuint (file_pages_cached (file), ==, 0);
  assert_same_tables (kept, dropped, TRUE);

  /* a file restored from the cache is read on from where the cache stopped, and only that is
   * given back: the pages before, which this load never asked for, stay (given back, a --watch
   * round would read every restored file from the disk again, for nothing) */
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autofree char *text = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (file, &text, &len, NULL));
  g_autoptr (GString) longer = g_string_new (NULL);
  while (longer->len < 3 * (gsize) sysconf (_SC_PAGESIZE))
    g_string_append_len (longer, text, (gssize) len);
  g_assert_true (g_file_set_contents (file, longer->str, (gssize) longer->len, NULL));
  rt_trace_free (load_threads_cache (exp, 2, dir));
  FILE *out = fopen (file, "a");
  g_assert_nonnull (out);
  fwrite (text, 1, strcspn (text, "\n") + 1, out);   /* its first line again */
  fflush (out);
  g_assert_cmpint (fsync (fileno (out)), ==, 0);
  fclose (out);
  g_autofree char *again = NULL;
  g_assert_true (g_file_get_contents (file, &again, NULL, NULL));   /* all in the page cache */
  gsize before = file_pages_cached (file);
  g_assert_cmpuint (before, >=, 3);
  g_setenv ("ROLLTRACE_DROP_READ", "1", TRUE);
  g_autoptr (RtTrace) resumed = load_threads_cache (exp, 2, dir);
  g_unsetenv ("ROLLTRACE_DROP_READ");
  g_assert_cmpuint (resumed->stats.files_resumed, ==, 1);
  g_assert_cmpuint (file_pages_cached (file), >=, before - 1);
  rt_test_remove_tree (dir);
  rt_test_remove_tree (exp);
}

/* ---- a delta beside the cache ----------------------------------------------------------- */


/* The cache file in `dir` (NULL: none), its delta's contents (NULL: none). */
static char *
delta_of (const char *dir)
{
  g_autofree char *cache = cache_file_in (dir);
  g_autofree char *delta = rt_cache_delta_path (cache);
  char *data = NULL;
  return g_file_get_contents (delta, &data, NULL, NULL) ? data : NULL;
}

static GBytes *
contents (const char *path)
{
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  return g_bytes_new_take (g_steal_pointer (&data), len);
}

/* Moves step folder `step` of `exp` out of it (into `exp`-STEP) or back. */
static void
move_step (const char *exp, guint step, gboolean back)
{
  g_autofree char *in = g_strdup_printf ("%s/step_%u", exp, step);
  g_autofree char *out = g_strdup_printf ("%s-%u", exp, step);
  g_assert_cmpint (g_rename (back ? out : in, back ? in : out), ==, 0);
}

/* `t`, from the cache in `dir`, holds what a fresh load of its experiment does: every table,
 * the turn answers, each step's sorted durations and every step's, also to a load that reads
 * the durations alone. */
static void
assert_delta_load_right (const RtTrace *t, const char *exp, const char *dir)
{
  g_autoptr (RtTrace) fresh = load (exp, 2);
  assert_same_tables (fresh, t, TRUE);
  assert_same_turn_answers (t, fresh);
  g_autoptr (RtTrace) lean = load_with (exp, (RtLoadOptions) { .n_threads = 2, .cache_dir = dir,
                                                               .reads = RT_READS_FILES | RT_READS_DURATIONS });
  g_autoptr (GArray) all = rt_samples_new ();
  for (guint si = 0; si < fresh->steps->len; si++)
    {
      g_autoptr (GArray) want = sorted_durations (fresh, si);
      g_array_append_vals (all, want->data, want->len);
      const RtTrace *both[] = { t, lean };
      for (guint k = 0; k < G_N_ELEMENTS (both); k++)
        {
          guint n;
          const double *got = rt_trace_step_sorted_durations (both[k], si, &n);
          g_autoptr (GArray) made = got == NULL ? sorted_durations (both[k], si) : NULL;
          g_assert_cmpmem (got != NULL ? got : (const double *) (void *) made->data,
                           (got != NULL ? n : made->len) * sizeof (double), want->data, want->len * sizeof (double));
        }
    }
  rt_sort_doubles ((double *) (void *) all->data, all->len);
  guint n;
  const double *got = rt_trace_all_sorted_durations (lean, &n);
  g_assert_nonnull (got);
  g_assert_cmpmem (got, n * sizeof (double), all->data, all->len * sizeof (double));
}

/* Steps appended to a cached experiment go to a delta beside the cache, which is left as it
 * is: a load reads them alone, takes the cache's files in place (no copy of its requests), and
 * the next one reads nothing; each answers as a fresh load. Two steps more are written to a new
 * delta, with the old one's; past an eighth of the cache's bytes, or once a cached file
 * changed, a new cache of every file is written and the delta goes. A delta that does not
 * extend the cache beside it is left out. */
static void
test_appended_steps_go_to_a_delta (void)
{
  g_autofree char *exp = make_wide_experiment (24);
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  for (guint st = 17; st < 24; st++)
    move_step (exp, st, FALSE);
  g_autoptr (RtTrace) first = load_threads_cache (exp, 2, dir);
  g_assert_true (first->stats.cache_written);
  g_autofree char *cache = cache_file_in (dir);
  g_autofree char *delta_path = rt_cache_delta_path (cache);
  g_autoptr (GBytes) base = contents (cache);
  g_assert_null (delta_of (dir));

  /* one step: a delta of its two files (beside the cache's 34, under an eighth) */
  move_step (exp, 17, TRUE);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_assert_cmpuint (t->stats.files_parsed, ==, 2);
    g_assert_cmpuint (t->n_cached_requests, >, 0);   /* the cache's in place, the step's after */
    g_autoptr (GBytes) now = contents (cache);
    g_assert_true (g_bytes_equal (now, base));
    g_assert_true (g_file_test (delta_path, G_FILE_TEST_IS_REGULAR));
    assert_delta_load_right (t, exp, dir);
  }
  g_autoptr (GBytes) delta1 = contents (delta_path);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_used);
    g_assert_false (t->stats.cache_written);
    g_assert_cmpuint (t->stats.files_parsed + t->stats.files_resumed, ==, 0);
    g_assert_cmpuint (t->stats.files_cached, ==, t->files->len);
    g_assert_cmpuint (t->n_cached_requests, >, 0);
    assert_delta_load_right (t, exp, dir);
    /* the delta keeps the durations of its own step, not every step's again (it stays the
     * size of what was appended): the base's run and its own, which the reader merges */
    const double *runs[2];
    guint lens[2], n_step, n_all;
    g_assert_cmpuint (rt_cache_step_durations_runs (t->priv->cache, -1, t->files->len, runs, lens), ==, 2);
    g_assert_nonnull (rt_trace_step_sorted_durations (t, t->steps->len - 1, &n_step));
    g_assert_nonnull (rt_trace_all_sorted_durations (t, &n_all));
    g_assert_cmpuint (lens[1], ==, n_step);
    g_assert_cmpuint (lens[0] + lens[1], ==, n_all);
  }

  /* one more: a new delta of both steps, the cache as it was */
  move_step (exp, 18, TRUE);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_assert_cmpuint (t->stats.files_parsed, ==, 2);
    g_autoptr (GBytes) now = contents (cache);
    g_assert_true (g_bytes_equal (now, base));
    g_autoptr (GBytes) delta2 = contents (delta_path);
    g_assert_cmpuint (g_bytes_get_size (delta2), >, g_bytes_get_size (delta1));
    assert_delta_load_right (t, exp, dir);
  }

  /* the delta before (of this cache, without the last step) put back: that step is read again,
   * and the delta written again as it was */
  g_autoptr (GBytes) delta2 = contents (delta_path);
  g_assert_true (g_file_set_contents (delta_path, g_bytes_get_data (delta1, NULL),
                                      (gssize) g_bytes_get_size (delta1), NULL));
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_assert_cmpuint (t->stats.files_parsed, ==, 2);
    g_autoptr (GBytes) again = contents (delta_path);
    g_assert_cmpuint (g_bytes_get_size (again), ==, g_bytes_get_size (delta2));
    assert_delta_load_right (t, exp, dir);
  }

  /* the last step removed: a delta of the one before alone; both removed: the delta goes, the
   * cache as it was (not rewritten); both back: a delta again */
  move_step (exp, 18, FALSE);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_assert_cmpuint (t->stats.files_parsed, ==, 0);
    g_autoptr (GBytes) again = contents (delta_path);
    g_assert_cmpuint (g_bytes_get_size (again), <, g_bytes_get_size (delta2));
    assert_delta_load_right (t, exp, dir);
  }
  move_step (exp, 17, FALSE);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_assert_false (g_file_test (delta_path, G_FILE_TEST_EXISTS));
    g_autoptr (GBytes) now = contents (cache);
    g_assert_true (g_bytes_equal (now, base));
    assert_delta_load_right (t, exp, dir);
  }
  move_step (exp, 17, TRUE);
  move_step (exp, 18, TRUE);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_autoptr (GBytes) now = contents (cache);
    g_assert_true (g_bytes_equal (now, base));
    assert_delta_load_right (t, exp, dir);
  }

  /* five more steps: 14 files past the cache's 34, more than an eighth: a new cache */
  for (guint st = 19; st < 24; st++)
    move_step (exp, st, TRUE);
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_written);
    g_autoptr (GBytes) now = contents (cache);
    g_assert_false (g_bytes_equal (now, base));
    g_assert_false (g_file_test (delta_path, G_FILE_TEST_EXISTS));
    assert_delta_load_right (t, exp, dir);
  }

  /* the old delta put back beside the new cache names the cache before: left out */
  g_assert_true (g_file_set_contents (delta_path, g_bytes_get_data (delta2, NULL),
                                      (gssize) g_bytes_get_size (delta2), NULL));
  {
    g_autoptr (RtTrace) t = load_threads_cache (exp, 2, dir);
    g_assert_true (t->stats.cache_used);
    g_assert_false (t->stats.cache_written);
    g_assert_cmpuint (t->stats.files_parsed + t->stats.files_resumed, ==, 0);
    g_assert_cmpuint (t->stats.files_cached, ==, t->files->len);
    assert_delta_load_right (t, exp, dir);
  }
  rt_test_remove_tree (dir);
  rt_test_remove_tree (exp);
}

/* The last access time of `path`, in seconds. */
static gint64
atime_of (const char *path)
{
  GStatBuf st;
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  return (gint64) st.st_atime;
}

/* A load given the cache a load before had open (a --watch round) uses it again while it is
 * still the file on disk, its checks done, and its delta while that is still the file beside
 * it (else the delta there opened); both are marked used again (their atime, which the
 * folder's size limit reads); a cache replaced since is opened anew; one given to a load that
 * cannot use it is closed. The tables are a fresh load's every time. */
static void
test_a_kept_cache_is_used_again (void)
{
  g_autofree char *exp = make_wide_experiment (12);
  g_autofree char *dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  move_step (exp, 11, FALSE);
  rt_trace_free (load_threads_cache (exp, 2, dir));
  RtTrace *t = load_threads_cache (exp, 2, dir);
  struct _RtCacheMap *kept = rt_trace_take_cache (t);
  g_assert_nonnull (kept);
  rt_trace_free (t);
  const struct _RtCacheMap *delta_before = NULL;
  for (guint round = 0; round < 5; round++)
    {
      if (round == 1)
        move_step (exp, 11, TRUE);   /* a delta written, the base kept */
      if (round == 3)
        {
          /* nothing changed: the delta of the round before kept; both marked used now */
          g_autofree char *cache = cache_file_in (dir);
          g_autofree char *delta = rt_cache_delta_path (cache);
          const struct timespec long_ago[2] = { { .tv_sec = 1000000000 }, { .tv_nsec = UTIME_OMIT } };
          g_assert_cmpint (utimensat (AT_FDCWD, cache, long_ago, 0), ==, 0);
          g_assert_cmpint (utimensat (AT_FDCWD, delta, long_ago, 0), ==, 0);
          g_assert_cmpint (atime_of (cache), ==, 1000000000);
        }
      if (round == 4)
        {
          /* the cache replaced (the old file removed, a new one written): opened anew */
          g_autofree char *cache = cache_file_in (dir);
          g_assert_cmpint (g_unlink (cache), ==, 0);
          rt_trace_free (load_threads_cache (exp, 2, dir));
        }
      t = load_with (exp, (RtLoadOptions) { .n_threads = 2, .cache_dir = dir, .kept_cache = kept });
      if (round == 3)
        {
          /* (before anything else opens them) */
          g_autofree char *cache = cache_file_in (dir);
          g_autofree char *delta = rt_cache_delta_path (cache);
          g_assert_cmpint (atime_of (cache), >, 1000000000);
          g_assert_cmpint (atime_of (delta), >, 1000000000);
        }
      g_assert_true (t->stats.cache_used);
      g_assert_cmpuint (t->stats.files_parsed, ==, round == 1 ? 2 : 0);
      assert_delta_load_right (t, exp, dir);
      struct _RtCacheMap *again = rt_trace_take_cache (t);
      if (round < 4)
        g_assert_true (again == kept);
      if (round == 2)
        g_assert_nonnull (rt_cache_delta (again));
      if (round == 3)
        g_assert_true (rt_cache_delta (again) == delta_before);
      delta_before = rt_cache_delta (again);
      kept = again;
      rt_trace_free (t);
    }
  /* given to a load without a cache, or of no experiment: closed (the leak check sees it) */
  t = load_with (exp, (RtLoadOptions) { .n_threads = 2, .kept_cache = kept });
  g_assert_false (t->stats.cache_used);
  kept = rt_trace_take_cache (t);
  g_assert_null (kept);
  rt_trace_free (t);
  t = load_threads_cache (exp, 2, dir);
  kept = rt_trace_take_cache (t);
  rt_trace_free (t);
  g_autofree char *none = g_build_filename (exp, "none", NULL);
  g_autoptr (GError) error = NULL;
  g_assert_null (rt_trace_load (none, &(RtLoadOptions) { .cache_dir = dir, .kept_cache = kept }, &error));
  g_assert_error (error, RT_ERROR, RT_ERROR_NO_EXPERIMENT);
  rt_test_remove_tree (dir);
  rt_test_remove_tree (exp);
}

/* ---- discovery and the checks of the cache on two threads -------------------------------- */

/* A new folder EXP (in `root`, made for it) of `n_steps` steps step_0 ..., each with the two
 * worker files of fixtures/hand-v2/step_1. */
static char *
make_wide_experiment (guint n_steps)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("rt-wide-XXXXXX", &error);
  g_assert_no_error (error);
  for (guint w = 0; w < 2; w++)
    {
      g_autofree char *name = g_strdup_printf ("worker_%u.jsonl", w);
      g_autofree char *src = g_build_filename (RT_FIXTURES_DIR, "hand-v2", "step_1", name, NULL);
      g_autofree char *data = NULL;
      gsize len;
      g_assert_true (g_file_get_contents (src, &data, &len, NULL));
      for (guint st = 0; st < n_steps; st++)
        {
          g_autofree char *step = g_strdup_printf ("%s/step_%u", dir, st);
          g_mkdir (step, 0755);
          g_autofree char *file = g_build_filename (step, name, NULL);
          g_assert_true (g_file_set_contents (file, data, (gssize) len, NULL));
        }
    }
  return dir;
}

static void
assert_same_listing (const RtTrace *a, const RtTrace *b)
{
  g_assert_cmpuint (a->steps->len, ==, b->steps->len);
  for (guint i = 0; i < a->steps->len; i++)
    {
      g_assert_cmpint (rt_trace_step (a, i)->step, ==, rt_trace_step (b, i)->step);
      g_assert_cmpuint (rt_trace_step (a, i)->first_file, ==, rt_trace_step (b, i)->first_file);
      g_assert_cmpuint (rt_trace_step (a, i)->n_files, ==, rt_trace_step (b, i)->n_files);
    }
  g_assert_cmpuint (a->files->len, ==, b->files->len);
  for (guint i = 0; i < a->files->len; i++)
    g_assert_cmpstr (rt_trace_file (a, i)->path, ==, rt_trace_file (b, i)->path);
  g_assert_cmpuint (a->strays->len, ==, b->strays->len);
  for (guint i = 0; i < a->strays->len; i++)
    g_assert_cmpstr (g_ptr_array_index (a->strays, i), ==, g_ptr_array_index (b->strays, i));
  g_assert_cmpuint (a->duplicates->len, ==, b->duplicates->len);
  for (guint i = 0; i < a->duplicates->len; i++)
    {
      const RtDuplicate *x = &g_array_index (a->duplicates, RtDuplicate, i);
      const RtDuplicate *y = &g_array_index (b->duplicates, RtDuplicate, i);
      g_assert_cmpstr (x->path, ==, y->path);
      g_assert_cmpstr (x->same_as, ==, y->same_as);
    }
}

/* Step folders are listed by two threads, and what readdir says of an entry decides without
 * a stat where it can: the listing is the same on one thread or two, links to folders and
 * files count as what they point to, and a dangling link, a folder named like a worker file
 * and every other name are strays. */
static void
test_two_threads_list_what_one_does (void)
{
  g_autofree char *exp = make_wide_experiment (40);
  const char *extra[][2] = { { "README", NULL }, { "step_3", "notes.txt" }, { "step_5", "worker_x.jsonl" } };
  for (guint i = 0; i < G_N_ELEMENTS (extra); i++)
    {
      g_autofree char *file = g_build_filename (exp, extra[i][0], extra[i][1], NULL);
      g_assert_true (g_file_set_contents (file, "x\n", -1, NULL));
    }
  g_autofree char *step_x = g_build_filename (exp, "step_x", NULL);
  g_autofree char *dir_worker = g_build_filename (exp, "step_7", "worker_2.jsonl", NULL);
  g_autofree char *step_01 = g_build_filename (exp, "step_01", NULL);
  g_assert_cmpint (g_mkdir (step_x, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (dir_worker, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (step_01, 0755), ==, 0);
  g_autofree char *dup = g_build_filename (step_01, "worker_0.jsonl", NULL);
  g_assert_true (g_file_set_contents (dup, "", 0, NULL));
  g_autofree char *linked_file = g_build_filename (exp, "step_9", "worker_3.jsonl", NULL);
  g_autofree char *dangling = g_build_filename (exp, "step_10", "worker_4.jsonl", NULL);
  g_autofree char *linked_step = g_build_filename (exp, "step_41", NULL);
  g_assert_cmpint (symlink ("../step_8/worker_0.jsonl", linked_file), ==, 0);
  g_assert_cmpint (symlink ("nowhere.jsonl", dangling), ==, 0);
  g_assert_cmpint (symlink ("step_39", linked_step), ==, 0);

  g_autoptr (RtTrace) one = load_threads_cache (exp, 1, NULL);
  g_autoptr (RtTrace) two = load_threads_cache (exp, 2, NULL);
  assert_same_listing (one, two);
  g_assert_cmpuint (two->steps->len, ==, 41);                 /* step_0 ... step_39, step_41 */
  g_assert_cmpint (rt_trace_step (two, 40)->step, ==, 41);
  g_assert_cmpuint (rt_trace_step (two, 40)->n_files, ==, 2);
  g_assert_cmpuint (two->files->len, ==, 41 * 2 + 1);         /* and step_9/worker_3.jsonl */
  g_assert_cmpuint (rt_trace_step (two, 9)->n_files, ==, 3);
  g_assert_cmpuint (two->duplicates->len, ==, 1);
  g_assert_cmpstr (g_array_index (two->duplicates, RtDuplicate, 0).path, ==, "step_01/worker_0.jsonl");
  const char *strays[] = { "README", "step_10/worker_4.jsonl", "step_3/notes.txt",
                           "step_5/worker_x.jsonl", "step_7/worker_2.jsonl", "step_x" };
  g_assert_cmpuint (two->strays->len, ==, G_N_ELEMENTS (strays));
  for (guint i = 0; i < G_N_ELEMENTS (strays); i++)
    g_assert_cmpstr (g_ptr_array_index (two->strays, i), ==, strays[i]);
  rt_test_remove_tree (exp);
}

/* Files stat'ed on the helper thread and the cache's tables checked in slices on two threads:
 * a file appended to in place is read on from where the cache stopped, one rewritten in place
 * with as many bytes is read again, and one that is gone is gone, run after run. */
static void
test_two_threads_see_every_change_between_cached_runs (void)
{
  g_autofree char *exp = make_wide_experiment (24);
  g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autoptr (RtTrace) first = load_threads_cache (exp, 2, cache_dir);
  g_assert_true (first->stats.cache_written);
  g_autoptr (RtTrace) same = load_threads_cache (exp, 2, cache_dir);
  g_assert_true (same->stats.cache_used);
  g_assert_cmpuint (same->stats.files_cached, ==, 48);
  assert_same_tables (first, same, TRUE);

  /* appended: one more complete request */
  g_autofree char *grown = g_build_filename (exp, "step_17", "worker_1.jsonl", NULL);
  g_autofree char *data = NULL;
  gsize len;
  g_assert_true (g_file_get_contents (grown, &data, &len, NULL));
  FILE *f = fopen (grown, "a");
  g_assert_nonnull (f);
  fputs ("{\"timestamp\": \"2025-01-01T10:00:20\", \"event\": \"async_rollout_request_complete\", "
         "\"duration_sec\": 3.0, \"extra\": {\"request_id\": \"late\", \"turns\": 1, "
         "\"response_length\": 5}, \"workid\": 1, \"step\": 17}\n", f);
  fclose (f);
  g_autoptr (RtTrace) after_append = load_threads_cache (exp, 2, cache_dir);
  g_assert_cmpuint (after_append->stats.files_resumed, ==, 1);
  g_assert_cmpuint (after_append->stats.files_cached, ==, 47);
  g_assert_cmpstr (rt_trace_file (after_append, 35)->path, ==, "step_17/worker_1.jsonl");
  g_assert_cmpuint (rt_trace_file (after_append, 35)->lines, ==, rt_trace_file (same, 35)->lines + 1);
  g_assert_cmpuint (rt_trace_file (after_append, 35)->n_requests, ==,
                    rt_trace_file (same, 35)->n_requests + 1);
  g_autoptr (RtTrace) fresh = load_threads_cache (exp, 1, NULL);
  assert_same_tables (fresh, after_append, TRUE);

  /* rewritten in place, as many bytes: the first line's first byte, '{' -> 'x' */
  g_autofree char *rewritten = g_build_filename (exp, "step_5", "worker_0.jsonl", NULL);
  int fd = open (rewritten, O_WRONLY);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (pwrite (fd, "x", 1, 0), ==, 1);
  close (fd);
  g_autoptr (RtTrace) after_rewrite = load_threads_cache (exp, 2, cache_dir);
  g_assert_cmpuint (after_rewrite->stats.files_parsed, ==, 1);
  g_assert_cmpuint (after_rewrite->stats.files_cached, ==, 47);
  g_clear_pointer (&fresh, rt_trace_free);
  fresh = load_threads_cache (exp, 1, NULL);
  assert_same_tables (fresh, after_rewrite, TRUE);
  g_assert_cmpuint (rt_trace_file (after_rewrite, 10)->bad_lines, ==,
                    rt_trace_file (same, 10)->bad_lines + 1);   /* step_5/worker_0 */

  /* gone */
  g_autofree char *gone = g_build_filename (exp, "step_23", "worker_0.jsonl", NULL);
  g_assert_cmpint (g_remove (gone), ==, 0);
  g_autoptr (RtTrace) after_removal = load_threads_cache (exp, 2, cache_dir);
  g_assert_cmpuint (after_removal->files->len, ==, 47);
  g_assert_cmpuint (after_removal->stats.files_cached, ==, 47);
  g_assert_true (after_removal->stats.cache_written);   /* the cache knew one more */
  g_clear_pointer (&fresh, rt_trace_free);
  fresh = load_threads_cache (exp, 1, NULL);
  assert_same_tables (fresh, after_removal, TRUE);
  rt_test_remove_tree (exp);
  rt_test_remove_tree (cache_dir);
}

/* The tables of the files are checked in slices, two at a time: damage in the last file's
 * tables (the last request id, at the very end of the cache) is found as surely as in the
 * first's, and the experiment is read again. Each slice takes its files once they pass: on
 * one thread the slices before the last have taken theirs when the last fails, and every
 * file is as new again, read from its first byte (its problems counted once). */
static void
test_damage_in_any_slice_of_the_checks_is_found (void)
{
  for (guint threads = 1; threads <= 2; threads++)
    {
      g_autofree char *exp = make_wide_experiment (24);
      g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
      g_autoptr (RtTrace) first = load_threads_cache (exp, threads, cache_dir);
      damage_cache_id (cache_dir, TRUE);   /* the last character of the last file's last id */

      g_autoptr (RtTrace) t = load_threads_cache (exp, threads, cache_dir);
      g_assert_false (t->stats.cache_used);
      g_assert_cmpstr (t->stats.cache_rejected, ==, "damaged tables");
      g_assert_cmpuint (t->stats.files_parsed, ==, 48);
      g_assert_cmpuint (t->stats.files_cached, ==, 0);
      assert_same_tables (first, t, TRUE);
      g_assert_cmpuint (t->problems_total, ==, first->problems_total);
      g_assert_cmpuint (t->problems->len, ==, first->problems->len);
      rt_test_remove_tree (exp);
      rt_test_remove_tree (cache_dir);
    }
}

/* Several files read on from the cache (appended to, or ending in an unterminated piece),
 * fewer bytes than start a pool: the calling thread and a helper share them, and the tables
 * are those of a fresh load, run after run. */
static void
test_files_read_on_from_the_cache_on_two_threads (void)
{
  g_autofree char *exp = make_wide_experiment (12);
  g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  rt_trace_free (load_threads_cache (exp, 2, cache_dir));
  const char *line = "{\"timestamp\": \"2025-01-01T10:00:20\", \"event\": \"async_rollout_request_complete\", "
                     "\"duration_sec\": 3.0, \"extra\": {\"request_id\": \"late\", \"turns\": 1, "
                     "\"response_length\": 5}, \"workid\": 1, \"step\": 1}";
  for (guint st = 0; st < 12; st++)
    {
      g_autofree char *file = g_strdup_printf ("%s/step_%u/worker_%u.jsonl", exp, st, st % 2);
      FILE *f = fopen (file, "a");
      g_assert_nonnull (f);
      /* a whole line in even steps, the first half of one (no newline) in odd ones */
      if (st % 2 == 0)
        fprintf (f, "%s\n", line);
      else
        fprintf (f, "%.60s", line);
      fclose (f);
    }
  g_autoptr (RtTrace) fresh = load_threads_cache (exp, 1, NULL);
  for (guint run = 0; run < 3; run++)
    {
      g_autoptr (RtTrace) t = load_threads_cache (exp, 2, cache_dir);
      g_assert_true (t->stats.cache_used);
      g_assert_cmpuint (t->stats.files_parsed, ==, 0);
      /* the first run reads on 12 files; later ones only the 6 unterminated pieces again */
      g_assert_cmpuint (t->stats.files_resumed + t->stats.files_cached, ==, 24);
      g_assert_cmpuint (t->stats.files_resumed, ==, run == 0 ? 12 : 0);
      assert_same_tables (fresh, t, TRUE);
      g_assert_cmpuint (files_requests (t), ==, files_requests (fresh));
      g_assert_cmpuint (t->problems->len, ==, fresh->problems->len);
    }
  rt_test_remove_tree (exp);
  rt_test_remove_tree (cache_dir);
}

/* What the parser notes of a request's lines for rt-tail, so that it reads no row: whether it
 * owns the lines of its id (complete, id non-empty and on no other complete line of the file),
 * the rank of its complete line (b's first line comes before a's, its complete line after),
 * and its tool time; the same from the cache, and once the file has grown (read on from where
 * the cache stopped: a's last tool call and c's rerun come after it). */
static void
test_the_parser_notes_what_the_tail_reads (void)
{
  static const char first[] =
    LINE ("tool_execution", "\"duration_sec\": 0.25, \"extra\": {\"request_id\": \"b\"}")
    LINE ("tool_execution", "\"duration_sec\": 1.5, \"extra\": {\"request_id\": \"a\"}")
    LINE ("tool_execution", "\"duration_sec\": \"x\", \"extra\": {\"request_id\": \"a\"}")
    LINE ("tool_execution", "\"duration_sec\": 9, \"extra\": {}")
    LINE ("async_rollout_request_complete", "\"duration_sec\": 3.0, \"extra\": {\"request_id\": \"a\"}")
    LINE ("async_rollout_request_complete", "\"duration_sec\": 2.0, \"extra\": {\"request_id\": \"b\"}")
    LINE ("async_rollout_request_complete", "\"duration_sec\": 1.0, \"extra\": {\"request_id\": \"\"}")
    LINE ("async_rollout_request_complete", "\"duration_sec\": 1.0, \"extra\": {\"request_id\": \"c\"}")
    LINE ("tool_execution", "\"duration_sec\": 2.0, \"extra\": {\"request_id\": \"c\"}");
  static const char later[] =
    LINE ("tool_execution", "\"duration_sec\": 0.5, \"extra\": {\"request_id\": \"a\"}")
    LINE ("async_rollout_request_complete", "\"duration_sec\": 1.0, \"extra\": {\"request_id\": \"c\"}");
  /* by request in table order (b, a, "", c, c's rerun): own lines, rank, tool time */
  static const struct { gboolean own; guint32 rank; double tool_s[2]; } want[] = {
    { TRUE, 1, { 0.25, 0.25 } }, { TRUE, 0, { 1.5, 2.0 } }, { FALSE, 2, { 0, 0 } },
    { TRUE, 3, { 2.0, 2.0 } }, { FALSE, 4, { 0, 0 } },
  };
  g_autofree char *exp = make_experiment (first, strlen (first));
  g_autofree char *cache_dir = g_dir_make_tmp ("rt-cache-XXXXXX", NULL);
  g_autofree char *file = g_build_filename (exp, "step_1", "worker_0.jsonl", NULL);
  for (guint round = 0; round < 5; round++)
    {
      /* fresh, written to the cache, from it; grown: fresh, then read on from the cache */
      gboolean grown = round >= 3;
      if (round == 3)
        {
          FILE *out = fopen (file, "a");   /* the same file, grown */
          g_assert_nonnull (out);
          g_assert_cmpint (fputs (later, out), >=, 0);
          g_assert_cmpint (fclose (out), ==, 0);
        }
      g_autoptr (RtTrace) t = round == 0 || round == 3 ? load (exp, 1) : load_threads_cache (exp, 1, cache_dir);
      if (round == 2)
        g_assert_cmpuint (t->stats.files_cached, ==, 1);
      if (round == 4)
        g_assert_cmpuint (t->stats.files_resumed, ==, 1);
      /* (the file's: read on, its requests are numbered after the cache's, used in place) */
      const RtFile *f = rt_trace_file (t, 0);
      g_assert_cmpuint (f->n_requests, ==, grown ? 5 : 4);
      for (guint k = 0; k < f->n_requests; k++)
        {
          const RtRequest *q = rt_trace_request (t, f->first_request + k);
          gboolean own = want[k].own && !(grown && k == 3);   /* c's rerun takes c's lines */
          g_assert_cmpint (q->own_lines, ==, own);
          g_assert_cmpuint (q->complete_rank, ==, want[k].rank);
          g_assert_cmpfloat (q->tool_s, ==, want[k].tool_s[grown]);
        }
    }
  rt_test_remove_tree (exp);
  rt_test_remove_tree (cache_dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/load/hand-fixture-tables", test_hand_fixture_tables);
  g_test_add_func ("/load/older-logger-names-are-canonical", test_older_logger_names_are_canonical_in_the_tables);
  g_test_add_func ("/load/damaged-fixture-counts", test_damaged_fixture_counts);
  g_test_add_func ("/load/a-line-longer-than-the-read-buffer", test_a_line_longer_than_the_read_buffer);
  g_test_add_func ("/load/complete-last-line-without-newline", test_a_complete_last_line_without_newline_counts);
  g_test_add_func ("/load/ids-and-names-one-byte-apart-stay-apart", test_ids_and_names_one_byte_apart_stay_apart);
  g_test_add_func ("/load/a-rerun-takes-over-its-id", test_a_rerun_takes_over_its_id);
  g_test_add_func ("/load/the-parser-notes-what-the-tail-reads", test_the_parser_notes_what_the_tail_reads);
  g_test_add_func ("/load/thread-count-does-not-change-tables", test_thread_count_does_not_change_the_tables);
  g_test_add_func ("/load/what-the-buffer-held-does-not-complete-a-cut-last-line",
                   test_what_the_buffer_held_does_not_complete_a_cut_last_line);
  g_test_add_func ("/load/rows-unread-keeps-the-other-tables-and-caches-every-row",
                   test_rows_unread_keeps_the_other_tables_and_caches_every_row);
  g_test_add_func ("/load/rows-unread-are-not-read-silently", test_rows_unread_are_not_read_silently);
  g_test_add_func ("/load/durations-alone-keep-no-request", test_durations_alone_keep_no_request);
  g_test_add_func ("/load/cache-checksum-in-pieces-is-the-whole", test_cache_checksum_in_pieces_is_the_whole);
  g_test_add_func ("/load/large-cache-tables-go-back-once-read", test_large_cache_tables_go_back_once_read);
  g_test_add_func ("/load/turns-unread-without-a-cache-are-not-kept", test_turns_unread_without_a_cache_are_not_kept);
  g_test_add_func ("/load/requests-in-place-from-the-cache", test_requests_in_place_from_the_cache);
  g_test_add_func ("/load/appended-steps-go-to-a-delta", test_appended_steps_go_to_a_delta);
  g_test_add_func ("/load/a-kept-cache-is-used-again", test_a_kept_cache_is_used_again);
  g_test_add_func ("/load/files-read-past-memory-are-not-kept-cached", test_files_read_past_memory_are_not_kept_cached);
  g_test_add_func ("/load/bad-folders-give-one-clear-error", test_bad_folders_give_one_clear_error);
  g_test_add_func ("/load/a-cache-folder-holds-only-finished-caches",
                   test_a_cache_folder_holds_only_finished_caches);
  g_test_add_func ("/load/an-abandoned-cache-draft-leaves-nothing", test_an_abandoned_cache_draft_leaves_nothing);
  g_test_add_func ("/load/rows-given-back-read-the-same-again", test_rows_given_back_read_the_same_again);
  g_test_add_func ("/load/cached-step-durations-stand-in-for-the-requests",
                   test_cached_step_durations_stand_in_for_the_requests);
  g_test_add_func ("/load/damaged-cached-durations-fall-back-to-the-requests",
                   test_damaged_cached_durations_fall_back_to_the_requests);
  g_test_add_func ("/load/cache-checksum-sees-every-change", test_cache_checksum_sees_every_change);
  g_test_add_func ("/load/cache-checksum-values-are-the-formats", test_cache_checksum_values_are_the_formats);
  g_test_add_func ("/load/cached-rows-bounds-at-their-edges", test_cached_rows_bounds_at_their_edges);
  g_test_add_func ("/load/unread-request-ids-are-not-checked", test_unread_request_ids_are_not_checked);
  g_test_add_func ("/load/unchecked-request-ids-never-reach-a-new-cache",
                   test_unchecked_request_ids_never_reach_a_new_cache);
  g_test_add_func ("/load/turns-by-file-without-requests", test_turns_by_file_without_requests);
  g_test_add_func ("/load/requests-of-one-step-only-from-the-cache",
                   test_requests_of_one_step_only_from_the_cache);
  g_test_add_func ("/load/damaged-requests-of-one-step-read-everything-again",
                   test_damaged_requests_of_one_step_read_everything_again);
  g_test_add_func ("/load/damaged-rows-are-read-again-to-a-fresh-loads-rows",
                   test_damaged_rows_are_read_again_to_a_fresh_loads_rows);
  g_test_add_func ("/load/no-turns-sum-to-nothing", test_no_turns_sum_to_nothing);
  g_test_add_func ("/load/turn-sums-stand-in-for-the-turns", test_turn_sums_stand_in_for_the_turns);
  g_test_add_func ("/load/ids-checked-when-read", test_ids_checked_when_read);
  g_test_add_func ("/load/damaged-turn-sums-fall-back-to-the-turns", test_damaged_turn_sums_fall_back_to_the_turns);
  g_test_add_func ("/load/damaged-rows-asked-from-threads-are-read-again-once",
                   test_damaged_rows_asked_from_threads_are_read_again_once);
  g_test_add_func ("/load/a-file-changed-under-damaged-rows-is-no-crash",
                   test_a_file_changed_under_damaged_rows_is_no_crash);
  g_test_add_func ("/load/two-threads-list-what-one-does", test_two_threads_list_what_one_does);
  g_test_add_func ("/load/two-threads-see-every-change-between-cached-runs",
                   test_two_threads_see_every_change_between_cached_runs);
  g_test_add_func ("/load/damage-in-any-slice-of-the-checks-is-found",
                   test_damage_in_any_slice_of_the_checks_is_found);
  g_test_add_func ("/load/files-read-on-from-the-cache-on-two-threads",
                   test_files_read_on_from_the_cache_on_two_threads);
  return g_test_run ();
}
