/* SPDX-License-Identifier: Apache-2.0 */
/* rt-test-multi.c: a command built only for the tests (t-multi.sh), over EXP...: it prints what
 * the command layer hands a command of several experiments, one line per experiment. */
#include "rolltrace/rt-command.h"

static int
run (RtSession *s, GError **error)
{
  (void) error;
  /* the one-trace commands read s->trace: it is the first experiment's */
  g_return_val_if_fail (s->trace == rt_session_experiment (s, 0)->trace, 3);
  rt_session_print (s, "subject\t%s\n", s->subject);
  for (guint i = 0; i < s->experiments->len; i++)
    {
      const RtExperiment *e = rt_session_experiment (s, i);
      g_autoptr (GString) steps = g_string_new (NULL);
      for (guint k = 0; k < e->steps->len; k++)
        g_string_append_printf (steps, "%s%d", k ? "," : "",
                                rt_trace_step (e->trace, g_array_index (e->steps, guint, k))->step);
      rt_session_print (s, "%s\t%s\tsteps %s\tfiles %u\trequests %u\tcache %s\n", e->label,
                        e->trace->path, steps->str, e->trace->files->len, e->trace->n_requests,
                        e->trace->stats.cache_used ? "used" : "unused");
    }
  return 0;
}

int
main (int argc, char **argv)
{
  static const RtCommand cmd = {
    .name = "rt-test-multi",
    .parameters = "EXP...",
    .summary = "For the tests: lists the experiments EXP... as a command receives them.",
    .description = "Text: one line per experiment: LABEL, PATH, steps, files, requests, cache.",
    .run = run,
    .flags = RT_COMMAND_LOADS_TRACES | RT_COMMAND_WRITES_PLOTS,
    .min_args = 1,
    .max_args = 4,
  };
  return rt_command_main (&cmd, argc, argv);
}
