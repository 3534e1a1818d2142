#include "function_symbols.h"

#include <algorithm>
#include <cxxabi.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <map>
#include <memory>
#include <mutex>
#include <spawn.h>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace topolens::measure {

namespace {

struct Symbol {
    uintptr_t value = 0;
    uintptr_t size = 0;
    std::string name;
};

// One object's function symbols, sorted by address.
struct SymbolTable {
    std::vector<Symbol> functions;
};

// Reads the function symbols of a 64-bit ELF file: .symtab (static functions too), else
// .dynsym (a stripped object still exports its global functions).
SymbolTable read_symbols(const std::string& path) {
    SymbolTable table;
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return table;
    struct stat info {};
    if (fstat(fd, &info) != 0 || info.st_size < static_cast<off_t>(sizeof(Elf64_Ehdr))) {
        close(fd);
        return table;
    }
    const auto size = static_cast<size_t>(info.st_size);
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return table;
    const auto* bytes = static_cast<const unsigned char*>(map);
    const auto* header = reinterpret_cast<const Elf64_Ehdr*>(bytes);
    const bool valid = std::equal(header->e_ident, header->e_ident + SELFMAG, ELFMAG) &&
                       header->e_ident[EI_CLASS] == ELFCLASS64 && header->e_shoff > 0 &&
                       header->e_shentsize == sizeof(Elf64_Shdr) &&
                       header->e_shoff + header->e_shnum * sizeof(Elf64_Shdr) <= size;
    if (valid) {
        const auto* sections = reinterpret_cast<const Elf64_Shdr*>(bytes + header->e_shoff);
        for (const uint32_t wanted : {SHT_SYMTAB, SHT_DYNSYM}) {
            for (size_t i = 0; i < header->e_shnum; ++i) {
                const Elf64_Shdr& section = sections[i];
                if (section.sh_type != wanted || section.sh_link >= header->e_shnum) continue;
                const Elf64_Shdr& names = sections[section.sh_link];
                if (section.sh_offset + section.sh_size > size ||
                    names.sh_offset + names.sh_size > size || section.sh_entsize == 0)
                    continue;
                const auto* symbols = reinterpret_cast<const Elf64_Sym*>(bytes + section.sh_offset);
                const size_t count = section.sh_size / sizeof(Elf64_Sym);
                const char* text = reinterpret_cast<const char*>(bytes + names.sh_offset);
                for (size_t s = 0; s < count; ++s) {
                    const Elf64_Sym& symbol = symbols[s];
                    const int type = ELF64_ST_TYPE(symbol.st_info);
                    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || symbol.st_value == 0 ||
                        symbol.st_shndx == SHN_UNDEF || symbol.st_name >= names.sh_size)
                        continue;
                    table.functions.push_back(
                        {symbol.st_value, symbol.st_size, std::string(text + symbol.st_name)});
                }
            }
            if (!table.functions.empty()) break;
        }
    }
    munmap(map, size);
    // Aliases share an address: the global name (listed later in .symtab) is kept last, so
    // that upper_bound - 1 finds it.
    std::stable_sort(table.functions.begin(), table.functions.end(),
                     [](const Symbol& a, const Symbol& b) { return a.value < b.value; });
    return table;
}

struct ObjectLookup {
    uintptr_t address = 0;
    uintptr_t base = 0;
    std::string path;
    bool found = false;
};

// The loaded object whose segments hold the address, and its load base.
int find_object(dl_phdr_info* info, size_t, void* data) {
    auto* lookup = static_cast<ObjectLookup*>(data);
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr)& segment = info->dlpi_phdr[i];
        if (segment.p_type != PT_LOAD) continue;
        const uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
        if (lookup->address < begin || lookup->address >= begin + segment.p_memsz) continue;
        lookup->base = info->dlpi_addr;
        lookup->path = info->dlpi_name ? info->dlpi_name : "";
        lookup->found = true;
        return 1;
    }
    return 0;
}

std::string executable_path() {
    char path[4096];
    const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    return length > 0 ? std::string(path, static_cast<size_t>(length)) : std::string();
}

std::string hex(uintptr_t value) {
    static const char digits[] = "0123456789abcdef";
    std::string text;
    do {
        text.insert(text.begin(), digits[value & 15]);
        value >>= 4;
    } while (value);
    return "0x" + text;
}

} // namespace

