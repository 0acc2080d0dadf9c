/* SPDX-License-Identifier: Apache-2.0 */
/* replay.c: runs a fuzz target on saved inputs (files, or every file of folders), without libFuzzer,
 * so that the regression corpus is a plain test in every build, with any compiler. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz-util.h"

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return g_strcmp0 (*(char *const *) a, *(char *const *) b);
}

/* `path` itself, or the files of the folder `path`, sorted (so that runs repeat). */
static void
collect (const char *path, GPtrArray *inputs)
{
  if (!g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_ptr_array_add (inputs, g_strdup (path));
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) dir = g_dir_open (path, 0, &error);
  if (dir == NULL)
    {
      g_printerr ("replay: %s\n", error->message);
      exit (2);
    }
  g_autoptr (GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
  const char *name;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (name[0] != '.')
      g_ptr_array_add (found, g_build_filename (path, name, NULL));
  g_ptr_array_sort (found, compare_names);
  for (guint i = 0; i < found->len; i++)
    g_ptr_array_add (inputs, g_strdup (g_ptr_array_index (found, i)));
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      g_printerr ("usage: %s INPUT|FOLDER...\n", argv[0]);
      return 2;
    }
  g_autoptr (GPtrArray) inputs = g_ptr_array_new_with_free_func (g_free);
  for (int i = 1; i < argc; i++)
    collect (argv[i], inputs);
  if (inputs->len == 0)
    {
      /* a test that runs nothing must not pass as one that ran */
      g_printerr ("replay: no input found in the given folders\n");
      return 1;
    }

  LLVMFuzzerInitialize (&argc, &argv);
  for (guint i = 0; i < inputs->len; i++)
    {
      const char *path = g_ptr_array_index (inputs, i);
      g_autoptr (GError) error = NULL;
      g_autofree char *data = NULL;
      gsize len = 0;
      if (!g_file_get_contents (path, &data, &len, &error))
        {
          g_printerr ("replay: %s\n", error->message);
          return 2;
        }
      /* the input in a block of its own size, as libFuzzer hands it over */
      g_autofree char *exact = rt_fuzz_exact_copy (data, len);
      LLVMFuzzerTestOneInput ((const uint8_t *) exact, len);
    }
  printf ("replayed %u input%s\n", inputs->len, inputs->len == 1 ? "" : "s");
  return 0;
}
