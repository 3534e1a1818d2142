// The engine's fact tables (analyzer/engine/facts.h): a fact one end of a message writes in a
// preparation round reaches the other end in a later round and in the replay, a location's
// fact reaches every location, whatever the number of threads; reading a fact in the phase
// that writes it, or writing it after, is a logic_error naming the table; publishing a phase
// hands over exactly the entries written here and read elsewhere.
#include "analyzer/engine/engine.h"
#include "analyzer/engine/facts.h"
#include "pattern_test_util.h"
#include "trace/builder.h"
#include "trace/matching.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

using namespace topolens;
using analysis::Context;
using analysis::FactPhase;
using analysis::MessageEnd;
using trace::TraceBuilder;

namespace {

// What a pattern can get wrong about phases.
enum class Mistake { None, ReadInItsRound, ReadInTheReplay, WriteAfterItsRound };

// Round 0: each send tells its receiver the send record's time, each location tells everyone
// its number of events. Round 1: each receive answers its sender with that time plus
// 1000 * (receiver + 1). Replay: each location adds what it was told (sent times at the
// receiver, answers at the sender, everyone's events) and tells everyone its number of
// receives, which on_finish adds up.
class FactPasser : public analysis::Pattern {
  public:
    explicit FactPasser(Mistake mistake = Mistake::None) : mistake_(mistake) {}
    std::string name() const override { return "fact passer"; }
    std::unique_ptr<analysis::Pattern> clone() const override {
        return std::make_unique<FactPasser>(*this);
    }
    void merge(analysis::Pattern&) override {}
    void define_metrics(report::Report& r) override {
        sent_metric_ = analysis::define_metric(r, "", "test_sent_time", "Sent", "told", "occ");
        answer_metric_ = analysis::define_metric(r, "", "test_answer", "Answer", "told", "occ");
        events_metric_ = analysis::define_metric(r, "", "test_all_events", "Events", "all", "occ");
        receives_metric_ =
            analysis::define_metric(r, "", "test_receives", "Receives", "all", "occ");
    }
    void subscribe(analysis::Dispatcher& d) override {
        sent_time_ =
            d.message_facts<trace::Time>("sent time", MessageEnd::Sender, FactPhase::round(0));
        answer_ = d.message_facts<trace::Time>("answer", MessageEnd::Receiver, FactPhase::round(1));
        events_ = d.location_facts<uint64_t>("events", FactPhase::round(0));
        receives_ = d.location_facts<uint32_t>("receives", FactPhase::forward_replay());
        d.on_prepare(0, [this](Context& c, uint32_t loc) {
            const auto& events = c.trace().locations[loc].events;
            for (const auto& [record, id] : c.matching().sends_of[loc])
                if (id != trace::kNone) sent_time_.set(id, events[record].time);
            events_.set(loc, events.size());
            if (mistake_ == Mistake::ReadInItsRound)
                for (const auto& [record, id] : c.matching().receives_of[loc]) sent_time_.get(id);
        });
        d.on_prepare(1, [this](Context& c, uint32_t loc) {
            for (const auto& [record, id] : c.matching().receives_of[loc])
                answer_.set(id, sent_time_.get(id) + 1000 * (loc + 1));
        });
        d.on_location_begin([this](Context& c, uint32_t loc) {
            for (const auto& [record, id] : c.matching().receives_of[loc])
                c.add(sent_metric_, 0, loc, static_cast<double>(sent_time_.get(id)));
            for (const auto& [record, id] : c.matching().sends_of[loc])
                if (id != trace::kNone) c.add(answer_metric_, 0, loc, double(answer_.get(id)));
            uint64_t all = 0;
            for (uint32_t l = 0; l < events_.size(); ++l) all += events_.get(l);
            c.add(events_metric_, 0, loc, static_cast<double>(all));
            receives_.set(loc, static_cast<uint32_t>(c.matching().receives_of[loc].size()));
            if (mistake_ == Mistake::ReadInTheReplay) receives_.get((loc + 1) % receives_.size());
            if (mistake_ == Mistake::WriteAfterItsRound) events_.set(loc, 0);
        });
        d.on_finish([this](Context& c) {
            for (uint32_t l = 0; l < receives_.size(); ++l)
                c.add(receives_metric_, 0, l, receives_.get(l));
        });
    }

