// Reports as CUBE4 files (.cubex), the format of Scalasca, Score-P and the Cube tools.
//
// A .cubex is a POSIX tar archive of
//   anchor.xml     the definitions: metric tree, regions and call tree, system tree,
//                  Cartesian topologies, key/value attributes
//   <id>.index     per metric with values: the call paths that have a row
//   <id>.data      those rows, one value per location in location id order
// The layout follows cubew (Cube's C writer) and the grammar of Cube's anchor parser, so
// cube_info, cube_dump and the Cube GUI open what we write.
//
// Values follow Cube's definition (report.h says how they relate to the Report's): stored
// INCLUSIVE along the metric tree, a parent's value containing its children's, as Scalasca
// stores them and cubelib reads them (Cube::get_sev: a metric's exclusive value is its stored
// value minus each child's); along the call tree as the metric's type says.
//
// Writing: metrics are of type EXCLUSIVE along the call tree, dtype DOUBLE, sparse index;
// each stored value is the metric's value with its sub-metrics at that call path and
// location (rounded up by an ulp where needed so that Cube's subtraction never goes below
// zero). Metric, region and location ids are the report's, cnode ids are depth-first
// positions in the call tree (Score-P's numbering); the bytes depend on the report only. The
// anchor's version is "4.4"; <attr key="Creator" value="topolens VERSION"/> names the
// writer, report.attributes become <attr> elements after it and report.mirrors <murl>s.
//
// Reading turns stored values into the Report's exclusive ones: along the call tree per
// metric type, along the metric tree by subtracting the children's stored values. A report
// with topolens.* attributes but no Creator was written by topolens before this convention
// (each metric's own part stored): its values are taken as they are.
//
// Reading keeps the file's ids where they are 0..n-1 with parents before children (so a
// report read back has the ids it was written with, call paths numbered depth-first), else
// numbers in document order.
//
// Reading also takes reports of other tools (Scalasca's scout.cubex, Score-P profiles):
// "id"/"Id" spellings, INCLUSIVE metrics (turned into exclusive values along the call tree),
// dtypes DOUBLE, FLOAT, MIN/MAXDOUBLE and (U)INT8..64, dense or sparse indexes, either byte
// order, Cube 3-style <machine>/<node>/<process>/<thread> system trees and derived metrics
// (kept, with their CubePL, but without values: CubePL is not evaluated, so in Scalasca's
// remapped reports, whose intermediate categories are derived, a total above them counts
// the stored metrics only). Call-site cnodes of one region and parent become one call path.
// Not supported, each with an error naming it: gzip-compressed archives or anchors, ZCUBEX
// (zlib) data, SIMPLE metrics, composite dtypes (COMPLEX, RATE, histograms, ...).
//
// Every failure throws ReportError with the file name and the problem.
#pragma once

#include "analyzer/report/report.h"
#include "analyzer/report/tar.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace topolens::report {

// The report must keep all its locations (Report::keep_locations); a report kept in parts
// by ranks is written by analyzer/engine/gathered_report.h.
void write_cube4(const Report& report, const std::string& path);
Report read_cube4(const std::string& path);

// ---- the parts write_cube4 is made of, for writers that gather a report's values from
// the ranks holding them (analyzer/engine/gathered_report.h), so that both write the same
// bytes.

// Throws ReportError (naming `path`) if CUBE4 cannot hold the report: definitions, and
// values only where they belong (of its kept locations).
void check_writable(const Report& report, const std::string& path);

// Cube's stored values of the report's kept locations (inclusive along the metric tree, see
// above): per metric, call path -> one value per kept location, for the call paths where
// one of them is non-zero. A location's stored values depend on its own values only, so
// the stored values of a part of the locations are that part of the whole report's.
class StoredValues {
  public:
    explicit StoredValues(const Report& report);
    const std::map<int, std::vector<double>>& rows(int metric) const { return rows_[metric]; }

  private:
    const Report& report_;
    std::vector<std::map<int, std::vector<double>>> rows_;
    std::vector<std::vector<int>> below_; // the stored metrics Cube subtracts, in order
    void compute(int metric);
    double no_less_than_children(int metric, int callpath, std::size_t location,
                                 double stored) const;
};

// A .cubex written member by member: anchor.xml when constructed, then each metric with
// values in id order, then the wait edges. The file appears when finish() succeeds.
class Cube4Writer {
  public:
    // Checks the report (check_writable) and writes its definitions.
    Cube4Writer(const Report& report, const std::string& path);
    // Metric `metric`'s stored rows, from parts of the locations that together cover them
    // all (one part for a whole report, one per rank when gathered): each part's rows
    // (StoredValues::rows) hold its locations from `first` on. A call path gets a row where
    // any part has one (the others' locations zero); rows are written in Cube's depth-first
    // order of the call tree. No part with rows: no members.
    struct Part {
        int first = 0;
        const std::map<int, std::vector<double>>* rows = nullptr;
    };
    void add_metric(int metric, const std::vector<Part>& parts);
    void finish(const std::vector<WaitEdge>& wait_edges);

  private:
    std::string path_;
    std::size_t locations_ = 0;
    std::vector<uint32_t> position_;
    int last_metric_ = -1;
    std::optional<tar::Writer> archive_;
};

} // namespace topolens::report
