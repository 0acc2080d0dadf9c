/* SPDX-License-Identifier: Apache-2.0 */
/* rollouts.c: the rollout map: each step folder's rollouts, training or validation, and the
 * trainer's step of each, from the trainer's log, --validation-steps or the layout alone. */
#include "rolltrace/rt-rollouts.h"
#include "rolltrace/rt-error.h"

#include <math.h>
#include <string.h>

/* ---- the rollouts the trace shows ---- */

/* A file's rollouts: one per total_step_duration line, and one more still running when
 * lines follow the last (or no such line came yet). */
static guint
file_rollouts (const RtFile *f)
{
  gboolean running = f->n_events > f->n_events_at_end;
  return f->n_rollout_ends + (running ? 1 : 0);
}

/* Requests begun in rollout `index` of file f: the first rollout's are those whose first line
 * came before its total_step_duration line, the running one's those after the last such line;
 * the ended ones between (the appended layout has one: the validation) are counted together,
 * as the second's. */
static guint32
file_rollout_requests (const RtFile *f, guint index)
{
  guint32 first = MIN (f->first_rollout.n_requests, f->n_requests);
  guint32 at_end = CLAMP (f->n_requests_at_end, first, f->n_requests);
  if (f->n_rollout_ends == 0)
    return index == 0 ? f->n_requests : 0;
  if (index == f->n_rollout_ends)
    return f->n_requests - at_end;
  return index == 0 ? first : index == 1 ? at_end - first : 0;
}

static void
add_folder_rollouts (RtRolloutMap *map, const RtTrace *t, guint si)
{
  const RtStep *st = rt_trace_step (t, si);
  guint n = 1;
  for (guint k = 0; k < st->n_files; k++)
    n = MAX (n, file_rollouts (rt_trace_file (t, st->first_file + k)));
  for (guint r = 0; r < n; r++)
    {
      RtRollout ro = { .step_index = si, .step = st->step, .index = r, .kind = RT_ROLLOUT_TRAINING,
                       .train_step = -1, .running = TRUE };
      for (guint k = 0; k < st->n_files; k++)
        {
          const RtFile *f = rt_trace_file (t, st->first_file + k);
          ro.requests += file_rollout_requests (f, r);
          if (r < f->n_rollout_ends)
            ro.running = FALSE;   /* some rank ended it */
        }
      g_array_append_val (map->rollouts, ro);
    }
  if (n > 1)
    map->layout = RT_LAYOUT_APPENDED;
}

static void
rollout_clear (gpointer data)
{
  g_free (((RtRollout *) data)->evidence);
}

static RtRollout *
rollout (const RtRolloutMap *map, guint i)
{
  return &g_array_index (map->rollouts, RtRollout, i);
}

static void
set_kind (RtRollout *r, RtRolloutKind kind, gint32 train_step, char *evidence)
{
  r->kind = kind;
  r->train_step = train_step;
  g_free (r->evidence);
  r->evidence = evidence;
}

/* ---- what the trainer's log says ---- */

/* One rollout the log implies, in the order the trainer ran them. */
typedef struct {
  RtRolloutKind kind;
  gint32 train_step;
} Expected;

static gboolean
is_validation_metric (const char *name)
{
  return g_str_has_prefix (name, "val-core/") || g_str_has_prefix (name, "val-aux/")
         || g_str_has_prefix (name, "val/");
}

/* The metric has a value (finite or not) at `step`. */
static gboolean
metric_has (const RtMetric *m, gint32 step)
{
  rt_metric_at (m, step);   /* settles the points: one per step, by step */
  guint lo = 0, hi = m->points->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      gint32 s = g_array_index (m->points, RtMetricPoint, mid).step;
      if (s == step)
        return TRUE;
      if (s < step)
        lo = mid + 1;
      else
        hi = mid;
    }
  return FALSE;
}

/* The rollouts the log shows, in order: a step line with training metrics is that step's
 * training rollout, followed by a validation when the line also holds val-core/, val-aux/
 * or val/ metrics; a line of validation metrics alone (step:0 of current verl) is the
 * validation before training. */
