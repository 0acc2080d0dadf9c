/* SPDX-License-Identifier: Apache-2.0 */
/* test-util.h: what the unit tests of the analyses share: loading a fixture or a folder, a step
 * selection, and a one-file experiment written into a temporary folder and removed after. */
#pragma once

#include <glib/gstdio.h>

#include "rolltrace/rt-analyses.h"

/* The experiment at `path`, read on one thread with up to `max_problems` bad lines listed per file. */
static inline RtTrace *
rt_test_load_with (const char *path, guint max_problems)
{
  RtLoadOptions opts = { .n_threads = 1, .max_problems_per_file = max_problems };
  g_autoptr (GError) error = NULL;
  RtTrace *t = rt_trace_load (path, &opts, &error);
  g_assert_no_error (error);
  return t;
}

static inline RtTrace *
rt_test_load (const char *path)
{
  return rt_test_load_with (path, 100);
}

/* fixtures/NAME */
static inline RtTrace *
rt_test_load_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (RT_FIXTURES_DIR, name, NULL);
  return rt_test_load (path);
}

static inline RtStepSet *
rt_test_steps (const char *spec)
{
  g_autoptr (GError) error = NULL;
  RtStepSet *set = rt_step_set_parse (spec, &error);
  g_assert_no_error (error);
  return set;
}

/* A temporary experiment of one file, step_1/worker_0.jsonl holding `jsonl`; its folder. */
static inline char *
rt_test_experiment_new (const char *jsonl)
{
  g_autoptr (GError) error = NULL;
  char *dir = g_dir_make_tmp ("rt-test-XXXXXX", &error);
  g_assert_no_error (error);
  g_autofree char *step = g_build_filename (dir, "step_1", NULL);
  g_autofree char *file = g_build_filename (step, "worker_0.jsonl", NULL);
  g_assert_cmpint (g_mkdir (step, 0700), ==, 0);
  g_file_set_contents (file, jsonl, -1, &error);
  g_assert_no_error (error);
  return dir;
}

static inline void
rt_test_experiment_remove (const char *dir)
{
  g_autofree char *step = g_build_filename (dir, "step_1", NULL);
  g_autofree char *file = g_build_filename (step, "worker_0.jsonl", NULL);
  g_assert_cmpint (g_remove (file), ==, 0);
  g_assert_cmpint (g_rmdir (step), ==, 0);
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

/* Removes `path` and, when it is a folder (not a link to one), everything below it. */
static inline void
rt_test_remove_tree (const char *path)
{
  if (g_file_test (path, G_FILE_TEST_IS_DIR) && !g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;
      while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          rt_test_remove_tree (child);
        }
      g_rmdir (path);
    }
  else
    g_remove (path);
}
