/* SPDX-License-Identifier: Apache-2.0 */
/* rolltrace.c: the one command to remember. `rolltrace COMMAND ARGS` runs rt-COMMAND ARGS,
 * as git runs its subcommands; `rolltrace help` lists the commands, each in its own words. */
#include <glib.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#ifndef RT_VERSION
#define RT_VERSION "0.0"
#endif
/* The commands the build lists (rt_add_analyzer in CMakeLists.txt, and rt-synth), space-separated */
#ifndef RT_COMMAND_NAMES
#define RT_COMMAND_NAMES ""
#endif

#define SUMMARY_LINE "Run any rolltrace command: rolltrace COMMAND is rt-COMMAND"

/* A command name is letters, digits and dashes: never a path. */
static gboolean
name_is_plain (const char *name)
{
  if (name[0] == '\0' || name[0] == '-')
    return FALSE;
  for (const char *p = name; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-')
      return FALSE;
  return TRUE;
}

/* rt-NAME beside this executable (the build folder, or the installed bin/), else in PATH. */
static char *
find_command (const char *name)
{
  if (g_str_has_prefix (name, "rt-"))
    name += 3;
  if (!name_is_plain (name))
    return NULL;
  g_autofree char *program = g_strconcat ("rt-", name, NULL);
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  if (self != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (self);
      g_autofree char *path = g_build_filename (dir, program, NULL);
      if (g_file_test (path, G_FILE_TEST_IS_EXECUTABLE) && !g_file_test (path, G_FILE_TEST_IS_DIR))
        return g_steal_pointer (&path);
    }
  return g_find_program_in_path (program);
}

/* What the command says it does (its hidden --summary-line), or NULL. */
static char *
command_summary (const char *path)
{
  const char *argv[] = { path, "--summary-line", NULL };
  g_autofree char *out = NULL;
  int status = 0;
  if (!g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out, NULL,
                     &status, NULL)
      || !g_spawn_check_wait_status (status, NULL) || out == NULL)
    return NULL;
  g_strstrip (out);
  char *nl = strchr (out, '\n');
  if (nl != NULL)
    *nl = '\0';
  return g_steal_pointer (&out);
}

static int
usage (void)
{
  g_print ("Usage:\n"
           "  rolltrace COMMAND [ARGS...]\n"
           "  rolltrace help [COMMAND]\n"
           "\n"
           "%s\n"
           "(rolltrace cdf logs/exp runs rt-cdf logs/exp). The commands analyse the rollout\n"
           "traces of multi-turn LLM RL runs, EXP/step_N/worker_M.jsonl.\n"
           "\n"
           "Commands:\n",
           SUMMARY_LINE);
  g_auto (GStrv) names = g_strsplit (RT_COMMAND_NAMES, " ", -1);
  for (guint i = 0; names[i] != NULL; i++)
    {
      if (names[i][0] == '\0')
        continue;
      g_autofree char *path = find_command (names[i]);
      g_autofree char *summary = path != NULL ? command_summary (path) : NULL;
      if (path != NULL)
        g_print ("  %-14s %s\n", names[i] + 3, summary != NULL ? summary : "");
    }
  g_print ("\n"
           "Help Options:\n"
           "  -h, --help           Show this list of the commands\n"
           "\n"
           "Application Options:\n"
           "  --version            Print the version and exit\n"
           "\n"
           "'rolltrace help COMMAND' shows the manual page of rt-COMMAND (or its --help);\n"
           "every command takes --help. rolltrace(7) describes the input, the cache and the\n"
           "commands.\n"
           "\n"
           "Exit status: that of the command run; 2 for an unknown command or option.\n"
           "\n"
           "Examples:\n"
           "  rolltrace check logs/exp\n"
           "  rolltrace cdf logs/exp --steps 100- --json\n"
           "  rolltrace help workers\n");
  return 0;
}

static int
not_a_command (const char *name)
{
  g_printerr ("rolltrace: '%s' is not a rolltrace command; 'rolltrace help' lists them\n", name);
  return 2;
}

/* `rolltrace help NAME`: the manual page when man has one, else the command's --help. */
static int
help_on (const char *name)
{
  g_autofree char *path = find_command (name);
  if (path == NULL)
    return not_a_command (name);
  g_autofree char *page = g_path_get_basename (path);
  g_autofree char *man = g_find_program_in_path ("man");
  if (man != NULL)
    {
      const char *where[] = { man, "-w", page, NULL };
      int status = 0;
      if (g_spawn_sync (NULL, (char **) where, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                        NULL, NULL, NULL, NULL, &status, NULL)
          && g_spawn_check_wait_status (status, NULL))
        {
          execl (man, "man", page, (char *) NULL);
          g_printerr ("rolltrace: cannot run %s: %s\n", man, g_strerror (errno));
        }
    }
  execl (path, page, "--help", (char *) NULL);
  g_printerr ("rolltrace: cannot run %s: %s\n", path, g_strerror (errno));
  return 1;
}

int
main (int argc, char **argv)
{
  if (argc < 2 || strcmp (argv[1], "help") == 0 || strcmp (argv[1], "--help") == 0
      || strcmp (argv[1], "-h") == 0)
    {
      if (argc > 2 && strcmp (argv[1], "help") == 0)
        return argc > 3 ? (g_printerr ("rolltrace: help takes one COMMAND\n"), 2) : help_on (argv[2]);
      return usage ();
    }
  if (strcmp (argv[1], "--version") == 0)
    {
      g_print ("rolltrace %s\n", RT_VERSION);
      return 0;
    }
  if (strcmp (argv[1], "--summary-line") == 0)
    {
      g_print ("%s\n", SUMMARY_LINE);
      return 0;
    }
  if (argv[1][0] == '-')
    {
      g_printerr ("rolltrace: unknown option %s\nTry 'rolltrace --help' for more information.\n", argv[1]);
      return 2;
    }
  g_autofree char *path = find_command (argv[1]);
  if (path == NULL)
    return not_a_command (argv[1]);
  /* the command sees itself as rt-NAME, whatever the front was called as */
  g_autofree char *name = g_path_get_basename (path);
  argv[1] = name;
  execv (path, argv + 1);
  g_printerr ("rolltrace: cannot run %s: %s\n", path, g_strerror (errno));
  return 1;
}
