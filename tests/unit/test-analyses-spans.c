/* SPDX-License-Identifier: Apache-2.0 */
/* test-analyses-spans.c: a step laid out in time (workers, sections, requests, turns, lines) on the
 * hand-checked fixture hand-v2, whose line times fixtures/README.md gives, and on small made-up files. */
#include <math.h>

#include "rolltrace/rt-analyses.h"
#include "test-util.h"

#define EPS 1e-9

static void
assert_interval (double start, double end, double want_start, double want_end)
{
  g_assert_cmpfloat_with_epsilon (start, want_start, EPS);
  g_assert_cmpfloat_with_epsilon (end, want_end, EPS);
}

static guint16
id_of (const RtTrace *t, const char *name)
{
  guint16 id = rt_event_registry_lookup (t->registry, name);
  g_assert_cmpuint (id, !=, RT_EVENT_NONE);
  return id;
}

static void
test_phase_kinds (void)
{
  g_assert_cmpint (rt_phase_kind ("turn_pre_process"), ==, RT_PHASE_PRE_PROCESS);
  g_assert_cmpint (rt_phase_kind ("pending_state_handling"), ==, RT_PHASE_PRE_PROCESS);
  g_assert_cmpint (rt_phase_kind ("turn_engine_call"), ==, RT_PHASE_ENGINE);
  g_assert_cmpint (rt_phase_kind ("engine_async_generate_actual"), ==, RT_PHASE_ENGINE);
  g_assert_cmpint (rt_phase_kind ("tool_execution"), ==, RT_PHASE_TOOL);
  g_assert_cmpint (rt_phase_kind ("turn_post_process"), ==, RT_PHASE_POST_PROCESS);
  g_assert_cmpint (rt_phase_kind ("turn_tool_parsing"), ==, RT_PHASE_POST_PROCESS);
  g_assert_cmpint (rt_phase_kind ("turn_end"), ==, RT_PHASE_ENCLOSING);
  g_assert_cmpint (rt_phase_kind ("running_state"), ==, RT_PHASE_ENCLOSING);
  g_assert_cmpint (rt_phase_kind ("async_rollout_request_complete"), ==, RT_PHASE_ENCLOSING);
  g_assert_cmpint (rt_phase_kind ("interaction_response"), ==, RT_PHASE_OTHER);
  g_assert_cmpint (rt_phase_kind ("no_such_event"), ==, RT_PHASE_OTHER);
  g_assert_cmpint (rt_phase_kind (NULL), ==, RT_PHASE_OTHER);
  g_assert_cmpstr (rt_phase_kind_name (RT_PHASE_ENGINE), ==, "engine");
  g_assert_cmpstr (rt_phase_kind_name (RT_PHASE_POST_PROCESS), ==, "post-process");
}

/* step 1 starts at 10:00:00 (worker 0's preprocessing, 2 s ending 00:02) */
static void
test_spans_hand_v2_workers_and_sections (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  g_assert_cmpint (sp->step, ==, 1);
  g_assert_cmpfloat_with_epsilon (sp->origin_s, rt_trace_step (t, 0)->start_s, EPS);
  g_assert_cmpfloat_with_epsilon (sp->end_s, 17, EPS);   /* worker 1's total, 00:17 */
  g_assert_cmpuint (sp->workers->len, ==, 2);

  const RtSpanWorker *w0 = rt_spans_worker (sp, 0), *w1 = rt_spans_worker (sp, 1);
  g_assert_cmpint (w0->worker, ==, 0);
  g_assert_cmpint (w1->worker, ==, 1);
  assert_interval (w0->start_s, w0->end_s, 0, 15);
  assert_interval (w1->start_s, w1->end_s, 0, 17);

  /* worker 0: preprocessing, async_generate, barrier_wait, total in line order */
  static const struct { RtEventId ev; double start, end; } w0_sections[] = {
    { RT_EV_PREPROCESSING, 0, 2 }, { RT_EV_ASYNC_GENERATE, 2, 11 },
    { RT_EV_BARRIER_WAIT, 11, 15 }, { RT_EV_TOTAL_STEP, 0, 15 },
  };
  g_assert_cmpuint (w0->n_sections, ==, G_N_ELEMENTS (w0_sections));
  for (guint i = 0; i < w0->n_sections; i++)
    {
      const RtSpanSection *sec = rt_spans_section (sp, w0->first_section + i);
      g_assert_cmpuint (sec->event, ==, w0_sections[i].ev);
      assert_interval (sec->start_s, sec->end_s, w0_sections[i].start, w0_sections[i].end);
    }
  g_assert_cmpuint (w1->first_section, ==, w0->first_section + w0->n_sections);
  g_assert_cmpuint (w1->n_sections, ==, 4);
  const RtSpanSection *barrier1 = rt_spans_section (sp, w1->first_section + 2);
  g_assert_cmpuint (barrier1->event, ==, RT_EV_BARRIER_WAIT);
  assert_interval (barrier1->start_s, barrier1->end_s, 15, 16);
}

