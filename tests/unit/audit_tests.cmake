# Unit tests of the codelet audit (patterns/audit/codelet_audit.h): hand-made measurements with
# exact expectations, the measurements text, the audit JSON and json::Writer, and the
# measurements the codelet patterns gather from a synthetic autotuner trace.
add_executable(topolens_audit_tests
  codelet_audit_test.cpp
  codelet_audit_trace_test.cpp
)
target_link_libraries(topolens_audit_tests PRIVATE topolens-patterns topolens-audit
  topolens-trace GTest::gmock GTest::gtest_main)
gtest_discover_tests(topolens_audit_tests PROPERTIES LABELS unit)
