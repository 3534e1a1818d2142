#include "trace/exchange.h"

#include <cstring>

namespace topolens::trace {

namespace {

// The last byte of every buffer says whether its sender failed; a failed sender's buffer
// holds its reason.
constexpr std::byte kGoingOn{0}, kFailed{1};

bool failed(const Bytes& buffer) {
    return !buffer.empty() && buffer.back() == kFailed;
}

std::string reason(const Bytes& buffer) {
    return std::string(reinterpret_cast<const char*>(buffer.data()), buffer.size() - 1);
}

// What arrived, without the status bytes; ExchangeFailed if a rank failed.
std::vector<Bytes> received(std::vector<Bytes> in) {
    for (const Bytes& buffer : in) {
        if (buffer.empty()) throw std::logic_error("exchange: a buffer came without its status");
        if (failed(buffer)) throw ExchangeFailed(reason(buffer));
    }
    for (Bytes& buffer : in) buffer.pop_back();
    return in;
}

} // namespace

std::vector<Bytes> Exchange::all_to_all(std::vector<Bytes> out) {
    if (out.size() != size()) throw std::logic_error("all_to_all: one buffer per rank");
    for (Bytes& buffer : out) buffer.push_back(kGoingOn);
    return received(transfer(std::move(out)));
}

std::vector<Bytes> Exchange::all_gather(Bytes mine) {
    mine.push_back(kGoingOn);
    return received(transfer_to_all(std::move(mine)));
}

void Exchange::fail(const std::string& why) {
    Bytes mine(why.size() + 1);
    std::memcpy(mine.data(), why.data(), why.size());
    mine.back() = kFailed;
    std::vector<Bytes> out(size(), mine);
    for (const Bytes& buffer : transfer(std::move(out)))
        if (failed(buffer)) throw ExchangeFailed(reason(buffer));
    throw std::logic_error("exchange: a failure that did not arrive"); // own buffer is there
}

void Exchange::run_agreed(const std::function<void()>& body) {
    try {
        body();
    } catch (const ExchangeFailed&) {
        throw;
    } catch (const std::exception& e) {
        fail(e.what());
    } catch (...) {
        fail("an unknown error");
    }
    all_gather({});
}

std::optional<std::string> Exchange::first_error(const std::optional<std::string>& mine) {
    Bytes out;
    ByteWriter writer(out);
    writer.put<uint8_t>(mine ? 1 : 0);
    if (mine) writer.put_string(*mine);
    for (const Bytes& theirs : all_gather(std::move(out))) {
        ByteReader reader(theirs, "first_error");
        if (reader.get<uint8_t>()) return reader.get_string();
    }
    return std::nullopt;
}

} // namespace topolens::trace