static void
test_spans_hand_v2_requests (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  g_assert_cmpuint (sp->requests->len, ==, 3);
  const RtSpanWorker *w0 = rt_spans_worker (sp, 0), *w1 = rt_spans_worker (sp, 1);
  g_assert_cmpuint (w0->first_request, ==, 0);
  g_assert_cmpuint (w0->n_requests, ==, 2);
  g_assert_cmpuint (w1->first_request, ==, 2);
  g_assert_cmpuint (w1->n_requests, ==, 1);

  /* b [2, 6) and a [2, 10) start together: the earlier end first */
  const RtSpanRequest *b = rt_spans_request (sp, 0), *a = rt_spans_request (sp, 1), *c = rt_spans_request (sp, 2);
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, b->request)), ==, "b");
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, a->request)), ==, "a");
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, c->request)), ==, "c");
  assert_interval (b->start_s, b->end_s, 2, 6);
  assert_interval (a->start_s, a->end_s, 2, 10);
  assert_interval (c->start_s, c->end_s, 2, 14);
  g_assert_cmpfloat_with_epsilon (a->duration_s, 8, EPS);
  g_assert_cmpuint (a->worker_index, ==, 0);
  g_assert_cmpuint (c->worker_index, ==, 1);

  /* b and c log no line of their own but the complete one (turn_timings are no lines) */
  g_assert_cmpuint (b->n_lines, ==, 0);
  g_assert_cmpuint (b->n_turns, ==, 0);
  g_assert_cmpuint (c->n_lines, ==, 0);

  /* a: turn_end 0 [3, 6.5) before the engine call [3, 6) it holds, then turn_end 1 [6, 10);
   * request_start has no duration and is no timed line */
  guint16 turn_end = id_of (t, "turn_end"), engine = id_of (t, "turn_engine_call");
  static const struct { gboolean is_end; double start, end; gint16 turn; } want[] = {
    { TRUE, 3, 6.5, 0 }, { FALSE, 3, 6, 0 }, { TRUE, 6, 10, 1 },
  };
  g_assert_cmpuint (a->n_lines, ==, G_N_ELEMENTS (want));
  for (guint i = 0; i < a->n_lines; i++)
    {
      const RtSpanLine *l = rt_spans_line (sp, a->first_line + i);
      g_assert_cmpuint (l->event, ==, want[i].is_end ? turn_end : engine);
      g_assert_cmpuint (l->kind, ==, want[i].is_end ? RT_PHASE_ENCLOSING : RT_PHASE_ENGINE);
      g_assert_cmpint (l->turn, ==, want[i].turn);
      assert_interval (l->start_s, l->end_s, want[i].start, want[i].end);
    }
  g_assert_cmpuint (a->n_turns, ==, 2);
  const RtSpanTurn *t0 = rt_spans_turn (sp, a->first_turn), *t1 = rt_spans_turn (sp, a->first_turn + 1);
  g_assert_cmpint (t0->turn, ==, 0);
  assert_interval (t0->start_s, t0->end_s, 3, 6.5);
  g_assert_cmpint (t1->turn, ==, 1);
  assert_interval (t1->start_s, t1->end_s, 6, 10);
}