  private:
    Mistake mistake_;
    int sent_metric_ = -1, answer_metric_ = -1, events_metric_ = -1, receives_metric_ = -1;
    analysis::MessageFacts<trace::Time> sent_time_, answer_;
    analysis::LocationFacts<uint64_t> events_;
    analysis::LocationFacts<uint32_t> receives_;
};

// 0 -> 1 -> 2 -> 0 and 0 -> 2; the MpiSend records are at the sends' enters.
TraceBuilder ring() {
    TraceBuilder b(3);
    test::begin(b, 3);
    b.mpi_recv(1, 8, 12, 0, b.world(), 0, 8);
    b.mpi_send(0, 10, 11, 1, b.world(), 0, 8);
    b.mpi_recv(2, 15, 22, 1, b.world(), 0, 8);
    b.mpi_send(1, 20, 21, 2, b.world(), 0, 8);
    b.mpi_recv(0, 25, 32, 2, b.world(), 0, 8);
    b.mpi_send(2, 30, 31, 0, b.world(), 0, 8);
    b.mpi_recv(2, 35, 42, 0, b.world(), 0, 8);
    b.mpi_send(0, 40, 41, 2, b.world(), 0, 8);
    test::end(b, 3, 100);
    return b;
}

analysis::AnalysisResult run(const TraceBuilder& b, Mistake mistake, unsigned threads) {
    std::vector<std::unique_ptr<analysis::Pattern>> patterns;
    patterns.push_back(std::make_unique<FactPasser>(mistake));
    analysis::AnalysisOptions options;
    options.threads = threads;
    return analysis::analyze(b.trace(), patterns, options);
}

double metric(const analysis::AnalysisResult& r, const char* name, uint32_t loc) {
    return r.report.total(*r.report.find_metric(name), static_cast<int>(loc));
}

// The message from `from` to `to` (one in ring()).
uint32_t message(const trace::Matching& m, uint32_t from, uint32_t to) {
    for (uint32_t id = 0; id < m.messages.size(); ++id)
        if (m.messages[id].send.location == from && m.messages[id].recv.location == to) return id;
    ADD_FAILURE() << "no message " << from << " -> " << to;
    return 0;
}

} // namespace

TEST(FactTables, FactsReachTheOtherEndAndEveryLocationInLaterPhases) {
    const TraceBuilder b = ring();
    const auto& locations = b.trace().locations;
    const double all_events = static_cast<double>(
        locations[0].events.size() + locations[1].events.size() + locations[2].events.size());
    for (unsigned threads : {1u, 2u}) {
        const auto r = run(b, Mistake::None, threads);
        // At the receivers, the send times: 2 -> 0 at 30, 0 -> 1 at 10, 1 -> 2 and 0 -> 2.
        EXPECT_EQ(metric(r, "test_sent_time", 0), 30.0) << threads << " threads";
        EXPECT_EQ(metric(r, "test_sent_time", 1), 10.0);
        EXPECT_EQ(metric(r, "test_sent_time", 2), 20.0 + 40.0);
        // At the senders, the answers: 0 gets 10 + 2000 and 40 + 3000, 1 gets 20 + 3000,
        // 2 gets 30 + 1000.
        EXPECT_EQ(metric(r, "test_answer", 0), 2010.0 + 3040.0);
        EXPECT_EQ(metric(r, "test_answer", 1), 3020.0);
        EXPECT_EQ(metric(r, "test_answer", 2), 1030.0);
        for (uint32_t loc = 0; loc < 3; ++loc)
            EXPECT_EQ(metric(r, "test_all_events", loc), all_events);
        // Written in the replay, read at the finish.
        EXPECT_EQ(metric(r, "test_receives", 0), 1.0);
        EXPECT_EQ(metric(r, "test_receives", 1), 1.0);
        EXPECT_EQ(metric(r, "test_receives", 2), 2.0);
    }
}

