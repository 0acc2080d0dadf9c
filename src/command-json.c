/* SPDX-License-Identifier: Apache-2.0 */
/* command-json.c: the --json document of a command: written through one writer while it runs,
 * printed once it is done, whatever happened (an {"error": ...} document when it failed first). */
#include "command-private.h"

#include <stdio.h>

RtJsonWriter *
rt_session_json (RtSession *s)
{
  if (s->json_doc == NULL)
    {
      s->json_doc = g_string_new (NULL);
      rt_jw_init (&s->json_writer, s->json_doc);
    }
  return &s->json_writer;
}

void
rt_session_json_rows (RtSession *s, const char *key, const RtTable *table)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_key (w, key);
  rt_table_write_json (table, w);
  rt_jw_end_object (w);
}

/* With --json, one document on stdout whatever happened: the command's own, or,
 * when it failed before writing one, {"error": ...} with the message. */
void
rt_session_print_json (RtSession *s, const GError *error)
{
  if (!s->json)
    return;
  if ((s->json_doc == NULL || s->json_doc->len == 0) && error != NULL)
    {
      RtJsonWriter *w = rt_session_json (s);
      rt_jw_begin_object (w);
      rt_jw_member_string (w, "error", error->message);
      rt_jw_end_object (w);
    }
  if (s->json_doc == NULL || s->json_doc->len == 0)
    return;
  fwrite (s->json_doc->str, 1, s->json_doc->len, stdout);
  fputc ('\n', stdout);
  guint replaced = s->json_writer.replaced_texts;
  if (replaced > 0 && !s->quiet)
    g_printerr ("%s: note: %u text%s from the input %s not valid UTF-8: invalid bytes are U+FFFD in the JSON\n",
                s->command->name, replaced, replaced == 1 ? "" : "s", replaced == 1 ? "was" : "were");
}

void
rt_session_json_step (RtSession *s, gint32 step)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_member_int (w, "step", step);
  const RtRolloutMap *map = s->experiments != NULL ? rt_session_experiment (s, 0)->rollouts : NULL;
  if (map == NULL || !map->train_steps_known)
    return;
  gint32 train = rt_rollout_map_train_step (map, step, s->rollouts);
  rt_jw_key (w, "train_step");
  train >= 0 ? rt_jw_int (w, train) : rt_jw_null (w);
}
