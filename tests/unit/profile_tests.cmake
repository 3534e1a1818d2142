# Unit tests of profile mode (measure/profile*.h): its tree, its report and its metrics,
# checked against the trace analysis' catalogue and MPI categories.
add_executable(topolens_profile_tests measure_profile_test.cpp)
target_link_libraries(topolens_profile_tests PRIVATE topolens-measure-core topolens-patterns
  GTest::gtest_main)
gtest_discover_tests(topolens_profile_tests
  PROPERTIES LABELS unit
  DISCOVERY_TIMEOUT 60)
