// Facts a location's preparation round or forward replay leaves for other locations, kept
// by the engine rather than by the patterns: a table per kind of fact, of one trivially
// copyable value per message (written by one end, read by the other) or per location
// (written by the location, read by any). A fact written in one phase may be read only in a
// later one: the engine publishes a phase's tables when every location is done with it
// (where an MPI-parallel analysis sends the entries whose reader lives on another analyzer
// rank), and a read before that is a logic_error naming the table.
#pragma once

#include "trace/matching.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <typeindex>
#include <utility>
#include <vector>

namespace topolens::analysis {

// When a table's facts are written: in preparation round r (0, 1, ...) or in the forward
// replay, which follows the last round.
struct FactPhase {
    size_t order = 0;
    static constexpr FactPhase round(size_t r) { return {r}; }
    static constexpr FactPhase forward_replay() { return {std::numeric_limits<size_t>::max()}; }
    bool operator==(const FactPhase&) const = default;
};

// The end of a message that writes a per-message fact; the other end reads it.
enum class MessageEnd : uint8_t { Sender, Receiver };

// What a table holds one value of.
enum class FactScope : uint8_t { Message, Location };

// A table without its type, as the engine publishes it: raw bytes per entry.
class FactTable {
  public:
    FactTable(std::string name, FactScope scope, MessageEnd writer, FactPhase phase, size_t size)
        : name_(std::move(name)), scope_(scope), writer_(writer), phase_(phase), size_(size) {}
    virtual ~FactTable() = default;

    const std::string& name() const { return name_; }
    FactScope scope() const { return scope_; }
    MessageEnd writer() const { return writer_; } // Message tables
    FactPhase phase() const { return phase_; }
    size_t size() const { return size_; } // entries: messages or locations
    virtual size_t element_size() const = 0;
    virtual std::type_index type() const = 0;
    // The bytes of entry `index`, to send, or to fill with what another rank sent.
    virtual std::span<const std::byte> bytes(size_t index) const = 0;
    virtual std::span<std::byte> bytes(size_t index) = 0;

    bool published() const { return published_; }

  protected:
    // Out of line: the guards' cold paths.
    [[noreturn]] void read_too_early() const;
    [[noreturn]] void written_too_late() const;

  private:
    friend class FactStore; // publishes it
    std::string name_;
    FactScope scope_;
    MessageEnd writer_;
    FactPhase phase_;
    size_t size_;
    // Set between phases, when no replay runs; threads of a later phase start after it.
    bool published_ = false;
};

template <class T> class TypedFactTable final : public FactTable {
    static_assert(std::is_trivially_copyable_v<T>, "a fact travels as bytes");

  public:
    TypedFactTable(std::string name, FactScope scope, MessageEnd writer, FactPhase phase,
                   size_t size)
        : FactTable(std::move(name), scope, writer, phase, size),
          values_(std::make_unique<T[]>(size)) {} // an array, not a vector<bool>: threads
                                                  // write neighbouring entries at once
    size_t element_size() const override { return sizeof(T); }
    std::type_index type() const override { return typeid(T); }
    std::span<const std::byte> bytes(size_t index) const override {
        return {reinterpret_cast<const std::byte*>(&values_[index]), sizeof(T)};
    }
    std::span<std::byte> bytes(size_t index) override {
        return {reinterpret_cast<std::byte*>(&values_[index]), sizeof(T)};
    }

    void set(size_t index, const T& value) {
        if (published()) [[unlikely]]
            written_too_late();
        values_[index] = value;
    }
    const T& get(size_t index) const {
        if (!published()) [[unlikely]]
            read_too_early();
        return values_[index];
    }

  private:
    std::unique_ptr<T[]> values_;
};

// A pattern's handle on a per-message table (by Matching::messages id); cheap to copy
// into its clones. The writing end sets a message's fact in the table's phase, the other
// end gets it in a later phase.
template <class T> class MessageFacts {
  public:
    MessageFacts() = default;
    explicit MessageFacts(TypedFactTable<T>* table) : table_(table) {}
    void set(uint32_t message, const T& value) { table_->set(message, value); }
    const T& get(uint32_t message) const { return table_->get(message); }

  private:
    TypedFactTable<T>* table_ = nullptr;
};

// A pattern's handle on a per-location table: each location sets its own fact in the
// table's phase; every location may get every location's in a later phase.
template <class T> class LocationFacts {
  public:
    LocationFacts() = default;
    explicit LocationFacts(TypedFactTable<T>* table) : table_(table) {}
    void set(uint32_t location, const T& value) { table_->set(location, value); }
    const T& get(uint32_t location) const { return table_->get(location); }
    size_t size() const { return table_->size(); }

  private:
    TypedFactTable<T>* table_ = nullptr;
};

// The facts of one analysis, shared by its workers. Tables are declared by pattern (its
// place in the analysis's list, which its clones share) and name: the clones of a pattern
// declaring the same table get the same one.
class FactStore {
  public:
    // Messages and locations as the matching numbers them (in an MPI-parallel analysis, the
    // rank's messages, with other locations' ends).
    FactStore(const trace::Matching& matching, size_t locations)
        : matching_(matching), locations_(locations) {}

    template <class T>
    MessageFacts<T> message(size_t pattern, const std::string& name, MessageEnd writer,
                            FactPhase phase) {
        return MessageFacts<T>(declare<T>(pattern, name, FactScope::Message, writer, phase,
                                          matching_.messages.size()));
    }
    template <class T>
    LocationFacts<T> location(size_t pattern, const std::string& name, FactPhase phase) {
        return LocationFacts<T>(
            declare<T>(pattern, name, FactScope::Location, MessageEnd::Sender, phase, locations_));
    }

    // Where a fact goes: `reader` is the location that reads a message's fact, kEveryone for a
    // location's fact (every location may read it).
    static constexpr uint32_t kEveryone = trace::kNone;
    using Ship = std::function<void(const FactTable& table, uint32_t entry, uint32_t reader)>;
    // After phase `done`: every table of it (and of earlier phases not yet published) is
    // published. `ship` gets, table by table in declaration order and entries ascending,
    // exactly the entries written on a local location whose reader is not local: none when
    // every location is local (one process).
    void publish(FactPhase done, const std::function<bool(uint32_t location)>& is_local,
                 const Ship& ship);

    const std::vector<std::unique_ptr<FactTable>>& tables() const { return tables_; }

  private:
    template <class T>
    TypedFactTable<T>* declare(size_t pattern, const std::string& name, FactScope scope,
                               MessageEnd writer, FactPhase phase, size_t size) {
        const auto key = std::make_pair(pattern, name);
        if (const auto found = index_.find(key); found != index_.end()) {
            FactTable& table = *tables_[found->second];
            check_same(table, typeid(T), scope, writer, phase);
            return static_cast<TypedFactTable<T>*>(&table);
        }
        index_.emplace(key, tables_.size());
        tables_.push_back(std::make_unique<TypedFactTable<T>>(name, scope, writer, phase, size));
        return static_cast<TypedFactTable<T>*>(tables_.back().get());
    }
    // A clone's declaration must be the first one's.
    static void check_same(const FactTable& table, std::type_index type, FactScope scope,
                           MessageEnd writer, FactPhase phase);

    const trace::Matching& matching_;
    size_t locations_;
    std::vector<std::unique_ptr<FactTable>> tables_;
    std::map<std::pair<size_t, std::string>, size_t> index_;
};

} // namespace topolens::analysis
