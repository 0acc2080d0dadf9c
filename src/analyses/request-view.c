/* SPDX-License-Identifier: Apache-2.0 */
/* request-view.c: everything that happened to one request, in time: its lines, each inside the
 * shortest line that holds it, and the gaps where no innermost line was running. */
#include "rolltrace/rt-analyses.h"

#include <math.h>
#include <string.h>

/* A line of the request while the view is made. */
typedef struct {
  RtRequestItem item;
  guint32 first_child, next_sibling;   /* RT_NONE: none */
  gboolean has_timed_child;
} Node;

/* Whether line `in` (its start, end and length) lies inside line `out`. An instant line lies
 * inside a line that began more than the slack before it and has not ended the slack before
 * it: at a line's very edge (a turn_start at its turn's first microsecond) it is the outer
 * line's, whose moment it marks. */
static gboolean
inside (const RtRequestItem *in, const RtRequestItem *out)
{
  if (isnan (in->duration_s))
    return out->start_s + RT_REQUEST_NEST_SLACK_S < in->start_s && in->end_s < out->end_s - RT_REQUEST_NEST_SLACK_S;
  return in->start_s >= out->start_s - RT_REQUEST_NEST_SLACK_S && in->end_s <= out->end_s + RT_REQUEST_NEST_SLACK_S;
}

static double
length_of (const RtRequestItem *it)
{
  return isnan (it->duration_s) ? 0 : it->end_s - it->start_s;
}

/* Whether `b` comes before `a` among siblings: by start, then, for starts within the slack of
 * each other (a turn_start and its turn_end), line order, a gap last. */
static gboolean
before (const RtRequestItem *b, const RtRequestItem *a)
{
  if (fabs (b->start_s - a->start_s) > RT_REQUEST_NEST_SLACK_S)
    return b->start_s < a->start_s;
  return b->row < a->row;   /* a gap's row is RT_NONE */
}

/* Links node i among the children of `parent` (RT_NONE: the roots, from *roots), in order. */
static void
link_child (GArray *nodes, guint32 *roots, guint32 parent, guint32 i)
{
  Node *n = (Node *) (void *) nodes->data;
  guint32 *at = parent == RT_NONE ? roots : &n[parent].first_child;
  while (*at != RT_NONE && before (&n[*at].item, &n[i].item))
    at = &n[*at].next_sibling;
  n[i].next_sibling = *at;
  *at = i;
}

static int
compare_start_then_row (gconstpointer a, gconstpointer b, gpointer nodes)
{
  const RtRequestItem *x = &((const Node *) nodes)[*(const guint32 *) a].item;
  const RtRequestItem *y = &((const Node *) nodes)[*(const guint32 *) b].item;
  if (x->start_s != y->start_s)
    return x->start_s < y->start_s ? -1 : 1;
  return x->row < y->row ? -1 : x->row > y->row;   /* a gap's row is RT_NONE: last */
}

/* Every node a root, in order of start, then line order (gaps last): the flat view of a request
 * of more than RT_REQUEST_NEST_MAX lines, sorted once (link_child's walk down the list for each
 * one took 12 s for 70,000 lines). The first root. */
static guint32
link_flat (GArray *nodes)
{
  Node *n = (Node *) (void *) nodes->data;
  g_autofree guint32 *order = g_new (guint32, MAX (nodes->len, 1u));
  for (guint32 i = 0; i < nodes->len; i++)
    order[i] = i;
  g_qsort_with_data (order, (gint) nodes->len, sizeof *order, compare_start_then_row, n);
  for (guint32 k = 0; k < nodes->len; k++)
    n[order[k]].next_sibling = k + 1 < nodes->len ? order[k + 1] : RT_NONE;
  return nodes->len > 0 ? order[0] : RT_NONE;
}

/* The shortest line holding `it`, not `self`: among lines equally long, the one written last
 * (an enclosing line is written after what it holds). RT_NONE: none. */
static guint32
holder (const GArray *nodes, guint n_lines, const RtRequestItem *it, guint32 self)
{
  const Node *n = (const Node *) (const void *) nodes->data;
  double len = length_of (it);
  guint32 best = RT_NONE;
  for (guint32 j = 0; j < n_lines; j++)
    {
      const RtRequestItem *o = &n[j].item;
      if (j == self || isnan (o->duration_s) || !inside (it, o))
        continue;
      double olen = length_of (o);
      if (olen < len || (olen == len && (self == RT_NONE || o->row < it->row)))
        continue;
      if (best == RT_NONE || olen < length_of (&n[best].item)
          || (olen == length_of (&n[best].item) && o->row > n[best].item.row))
        best = j;
    }
  return best;
}

