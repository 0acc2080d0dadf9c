/* SPDX-License-Identifier: Apache-2.0 */
/* tasks-private.h: work split into numbered tasks, run on the calling thread and on one helper
 * thread beside it. Used wherever a command does two independent things at once on the two
 * cores (the loader's listing and checks, the report's analyses, a step's spans, the CDF's
 * summary of all, the plots' data, cdf.tsv's halves). */
#pragma once

#include <glib.h>

typedef void (*RtTaskFunc) (gpointer data, guint task);

/* Runs run (data, 0) ... run (data, n_tasks - 1), on this thread and, with n_threads of two or
 * more (and more than one task), on a helper too, and returns once all are done: in any
 * order, two at a time, so that they must not depend on one another. A helper that has not
 * started by the time this thread has taken every task is not waited for. The helper is
 * started as rt_thread_beside starts a thread. */
void rt_run_shared (guint n_tasks, guint n_threads, RtTaskFunc run, gpointer data);

/* A thread that runs func (data) beside the caller: started on any core but the caller's
 * (then free to move like any other), as a helper that starts where the caller already
 * runs waits for the scheduler to move one of the two, which on some machines (virtual ones
 * that keep a process's threads together) took a noticeable part of a short run
 * (bench/RESULTS.md, "Behind the code"). NULL when no thread
 * could be started; rt_thread_join waits for it and frees it. (A thread joined is waited
 * for even when it has not started: where the caller could do its work instead, rt_run_shared
 * is the better way.) */
typedef struct _RtThread RtThread;
RtThread *rt_thread_beside (const char *name, GThreadFunc func, gpointer data);
gpointer rt_thread_join (RtThread *thread);
/* rt_thread_join, and the cores the caller was on when it started the thread and the thread
 * began on (-1: not known), for the tests */
gpointer rt_thread_join_cores (RtThread *thread, int *caller_core, int *first_core);
