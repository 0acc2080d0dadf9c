/* SPDX-License-Identifier: Apache-2.0 */
/* test-parse-paths.c: the loader reads whole buffers of lines at a time (rt_json_parse_lines)
 * and must give exactly the tables of reading every line on its own, damaged lines included.
 * Every fixture, the shared samples, generated experiments with faults and files of hostile
 * lines are loaded both ways and compared field by field. */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "load-private.h"
#include "rolltrace/rt-trace.h"
#include "test-util.h"


static RtTrace *
load (const char *path, gboolean line_by_line, guint threads)
{
  RtLoadOptions opts = { .n_threads = threads, .max_problems_per_file = G_MAXUINT,
                         .line_by_line = line_by_line };
  g_autoptr (GError) error = NULL;
  RtTrace *t = rt_trace_load (path, &opts, &error);
  g_assert_no_error (error);
  return t;
}

#define assert_same_double(a, b) g_assert_cmpmem (&(a), sizeof (double), &(b), sizeof (double))

static void
assert_same_figures (const RtTurnFigures *p, const RtTurnFigures *q)
{
  g_assert_cmpint (p->turn, ==, q->turn);
  assert_same_double (p->total_s, q->total_s);
  assert_same_double (p->pre_process_s, q->pre_process_s);
  assert_same_double (p->engine_call_s, q->engine_call_s);
  assert_same_double (p->post_process_s, q->post_process_s);
  assert_same_double (p->tool_parsing_s, q->tool_parsing_s);
}

static void
assert_same_file (const RtTrace *a, const RtTrace *b, guint i)
{
  const RtFile *x = rt_trace_file (a, i), *y = rt_trace_file (b, i);
  g_assert_cmpstr (x->path, ==, y->path);
  g_assert_cmpint (x->step, ==, y->step);
  g_assert_cmpint (x->worker, ==, y->worker);
  g_assert_cmpuint (x->lines, ==, y->lines);
  g_assert_cmpuint (x->events, ==, y->events);
  g_assert_cmpuint (x->bad_lines, ==, y->bad_lines);
  g_assert_cmpuint (x->field_problems, ==, y->field_problems);
  g_assert_cmpuint (x->problems_total, ==, y->problems_total);
  g_assert_cmpuint (x->glued_lines, ==, y->glued_lines);
  g_assert_cmpuint (x->n_events, ==, y->n_events);
  g_assert_cmpuint (x->n_requests, ==, y->n_requests);
  g_assert_cmpuint (x->n_complete, ==, y->n_complete);
  assert_same_double (x->start_min_s, y->start_min_s);
  for (int k = 0; k < RT_N_STEP_EVENTS; k++)
    assert_same_double (x->step_sum_s[k], y->step_sum_s[k]);
  g_assert_cmpint (x->schema, ==, y->schema);

  /* where a cache of the file would stop, and what it would hold there */
  const RtResume *p = &a->priv->files[i].resume, *q = &b->priv->files[i].resume;
  g_assert_cmpuint (p->offset, ==, q->offset);
  g_assert_cmpuint (p->line, ==, q->line);
  g_assert_cmpuint (p->counters.lines, ==, q->counters.lines);
  g_assert_cmpuint (p->counters.problems_total, ==, q->counters.problems_total);
  g_assert_cmpuint (p->n_events, ==, q->n_events);
  g_assert_cmpuint (p->n_requests, ==, q->n_requests);
  g_assert_cmpuint (p->n_problems, ==, q->n_problems);

  const RtEvent *er = rt_trace_file_events (a, i), *fr = rt_trace_file_events (b, i);
  for (guint e = 0; e < x->n_events; e++)
    {
      assert_same_double (er[e].end_s, fr[e].end_s);
      assert_same_double (er[e].duration_s, fr[e].duration_s);
      g_assert_cmpuint (er[e].request, ==, fr[e].request);
      g_assert_cmpint (er[e].turn, ==, fr[e].turn);
      g_assert_cmpstr (rt_event_registry_name (a->registry, er[e].event), ==,
                       rt_event_registry_name (b->registry, fr[e].event));
    }

  for (guint r = 0; r < x->n_requests; r++)
    {
      const RtRequest *u = rt_trace_request (a, x->first_request + r);
      const RtRequest *v = rt_trace_request (b, y->first_request + r);
      g_assert_cmpstr (rt_request_id (a, u), ==, rt_request_id (b, v));
      g_assert_cmpstr (rt_request_finish_reason (a, u), ==, rt_request_finish_reason (b, v));
      g_assert_cmpuint (u->file, ==, v->file);
      g_assert_cmpint (u->step, ==, v->step);
      g_assert_cmpint (u->worker, ==, v->worker);
      g_assert_cmpint (u->complete, ==, v->complete);
      assert_same_double (u->end_s, v->end_s);
      assert_same_double (u->total_s, v->total_s);
      g_assert_cmpint (u->turns, ==, v->turns);
      g_assert_cmpint (u->response_length, ==, v->response_length);
      g_assert_cmpint (u->turns_from_timings, ==, v->turns_from_timings);
      g_assert_cmpuint (u->n_turns, ==, v->n_turns);
      for (guint k = 0; k < u->n_turns; k++)
        assert_same_figures (&g_array_index (a->turns, RtTurnFigures, u->first_turn + k),
                             &g_array_index (b->turns, RtTurnFigures, v->first_turn + k));
    }
}

