# Unit tests of the codelet audit (patterns/audit/codelet_audit.h): hand-made measurements with
# exact expectations, the measurements text, the audit JSON, its reader and json::Writer, and the
# measurements the codelet patterns gather from a synthetic autotuner trace.
add_executable(topolens_audit_tests
  codelet_audit_test.cpp
  codelet_audit_trace_test.cpp
  audit_json_read_test.cpp
)
target_link_libraries(topolens_audit_tests PRIVATE topolens-patterns topolens-audit
  topolens-trace GTest::gmock GTest::gtest_main)
gtest_discover_tests(topolens_audit_tests PROPERTIES LABELS unit)

# ADCL's decision rule replayed, --measurements, --sweep, --aggregate, samples_min/worst_set
# (patterns/audit/adcl_rule.h, measurement_sweep.h), and `topolens audit` with those options.
add_executable(topolens_audit_rule_tests
  adcl_rule_test.cpp
  audit_rule_command_test.cpp
  test_util.cpp
)
target_link_libraries(topolens_audit_rule_tests PRIVATE topolens-audit topolens-trace
  GTest::gtest_main)
add_dependencies(topolens_audit_rule_tests topolens)
target_link_libraries(topolens_audit_rule_tests PRIVATE topolens-test-paths)
gtest_discover_tests(topolens_audit_rule_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
