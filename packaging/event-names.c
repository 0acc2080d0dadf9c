/* event-names.c: prints the event names of both logger generations, one a line, from the core's
 * table; run at build time so that the bash completion offers them (not installed). */
#include <rolltrace/rt-events.h>

#include <stdio.h>

int
main (void)
{
  for (const char *const *n = rt_event_known_names (); *n != NULL; n++)
    puts (*n);
  return 0;
}
