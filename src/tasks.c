/* tasks.c: numbered tasks shared by the calling thread and one helper (tasks-private.h). */
#include "tasks-private.h"

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
      GThread *helper = g_thread_try_new ("rt-helper", helper_take_tasks, st, NULL);
      if (helper != NULL)
        g_thread_unref (helper);   /* never joined: see SharedTasks */
      else
        g_atomic_int_dec_and_test (&st->refs);
    }
  take_tasks (st);
  g_mutex_lock (&st->lock);
  while (st->done < st->n_tasks)
    g_cond_wait (&st->done_cond, &st->lock);
  g_mutex_unlock (&st->lock);
  shared_tasks_unref (st);
}
