# Threads: several locations per process in the matching and the analysis (synthetic
# traces, exact timestamps).
add_executable(topolens_thread_tests thread_matching_test.cpp)
target_link_libraries(topolens_thread_tests PRIVATE topolens-patterns topolens-trace
  GTest::gtest_main)
gtest_discover_tests(topolens_thread_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
