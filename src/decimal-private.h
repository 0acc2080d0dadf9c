/* decimal-private.h: reads the numbers of a trace line (JSON numbers as Python's repr writes
 * them) faster than a general parser, correctly rounded; any other shape is left to the caller. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Reads the number at the start of the token tok[0, len): `-`?, `0` or a digit 1-9 and more
 * digits, then `.` and digits or not, then an exponent (`e` or `E`, a sign or not, 1 to 4
 * digits) or not, with at most 19 digits from the first that is not 0. Sets *out to the double
 * nearest to it (ties to even), as strtod does, and returns how many bytes it took: the byte
 * after them, tok[returned], is where the number ends (within the token, or the byte just after
 * it). Returns 0, and leaves *out alone, for a token of any other shape or a number beyond a
 * double's range, and on the very rare numbers it cannot round with certainty: the caller reads
 * those another way. Reads no byte past tok + len + 8 (the line's padding makes that safe). */
gsize rt_decimal_read_double (const char *tok, gsize len, double *out);

/* The same for a count: `0` or a digit 1-9 and up to 14 more digits (no sign, fraction or
 * exponent); returns 0 for anything else. */
gsize rt_decimal_read_count (const char *tok, gsize len, gint64 *out);

G_END_DECLS