/* step 2 starts at 01:00; its two padding lines are two sections */
static void
test_spans_hand_v2_second_step (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v2");
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 1);
  g_assert_cmpint (sp->step, ==, 2);
  g_assert_cmpfloat_with_epsilon (sp->origin_s - rt_trace_step (t, 0)->start_s, 60, EPS);
  g_assert_cmpfloat_with_epsilon (sp->end_s, 12, EPS);
  g_assert_cmpuint (sp->requests->len, ==, 1);
  assert_interval (rt_spans_request (sp, 0)->start_s, rt_spans_request (sp, 0)->end_s, 1, 11);
  const RtSpanWorker *w = rt_spans_worker (sp, 0);
  g_assert_cmpuint (w->n_sections, ==, 4);
  const RtSpanSection *pad1 = rt_spans_section (sp, w->first_section + 2);
  g_assert_cmpuint (pad1->event, ==, RT_EV_PADDING);
  assert_interval (pad1->start_s, pad1->end_s, 11.25, 11.75);
}

/* Which complete lines are requests: a finite duration and a readable timestamp; a rerun of an id
 * is a request of its own; a duration <= 0 gives an empty life; a request's turns merge its lines. */
static void
test_spans_which_lines_are_requests (void)
{
  const char *jsonl =
    "{\"timestamp\": \"2025-01-01T10:00:10\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 10.0, \"extra\": {\"request_id\": \"r\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:15\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 5.0, \"extra\": {\"request_id\": \"r\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:12\", \"event\": \"turn_engine_call\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"s\", \"turn\": 0}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:14\", \"event\": \"turn_post_process\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"s\", \"turn\": 0}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:13\", \"event\": \"turn_pre_process\", \"duration_sec\": -1.0, \"extra\": {\"request_id\": \"s\", \"turn\": 3}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:15\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 4.5, \"extra\": {\"request_id\": \"s\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:16\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 0.0, \"extra\": {\"request_id\": \"z\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:16\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": -2.0, \"extra\": {\"request_id\": \"n\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:00:17\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": NaN, \"extra\": {\"request_id\": \"x\"}}\n"
    "{\"timestamp\": \"yesterday\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"y\"}}\n"
    "{\"event\": \"async_rollout_request_complete\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"w\"}}\n";
  g_autofree char *dir = rt_test_experiment_new (jsonl);
  g_autoptr (RtTrace) t = rt_test_load (dir);
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  /* origin: the first complete, 00:10 - 10 s = 00:00; the last timestamp is x's, 00:17 */
  g_assert_cmpfloat_with_epsilon (sp->end_s, 17, EPS);
  g_assert_cmpuint (sp->requests->len, ==, 5);   /* r, r again, s, z, n; not x, y, w */
  const RtSpanRequest *r1 = rt_spans_request (sp, 0), *r2 = rt_spans_request (sp, 1);
  const RtSpanRequest *s_ = rt_spans_request (sp, 2);
  const RtSpanRequest *z = rt_spans_request (sp, 3), *n = rt_spans_request (sp, 4);
  assert_interval (r1->start_s, r1->end_s, 0, 10);
  assert_interval (r2->start_s, r2->end_s, 10, 15);
  assert_interval (s_->start_s, s_->end_s, 10.5, 15);
  assert_interval (z->start_s, z->end_s, 16, 16);
  assert_interval (n->start_s, n->end_s, 16, 16);   /* empty, whatever the sign */
  g_assert_cmpfloat_with_epsilon (n->duration_s, -2, EPS);
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, r1->request)), ==, "r");
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, r2->request)), ==, "r");
  g_assert_cmpuint (r1->request, !=, r2->request);
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, s_->request)), ==, "s");
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, z->request)), ==, "z");
  g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, n->request)), ==, "n");

  /* s's lines by start; the negative one starts at 14 and ends at 13 */
  g_assert_cmpuint (r1->n_lines + r2->n_lines, ==, 0);
  g_assert_cmpuint (s_->n_lines, ==, 3);
  const RtSpanLine *l0 = rt_spans_line (sp, s_->first_line), *l2 = rt_spans_line (sp, s_->first_line + 2);
  assert_interval (l0->start_s, l0->end_s, 11, 12);
  g_assert_cmpuint (l0->kind, ==, RT_PHASE_ENGINE);
  assert_interval (l2->start_s, l2->end_s, 14, 13);
  g_assert_cmpuint (l2->kind, ==, RT_PHASE_PRE_PROCESS);
  /* turn 0 spans both its lines; turn 3 its one */
  g_assert_cmpuint (s_->n_turns, ==, 2);
  const RtSpanTurn *t0 = rt_spans_turn (sp, s_->first_turn), *t3 = rt_spans_turn (sp, s_->first_turn + 1);
  g_assert_cmpint (t0->turn, ==, 0);
  assert_interval (t0->start_s, t0->end_s, 11, 14);
  g_assert_cmpint (t3->turn, ==, 3);
  rt_test_experiment_remove (dir);
}

