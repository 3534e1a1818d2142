# Unit tests of the verification runs (patterns/audit/verification.h): hand-made runs with
# exact expectations for ranges, overlaps, instability classes, winner and worst sets, the
# tuner's penalty, the ranking error, bad runs and the "verification" JSON.
add_executable(topolens_verification_tests verification_test.cpp)
target_link_libraries(topolens_verification_tests PRIVATE topolens-audit GTest::gmock
  GTest::gtest_main)
gtest_discover_tests(topolens_verification_tests PROPERTIES LABELS unit)
