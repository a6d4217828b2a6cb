# Run by ctest on the CUDA backend: one case of a rung under compute-sanitizer's racecheck, which
# reports shared-memory hazards such as a warp step that relies on lockstep. Variables: SANITIZER,
# EXE, FILTER (gtest filter), RUNG.
execute_process(COMMAND "${SANITIZER}" --tool racecheck --racecheck-report hazard "${EXE}" "--gtest_filter=${FILTER}"
                RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(output MATCHES "\\[  SKIPPED \\]" AND NOT output MATCHES "\\[  FAILED  \\]")
  message("[  SKIPPED ] rung ${RUNG}: the case did not run here (no GPU), so racecheck had nothing to check")
  return()
endif()
string(REGEX MATCH "RACECHECK SUMMARY: ([0-9]+) hazards? displayed \\(([0-9]+) errors?, ([0-9]+) warnings?\\)" summary "${output}")
if(NOT summary)
  message(FATAL_ERROR "compute-sanitizer racecheck gave no summary for rung ${RUNG} (exit ${status}):\n${output}")
endif()
if(NOT CMAKE_MATCH_1 EQUAL 0)
  message(FATAL_ERROR "rung ${RUNG}: racecheck found ${CMAKE_MATCH_1} shared-memory hazards (${CMAKE_MATCH_2} errors, "
                      "${CMAKE_MATCH_3} warnings): threads read and write the same shared slot with nothing ordering them. "
                      "Inside a warp, a GPU does not promise lockstep (independent thread scheduling, since Volta): separate "
                      "the read and the write with __syncwarp() (read into a register, __syncwarp(), write, __syncwarp()) "
                      "or use __shfl_down_sync; between warps, use __syncthreads(). `volatile` does not order anything.\n${output}")
endif()
if(NOT status EQUAL 0)
  message(FATAL_ERROR "rung ${RUNG}: no hazards, but the case itself failed under racecheck:\n${output}")
endif()
message("rung ${RUNG}: racecheck found no shared-memory hazards")