static GArray *
expected_from_log (const RtTrainLog *log, guint *n_train, guint *n_val)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (Expected));
  g_autoptr (GPtrArray) names = rt_train_log_names (log);
  *n_train = *n_val = 0;
  for (guint i = 0; i < log->steps->len; i++)
    {
      gint32 step = g_array_index (log->steps, gint32, i);
      gboolean train = FALSE, val = FALSE;
      for (guint k = 0; k < names->len && !(train && val); k++)
        {
          const char *name = g_ptr_array_index (names, k);
          if (metric_has (rt_train_log_metric (log, name), step))
            *(is_validation_metric (name) ? &val : &train) = TRUE;
        }
      if (train)
        {
          Expected e = { RT_ROLLOUT_TRAINING, step };
          g_array_append_val (out, e);
          (*n_train)++;
        }
      if (val)
        {
          Expected e = { RT_ROLLOUT_VALIDATION, step };
          g_array_append_val (out, e);
          (*n_val)++;
        }
    }
  return out;
}

static char *
log_evidence (const Expected *e, const char *log_path, gboolean first)
{
  if (e->kind == RT_ROLLOUT_TRAINING)
    return g_strdup_printf ("%s: training step %d", log_path, e->train_step);
  if (first)
    return g_strdup_printf ("%s: validation before training (step:%d holds val metrics only)", log_path,
                            e->train_step);
  return g_strdup_printf ("%s: validation after step %d (its line holds val metrics)", log_path, e->train_step);
}

/* A folder per rollout call: the log's rollouts are the folders', one for one, in order. The
 * trace may hold one more at its end (the rollout running while the log waits for its line). */
static char *
map_folders (RtRolloutMap *map, const GArray *exp, const char *log_path, guint n_train, guint n_val)
{
  guint n = map->rollouts->len;
  gboolean one_more = n == exp->len + 1 && rollout (map, n - 1)->running;
  if (n != exp->len && !one_more)
    return g_strdup_printf ("%s shows %u rollouts (%u training steps, %u validations) where the trace has "
                            "%u step folders of one rollout each: they cannot be matched one for one, so "
                            "the folder numbers are kept and the rollouts taken as without a log",
                            log_path, exp->len, n_train, n_val, n);
  for (guint i = 0; i < exp->len; i++)
    {
      const Expected *e = &g_array_index (exp, Expected, i);
      set_kind (rollout (map, i), e->kind, e->train_step, log_evidence (e, log_path, i == 0));
    }
  if (one_more)
    set_kind (rollout (map, n - 1), RT_ROLLOUT_TRAINING, -1,
              g_strdup_printf ("after the last step of %s: still running, taken as training", log_path));
  return NULL;
}

/* Appended to the step: folder N's first rollout is training step N, its second the validation
 * after step N; a folder with validation alone is the validation before training. */
static char *
map_appended (RtRolloutMap *map, const GArray *exp, const char *log_path)
{
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      RtRollout *r = rollout (map, i);
      gboolean last_folder = r->step_index == rollout (map, map->rollouts->len - 1)->step_index;
      RtRolloutKind want = r->index == 0 ? RT_ROLLOUT_TRAINING : RT_ROLLOUT_VALIDATION;
      const Expected *found = NULL;
      for (guint k = 0; k < exp->len && found == NULL; k++)
        {
          const Expected *e = &g_array_index (exp, Expected, k);
          if (e->train_step == r->step && e->kind == want)
            found = e;
        }
      /* the validation before training: a folder whose one rollout the log knows as such */
      if (found == NULL && r->index == 0 && exp->len > 0)
        {
          const Expected *e = &g_array_index (exp, Expected, 0);
          if (e->kind == RT_ROLLOUT_VALIDATION && e->train_step == r->step)
            found = e;
        }
      if (found == NULL && r->running && last_folder)
        {
          set_kind (r, want, r->index == 0 ? r->step : -1,
                    g_strdup_printf ("after the last step of %s: still running, rollout %u of the folder",
                                     log_path, r->index + 1));
          continue;
        }
      if (found == NULL)
        return g_strdup_printf ("%s has no %s for step_%d's rollout %u (the appended layout: the first "
                                "rollout of step_N is training step N, the second its validation), so the "
                                "folder numbers are kept and the rollouts taken as without a log",
                                log_path, want == RT_ROLLOUT_TRAINING ? "training step" : "validation",
                                r->step, r->index + 1);
      set_kind (r, found->kind, found->train_step, log_evidence (found, log_path, found == &g_array_index (exp, Expected, 0)));
    }
  return NULL;
}

