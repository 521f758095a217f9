#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace shoal::sql {

/// Privileges, as PostgreSQL's AclMode bits (utils/acl.h): the same order makes aclitem texts come out as
/// PostgreSQL prints them ("arwdDxt").
using AclMode = uint32_t;
inline constexpr AclMode kAclInsert = 1u << 0;      // a
inline constexpr AclMode kAclSelect = 1u << 1;      // r
inline constexpr AclMode kAclUpdate = 1u << 2;      // w
inline constexpr AclMode kAclDelete = 1u << 3;      // d
inline constexpr AclMode kAclTruncate = 1u << 4;    // D
inline constexpr AclMode kAclReferences = 1u << 5;  // x
inline constexpr AclMode kAclTrigger = 1u << 6;     // t
inline constexpr AclMode kAclExecute = 1u << 7;     // X
inline constexpr AclMode kAclUsage = 1u << 8;       // U
inline constexpr AclMode kAclCreate = 1u << 9;      // C
inline constexpr AclMode kAclTemporary = 1u << 10;  // T
inline constexpr AclMode kAclConnect = 1u << 11;    // c

/// The kinds of object that carry privileges.
enum class AclObject { kTable, kSchema, kDatabase };

/// Every privilege an object of `kind` can have (what ALL grants).
AclMode allPrivileges(AclObject kind);
/// PostgreSQL's aclitem letters for `privileges`, each followed by '*' when it is in `grantOptions`.
std::string aclLetters(AclMode privileges, AclMode grantOptions);
/// The privilege a keyword names (SELECT, insert, TEMP, ...), whatever the object; nullopt for none.
std::optional<AclMode> privilegeNamed(std::string_view keyword);
/// The keyword of one privilege bit, in upper case ("SELECT"), for messages.
std::string_view privilegeKeyword(AclMode privilege);
/// "table", "schema", "database": how messages name the kind.
std::string_view aclObjectName(AclObject kind);

/// What a role may do with one object: its privileges, and those it may grant on.
struct HeldPrivileges {
  AclMode privileges = 0;
  AclMode grantOptions = 0;

  bool has(AclMode wanted) const { return (privileges & wanted) == wanted; }
  static HeldPrivileges all() { return {~AclMode{0}, ~AclMode{0}}; }
};

}  // namespace shoal::sql
