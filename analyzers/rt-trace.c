/* SPDX-License-Identifier: Apache-2.0 */
/* rt-trace: every request of the chosen steps as a Chrome trace, for Perfetto, chrome://tracing,
 * speedscope or DevTools: when each ran, next to what, and its turns and phases inside it. */
#include "rolltrace/rt-chrome-trace-export.h"
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outstream.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>

/* chrome://tracing gives up around here; the Perfetto UI takes about 2 GB */
#define VIEWER_LIMIT_BYTES ((guint64) 256 << 20)

static char *opt_workers;

static void
warn_size (gpointer data)
{
  RtSession *s = data;
  g_printerr ("%s: warning: the trace passes 256 MB, about the most chrome://tracing opens (the Perfetto UI "
              "takes about 2 GB): --steps or --worker write less\n", s->command->name);
}

static gboolean
any_file_selected (const RtTrace *t, const GArray *steps, const RtStepSet *workers)
{
  for (guint i = 0; i < steps->len; i++)
    {
      const RtStep *step = rt_trace_step (t, g_array_index (steps, guint, i));
      for (guint f = step->first_file; f < step->first_file + step->n_files; f++)
        if (rt_step_set_contains (workers, rt_trace_file (t, f)->worker))
          return TRUE;
    }
  return FALSE;
}

/* -o/--out, shared with every analyzer: a name ending in .json or .gz is the trace file
 * itself, as `rt-trace EXP -o FILE.json` reads; anything else is a folder, which gets
 * trace.json (the default folder is rt-out/EXPNAME, as for every analyzer). */
static char *
trace_path (RtSession *s)
{
  const char *out = s->out_dir;
  gsize n = strlen (out);
  if ((n >= 5 && g_ascii_strcasecmp (out + n - 5, ".json") == 0) || rt_path_wants_gzip (out))
    return g_strdup (out);
  return g_build_filename (out, "trace.json", NULL);
}

static void
write_json (RtSession *s, const char *path, guint64 bytes, guint64 events, const RtChromeTraceCounts *c)
{
  RtJsonWriter *w = rt_session_json (s);
  rt_jw_begin_object (w);
  rt_jw_member_string (w, "file", path);
  rt_jw_member_int (w, "bytes", (gint64) bytes);
  rt_jw_member_int (w, "events", (gint64) events);
  rt_jw_member_int (w, "processes", (gint64) c->processes);
  rt_jw_member_int (w, "threads", (gint64) c->threads);
  rt_jw_member_int (w, "requests", (gint64) c->requests);
  rt_jw_member_int (w, "clamped", (gint64) c->nest.clamped);
  rt_jw_member_int (w, "violations", (gint64) c->nest.violations);
  rt_jw_end_object (w);
}

