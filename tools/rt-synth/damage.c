/* SPDX-License-Identifier: Apache-2.0 */
/* rt-synth --faults: every kind of damage docs/input.md lists, each placed in one file chosen from
 * the seed, and the notes that say where it went. */
#include "synth.h"

static const char traceback_text[] =
  "Traceback (most recent call last):\n"
  "  File \"/opt/verl/verl/workers/rollout/sglang_rollout/sglang_rollout.py\", line 1187, in "
  "_async_rollout_a_request\n"
  "    output = await self._engine.async_generate(\n"
  "RuntimeError: CUDA error: an illegal memory access was encountered\n";

static gboolean
is_healthy (const FileDamage *d)
{
  return d->fate == FILE_PRESENT;
}

static gboolean
is_healthy_whole (const FileDamage *d)
{
  return d->fate == FILE_PRESENT && !d->truncate_last && d->n_copies == 0;
}

static gboolean
is_healthy_stats_intact (const FileDamage *d)
{
  return d->fate == FILE_PRESENT && d->stats == STATS_INTACT;
}

/* A random file satisfying `ok`, or -1: the candidates are listed so the choice is reproducible. */
static int
pick_file (Rng *r, const Synth *sy, gboolean (*ok) (const FileDamage *))
{
  int n = sy->n_steps * sy->n_workers, count = 0;
  g_autofree int *candidates = g_new (int, n);
  for (int i = 0; i < n; i++)
    if (ok (&sy->damage[i]))
      candidates[count++] = i;
  return count > 0 ? candidates[rng_int (r, 0, count - 1)] : -1;
}

static char *
file_label (const Synth *sy, int idx)
{
  return g_strdup_printf ("step_%d/worker_%d.jsonl", sy->steps[idx / sy->n_workers].folder,
                          idx % sy->n_workers);
}

static void
insert_lines (Rng *r, Synth *sy, const char *text, const char *what)
{
  int idx = pick_file (r, sy, is_healthy);
  if (idx < 0)
    return;
  FileDamage *d = &sy->damage[idx];
  if (d->n_inserted == MAX_INSERTED)
    return;
  d->inserted[d->n_inserted].at = rng_uniform (r);
  d->inserted[d->n_inserted++].text = text;
  g_autofree char *label = file_label (sy, idx);
  g_ptr_array_add (sy->fault_notes, g_strdup_printf ("%s in %s", what, label));
}

/* Every kind of damage docs/input.md mentions, each in one place chosen from the seed, so a few
 * lines out of many are bad and the statistics stay realistic. Returns the notes.txt to write
 * (OUT-relative path and text) through the out parameters. */
void
damage_plan (Synth *sy, char **notes_path, char **notes_text)
{
  int n = sy->n_steps * sy->n_workers, W = sy->n_workers;
  Rng r;
  rng_seed_stream (&r, sy->seed, STREAM_FAULTS, 0, 0, 0);
  sy->damage = g_new0 (FileDamage, n);
  GPtrArray *notes = sy->fault_notes;

  /* The newest step was still being written when the run stopped. */
  int truncated = (sy->n_steps - 1) * W + (int) rng_int (&r, 0, W - 1);
  sy->damage[truncated].truncate_last = TRUE;
  sy->damage[truncated].truncate_at = rng_range (&r, 0.3, 0.8);
  g_autofree char *truncated_label = file_label (sy, truncated);
  g_ptr_array_add (notes, g_strdup_printf ("truncated last line of %s", truncated_label));

  /* A rank without a file in one older step (present in the others). */
  if (sy->n_steps >= 2 && W >= 2)
    {
      int idx = (int) rng_int (&r, 0, sy->n_steps - 2) * W + (int) rng_int (&r, 0, W - 1);
      sy->damage[idx].fate = FILE_MISSING;
      g_autofree char *label = file_label (sy, idx);
      g_ptr_array_add (notes, g_strdup_printf ("missing %s", label));
    }
  else
    g_ptr_array_add (notes, g_strdup ("no missing file (needs 2+ steps and 2+ workers)"));

  /* A worker rerun after a crash: an empty file, the old content in a .bak, a note about it. */
  int emptied = pick_file (&r, sy, is_healthy_whole);
  int bak_source = emptied >= 0 ? emptied : truncated;
  FileDamage *bd = &sy->damage[bak_source];
  int bak_step = sy->steps[bak_source / W].folder, bak_worker = bak_source % W;
  bd->copies[bd->n_copies++] = g_strdup_printf ("step_%d/worker_%d.jsonl.bak", bak_step, bak_worker);
  *notes_path = g_strdup_printf ("step_%d/notes.txt", bak_step);
  *notes_text = g_strdup_printf ("rerun of worker %d after OOM; see worker_%d.jsonl.bak\n",
                                 bak_worker, bak_worker);
  if (emptied >= 0)
    {
      bd->fate = FILE_EMPTY;
      g_ptr_array_add (notes, g_strdup_printf ("empty step_%d/worker_%d.jsonl", bak_step, bak_worker));
    }
  else
    g_ptr_array_add (notes, g_strdup ("no empty file (no spare file)"));
  g_ptr_array_add (notes, g_strdup_printf ("stray step_%d/worker_%d.jsonl.bak and step_%d/notes.txt",
                                           bak_step, bak_worker, bak_step));

  /* Someone kept a trace file in a plotting folder beside the steps. */
  int plot_source = pick_file (&r, sy, is_healthy_whole);
  if (plot_source < 0)
    plot_source = truncated;
  FileDamage *pd = &sy->damage[plot_source];
  if (pd->n_copies < MAX_COPIES)
    {
      pd->copies[pd->n_copies++] = g_strdup ("plots/worker_0.jsonl");
      g_ptr_array_add (notes, g_strdup ("stray plots/worker_0.jsonl"));
    }

  insert_lines (&r, sy, "\n", "empty line");
  insert_lines (&r, sy, traceback_text, "Python traceback (4 lines)");
  insert_lines (&r, sy, "[1, 2]\n", "non-object line [1, 2]");
  insert_lines (&r, sy, "42\n", "non-object line 42");

  /* Only the newer logger writes the statistics line that can hold NaN and Infinity. */
  if (sy->gen->emit_length_stats != NULL)
    {
      const struct {
        StatsDamage kind;
        const char *what;
      } stats[] = { { STATS_NAN_P95, "NaN p95" }, { STATS_INF_MEAN_MIN, "Infinity/-Infinity mean/min" } };
      for (gsize i = 0; i < G_N_ELEMENTS (stats); i++)
        {
          int idx = pick_file (&r, sy, is_healthy_stats_intact);
          if (idx < 0)
            continue;
          sy->damage[idx].stats = stats[i].kind;
          g_autofree char *label = file_label (sy, idx);
          g_ptr_array_add (notes, g_strdup_printf ("%s in %s", stats[i].what, label));
        }
    }
  else
    g_ptr_array_add (notes, g_strdup ("no NaN/Infinity (v1 has no statistics line)"));
}

void
damage_free (Synth *sy)
{
  if (sy->damage == NULL)
    return;
  for (int i = 0; i < sy->n_steps * sy->n_workers; i++)
    for (int c = 0; c < sy->damage[i].n_copies; c++)
      g_free (sy->damage[i].copies[c]);
  g_clear_pointer (&sy->damage, g_free);
}
