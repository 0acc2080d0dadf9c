/* SPDX-License-Identifier: Apache-2.0 */
/* rt-outfile.h: files written whole or not at all, and nothing left behind when a command dies.
 * Every output and cache file is written under a temporary name that only a rename makes final. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A new temporary name beside `final_path` (".NAME.XXXXXX" in its folder), created empty
 * and registered, so that a signal that ends the process removes it. Returns the open
 * descriptor (or -1 with `error` set) and the name in `tmp_path`. */
int rt_temp_create (const char *final_path, char **tmp_path, GError **error);
/* The same with a name of the caller's: `template` ends in XXXXXX. */
int rt_temp_create_from (const char *template, char **tmp_path, GError **error);

/* A temporary name that another program (gnuplot) will create: registered, not created. */
char *rt_temp_name (const char *final_path);
/* The same with a name of the caller's: `template` ends in XXXXXX. */
char *rt_temp_name_like (const char *template);

/* Renames the temporary over `final_path`, or, with `keep` FALSE, removes it;
 * either way it is no longer registered. */
gboolean rt_temp_finish (char *tmp_path, const char *final_path, gboolean keep, GError **error);

/* Registers or forgets a temporary made by other means (the cache draft). Thread-safe. */
void rt_temp_register (const char *tmp_path);
void rt_temp_forget (const char *tmp_path);

/* Writes `len` bytes to `path` through a temporary: the old file, or none, stays until
 * the new one is complete (a full disk, a size limit or a signal leave no half file). */
gboolean rt_file_write_atomic (const char *path, const void *data, gsize len, GError **error);

/* Some bytes: `len` of them at `data`. */
typedef struct {
  const void *data;
  gsize len;
} RtBytes;

/* The same of n_parts pieces written one after another, as one file. */
gboolean rt_file_write_atomic_parts (const char *path, const RtBytes *parts, guint n_parts, GError **error);

/* Children (gnuplot) to end with the process when a signal arrives. */
void rt_child_register (GPid pid);
void rt_child_forget (GPid pid);
/* How many children are registered now (none once every plot is rendered). */
guint rt_child_count (void);

/* On SIGINT, SIGTERM and SIGHUP: end the registered children, remove the registered
 * temporaries, then die of the signal as if nothing had caught it. */
void rt_cleanup_install (void);

/* Makes the folder an output file goes into, and its parents, when missing (the command
 * layer has checked that it is not inside the experiment). */
gboolean rt_make_parent_dir (const char *path, GError **error);

/* Reads up to n bytes of fd from offset `at` into buf (a read interrupted by a signal is
 * taken up again): how many it got, fewer than n only at the end of the file or on an error. */
gsize rt_read_at (int fd, void *buf, gsize n, guint64 at);

G_END_DECLS
