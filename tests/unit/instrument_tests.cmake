# Compiler instrumentation's symbol lookup (measure/function_symbols.h) and the region
# definitions it makes. Built with debug information (RelWithDebInfo, or -g here) so that
# addr2line finds this file's lines.
add_executable(topolens_instrument_tests measure_function_symbols_test.cpp)
target_compile_options(topolens_instrument_tests PRIVATE -g)
target_link_libraries(topolens_instrument_tests PRIVATE topolens-measure-core GTest::gtest_main)
gtest_discover_tests(topolens_instrument_tests PROPERTIES LABELS unit DISCOVERY_TIMEOUT 60)