/* The older logger ties no turn line to a request: its requests have lives but no lines. */
static void
test_spans_hand_v1 (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("hand-v1");
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  g_assert_cmpint (sp->step, ==, 3);
  g_assert_cmpuint (sp->requests->len, ==, 2);
  g_assert_cmpuint (sp->lines->len, ==, 0);
  const RtSpanWorker *w = rt_spans_worker (sp, 0);
  gboolean barrier = FALSE;
  for (guint i = 0; i < w->n_sections; i++)
    barrier = barrier || rt_spans_section (sp, w->first_section + i)->event == RT_EV_BARRIER_WAIT;
  g_assert_true (barrier);   /* the older `barrier`, without request id */
}

/* A step whose only file is empty: the worker is listed, without times. */
static void
test_spans_empty_file (void)
{
  g_autofree char *dir = rt_test_experiment_new ("");
  g_autoptr (RtTrace) t = rt_test_load (dir);
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  g_assert_cmpuint (sp->workers->len, ==, 1);
  g_assert_true (isnan (sp->origin_s));
  g_assert_true (isnan (sp->end_s));
  g_assert_true (isnan (rt_spans_worker (sp, 0)->start_s));
  g_assert_true (isnan (rt_spans_worker (sp, 0)->end_s));
  g_assert_cmpuint (sp->requests->len, ==, 0);
  g_assert_cmpuint (sp->sections->len, ==, 0);
  rt_test_experiment_remove (dir);
}

static void
assert_same_line (const RtSpanLine *a, const RtSpanLine *b)
{
  g_assert_true (memcmp (&a->start_s, &b->start_s, sizeof (double)) == 0);
  g_assert_true (memcmp (&a->end_s, &b->end_s, sizeof (double)) == 0);
  g_assert_cmpuint (a->event, ==, b->event);
  g_assert_cmpuint (a->kind, ==, b->kind);
  g_assert_cmpint (a->turn, ==, b->turn);
}

/* Spans made without their lines (rt_spans_analyse_requests) have the workers, sections and
 * requests (their number of lines too) of spans made with them, and rt_spans_worker_lines
 * makes each worker's lines, of all its requests or some, as they stand in the spans made
 * with them. */
