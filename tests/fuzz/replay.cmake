# Included when FEDBENCH_FUZZ is off: each harness of tests/fuzz built with a plain main
# (replay_main.cpp) and a ctest entry replaying its seed corpus, so that every build, with
# either compiler and under the sanitizers, compiles the harnesses and runs their inputs.
# fuzz_run_file_checksummed calls into libFuzzer's mutator and has no corpus of its own: it
# is built only by the fuzz build.
file(GLOB FEDBENCH_REPLAYED CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/tests/fuzz/fuzz_*.cpp)
list(FILTER FEDBENCH_REPLAYED EXCLUDE REGEX "fuzz_run_file_checksummed")
foreach(source ${FEDBENCH_REPLAYED})
  get_filename_component(name ${source} NAME_WE)
  add_executable(replay_${name} ${source} ${CMAKE_SOURCE_DIR}/tests/fuzz/replay_main.cpp)
  target_link_libraries(replay_${name} PRIVATE fedbench_core)
  target_include_directories(replay_${name} PRIVATE ${CMAKE_SOURCE_DIR}/tests/fuzz)
  set_target_properties(replay_${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  add_dependencies(fedbench_test_programs replay_${name})
  add_test(NAME fuzz-replay.${name}
           COMMAND replay_${name} ${CMAKE_SOURCE_DIR}/tests/fuzz/corpus/${name})
  set_tests_properties(fuzz-replay.${name} PROPERTIES LABELS check)
endforeach()
