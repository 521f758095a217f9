#include "sql/binder/acl.h"

#include <array>
#include <cctype>

namespace shoal::sql {
namespace {

struct PrivilegeName {
  AclMode bit;
  char letter;
  std::string_view keyword;
};

// In bit order, which is the order of aclitem's letters.
constexpr std::array<PrivilegeName, 12> kPrivileges = {{
    {kAclInsert, 'a', "INSERT"},
    {kAclSelect, 'r', "SELECT"},
    {kAclUpdate, 'w', "UPDATE"},
    {kAclDelete, 'd', "DELETE"},
    {kAclTruncate, 'D', "TRUNCATE"},
    {kAclReferences, 'x', "REFERENCES"},
    {kAclTrigger, 't', "TRIGGER"},
    {kAclExecute, 'X', "EXECUTE"},
    {kAclUsage, 'U', "USAGE"},
    {kAclCreate, 'C', "CREATE"},
    {kAclTemporary, 'T', "TEMPORARY"},
    {kAclConnect, 'c', "CONNECT"},
}};

}  // namespace

AclMode allPrivileges(AclObject kind) {
  switch (kind) {
    case AclObject::kTable:
      return kAclInsert | kAclSelect | kAclUpdate | kAclDelete | kAclTruncate | kAclReferences | kAclTrigger;
    case AclObject::kSchema:
      return kAclUsage | kAclCreate;
    case AclObject::kDatabase:
      return kAclCreate | kAclTemporary | kAclConnect;
  }
  return 0;
}

std::string aclLetters(AclMode privileges, AclMode grantOptions) {
  std::string letters;
  for (const auto& privilege : kPrivileges) {
    if ((privileges & privilege.bit) == 0) continue;
    letters += privilege.letter;
    if ((grantOptions & privilege.bit) != 0) letters += '*';
  }
  return letters;
}

std::optional<AclMode> privilegeNamed(std::string_view keyword) {
  std::string upper;
  for (char c : keyword) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (upper == "TEMP") return kAclTemporary;
  for (const auto& privilege : kPrivileges) {
    if (privilege.keyword == upper) return privilege.bit;
  }
  return std::nullopt;
}

std::string_view privilegeKeyword(AclMode privilege) {
  for (const auto& each : kPrivileges) {
    if (each.bit == privilege) return each.keyword;
  }
  return "";
}

std::string_view aclObjectName(AclObject kind) {
  switch (kind) {
    case AclObject::kTable:
      return "table";
    case AclObject::kSchema:
      return "schema";
    case AclObject::kDatabase:
      return "database";
  }
  return "";
}

}  // namespace shoal::sql
