# Unit tests of the analysis engine and the patterns (synthetic traces, exact severities).
add_executable(topolens_analysis_tests
  analysis_patterns_test.cpp
  test_util.cpp
)
target_link_libraries(topolens_analysis_tests PRIVATE topolens-patterns topolens-analysis
  topolens-trace GTest::gtest_main)
gtest_discover_tests(topolens_analysis_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
