/* SPDX-License-Identifier: Apache-2.0 */
/* tasks.c: numbered tasks shared by the calling thread and one helper, and helper threads
 * started beside the caller (tasks-private.h). */
#define _GNU_SOURCE   /* the affinity of a thread: pthread_attr_setaffinity_np, sched_getcpu */
#include "tasks-private.h"

#include <pthread.h>
#include <sched.h>

/* ---- a thread beside the caller ---- */

struct _RtThread {
  pthread_t id;
  const char *name;
  GThreadFunc func;
  gpointer data;
  gboolean joinable;   /* else it frees this itself */
  gboolean spread;     /* started away from the caller's core: `cores` is its own mask to take back */
  cpu_set_t cores;
  int caller_core, first_core;   /* where the caller was when it started this, and where it began */
};

static void *
thread_run (void *p)
{
  RtThread *t = p;
  t->first_core = sched_getcpu ();
  pthread_setname_np (pthread_self (), t->name);   /* (as GLib names its threads: for gdb, perf, top) */
  /* started away from the caller's core, it may go anywhere from now on: were that core the
   * only one free later, it would not wait for another */
  if (t->spread)
    sched_setaffinity (0, sizeof t->cores, &t->cores);
  gpointer result = t->func (t->data);
  if (!t->joinable)
    g_free (t);
  return result;
}

static gboolean
create (RtThread *t, gboolean spread)
{
  pthread_attr_t attr;
  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, t->joinable ? PTHREAD_CREATE_JOINABLE : PTHREAD_CREATE_DETACHED);
  int here = t->caller_core = sched_getcpu ();
  t->spread = FALSE;
  if (spread && here >= 0 && here < CPU_SETSIZE && sched_getaffinity (0, sizeof t->cores, &t->cores) == 0
      && CPU_ISSET (here, &t->cores) && CPU_COUNT (&t->cores) > 1)
    {
      cpu_set_t elsewhere = t->cores;
      CPU_CLR (here, &elsewhere);
      t->spread = pthread_attr_setaffinity_np (&attr, sizeof elsewhere, &elsewhere) == 0;
    }
  /* a detached thread may be gone as soon as it is created: nothing of it is touched then */
  gboolean joinable = t->joinable;
  pthread_t id;
  int failed = pthread_create (&id, &attr, thread_run, t);
  pthread_attr_destroy (&attr);
  if (!failed && joinable)
    t->id = id;
  return !failed;
}

static RtThread *
thread_new (const char *name, GThreadFunc func, gpointer data, gboolean joinable)
{
  RtThread *t = g_new0 (RtThread, 1);
  *t = (RtThread) { .name = name, .func = func, .data = data, .joinable = joinable };
  return t;
}

/* Starts t, beside the caller's core when the system lets it choose (not under a narrower
 * cpuset, say): FALSE, and t still the caller's, when no thread could start. */
static gboolean
thread_start (RtThread *t)
{
  return create (t, TRUE) || create (t, FALSE);
}

RtThread *
rt_thread_beside (const char *name, GThreadFunc func, gpointer data)
{
  RtThread *t = thread_new (name, func, data, TRUE);
  if (thread_start (t))
    return t;
  g_free (t);
  return NULL;
}

gpointer
rt_thread_join (RtThread *thread)
{
  return rt_thread_join_cores (thread, NULL, NULL);
}

gpointer
rt_thread_join_cores (RtThread *thread, int *caller_core, int *first_core)
{
  void *result = NULL;
  pthread_join (thread->id, &result);
  if (caller_core != NULL)
    *caller_core = thread->caller_core;
  if (first_core != NULL)
    *first_core = thread->first_core;
  g_free (thread);
  return result;
}

/* ---- numbered tasks shared by two ---- */

/* The tasks of one rt_run_shared, taken by the calling thread and one helper, each task by
 * whichever of the two takes it first. The caller waits only for tasks the helper has taken,
 * never for a helper that has not been given a core yet: on a busy machine it may start late,
 * or only once the caller is done; it then finds nothing left, and the last of the two to let
 * go frees this. */
typedef struct {
  gint refs;                    /* (atomic) the caller's and the helper's */
  guint n_tasks;
  gint next;                    /* (atomic) the next task to take */
  RtTaskFunc run;
  gpointer data;                /* touched only by the thread running a task */
  GMutex lock;
  GCond done_cond;
  guint done;                   /* tasks finished */
} SharedTasks;

static void
shared_tasks_unref (SharedTasks *st)
{
  if (!g_atomic_int_dec_and_test (&st->refs))
    return;
  g_mutex_clear (&st->lock);
  g_cond_clear (&st->done_cond);
  g_free (st);
}

static void
take_tasks (SharedTasks *st)
{
  gint i;
  while ((i = g_atomic_int_add (&st->next, 1)) < (gint) st->n_tasks)
    {
      st->run (st->data, (guint) i);
      g_mutex_lock (&st->lock);
      if (++st->done == st->n_tasks)
        g_cond_signal (&st->done_cond);
      g_mutex_unlock (&st->lock);
    }
}

static gpointer
helper_take_tasks (gpointer data)
{
  take_tasks (data);
  shared_tasks_unref (data);
  return NULL;
}

void
rt_run_shared (guint n_tasks, guint n_threads, RtTaskFunc run, gpointer data)
{
  SharedTasks *st = g_new0 (SharedTasks, 1);
  st->refs = 1;
  st->n_tasks = n_tasks;
  st->run = run;
  st->data = data;
  g_mutex_init (&st->lock);
  g_cond_init (&st->done_cond);
  if (n_threads >= 2 && n_tasks >= 2)
    {
      g_atomic_int_inc (&st->refs);
      /* never joined: see SharedTasks */
      RtThread *helper = thread_new ("rt-helper", helper_take_tasks, st, FALSE);
      if (!thread_start (helper))
        {
          g_free (helper);
          g_atomic_int_dec_and_test (&st->refs);
        }
    }
  take_tasks (st);
  g_mutex_lock (&st->lock);
  while (st->done < st->n_tasks)
    g_cond_wait (&st->done_cond, &st->lock);
  g_mutex_unlock (&st->lock);
  shared_tasks_unref (st);
}