/* Loads `path` both ways and compares every table; returns the number of lines read, so that
 * a caller can check the experiment was not empty. */
static guint64
assert_both_ways_alike (const char *path, guint threads)
{
  g_autoptr (RtTrace) buffers = load (path, FALSE, threads);
  g_autoptr (RtTrace) lines = load (path, TRUE, threads);
  g_assert_cmpuint (buffers->files->len, ==, lines->files->len);
  g_assert_cmpuint (buffers->steps->len, ==, lines->steps->len);
  guint64 n_lines = 0;
  for (guint i = 0; i < buffers->files->len; i++)
    {
      assert_same_file (buffers, lines, i);
      n_lines += rt_trace_file (buffers, i)->lines;
    }
  g_assert_cmpuint (buffers->n_requests, ==, lines->n_requests);
  g_assert_cmpuint (buffers->turns->len, ==, lines->turns->len);
  for (guint i = 0; i < buffers->steps->len; i++)
    {
      const RtStep *s = rt_trace_step (buffers, i), *u = rt_trace_step (lines, i);
      g_assert_cmpint (s->step, ==, u->step);
      assert_same_double (s->start_s, u->start_s);
    }
  g_assert_cmpuint (buffers->problems_total, ==, lines->problems_total);
  g_assert_cmpuint (buffers->problems->len, ==, lines->problems->len);
  for (guint k = 0; k < buffers->problems->len; k++)
    {
      const RtProblem *p = &g_array_index (buffers->problems, RtProblem, k);
      const RtProblem *q = &g_array_index (lines->problems, RtProblem, k);
      g_assert_cmpstr (p->where, ==, q->where);
      g_assert_cmpstr (p->reason, ==, q->reason);
      g_assert_cmpuint (p->file, ==, q->file);
      g_assert_cmpuint (p->line, ==, q->line);
    }
  return n_lines;
}

/* Every folder below `dir` that holds a step_N folder is an experiment. */
static void
find_experiments (const char *dir, GPtrArray *out)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  if (d == NULL)
    return;
  gboolean is_exp = FALSE;
  g_autoptr (GPtrArray) subdirs = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      char *sub = g_build_filename (dir, name, NULL);
      if (!g_file_test (sub, G_FILE_TEST_IS_DIR))
        g_free (sub);
      else if (g_str_has_prefix (name, "step_"))
        {
          is_exp = TRUE;
          g_free (sub);
        }
      else
        g_ptr_array_add (subdirs, sub);
    }
  if (is_exp)
    g_ptr_array_add (out, g_strdup (dir));
  else
    for (guint i = 0; i < subdirs->len; i++)
      find_experiments (g_ptr_array_index (subdirs, i), out);
}