TEST(FactTables, ReadingInTheWritingPhaseOrWritingAfterItIsALogicErrorNamingTheTable) {
    const TraceBuilder b = ring();
    const std::tuple<Mistake, std::string, std::string> cases[] = {
        {Mistake::ReadInItsRound, "'sent time' read before preparation round 0", "round"},
        {Mistake::ReadInTheReplay, "'receives' read before the forward replay", "replay"},
        {Mistake::WriteAfterItsRound, "'events' written after preparation round 0", "write"},
    };
    for (const auto& [mistake, expected, what] : cases)
        for (unsigned threads : {1u, 2u}) {
            try {
                run(b, mistake, threads);
                ADD_FAILURE() << what << ": no error with " << threads << " threads";
            } catch (const std::logic_error& e) {
                EXPECT_NE(std::string(e.what()).find(expected), std::string::npos)
                    << what << ": " << e.what();
            }
        }
}

TEST(FactTables, PublishingHandsOverExactlyTheEntriesReadOnAnotherRank) {
    const TraceBuilder b = ring();
    const trace::Matching m = trace::match(b.trace());
    analysis::FactStore store(m, 3);
    auto sent = store.message<uint64_t>(0, "sent", MessageEnd::Sender, FactPhase::round(0));
    auto answer = store.message<uint64_t>(0, "answer", MessageEnd::Receiver, FactPhase::round(1));
    auto events = store.location<uint32_t>(0, "events", FactPhase::round(0));
    // A clone's declaration is the same table; a different one is refused.
    auto again = store.message<uint64_t>(0, "sent", MessageEnd::Sender, FactPhase::round(0));
    EXPECT_THROW(store.message<uint32_t>(0, "sent", MessageEnd::Sender, FactPhase::round(0)),
                 std::logic_error);
    EXPECT_THROW(store.message<uint64_t>(0, "sent", MessageEnd::Receiver, FactPhase::round(0)),
                 std::logic_error);
    ASSERT_EQ(store.tables().size(), 3u);
    const uint32_t to_2 = message(m, 1, 2), from_0_to_2 = message(m, 0, 2);
    again.set(to_2, 77);
    events.set(1, 9);

    // Locations 0 and 1 are this rank's, 2 another's.
    const auto here = [](uint32_t loc) { return loc < 2; };
    std::vector<std::tuple<std::string, uint32_t, uint32_t>> shipped;
    const auto ship = [&](const analysis::FactTable& table, uint32_t entry, uint32_t reader) {
        shipped.emplace_back(table.name(), entry, reader);
        if (table.name() == "sent" && entry == to_2) {
            ASSERT_EQ(table.element_size(), sizeof(uint64_t));
            uint64_t value = 0;
            std::memcpy(&value, table.bytes(entry).data(), sizeof value);
            EXPECT_EQ(value, 77u);
        }
    };
    store.publish(FactPhase::round(0), here, ship);
    // Sent by 0 or 1 to 2; every location's own fact to everyone; round 1's not yet.
    const auto everyone = analysis::FactStore::kEveryone;
    std::vector<std::tuple<std::string, uint32_t, uint32_t>> expected = {
        {"sent", std::min(to_2, from_0_to_2), 2},
        {"sent", std::max(to_2, from_0_to_2), 2},
        {"events", 0, everyone},
        {"events", 1, everyone}};
    EXPECT_EQ(shipped, expected);
    EXPECT_EQ(sent.get(to_2), 77u);
    EXPECT_EQ(events.get(1), 9u);
    EXPECT_THROW(answer.get(to_2), std::logic_error);

    // Round 1: the answer of 0's receive goes back to its sender, 2.
    shipped.clear();
    store.publish(FactPhase::round(1), here, ship);
    expected = {{"answer", message(m, 2, 0), 2}};
    EXPECT_EQ(shipped, expected);

    // What another rank sent is stored through the raw bytes, and read typed.
    analysis::FactStore other(m, 3);
    auto received = other.message<uint64_t>(0, "sent", MessageEnd::Sender, FactPhase::round(0));
    const uint64_t value = 12345;
    std::memcpy(other.tables()[0]->bytes(from_0_to_2).data(), &value, sizeof value);
    other.publish(
        FactPhase::round(0), [](uint32_t) { return true; },
        [&](const analysis::FactTable&, uint32_t, uint32_t) {
            ADD_FAILURE() << "every location is here: nothing leaves";
        });
    EXPECT_EQ(received.get(from_0_to_2), 12345u);
}

TEST(FactTables, DeclaredOnlyInAnAnalysis) {
    analysis::Dispatcher d;
    EXPECT_THROW(d.message_facts<int>("x", MessageEnd::Sender, FactPhase::round(0)),
                 std::logic_error);
}