static void
assert_without_lines_as_with (const RtTrace *t, guint step_index)
{
  g_autoptr (RtSpans) full = rt_spans_analyse (t, step_index);
  g_autoptr (RtSpans) lazy = rt_spans_analyse_requests (t, step_index);
  g_assert_true (lazy->without_lines && !full->without_lines);
  g_assert_cmpuint (lazy->lines->len, ==, 0);
  g_assert_cmpuint (lazy->turns->len, ==, 0);
  g_assert_cmpuint (lazy->workers->len, ==, full->workers->len);
  g_assert_cmpuint (lazy->requests->len, ==, full->requests->len);
  g_assert_cmpuint (lazy->sections->len, ==, full->sections->len);
  for (guint i = 0; i < full->sections->len; i++)
    {
      const RtSpanSection *a = rt_spans_section (full, i), *b = rt_spans_section (lazy, i);
      g_assert_true (a->event == b->event && memcmp (&a->start_s, &b->start_s, 2 * sizeof (double)) == 0);
    }
  for (guint i = 0; i < full->requests->len; i++)
    {
      const RtSpanRequest *a = rt_spans_request (full, i), *b = rt_spans_request (lazy, i);
      g_assert_cmpuint (a->request, ==, b->request);
      g_assert_cmpuint (a->worker_index, ==, b->worker_index);
      g_assert_true (memcmp (&a->start_s, &b->start_s, 3 * sizeof (double)) == 0);
      g_assert_cmpuint (a->n_lines, ==, b->n_lines);
    }
  g_autoptr (GRand) rand = g_rand_new_with_seed (step_index + 5);
  g_autoptr (GArray) got = g_array_new (FALSE, FALSE, sizeof (RtSpanLine));
  g_autoptr (GArray) want = g_array_new (FALSE, FALSE, sizeof (RtSpanLine));
  for (guint k = 0; k < full->workers->len; k++)
    {
      const RtSpanWorker *w = rt_spans_worker (full, k), *lw = rt_spans_worker (lazy, k);
      g_assert_true (w->file == lw->file && w->first_request == lw->first_request && w->n_requests == lw->n_requests
                     && w->first_section == lw->first_section && w->n_sections == lw->n_sections);
      g_autofree gboolean *some = g_new (gboolean, MAX (w->n_requests, 1u));
      g_autofree guint32 *first = g_new (guint32, MAX (w->n_requests, 1u));
      g_autofree guint32 *want_first = g_new (guint32, MAX (w->n_requests, 1u));
      for (int mask = 0; mask < 3; mask++)
        {
          for (guint i = 0; i < w->n_requests; i++)
            some[i] = mask == 1 ? i % 2 == 1 : g_rand_boolean (rand);
          const gboolean *wanted = mask == 0 ? NULL : some;
          rt_spans_worker_lines (lazy, t, k, wanted, got, first);
          rt_spans_worker_lines (full, t, k, wanted, want, want_first);
          g_assert_cmpuint (got->len, ==, want->len);
          for (guint i = 0; i < w->n_requests; i++)
            {
              const RtSpanRequest *q = rt_spans_request (full, w->first_request + i);
              g_assert_cmpuint (first[i], ==, want_first[i]);
              g_assert_true ((first[i] == RT_NONE) == (wanted != NULL && !wanted[i]));
              for (guint j = 0; first[i] != RT_NONE && j < q->n_lines; j++)
                {
                  assert_same_line (&g_array_index (got, RtSpanLine, first[i] + j), rt_spans_line (full, q->first_line + j));
                  assert_same_line (&g_array_index (want, RtSpanLine, first[i] + j), rt_spans_line (full, q->first_line + j));
                }
            }
        }
    }
}

static void
test_spans_without_lines_as_with (void)
{
  const char *const fixtures[] = { "hand-v1", "hand-v2", "timeline" };
  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    {
      g_autoptr (RtTrace) t = rt_test_load_fixture (fixtures[i]);
      for (guint si = 0; si < t->steps->len; si++)
        assert_without_lines_as_with (t, si);
    }
  /* a request with more lines than are sorted by insertion, some NaN, a rerun of an id with
   * lines of its own, lines after their request's end, a request whose lines come before
   * an unknown one */
  g_autoptr (GString) jsonl = g_string_new (NULL);
  g_autoptr (GRand) rand = g_rand_new_with_seed (3);
  for (int i = 0; i < 150; i++)
    g_string_append_printf (jsonl, "{\"timestamp\": \"2025-01-01T10:%02d:%02d\", \"event\": \"%s\", \"duration_sec\": %s, "
                            "\"extra\": {\"request_id\": \"%s\", \"turn\": %d}}\n",
                            10 + g_rand_int_range (rand, 0, 5), g_rand_int_range (rand, 0, 60),
                            i % 3 ? "turn_engine_call" : i % 2 ? "tool_execution" : "main_loop",
                            i % 37 == 5 ? "NaN" : i % 11 == 0 ? "0.0" : "3.5",
                            i % 5 == 0 ? "b" : i % 7 == 0 ? "c" : "a", g_rand_int_range (rand, 0, 6));
  g_string_append (jsonl,
    "{\"timestamp\": \"2025-01-01T10:20:00\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 900.0, \"extra\": {\"request_id\": \"a\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:20:01\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 30.0, \"extra\": {\"request_id\": \"b\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:21:00\", \"event\": \"turn_engine_call\", \"duration_sec\": 2.0, \"extra\": {\"request_id\": \"b\", \"turn\": 1}}\n"
    "{\"timestamp\": \"2025-01-01T10:21:30\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 60.0, \"extra\": {\"request_id\": \"b\"}}\n"
    "{\"timestamp\": \"2025-01-01T10:22:00\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 5.0}\n"
    "{\"timestamp\": \"2025-01-01T10:22:30\", \"event\": \"async_rollout_request_complete\", \"duration_sec\": 1.0, \"extra\": {\"request_id\": \"c\"}}\n");
  g_autofree char *dir = rt_test_experiment_new (jsonl->str);
  g_autoptr (RtTrace) t = rt_test_load (dir);
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  guint most = 0;
  for (guint i = 0; i < sp->requests->len; i++)
    most = MAX (most, rt_spans_request (sp, i)->n_lines);
  g_assert_cmpuint (most, >, 64);
  assert_without_lines_as_with (t, 0);
  rt_test_experiment_remove (dir);
}