static void
test_every_fixture_and_sample (void)
{
  g_autoptr (GPtrArray) exps = g_ptr_array_new_with_free_func (g_free);
  find_experiments (RT_FIXTURES_DIR, exps);
  guint samples = 0;
  for (guint i = 0; i < exps->len; i++)
    samples += strstr (g_ptr_array_index (exps, i), "/samples/exp-") != NULL;
  g_assert_cmpuint (exps->len, >=, 7);   /* hand-v1, hand-v2, damaged, timeline, compare... */
  g_assert_cmpuint (samples, ==, 2);     /* and the two samples of fixtures/samples */
  for (guint i = 0; i < exps->len; i++)
    {
      g_test_message ("%s", (const char *) g_ptr_array_index (exps, i));
      assert_both_ways_alike (g_ptr_array_index (exps, i), i % 2 ? 1 : 2);
    }
}

static char *
make_tmp_dir (void)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("rt-parse-paths-XXXXXX", &error);
  g_assert_no_error (error);
  return dir;
}

static void
test_generated_experiments_with_faults (void)
{
  const char *variants[][2] = { { "v2", "3" }, { "v1", "5" }, { "v2", "11" }, { "v1", "42" } };
  for (gsize k = 0; k < G_N_ELEMENTS (variants); k++)
    {
      g_autofree char *dir = make_tmp_dir ();
      g_autofree char *exp = g_build_filename (dir, "exp", NULL);
      const char *argv[] = { RT_SYNTH, exp, "--steps", "3", "--workers", "3", "--requests", "60",
                             "--seed", variants[k][1], "--schema", variants[k][0], "--faults",
                             "--quiet", NULL };
      gint status = 0;
      g_autoptr (GError) error = NULL;
      g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, &error);
      g_assert_no_error (error);
      g_assert_true (g_spawn_check_wait_status (status, NULL));
      g_assert_cmpuint (assert_both_ways_alike (exp, 2), >, 1000);
      rt_test_remove_tree (dir);
    }
}

/* ---- files of hostile lines ------------------------------------------------------------ */

#define TS "\"timestamp\": \"2025-06-10T09:00:01.5\", "
#define L(s) { s, sizeof (s) - 1 }

typedef struct {
  const char *text;
  gsize len;
} Piece;

/* Lines a logger writes (without their newline). */
static const Piece good[] = {
  L ("{" TS "\"event\": \"preprocessing_duration\", \"duration_sec\": 1.0, \"workid\": 1, \"step\": 1}"),
  L ("{" TS "\"event\": \"request_start\", \"extra\": {\"request_id\": \"r1\"}}"),
  L ("{" TS "\"event\": \"turn_end\", \"duration_sec\": 4.0, \"extra\": {\"request_id\": \"r1\", \"turn\": 1, "
     "\"pre_process_duration\": 1.0, \"engine_call_duration\": 2.0}}"),
  L ("{" TS "\"event\": \"async_rollout_request_complete\", \"duration_sec\": 8.0, \"extra\": {\"request_id\": "
     "\"r1\", \"turns\": 2, \"response_length\": 100, \"finish_reason\": \"FinishReasonTypeEnum.STOP\", "
     "\"turn_timings\": [{\"turn\": 0, \"total_duration\": 3.0}, {\"turn\": 1, \"total_duration\": 5.0}]}}"),
  L ("{" TS "\"event\": \"async_rollout_request_complete\", \"duration_sec\": 2.5, \"extra\": {\"request_id\": "
     "\"r\\\"2\\u00e9\", \"finish_reason\": \"a \\\"quoted\\\" \\\\ reason\"}}"),
  L ("{\"event\":\"total_step_duration\",\"duration_sec\":9.5}"),
  L ("  {\"event\": \"total_step_duration\", \"duration_sec\": 1.25}  \r"),
  L ("{\"event\": \"total_step_duration\", \"duration_sec\": NaN}"),
  L ("{\"event\": \"total_step_duration\", \"duration_sec\": \"3\"}"),
  L ("{\"event\": \"x\", \"extra\": {\"turn\": 99999999999, \"turns\": -3}}"),
  L ("{\"no_event\": 1}"),
  L ("{}"),
};

