/* SPDX-License-Identifier: Apache-2.0 */
/* rt-report: one HTML page that answers what is wrong with a rollout: findings ranked by severity,
 * each with its numbers and its plot, then the sections; with --watch, a live page of a running job. */
#include "rolltrace/rt-command.h"
#include "rolltrace/rt-error.h"
#include "rolltrace/rt-outfile.h"
#include "rolltrace/rt-report.h"
#include "rolltrace/rt-text.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static char *opt_watch;
static char **opt_compare;

/* ---- --watch: the wait between two pages, ended early by SIGINT or SIGTERM ---- */

static volatile sig_atomic_t stop_signal;

static void
on_stop_signal (int sig)
{
  stop_signal = sig;
}

/* Waits `seconds`; FALSE when SIGINT, SIGTERM or SIGHUP asked to stop meanwhile (a watch
 * started with & in a script ignores SIGINT: kill PID, or the end of its terminal, stops it).
 * While writing a page the usual handlers stay (rt_cleanup_install): a signal then removes the
 * temporaries and ends the process, and the page of the round before stays whole. */
static gboolean
watch_wait (guint seconds)
{
  int sigs[] = { SIGINT, SIGTERM, SIGHUP };
  for (guint i = 0; i < G_N_ELEMENTS (sigs); i++)
    {
      struct sigaction old, sa = { .sa_handler = on_stop_signal };
      sigemptyset (&sa.sa_mask);
      /* a signal the shell told us to ignore stays ignored */
      if (sigaction (sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
        sigaction (sigs[i], &sa, NULL);
    }
  for (guint64 waited_ms = 0; waited_ms < (guint64) seconds * 1000 && !stop_signal; waited_ms += 50)
    g_usleep (50 * 1000);
  rt_cleanup_install ();
  return !stop_signal;
}

/* --watch as seconds, 0 without it. */
static gboolean
watch_seconds (RtSession *s, gint64 *watch, GError **error)
{
  *watch = 0;
  if (opt_watch != NULL && !rt_parse_int_option ("--watch", opt_watch, 1, 86400, watch, error))
    return FALSE;
  if (*watch > 0 && s->json)
    {
      g_set_error (error, RT_ERROR, RT_ERROR_USAGE, "--watch keeps writing pages: no --json with it");
      return FALSE;
    }
  return TRUE;
}

/* EXP holds a step_N folder: the job has begun writing its trace. */
static gboolean
has_step_folder (const char *exp)
{
  g_autoptr (GDir) d = g_dir_open (exp, 0, NULL);
  const char *name;
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, "step_") && name[5] != '\0'
        && strspn (name + 5, "0123456789") == strlen (name + 5))
      {
        g_autofree char *path = g_build_filename (exp, name, NULL);
        if (g_file_test (path, G_FILE_TEST_IS_DIR))
          return TRUE;
      }
  return FALSE;
}

/* A watch is started when the job is launched, often before the job has made its folder:
 * it waits for EXP to hold a step_N folder (one line says so), then goes on as always.
 * A signal meanwhile ends it, nothing written. */
static gboolean
wait_for_experiment (RtSession *s, GError **error)
{
  gint64 watch;
  if (!watch_seconds (s, &watch, error))
    return FALSE;
  const char *exp = s->args[0];
  if (watch == 0 || g_file_test (exp, G_FILE_TEST_EXISTS))
    return TRUE;
  if (!s->quiet)
    {
      g_autoptr (GString) shown = g_string_new (NULL);
      rt_tsv_append_text (shown, exp);
      g_print ("rt-report: waiting for %s to appear (the job has not begun it yet)\n", shown->str);
      fflush (stdout);
    }
  while (!g_file_test (exp, G_FILE_TEST_IS_DIR) || !has_step_folder (exp))
    g_usleep (G_USEC_PER_SEC / 4);
  return TRUE;
}

/* The page of the next round, from the experiment loaded again: NULL, with `error` set, when
 * the load or the page failed. A running job's trace changes under a load (a worker file
 * rotated, a step folder removed): a load that failed is tried again at once, a few times,
 * before the round is given up. */
