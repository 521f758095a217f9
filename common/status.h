#pragma once

#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "common/sql_state.h"

namespace shoal {

/// The outcome of an operation that a user can see: OK, or an error with a
/// SQLSTATE, a message and, for errors in SQL text, a 1-based character position.
class Status {
 public:
  Status() = default;
  Status(std::string_view sqlState, std::string message, std::optional<int> position = std::nullopt)
      : ok_(false), sqlState_(sqlState), message_(std::move(message)), position_(position) {}

  static Status ok() { return Status(); }

  bool isOk() const { return ok_; }
  std::string_view sqlState() const { return sqlState_; }
  const std::string& message() const { return message_; }
  /// 1-based character position in the statement text, as pgwire's 'P' field wants.
  std::optional<int> position() const { return position_; }
  void setPosition(int position) { position_ = position; }
  /// Optional DETAIL and HINT lines, shown by psql below the message.
  const std::string& detail() const { return detail_; }
  const std::string& hint() const { return hint_; }
  Status&& withDetail(std::string detail) && {
    detail_ = std::move(detail);
    return std::move(*this);
  }
  Status&& withHint(std::string hint) && {
    hint_ = std::move(hint);
    return std::move(*this);
  }

  std::string toString() const;

 private:
  bool ok_ = true;
  std::string_view sqlState_;
  std::string message_;
  std::optional<int> position_;
  std::string detail_;
  std::string hint_;
};

/// Ends the current query with a user-visible error. Thrown only to end a
/// query; expected conditions are return values (STYLE.md C8).
class ShoalError : public std::exception {
 public:
  explicit ShoalError(Status status) : status_(std::move(status)), what_(status_.toString()) {}
  const Status& status() const { return status_; }
  Status& status() { return status_; }
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  Status status_;
  std::string what_;
};

/// Throws a user error: static text first, runtime values last.
#define SHOAL_USER_FAIL(sqlState, ...) \
  throw ::shoal::ShoalError(::shoal::Status((sqlState), ::fmt::format(__VA_ARGS__)))

/// Throws a user error that points at a character position of the SQL text.
#define SHOAL_USER_FAIL_AT(sqlState, position, ...) \
  throw ::shoal::ShoalError(::shoal::Status((sqlState), ::fmt::format(__VA_ARGS__), (position)))

}  // namespace shoal
