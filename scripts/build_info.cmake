# Writes the build's identity (version, git commit, compiler) into generated/build_info.cpp at
# every build, not only at configure time, so that a run file names the commit that built the
# binary; "-dirty" marks uncommitted changes to tracked files. The file is rewritten only when
# its text changes, so a build without a new commit recompiles nothing.
# cmake -DSOURCE_DIR=.. -DIN=.. -DOUT=.. -DPROJECT_VERSION=.. -DCMAKE_CXX_COMPILER_ID=..
#       -DCMAKE_CXX_COMPILER_VERSION=.. -DCMAKE_BUILD_TYPE=.. -P build_info.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE FEDBENCH_GIT_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT FEDBENCH_GIT_COMMIT)
  set(FEDBENCH_GIT_COMMIT "unknown")
else()
  execute_process(COMMAND git status --porcelain --untracked-files=no WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND FEDBENCH_GIT_COMMIT "-dirty")
  endif()
endif()
configure_file(${IN} ${OUT} @ONLY)
