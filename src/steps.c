/* SPDX-License-Identifier: Apache-2.0 */
/* steps.c: parses --steps SPEC into a list of inclusive ranges, and the other numeric option values.
 * Strict on purpose: a typo in a step list should be an error, not a silently empty plot. */
#include "rolltrace/rt-steps.h"
#include "rolltrace/rt-error.h"

#include <string.h>

typedef struct {
  gint64 lo, hi;   /* inclusive; hi = G_MAXINT64 for "A-" */
} StepRange;

struct _RtStepSet {
  GArray *ranges;  /* empty: every step, unless `none` */
  gboolean none;   /* no step at all (a list of none) */
};

static gboolean
parse_number (const char *s, gsize len, gint64 *out)
{
  if (len == 0 || len > 9)
    return FALSE;
  gint64 v = 0;
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit (s[i]))
        return FALSE;
      v = v * 10 + (s[i] - '0');
    }
  *out = v;
  return TRUE;
}

static gboolean
parse_piece (const char *piece, StepRange *r)
{
  g_autofree char *p = g_strstrip (g_strdup (piece));
  const char *dash = strchr (p, '-');
  if (dash == NULL)
    {
      if (!parse_number (p, strlen (p), &r->lo))
        return FALSE;
      r->hi = r->lo;
      return TRUE;
    }
  if (!parse_number (p, (gsize) (dash - p), &r->lo))
    return FALSE;
  if (dash[1] == '\0')
    {
      r->hi = G_MAXINT64;
      return TRUE;
    }
  return parse_number (dash + 1, strlen (dash + 1), &r->hi) && r->hi >= r->lo;
}

RtStepSet *
rt_step_set_parse (const char *spec, GError **error)
{
  return rt_number_set_parse (spec, "--steps", error);
}

RtStepSet *
rt_number_set_parse (const char *spec, const char *option, GError **error)
{
  g_autoptr (RtStepSet) set = g_new0 (RtStepSet, 1);
  set->ranges = g_array_new (FALSE, FALSE, sizeof (StepRange));
  if (spec == NULL)
    return g_steal_pointer (&set);
  if (*spec == '\0')
    {
      /* `--steps "$STEPS"` with STEPS unset: a mistake, not a request for every step */
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                   "%s: empty (expected N, A-B or A-, separated by commas; leave the option "
                   "out for all)", option);
      return NULL;
    }

  g_auto (GStrv) pieces = g_strsplit (spec, ",", -1);
  for (guint i = 0; pieces[i] != NULL; i++)
    {
      StepRange r;
      if (!parse_piece (pieces[i], &r))
        {
          g_set_error (error, RT_ERROR, RT_ERROR_USAGE,
                       "%s: cannot read '%s' in '%s' (expected N, A-B or A-, "
                       "separated by commas, e.g. 1,4,10-20,50-)",
                       option, pieces[i], spec);
          return NULL;
        }
      g_array_append_val (set->ranges, r);
    }
  return g_steal_pointer (&set);
}

RtStepSet *
rt_step_set_new_list (const gint32 *steps, guint n)
{
  RtStepSet *set = g_new0 (RtStepSet, 1);
  set->ranges = g_array_new (FALSE, FALSE, sizeof (StepRange));
  set->none = n == 0;
  for (guint i = 0; i < n; i++)
    {
      StepRange *last = set->ranges->len > 0 ? &g_array_index (set->ranges, StepRange, set->ranges->len - 1) : NULL;
      if (last != NULL && last->hi + 1 == steps[i])
        last->hi = steps[i];
      else
        g_array_append_val (set->ranges, ((StepRange) { steps[i], steps[i] }));
    }
  return set;
}

RtStepSet *
rt_step_set_copy (const RtStepSet *set)
{
  RtStepSet *copy = g_new0 (RtStepSet, 1);
  copy->ranges = g_array_copy (set->ranges);
  copy->none = set->none;
  return copy;
}

void
rt_step_set_free (RtStepSet *set)
{
  if (set == NULL)
    return;
  g_array_unref (set->ranges);
  g_free (set);
}

gboolean
rt_step_set_is_all (const RtStepSet *set)
{
  return set == NULL || (set->ranges->len == 0 && !set->none);
}

gboolean
rt_step_set_contains (const RtStepSet *set, gint32 step)
{
  if (rt_step_set_is_all (set))
    return TRUE;
  for (guint i = 0; i < set->ranges->len; i++)
    {
      const StepRange *r = &g_array_index (set->ranges, StepRange, i);
      if (step >= r->lo && step <= r->hi)
        return TRUE;
    }
  return FALSE;
}

gboolean
rt_parse_int_option (const char *name, const char *value, gint64 min, gint64 max,
                     gint64 *out, GError **error)
{
  /* Read here, not by g_ascii_string_to_signed: that takes any errno left set during its
   * conversion for a bad number, and GLib's first use of its C locale, when another thread
   * (a loading or formatting one) takes it at the same moment, may wait on a futex that
   * leaves errno at EAGAIN: `--step 1` was then "not a whole number", once in a while. An
   * optional sign, then decimal digits, nothing else. */
  const char *p = value;
  gboolean negative = *p == '-';
  p += *p == '-' || *p == '+';
  guint64 magnitude = 0;
  gboolean ok = g_ascii_isdigit (*p);
  for (; ok && g_ascii_isdigit (*p); p++)
    {
      guint digit = (guint) (*p - '0');
      ok = magnitude <= ((guint64) G_MAXINT64 + 1 - digit) / 10;   /* |G_MININT64| at most */
      magnitude = magnitude * 10 + digit;
    }
  ok = ok && *p == '\0' && magnitude <= (guint64) G_MAXINT64 + negative;
  gint64 v = !ok ? 0 : negative ? (gint64) (0 - magnitude) : (gint64) magnitude;
  if (!ok || v < min || v > max)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "%s: '%s' is not a whole number from %"
                   G_GINT64_FORMAT " to %" G_GINT64_FORMAT, name, value, min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}
