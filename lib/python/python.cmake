# Python support (docs/python.md), included from the top-level CMakeLists.txt: the `fedbench`
# extension module (build/lib/python) and the embedding host libfedbench_python.so (build/lib),
# which libfedbench.so dlopen()s for the first .py plug-in. Only the host links libpython;
# libfedbench.so and the fedbench executable never do. Without pybind11 the rest builds as before.
# Sanitizer trees leave it out: the module would need ASan's runtime inside an uninstrumented
# python3, and an interpreter that is never finalised reads as leaks.
# `fedbench_python` builds whatever of it this configuration has (`make install` names it).
if(FEDBENCH_SANITIZE OR FEDBENCH_FUZZ)
  message(STATUS "sanitizer build: no Python solvers or module")
  add_custom_target(fedbench_python)
  return()
endif()
find_program(FEDBENCH_SYSTEM_PYTHON NAMES python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(FEDBENCH_SYSTEM_PYTHON AND NOT Python_EXECUTABLE)
  set(Python_EXECUTABLE ${FEDBENCH_SYSTEM_PYTHON})  # Debian's python3, not one first on PATH
endif()
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 CONFIG QUIET)
if(NOT pybind11_FOUND)
  message(STATUS "pybind11 not found: no Python solvers or module (install pybind11-dev python3-pybind11)")
  add_custom_target(fedbench_python)
  return()
endif()

file(GLOB FEDBENCH_PYTHON_MODULE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/lib/python/module/*.cpp)
# NO_EXTRAS: no link-time optimisation or stripping, so that ccache serves rebuilds.
pybind11_add_module(fedbench_python_module MODULE NO_EXTRAS ${FEDBENCH_PYTHON_MODULE_SOURCES})
target_link_libraries(fedbench_python_module PRIVATE fedbench_core)
set_target_properties(fedbench_python_module PROPERTIES OUTPUT_NAME fedbench
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib/python
                      INSTALL_RPATH "$ORIGIN/..")

add_library(fedbench_python_host SHARED ${CMAKE_SOURCE_DIR}/lib/python/host/python_host.cpp)
target_link_libraries(fedbench_python_host PRIVATE fedbench_core pybind11::embed)
set_target_properties(fedbench_python_host PROPERTIES OUTPUT_NAME fedbench_python
                      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/lib
                      CXX_VISIBILITY_PRESET hidden
                      INSTALL_RPATH "$ORIGIN/..")
# The host is useless without the module it imports.
add_dependencies(fedbench_python_host fedbench_python_module)
add_custom_target(fedbench_python DEPENDS fedbench_python_module fedbench_python_host)
