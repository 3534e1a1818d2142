// Where the unit tests find the built topolens and their data. Only test_paths.cpp is
// compiled with these paths (tests/unit/CMakeLists.txt): no other test file's compilation
// depends on where the clone lives, so the compiler cache serves every clone alike
// (tests/setup.sh).
#pragma once

namespace topolens::test {

const char* topolens_bin();   // the topolens command of this build
const char* oracle_dir();     // Scalasca 2.6's answers on our traces (TOPOLENS_ORACLE_DIR)
const char* robustness_dir(); // damaged and odd inputs (TOPOLENS_ROBUSTNESS_DIR)
const char* otf2_print();     // OTF2's otf2-print, as found at configure time

} // namespace topolens::test
