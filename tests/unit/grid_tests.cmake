# Unit tests of the analysis grid: --cart declarations, recorded/declared/inferred grids,
# grid roles, grids from row and column communicators and the means per row and column,
# the roles in `topolens summary`, `values` and `analyze --cart`, and the same choice on
# every rank of an analysis shared out to ranks.
add_executable(topolens_grid_tests
  grid_test.cpp
  comm_grid_test.cpp
  shared_grid_test.cpp
  test_util.cpp
)
target_link_libraries(topolens_grid_tests PRIVATE topolens-engine topolens-audit topolens-trace
  GTest::gtest_main)
# The command tests run the real binary.
add_dependencies(topolens_grid_tests topolens)
target_link_libraries(topolens_grid_tests PRIVATE topolens-test-paths)
gtest_discover_tests(topolens_grid_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
