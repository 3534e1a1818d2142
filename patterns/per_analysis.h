// One object per analysis that several patterns share (the synchpoints, the point-to-point
// waits): the first pattern to ask for it in define_metrics makes it, the others get the
// same one; clones copy the pointer.
#pragma once

#include "analyzer/report/report.h"

#include <map>
#include <memory>
#include <mutex>

namespace topolens::patterns {

template <class T> struct PerAnalysis {
    std::shared_ptr<T> object;
    bool first = false; // this caller made it
};

// Keyed by the analysis' report; an entry lives as long as the patterns holding it (the
// clones of one analysis), so a later analysis at the same address starts afresh.
template <class T> PerAnalysis<T> per_analysis(const report::Report& report) {
    static std::mutex lock;
    static std::map<const report::Report*, std::weak_ptr<T>> analyses;
    const std::lock_guard<std::mutex> guard(lock);
    for (auto it = analyses.begin(); it != analyses.end();)
        it = it->second.expired() ? analyses.erase(it) : std::next(it);
    if (const auto found = analyses.find(&report); found != analyses.end())
        return {found->second.lock(), false};
    auto object = std::make_shared<T>();
    analyses[&report] = object;
    return {object, true};
}

} // namespace topolens::patterns
