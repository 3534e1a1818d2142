// C wrappers: completion of nonblocking and persistent requests (Wait*, Test*).
// MPI resets completed nonpersistent handles to MPI_REQUEST_NULL, so the handles are
// copied before each call to know afterwards which operation completed.
#include "recorder.h"

#include <vector>

using namespace topolens::measure;

namespace {

// Handles and statuses around one completion call.
struct Completion {
    std::vector<MPI_Request> before;
    std::vector<uint64_t> activations; // threaded levels only
    std::vector<MPI_Status> local_statuses;
    MPI_Status* statuses;

    Completion(int count, const MPI_Request* requests, MPI_Status* caller_statuses)
        : before(requests, requests + (count > 0 ? count : 0)) {
        for (size_t i = 0; i < before.size(); ++i)
            if (const uint64_t a = request_activation(before[i]); a != 0) {
                activations.resize(before.size());
                activations[i] = a;
            }
        if (caller_statuses == MPI_STATUSES_IGNORE) {
            local_statuses.resize(before.size());
            statuses = local_statuses.data();
        } else {
            statuses = caller_statuses;
        }
    }
    uint64_t activation(int index) const {
        return activations.empty() ? 0 : activations[static_cast<size_t>(index)];
    }
    void completed(int index) {
        request_completed(before[index], statuses[index], activation(index));
    }
    void completed(int index, const MPI_Status& status) {
        request_completed(before[index], status, activation(index));
    }
    void all_completed() {
        for (size_t i = 0; i < before.size(); ++i) completed(static_cast<int>(i));
    }
    // MPI_ERR_IN_STATUS: only the requests whose own status reports success completed.
    void successful_completed() {
        for (size_t i = 0; i < before.size(); ++i)
            if (statuses[i].MPI_ERROR == MPI_SUCCESS) completed(static_cast<int>(i));
    }
    void none_completed() {
        for (MPI_Request request : before) request_tested(request);
    }
};

struct StatusSlot {
    MPI_Status local;
    MPI_Status* use;
    explicit StatusSlot(MPI_Status* caller) : use(caller == MPI_STATUS_IGNORE ? &local : caller) {}
};

} // namespace

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
    MpiRegion region(MpiFn::Wait);
    if (!region.active()) return PMPI_Wait(request, status);
    const MPI_Request before = *request;
    const uint64_t activation = request_activation(before);
    StatusSlot slot(status);
    const int rc = PMPI_Wait(request, slot.use);
    if (rc == MPI_SUCCESS) request_completed(before, *slot.use, activation);
    return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    MpiRegion region(MpiFn::Waitall);
    if (!region.active()) return PMPI_Waitall(count, requests, statuses);
    Completion completion(count, requests, statuses);
    const int rc = PMPI_Waitall(count, requests, completion.statuses);
    if (rc == MPI_SUCCESS)
        completion.all_completed();
    else if (rc == MPI_ERR_IN_STATUS)
        completion.successful_completed();
    return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
    MpiRegion region(MpiFn::Waitany);
    if (!region.active()) return PMPI_Waitany(count, requests, index, status);
    Completion completion(count, requests, MPI_STATUSES_IGNORE);
    StatusSlot slot(status);
    const int rc = PMPI_Waitany(count, requests, index, slot.use);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) completion.completed(*index, *slot.use);
    return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
    MpiRegion region(MpiFn::Waitsome);
    if (!region.active()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
    Completion completion(incount, requests, statuses);
    const int rc = PMPI_Waitsome(incount, requests, outcount, indices, completion.statuses);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED)
        for (int i = 0; i < *outcount; ++i)
            completion.completed(indices[i], completion.statuses[i]);
    return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    MpiRegion region(MpiFn::Test);
    if (!region.active()) return PMPI_Test(request, flag, status);
    const MPI_Request before = *request;
    const uint64_t activation = request_activation(before);
    StatusSlot slot(status);
    const int rc = PMPI_Test(request, flag, slot.use);
    if (rc == MPI_SUCCESS) {
        if (*flag)
            request_completed(before, *slot.use, activation);
        else
            request_tested(before);
    }
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
    MpiRegion region(MpiFn::Testall);
    if (!region.active()) return PMPI_Testall(count, requests, flag, statuses);
    Completion completion(count, requests, statuses);
    const int rc = PMPI_Testall(count, requests, flag, completion.statuses);
    if (rc == MPI_SUCCESS) {
        if (*flag)
            completion.all_completed();
        else
            completion.none_completed();
    }
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
    MpiRegion region(MpiFn::Testany);
    if (!region.active()) return PMPI_Testany(count, requests, index, flag, status);
    Completion completion(count, requests, MPI_STATUSES_IGNORE);
    StatusSlot slot(status);
    const int rc = PMPI_Testany(count, requests, index, flag, slot.use);
    if (rc == MPI_SUCCESS) {
        if (*flag && *index != MPI_UNDEFINED)
            completion.completed(*index, *slot.use);
        else if (!*flag)
            completion.none_completed();
    }
    return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
    MpiRegion region(MpiFn::Testsome);
    if (!region.active()) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
    Completion completion(incount, requests, statuses);
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, completion.statuses);
    if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
        if (*outcount == 0) completion.none_completed();
        for (int i = 0; i < *outcount; ++i)
            completion.completed(indices[i], completion.statuses[i]);
    }
    return rc;
}

} // extern "C"
