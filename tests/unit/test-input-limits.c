/* SPDX-License-Identifier: Apache-2.0 */
/* test-input-limits.c: what the loader does with input no logger should write but crashes and
 * people do: glued objects, over-long lines, two names for one file, endless event names. */
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "rolltrace/rt-error.h"
#include "rolltrace/rt-json.h"
#include "rolltrace/rt-trace.h"
#include "test-util.h"

#define COMPLETE(id) \
  "{\"timestamp\": \"2025-07-13T11:04:25.5\", \"event\": \"async_rollout_request_complete\", " \
  "\"duration_sec\": 3.5, \"extra\": {\"request_id\": \"" id "\", \"turns\": 2}}"

/* A temporary experiment folder, removed at the end of the test. */
typedef struct {
  char *root;
} Exp;

static void
exp_init (Exp *e)
{
  e->root = g_dir_make_tmp ("rt-limits-XXXXXX", NULL);
  g_assert_nonnull (e->root);
}

static void
exp_write (Exp *e, const char *rel, const char *content, gssize len)
{
  g_autofree char *path = g_build_filename (e->root, rel, NULL);
  g_autofree char *dir = g_path_get_dirname (path);
  g_assert_cmpint (g_mkdir_with_parents (dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (path, content, len, NULL));
}

static void
exp_clear (Exp *e)
{
  rt_test_remove_tree (e->root);
  g_free (e->root);
}

static RtTrace *
load (Exp *e)
{
  RtLoadOptions opts = { .max_problems_per_file = 100 };
  g_autoptr (GError) error = NULL;
  RtTrace *t = rt_trace_load (e->root, &opts, &error);
  g_assert_no_error (error);
  return t;
}

static guint
complete_requests (const RtTrace *t)
{
  guint n = 0;
  for (guint i = 0; i < t->n_requests; i++)
    n += rt_trace_request (t, i)->complete;
  return n;
}

static const RtProblem *
problem (const RtTrace *t, guint i)
{
  g_assert_cmpuint (i, <, t->problems->len);
  return &g_array_index (t->problems, RtProblem, i);
}

static void
test_parser_says_where_a_glued_object_ends (void)
{
  g_autoptr (RtJsonParser) parser = rt_json_parser_new ();
#define FIRST "{\"event\": \"a\", \"extra\": {\"x\": [1, {}]}}"
  const char line[] = FIRST "  {\"event\": \"b\"}";
  char buf[sizeof line + RT_JSON_PADDING] = { 0 };
  memcpy (buf, line, sizeof line - 1);
  RtLineFields f;
  const char *why;
  g_assert_cmpint (rt_json_parse_line (parser, buf, strlen (line), &f, &why), ==, RT_LINE_OK);
  /* the second object starts after the two spaces */
  g_assert_cmpuint (f.consumed, ==, strlen (FIRST) + 2);
  g_assert_cmpuint (rt_json_object_end (line, strlen (line)), ==, strlen (FIRST));
  /* a brace inside a string does not count; a line that never closes ends nowhere */
  g_assert_cmpuint (rt_json_object_end ("{\"a\": \"}\\\"}\"}x", 14), ==, 13);
  g_assert_cmpuint (rt_json_object_end ("{\"a\": 1", 7), ==, 7);
}

static void
test_two_glued_objects_are_both_read (void)
{
  Exp e;
  exp_init (&e);
  exp_write (&e, "step_1/worker_0.jsonl", COMPLETE ("a") COMPLETE ("b") "\n" COMPLETE ("c") "\n", -1);
  g_autoptr (RtTrace) t = load (&e);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpuint (f->lines, ==, 2);
  g_assert_cmpuint (f->events, ==, 3);
  g_assert_cmpuint (f->bad_lines, ==, 0);
  g_assert_cmpuint (f->glued_lines, ==, 1);
  g_assert_cmpuint (complete_requests (t), ==, 3);
  g_assert_cmpstr (problem (t, 0)->where, ==, "step_1/worker_0.jsonl:1");
  g_assert_true (g_str_has_prefix (problem (t, 0)->reason, "2 JSON objects on one line"));
  exp_clear (&e);
}

static void
test_a_cut_off_glued_object_keeps_the_first (void)
{
  Exp e;
  exp_init (&e);
  exp_write (&e, "step_1/worker_0.jsonl", COMPLETE ("a") "{\"eve\n" COMPLETE ("b") "\n", -1);
  g_autoptr (RtTrace) t = load (&e);
  g_assert_cmpuint (complete_requests (t), ==, 2);
  g_assert_cmpuint (rt_trace_file (t, 0)->glued_lines, ==, 1);
  g_assert_cmpuint (t->problems->len, ==, 1);
  g_assert_true (strstr (problem (t, 0)->reason, "the object is read") != NULL);
  exp_clear (&e);
}

static void
test_a_line_past_the_limit_is_skipped_and_counted (void)
{
  Exp e;
  exp_init (&e);
  gsize long_len = RT_LINE_MAX + 4096;
  GString *content = g_string_sized_new (long_len + 1024);
  g_string_append (content, COMPLETE ("a") "\n");
  g_string_set_size (content, content->len + long_len);
  memset (content->str + content->len - long_len, 'x', long_len);
  g_string_append (content, "\n" COMPLETE ("b") "\n");
  exp_write (&e, "step_1/worker_0.jsonl", content->str, (gssize) content->len);
  g_string_free (content, TRUE);

  g_autoptr (RtTrace) t = load (&e);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpuint (f->lines, ==, 3);
  g_assert_cmpuint (f->bad_lines, ==, 1);
  g_assert_cmpuint (complete_requests (t), ==, 2);   /* the line after it is read */
  g_assert_cmpstr (problem (t, 0)->where, ==, "step_1/worker_0.jsonl:2");
  g_assert_cmpstr (problem (t, 0)->reason, ==, "line longer than " RT_LINE_MAX_TEXT " (skipped unread)");
  exp_clear (&e);
}

static void
test_an_unterminated_long_last_line_is_one_bad_line (void)
{
  Exp e;
  exp_init (&e);
  g_autofree char *path = g_build_filename (e.root, "step_1", "worker_0.jsonl", NULL);
  exp_write (&e, "step_1/worker_0.jsonl", COMPLETE ("a") "\n", -1);
  /* a crash left NUL bytes behind: a sparse tail, never written out */
  g_assert_cmpint (truncate (path, (off_t) (RT_LINE_MAX * 2 + 100)), ==, 0);
  g_autoptr (RtTrace) t = load (&e);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpuint (f->lines, ==, 2);
  g_assert_cmpuint (f->bad_lines, ==, 1);
  g_assert_cmpuint (complete_requests (t), ==, 1);
  g_assert_cmpstr (problem (t, 0)->where, ==, "step_1/worker_0.jsonl:2");
  exp_clear (&e);
}

static void
test_two_names_for_one_file_are_read_once (void)
{
  Exp e;
  exp_init (&e);
  exp_write (&e, "step_1/worker_0.jsonl", COMPLETE ("a") "\n", -1);
  exp_write (&e, "step_01/worker_0.jsonl", COMPLETE ("a") "\n", -1);
  exp_write (&e, "step_01/worker_5.jsonl", COMPLETE ("b") "\n", -1);
  exp_write (&e, "step_1/worker_005.jsonl", COMPLETE ("b") "\n", -1);
  exp_write (&e, "step_2/worker_07.jsonl", COMPLETE ("c") "\n", -1);
  exp_write (&e, "step_2/worker_007.jsonl", COMPLETE ("c") "\n", -1);
  g_autoptr (RtTrace) t = load (&e);
  g_assert_cmpuint (t->steps->len, ==, 2);
  g_assert_cmpuint (t->files->len, ==, 3);
  g_assert_cmpuint (complete_requests (t), ==, 3);
  /* the plain spelling wins; then the shorter one */
  g_assert_cmpstr (rt_trace_file (t, 0)->path, ==, "step_1/worker_0.jsonl");
  g_assert_cmpstr (rt_trace_file (t, 1)->path, ==, "step_01/worker_5.jsonl");
  g_assert_cmpstr (rt_trace_file (t, 2)->path, ==, "step_2/worker_07.jsonl");
  g_assert_cmpuint (t->duplicates->len, ==, 3);
  const RtDuplicate *d = &g_array_index (t->duplicates, RtDuplicate, 0);
  g_assert_cmpstr (d->path, ==, "step_01/worker_0.jsonl");
  g_assert_cmpstr (d->same_as, ==, "step_1/worker_0.jsonl");
  d = &g_array_index (t->duplicates, RtDuplicate, 1);
  g_assert_cmpstr (d->path, ==, "step_1/worker_005.jsonl");
  g_assert_cmpstr (d->same_as, ==, "step_01/worker_5.jsonl");
  exp_clear (&e);
}

static void
test_names_past_the_limit_share_one_id (void)
{
  Exp e;
  exp_init (&e);
  GString *content = g_string_new (COMPLETE ("a") "\n");
  guint n_names = RT_EVENT_NAMES_MAX + 500;
  for (guint i = 0; i < n_names; i++)
    g_string_append_printf (content, "{\"event\": \"name_%u\", \"duration_sec\": 1}\n", i);
  g_string_append (content, "{\"event\": \"turn_engine_call\", \"duration_sec\": 2}\n");
  exp_write (&e, "step_1/worker_0.jsonl", content->str, (gssize) content->len);
  g_string_free (content, TRUE);

  g_autoptr (RtTrace) t = load (&e);
  guint16 other = rt_event_registry_other_id (t->registry);
  g_assert_cmpuint (other, !=, RT_EVENT_NONE);
  g_assert_cmpstr (rt_event_registry_name (t->registry, other), ==, RT_EVENT_OTHER_NAME);
  g_assert_cmpuint (rt_event_registry_size (t->registry), <=, RT_EVENT_NAMES_MAX + 64);
  /* every row has an id inside the registry; a name of the format keeps its own */
  const RtEvent *rows = rt_trace_file_events (t, 0);
  guint n_other = 0;
  for (guint i = 0; i < rt_trace_file (t, 0)->n_events; i++)
    {
      g_assert_cmpuint (rows[i].event, <, rt_event_registry_size (t->registry));
      n_other += rows[i].event == other;
    }
  guint first_extra = RT_N_KNOWN_EVENTS;
  g_assert_cmpuint (n_other, ==, n_names - (RT_EVENT_NAMES_MAX - first_extra));
  guint16 engine = rt_event_registry_lookup (t->registry, "turn_engine_call");
  g_assert_cmpuint (engine, !=, other);
  g_assert_cmpuint (rows[rt_trace_file (t, 0)->n_events - 1].event, ==, engine);
  g_assert_cmpuint (complete_requests (t), ==, 1);
  exp_clear (&e);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/input-limits/parser-says-where-a-glued-object-ends", test_parser_says_where_a_glued_object_ends);
  g_test_add_func ("/input-limits/two-glued-objects-are-both-read", test_two_glued_objects_are_both_read);
  g_test_add_func ("/input-limits/a-cut-off-glued-object-keeps-the-first", test_a_cut_off_glued_object_keeps_the_first);
  g_test_add_func ("/input-limits/a-line-past-the-limit-is-skipped-and-counted",
                   test_a_line_past_the_limit_is_skipped_and_counted);
  g_test_add_func ("/input-limits/an-unterminated-long-last-line-is-one-bad-line",
                   test_an_unterminated_long_last_line_is_one_bad_line);
  g_test_add_func ("/input-limits/two-names-for-one-file-are-read-once", test_two_names_for_one_file_are_read_once);
  g_test_add_func ("/input-limits/names-past-the-limit-share-one-id", test_names_past_the_limit_share_one_id);
  return g_test_run ();
}
