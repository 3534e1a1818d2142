# Unit tests of the analysis engine, the patterns and `topolens analyze` (synthetic traces,
# exact severities).
add_executable(topolens_analysis_tests
  analysis_patterns_test.cpp
  analyze_command_test.cpp
  wavefront_patterns_test.cpp
  no_wave_test.cpp
  codelet_patterns_test.cpp
  tuned_phases_test.cpp
  audit_command_test.cpp
  parallel_analysis_test.cpp
  shared_matching_test.cpp
  shared_analysis_test.cpp
  exchange_test.cpp
  backward_replay_test.cpp
  point_to_point_waits_test.cpp
  fact_tables_test.cpp
  critical_path_test.cpp
  collective_delay_rules_test.cpp
  time_map_test.cpp
  scalasca_rules_test.cpp
  scalasca_oracle_test.cpp
  message_statistics_test.cpp
  cube_values_test.cpp
  metric_catalogue_test.cpp
  time_backwards_test.cpp
  cut_short_analysis_test.cpp
  program_time_test.cpp
  trace_report_test.cpp
  cube_view.cpp
  test_util.cpp
)
target_link_libraries(topolens_analysis_tests PRIVATE topolens-patterns topolens-audit
  topolens-trace PkgConfig::PUGIXML GTest::gtest_main)
add_dependencies(topolens_analysis_tests topolens)
target_link_libraries(topolens_analysis_tests PRIVATE topolens-test-paths)
gtest_discover_tests(topolens_analysis_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
