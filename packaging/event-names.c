/* SPDX-License-Identifier: Apache-2.0 */
/* event-names.c: prints the event names of both logger generations, one a line, from the core's
 * table; run at build time so that the bash completion offers them (not installed). */
#include <rolltrace/rt-events.h>

#include <stdio.h>
#include <string.h>

int
main (int argc, char **argv)
{
  /* a build tool: it takes no argument, and says so rather than print the names */
  if (argc > 1)
    {
      gboolean help = strcmp (argv[1], "--help") == 0 || strcmp (argv[1], "-h") == 0;
      fprintf (help ? stdout : stderr,
               "usage: rt-event-names\n"
               "Prints the event names of both logger generations, one a line (run by the build for "
               "the bash completion; not installed).\n");
      return help ? 0 : 2;
    }
  for (const char *const *n = rt_event_known_names (); *n != NULL; n++)
    puts (*n);
  return 0;
}
