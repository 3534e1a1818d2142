# Unit tests of the filter-file parser (trace/region_filter.h): exact matches and exact error
# positions, no trace or binary needed.
add_executable(topolens_filter_tests region_filter_test.cpp)
target_link_libraries(topolens_filter_tests PRIVATE topolens-trace GTest::gtest_main)
gtest_discover_tests(topolens_filter_tests PROPERTIES LABELS unit)
