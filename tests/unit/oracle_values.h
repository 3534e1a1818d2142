// The values files of tests/data/scalasca-oracle (scalasca-values.csv: metric,location,value,
// as cube_dump computed them), read by the tests that compare with Scalasca and Cube.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>

namespace topolens::test {

// (metric, location) -> value
using OracleValues = std::map<std::pair<std::string, int>, double>;

inline OracleValues read_oracle_values(const std::filesystem::path& csv) {
    std::ifstream in(csv);
    EXPECT_TRUE(in) << "cannot read " << csv
                    << ": configure with -DTOPOLENS_ORACLE_DIR=<scalasca-oracle folder>";
    OracleValues values;
    std::string line;
    std::getline(in, line); // header
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string name, location, value;
        std::getline(fields, name, ',');
        std::getline(fields, location, ',');
        std::getline(fields, value, ',');
        values[{name, std::stoi(location)}] = std::stod(value);
    }
    return values;
}

} // namespace topolens::test