static int
compare_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return x < y ? -1 : x > y;
}

/* The stretches of [0, v->end_s] that no innermost timed line covers: those of at least
 * RT_REQUEST_GAP_MIN_S become gap nodes, the others are counted. */
static void
add_gaps (RtRequestView *v, GArray *nodes, guint n_lines)
{
  /* the innermost timed lines' intervals, by start */
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, 2 * sizeof (double));
  for (guint i = 0; i < n_lines; i++)
    {
      const Node *n = &g_array_index (nodes, Node, i);
      if (isnan (n->item.duration_s) || n->has_timed_child || !(n->item.end_s > n->item.start_s))
        continue;
      double span[2] = { n->item.start_s, n->item.end_s };
      g_array_append_vals (spans, span, 1);
    }
  g_array_sort (spans, compare_double);   /* by start: the first double of each */
  double covered = 0;
  for (guint k = 0; k <= spans->len; k++)
    {
      const double *span = k < spans->len ? (const double *) (const void *) (spans->data + k * 2 * sizeof (double))
                                          : NULL;
      double next = span != NULL ? span[0] : v->end_s;
      if (next > covered)
        {
          double len = next - covered;
          if (len >= RT_REQUEST_GAP_MIN_S)
            {
              Node gap = { .item = { .start_s = covered, .end_s = next, .duration_s = len, .row = RT_NONE,
                                     .parent = RT_NONE, .event = RT_EVENT_NONE, .turn = -1 },
                           .first_child = RT_NONE, .next_sibling = RT_NONE };
              g_array_append_val (nodes, gap);
              v->gaps++;
              v->gap_s += len;
            }
          else
            {
              v->short_gaps++;
              v->short_gap_s += len;
            }
        }
      if (span != NULL)
        covered = MAX (covered, span[1]);
    }
}

/* Appends node i and, depth first, those inside it to v->items; `parent` its index there. */
static void
flatten (RtRequestView *v, const GArray *nodes, guint32 i, guint32 parent, guint16 depth)
{
  for (; i != RT_NONE; i = g_array_index (nodes, Node, i).next_sibling)
    {
      const Node *n = &g_array_index (nodes, Node, i);
      RtRequestItem it = n->item;
      it.parent = parent;
      it.depth = depth;
      g_array_append_val (v->items, it);
      flatten (v, nodes, n->first_child, v->items->len - 1, depth + 1);
    }
}

RtRequestView *
rt_request_view (const RtTrace *t, guint request)
{
  const RtRequest *q = rt_trace_request (t, request);
  const RtFile *f = rt_trace_file (t, q->file);
  const RtEvent *rows = rt_trace_file_events (t, q->file);
  guint32 local = request - f->first_request;   /* rows name requests within the file */
  RtRequestView *v = g_new0 (RtRequestView, 1);
  v->request = request;
  v->origin_s = NAN;
  v->items = g_array_new (FALSE, FALSE, sizeof (RtRequestItem));

  g_autoptr (GArray) nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  for (guint e = 0; e < f->n_events; e++)
    {
      const RtEvent *ev = &rows[e];
      if (ev->request != local)
        continue;
      if (isnan (ev->end_s))
        {
          v->untimed++;
          continue;
        }
      double duration = ev->duration_s;
      double start = isnan (duration) ? ev->end_s : ev->end_s - MAX (duration, 0);
      Node n = { .item = { .start_s = start, .end_s = ev->end_s, .duration_s = duration, .row = e,
                           .parent = RT_NONE, .event = ev->event, .turn = ev->turn },
                 .first_child = RT_NONE, .next_sibling = RT_NONE };
      g_array_append_val (nodes, n);
      v->origin_s = isnan (v->origin_s) ? start : MIN (v->origin_s, start);
    }
  v->lines = nodes->len;
  if (v->lines == 0)
    {
      v->end_s = NAN;
      return v;
    }
  v->end_s = 0;
  for (guint i = 0; i < v->lines; i++)
    {
      RtRequestItem *it = &g_array_index (nodes, Node, i).item;
      it->start_s -= v->origin_s;
      it->end_s -= v->origin_s;
      v->end_s = MAX (v->end_s, it->end_s);
    }

  /* each line inside the shortest that holds it (a request has a few hundred lines: pairs are
   * cheap; past RT_REQUEST_NEST_MAX, a damaged or hostile trace's, none is nested) */
  v->flat = v->lines > RT_REQUEST_NEST_MAX;
  for (guint i = 0; !v->flat && i < v->lines; i++)
    {
      Node *n = &g_array_index (nodes, Node, i);
      n->item.parent = holder (nodes, v->lines, &n->item, i);
      if (n->item.parent != RT_NONE && !isnan (n->item.duration_s))
        g_array_index (nodes, Node, n->item.parent).has_timed_child = TRUE;
    }
  add_gaps (v, nodes, v->lines);
  for (guint i = v->lines; !v->flat && i < nodes->len; i++)
    {
      Node *n = &g_array_index (nodes, Node, i);
      n->item.parent = holder (nodes, v->lines, &n->item, RT_NONE);
    }

  guint32 roots = RT_NONE;
  if (v->flat)
    roots = link_flat (nodes);
  else
    for (guint i = 0; i < nodes->len; i++)
      link_child (nodes, &roots, g_array_index (nodes, Node, i).item.parent, i);
  flatten (v, nodes, roots, RT_NONE, 0);
  return v;
}

