# Included by ctest (see lab_label_tests): LAB_TESTS are the discovered tests, LAB_LABELS the
# labels they all get. Tests that run a kernel also get "kernel".
foreach(test IN LISTS LAB_TESTS)
  set(labels ${LAB_LABELS})
  if(test MATCHES "\\.MatchesReference/")
    list(APPEND labels kernel)
  endif()
  set_tests_properties("${test}" PROPERTIES LABELS "${labels}")
endforeach()
