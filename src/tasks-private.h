/* tasks-private.h: work split into numbered tasks, run on the calling thread and on one helper
 * thread beside it. Used wherever a command does two independent things at once on the two
 * cores (the loader's listing and checks, the plots' data, cdf.tsv's halves). */
#pragma once

#include <glib.h>

typedef void (*RtTaskFunc) (gpointer data, guint task);

/* Runs run (data, 0) ... run (data, n_tasks - 1), on this thread and, with n_threads of two or
 * more (and more than one task), on a helper too, and returns once all are done: in any
 * order, two at a time, so that they must not depend on one another. A helper that has not
 * started by the time this thread has taken every task is not waited for. */
void rt_run_shared (guint n_tasks, guint n_threads, RtTaskFunc run, gpointer data);
