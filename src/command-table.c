/* command-table.c: a command's result tables written into its output folder.
 * The TSV text comes from the table (rt_table_tsv); the file is written as every output is. */
#include "rolltrace/rt-command.h"

gboolean
rt_session_write_table (RtSession *s, const RtTable *table, const char *stem, GError **error)
{
  g_autoptr (GString) tsv = rt_table_tsv (table);
  g_autofree char *name = g_strdup_printf ("%s.tsv", stem);
  return rt_session_write (s, name, tsv, error);
}
