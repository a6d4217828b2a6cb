# Run by ctest for each planted mistake (tests/mutants.json): passes when the rung's suite FAILS the
# mutated kernel and says why. Variables: EXE (the mutant's test program), FILTER (gtest filter),
# EXPECT (a regular expression the output must match), NAME and MISTAKE (for the messages), and
# WRAPPER (a tool to run the program under, such as compute-sanitizer's racecheck) if any.
execute_process(COMMAND ${WRAPPER} "${EXE}" "--gtest_filter=${FILTER}" RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
string(REGEX MATCH "\\[  FAILED  \\] [0-9]+ tests?, listed below" failed "${output}")
if(WRAPPER AND output MATCHES "RACECHECK SUMMARY: [1-9][0-9]* hazard")
  set(failed "racecheck found hazards")
endif()
if(NOT failed AND output MATCHES "\\[  SKIPPED \\]")
  message("[  SKIPPED ] every case that would catch ${NAME} was skipped here (no GPU, or too little memory)")
  return()
endif()
if(NOT failed)
  message(FATAL_ERROR "The suite did not catch the planted mistake ${NAME}: ${MISTAKE}. Every selected case "
                      "(${FILTER}) passed or none ran, so the suite cannot tell this mistake from a right answer.\n${output}")
endif()
if(NOT output MATCHES "${EXPECT}")
  message(FATAL_ERROR "The suite failed the planted mistake ${NAME} (${MISTAKE}), but its messages never say "
                      "'${EXPECT}', which a student would need to understand it.\n${output}")
endif()
message("caught ${NAME}: ${MISTAKE}")
