#include "test_paths.h"

namespace topolens::test {

const char* topolens_bin() {
    return TOPOLENS_BIN;
}
const char* oracle_dir() {
    return TOPOLENS_ORACLE_DIR;
}
const char* robustness_dir() {
    return TOPOLENS_ROBUSTNESS_DIR;
}
const char* otf2_print() {
    return OTF2_PRINT;
}

} // namespace topolens::test