void
rt_request_view_free (RtRequestView *v)
{
  if (v == NULL)
    return;
  g_array_unref (v->items);
  g_free (v);
}

GArray *
rt_requests_find (const RtTrace *t, const RtStepSet *steps, const char *prefix)
{
  GArray *found = g_array_new (FALSE, FALSE, sizeof (guint));
  gsize len = strlen (prefix);
  gboolean exact = FALSE;
  for (guint si = 0; si < t->steps->len; si++)
    {
      const RtStep *st = rt_trace_step (t, si);
      if (steps != NULL && !rt_step_set_contains (steps, st->step))
        continue;
      for (guint k = 0; k < st->n_files; k++)
        {
          const RtFile *f = rt_trace_file (t, st->first_file + k);
          for (guint r = 0; f->first_request != RT_NONE && r < f->n_requests; r++)
            {
              guint idx = f->first_request + r;
              const char *id = rt_request_id (t, rt_trace_request (t, idx));
              if (id == NULL || strncmp (id, prefix, len) != 0)
                continue;
              if (id[len] == '\0' && !exact)
                {
                  exact = TRUE;   /* the id itself: the prefixes of longer ids drop out */
                  g_array_set_size (found, 0);
                }
              if (!exact || id[len] == '\0')
                g_array_append_val (found, idx);
            }
        }
    }
  return found;
}

const RtTableSpec rt_request_lines_spec = {
  "request_lines", "one per line of the request or gap between its lines, depth first in time",
  (const RtColumn[]) {
    { RT_COL ("phase", RT_COLUMN_TEXT, NULL,
              "what the line's event is (pre-process, engine, tool, post-process, other, enclosing), "
              "or gap: nothing logged") },
    { RT_COL ("event", RT_COLUMN_TEXT, NULL, "the line's event; null for a gap") },
    { RT_COL ("turn", RT_COLUMN_INT, NULL, "extra.turn as logged; null when absent and for a gap") },
    { RT_COL ("depth", RT_COLUMN_INT, NULL, "how many lines it is inside (0: none)") },
    { RT_COL ("start_s", RT_COLUMN_NUMBER, "s", "its start, from the request's start (its earliest line's)") },
    { RT_COL ("end_s", RT_COLUMN_NUMBER, "s", "its end (the line's timestamp), from the request's start") },
    { RT_COL ("duration_s", RT_COLUMN_NUMBER, "s", "duration_sec as logged, a gap's length; null for an instant line") },
    RT_COLUMNS_END,
  },
};

RtTable *
rt_request_lines_table (const RtTrace *t, const RtRequestView *v)
{
  RtTable *table = rt_table_new (&rt_request_lines_spec);
  rt_table_reserve_rows (table, v->items->len);
  for (guint i = 0; i < v->items->len; i++)
    {
      const RtRequestItem *it = rt_request_item (v, i);
      gboolean gap = it->row == RT_NONE;
      const char *event = gap ? NULL : rt_event_registry_name (t->registry, it->event);
      rt_table_text (table, gap ? "gap" : rt_phase_kind_name (rt_phase_kind (event)));
      rt_table_text (table, event);
      it->turn >= 0 ? rt_table_int (table, it->turn) : rt_table_null (table);
      rt_table_int (table, it->depth);
      rt_table_number (table, it->start_s);
      rt_table_number (table, it->end_s);
      rt_table_number (table, it->duration_s);
    }
  return table;
}

static const RtTableSpec *const request_view_tables[] = { &rt_request_lines_spec, NULL };

const RtAnalysisSpec rt_request_view_analysis = {
  .name = "request_view",
  .reads = RT_READS_ROWS | RT_READS_REQUESTS | RT_READS_REQUEST_IDS,
  .steps = RT_STEPS_SELECTED,
  .tables = request_view_tables,
  .plots = "request_ID",
};
