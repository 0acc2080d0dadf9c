/* SPDX-License-Identifier: Apache-2.0 */
/* decimal.c: the table of powers of five the number reader multiplies by, and the reader
 * (decimal-private.h) for C callers. */
#include "decimal-private.h"

#include "rt-pow5.h"   /* written by tools/gen-pow5.c at build time */

gsize
rt_decimal_read_double (const char *tok, gsize len, double *out)
{
  return dec_read_double (tok, len, out);
}

gsize
rt_decimal_read_count (const char *tok, gsize len, gint64 *out)
{
  return dec_read_count (tok, len, out);
}
