# SPDX-License-Identifier: Apache-2.0
# packaging/install.cmake: what `cmake --install` puts where, and the .deb (CPack).
# Everything per command comes from the one list of commands, rt-commands.tsv (written by the
# rt_add_analyzer calls of CMakeLists.txt), and rt-synth: a command added there is installed,
# documented and completed with no edit here.
include(GNUInstallDirs)
find_package(Python3 REQUIRED COMPONENTS Interpreter)

# The installed commands: every analyzer the list names, and rt-synth, which makes a test
# experiment to try them on (the README says why it is installed).
file(STRINGS ${RT_COMMANDS_TSV}.in rt_command_lines REGEX "^rt-")
set(RT_INSTALLED_COMMANDS)
foreach(line IN LISTS rt_command_lines)
  string(REGEX REPLACE "\t.*" "" name "${line}")
  list(APPEND RT_INSTALLED_COMMANDS ${name})
endforeach()
list(APPEND RT_INSTALLED_COMMANDS rt-synth)

# The version, for programs built on the library.
configure_file(${CMAKE_SOURCE_DIR}/packaging/rt-version.h.in ${CMAKE_BINARY_DIR}/include/rolltrace/rt-version.h @ONLY)
target_include_directories(rolltrace-objects PUBLIC ${CMAKE_BINARY_DIR}/include)

# The front: `rolltrace NAME ARGS` runs rt-NAME ARGS; it knows the names, the commands say the rest.
string(REPLACE ";" " " rt_command_names "${RT_INSTALLED_COMMANDS}")
add_executable(rolltrace-front tools/rolltrace/rolltrace.c)
set_target_properties(rolltrace-front PROPERTIES OUTPUT_NAME rolltrace)
target_link_libraries(rolltrace-front PRIVATE PkgConfig::GLIB)
target_compile_definitions(rolltrace-front PRIVATE RT_VERSION="${PROJECT_VERSION}"
                           RT_COMMAND_NAMES="${rt_command_names}")

# Man pages and the bash completion, from the built commands' --help (packaging/gen-docs.py).
add_executable(rt-event-names packaging/event-names.c)
target_link_libraries(rt-event-names PRIVATE rolltrace)
set(RT_DOCS_DIR ${CMAKE_BINARY_DIR}/docs)
string(TIMESTAMP RT_DOCS_DATE "%Y-%m-%d" UTC)   # SOURCE_DATE_EPOCH, when set, fixes it
set(rt_doc_args "rolltrace=$<TARGET_FILE:rolltrace-front>")
set(rt_doc_outputs ${RT_DOCS_DIR}/man1/rolltrace.1.gz ${RT_DOCS_DIR}/man7/rolltrace.7.gz
                   ${RT_DOCS_DIR}/completion/rolltrace)
foreach(name IN LISTS RT_INSTALLED_COMMANDS)
  list(APPEND rt_doc_args "${name}=$<TARGET_FILE:${name}>")
  list(APPEND rt_doc_outputs ${RT_DOCS_DIR}/man1/${name}.1.gz)
endforeach()
set(rt_doc_sources ${CMAKE_SOURCE_DIR}/packaging/gen-docs.py ${CMAKE_SOURCE_DIR}/packaging/rolltrace.7.in
                   ${CMAKE_SOURCE_DIR}/packaging/completion.bash.in)
add_custom_command(
  OUTPUT ${rt_doc_outputs}
  COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/packaging/gen-docs.py --out ${RT_DOCS_DIR}
          --version ${PROJECT_VERSION} --date ${RT_DOCS_DATE} --events $<TARGET_FILE:rt-event-names>
          --page7 ${CMAKE_SOURCE_DIR}/packaging/rolltrace.7.in
          --completion ${CMAKE_SOURCE_DIR}/packaging/completion.bash.in ${rt_doc_args}
  DEPENDS ${rt_doc_sources} rolltrace-front rt-event-names ${RT_INSTALLED_COMMANDS}
  COMMENT "Man pages and bash completion from the commands' --help"
  VERBATIM)
add_custom_target(rolltrace-docs ALL DEPENDS ${rt_doc_outputs})

# pkg-config: the prefix is found from the .pc file's own place, so an installed tree can move.
file(RELATIVE_PATH rt_pc_to_prefix /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" rt_pc_to_prefix "${rt_pc_to_prefix}")
configure_file(${CMAKE_SOURCE_DIR}/packaging/rolltrace.pc.in ${CMAKE_BINARY_DIR}/rolltrace.pc @ONLY)

# Debian wants the changelog compressed, reproducibly
add_custom_command(
  OUTPUT ${RT_DOCS_DIR}/changelog.gz
  COMMAND ${CMAKE_COMMAND} -E make_directory ${RT_DOCS_DIR}
  COMMAND sh -c "gzip -9 -n -c \"$1\" > \"$2\"" sh ${CMAKE_SOURCE_DIR}/packaging/changelog ${RT_DOCS_DIR}/changelog.gz
  DEPENDS ${CMAKE_SOURCE_DIR}/packaging/changelog VERBATIM)
add_custom_target(rolltrace-changelog ALL DEPENDS ${RT_DOCS_DIR}/changelog.gz)

install(TARGETS ${RT_INSTALLED_COMMANDS} rolltrace-front RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS rolltrace rolltrace-shared
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/include/rolltrace ${CMAKE_BINARY_DIR}/include/rolltrace
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${CMAKE_BINARY_DIR}/rolltrace.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
# compressed, as Debian installs them (the plain pages beside them are for reading in the build)
install(DIRECTORY ${RT_DOCS_DIR}/man1 ${RT_DOCS_DIR}/man7 DESTINATION ${CMAKE_INSTALL_MANDIR}
        FILES_MATCHING PATTERN "*.gz")
# the script and a link to it per command: bash-completion loads completions/NAME for NAME
install(DIRECTORY ${RT_DOCS_DIR}/completion/ DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
install(FILES ${CMAKE_SOURCE_DIR}/packaging/copyright ${RT_DOCS_DIR}/changelog.gz
        DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The .deb: `make deb` (cpack in the build folder, from the same install rules).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rolltrace)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "rolltrace developers <rolltrace@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "analysers of the rollout traces of multi-turn LLM RL runs")
string(CONCAT CPACK_PACKAGE_DESCRIPTION
       "rolltrace reads the EXP/step_N/worker_M.jsonl traces that a patched verl writes during\n"
       "multi-turn reinforcement learning, loads them into tables once (with a cache), and answers\n"
       "where a step's time goes: request duration CDFs, straggler ranks, turns, the barrier.\n"
       "One command per question (rt-cdf, rt-workers...), all under `rolltrace`, each with --json,\n"
       "TSV tables and gnuplot plots. Also the librolltrace library and its headers.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)          # rolltrace_VERSION_ARCH.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# the runtime libraries (libglib2.0-0, libsimdjson14, libstdc++6...) from dpkg-shlibdeps
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "bash-completion, man-db, libglib2.0-dev, libsimdjson-dev, pkg-config")
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
