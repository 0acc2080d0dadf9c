/* SPDX-License-Identifier: Apache-2.0 */
/* rt-steps.h: the --steps SPEC of every command ("3", "1-10", "50-", "1,4,7-9"), and numeric option values.
 * Parsed once into ranges; analyzers ask whether a step is selected. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _RtStepSet RtStepSet;

/* NULL selects every step; "" is an error, like any other SPEC that names no step. Errors are RT_ERROR_USAGE with the offending piece. */
RtStepSet *rt_step_set_parse (const char *spec, GError **error);
/* The same for another option that takes numbers the same way (--worker LIST): errors name
 * `option`. */
RtStepSet *rt_number_set_parse (const char *spec, const char *option, GError **error);
/* The set of exactly these steps (ascending; none at all when n is 0). */
RtStepSet *rt_step_set_new_list (const gint32 *steps, guint n);
RtStepSet *rt_step_set_copy (const RtStepSet *set);
void rt_step_set_free (RtStepSet *set);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (RtStepSet, rt_step_set_free)

gboolean rt_step_set_contains (const RtStepSet *set, gint32 step);
/* TRUE when the set is "every step". */
gboolean rt_step_set_is_all (const RtStepSet *set);

/* Parses a whole-number option value (--step, --top...), given as text, with a usage error
 * naming the option. */
gboolean rt_parse_int_option (const char *name, const char *value, gint64 min, gint64 max,
                              gint64 *out, GError **error);

G_END_DECLS
