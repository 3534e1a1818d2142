// What `topolens analyze --ranks N` lets through of mpirun's stderr: the ranks' lines at once,
// Open MPI's framed help messages held until the end.
#include "analyzer/cli/mpirun_messages.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

using topolens::cli::MpirunMessages;

namespace {

const std::string kFrame(74, '-');
const std::string kAborted =
    kFrame + "\nPrimary job  terminated normally, but 1 process returned\n" +
    "a non-zero exit code. Per user-direction, the job has been aborted.\n" + kFrame + "\n";
const std::string kDetected = kFrame +
                              "\nmpirun detected that one or more processes exited with non-zero "
                              "status\n\n  Exit code:    1\n" +
                              kFrame + "\n";

} // namespace

TEST(MpirunMessages, TheAnalysisErrorPassesAndOpenMpisMessagesAreHeld) {
    std::ostringstream out;
    MpirunMessages messages(out);
    messages.take("topolens: reading T in 2 ranks\n");
    messages.take("topolens: error: T/traces/1.evt: cannot open\n" + kAborted + kDetected);
    messages.finish();
    EXPECT_EQ(out.str(),
              "topolens: reading T in 2 ranks\ntopolens: error: T/traces/1.evt: cannot open\n");
    EXPECT_TRUE(messages.analysis_reported_error());
    EXPECT_TRUE(messages.holds_any());
    messages.release();
    EXPECT_EQ(out.str(), "topolens: reading T in 2 ranks\ntopolens: error: T/traces/1.evt: cannot "
                         "open\n" +
                             kAborted + kDetected);
    EXPECT_FALSE(messages.holds_any());
}

TEST(MpirunMessages, PiecesOfAnySizeGiveTheSameLines) {
    const std::string text = "topolens: warning: w\n" + kAborted + "2 total processes failed\n" +
                             kDetected + "topolens: error: e\n";
    std::ostringstream out;
    MpirunMessages messages(out);
    for (char c : text) messages.take(std::string_view(&c, 1));
    messages.finish();
    EXPECT_EQ(out.str(), "topolens: warning: w\n2 total processes failed\ntopolens: error: e\n");
    EXPECT_TRUE(messages.analysis_reported_error());
    messages.release();
    EXPECT_EQ(out.str(), "topolens: warning: w\n2 total processes failed\ntopolens: error: e\n" +
                             kAborted + kDetected);
}

TEST(MpirunMessages, AnUnfinishedLineOfARankIsOutAtOnce) {
    std::ostringstream out;
    MpirunMessages messages(out);
    messages.take("topolens: read");
    EXPECT_EQ(out.str(), "topolens: read");
    messages.take("ing\n--");
    EXPECT_EQ(out.str(), "topolens: reading\n"); // "--" may start a frame: it waits
    messages.take("cart 3x4\n");
    EXPECT_EQ(out.str(), "topolens: reading\n--cart 3x4\n");
    EXPECT_FALSE(messages.holds_any());
}

TEST(MpirunMessages, WithoutTheAnalysisErrorNothingIsReported) {
    std::ostringstream out;
    MpirunMessages messages(out);
    messages.take(kDetected + "topolens: warning: not an error: topolens: error: \n");
    messages.take("topolens: error: without a newline");
    EXPECT_FALSE(messages.analysis_reported_error());
    messages.finish();
    EXPECT_TRUE(messages.analysis_reported_error());
    EXPECT_EQ(out.str(), "topolens: warning: not an error: topolens: error: \ntopolens: error: "
                         "without a newline");
}

TEST(MpirunMessages, AnUnclosedMessageIsHeldWhole) {
    std::ostringstream out;
    MpirunMessages messages(out);
    messages.take(kFrame + "\nOpen RTE was unable to open the hostfile:\n    /no/hosts\n");
    messages.finish();
    EXPECT_EQ(out.str(), "");
    EXPECT_FALSE(messages.analysis_reported_error());
    messages.release();
    EXPECT_EQ(out.str(), kFrame + "\nOpen RTE was unable to open the hostfile:\n    /no/hosts\n");
}