/* ---- without a log ---- */

static void
map_without_log (RtRolloutMap *map, const RtStepSet *validation_steps, const char *spec)
{
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      RtRollout *r = rollout (map, i);
      if (validation_steps != NULL && rt_step_set_contains (validation_steps, r->step))
        set_kind (r, RT_ROLLOUT_VALIDATION, -1, g_strdup_printf ("--validation-steps %s", spec));
      else if (r->index > 0)
        set_kind (r, RT_ROLLOUT_VALIDATION, -1,
                  g_strdup_printf ("rollout %u of its files: the appended layout puts a step's validation "
                                   "after its training rollout", r->index + 1));
      else
        set_kind (r, RT_ROLLOUT_TRAINING, -1,
                  g_strdup (validation_steps != NULL ? "not among --validation-steps"
                            : "no trainer's log: taken as training"));
    }
}

/* The automatic rule: a training rollout with fewer than half the median rollout's requests
 * is likely a validation (verl validates on one answer per prompt of a smaller set). */
#define LIKELY_VALIDATION_SHARE 0.5

static void
flag_likely_validation (RtRolloutMap *map)
{
  g_autoptr (GArray) counts = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint i = 0; i < map->rollouts->len; i++)
    if (!rollout (map, i)->running && rollout (map, i)->requests > 0)
      g_array_append_val (counts, rollout (map, i)->requests);
  if (counts->len < 3)
    return;   /* no median to speak of */
  g_array_sort (counts, rt_compare_gint32);
  guint32 median = g_array_index (counts, guint32, counts->len / 2);
  map->median_requests = median;
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      RtRollout *r = rollout (map, i);
      if (r->kind != RT_ROLLOUT_TRAINING || r->running || r->requests >= LIKELY_VALIDATION_SHARE * median)
        continue;
      r->likely_validation = TRUE;
      map->n_likely_validation++;
      char *evidence = g_strdup_printf ("%s; likely validation: %u requests, the median rollout has %u",
                                        r->evidence, r->requests, median);
      g_free (r->evidence);
      r->evidence = evidence;
    }
}

RtRolloutMap *
rt_rollout_map_build (const RtTrace *t, const RtTrainLog *log, const char *log_path,
                      const RtStepSet *validation_steps, const char *spec)
{
  RtRolloutMap *map = g_new0 (RtRolloutMap, 1);
  map->rollouts = g_array_new (FALSE, TRUE, sizeof (RtRollout));
  g_array_set_clear_func (map->rollouts, rollout_clear);
  map->layout = RT_LAYOUT_FOLDERS;
  for (guint si = 0; si < t->steps->len; si++)
    add_folder_rollouts (map, t, si);
  if (t->trainer_files != NULL && t->trainer_files->len > 0)
    map->layout = RT_LAYOUT_APPENDED;   /* only the 2026 logger writes the trainer's sections */

  if (log != NULL)
    {
      guint n_train, n_val;
      g_autoptr (GArray) exp = expected_from_log (log, &n_train, &n_val);
      log_path = log_path != NULL ? log_path : "the trainer's log";
      map->disagreement = map->layout == RT_LAYOUT_FOLDERS ? map_folders (map, exp, log_path, n_train, n_val)
                          : map_appended (map, exp, log_path);
      if (map->disagreement == NULL)
        {
          map->source = g_strdup_printf ("kinds from the trainer's log %s", log_path);
          for (guint i = 0; i < map->rollouts->len; i++)
            map->train_steps_known |= rollout (map, i)->train_step >= 0;
          return map;
        }
    }
  map_without_log (map, validation_steps, spec);
  if (validation_steps != NULL)
    map->source = g_strdup_printf ("kinds from --validation-steps %s", spec);
  else
    map->source = g_strdup (map->layout == RT_LAYOUT_APPENDED
                            ? "no trainer's log: a folder's first rollout taken as training, a later one as validation"
                            : "no trainer's log: every folder taken as training");
  flag_likely_validation (map);
  return map;
}

