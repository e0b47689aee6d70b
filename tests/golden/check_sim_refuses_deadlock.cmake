# Runs `streamlab sim` on a deadlocking workload; passes when it exits non-zero, names every op of the
# cycle and writes no trace.
file(REMOVE ${OUT})
execute_process(COMMAND ${STREAMLAB} sim ${WORKLOAD} --policy round-robin -o ${OUT}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "streamlab sim accepted a deadlocking workload:\n${out}${err}")
endif()
foreach(needle "deadlock" "'a1'" "'a2'" "'b1'" "'b2'")
  string(FIND "${err}" "${needle}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "error message lacks ${needle}:\n${err}")
  endif()
endforeach()
if(EXISTS ${OUT})
  message(FATAL_ERROR "a trace was written despite the refusal: ${OUT}")
endif()
message(STATUS "refused (exit ${rc}): ${err}")
