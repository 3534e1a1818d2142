// Helpers shared by the unit tests: scratch directories and running commands.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace topolens::test {

// A fresh, empty directory for one test; removed with everything in it at the end.
class ScratchDir {
  public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

  private:
    std::filesystem::path path_;
};

struct CommandResult {
    int exit_code = -1;
    std::string out, err;
};

// Runs argv (through /bin/sh, arguments quoted) with extra environment variables set
// (an empty value unsets the variable) and collects exit code, stdout and stderr.
CommandResult run_command(const std::vector<std::string>& argv,
                          const std::map<std::string, std::string>& env = {});

std::string read_file(const std::filesystem::path& path);
void write_file(const std::filesystem::path& path, const std::string& content);

// Whether `part` occurs in `text` once line breaks and runs of blanks are ignored (the
// commands wrap their sentences and indent their continuation lines).
bool contains_words(const std::string& text, const std::string& part);

} // namespace topolens::test
