// The ranks of an analysis started under mpirun (`topolens analyze TRACE --mpi`): the
// trace::Exchange over MPI_COMM_WORLD. The analysis threads never call MPI; only the thread
// that made the session does.
#pragma once

#include "trace/exchange.h"

#include <string>

namespace topolens::parallel {

// Whether this process was started by mpirun (Open MPI or PMIx put their rank in the
// environment), before MPI is initialised.
bool started_by_mpirun();

// MPI_Init on construction, MPI_Finalize when it ends.
class MpiSession {
  public:
    MpiSession();
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
};

class MpiExchange : public trace::Exchange {
  public:
    MpiExchange(); // over MPI_COMM_WORLD of a live MpiSession
    unsigned rank() const override { return rank_; }
    unsigned size() const override { return size_; }

  protected:
    std::vector<trace::Bytes> transfer(std::vector<trace::Bytes> out) override;
    std::vector<trace::Bytes> transfer_to_all(trace::Bytes mine) override;

  private:
    // Sends *out[r] to rank r; returns what each rank sent, `kept` (moved, once sent) as this
    // rank's own.
    std::vector<trace::Bytes> exchange(const std::vector<const trace::Bytes*>& out,
                                       trace::Bytes* kept);
    unsigned rank_ = 0, size_ = 1;
};

} // namespace topolens::parallel
