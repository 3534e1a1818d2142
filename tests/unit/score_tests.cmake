# Unit tests of the filter-file parser (trace/region_filter.h): exact matches and exact error
# positions, no trace or binary needed.
add_executable(topolens_filter_tests region_filter_test.cpp)
target_link_libraries(topolens_filter_tests PRIVATE topolens-trace GTest::gtest_main)
gtest_discover_tests(topolens_filter_tests PROPERTIES LABELS unit)

# `topolens score` (analyzer/score, trace/record_size.h): exact record sizes, scores of
# synthetic traces and hand-made profiles, filter savings against a trace written without the
# filtered function, and the command on the oracle traces against their real event files.
add_executable(topolens_score_tests score_test.cpp test_util.cpp)
target_link_libraries(topolens_score_tests PRIVATE topolens-score topolens-trace
  GTest::gtest_main)
add_dependencies(topolens_score_tests topolens)
target_link_libraries(topolens_score_tests PRIVATE topolens-test-paths)
gtest_discover_tests(topolens_score_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