/* Lines a crash, a lost newline or a person leaves. */
static const Piece bad[] = {
  L (""), L ("   "), L ("\t\r"), L ("\f"), L ("\v \f "), L ("\r"),
  L ("{" TS "\"event\": \"preproc"),                       /* cut inside a string: odd quotes */
  L ("{\"event\": \"a\\\"b"),                               /* odd, with an escaped quote */
  L ("{\"event\": \"abc\\"),                                /* a backslash before the newline */
  L ("\""), L ("\"\"\""), L ("{"), L ("}"), L ("]"), L ("{}}"), L ("{{}"),
  L ("{\"event\": \"x\", \"extra\": {\"turn\": 1}"),      /* not closed */
  L ("{\"event\": \"x\"}}"), L ("{\"a\": [1, 2}, \"event\": \"y\"}"),
  L ("{\"event\": \"total_step_duration\", \"duration_sec\": 2.0}{\"event\": \"padding\", \"duration_sec\": 1}"),
  L ("{\"event\": \"total_step_duration\", \"duration_sec\": 2.0} {\"event\": \"padding\"}"),
  L ("{\"event\": \"total_step_duration\", \"duration_sec\": 2.0}{\"eve"),
  L ("{\"event\": \"total_step_duration\"} {\"b\": {}"),   /* a second object not closed */
  L ("{\"event\": \"total_step_duration\"} {\"b\": [1, {}]"),
  L ("{\"event\": \"total_step_duration\"} x"), L ("{\"event\": \"total_step_duration\"}\f"),
  L ("\f{\"event\": \"total_step_duration\"}"), L ("{\"event\": \"total_step_duration\"} ]"),
  L ("[1, 2, 3]"), L ("\"a string\""), L ("42"), L ("-1.5"), L ("true"), L ("null"), L ("not json at all"),
  L ("{\"event\": \"sect\xe9\x80ion\", \"duration_sec\": 0.5}"),   /* not UTF-8 */
  L ("{\"event\": \"x\xff\", \"duration_sec\": 0.5}"), L ("\xff\xfe"),
  L ("{\"event\": \"sect\\udfffion\", \"duration_sec\": 0.5}"),    /* a lone surrogate */
  L ("{\"event\": \"a\x01" "b\", \"duration_sec\": 1}"),            /* a raw control character */
  L ("{\"event\": \"a\0b\", \"duration_sec\": 1}"), L ("\0\0\0\0"),
  L ("{\"event\": \"x\", \"duration_sec\": 1, \"extra\": n}"),
  L ("{\"event\": \"total_step_duration\",\n\"duration_sec\": 2.0}"),   /* an object over two lines */
  L ("{\"event\": \"a\n\"}"),                                          /* a newline in a string */
  L ("{\"event\": \"turn_end\", \"extra\": {\"request_id\": \"r1\",\n\"turn\": 2}}\n{\"event\": \"y\"}"),
};

static void
append_piece (GString *s, const Piece *p)
{
  g_string_append_len (s, p->text, (gssize) p->len);
}

/* A file of `n` lines drawn from the pools with the seed's generator: good ones mostly, damaged
 * ones alone and in runs, now and then a line longer than a batch or a read. */
