#include "analyzer/engine/facts.h"

#include <algorithm>
#include <stdexcept>

namespace topolens::analysis {

namespace {

std::string phase_name(FactPhase phase) {
    return phase == FactPhase::forward_replay()
               ? "the forward replay"
               : "preparation round " + std::to_string(phase.order);
}

} // namespace

void FactTable::read_too_early() const {
    throw std::logic_error("fact table '" + name_ + "' read before " + phase_name(phase_) +
                           ", which writes it, was over (a fact is read in a later phase)");
}

void FactTable::written_too_late() const {
    throw std::logic_error("fact table '" + name_ + "' written after " + phase_name(phase_) +
                           ", its phase, was over");
}

void FactStore::check_same(const FactTable& table, std::type_index type, FactScope scope,
                           MessageEnd writer, FactPhase phase) {
    if (table.type() != type || table.scope() != scope || table.writer() != writer ||
        table.phase() != phase)
        throw std::logic_error("fact table '" + table.name() +
                               "' declared twice by one pattern, differently");
}

void FactStore::publish(FactPhase done, const std::function<bool(uint32_t location)>& is_local,
                        const Ship& ship) {
    // The predicate once per location, not twice per message.
    std::vector<char> local(locations_);
    for (uint32_t l = 0; l < locations_; ++l) local[l] = is_local(l) ? 1 : 0;
    const bool all_local = std::all_of(local.begin(), local.end(), [](char x) { return x; });
    auto is_here = [&](uint32_t l) { return l < local.size() && local[l]; };
    for (const auto& table : tables_) {
        if (table->published() || table->phase().order > done.order) continue;
        if (table->scope() == FactScope::Location) {
            // Every location may read it: all of the local ones go to the other ranks.
            if (!all_local)
                for (uint32_t l = 0; l < table->size(); ++l)
                    if (is_here(l)) ship(*table, l, kEveryone);
        } else if (!all_local) {
            const bool by_sender = table->writer() == MessageEnd::Sender;
            for (uint32_t id = 0; id < table->size(); ++id) {
                const trace::MessageMatch& m = matching_.messages[id];
                const uint32_t writer = by_sender ? m.send.location : m.recv.location;
                const uint32_t reader = by_sender ? m.recv.location : m.send.location;
                if (is_here(writer) && !is_here(reader)) ship(*table, id, reader);
            }
        }
        table->published_ = true;
    }
}

} // namespace topolens::analysis
