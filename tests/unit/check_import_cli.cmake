# `streamlab import`: a good trace writes the workload and the measured trace; each bad one exits 2 with one
# line naming the file and writes nothing.
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${STREAMLAB} import ${FIXTURE} -o ${WORK}/w.json --measured ${WORK}/m.json
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT EXISTS ${WORK}/w.json OR NOT EXISTS ${WORK}/m.json)
  message(FATAL_ERROR "import of ${FIXTURE} failed (exit ${rc}):\n${out}${err}")
endif()

file(WRITE ${WORK}/nogpu.json
     [=[{"traceEvents":[{"ph":"X","cat":"cuda_runtime","name":"cudaGetDevice","pid":1,"tid":1,"ts":1,"dur":1,"args":{"correlation":1}}]}]=])
# The first half of the fixture's gzip bytes: a truncated stream (CMake strings cannot hold binary data).
file(SIZE ${FIXTURE} size)
math(EXPR half "${size} / 2")
execute_process(COMMAND head -c ${half} ${FIXTURE} OUTPUT_FILE ${WORK}/cut.json.gz RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not cut the fixture")
endif()
foreach(bad nogpu.json cut.json.gz missing.json)
  set(expect_nogpu.json "no GPU activity")
  set(expect_cut.json.gz "truncated gzip")
  set(expect_missing.json "no such file")
  file(REMOVE ${WORK}/out.json ${WORK}/out-m.json)
  execute_process(COMMAND ${STREAMLAB} import ${WORK}/${bad} -o ${WORK}/out.json --measured ${WORK}/out-m.json
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 2)
    message(FATAL_ERROR "${bad}: exit ${rc}, expected 2:\n${out}${err}")
  endif()
  string(REGEX MATCHALL "\n" lines "${err}")
  list(LENGTH lines nlines)
  if(NOT nlines EQUAL 1 OR NOT err MATCHES "^streamlab: error: .*${bad}: ${expect_${bad}}")
    message(FATAL_ERROR "${bad}: expected one 'streamlab: error: FILE: ...' line, got:\n${err}")
  endif()
  if(EXISTS ${WORK}/out.json OR EXISTS ${WORK}/out-m.json)
    message(FATAL_ERROR "${bad}: an output was written despite the error")
  endif()
  message(STATUS "${bad}: ${err}")
endforeach()