static GString *
hostile_file (guint32 seed, guint n, gboolean terminated)
{
  g_autoptr (GRand) rand = g_rand_new_with_seed (seed);
  GString *s = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      double u = g_rand_double (rand);
      if (u < 0.75)
        append_piece (s, &good[g_rand_int_range (rand, 0, G_N_ELEMENTS (good))]);
      else if (u < 0.97)
        append_piece (s, &bad[g_rand_int_range (rand, 0, G_N_ELEMENTS (bad))]);
      else if (u < 0.995)
        {
          /* a run of damaged lines */
          guint run = (guint) g_rand_int_range (rand, 2, 40);
          for (guint k = 0; k < run; k++, i++)
            {
              append_piece (s, &bad[g_rand_int_range (rand, 0, G_N_ELEMENTS (bad))]);
              g_string_append_c (s, '\n');
            }
          append_piece (s, &good[0]);
        }
      else
        {
          /* longer than a batch (and now and then than a read): valid, or cut off */
          gsize pad = g_rand_boolean (rand) ? RT_JSON_BATCH + 100 : (gsize) 1300 << 10;
          g_string_append (s, "{\"event\": \"total_step_duration\", \"duration_sec\": 1, \"pad\": \"");
          for (gsize k = 0; k < pad; k++)
            g_string_append_c (s, 'a');
          g_string_append (s, g_rand_boolean (rand) ? "\"}" : "\"");
        }
      if (i + 1 < n || terminated)
        g_string_append_c (s, '\n');
    }
  return s;
}

static char *
write_experiment (const char *dir, guint worker, const GString *content)
{
  g_autofree char *step = g_build_filename (dir, "step_1", NULL);
  g_mkdir_with_parents (step, 0755);
  g_autofree char *name = g_strdup_printf ("worker_%u.jsonl", worker);
  char *file = g_build_filename (step, name, NULL);
  g_assert_true (g_file_set_contents (file, content->str, (gssize) content->len, NULL));
  return file;
}

static void
test_hostile_lines_read_alike (void)
{
  for (guint32 seed = 1; seed <= 24; seed++)
    {
      g_autofree char *dir = make_tmp_dir ();
      for (guint w = 0; w < 3; w++)
        {
          /* a few thousand lines each, and now and then one of more than a read buffer */
          GString *s = hostile_file (seed * 7 + w, w == 0 ? 6000 : 400, (seed + w) % 3 != 0);
          g_free (write_experiment (dir, w, s));
          g_string_free (s, TRUE);
        }
      assert_both_ways_alike (dir, 1 + seed % 2);
      rt_test_remove_tree (dir);
    }
}

/* Each damaged line alone, at the start, the middle and the end of a file of good lines: the
 * last line terminated (the end of a batch) or not (read on its own). */
static void
test_each_damaged_line_in_every_place (void)
{
  g_autofree char *dir = make_tmp_dir ();
  for (gsize b = 0; b < 2 * G_N_ELEMENTS (bad); b++)
    {
      GString *s = g_string_new (NULL);
      for (int place = 0; place < 3; place++)
        {
          for (int k = 0; k < (place == 0 ? 0 : 50); k++)
            {
              append_piece (s, &good[k % G_N_ELEMENTS (good)]);
              g_string_append_c (s, '\n');
            }
          append_piece (s, &bad[b % G_N_ELEMENTS (bad)]);
          g_string_append_c (s, '\n');
        }
      if (b >= G_N_ELEMENTS (bad))
        g_string_truncate (s, s->len - 1);
      g_free (write_experiment (dir, (guint) b, s));
      g_string_free (s, TRUE);
    }
  assert_both_ways_alike (dir, 2);
  rt_test_remove_tree (dir);
}

/* ---- a file cut while it is read --------------------------------------------------------- */

/* What cut_after_first_read does, and what it found. */
static struct {
  const char *path;
  off_t past_read;  /* the file is cut this far past where the first read got to, */
  off_t at;         /* or when that is negative, to this length */
  off_t read_to;    /* how far the first read had got */
  guint reads;
} cut;

static void
cut_after_first_read (int fd)
{
  if (cut.reads++ > 0)
    return;
  cut.read_to = lseek (fd, 0, SEEK_CUR);
  if (cut.past_read >= 0)
    cut.at = cut.read_to + cut.past_read;
  g_assert_cmpint (truncate (cut.path, cut.at), ==, 0);
}

