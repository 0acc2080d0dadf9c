/* spans-shim.c: PROVISIONAL stand-in for the shared spans analysis, until it lands.
 * Removed when it does. */
#include "spans-shim.h"
#include <math.h>

RtSpans *
rt_spans_analyse (const RtTrace *t, guint step_index, const RtStepSet *workers)
{
  RtSpans *out = g_new0 (RtSpans, 1);
  out->files = g_array_new (FALSE, TRUE, sizeof (RtSpansFile));
  const RtStep *step = rt_trace_step (t, step_index);
  for (guint fi = step->first_file; fi < step->first_file + step->n_files; fi++)
    {
      const RtFile *file = rt_trace_file (t, fi);
      if (workers && !rt_step_set_contains (workers, file->worker))
        continue;
      RtSpansFile f = { .file = fi, .worker = file->worker };
      const RtEvent *ev = rt_trace_file_events (t, fi);
      GArray *secs = g_array_new (FALSE, FALSE, sizeof (RtSpanSection));
      GArray **lines = g_new0 (GArray *, file->n_requests);
      for (guint i = 0; i < file->n_events; i++)
        {
          const RtEvent *e = &ev[i];
          if (!isfinite (e->end_s) || !isfinite (e->duration_s))
            continue;
          if (e->request == RT_NONE)
            {
              if (e->event < RT_N_STEP_EVENTS)
                {
                  RtSpanSection s = { e->event, e->end_s - e->duration_s, e->end_s };
                  g_array_append_val (secs, s);
                }
              continue;
            }
          if (e->event == RT_EV_REQUEST_COMPLETE)
            continue;
          if (!lines[e->request])
            lines[e->request] = g_array_new (FALSE, FALSE, sizeof (RtSpanLine));
          RtSpanLine l = { e->event, e->event == RT_EV_TURN_END ? RT_SPAN_TURN : RT_SPAN_PHASE, e->turn,
                           e->end_s - e->duration_s, e->end_s };
          g_array_append_val (lines[e->request], l);
        }
      f.n_sections = secs->len;
      f.sections = (RtSpanSection *) g_array_free (secs, FALSE);
      GArray *reqs = g_array_new (FALSE, FALSE, sizeof (RtSpanRequest));
      for (guint r = 0; r < file->n_requests; r++)
        {
          const RtRequest *q = rt_trace_request (t, file->first_request + r);
          if (q->complete && isfinite (q->total_s) && isfinite (q->end_s))
            {
              RtSpanRequest sr = { file->first_request + r, q->end_s - q->total_s, q->end_s, NULL, 0 };
              if (lines[r])
                {
                  sr.n_lines = lines[r]->len;
                  sr.lines = (RtSpanLine *) g_array_free (lines[r], FALSE);
                  lines[r] = NULL;
                }
              g_array_append_val (reqs, sr);
            }
          if (lines[r])
            g_array_unref (lines[r]);
        }
      g_free (lines);
      f.n_requests = reqs->len;
      f.requests = (RtSpanRequest *) g_array_free (reqs, FALSE);
      g_array_append_val (out->files, f);
    }
  return out;
}

void
rt_spans_free (RtSpans *s)
{
  for (guint i = 0; i < s->files->len; i++)
    {
      RtSpansFile *f = &g_array_index (s->files, RtSpansFile, i);
      g_free (f->sections);
      for (guint r = 0; r < f->n_requests; r++)
        g_free (f->requests[r].lines);
      g_free (f->requests);
    }
  g_array_unref (s->files);
  g_free (s);
}
