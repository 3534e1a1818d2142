# Unit tests of the report model, its CUBE4 reader/writer and the summary/values commands.
if(NOT TARGET PkgConfig::PUGIXML)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(PUGIXML REQUIRED IMPORTED_TARGET pugixml)
endif()

add_executable(topolens_report_tests
  report_commands_test.cpp
  report_cube4_test.cpp
  report_cube4_util.cpp
  report_damaged_test.cpp
  gathered_report_test.cpp
  report_window_test.cpp
  report_model_test.cpp
  report_wait_edges_test.cpp
  report_sample.cpp
  test_util.cpp
)
target_link_libraries(topolens_report_tests PRIVATE topolens-engine topolens-audit topolens-trace
  PkgConfig::PUGIXML GTest::gtest_main)
# The command tests run the real binary.
add_dependencies(topolens_report_tests topolens)
target_link_libraries(topolens_report_tests PRIVATE topolens-test-paths)
gtest_discover_tests(topolens_report_tests
  PROPERTIES LABELS unit
  DISCOVERY_TIMEOUT 60)
