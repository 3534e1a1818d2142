# Unit tests of the codelet-audit estimators (patterns/audit/codelet_estimators.h): pure functions
# on known data, no trace or binary needed.
add_executable(topolens_estimator_tests codelet_estimators_test.cpp)
target_link_libraries(topolens_estimator_tests PRIVATE topolens-audit GTest::gtest_main)
gtest_discover_tests(topolens_estimator_tests PROPERTIES LABELS unit)
