# The plug-in SDK: the headers a plug-in compiles against, as the include closure of the entry
# points a solver or problem file includes (engine/solver.hpp, plugin/plugin.hpp,
# problem/problem_registry.hpp, engine/model_averaging.hpp, and the shared solver and problem
# helpers of lib/solvers/common and problems/common). Framework headers (io, results, suite,
# experiment) are not in it: changing them neither changes the installed SDK nor the plug-in
# ABI hash (plugin_abi.cmake). Quoted includes resolve against lib/ first, then the source root
# (problems/, datasets/), as the compiler's include path does.
#   include(sdk_headers.cmake); fedbench_sdk_headers(OUT_VAR SOURCE_DIR)
# OUT_VAR: the headers' paths relative to SOURCE_DIR, sorted.
function(fedbench_sdk_headers out source_dir)
  file(GLOB seeds RELATIVE ${source_dir} ${source_dir}/lib/solvers/common/*.hpp ${source_dir}/problems/common/*.hpp)
  list(APPEND seeds lib/engine/solver.hpp lib/plugin/plugin.hpp lib/problem/problem_registry.hpp
       lib/engine/model_averaging.hpp)
  set(closure "")
  set(todo ${seeds})
  while(todo)
    list(POP_FRONT todo current)
    if(current IN_LIST closure)
      continue()
    endif()
    list(APPEND closure ${current})
    file(STRINGS ${source_dir}/${current} lines REGEX "^#include \"[^\"]+\"")
    foreach(line ${lines})
      string(REGEX REPLACE "^#include \"([^\"]+)\".*" "\\1" inc "${line}")
      foreach(candidate lib/${inc} ${inc})
        if(EXISTS ${source_dir}/${candidate} AND candidate MATCHES "\\.hpp$")
          list(APPEND todo ${candidate})
          break()
        endif()
      endforeach()
    endforeach()
  endwhile()
  list(SORT closure)
  set(${out} ${closure} PARENT_SCOPE)
endfunction()
