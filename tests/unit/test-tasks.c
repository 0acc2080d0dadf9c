/* SPDX-License-Identifier: Apache-2.0 */
/* test-tasks.c: numbered tasks run once each whoever takes them, and a thread started beside
 * the caller runs its function, begins on another core than the caller's and may then go
 * anywhere. */
#define _GNU_SOURCE   /* sched_getaffinity */
#include <sched.h>

#include "tasks-private.h"

typedef struct {
  gint runs[200];   /* (atomic) how many times each task ran */
} Counts;

static void
count_task (gpointer data, guint task)
{
  Counts *c = data;
  g_atomic_int_inc (&c->runs[task]);
}

/* Every task runs exactly once, on one thread or two, for none, one and many tasks. */
static void
test_shared_tasks_run_once_each (void)
{
  const guint n_tasks[] = { 0, 1, 2, 3, 200 };
  for (guint threads = 1; threads <= 2; threads++)
    for (guint i = 0; i < G_N_ELEMENTS (n_tasks); i++)
      for (guint round = 0; round < 20; round++)
        {
          Counts c = { { 0 } };
          rt_run_shared (n_tasks[i], threads, count_task, &c);
          for (guint k = 0; k < G_N_ELEMENTS (c.runs); k++)
            g_assert_cmpint (c.runs[k], ==, k < n_tasks[i] ? 1 : 0);
        }
}

typedef struct {
  int in;
  cpu_set_t cores;   /* the thread's own, as it runs its function */
} Job;

static gpointer
double_it (gpointer data)
{
  Job *job = data;
  sched_getaffinity (0, sizeof job->cores, &job->cores);
  return GINT_TO_POINTER (2 * job->in);
}

/* The thread runs its function on its data, and joining it gives what that returned. */
static void
test_thread_beside_returns_its_result (void)
{
  for (int i = 0; i < 10; i++)
    {
      Job job = { .in = i };
      RtThread *t = rt_thread_beside ("rt-test", double_it, &job);
      g_assert_nonnull (t);
      g_assert_cmpint (GPOINTER_TO_INT (rt_thread_join (t)), ==, 2 * i);
    }
}

/* Where the caller may use more than one core, the thread begins on another than the
 * caller's (where it would have waited for the scheduler to move one of the two), and then
 * may go wherever the caller may: not held away from the caller's core. With one core it
 * begins on that one. */
static void
test_thread_beside_begins_elsewhere (void)
{
  cpu_set_t mine;
  g_assert_cmpint (sched_getaffinity (0, sizeof mine, &mine), ==, 0);
  for (int i = 0; i < 20; i++)
    {
      Job job = { .in = i };
      int caller_core = -1, first_core = -1;
      RtThread *t = rt_thread_beside ("rt-test", double_it, &job);
      g_assert_nonnull (t);
      rt_thread_join_cores (t, &caller_core, &first_core);
      g_assert_cmpint (caller_core, >=, 0);
      g_assert_cmpint (first_core, >=, 0);
      if (CPU_COUNT (&mine) > 1)
        g_assert_cmpint (first_core, !=, caller_core);
      else
        g_assert_cmpint (first_core, ==, caller_core);
      g_assert_true (CPU_EQUAL (&job.cores, &mine));
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/tasks/shared-tasks-run-once-each", test_shared_tasks_run_once_each);
  g_test_add_func ("/tasks/thread-beside-returns-its-result", test_thread_beside_returns_its_result);
  g_test_add_func ("/tasks/thread-beside-begins-elsewhere", test_thread_beside_begins_elsewhere);
  return g_test_run ();
}