void
rt_rollout_map_free (RtRolloutMap *map)
{
  if (map == NULL)
    return;
  g_array_unref (map->rollouts);
  g_free (map->source);
  g_free (map->disagreement);
  g_free (map);
}

gboolean
rt_rollout_select_parse (const char *value, RtRolloutSelect *out, GError **error)
{
  static const char *const names[] = { "training", "validation", "all" };
  if (value == NULL)
    {
      *out = RT_ROLLOUTS_TRAINING;
      return TRUE;
    }
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strcmp (value, names[i]) == 0)
      {
        *out = (RtRolloutSelect) i;
        return TRUE;
      }
  g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--rollouts: '%s' is not training, validation or all", value);
  return FALSE;
}

const char *
rt_rollout_kind_name (RtRolloutKind kind)
{
  return kind == RT_ROLLOUT_TRAINING ? "training" : "validation";
}

static gboolean
selects (RtRolloutSelect which, RtRolloutKind kind)
{
  return which == RT_ROLLOUTS_ALL || (which == RT_ROLLOUTS_TRAINING) == (kind == RT_ROLLOUT_TRAINING);
}

const RtRollout *
rt_rollout_map_find (const RtRolloutMap *map, gint32 step, RtRolloutSelect which)
{
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      const RtRollout *r = rollout (map, i);
      if (r->step == step && selects (which, r->kind))
        return r;
    }
  return NULL;
}

RtStepSet *
rt_rollout_map_step_set (const RtRolloutMap *map, const RtStepSet *user, RtRolloutSelect which)
{
  g_autoptr (GArray) steps = g_array_new (FALSE, FALSE, sizeof (gint32));
  for (guint i = 0; i < map->rollouts->len; i++)
    {
      const RtRollout *r = rollout (map, i);
      gboolean last = steps->len > 0 && g_array_index (steps, gint32, steps->len - 1) == r->step;
      if (!last && selects (which, r->kind) && rt_step_set_contains (user, r->step))
        g_array_append_val (steps, r->step);
    }
  return rt_step_set_new_list ((const gint32 *) (void *) steps->data, steps->len);
}

gint32
rt_rollout_map_train_step (const RtRolloutMap *map, gint32 step, RtRolloutSelect which)
{
  const RtRollout *r = map != NULL ? rt_rollout_map_find (map, step, which) : NULL;
  return r != NULL ? r->train_step : -1;
}

RtFilePart *
rt_rollout_map_file_parts (const RtRolloutMap *map, const RtTrace *t, RtRolloutSelect which)
{
  RtFilePart *parts = g_new0 (RtFilePart, t->files->len + 1);   /* RT_FILE_WHOLE */
  for (guint i = 0; i < map->rollouts->len;)
    {
      /* a folder's rollouts, one after another: which of them are read */
      const RtRollout *r = rollout (map, i);
      gboolean first = FALSE, later = FALSE;
      for (; i < map->rollouts->len && rollout (map, i)->step_index == r->step_index; i++)
        if (selects (which, rollout (map, i)->kind))
          *(rollout (map, i)->index == 0 ? &first : &later) = TRUE;
      RtFilePart part = first && !later ? RT_FILE_FIRST_ROLLOUT : later && !first ? RT_FILE_LATER_ROLLOUTS
                                                                                  : RT_FILE_WHOLE;
      const RtStep *st = rt_trace_step (t, r->step_index);
      for (guint k = 0; k < st->n_files; k++)
        parts[st->first_file + k] = part;
    }
  return parts;
}

gint32
rt_trace_train_step (const RtTrace *t, gint32 step)
{
  return t->rollouts != NULL ? rt_rollout_map_train_step (t->rollouts, step, (RtRolloutSelect) t->rollouts_read) : -1;
}
