# Included by ctest (see lab_label_tests): LAB_TESTS are the discovered tests of one of the kit's
# own test programs, LAB_LABELS the labels they all get.
foreach(test IN LISTS LAB_TESTS)
  set_tests_properties("${test}" PROPERTIES LABELS "${LAB_LABELS}")
endforeach()
