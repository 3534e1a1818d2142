#include "trace/exchange.h"

namespace topolens::trace {

std::optional<std::string> Exchange::first_error(const std::optional<std::string>& mine) {
    Bytes out;
    ByteWriter writer(out);
    writer.put<uint8_t>(mine ? 1 : 0);
    if (mine) writer.put_string(*mine);
    for (const Bytes& theirs : all_gather(std::move(out))) {
        ByteReader reader(theirs, "first_error");
        if (reader.get<uint8_t>()) return reader.get_string();
    }
    return std::nullopt;
}

} // namespace topolens::trace
