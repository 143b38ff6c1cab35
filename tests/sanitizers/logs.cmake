# cmake -DLOGS=DIR -DMODE=clear|check -P logs.cmake. clear: an empty DIR before the tests (the
# runtimes write there but do not create it). check: print every report found in DIR, fail if any
# (but those the run-file screen contains, see below).
if(MODE STREQUAL "clear")
  file(REMOVE_RECURSE ${LOGS})
  file(MAKE_DIRECTORY ${LOGS})
elseif(MODE STREQUAL "check")
  # fedbench reads run files in a screening process so that crafted files that crash libhdf5
  # cost one line (tests/cli/faults.sh feeds it such files). A report from the screen whose
  # faulting frame is inside libhdf5 is that containment at work: listed, not counted.
  file(GLOB all_reports ${LOGS}/*)
  set(reports "")
  foreach(report ${all_reports})
    file(READ ${report} text)
    if(text MATCHES "serve_run_file_screen" AND text MATCHES "#0 [^\n]*libhdf5")
      message("== contained in the run-file screen (libhdf5 on a crafted file): ${report}")
    else()
      message("== ${report}\n${text}")
      list(APPEND reports ${report})
    endif()
  endforeach()
  list(LENGTH reports n)
  if(n GREATER 0)
    message(FATAL_ERROR "${n} sanitizer report file(s) in ${LOGS}")
  endif()
  message("no sanitizer reports in ${LOGS}")
else()
  message(FATAL_ERROR "MODE=${MODE}: use clear or check")
endif()
