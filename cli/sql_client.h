#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace shoal::cli {

/// The little of a PostgreSQL client that `shoal load` needs: connect to a
/// coordinator, run one statement with the simple query protocol, report its
/// notices as they arrive. Returns the CommandComplete tag, or throws
/// std::runtime_error with the server's message ("ERROR 42P01: ...").
std::string runSqlStatement(const std::string& host, uint16_t port, const std::string& statement,
                            const std::function<void(const std::string&)>& onNotice);

}  // namespace shoal::cli
