// Nonblocking and persistent requests in flight: what to record when they complete.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <unordered_map>

namespace topolens::measure {

struct RequestInfo {
    enum class Kind : uint8_t { Send, Recv, Null } kind = Kind::Null;
    bool persistent = false;
    bool active = false; // persistent requests between Start and completion
    uint64_t id = 0;     // OTF2 request id of the current activation
    uint64_t serial = 0; // tells apart two requests MPI gave the same handle
    uint32_t comm = 0;   // local communicator id
    int32_t peer = 0;    // rank in comm (persistent sends keep it for each Start)
    int32_t tag = 0;
    uint64_t bytes = 0;
};

// With several threads, MPI may give a freed handle to another thread's new request
// before the thread that completed the old one has recorded that: the old one is then kept
// aside by its serial (`threaded`), and completion names the activation it saw before the
// completing call.
// One thread may also hold the same handle for several requests in flight: Open MPI returns
// its shared, already complete request object for an MPI_Isend that completed inside the
// call (ob1's inline send), so two such Isends before a Waitall have one handle. The older
// ones wait in `shared_` and are completed first, in the order they were made.
class Requests {
  public:
    void set_threaded(bool threaded) { threaded_ = threaded; }
    uint64_t next_id() { return ++last_id_; }
    RequestInfo& add(MPI_Request request, RequestInfo info) {
        info.serial = ++last_serial_;
        RequestInfo& slot = table_[request];
        if (slot.serial != 0 && !slot.persistent) {
            if (threaded_)
                detached_[slot.serial] = slot;
            else
                shared_[request].push_back(slot);
        }
        return slot = info;
    }
    RequestInfo* find(MPI_Request request) {
        auto found = table_.find(request);
        return found == table_.end() ? nullptr : &found->second;
    }
    // The activation that completed (`activation`: its serial, 0 for the handle's current
    // one); a nonpersistent request is forgotten, a persistent one becomes inactive.
    std::optional<RequestInfo> take(MPI_Request request, uint64_t activation) {
        if (activation != 0) {
            auto detached = detached_.find(activation);
            if (detached != detached_.end()) {
                RequestInfo info = detached->second;
                detached_.erase(detached);
                return info;
            }
        }
        if (!shared_.empty()) [[unlikely]]
            if (auto older = shared_.find(request); older != shared_.end()) {
                RequestInfo info = older->second.front();
                older->second.pop_front();
                if (older->second.empty()) shared_.erase(older);
                return info;
            }
        auto found = table_.find(request);
        if (found == table_.end()) return std::nullopt;
        if (activation != 0 && found->second.serial != activation) return std::nullopt;
        RequestInfo info = found->second;
        if (info.persistent)
            found->second.active = false;
        else
            table_.erase(found);
        return info;
    }
    void erase(MPI_Request request) {
        table_.erase(request);
        shared_.erase(request);
    }
    void clear() {
        table_.clear();
        shared_.clear();
    }

  private:
    bool threaded_ = false;
    uint64_t last_id_ = 0;
    uint64_t last_serial_ = 0;
    std::unordered_map<MPI_Request, RequestInfo> table_;
    std::unordered_map<uint64_t, RequestInfo> detached_;              // by serial
    std::unordered_map<MPI_Request, std::deque<RequestInfo>> shared_; // older, same handle
};

} // namespace topolens::measure
