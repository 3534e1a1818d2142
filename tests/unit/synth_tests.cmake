# Unit tests of the synthetic trace generator and `topolens synth` (included by
# CMakeLists.txt in this directory).
add_executable(topolens_synth_tests
  synth_test.cpp
  test_util.cpp
)
target_link_libraries(topolens_synth_tests PRIVATE topolens-trace GTest::gtest_main)
# The command-line tests run the real binary.
add_dependencies(topolens_synth_tests topolens)
target_link_libraries(topolens_synth_tests PRIVATE topolens-test-paths)
gtest_discover_tests(topolens_synth_tests
  PROPERTIES LABELS unit
  DISCOVERY_TIMEOUT 60)

# The analysis on synth's halo, pairwise, ssor, sweep and delay traces, metric by metric
# against the generator's expectations.
add_executable(topolens_synth_pattern_tests
  synth_delay_test.cpp
  synth_patterns_test.cpp
  synth_sweep_test.cpp
)
target_link_libraries(topolens_synth_pattern_tests PRIVATE topolens-patterns topolens-audit
  topolens-trace GTest::gtest_main)
gtest_discover_tests(topolens_synth_pattern_tests
  PROPERTIES LABELS unit
  DISCOVERY_TIMEOUT 60)
