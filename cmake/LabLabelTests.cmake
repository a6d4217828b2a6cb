# Included by ctest (see lab_label_tests): LAB_TESTS are the discovered tests, LAB_LABELS the
# labels they all get. Tests that run a kernel (all of a rung's but the Launcher ones) also get "kernel".
foreach(test IN LISTS LAB_TESTS)
  set(labels ${LAB_LABELS})
  if(test MATCHES "^Ex[0-9][0-9]/" AND NOT test MATCHES "/Launcher\\.")
    list(APPEND labels kernel)
  endif()
  if(test MATCHES "/Speed\\.")
    # Timings need the GPU to themselves.
    list(APPEND labels speed)
    set_tests_properties("${test}" PROPERTIES RUN_SERIAL TRUE)
  endif()
  set_tests_properties("${test}" PROPERTIES LABELS "${labels}")
endforeach()
