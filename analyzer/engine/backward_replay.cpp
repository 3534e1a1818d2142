#include "analyzer/engine/backward_replay.h"

#include <algorithm>
#include <cstring>
#include <span>
#include <stdexcept>
#include <thread>

namespace topolens::analysis {

using trace::kNone;

BackwardReplay::BackwardReplay(const trace::Trace& trace, const trace::Matching& matching,
                               const Dispatcher& dispatch, Context& context, unsigned threads)
    : trace_(trace), m_(matching), d_(dispatch), ctx_(context), threads_(std::max(threads, 1u)) {}

namespace {

// A step's payload holds every channel's section, in channel order: a 4-byte length, then
// what the channel wrote. A step where no channel wrote anything (most steps) holds no bytes.
constexpr size_t kLength = sizeof(uint32_t);

template <class Write> void write_sections(trace::Bytes& out, size_t channels, Write write) {
    out.clear();
    bool any = false;
    for (size_t c = 0; c < channels; ++c) {
        const size_t at = out.size();
        out.resize(at + kLength);
        trace::ByteWriter writer(out);
        write(c, writer);
        const size_t written = out.size() - at - kLength;
        if (written > UINT32_MAX) throw std::length_error("backward replay: a payload over 4 GiB");
        const auto length = static_cast<uint32_t>(written);
        std::memcpy(out.data() + at, &length, kLength);
        any = any || length > 0;
    }
    if (!any) out.clear();
}

std::span<const std::byte> section(std::span<const std::byte> payload, size_t channel) {
    size_t at = 0;
    for (size_t c = 0; at + kLength <= payload.size(); ++c) {
        uint32_t length = 0;
        std::memcpy(&length, payload.data() + at, kLength);
        at += kLength;
        if (c == channel) return payload.subspan(at, length);
        at += length;
    }
    return {};
}

// A message's post state: posted (a reader may go on), taken (its reader read it, or went on
// without it; a post after that keeps nothing, and the slot holds the reader's reply).
constexpr uint8_t kPosted = 1, kTaken = 2;

// Keeps what a step posted in its slot, unless its reader went on without it.
void keep(trace::Bytes& slot, const std::atomic<uint8_t>& state, const trace::Bytes& payload) {
    if (!payload.empty() && !(state.load() & kTaken)) slot.assign(payload.begin(), payload.end());
}

void release(trace::Bytes& slot) {
    trace::Bytes().swap(slot);
}

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
    for (uint32_t loc = 0; loc < m_.sends_of.size(); ++loc) {
        const auto& sends = m_.sends_of[loc];
        for (size_t k = 0; k < sends.size(); ++k) {
            const uint32_t id = sends[k].second, completion = m_.send_completions[loc][k];
            if (id == kNone || completion == kNone || m_.messages[id].recv_posted == kNone)
                continue;
            const trace::CallSummary call = trace::call_around(trace_, m_, loc, completion);
            after[id] = call.region != kNone && call.leave > m_.message_calls[id].recv_post;
        }
    }
    return after;
}

void BackwardReplay::build_steps() {
    const auto nloc = static_cast<uint32_t>(trace_.locations.size());
    const std::vector<uint8_t> completed_after = completed_after_posted();
    steps_.assign(nloc, {});
    for (uint32_t loc = 0; loc < nloc; ++loc) {
        const trace::LocationFrames& frames = m_.frames[loc];
        // Sorted by record as (record, index) keys: 8-byte keys sort much faster than the
        // steps, and steps of one record keep the order they were found in.
        std::vector<Step> found;
        std::vector<uint64_t> order;
        auto add = [&](uint32_t record, BackwardStep::Kind kind, uint32_t id, uint32_t member) {
            Step s;
            s.call = frames[record].frame == kNone ? record : frames[record].frame;
            s.step.kind = kind;
            s.step.location = loc;
            s.step.id = id;
            s.step.member = member;
            order.push_back(uint64_t{record} << 32 | found.size());
            found.push_back(s);
        };
        for (const auto& [record, id] : m_.receives_of[loc]) {
            add(record, BackwardStep::Kind::Receive, id, 0);
            if (completed_after[id])
                add(m_.messages[id].recv_posted, BackwardStep::Kind::ReceiveRequest, id, 0);
        }
        const auto& sends = m_.sends_of[loc];
        for (size_t k = 0; k < sends.size(); ++k) {
            const auto [record, id] = sends[k];
            if (id == kNone) continue;
            add(record, BackwardStep::Kind::Send, id, 0);
            if (completed_after[id])
                add(m_.send_completions[loc][k], BackwardStep::Kind::SendCompletion, id, 0);
        }
        for (const auto& [record, id] : m_.collectives_of[loc]) {
            const trace::CollectiveMatch& c = m_.collectives[id];
            if (!complete(c)) continue; // left out of the analysis (the forward replay warns)
            for (uint32_t k = 0; k < c.members.size(); ++k)
                if (c.members[k].location == loc && c.members[k].event == record)
                    add(record, BackwardStep::Kind::Collective, id, k);
        }
        std::sort(order.begin(), order.end());
        steps_[loc].reserve(order.size());
        for (const uint64_t key : order) steps_[loc].push_back(found[key & 0xffffffffu]);
    }
}

std::span<const std::byte> BackwardPayloads::operator[](size_t end) const {
    return section(ends_[end], channel_);
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

// The channels post first (into a buffer each thread reuses); the step counts as posted
// after its payload is in its slot, so a reader finds it.
void BackwardReplay::post(const BackwardStep& step) {
    thread_local trace::Bytes payload;
    const auto& channels = d_.backward_;
    write_sections(payload, channels.size(), [&](size_t c, trace::ByteWriter& out) {
        if (channels[c].post) channels[c].post(ctx_, step, out);
    });
    switch (step.kind) {
    case BackwardStep::Kind::Send:
    case BackwardStep::Kind::ReceiveRequest:
        if (!payload.empty())
            throw std::logic_error("backward replay: a pattern posted at a step that only reads");
        return;
    case BackwardStep::Kind::Receive:
        keep(to_sender_[step.id], receive_posted_[step.id], payload);
        receive_posted_[step.id].fetch_or(kPosted);
        break;
    case BackwardStep::Kind::SendCompletion:
        keep(to_receiver_[step.id], completion_posted_[step.id], payload);
        completion_posted_[step.id].fetch_or(kPosted);
        break;
    case BackwardStep::Kind::Collective:
        if (!payload.empty())
            to_members_[member_begin_[step.id] + step.member].assign(payload.begin(),
                                                                     payload.end());
        collective_posted_[step.id].fetch_add(1);
        break;
    }
    wake_partners(step);
}

// Each channel reads its sections of what the other end(s) posted; at a message's step its
// answers replace the payload in the message's slot (for deliver_replies). A collective's
// payloads are freed when its last member has read them.
void BackwardReplay::take(BackwardStep step, bool forced) {
    step.partners_posted = !forced;
    const auto& channels = d_.backward_;
    trace::Bytes* slot = nullptr;
    std::atomic<uint8_t>* state = nullptr;
    std::span<const trace::Bytes> ends;
    switch (step.kind) {
    case BackwardStep::Kind::Send:
        slot = &to_sender_[step.id];
        state = &receive_posted_[step.id];
        break;
    case BackwardStep::Kind::ReceiveRequest:
        slot = &to_receiver_[step.id];
        state = &completion_posted_[step.id];
        break;
    case BackwardStep::Kind::Collective:
        if (!forced)
            ends = std::span<const trace::Bytes>(to_members_)
                       .subspan(member_begin_[step.id], m_.collectives[step.id].members.size());
        break;
    case BackwardStep::Kind::Receive:
    case BackwardStep::Kind::SendCompletion:
        break; // they read nothing
    }
    if (!slot) {
        for (size_t c = 0; c < channels.size(); ++c)
            if (channels[c].take) channels[c].take(ctx_, step, BackwardPayloads(ends, c), nullptr);
        if (step.kind == BackwardStep::Kind::Collective &&
            collective_taken_[step.id].fetch_add(1) + 1 == m_.collectives[step.id].members.size())
            for (size_t k = 0; k < m_.collectives[step.id].members.size(); ++k)
                release(to_members_[member_begin_[step.id] + k]);
        return;
    }
    if (!forced) ends = std::span<const trace::Bytes>(slot, 1);
    thread_local trace::Bytes reply;
    write_sections(reply, channels.size(), [&](size_t c, trace::ByteWriter& out) {
        if (channels[c].take) channels[c].take(ctx_, step, BackwardPayloads(ends, c), &out);
    });
    state->fetch_or(kTaken);
    if (reply.empty())
        release(*slot);
    else
        slot->assign(reply.begin(), reply.end());
}

// What the readers answered to `loc`'s posting steps, in event order.
void BackwardReplay::deliver_replies(uint32_t loc) {
    for (const Step& s : steps_[loc]) {
        trace::Bytes* slot = nullptr;
        if (s.step.kind == BackwardStep::Kind::Receive &&
            (receive_posted_[s.step.id].load() & kTaken))
            slot = &to_sender_[s.step.id];
        if (s.step.kind == BackwardStep::Kind::SendCompletion &&
            (completion_posted_[s.step.id].load() & kTaken))
            slot = &to_receiver_[s.step.id];
        if (!slot || slot->empty()) continue;
        for (size_t c = 0; c < d_.backward_.size(); ++c) {
            const std::span<const std::byte> reply = section(*slot, c);
            if (!reply.empty() && d_.backward_[c].reply) d_.backward_[c].reply(ctx_, s.step, reply);
        }
        release(*slot);
    }
}

bool BackwardReplay::advance(uint32_t loc, bool force) {
    LocationState& s = state_[loc];
    const std::vector<Step>& steps = steps_[loc];
    while (s.next > 0) {
        if (!s.group_posted) {
            // The steps of one call post together, the last first.
            s.group_begin = s.next - 1;
            while (s.group_begin > 0 && steps[s.group_begin - 1].call == steps[s.next - 1].call)
                --s.group_begin;
            for (size_t k = s.next; k-- > s.group_begin;) post(steps[k].step);
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
            take(step, forced);
            --s.next;
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
    std::unique_lock<std::mutex> hold(lock_);
    while (finished_ < nloc && !error_) {
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
                done = advance(loc, force);
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
            if (finished_ == nloc || (busy_ == 0 && runnable_.empty())) changed_.notify_all();
            continue;
        }
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
    build_steps();
    const auto nloc = static_cast<uint32_t>(steps_.size());
    state_.assign(nloc, {});
    // Value-initialised: nothing posted, nobody parked.
    parked_ = std::make_unique<std::atomic<bool>[]>(nloc);
    receive_posted_ = std::make_unique<std::atomic<uint8_t>[]>(m_.messages.size());
    completion_posted_ = std::make_unique<std::atomic<uint8_t>[]>(m_.messages.size());
    collective_posted_ = std::make_unique<std::atomic<uint32_t>[]>(m_.collectives.size());
    collective_taken_ = std::make_unique<std::atomic<uint32_t>[]>(m_.collectives.size());
    to_sender_.assign(m_.messages.size(), {});
    to_receiver_.assign(m_.messages.size(), {});
    member_begin_.resize(m_.collectives.size());
    size_t members = 0;
    for (size_t id = 0; id < m_.collectives.size(); ++id) {
        member_begin_[id] = members;
        members += m_.collectives[id].members.size();
    }
    to_members_.assign(members, {});
    for (uint32_t loc = 0; loc < nloc; ++loc) {
        state_[loc].next = steps_[loc].size();
        for (const auto& callback : d_.backward_begin_) callback(ctx_, loc);
    }
    // Highest location first, so that the locations run in ascending order off the stack.
    for (uint32_t loc = nloc; loc-- > 0;) runnable_.push_back(loc);
    {
        std::vector<std::jthread> pool;
        for (unsigned t = 1; t < std::min<unsigned>(threads_, nloc); ++t)
            pool.emplace_back([this] { work(); });
        work();
    }
    if (error_) std::rethrow_exception(error_);
    for (uint32_t loc = 0; loc < nloc; ++loc) {
        deliver_replies(loc);
        for (const auto& callback : d_.backward_done_) callback(ctx_, loc);
    }
}

} // namespace topolens::analysis
