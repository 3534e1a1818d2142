// Profile mode at MPI_Finalize: the call-path trees of every location go to rank 0, which
// writes the profile through the one CUBE4 writer.
#include "profile_report.h"
#include "recorder_state.h"

#include "analyzer/report/cube4.h"
#include "trace/experiment_files.h"

#include <cstdio>
#include <filesystem>
#include <unistd.h>

namespace topolens::measure {

std::string profile_path(const RecorderState& s) {
    return s.directory + "/" + trace::kProfileName;
}

void write_profile(RecorderState& s) {
    ProcessProfile mine;
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    mine.definitions.host = host;
    copy_definitions(s, mine.definitions);
    if (!s.threaded)
        mine.locations.push_back({0, s.profile.nodes()});
    else
        for (const auto& thread : s.threads)
            mine.locations.push_back({thread->number, thread->profile.nodes()});

    const std::vector<char> bytes = serialize_profile(mine);
    int length = static_cast<int>(bytes.size());
    std::vector<int> lengths(s.rank == 0 ? s.size : 0), displacements(lengths.size());
    PMPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, s.tool_comm);
    std::vector<char> gathered;
    if (s.rank == 0) {
        for (int p = 1; p < s.size; ++p) displacements[p] = displacements[p - 1] + lengths[p - 1];
        gathered.resize(static_cast<size_t>(displacements.back() + lengths.back()));
    }
    PMPI_Gatherv(bytes.data(), length, MPI_CHAR, gathered.data(), lengths.data(),
                 displacements.data(), MPI_CHAR, 0, s.tool_comm);
    if (s.rank != 0) return;

    const std::string path = profile_path(s);
    std::error_code ec; // without a trace nothing made the directory; a failure shows below
    std::filesystem::create_directories(s.directory, ec);
    try {
        std::vector<ProcessProfile> all;
        for (int p = 0; p < s.size; ++p)
            all.push_back(deserialize_profile(gathered.data() + displacements[p],
                                              static_cast<size_t>(lengths[p])));
        std::vector<std::string> warnings;
        report::Report profile = profile_report(all, warnings);
        if (!s.config.trace) // the definitions' warnings are said here, not by the trace
            for (const std::string& warning : warnings)
                std::fprintf(stderr, "topolens: %s\n", warning.c_str());
        profile.attributes[kProfileAttribute] = "topolens " TOPOLENS_VERSION;
        report::write_cube4(profile, path);
        if (s.config.verbose) std::fprintf(stderr, "topolens: profile in %s\n", path.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "topolens: the profile was not written: %s\n", e.what());
    }
}

} // namespace topolens::measure