/* The tool calls of fixtures/tool-calls (fixtures/README.md) belong to the turn that ended
 * before them, whichever turn their number names, and stretch no turn. */
static void
test_spans_tool_calls_by_time (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("tool-calls");
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  static const char *const ids[] = { "real", "older", "early" };
  g_assert_cmpuint (sp->requests->len, ==, G_N_ELEMENTS (ids));
  for (guint i = 0; i < sp->requests->len; i++)
    {
      const RtSpanRequest *q = rt_spans_request (sp, i);
      g_assert_cmpstr (rt_request_id (t, rt_trace_request (t, q->request)), ==, ids[i]);
      /* turn 0 [1, 3] s, turn 1 [4, 6] s: not [1, 4] (older), [3, 6] (real) or [3, 6] less
       * 0.5 ms (early), and no turn 2 of real's last call alone */
      g_assert_cmpuint (q->n_turns, ==, 2);
      const RtSpanTurn *t0 = rt_spans_turn (sp, q->first_turn), *t1 = rt_spans_turn (sp, q->first_turn + 1);
      g_assert_cmpint (t0->turn, ==, 0);
      assert_interval (t0->start_s, t0->end_s, 1, 3);
      g_assert_cmpint (t1->turn, ==, 1);
      assert_interval (t1->start_s, t1->end_s, 4, 6);
      /* the calls from 3 s (2.9995 s for early) to 4 s are turn 0's, real's last one turn 1's */
      guint calls = 0;
      for (guint k = 0; k < q->n_lines; k++)
        {
          const RtSpanLine *l = rt_spans_line (sp, q->first_line + k);
          if (l->kind != RT_PHASE_TOOL)
            continue;
          calls++;
          g_assert_cmpint (l->turn, ==, l->start_s < 5 ? 0 : 1);
          g_assert_cmpfloat_with_epsilon (l->start_s, l->start_s < 5 ? (i == 2 ? 2.9995 : 3) : 6, 1e-6);
        }
      g_assert_cmpuint (calls, ==, i == 0 ? 3 : 2);
    }
}

/* A tool call that starts up to 1 ms before a turn's end is that turn's, one further before is
 * the turn's before (none here); turns that end out of order (damaged) are taken by their end,
 * and a call's own number, or its lack of one, changes nothing. The same made without lines. */
