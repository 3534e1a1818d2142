// OTF2's errors are taken over by the measurement library (measure/otf2_errors.h): counted,
// the first code of a step kept, nothing printed.
#include "otf2_errors.h"

#include <gtest/gtest.h>
#include <otf2/otf2.h>

using namespace topolens::measure;

TEST(Otf2Errors, ErrorsAreCountedAndKeptNotPrinted) {
    otf2_errors::capture();
    otf2_errors::capture(); // once per process, however often it is called
    const uint64_t mark = otf2_errors::count();
    EXPECT_EQ(otf2_errors::first_since(mark), OTF2_SUCCESS);

    testing::internal::CaptureStderr();
    // A read of an archive that does not exist: OTF2 reports the missing file first.
    OTF2_Reader* reader = OTF2_Reader_Open("/nonexistent-topolens/traces.otf2");
    const std::string printed = testing::internal::GetCapturedStderr();
    EXPECT_EQ(reader, nullptr);
    EXPECT_EQ(printed, "");
    EXPECT_GT(otf2_errors::count(), mark);
    EXPECT_EQ(otf2_errors::first_since(mark), OTF2_ERROR_ENOENT);
    EXPECT_EQ(otf2_errors::first_since(otf2_errors::count()), OTF2_SUCCESS);
}