std::string demangle(const std::string& mangled) {
    if (mangled.rfind("_Z", 0) != 0) return mangled;
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> text(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    return status == 0 && text ? std::string(text.get()) : mangled;
}

namespace {
std::mutex tables_guard; // threads of a threaded run may meet new functions together
std::map<std::string, SymbolTable> tables;

const SymbolTable& table_of(const std::string& object) {
    auto table = tables.find(object);
    if (table == tables.end()) table = tables.emplace(object, read_symbols(object)).first;
    return table->second;
}
} // namespace

std::vector<FunctionSymbol> functions_of(const std::string& object) {
    std::lock_guard<std::mutex> lock(tables_guard);
    std::vector<FunctionSymbol> all;
    for (const Symbol& symbol : table_of(object).functions)
        all.push_back({symbol.name, std::string(), object, symbol.value});
    return all;
}

FunctionSymbol resolve_function(const void* address) {
    std::lock_guard<std::mutex> lock(tables_guard);
    FunctionSymbol function;
    ObjectLookup lookup;
    lookup.address = reinterpret_cast<uintptr_t>(address);
    dl_iterate_phdr(find_object, &lookup);
    if (!lookup.found) {
        function.name = hex(lookup.address);
        return function;
    }
    // The executable has no name in the list of loaded objects.
    function.object = lookup.path.empty() ? executable_path() : lookup.path;
    function.object_address = lookup.address - lookup.base;
    const auto& functions = table_of(function.object).functions;
    auto after = std::upper_bound(
        functions.begin(), functions.end(), function.object_address,
        [](uintptr_t value, const Symbol& symbol) { return value < symbol.value; });
    if (after != functions.begin()) {
        const Symbol& symbol = *(after - 1);
        if (function.object_address == symbol.value ||
            function.object_address < symbol.value + symbol.size)
            function.mangled_name = symbol.name;
    }
    function.name =
        function.mangled_name.empty() ? hex(lookup.address) : demangle(function.mangled_name);
    return function;
}

namespace {

// Runs `arguments` (argv[0] looked up in PATH) and returns what it printed on stdout. The
// child does not inherit LD_PRELOAD: the measurement library has no business in it.
bool run_and_read(const std::vector<std::string>& arguments, std::string& output) {
    int pipe_ends[2];
    if (pipe2(pipe_ends, O_CLOEXEC) != 0) return false;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    std::vector<char*> argv;
    for (const std::string& argument : arguments)
        argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    std::vector<char*> envp;
    for (char** variable = environ; variable && *variable; ++variable)
        if (std::string_view(*variable).rfind("LD_PRELOAD=", 0) != 0) envp.push_back(*variable);
    envp.push_back(nullptr);
    pid_t child = 0;
    const int spawned = posix_spawnp(&child, argv[0], &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_ends[1]);
    if (spawned != 0) {
        close(pipe_ends[0]);
        return false;
    }
    char buffer[65536];
    for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0) {
            if (errno == EINTR) continue;
            break;
        }
        output.append(buffer, static_cast<size_t>(n));
    }
    close(pipe_ends[0]);
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// "FILE:LINE", "FILE:LINE (discriminator N)", "??:0" or "??:?".
SourceLocation parse_location(std::string_view text) {
    SourceLocation location;
    if (const size_t note = text.find(" ("); note != std::string_view::npos)
        text = text.substr(0, note);
    const size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return location;
    const std::string_view file = text.substr(0, colon);
    if (file.empty() || file == "??") return location;
    location.file = std::string(file);
    for (const char c : text.substr(colon + 1)) {
        if (c < '0' || c > '9') break;
        location.line = location.line * 10 + static_cast<uint32_t>(c - '0');
    }
    return location;
}

} // namespace

std::vector<SourceLocation> source_locations(const std::vector<FunctionSymbol>& functions) {
    std::vector<SourceLocation> locations(functions.size());
    std::map<std::string, std::vector<size_t>> by_object;
    for (size_t i = 0; i < functions.size(); ++i)
        if (!functions[i].object.empty() && !functions[i].mangled_name.empty())
            by_object[functions[i].object].push_back(i);
    constexpr size_t kPerRun = 2000; // addresses per command line
    for (const auto& [object, indices] : by_object) {
        for (size_t first = 0; first < indices.size(); first += kPerRun) {
            const size_t last = std::min(indices.size(), first + kPerRun);
            std::vector<std::string> arguments = {"addr2line", "-e", object};
            for (size_t k = first; k < last; ++k)
                arguments.push_back(hex(functions[indices[k]].object_address));
            std::string output;
            if (!run_and_read(arguments, output)) break; // no binutils: no lines
            size_t k = first, begin = 0;
            while (k < last && begin < output.size()) {
                size_t end = output.find('\n', begin);
                if (end == std::string::npos) end = output.size();
                locations[indices[k++]] =
                    parse_location(std::string_view(output).substr(begin, end - begin));
                begin = end + 1;
            }
        }
    }
    return locations;
}

} // namespace topolens::measure
