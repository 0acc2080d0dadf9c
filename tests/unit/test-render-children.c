/* SPDX-License-Identifier: Apache-2.0 */
/* test-render-children.c: rendering plots leaves no gnuplot child registered, so that a later
 * Ctrl-C (rt-report --watch runs for hours) kills no process that has since taken its pid. */
#include <glib/gstdio.h>

#include "rolltrace/rt-command.h"
#include "rolltrace/rt-outfile.h"

#include "test-util.h"

static void
test_rendered_plots_leave_no_child_registered (void)
{
  g_autofree char *gnuplot = g_find_program_in_path ("gnuplot");
  if (gnuplot == NULL)
    {
      g_test_message ("gnuplot is not installed (make deps installs it)");
      g_test_fail ();
      return;
    }
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("rt-render-XXXXXX", &error);
  g_assert_no_error (error);

  RtCommand cmd = { .name = "test-render" };
  RtSession s = { 0 };
  s.command = &cmd;
  s.out_dir = dir;
  s.format = (char *) "png";
  s.quiet = TRUE;
  s.scripts = g_ptr_array_new_with_free_func (g_free);
  /* more scripts than are drawn at once, so that several batches run */
  const guint n = 5;
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = g_strdup_printf ("plot_%u.gp", i);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_file_set_contents (path, "set terminal pngcairo size 160,120\nset output rt_output\nplot x\n", -1, &error);
      g_assert_no_error (error);
      g_ptr_array_add (s.scripts, g_steal_pointer (&name));
    }

  g_assert_cmpuint (rt_child_count (), ==, 0);
  g_assert_true (rt_session_render (&s, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (rt_child_count (), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *png = g_strdup_printf ("%s/plot_%u.png", dir, i);
      g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
    }
  g_ptr_array_unref (s.scripts);
  rt_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/render/rendered-plots-leave-no-child-registered",
                   test_rendered_plots_leave_no_child_registered);
  return g_test_run ();
}
