// Nonblocking and persistent requests in flight: what to record when they complete.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

namespace topolens::measure {

struct RequestInfo {
    enum class Kind : uint8_t { Send, Recv, Null } kind = Kind::Null;
    bool persistent = false;
    bool active = false; // persistent requests between Start and completion
    uint64_t id = 0;     // OTF2 request id of the current activation
    uint32_t comm = 0;   // local communicator id
    int32_t peer = 0;    // rank in comm (persistent sends keep it for each Start)
    int32_t tag = 0;
    uint64_t bytes = 0;
};

class Requests {
  public:
    uint64_t next_id() { return ++last_id_; }
    RequestInfo& add(MPI_Request request, const RequestInfo& info) {
        return table_[request] = info;
    }
    RequestInfo* find(MPI_Request request) {
        auto found = table_.find(request);
        return found == table_.end() ? nullptr : &found->second;
    }
    void erase(MPI_Request request) { table_.erase(request); }
    void clear() { table_.clear(); }

  private:
    uint64_t last_id_ = 0;
    std::unordered_map<MPI_Request, RequestInfo> table_;
};

} // namespace topolens::measure
