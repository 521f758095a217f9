#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shoal::coordinator {

/// The settings in a startup packet's `options` parameter (libpq's PGOPTIONS, `options='-c a=b'` in a
/// connection string), as PostgreSQL reads them: words split at white space (a backslash keeps the next
/// character, spaces too), each `-c name=value`, `-cname=value` or `--name=value` (where '-' in the name
/// stands for '_'). Fails with 42601 naming any other word, as PostgreSQL does.
std::vector<std::pair<std::string, std::string>> parseStartupOptions(std::string_view options);

}  // namespace shoal::coordinator
