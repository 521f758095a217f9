#include "coordinator/pgwire/startup_options.h"

#include "common/status.h"

namespace shoal::coordinator {
namespace {

std::vector<std::string> splitWords(std::string_view options) {
  std::vector<std::string> words;
  std::string word;
  bool inWord = false;
  for (size_t i = 0; i < options.size(); ++i) {
    const char c = options[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (inWord) words.push_back(std::move(word));
      word.clear();
      inWord = false;
      continue;
    }
    inWord = true;
    if (c == '\\' && i + 1 < options.size()) {
      word += options[++i];
    } else {
      word += c;
    }
  }
  if (inWord) words.push_back(std::move(word));
  return words;
}

[[noreturn]] void invalidArgument(const std::string& word) {
  throw ShoalError(
      Status(SqlState::kSyntaxError, fmt::format("invalid command-line argument for server process: {}", word))
          .withHint("Try \"postgres --help\" for more information."));
}

std::pair<std::string, std::string> setting(const std::string& assignment, const std::string& word, bool dashes) {
  const size_t equals = assignment.find('=');
  if (equals == std::string::npos || equals == 0) {
    if (dashes) invalidArgument(word);
    SHOAL_USER_FAIL(SqlState::kSyntaxError, "-c {} requires a value", assignment);
  }
  std::string name = assignment.substr(0, equals);
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return {std::move(name), assignment.substr(equals + 1)};
}

}  // namespace

std::vector<std::pair<std::string, std::string>> parseStartupOptions(std::string_view options) {
  std::vector<std::pair<std::string, std::string>> settings;
  const std::vector<std::string> words = splitWords(options);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& word = words[i];
    if (word == "-c") {
      if (i + 1 >= words.size()) invalidArgument(word);
      settings.push_back(setting(words[++i], word, false));
    } else if (word.starts_with("-c")) {
      settings.push_back(setting(word.substr(2), word, false));
    } else if (word.starts_with("--")) {
      settings.push_back(setting(word.substr(2), word, true));
    } else {
      invalidArgument(word);
    }
  }
  return settings;
}

}  // namespace shoal::coordinator
