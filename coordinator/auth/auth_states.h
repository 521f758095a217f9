#pragma once

#include <string_view>

namespace shoal::coordinator::auth_state {

// The SQLSTATEs of logins, kept here rather than in common/sql_state.h, which the whole tree includes.
inline constexpr std::string_view kInvalidAuthorization = "28000";  // no rule admits the client; NOLOGIN role
inline constexpr std::string_view kInvalidPassword = "28P01";       // a wrong password, or an unknown role
inline constexpr std::string_view kConfigFileError = "F0000";       // a bad --hba-file
inline constexpr std::string_view kDuplicateObject = "42710";       // CREATE ROLE of an existing name

}  // namespace shoal::coordinator::auth_state
