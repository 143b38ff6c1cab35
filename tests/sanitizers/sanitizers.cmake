# Included at the end of tests/CMakeLists.txt when FEDBENCH_SANITIZE is set. Every test runs
# with the options below: the first report ends the process with a non-zero status, and
# reports go to files under sanitizer-logs/ rather than stderr, so that one from a command
# whose status or output a CLI script does not check is still seen: the cleanup test
# sanitizer.reports, which ctest runs after all others, prints them and fails.
set(FEDBENCH_SAN_DIR ${CMAKE_SOURCE_DIR}/tests/sanitizers)
set(FEDBENCH_SAN_LOGS ${CMAKE_BINARY_DIR}/sanitizer-logs)
# LSAN_OPTIONS may hold only LeakSanitizer's own flags: in an ASan process it is read after
# ASAN_OPTIONS and its common flags (log_path, ...) would replace those.
set(FEDBENCH_SAN_ENV
    "ASAN_OPTIONS=halt_on_error=1:abort_on_error=0:detect_leaks=1:fast_unwind_on_malloc=0:check_initialization_order=1:strict_init_order=1:log_path=${FEDBENCH_SAN_LOGS}/asan:log_exe_name=1"
    "LSAN_OPTIONS=suppressions=${FEDBENCH_SAN_DIR}/lsan.supp:print_suppressions=0"
    "UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:suppressions=${FEDBENCH_SAN_DIR}/ubsan.supp:log_path=${FEDBENCH_SAN_LOGS}/ubsan:log_exe_name=1"
    "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${FEDBENCH_SAN_DIR}/tsan.supp:print_suppressions=0:log_path=${FEDBENCH_SAN_LOGS}/tsan:log_exe_name=1")
# GCC's UBSan runtime ignores log_path next to ASan and prints to stderr: a report that
# reaches a test's output fails it too.
set(FEDBENCH_SAN_FAIL "(Address|Leak|Thread|UndefinedBehavior)Sanitizer|: runtime error: ")

add_test(NAME sanitizer.clear COMMAND ${CMAKE_COMMAND} -DLOGS=${FEDBENCH_SAN_LOGS} -DMODE=clear
                                      -P ${FEDBENCH_SAN_DIR}/logs.cmake)
add_test(NAME sanitizer.reports COMMAND ${CMAKE_COMMAND} -DLOGS=${FEDBENCH_SAN_LOGS} -DMODE=check
                                        -P ${FEDBENCH_SAN_DIR}/logs.cmake)
set_tests_properties(sanitizer.clear PROPERTIES FIXTURES_SETUP sanitizer_logs LABELS check)
set_tests_properties(sanitizer.reports PROPERTIES FIXTURES_CLEANUP sanitizer_logs LABELS check)

# The tests defined so far (CLI and contract tests), then the doctest cases, which ctest
# discovers from the built binary through an include file: a second include file, read after
# doctest's, gives them the same properties.
get_property(FEDBENCH_SAN_TESTS DIRECTORY PROPERTY TESTS)
list(REMOVE_ITEM FEDBENCH_SAN_TESTS sanitizer.clear sanitizer.reports)
# The libFuzzer harnesses' corpus replays (the clang tree builds them beside the tests) keep
# their own options: libFuzzer ends on the first report and fails the entry itself.
list(FILTER FEDBENCH_SAN_TESTS EXCLUDE REGEX "^fuzz[.]")
set_tests_properties(${FEDBENCH_SAN_TESTS} PROPERTIES ENVIRONMENT "${FEDBENCH_SAN_ENV}"
                     FAIL_REGULAR_EXPRESSION "${FEDBENCH_SAN_FAIL}" FIXTURES_REQUIRED sanitizer_logs)
set(FEDBENCH_SAN_INCLUDE ${CMAKE_BINARY_DIR}/fedbench_tests_sanitizers.cmake)
file(WRITE ${FEDBENCH_SAN_INCLUDE}
     "if(fedbench_tests_TESTS)\n"
     "  set_tests_properties(\${fedbench_tests_TESTS} PROPERTIES\n"
     "                       ENVIRONMENT [==[${FEDBENCH_SAN_ENV}]==]\n"
     "                       FAIL_REGULAR_EXPRESSION [==[${FEDBENCH_SAN_FAIL}]==]\n"
     "                       FIXTURES_REQUIRED sanitizer_logs)\n"
     "endif()\n")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${FEDBENCH_SAN_INCLUDE})
