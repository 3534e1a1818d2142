// The measurement library's configuration: sizes, switches and their error messages.
#include "config.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace topolens::measure;

namespace {

// Sets the TOPOLENS_* variables for one test and clears them afterwards.
class Environment : public ::testing::Test {
  protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        for (const char* name : {"TOPOLENS_ENABLE", "TOPOLENS_TRACE_DIR", "TOPOLENS_BUFFER_SIZE",
                                 "TOPOLENS_REPORT_PATH_FILE", "TOPOLENS_VERBOSE"})
            unsetenv(name);
    }
};

} // namespace

TEST(ParseSize, UnitsAndPlainBytes) {
    uint64_t bytes = 0;
    ASSERT_TRUE(parse_size("512K", bytes));
    EXPECT_EQ(bytes, 512u << 10);
    ASSERT_TRUE(parse_size("16m", bytes));
    EXPECT_EQ(bytes, 16u << 20);
    ASSERT_TRUE(parse_size("2G", bytes));
    EXPECT_EQ(bytes, 2ull << 30);
    ASSERT_TRUE(parse_size("64MB", bytes));
    EXPECT_EQ(bytes, 64u << 20);
    ASSERT_TRUE(parse_size("1048576", bytes));
    EXPECT_EQ(bytes, 1048576u);
}

TEST(ParseSize, RejectsWhatIsNotASize) {
    uint64_t bytes = 7;
    for (const char* text : {"", "banana", "M", "12Q", "1.5M", "-4K", "12 M", "99999999999999999G"})
        EXPECT_FALSE(parse_size(text, bytes)) << text;
    EXPECT_EQ(bytes, 7u);
}

TEST_F(Environment, DefaultsWithoutVariables) {
    std::vector<std::string> problems;
    const Config config = read_config(problems);
    EXPECT_TRUE(problems.empty());
    EXPECT_TRUE(config.enabled);
    EXPECT_EQ(config.buffer_bytes, 16u << 20);
    EXPECT_EQ(config.trace_dir, "");
    EXPECT_FALSE(config.verbose);
}

TEST_F(Environment, ValuesAreTaken) {
    setenv("TOPOLENS_ENABLE", "off", 1);
    setenv("TOPOLENS_TRACE_DIR", "out/run1", 1);
    setenv("TOPOLENS_BUFFER_SIZE", "256K", 1);
    setenv("TOPOLENS_VERBOSE", "yes", 1);
    std::vector<std::string> problems;
    const Config config = read_config(problems);
    EXPECT_TRUE(problems.empty());
    EXPECT_FALSE(config.enabled);
    EXPECT_EQ(config.trace_dir, "out/run1");
    EXPECT_EQ(config.buffer_bytes, kMinBufferBytes);
    EXPECT_TRUE(config.verbose);
}

TEST_F(Environment, BadBufferSizeFallsBackToTheDefaultAndSaysSo) {
    for (const char* text : {"banana", "100K", "65G"}) {
        setenv("TOPOLENS_BUFFER_SIZE", text, 1);
        std::vector<std::string> problems;
        const Config config = read_config(problems);
        EXPECT_EQ(config.buffer_bytes, 16u << 20) << text;
        ASSERT_EQ(problems.size(), 1u) << text;
        EXPECT_NE(problems[0].find("TOPOLENS_BUFFER_SIZE"), std::string::npos);
        EXPECT_NE(problems[0].find(text), std::string::npos);
        EXPECT_TRUE(config.enabled);
    }
}

TEST_F(Environment, UnclearEnableSwitchesMeasurementOff) {
    setenv("TOPOLENS_ENABLE", "maybe", 1);
    std::vector<std::string> problems;
    const Config config = read_config(problems);
    EXPECT_FALSE(config.enabled);
    ASSERT_EQ(problems.size(), 1u);
    EXPECT_NE(problems[0].find("TOPOLENS_ENABLE='maybe'"), std::string::npos);
}