static void
test_spans_tool_call_tolerance (void)
{
#define LINE(end, event, dur, turn) \
  "{\"timestamp\": \"2025-01-01T10:00:" end "\", \"event\": \"" event "\", \"duration_sec\": " dur ", " \
  "\"extra\": {\"request_id\": \"r\"" turn "}}\n"
  const char *jsonl =
    LINE ("02", "turn_engine_call", "2.0", ", \"turn\": 0")          /* turn 0 [0, 2] */
    LINE ("02.498500", "tool_execution", "0.5", ", \"turn\": 1")     /* from 1.9985: 1.5 ms early, none */
    LINE ("02.499500", "tool_execution", "0.5", ", \"turn\": 7")     /* from 1.9995: turn 0 */
    LINE ("10", "turn_engine_call", "7.0", ", \"turn\": 1")          /* turn 1 [3, 10] */
    LINE ("05", "turn_engine_call", "1.0", ", \"turn\": 2")          /* turn 2 [4, 5], ended first */
    LINE ("06", "tool_calling_state", "0.5", "")                     /* from 5.5: turn 2 */
    LINE ("11", "tool_response_processing", "0.5", ", \"turn\": 0")  /* from 10.5: turn 1 */
    LINE ("12", "async_rollout_request_complete", "12.0", "");
#undef LINE
  g_autofree char *dir = rt_test_experiment_new (jsonl);
  g_autoptr (RtTrace) t = rt_test_load (dir);
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  g_assert_cmpuint (sp->requests->len, ==, 1);
  const RtSpanRequest *q = rt_spans_request (sp, 0);
  static const struct { double start; gint16 turn; } want[] = { { 1.9985, -1 }, { 1.9995, 0 }, { 5.5, 2 }, { 10.5, 1 } };
  guint n = 0;
  for (guint k = 0; k < q->n_lines; k++)
    {
      const RtSpanLine *l = rt_spans_line (sp, q->first_line + k);
      if (l->kind != RT_PHASE_TOOL)
        continue;
      g_assert_cmpuint (n, <, G_N_ELEMENTS (want));
      g_assert_cmpfloat_with_epsilon (l->start_s, want[n].start, 1e-6);
      g_assert_cmpint (l->turn, ==, want[n].turn);
      n++;
    }
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (want));
  /* the turns are their own lines' spans alone */
  g_assert_cmpuint (q->n_turns, ==, 3);
  assert_interval (rt_spans_turn (sp, q->first_turn)->start_s, rt_spans_turn (sp, q->first_turn)->end_s, 0, 2);
  assert_interval (rt_spans_turn (sp, q->first_turn + 1)->start_s, rt_spans_turn (sp, q->first_turn + 1)->end_s, 3, 10);
  assert_without_lines_as_with (t, 0);
  rt_test_experiment_remove (dir);
}

/* The older logger writes its tool calls without extra: they are no request's lines (as its
 * turns are not), and stay in the event table, of no request and no turn. */
static void
test_spans_tool_calls_older_logger (void)
{
  g_autoptr (RtTrace) t = rt_test_load_fixture ("tool-calls-v1");
  g_autoptr (RtSpans) sp = rt_spans_analyse (t, 0);
  g_assert_cmpuint (sp->requests->len, ==, 1);
  g_assert_cmpuint (rt_spans_request (sp, 0)->n_lines, ==, 0);
  g_assert_cmpuint (rt_spans_request (sp, 0)->n_turns, ==, 0);
  const RtFile *f = rt_trace_file (t, 0);
  g_assert_cmpint (f->schema, ==, RT_SCHEMA_V1);   /* its tool calls are no newer logger's */
  const RtEvent *rows = rt_trace_file_events (t, 0);
  guint16 tool = id_of (t, "tool_execution");
  guint calls = 0;
  for (guint32 e = 0; e < f->n_events; e++)
    if (rows[e].event == tool)
      {
        calls++;
        g_assert_true (rows[e].request == RT_NONE || rows[e].request >= f->n_requests);
        g_assert_cmpint (rows[e].turn, ==, -1);
      }
  g_assert_cmpuint (calls, ==, 1);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/spans/phase-kinds", test_phase_kinds);
  g_test_add_func ("/spans/hand-v2/workers-and-sections", test_spans_hand_v2_workers_and_sections);
  g_test_add_func ("/spans/hand-v2/requests", test_spans_hand_v2_requests);
  g_test_add_func ("/spans/hand-v2/second-step", test_spans_hand_v2_second_step);
  g_test_add_func ("/spans/which-lines-are-requests", test_spans_which_lines_are_requests);
  g_test_add_func ("/spans/hand-v1", test_spans_hand_v1);
  g_test_add_func ("/spans/empty-file", test_spans_empty_file);
  g_test_add_func ("/spans/without-lines-as-with", test_spans_without_lines_as_with);
  g_test_add_func ("/spans/tool-calls/by-time", test_spans_tool_calls_by_time);
  g_test_add_func ("/spans/tool-calls/tolerance", test_spans_tool_call_tolerance);
  g_test_add_func ("/spans/tool-calls/older-logger", test_spans_tool_calls_older_logger);
  return g_test_run ();
}
