#include "raw_archive.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace topolens::test {
namespace {

OTF2_FlushType pre_flush(void*, OTF2_FileType, OTF2_LocationRef, void*, bool) {
    return OTF2_FLUSH;
}
OTF2_FlushCallbacks flush_callbacks = {pre_flush, nullptr};

void check(OTF2_ErrorCode code, const char* what) {
    if (code != OTF2_SUCCESS) throw std::runtime_error(std::string("raw archive: ") + what);
}

} // namespace

void RawArchive::write(const std::filesystem::path& dir) const {
    OTF2_Archive* a =
        OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                          OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!a) throw std::runtime_error("raw archive: open");
    check(OTF2_Archive_SetFlushCallbacks(a, &flush_callbacks, nullptr), "flush callbacks");
    check(OTF2_Archive_SetSerialCollectiveCallbacks(a), "collective callbacks");
    check(OTF2_Archive_OpenEvtFiles(a), "open event files");
    for (const auto& [location, write_events] : events) {
        OTF2_EvtWriter* w = OTF2_Archive_GetEvtWriter(a, location);
        if (!w) throw std::runtime_error("raw archive: event writer");
        write_events(w);
        check(OTF2_Archive_CloseEvtWriter(a, w), "close event writer");
    }
    check(OTF2_Archive_CloseEvtFiles(a), "close event files");
    if (local_definitions) {
        check(OTF2_Archive_OpenDefFiles(a), "open def files");
        for (const auto& [location, unused] : events) {
            OTF2_DefWriter* w = OTF2_Archive_GetDefWriter(a, location);
            local_definitions(location, w);
            check(OTF2_Archive_CloseDefWriter(a, w), "close def writer");
        }
        check(OTF2_Archive_CloseDefFiles(a), "close def files");
    }
    OTF2_GlobalDefWriter* g = OTF2_Archive_GetGlobalDefWriter(a);
    if (!g) throw std::runtime_error("raw archive: global def writer");
    global_definitions(g);
    check(OTF2_Archive_Close(a), "close");
}

void write_minimal_definitions(OTF2_GlobalDefWriter* w, uint32_t ranks, uint64_t events) {
    OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000, 0, 1000, OTF2_UNDEFINED_TIMESTAMP);
    const char* strings[] = {"",         "machine",       "node",          "host",
                             "MPI Rank", "Master thread", "MPI_COMM_WORLD"};
    for (OTF2_StringRef s = 0; s < 7; ++s) OTF2_GlobalDefWriter_WriteString(w, s, strings[s]);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 1, 3, 2, 0);
    std::vector<uint64_t> locations, world;
    for (uint32_t r = 0; r < ranks; ++r) {
        OTF2_GlobalDefWriter_WriteLocationGroup(w, r, 4, OTF2_LOCATION_GROUP_TYPE_PROCESS, 1,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(w, r, 5, OTF2_LOCATION_TYPE_CPU_THREAD, events, r);
        locations.push_back(r);
        world.push_back(r);
    }
    OTF2_GlobalDefWriter_WriteGroup(w, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, locations.data());
    OTF2_GlobalDefWriter_WriteGroup(w, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                    OTF2_GROUP_FLAG_NONE, ranks, world.data());
    OTF2_GlobalDefWriter_WriteComm(w, 0, 6, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
}

} // namespace topolens::test