static RtReport *
watch_round (RtSession *s, const RtReportOptions *opts, GError **error)
{
  for (guint attempt = 0;; attempt++)
    {
      g_autoptr (GError) local = NULL;
      if (rt_session_reload (s, &local))
        {
          RtReportOptions again = *opts;
          again.train = s->train;   /* read again too */
          return rt_report_build (s, &again, error);
        }
      if (attempt == 3)
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return NULL;
        }
      g_usleep (G_USEC_PER_SEC / 10);
    }
}

/* A signal ended the watch: the last page again, without reloading itself; of the round
 * before when it was written (`last`, taken), else of one more round. */
static int
watch_stopped (RtSession *s, const RtReportOptions *opts, RtReport *last, const char *page,
               GError **error)
{
  g_autoptr (RtReport) r = last;
  g_autoptr (GError) failed = NULL;
  if (r == NULL && (r = watch_round (s, opts, &failed)) == NULL)
    {
      if (!s->quiet)
        g_print ("stopped by signal %d: %s is the last page (of the last round that could be read: %s)\n",
                 (int) stop_signal, page, failed->message);
      return 0;
    }
  if (!rt_report_write_page (s, r, TRUE, error))
    return 0;
  if (!s->quiet)
    g_print ("stopped by signal %d: %s is the last page\n", (int) stop_signal, page);
  return 0;
}

static void
print_findings (RtSession *s, const RtReport *r)
{
  const RtFindings *f = rt_report_findings (r);
  if (f->findings->len == 0)
    rt_session_print (s, "no finding\n");
  for (guint i = 0; i < f->findings->len; i++)
    {
      const RtFinding *x = g_ptr_array_index (f->findings, i);
      g_autoptr (GString) title = g_string_new (NULL);
      rt_tsv_append_text (title, x->title);   /* a terminal too is another language */
      rt_session_print (s, "%-6s %-16s %s\n", rt_severity_name (x->severity), x->id, title->str);
    }
}

static int
run (RtSession *s, GError **error)
{
  gint64 watch;
  if (!watch_seconds (s, &watch, error))
    return 0;
  /* the plots are inlined in the page: always SVG */
  g_free (s->format);
  s->format = g_strdup ("svg");

  g_autoptr (RtReport) r = NULL;
  g_autoptr (RtReportMemo) memo = watch > 0 ? rt_report_memo_new () : NULL;
  g_autofree char *page = rt_session_out_path (s, "index.html");
  g_autofree char *failed_before = NULL;   /* what the last round that failed said */
  for (guint round = 0;; round++)
    {
      gint64 round_start = g_get_monotonic_time ();
      /* (the trainer's log is read again with the experiment) */
      RtReportOptions opts = { .train = s->train, .train_path = s->train_path, .watch_s = (guint) watch,
                               .memo = memo };
      g_clear_pointer (&r, rt_report_free);   /* it points into the trace a reload frees */
      if (round == 0)
        r = rt_report_build (s, &opts, error);
      else
        {
          /* a round that fails keeps the page before: the job goes on, and so does the watch
           * (each new failure is told once) */
          g_autoptr (GError) failed = NULL;
          r = watch_round (s, &opts, &failed);
          if (r == NULL)
            {
              if (g_strcmp0 (failed->message, failed_before) != 0 && !s->quiet)
                g_printerr ("rt-report: note: %s: %s is kept as it was; tried again in %d s\n",
                            failed->message, page, (int) watch);
              g_free (failed_before);
              failed_before = g_strdup (failed->message);
              if (!watch_wait ((guint) watch))
                return watch_stopped (s, &opts, NULL, page, error);
              continue;
            }
          g_clear_pointer (&failed_before, g_free);
        }
      if (r == NULL || !rt_report_write_page (s, r, FALSE, error))
        return 0;
      if (watch == 0)
        break;
      gint32 running = rt_report_findings (r)->running_step;
      if (!s->quiet)
        {
          g_autoptr (GDateTime) now = g_date_time_new_now_local ();
          g_autofree char *when = g_date_time_format (now, "%H:%M:%S");
          g_autofree char *running_text = running >= 0 ? g_strdup_printf ("step %d running", running)
                                                       : g_strdup ("no step running");
          /* what a round costs: the load of what changed, the analyses, the page */
          g_print ("%s %s written in %.2f s (%s)\n", when, page,
                   (double) (g_get_monotonic_time () - round_start) / G_USEC_PER_SEC, running_text);
        }
      if (!watch_wait ((guint) watch))
        return watch_stopped (s, &opts, g_steal_pointer (&r), page, error);
    }

  rt_report_write_json (r, rt_session_json (s));
  print_findings (s, r);
  rt_session_print (s, "page: %s\n", page);
  if (!rt_report_has_data (r))
    return rt_session_no_data (s, "no selected step has a rollout time or a complete request: the page says so");
  return 0;
}