static int
run (RtSession *s, GError **error)
{
  g_autoptr (RtStepSet) workers = rt_number_set_parse (opt_workers, "--worker", error);
  if (workers == NULL)
    return 2;
  g_autofree char *path = trace_path (s);
  g_autoptr (GArray) steps = rt_session_selected_steps (s);
  if (!any_file_selected (s->trace, steps, workers))
    {
      RtChromeTraceCounts none = { 0 };
      write_json (s, NULL, 0, 0, &none);
      return rt_session_no_data (s, "no worker file in the selected steps%s%s", opt_workers ? " of --worker " : "",
                               opt_workers ? opt_workers : "");
    }
  if (!rt_make_parent_dir (path, error))
    return 1;

  g_autoptr (RtOutStream) out = rt_out_stream_open (path, rt_path_wants_gzip (path), error);
  if (out == NULL)
    return 1;
  g_autoptr (RtChromeTrace) ct = rt_chrome_trace_new (rt_out_stream_get (out));
  rt_chrome_trace_on_size (ct, VIEWER_LIMIT_BYTES, warn_size, s);
  RtChromeTraceCounts counts;
  rt_chrome_trace_write_experiment (ct, s->trace, steps, opt_workers != NULL ? workers : NULL, &counts);
  guint64 bytes = 0;
  if (!rt_chrome_trace_finish (ct, error) || !rt_out_stream_commit (out, &bytes, error))
    {
      g_prefix_error (error, "%s: ", path);
      return 1;
    }

  guint64 events = rt_chrome_trace_events (ct);
  write_json (s, path, bytes, events, &counts);
  g_autofree char *size = g_format_size (bytes);
  rt_session_print (s, "trace       %s (%s, %" G_GUINT64_FORMAT " events)\n", path, size, events);
  rt_session_print (s, "workers     %" G_GUINT64_FORMAT " processes, %" G_GUINT64_FORMAT " threads\n",
                    counts.processes, counts.threads);
  rt_session_print (s, "requests    %" G_GUINT64_FORMAT "\n", counts.requests);
  rt_session_print (s, "clamped     %" G_GUINT64_FORMAT " (moved to fit in their parent: by at most %d us of "
                    "rounding, or a tool call to its turn's end)\n", counts.nest.clamped, RT_NEST_CLAMP_US);
  rt_session_print (s, "violations  %" G_GUINT64_FORMAT " (left out: they would overlap another partially)\n",
                    counts.nest.violations);
  rt_session_print (s, "times are microseconds from the first selected line, not wall-clock\n");
  return 0;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "worker", 'w', 0, G_OPTION_ARG_STRING, &opt_workers,
      "Only these workers: N, A-B, A- and commas (default: all)", "LIST" },
    { NULL },
  };
  static const RtAnalysisSpec *const analyses[] = { &rt_chrome_trace_analysis, NULL };
  static const RtCommand cmd = {
    .name = "rt-trace",
    .parameters = "EXP",
    .summary = "A trace of the selected steps for Perfetto, speedscope and DevTools. It is a Chrome\n"
               "Trace Event Format file (JSON object form) that opens in the Perfetto UI\n"
               "(ui.perfetto.dev, \"Open trace file\"), chrome://tracing, speedscope and Chromium\n"
               "DevTools' Performance panel. One process per worker\n"
               "(\"worker M\"), with a thread \"step sections\" holding the step-level sections and\n"
               "threads \"requests 0\", \"requests 1\"... onto which the requests are packed, as few as\n"
               "possible, no two overlapping on one thread. Each request is an event named by its\n"
               "finish reason (or \"request\") with args {request_id, step, turns, response_length,\n"
               "finish_reason}; its turns (\"turn 0\"...) are inside it and their phases inside them,\n"
               "its tool calls between the turn that asked for them and the next (by time: the\n"
               "turn that ended last by the call's start, 1 ms allowed, whatever turn it names).\n"
               "A counter track per worker counts its requests in flight. Every event has a category\n"
               "(\"cat\", by which Perfetto groups and filters): step_section, request, turn, phase,\n"
               "tool, counter, and __metadata for the names.\n\n"
               "Times are RELATIVE, not wall-clock: microseconds from the first selected line (its\n"
               "timestamp - duration_sec), steps one after another with their real gaps. The\n"
               "loggers' clocks are per host and without a zone, so no date is shown.",
    .description = "-o/--out FILE.json, or FILE.json.gz (any name ending in .gz: compressed), names the\n"
                   "trace file; any other name is a folder, which gets trace.json (default rt-out/EXPNAME/trace.json).\n"
                   "--format and --no-render, shared with the analyzers that plot, change nothing.\n\n"
                   "Every event sits strictly inside its parent or apart from it: viewers drop events that\n"
                   "overlap partially on one thread. An edge off by at most 5 us (the rounding of\n"
                   "timestamp - duration to microseconds) is moved to fit and counted as clamped, and\n"
                   "so is a tool call that starts before its turn's end (by up to 1 ms): it starts there; a\n"
                   "span that would still overlap partially is left out and counted as a violation.\n"
                   "The file is written as it goes (memory does not grow with it), under a temporary\n"
                   "name renamed when complete; a name ending in .gz is gzip-compressed. Past 256 MB a\n"
                   "warning suggests --steps (chrome://tracing's practical limit; Perfetto: ~2 GB).\n\n"
                   "JSON (--json): {\"file\", \"bytes\" (its size), \"events\" (elements of traceEvents),\n"
                   "\"processes\", \"threads\", \"requests\", \"clamped\", \"violations\"}. Exit status 1\n"
                   "when no worker file is selected (no file is written; \"file\" is null). docs/trace.md shows how to open the file.\n\n"
                   "Example: rt-trace logs/exp --steps 40-42 -o exp.json.gz",
    .entries = entries,
    .run = run,
    .analyses = analyses,
    .flags = RT_COMMAND_ANALYZER,
  };
  return rt_command_main (&cmd, argc, argv);
}
