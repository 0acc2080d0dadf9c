/* SPDX-License-Identifier: Apache-2.0 */
/* command-private.h: what the files of the command layer share and no command needs.
 * command.c drives a run; command-load.c, -output.c, -plot.c and -json.c each own one concern. */
#pragma once

#include "rolltrace/rt-command.h"

G_BEGIN_DECLS

/* command-load.c: names the experiments of the command line (their labels, and the
 * session's subject), before anything is read. */
void rt_session_name_experiments (RtSession *s);
/* command-load.c: loads every experiment named, each checked and given its steps. */
gboolean rt_session_load_experiments (RtSession *s, GError **error);
void rt_experiment_free (RtExperiment *e);
/* command-load.c: whether the command, with its options, runs an analysis at all (RtCommand.runs):
 * FALSE, its experiments are not read. */
gboolean rt_session_reads_experiment (const RtSession *s);

/* command-plot.c: runs gnuplot on every script written (unless --no-render). */
gboolean rt_session_render_plots (RtSession *s, GError **error);

/* command-json.c: with --json, prints the command's document, or one that holds `error`. */
void rt_session_print_json (RtSession *s, const GError *error);

G_END_DECLS