int
main (int argc, char **argv)
{
  static const GOptionEntry entries[] = {
    { "compare", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &opt_compare,
      "Another experiment to compare with (repeat for several)", "EXP2" },
    { "watch", 'w', 0, G_OPTION_ARG_STRING, &opt_watch,
      "Keep running: every SECONDS reload the experiment and rewrite the page, which reloads itself; "
      "waits first for an EXP that does not exist yet; Ctrl-C, kill PID (SIGTERM) or SIGHUP ends it "
      "with the last page complete (started with & from a script it ignores Ctrl-C: kill PID)", "SECONDS" },
    G_OPTION_ENTRY_NULL
  };
  static GString *description;
  description = g_string_new (
    "Writes DIR/index.html (default rt-out/EXPNAME/report/): one page that works offline and as a\n"
    "single file: plots inline as SVG, no script, font or style fetched from anywhere, a few lines\n"
    "of JavaScript only to sort tables. The data (TSV) and gnuplot scripts sit beside it.\n"
    "Sections: overview (and the trainer with --train), the tail, why the tail and what would\n"
    "have helped (rt-tail's causes beside the bubble; rt-whatif deferring each step's slowest\n"
    "5 % and keeping the first 90 %), workers, slowest requests\n"
    "(with a truncation line, and the first five followed line by line as rt-requests --id\n"
    "does, each in a section #request-K the list links to, its Gantt request_ID), turns,\n"
    "timeline of the slowest step, step sections, trainer metrics, data quality, and\n"
    "with --compare a comparison: rt-compare's tables and plots, EXP the reference, steps paired\n"
    "by number, and rt-compare --mix turns's split of the mean request duration.\n\n"
    "Findings, ranked high, medium, info (docs/findings.md has the arithmetic), fire when:\n");
  for (guint i = 0; rt_finding_rules[i].id != NULL; i++)
    {
      g_string_append_printf (description, "  %s (%s):", rt_finding_rules[i].id,
                              rt_severity_name (rt_finding_rules[i].severity));
      /* the rule's sentence wrapped under its id */
      g_auto (GStrv) words = g_strsplit (rt_finding_rules[i].rule, " ", -1);
      guint column = 80;
      for (guint w = 0; words[w] != NULL; w++)
        {
          if (column + 1 + strlen (words[w]) > 78)
            {
              g_string_append (description, "\n     ");
              column = 5;
            }
          g_string_append_printf (description, " %s", words[w]);
          column += 1 + strlen (words[w]);
        }
      g_string_append_c (description, '\n');
    }
  g_string_append (description,
    "\nJSON (--json): {\"findings\": [{\"id\", \"severity\" (high|medium|info), \"title\", \"detail\",\n"
    "\"evidence\": {name: number, or tail_cause's \"cause\": a text}}], \"sections\": [names of the\n"
    "sections on the page], with --compare \"comparison\": {\"versus\": [{\"label\", \"mix\"\n"
    "(rt-compare --mix turns's, EXP as A)}]}}.\n\n"
    "Examples:\n  rt-report logs/exp --train logs/train.log\n"
    "  rt-report logs/exp --watch 30 -o /srv/www/run-12\n  rt-report logs/a --compare logs/b");
  static const RtAnalysisSpec *const analyses[] = { &rt_report_analysis, NULL };
  static RtCommand cmd = {
    .name = "rt-report",
    .parameters = "EXP",
    .summary = "One HTML page of the experiment: a header (steps, workers, requests, logger, size,\n"
               "length, data quality), the findings ranked by severity, each with the numbers that\n"
               "support it and a link to its plot, then a section per question with its plots.",
    .entries = entries,
    .run = run,
    .analyses = analyses,
    .flags = RT_COMMAND_ANALYZER | RT_COMMAND_SHOWS_IDS,
    .experiment_option = &opt_compare,
    .out_subdir = "report",
    .before_load = wait_for_experiment,
  };
  cmd.description = description->str;
  return rt_command_main (&cmd, argc, argv);
}
