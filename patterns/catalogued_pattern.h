// The patterns of the metric catalogue (patterns/metric_catalogue.h): each row names the
// pattern that adds to it by its kind, and each pattern knows its kind. The engine defines
// the rows of the patterns an analysis runs, in the catalogue's order; a pattern then looks
// up the ids of its rows (metric_id) and adds to them.
#pragma once

#include "analyzer/engine/engine.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace topolens::patterns {

enum class PatternKind : uint8_t {
    Time,
    PointToPoint,
    Collective,
    Wavefront,
    Codelets,
    Messages,
    Delay,
    CriticalPath,
};

// "time", "point-to-point", "collective", "wavefront", "codelets", "messages", "delay",
// "critical-path": the pattern's name().
std::string_view pattern_kind_name(PatternKind kind);

class CataloguedPattern : public analysis::Pattern {
  public:
    explicit CataloguedPattern(PatternKind kind) : kind_(kind) {}
    PatternKind kind() const { return kind_; }
    std::string name() const override { return std::string(pattern_kind_name(kind_)); }
    // The metric catalogue (defined in patterns/metric_catalogue.cpp).
    const analysis::MetricCatalogue* catalogue() const override;

  private:
    PatternKind kind_;
};

} // namespace topolens::patterns
