/* SPDX-License-Identifier: Apache-2.0 */
/* report-page.c: rt-report's page: one HTML file holding the header, the findings and the
 * sections report.c built, its plots inlined as SVG; markup of ours, text of the input escaped. */
#include "report-private.h"

#include <stdarg.h>
#include <string.h>

/* ---- the page ---- */

static void
esc (GString *out, const char *s)
{
  rt_html_append_text (out, s);
}

static void esc_printf (GString *out, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
esc_printf (GString *out, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  g_autofree char *s = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  rt_html_append_text (out, s);
}

/* The header's word on the rollouts: which are read, how their kinds are known, those the
 * automatic rule takes for validation, a log that disagrees, the trainer's own files. */
static void
rollouts_quality (GString *out, const RtTrace *t)
{
  const RtRolloutMap *map = t->rollouts;
  if (map == NULL)
    return;
  guint n[2] = { 0, 0 };
  for (guint i = 0; i < map->rollouts->len; i++)
    n[g_array_index (map->rollouts, RtRollout, i).kind]++;
  g_string_append (out, "</dd>\n<dt>rollouts</dt><dd>");
  esc_printf (out, "%u training, %u validation; %s read (%s)", n[RT_ROLLOUT_TRAINING], n[RT_ROLLOUT_VALIDATION],
              t->rollouts_read == RT_ROLLOUTS_ALL ? "all" : t->rollouts_read == RT_ROLLOUTS_VALIDATION
              ? "the validation ones" : "the training ones", map->source);
  if (map->n_likely_validation > 0)
    esc_printf (out, "; likely validation (fewer than half the median rollout's %u requests; still read as "
                "training):", map->median_requests);
  for (guint i = 0, k = 0; i < map->rollouts->len; i++)
    if (g_array_index (map->rollouts, RtRollout, i).likely_validation)
      esc_printf (out, "%s step_%d", k++ == 0 ? "" : ",", g_array_index (map->rollouts, RtRollout, i).step);
  if (map->disagreement != NULL)
    esc_printf (out, "; %s", map->disagreement);
  if (t->trainer_files->len > 0)
    esc_printf (out, "; %u trainer files (worker_-1.jsonl, rank -1) read as the trainer's sections, not as a rank",
                t->trainer_files->len);
}

/* The picture gnuplot drew, from its <svg> on, its ids made unique in the page (several plots
 * share gnuplot's names for their markers). gnuplot escapes the text it writes; its SVG refers
 * to nothing outside itself (namespaces are names, not fetched). */
static gboolean
append_svg (GString *out, RtSession *s, const char *name, guint index)
{
  g_autofree char *file = g_strdup_printf ("%s.svg", name);
  g_autofree char *path = rt_session_out_path (s, file);
  g_autofree char *svg = NULL;
  gsize len;
  if (!g_file_get_contents (path, &svg, &len, NULL))
    return FALSE;
  const char *start = strstr (svg, "<svg");
  const char *end = g_strrstr (svg, "</svg>");
  if (start == NULL || end == NULL || end < start)
    return FALSE;
  g_autofree char *prefix = g_strdup_printf ("p%u-", index);
  /* gnuplot's <title> would be every plot's tooltip: "Gnuplot" */
  static const char gnuplot_title[] = "<title>Gnuplot</title>";
  static const char *const refs[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };
  for (const char *p = start; p < end + strlen ("</svg>");)
    {
      gboolean matched = FALSE;
      if (strncmp (p, gnuplot_title, strlen (gnuplot_title)) == 0)
        {
          p += strlen (gnuplot_title);
          continue;
        }
      for (guint k = 0; k < G_N_ELEMENTS (refs) && !matched; k++)
        {
          gsize n = strlen (refs[k]);
          if (strncmp (p, refs[k], n) == 0)
            {
              g_string_append_len (out, p, (gssize) n);
              g_string_append (out, prefix);
              p += n;
              matched = TRUE;
            }
        }
      if (!matched)
        g_string_append_c (out, *p++);
    }
  return TRUE;
}

static const char page_style[] =
  "body{font-family:sans-serif;margin:0 auto;max-width:1100px;padding:0 1.2em 3em;color:#222;line-height:1.4}"
  "header{border-bottom:2px solid #444;margin-bottom:1em}"
  "h1{font-size:1.6em;margin:.6em 0 .2em}h2{margin-top:1.8em;border-bottom:1px solid #ccc}"
  "dl.facts{display:grid;grid-template-columns:max-content auto;gap:.1em 1em;margin:.5em 0}"
  "dl.facts dt{font-weight:bold}dl.facts dd{margin:0}"
  ".stamp{color:#555;font-size:.9em}.live{color:#a60}"
  "nav a{margin-right:.8em}"
  "ol.findings{padding-left:1.4em}ol.findings li{margin:.6em 0}"
  ".sev{display:inline-block;min-width:4.5em;text-align:center;border-radius:3px;padding:0 .3em;"
  "margin-right:.5em;font-size:.85em;color:#fff;font-weight:bold}"
  ".sev-high{background:#c0392b}.sev-medium{background:#d68910}.sev-info{background:#5d6d7e}"
  ".caption{font-style:italic;color:#333}.note{color:#555}"
  "figure{margin:1em 0}figure svg{width:100%;height:auto;border:1px solid #ddd}"
  "figcaption{font-size:.85em;color:#555}"
  "table{border-collapse:collapse;margin:.6em 0;font-size:.9em}"
  "th,td{border:1px solid #ccc;padding:.15em .5em;text-align:left}td.num{text-align:right;font-variant-numeric:tabular-nums}"
  "table.sortable th{cursor:pointer}";

/* Sorting a table by a click on its header: a convenience; the page reads the same without it. */
static const char page_script[] =
  "document.querySelectorAll('table.sortable th').forEach(function(th){th.addEventListener('click',function(){"
  "var tb=th.closest('table').tBodies[0],i=th.cellIndex,up=th.dataset.up!=='1';th.dataset.up=up?'1':'0';"
  "var rows=Array.prototype.slice.call(tb.rows);rows.sort(function(a,b){var x=a.cells[i].textContent,"
  "y=b.cells[i].textContent,nx=parseFloat(x),ny=parseFloat(y);var c=(isNaN(nx)||isNaN(ny))?x.localeCompare(y):nx-ny;"
  "return up?c:-c;});rows.forEach(function(r){tb.appendChild(r);});});});";

/* When the page is written: now, or SOURCE_DATE_EPOCH (seconds, UTC) when set, the convention of
 * reproducible builds, so that a page can be compared byte for byte (the golden tests). */
static GDateTime *
page_time (void)
{
  if (g_getenv ("SOURCE_DATE_EPOCH") != NULL)
    {
      GDateTime *t = g_date_time_new_from_unix_utc ((gint64) rt_now_s ());
      if (t != NULL)
        return t;
    }
  return g_date_time_new_now_local ();
}

static void
write_header (GString *out, RtSession *s, RtReport *r, gboolean stopped)
{
  const RtTrace *t = r->t;
  const RtCheck *c = r->check;
  guint64 size = 0;
  for (guint i = 0; i < t->files->len; i++)
    size += rt_trace_file (t, i)->size;
  g_autoptr (GArray) selected = rt_session_selected_steps (s);
  g_autofree char *steps = rt_session_describe_step_indices (s, selected);

  g_string_append (out, "<header>\n<h1>");
  esc_printf (out, "rolltrace report: %s", s->subject);
  g_string_append (out, "</h1>\n<dl class=\"facts\">\n<dt>experiment</dt><dd>");
  esc (out, t->path);
  g_string_append (out, "</dd>\n<dt>steps</dt><dd>");
  esc_printf (out, "%u selected (%s) of %u", selected->len, steps, t->steps->len);
  g_string_append (out, "</dd>\n<dt>workers</dt><dd>");
  esc_printf (out, "%u at most in one step", c->max_workers);
  g_string_append (out, "</dd>\n<dt>requests</dt><dd>");
  esc_printf (out, "%" G_GUINT64_FORMAT " completed", c->requests);
  g_string_append (out, "</dd>\n<dt>logger</dt><dd>");
  esc_printf (out, "%s (%s logger)", rt_schema_name (c->schema),
              c->schema == RT_SCHEMA_V1 ? "older" : c->schema == (RT_SCHEMA_V1 | RT_SCHEMA_V2) ? "both" : "newer");
  g_string_append (out, "</dd>\n<dt>trace size</dt><dd>");
  g_autofree char *size_text = g_format_size (size);
  esc_printf (out, "%s in %u files, %" G_GUINT64_FORMAT " lines", size_text, t->files->len, c->lines);
  g_string_append (out, "</dd>\n<dt>run length</dt><dd>");
  const RtOverview *o = r->overview;
  if (o->steps->len > 0)
    {
      const RtOverviewStep *first = &g_array_index (o->steps, RtOverviewStep, 0);
      const RtOverviewStep *last = &g_array_index (o->steps, RtOverviewStep, o->steps->len - 1);
      double from = rt_trace_step (t, first->step_index)->start_s;
      double to = rt_trace_step (t, last->step_index)->start_s + last->rollout_s;
      esc_printf (out, "%.1f min from the first selected step's start to the end of the last one's rollout",
                  (to - from) / 60);
    }
  else
    esc (out, "unknown (no step has a rollout time)");
  g_string_append (out, "</dd>\n<dt>data quality</dt><dd>");
  esc_printf (out, "%" G_GUINT64_FORMAT " bad line%s, %u missing worker file%s", c->bad_lines,
              c->bad_lines == 1 ? "" : "s", c->missing->len, c->missing->len == 1 ? "" : "s");
  if (c->empty->len > 0)
    esc_printf (out, ", %u empty", c->empty->len);
  const RtLastStep *last = &r->findings->last_step;
  if (last->state == RT_LAST_STEP_RUNNING)
    esc_printf (out, ", step %d still being written (%s; files changed in the last %d minutes)", last->step,
                last->why, RT_RUNNING_WINDOW_S / 60);
  else if (last->state == RT_LAST_STEP_INCOMPLETE)
    esc_printf (out, ", step %d incomplete (%s; nothing written since %s: the run stopped)", last->step,
                last->why, last->last_write);
  else
    esc (out, ", no step being written");
  for (guint i = 0; i < c->missing->len; i++)
    {
      const RtMissingFile *m = &g_array_index (c->missing, RtMissingFile, i);
      esc_printf (out, i == 0 ? "; missing: step_%d/worker_%d.jsonl" : ", step_%d/worker_%d.jsonl", m->step, m->worker);
    }
  for (guint i = 0; i < c->empty->len; i++)
    {
      const RtMissingFile *m = &g_array_index (c->empty, RtMissingFile, i);
      esc_printf (out, i == 0 ? "; empty: step_%d/worker_%d.jsonl" : ", step_%d/worker_%d.jsonl", m->step, m->worker);
    }
  rollouts_quality (out, t);
  if (r->opts.train_path != NULL)
    {
      g_string_append (out, "</dd>\n<dt>trainer's log</dt><dd>");
      esc (out, r->opts.train_path);
    }
  g_string_append (out, "</dd>\n</dl>\n<p class=\"stamp\">");
  g_autoptr (GDateTime) now = page_time ();
  g_autofree char *when = g_date_time_format (now, "%Y-%m-%d %H:%M:%S");
  esc_printf (out, "Written %s by rt-report.", when);
  if (r->opts.watch_s > 0 && !stopped)
    {
      g_string_append (out, " <span class=\"live\">");
      esc_printf (out, "Watching: this page reloads itself every %u s", r->opts.watch_s);
      if (r->findings->running_step >= 0)
        esc_printf (out, "; step %d is still running.", r->findings->running_step);
      else
        esc (out, "; no step is being written.");
      g_string_append (out, "</span>");
    }
  else if (r->opts.watch_s > 0)
    esc (out, " The watch has ended: this is the last page.");
  g_string_append (out, "</p>\n</header>\n");
}

static void
write_findings (GString *out, RtReport *r)
{
  const RtFindings *f = r->findings;
  g_string_append (out, "<section id=\"findings\">\n<h2>Findings</h2>\n");
  if (f->findings->len == 0)
    {
      g_string_append (out, "<p>");
      esc (out, "No rule fired: no straggler, no barrier share, tail, truncation, context growth, tool time, "
                "outlier step, rollout share or data problem beyond the thresholds below.");
      g_string_append (out, "</p>\n");
    }
  else
    g_string_append (out, "<ol class=\"findings\">\n");
  for (guint i = 0; i < f->findings->len; i++)
    {
      const RtFinding *x = g_ptr_array_index (f->findings, i);
      const char *sev = rt_severity_name (x->severity);
      g_string_append (out, "<li class=\"finding\" id=\"finding-");
      esc (out, x->id);
      g_string_append (out, "\"><span class=\"sev sev-");
      esc (out, sev);
      g_string_append (out, "\">");
      esc (out, sev);
      g_string_append (out, "</span><strong>");
      esc (out, x->title);
      g_string_append (out, "</strong> <code>");
      esc (out, x->id);
      g_string_append (out, "</code><br>");
      esc (out, x->detail);
      /* to the plot when the page shows it, else to the section */
      gboolean has_plot = x->plot != NULL && g_hash_table_contains (r->plots, x->plot);
      g_string_append (out, " <a href=\"#");
      if (has_plot)
        esc_printf (out, "plot-%s", x->plot);
      else
        esc (out, x->section);
      g_string_append (out, "\">");
      esc (out, has_plot ? "see the plot" : "see the section");
      g_string_append (out, "</a></li>\n");
    }
  if (f->findings->len > 0)
    g_string_append (out, "</ol>\n");
  g_string_append (out, "<details><summary>The rules and their thresholds</summary><ul>\n");
  for (guint i = 0; rt_finding_rules[i].id != NULL; i++)
    {
      g_string_append (out, "<li><code>");
      esc (out, rt_finding_rules[i].id);
      g_string_append (out, "</code> (");
      esc (out, rt_severity_name (rt_finding_rules[i].severity));
      g_string_append (out, "): ");
      esc (out, rt_finding_rules[i].rule);
      g_string_append (out, "</li>\n");
    }
  g_string_append (out, "</ul></details>\n</section>\n");
}

gboolean
rt_report_write_page (RtSession *s, RtReport *r, gboolean stopped, GError **error)
{
  GString *out = g_string_sized_new (1 << 20);
  g_string_append (out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
  if (r->opts.watch_s > 0 && !stopped)
    g_string_append_printf (out, "<meta http-equiv=\"refresh\" content=\"%u\">\n", r->opts.watch_s);
  g_string_append (out, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>");
  esc_printf (out, "rolltrace report: %s", s->subject);
  g_string_append_printf (out, "</title>\n<style>%s</style>\n</head>\n<body>\n", page_style);
  write_header (out, s, r, stopped);
  g_string_append (out, "<nav><a href=\"#findings\">Findings</a>");
  for (guint i = 0; i < r->sections->len; i++)
    {
      const Section *sec = g_ptr_array_index (r->sections, i);
      g_string_append (out, "<a href=\"#");
      esc (out, sec->name);
      g_string_append (out, "\">");
      esc (out, sec->title);
      g_string_append (out, "</a>");
    }
  g_string_append (out, "</nav>\n");
  write_findings (out, r);

  guint svg_index = 0;
  for (guint i = 0; i < r->sections->len; i++)
    {
      const Section *sec = g_ptr_array_index (r->sections, i);
      g_string_append (out, "<section class=\"part\" id=\"");
      esc (out, sec->name);
      g_string_append (out, "\">\n<h2>");
      esc (out, sec->title);
      g_string_append (out, "</h2>\n");
      for (guint k = 0; k < sec->pieces->len; k++)
        {
          const Piece *p = g_ptr_array_index (sec->pieces, k);
          if (p->kind == PIECE_HTML)
            g_string_append (out, p->text);
          else if (!append_svg (out, s, p->text, svg_index++))
            {
              g_string_append (out, "<p class=\"note\">");
              esc_printf (out, "The plot %s is not drawn%s.", p->text,
                          s->no_render ? " (--no-render)" : " (gnuplot found nothing to draw, or is missing)");
              g_string_append (out, "</p>");
            }
        }
      g_string_append (out, "</section>\n");
    }
  g_string_append_printf (out, "<script>%s</script>\n</body>\n</html>\n", page_script);
  g_autoptr (GString) page = out;
  return rt_session_write (s, "index.html", page, error);
}