static void
assert_same_problems (const RtTrace *a, const RtTrace *b)
{
  g_assert_cmpuint (a->problems->len, ==, b->problems->len);
  for (guint k = 0; k < a->problems->len; k++)
    {
      const RtProblem *p = &g_array_index (a->problems, RtProblem, k);
      const RtProblem *q = &g_array_index (b->problems, RtProblem, k);
      g_assert_cmpstr (p->where, ==, q->where);
      g_assert_cmpstr (p->reason, ==, q->reason);
    }
}

/* A file cut while it is being read (a running job's log emptied by logrotate's copytruncate,
 * or cut by hand) is read as the file it was when cut: to the cut when the cut comes after
 * what was read, else to where the read had got; its last line, when the cut falls inside
 * it, is one bad line, and no row read before the cut is lost. The parser works on bytes of its own, which the
 * cut cannot change under it (see rt_file_parse_read); the ASan build checks that it reads
 * none it should not. */
static void
test_a_file_cut_while_read_is_read_as_cut (void)
{
  /* longer than the read buffer can have grown to in this program (2 MiB, for the lines of
   * more than a read above) */
  GString *s = g_string_new (NULL);
  for (guint k = 0; s->len < (3u << 20); k++)
    {
      append_piece (s, &good[k % G_N_ELEMENTS (good)]);
      g_string_append_c (s, '\n');
    }
  /* inside a line of the second read; before what the first read had got; the whole file */
  const off_t cuts[][2] = { { 40001, 0 }, { -1, 1000 }, { -1, 0 } };
  for (gsize c = 0; c < G_N_ELEMENTS (cuts); c++)
    for (int line_by_line = 0; line_by_line < 2; line_by_line++)
      {
        g_autofree char *dir = make_tmp_dir ();
        g_autofree char *was_dir = make_tmp_dir ();
        g_autofree char *file = write_experiment (dir, 0, s);
        cut.path = file;
        cut.past_read = cuts[c][0];
        cut.at = cuts[c][1];
        cut.read_to = 0;
        cut.reads = 0;
        rt_file_parse_read_hook = cut_after_first_read;
        g_autoptr (RtTrace) cut_while_read = load (dir, line_by_line, 1);
        rt_file_parse_read_hook = NULL;
        g_assert_cmpuint (cut.reads, >=, 1);
        g_assert_cmpint (cut.read_to, <, (off_t) s->len);   /* the file was cut before its end */

        /* the file as it was read: to the cut, or to where reading had got */
        gsize kept = (gsize) MAX (cut.at, cut.read_to);
        gboolean inside_a_line = s->str[kept - 1] != '\n';
        GString *as_read = g_string_new_len (s->str, (gssize) kept);
        g_free (write_experiment (was_dir, 0, as_read));
        g_string_free (as_read, TRUE);
        g_autoptr (RtTrace) was = load (was_dir, line_by_line, 1);

        const RtFile *f = rt_trace_file (cut_while_read, 0);
        g_assert_cmpuint (f->events, >, 100);
        g_assert_cmpuint (f->bad_lines, ==, inside_a_line ? 1 : 0);
        if (inside_a_line)
          {
            const RtProblem *last = &g_array_index (cut_while_read->problems, RtProblem,
                                                    cut_while_read->problems->len - 1);
            g_assert_cmpstr (last->reason, ==, "truncated last line (no newline, object cut off)");
          }
        assert_same_file (cut_while_read, was, 0);
        assert_same_problems (cut_while_read, was);
        rt_test_remove_tree (dir);
        rt_test_remove_tree (was_dir);
      }
  g_string_free (s, TRUE);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/parse-paths/every-fixture-and-sample", test_every_fixture_and_sample);
  g_test_add_func ("/parse-paths/generated-experiments-with-faults", test_generated_experiments_with_faults);
  g_test_add_func ("/parse-paths/each-damaged-line-in-every-place", test_each_damaged_line_in_every_place);
  g_test_add_func ("/parse-paths/hostile-lines-read-alike", test_hostile_lines_read_alike);
  g_test_add_func ("/parse-paths/a-file-cut-while-read-is-read-as-cut", test_a_file_cut_while_read_is_read_as_cut);
  return g_test_run ();
}
