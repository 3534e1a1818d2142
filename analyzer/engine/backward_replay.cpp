#include "analyzer/engine/backward_replay.h"

#include "trace/location_shares.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <stdexcept>
#include <thread>

namespace topolens::analysis {

using trace::kNone;

BackwardReplay::BackwardReplay(const trace::Trace& trace, const trace::Matching& matching,
                               const Dispatcher& dispatch, Context& context, unsigned threads,
                               trace::Exchange* exchange)
    : trace_(trace), m_(matching), d_(dispatch), ctx_(context),
      threads_(exchange ? 1 : std::max(threads, 1u)), exchange_(exchange) {
    const auto nloc = static_cast<uint32_t>(trace.locations.size());
    first_ = std::min(matching.share.first, nloc);
    last_ = std::min(matching.share.last, nloc);
}

namespace {

// A step's payload: what each channel wrote, in channel order, then a table of the channels
// that wrote anything (channel, end of its bytes; 4 bytes each) and its length (4 bytes). A
// step where no channel wrote anything (most steps) holds no bytes, and costs no writes.
template <class Write>
void write_sections(trace::Bytes& out, std::vector<uint32_t>& table, size_t channels, Write write) {
    out.clear();
    table.clear();
    for (size_t c = 0; c < channels; ++c) {
        const size_t before = out.size();
        trace::ByteWriter writer(out);
        write(c, writer);
        if (out.size() == before) continue;
        if (out.size() > UINT32_MAX / 2)
            throw std::length_error("backward replay: a step's payloads over 2 GiB");
        table.push_back(static_cast<uint32_t>(c));
        table.push_back(static_cast<uint32_t>(out.size()));
    }
    if (table.empty()) return;
    trace::ByteWriter writer(out);
    for (const uint32_t v : table) writer.put(v);
    writer.put(static_cast<uint32_t>(table.size() / 2));
}

std::span<const std::byte> section(std::span<const std::byte> payload, size_t channel) {
    if (payload.empty()) return {};
    auto word = [&](size_t at) {
        uint32_t v = 0;
        std::memcpy(&v, payload.data() + at, sizeof v);
        return v;
    };
    const uint32_t count = word(payload.size() - sizeof(uint32_t));
    const size_t table = payload.size() - sizeof(uint32_t) * (1 + 2 * size_t{count});
    size_t begin = 0;
    for (uint32_t k = 0; k < count; ++k) {
        const uint32_t c = word(table + 8 * k), end = word(table + 8 * k + 4);
        if (c == channel) return payload.subspan(begin, end - begin);
        begin = end;
    }
    return {};
}

// A message's state (receive_posted_, completion_posted_): posted (its reader may go on),
// taken (its reader read it, or went on without it: a post after that keeps nothing), kept
// (its slot holds bytes: what was posted, or once taken the reader's reply).
constexpr uint8_t kPosted = 1, kTaken = 2, kKept = 4;

constexpr size_t kSlotHeader = 2 * sizeof(uint32_t);

bool complete(const trace::CollectiveMatch& c) {
    return std::all_of(c.members.begin(), c.members.end(),
                       [](const trace::EventRef& m) { return m.location != kNone; });
}

} // namespace

// Per message: the send's completing call left after its receive was posted. Only then can
// the sender have waited for the receiver, and a value from completion to request goes back
// in time. Found from each sender's own sends and what travels with the message.
std::vector<uint8_t> BackwardReplay::completed_after_posted() const {
    std::vector<uint8_t> after(m_.messages.size(), 0);
    // A send's message is at random among the messages, its completion far from the last:
    // fetched `kAhead` sends early, as in the forward replay.
    constexpr size_t kAhead = 8;
    for (uint32_t loc = 0; loc < m_.sends_of.size(); ++loc) {
        const auto& sends = m_.sends_of[loc];
        const auto& events = trace_.locations[loc].events;
        for (size_t k = 0; k < sends.size(); ++k) {
            if (k + kAhead < sends.size()) {
                if (const uint32_t ahead = sends[k + kAhead].second; ahead != kNone) {
                    __builtin_prefetch(&m_.messages[ahead]);
                    __builtin_prefetch(&m_.message_calls[ahead].recv_post);
                }
                if (const uint32_t ahead = m_.send_completions[loc][k + kAhead]; ahead != kNone) {
                    __builtin_prefetch(&events[ahead]);
                    __builtin_prefetch(&m_.frames[loc][ahead]);
                }
            }
            const uint32_t id = sends[k].second, completion = m_.send_completions[loc][k];
            if (id == kNone || completion == kNone || m_.messages[id].recv_posted == kNone)
                continue;
            const trace::CallSummary call = trace::call_around(trace_, m_, loc, completion);
            after[id] = call.region != kNone && call.leave > m_.message_calls[id].recv_post;
        }
    }
    if (exchange_) learn_completed_after(after);
    return after;
}

bool BackwardReplay::needed(BackwardStep::Kind kind, uint32_t id) const {
    for (const auto& channel : d_.backward_)
        if (!channel.needs || channel.needs(kind, id)) return true;
    return false;
}

void BackwardReplay::build_steps() {
    const auto nloc = static_cast<uint32_t>(trace_.locations.size());
    // By message, which of its steps are visited (Receive and Send: kMessageSteps;
    // SendCompletion and ReceiveRequest: kCompletionSteps); by collective, whether its are.
    // Asked once per message and collective, in id order, not at each end's step.
    constexpr uint8_t kMessageSteps = 1, kCompletionSteps = 2;
    std::vector<uint8_t> visited = completed_after_posted();
    for (uint32_t id = 0; id < visited.size(); ++id)
        visited[id] =
            (needed(BackwardStep::Kind::Receive, id) ? kMessageSteps : 0) |
            (visited[id] && needed(BackwardStep::Kind::SendCompletion, id) ? kCompletionSteps : 0);
    std::vector<uint8_t> collective_visited(m_.collectives.size());
    for (uint32_t id = 0; id < collective_visited.size(); ++id)
        // An incomplete one is left out of the analysis (the forward replay warns).
        collective_visited[id] =
            complete(m_.collectives[id]) && needed(BackwardStep::Kind::Collective, id);
    steps_.assign(nloc, {});
    // A location's steps of one kind, keyed (record, order found), so that steps of one
    // record keep the order they were found in. Receives, sends and collectives come in
    // record order; receive requests and send completions nearly so: each run is sorted only
    // if it is not, and the five are merged (a sort of them all was a fifth of this).
    struct Found {
        uint64_t key;
        uint32_t id, member;
        BackwardStep::Kind kind;
    };
    enum Run : size_t { Receives, Requests, Sends, Completions, Collectives, kRuns };
    std::array<std::vector<Found>, kRuns> runs;
    for (uint32_t loc = first_; loc < last_; ++loc) {
        const trace::LocationFrames& frames = m_.frames[loc];
        for (auto& run : runs) run.clear();
        uint32_t found = 0;
        auto add = [&](Run run, uint32_t record, BackwardStep::Kind kind, uint32_t id,
                       uint32_t member) {
            runs[run].push_back({uint64_t{record} << 32 | found++, id, member, kind});
        };
        for (const auto& [record, id] : m_.receives_of[loc]) {
            if (visited[id] & kMessageSteps)
                add(Receives, record, BackwardStep::Kind::Receive, id, 0);
            if (visited[id] & kCompletionSteps)
                add(Requests, m_.messages[id].recv_posted, BackwardStep::Kind::ReceiveRequest, id,
                    0);
        }
        const auto& sends = m_.sends_of[loc];
        for (size_t k = 0; k < sends.size(); ++k) {
            const auto [record, id] = sends[k];
            if (id == kNone) continue;
            if (visited[id] & kMessageSteps) add(Sends, record, BackwardStep::Kind::Send, id, 0);
            if (visited[id] & kCompletionSteps)
                add(Completions, m_.send_completions[loc][k], BackwardStep::Kind::SendCompletion,
                    id, 0);
        }
        for (const auto& [record, id] : m_.collectives_of[loc]) {
            if (!collective_visited[id]) continue;
            const trace::CollectiveMatch& c = m_.collectives[id];
            const uint32_t k = trace::member_of(c, loc);
            if (k != kNone && c.members[k].event == record)
                add(Collectives, record, BackwardStep::Kind::Collective, id, k);
        }
        auto by_key = [](const Found& a, const Found& b) { return a.key < b.key; };
        for (auto& run : runs) {
            if (!std::is_sorted(run.begin(), run.end(), by_key))
                std::sort(run.begin(), run.end(), by_key);
            run.push_back({UINT64_MAX, 0, 0, {}}); // past every key: the merge needs no bounds
        }
        std::vector<Step>& steps = steps_[loc];
        steps.reserve(found);
        std::array<const Found*, kRuns> head{};
        for (size_t r = 0; r < kRuns; ++r) head[r] = runs[r].data();
        for (uint32_t n = 0; n < found; ++n) {
            size_t pick = 0;
            for (size_t r = 1; r < kRuns; ++r)
                if (head[r]->key < head[pick]->key) pick = r;
            const Found& f = *head[pick]++;
            const auto record = static_cast<uint32_t>(f.key >> 32);
            Step s;
            s.call = frames[record].frame == kNone ? record : frames[record].frame;
            s.step.kind = f.kind;
            s.step.location = loc;
            s.step.id = f.id;
            s.step.member = f.member;
            steps.push_back(s);
        }
    }
}

void BackwardReplay::Slot::assign(std::span<const std::byte> bytes) {
    const auto size = static_cast<uint32_t>(bytes.size()); // below 4 GiB: write_sections
    uint32_t capacity = 0;
    if (data_) std::memcpy(&capacity, data_.get() + sizeof(uint32_t), sizeof capacity);
    if (capacity < size) {
        data_ = std::make_unique_for_overwrite<std::byte[]>(kSlotHeader + size);
        capacity = size;
    }
    std::memcpy(data_.get(), &size, sizeof size);
    std::memcpy(data_.get() + sizeof(uint32_t), &capacity, sizeof capacity);
    if (size > 0) std::memcpy(data_.get() + kSlotHeader, bytes.data(), size);
}

std::span<const std::byte> BackwardReplay::Slot::bytes() const {
    if (!data_) return {};
    uint32_t size = 0;
    std::memcpy(&size, data_.get(), sizeof size);
    return {data_.get() + kSlotHeader, size};
}

std::span<const std::byte> BackwardPayloads::operator[](size_t end) const {
    return section(end_(ends_, end), channel_);
}

bool BackwardReplay::ready(const BackwardStep& step) const {
    switch (step.kind) {
    case BackwardStep::Kind::Send:
        return (receive_posted_[step.id].load() & kPosted) != 0;
    case BackwardStep::Kind::Receive:
    case BackwardStep::Kind::SendCompletion:
        return true; // they only post
    case BackwardStep::Kind::ReceiveRequest:
        return (completion_posted_[step.id].load() & kPosted) != 0;
    case BackwardStep::Kind::Collective:
        return collective_posted_[step.id].load() == m_.collectives[step.id].members.size();
    }
    return true;
}

void BackwardReplay::wake(uint32_t loc) {
    if (loc >= state_.size() || !parked_[loc].load()) return;
    const std::lock_guard<std::mutex> hold(lock_);
    if (!parked_[loc].load()) return; // woken already
    parked_[loc].store(false);
    runnable_.push_back(loc);
    if (idle_ > 0) changed_.notify_one(); // a futex call only when a thread sleeps
}

void BackwardReplay::wake_partners(const BackwardStep& step) {
    switch (step.kind) {
    case BackwardStep::Kind::Send:
    case BackwardStep::Kind::ReceiveRequest:
        break;
    case BackwardStep::Kind::Receive:
        wake(m_.messages[step.id].send.location);
        break;
    case BackwardStep::Kind::SendCompletion:
        wake(m_.messages[step.id].recv.location);
        break;
    case BackwardStep::Kind::Collective:
        if (collective_posted_[step.id].load() == m_.collectives[step.id].members.size())
            for (const trace::EventRef& member : m_.collectives[step.id].members)
                wake(member.location);
        break;
    }
}

// The channels post first; the step counts as posted after its payload is in its slot, so a
// reader finds it. A message's state is written by one step at a time (its reader reads it
// after it is posted, or, let go in a cycle, before while no other location runs).
void BackwardReplay::post(const BackwardStep& step, Scratch& scratch) {
    const auto& channels = d_.backward_;
    trace::Bytes& payload = scratch.payload;
    write_sections(payload, scratch.sections, channels.size(),
                   [&](size_t c, trace::ByteWriter& out) {
                       if (channels[c].post) channels[c].post(ctx_, step, out);
                   });
    auto keep = [&](Slot& slot, std::atomic<uint8_t>& state) {
        uint8_t now = state.load(std::memory_order_relaxed);
        if (!payload.empty() && !(now & kTaken)) {
            slot.assign(payload);
            now |= kKept;
        }
        state.store(now | kPosted);
    };
    switch (step.kind) {
    case BackwardStep::Kind::Send:
    case BackwardStep::Kind::ReceiveRequest:
        if (!payload.empty())
            throw std::logic_error("backward replay: a pattern posted at a step that only reads");
        return;
    case BackwardStep::Kind::Receive:
        keep(to_sender_[step.id], receive_posted_[step.id]);
        break;
    case BackwardStep::Kind::SendCompletion:
        keep(to_receiver_[step.id], completion_posted_[step.id]);
        break;
    case BackwardStep::Kind::Collective:
        if (!payload.empty()) to_members_[member_begin_[step.id] + step.member].assign(payload);
        collective_posted_[step.id].fetch_add(1);
        break;
    }
    if (exchange_) send_post(step, payload);
    wake_partners(step);
}

// Each channel reads its sections of what the other end(s) posted; at a message's step its
// answers replace the payload in the message's slot (for deliver_replies). A collective's
// payloads are freed when its last member has read them.
void BackwardReplay::take(BackwardStep step, bool forced, Scratch& scratch) {
    step.partners_posted = !forced;
    const auto& channels = d_.backward_;
    Slot* slot = nullptr;
    std::atomic<uint8_t>* state = nullptr;
    switch (step.kind) {
    case BackwardStep::Kind::Send:
        slot = &to_sender_[step.id];
        state = &receive_posted_[step.id];
        break;
    case BackwardStep::Kind::ReceiveRequest:
        slot = &to_receiver_[step.id];
        state = &completion_posted_[step.id];
        break;
    case BackwardStep::Kind::Collective: {
        const size_t members = m_.collectives[step.id].members.size();
        Slot* const ends = to_members_.data() + member_begin_[step.id];
        const BackwardPayloads::End member = [](const void* e, size_t k) {
            return static_cast<const Slot*>(e)[k].bytes();
        };
        for (size_t c = 0; c < channels.size(); ++c)
            if (channels[c].take)
                channels[c].take(ctx_, step,
                                 BackwardPayloads(member, ends, forced ? 0 : members, c), nullptr);
        if (collective_taken_[step.id].fetch_add(1) + 1 == local_members(step.id))
            for (size_t k = 0; k < members; ++k) ends[k].release();
        return;
    }
    case BackwardStep::Kind::Receive:
    case BackwardStep::Kind::SendCompletion:
        for (size_t c = 0; c < channels.size(); ++c) // they read nothing
            if (channels[c].take)
                channels[c].take(ctx_, step, BackwardPayloads(nullptr, nullptr, 0, c), nullptr);
        return;
    }
    const uint8_t now = state->load(std::memory_order_acquire);
    const std::span<const std::byte> posted =
        now & kKept ? slot->bytes() : std::span<const std::byte>();
    const BackwardPayloads::End only = [](const void* e, size_t) {
        return *static_cast<const std::span<const std::byte>*>(e);
    };
    trace::Bytes& reply = scratch.reply;
    write_sections(reply, scratch.sections, channels.size(), [&](size_t c, trace::ByteWriter& out) {
        if (channels[c].take)
            channels[c].take(ctx_, step, BackwardPayloads(only, &posted, forced ? 0 : 1, c), &out);
    });
    if (!reply.empty()) {
        slot->assign(reply);
        state->store(now | kTaken | kKept, std::memory_order_release);
    } else {
        if (now & kKept) slot->release();
        state->store((now | kTaken) & ~kKept, std::memory_order_release);
    }
}

// What the readers answered to `loc`'s posting steps, in event order.
void BackwardReplay::deliver_replies(uint32_t loc) {
    for (const Step& s : steps_[loc]) {
        const BackwardStep& step = s.step;
        Slot* slot = nullptr;
        if (step.kind == BackwardStep::Kind::Receive &&
            (receive_posted_[step.id].load(std::memory_order_relaxed) & (kTaken | kKept)) ==
                (kTaken | kKept))
            slot = &to_sender_[step.id];
        if (step.kind == BackwardStep::Kind::SendCompletion &&
            (completion_posted_[step.id].load(std::memory_order_relaxed) & (kTaken | kKept)) ==
                (kTaken | kKept))
            slot = &to_receiver_[step.id];
        if (!slot) continue;
        for (size_t c = 0; c < d_.backward_.size(); ++c) {
            const std::span<const std::byte> reply = section(slot->bytes(), c);
            if (!reply.empty() && d_.backward_[c].reply) d_.backward_[c].reply(ctx_, step, reply);
        }
        slot->release();
    }
}

bool BackwardReplay::advance(uint32_t loc, bool force, Scratch& scratch) {
    LocationState& s = state_[loc];
    const std::vector<Step>& steps = steps_[loc];
    while (s.next > 0) {
        if (!s.group_posted) {
            // The steps of one call post together, the last first.
            s.group_begin = s.next - 1;
            while (s.group_begin > 0 && steps[s.group_begin - 1].call == steps[s.next - 1].call)
                --s.group_begin;
            for (size_t k = s.next; k-- > s.group_begin;) post(steps[k].step, scratch);
            s.group_posted = true;
        }
        while (s.next > s.group_begin) {
            const BackwardStep& step = steps[s.next - 1].step;
            bool forced = !ready(step);
            if (forced && !force) {
                const std::lock_guard<std::mutex> hold(lock_);
                parked_[loc].store(true);
                if (!ready(step)) return false;
                // Posted meanwhile (a waking post needs lock_, so none took it): go on.
                parked_[loc].store(false);
                forced = false;
            }
            force = false;
            take(step, forced, scratch);
            --s.next;
            if (exchange_) ++progress_; // (shared out to ranks: one thread)
        }
        s.group_posted = false;
    }
    return true;
}

// Takes the next location that can go on; when none can and no thread is visiting one, the
// locations left wait for each other (a cycle): the lowest goes on without its partners.
// That state does not depend on the threads (a location that can go on in one schedule can
// in every other), so neither does which location is let go.
void BackwardReplay::work() {
    const auto nloc = static_cast<uint32_t>(steps_.size());
    Scratch scratch;
    std::unique_lock<std::mutex> hold(lock_);
    while (finished_ < target_ && !error_) {
        if (!runnable_.empty()) {
            const uint32_t loc = runnable_.back();
            runnable_.pop_back();
            if (state_[loc].done) continue;
            const bool force = loc == forced_;
            if (force) forced_ = trace::kNone;
            ++busy_;
            hold.unlock();
            bool done = false;
            try {
                done = advance(loc, force, scratch);
            } catch (...) {
                hold.lock();
                if (!error_) error_ = std::current_exception();
                --busy_;
                break;
            }
            hold.lock();
            --busy_;
            if (done) {
                state_[loc].done = true;
                ++finished_;
            }
            if (finished_ == target_ || (busy_ == 0 && runnable_.empty())) changed_.notify_all();
            continue;
        }
        if (busy_ == 0 && exchange_) break; // the round ends: posts of other ranks may come
        if (busy_ == 0) {
            uint32_t lowest = 0;
            while (lowest < nloc && (state_[lowest].done || !parked_[lowest].load())) ++lowest;
            if (lowest == nloc) break; // cannot happen: every unfinished location is parked
            ctx_.warn("backward replay: a cycle of waits between processes (clock-condition "
                      "violations?) was broken; values that would travel along it count as zero");
            parked_[lowest].store(false);
            forced_ = lowest;
            runnable_.push_back(lowest);
            continue;
        }
        ++idle_;
        changed_.wait(hold);
        --idle_;
    }
    changed_.notify_all();
}

void BackwardReplay::run() {
    if (exchange_) outbox_.assign(exchange_->size(), {});
    local_members_.resize(m_.collectives.size());
    for (uint32_t id = 0; id < m_.collectives.size(); ++id)
        local_members_[id] = trace::members_in_share(m_, id);
    build_steps();
    const auto nloc = static_cast<uint32_t>(steps_.size());
    state_.assign(nloc, {});
    // Value-initialised: nothing posted, nobody parked.
    parked_ = std::make_unique<std::atomic<bool>[]>(nloc);
    receive_posted_ = std::make_unique<std::atomic<uint8_t>[]>(m_.messages.size());
    completion_posted_ = std::make_unique<std::atomic<uint8_t>[]>(m_.messages.size());
    collective_posted_ = std::make_unique<std::atomic<uint32_t>[]>(m_.collectives.size());
    collective_taken_ = std::make_unique<std::atomic<uint32_t>[]>(m_.collectives.size());
    to_sender_ = std::vector<Slot>(m_.messages.size());
    to_receiver_ = std::vector<Slot>(m_.messages.size());
    member_begin_.resize(m_.collectives.size());
    size_t members = 0;
    for (size_t id = 0; id < m_.collectives.size(); ++id) {
        member_begin_[id] = members;
        members += m_.collectives[id].members.size();
    }
    to_members_ = std::vector<Slot>(members);
    for (uint32_t loc = first_; loc < last_; ++loc) {
        state_[loc].next = steps_[loc].size();
        for (const auto& callback : d_.backward_begin_) callback(ctx_, loc);
    }
    target_ = last_ - first_;
    // Highest location first, so that the locations run in ascending order off the stack.
    for (uint32_t loc = last_; loc-- > first_;) runnable_.push_back(loc);
    if (exchange_) {
        run_rounds();
    } else {
        std::vector<std::jthread> pool;
        for (unsigned t = 1; t < std::min<unsigned>(threads_, nloc); ++t)
            pool.emplace_back([this] { work(); });
        work();
    }
    if (error_) std::rethrow_exception(error_);
    for (uint32_t loc = first_; loc < last_; ++loc) {
        deliver_replies(loc);
        for (const auto& callback : d_.backward_done_) callback(ctx_, loc);
    }
}

// ---------------------------------------------------------------- shared out to ranks

uint32_t BackwardReplay::owner_of(uint32_t loc) const {
    return trace::rank_holding(m_.shares, loc);
}

// Whether a send completed after its receive was posted is found on the sender's rank; the
// receiver's rank needs it too (for its ReceiveRequest step).
void BackwardReplay::learn_completed_after(std::vector<uint8_t>& after) const {
    std::vector<trace::Bytes> out(exchange_->size());
    for (uint32_t id = 0; id < after.size(); ++id) {
        const trace::MessageMatch& mm = m_.messages[id];
        if (after[id] && local(mm.send.location) && !local(mm.recv.location))
            trace::ByteWriter(out[owner_of(mm.recv.location)]).put(m_.global_message_ids[id]);
    }
    for (const trace::Bytes& bytes : exchange_->all_to_all(std::move(out))) {
        trace::ByteReader in(bytes, "sends completed after their receives were posted");
        while (!in.done()) after[trace::local_message_id(m_, in.get<uint32_t>())] = 1;
    }
}

namespace {

enum class Posted : uint8_t { ToSender, ToReceiver, ToMembers, ReplyToReceiver, ReplyToSender };

} // namespace

// What a step posted for readers on other ranks (empty payloads too: they count as posted).
void BackwardReplay::send_post(const BackwardStep& step, const trace::Bytes& payload) {
    auto send = [&](uint32_t rank, Posted kind, uint32_t id, uint32_t member) {
        trace::ByteWriter to(outbox_[rank]);
        to.put(kind);
        to.put(id);
        to.put(member);
        to.put_all(std::span<const std::byte>(payload));
    };
    switch (step.kind) {
    case BackwardStep::Kind::Receive: {
        const uint32_t reader = m_.messages[step.id].send.location;
        if (!local(reader))
            send(owner_of(reader), Posted::ToSender, m_.global_message_ids[step.id], 0);
        break;
    }
    case BackwardStep::Kind::SendCompletion: {
        const uint32_t reader = m_.messages[step.id].recv.location;
        if (!local(reader))
            send(owner_of(reader), Posted::ToReceiver, m_.global_message_ids[step.id], 0);
        break;
    }
    case BackwardStep::Kind::Collective:
        for (const uint32_t rank : other_ranks_of(step.id))
            send(rank, Posted::ToMembers, m_.global_collective_ids[step.id], step.member);
        break;
    case BackwardStep::Kind::Send:
    case BackwardStep::Kind::ReceiveRequest:
        break;
    }
}

const std::vector<uint32_t>& BackwardReplay::other_ranks_of(uint32_t collective) {
    if (other_ranks_.empty()) other_ranks_.resize(m_.collectives.size());
    auto& [looked_at, ranks] = other_ranks_[collective];
    if (looked_at) return ranks;
    for (const trace::EventRef& member : m_.collectives[collective].members)
        if (!local(member.location)) ranks.push_back(owner_of(member.location));
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    looked_at = true;
    return ranks;
}

// One exchange of what was posted for other ranks; returns whether any rank sent anything.
bool BackwardReplay::exchange_posts() {
    std::vector<trace::Bytes> out(exchange_->size());
    std::swap(out, outbox_);
    bool sent = false;
    for (const trace::Bytes& bytes : out) sent = sent || !bytes.empty();
    const std::vector<trace::Bytes> in = exchange_->all_to_all(std::move(out));
    outbox_.assign(exchange_->size(), {});
    for (const trace::Bytes& bytes : in) {
        trace::ByteReader from(bytes, "backward posts");
        while (!from.done()) {
            const auto kind = from.get<Posted>();
            const auto id = from.get<uint32_t>();
            const auto member = from.get<uint32_t>();
            const std::vector<std::byte> payload = from.get_all<std::byte>();
            auto keep = [&](Slot& slot, std::atomic<uint8_t>& state, uint32_t reader) {
                uint8_t now = state.load();
                if (!payload.empty() && !(now & kTaken)) {
                    slot.assign(payload);
                    now |= kKept;
                }
                state.store(now | kPosted);
                wake(reader);
            };
            switch (kind) {
            case Posted::ToSender: {
                const uint32_t msg = trace::local_message_id(m_, id);
                keep(to_sender_[msg], receive_posted_[msg], m_.messages[msg].send.location);
                break;
            }
            case Posted::ToReceiver: {
                const uint32_t msg = trace::local_message_id(m_, id);
                keep(to_receiver_[msg], completion_posted_[msg], m_.messages[msg].recv.location);
                break;
            }
            case Posted::ToMembers: {
                const uint32_t c = trace::local_collective_id(m_, id);
                if (!payload.empty()) to_members_[member_begin_[c] + member].assign(payload);
                if (collective_posted_[c].fetch_add(1) + 1 == m_.collectives[c].members.size())
                    for (const trace::EventRef& m : m_.collectives[c].members)
                        if (local(m.location)) wake(m.location);
                break;
            }
            case Posted::ReplyToReceiver:
            case Posted::ReplyToSender:
                throw std::logic_error("backward replay: a reply during the rounds");
            }
        }
    }
    // Whether any rank sent: every rank's flag.
    trace::Bytes flag;
    trace::ByteWriter(flag).put<uint8_t>(sent);
    bool any = false;
    for (const trace::Bytes& theirs : exchange_->all_gather(std::move(flag)))
        any = any || trace::ByteReader(theirs, "sent").get<uint8_t>() != 0;
    return any;
}

// Rounds until every rank is done: each rank goes as far as it can, then the posts travel.
// When no rank can go on and nothing travelled, the locations left wait for each other (a
// cycle): the lowest of all ranks' goes on without its partners, as in one process.
void BackwardReplay::run_rounds() {
    for (;;) {
        progress_ = 0;
        work();
        if (error_) std::rethrow_exception(error_); // (a pattern's bug: the others will hang)
        const bool sent = exchange_posts();
        struct Status {
            uint8_t done, progressed;
            uint32_t lowest_parked;
        };
        Status mine{finished_ == target_, progress_ > 0, kNone};
        for (uint32_t loc = first_; loc < last_; ++loc)
            if (!state_[loc].done && parked_[loc].load()) {
                mine.lowest_parked = loc;
                break;
            }
        trace::Bytes bytes;
        trace::ByteWriter(bytes).put(mine);
        bool all_done = true, progressed = false;
        uint32_t lowest = kNone;
        for (const trace::Bytes& theirs : exchange_->all_gather(std::move(bytes))) {
            const auto s = trace::ByteReader(theirs, "backward status").get<Status>();
            all_done = all_done && s.done;
            progressed = progressed || s.progressed;
            lowest = std::min(lowest, s.lowest_parked);
        }
        if (all_done) break;
        if (progressed || sent) continue; // (runnable locations were woken by what was sent)
        if (lowest == kNone) throw std::logic_error("backward replay: ranks wait, none parked");
        ctx_.warn("backward replay: a cycle of waits between processes (clock-condition "
                  "violations?) was broken; values that would travel along it count as zero");
        if (local(lowest)) {
            parked_[lowest].store(false);
            forced_ = lowest;
            runnable_.push_back(lowest);
        }
    }
    exchange_replies();
}

// The readers' answers to posts from other ranks go back to the posting step's rank.
void BackwardReplay::exchange_replies() {
    std::vector<trace::Bytes> out(exchange_->size());
    auto send = [&](uint32_t poster, Posted kind, uint32_t msg, const Slot& slot) {
        trace::ByteWriter to(out[owner_of(poster)]);
        to.put(kind);
        to.put(m_.global_message_ids[msg]);
        to.put_all(slot.bytes());
    };
    const uint8_t replied = kTaken | kKept;
    for (uint32_t msg = 0; msg < m_.messages.size(); ++msg) {
        const trace::MessageMatch& mm = m_.messages[msg];
        if (local(mm.send.location) && !local(mm.recv.location) &&
            (receive_posted_[msg].load() & replied) == replied) {
            send(mm.recv.location, Posted::ReplyToReceiver, msg, to_sender_[msg]);
            to_sender_[msg].release();
        }
        if (local(mm.recv.location) && !local(mm.send.location) &&
            (completion_posted_[msg].load() & replied) == replied) {
            send(mm.send.location, Posted::ReplyToSender, msg, to_receiver_[msg]);
            to_receiver_[msg].release();
        }
    }
    for (const trace::Bytes& bytes : exchange_->all_to_all(std::move(out))) {
        trace::ByteReader from(bytes, "backward replies");
        while (!from.done()) {
            const auto kind = from.get<Posted>();
            const uint32_t msg = trace::local_message_id(m_, from.get<uint32_t>());
            const std::vector<std::byte> reply = from.get_all<std::byte>();
            Slot& slot = kind == Posted::ReplyToReceiver ? to_sender_[msg] : to_receiver_[msg];
            std::atomic<uint8_t>& state =
                kind == Posted::ReplyToReceiver ? receive_posted_[msg] : completion_posted_[msg];
            slot.assign(reply);
            state.store(state.load() | replied);
        }
    }
}

} // namespace topolens::analysis
