# SPDX-License-Identifier: Apache-2.0
# embed-templates.cmake: writes OUT, a C file holding every file of FILES (paths) as a byte array
# named by its base name, for the gnuplot templates to be compiled into the core without GIO's
# resources (which cost every run of every analyzer the loading of GIO and seven more libraries).
#   cmake -DOUT=rt-templates.c -DFILES="a.gp;b.gp" -P embed-templates.cmake
set(body "/* rt-templates.c: written by tools/embed-templates.cmake from gnuplot/: the plot templates. */\n#include <stddef.h>\n\n")
set(table "")
set(i 0)
foreach(path ${FILES})
  get_filename_component(name ${path} NAME)
  file(READ ${path} hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # one line of 16 bytes at a time, for a readable file
  string(REGEX REPLACE "((0x..,){16})" "\\1\n  " bytes "${bytes}")
  string(APPEND body "static const unsigned char template_${i}[] = {\n  ${bytes}0x00\n};\n")
  string(APPEND table "  { \"${name}\", template_${i}, sizeof template_${i} - 1 },\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "\n/* name, text (NUL-terminated), length without the NUL; a NULL name ends the table */\n"
       "const struct { const char *name; const unsigned char *text; size_t size; } rt_gnuplot_templates[] = {\n"
       "${table}  { NULL, NULL, 0 },\n};\n")
file(WRITE ${OUT}.tmp "${body}")
file(RENAME ${OUT}.tmp ${OUT})
