#pragma once

#include <string_view>

namespace shoal {

/// A PostgreSQL SQLSTATE: five characters that clients (psql, psycopg, JDBC)
/// understand. Every user-visible error carries one.
struct SqlState {
  std::string_view code;

  // Class 08: connection exception.
  static constexpr std::string_view kProtocolViolation = "08P01";
  static constexpr std::string_view kConnectionFailure = "08006";
  // Class 0A: feature not supported.
  static constexpr std::string_view kFeatureNotSupported = "0A000";
  // Class 21: cardinality violation (a scalar subquery with more than one row).
  static constexpr std::string_view kCardinalityViolation = "21000";
  // Class 22: data exception.
  static constexpr std::string_view kInvalidRowCountInLimit = "2201W";
  static constexpr std::string_view kInvalidRowCountInOffset = "2201X";
  static constexpr std::string_view kDataException = "22000";
  static constexpr std::string_view kNumericValueOutOfRange = "22003";
  static constexpr std::string_view kInvalidArgumentForWidthBucket = "2201G";
  static constexpr std::string_view kInvalidDatetimeFormat = "22007";
  static constexpr std::string_view kDatetimeFieldOverflow = "22008";
  static constexpr std::string_view kInvalidTimeZoneDisplacementValue = "22009";
  static constexpr std::string_view kSubstringError = "22011";
  static constexpr std::string_view kDivisionByZero = "22012";
  static constexpr std::string_view kInvalidArgumentForLogarithm = "2201E";
  static constexpr std::string_view kInvalidArgumentForPowerFunction = "2201F";
  static constexpr std::string_view kInvalidParameterValue = "22023";
  static constexpr std::string_view kInvalidEscapeSequence = "22025";
  static constexpr std::string_view kInvalidRegularExpression = "2201B";
  static constexpr std::string_view kInvalidTextRepresentation = "22P02";
  static constexpr std::string_view kInvalidBinaryRepresentation = "22P03";
  static constexpr std::string_view kStringDataRightTruncation = "22001";
  static constexpr std::string_view kBadCopyFileFormat = "22P04";
  static constexpr std::string_view kCharacterNotInRepertoire = "22021";
  // Class 23: integrity constraint violation.
  static constexpr std::string_view kNotNullViolation = "23502";
  static constexpr std::string_view kUniqueViolation = "23505";
  // Class 25: invalid transaction state.
  static constexpr std::string_view kActiveSqlTransaction = "25001";
  static constexpr std::string_view kNoActiveSqlTransaction = "25P01";
  static constexpr std::string_view kInFailedTransaction = "25P02";
  static constexpr std::string_view kInvalidSavepointSpecification = "3B001";
  static constexpr std::string_view kNullValueNotAllowed = "22004";
  static constexpr std::string_view kInvalidPrecedingOrFollowingSize = "22013";
  static constexpr std::string_view kInvalidArgumentForNtile = "22014";
  static constexpr std::string_view kInvalidArgumentForNthValue = "22016";
  // Class 26 / 34: invalid statement or cursor name.
  static constexpr std::string_view kInvalidSqlStatementName = "26000";
  static constexpr std::string_view kDuplicatePreparedStatement = "42P05";
  static constexpr std::string_view kInvalidCursorName = "34000";
  // Class 42: syntax error or access rule violation.
  static constexpr std::string_view kSyntaxError = "42601";
  static constexpr std::string_view kInvalidCatalogName = "3D000";
  static constexpr std::string_view kInvalidSchemaName = "3F000";
  static constexpr std::string_view kInvalidName = "42602";
  static constexpr std::string_view kInsufficientPrivilege = "42501";
  static constexpr std::string_view kInvalidObjectDefinition = "42P17";
  static constexpr std::string_view kUndefinedColumn = "42703";
  static constexpr std::string_view kUndefinedFunction = "42883";
  static constexpr std::string_view kAmbiguousFunction = "42725";
  static constexpr std::string_view kUndefinedTable = "42P01";
  static constexpr std::string_view kUndefinedObject = "42704";
  static constexpr std::string_view kAmbiguousColumn = "42702";
  static constexpr std::string_view kDatatypeMismatch = "42804";
  static constexpr std::string_view kIndeterminateDatatype = "42P18";
  static constexpr std::string_view kInvalidRecursion = "42P19";
  static constexpr std::string_view kUndefinedParameter = "42P02";
  static constexpr std::string_view kInvalidColumnReference = "42P10";
  static constexpr std::string_view kCannotCoerce = "42846";
  static constexpr std::string_view kDuplicateTable = "42P07";
  static constexpr std::string_view kDuplicateSchema = "42P06";
  static constexpr std::string_view kReservedName = "42939";
  static constexpr std::string_view kGroupingError = "42803";
  static constexpr std::string_view kWindowingError = "42P20";
  static constexpr std::string_view kDuplicateColumn = "42701";
  static constexpr std::string_view kDuplicateAlias = "42712";
  static constexpr std::string_view kWrongObjectType = "42809";
  static constexpr std::string_view kInvalidTableDefinition = "42P16";
  // Class 40: transaction rollback.
  static constexpr std::string_view kSerializationFailure = "40001";
  // Class 2B: dependent objects still exist.
  static constexpr std::string_view kDependentObjectsStillExist = "2BP01";
  // Class 53 / 57: resources and operator intervention.
  static constexpr std::string_view kObjectNotInPrerequisiteState = "55000";
  static constexpr std::string_view kCantChangeRuntimeParam = "55P02";
  static constexpr std::string_view kOutOfMemory = "53200";
  // Class 54: program limit exceeded.
  static constexpr std::string_view kProgramLimitExceeded = "54000";
  static constexpr std::string_view kStatementTooComplex = "54001";
  static constexpr std::string_view kTooManyConnections = "53300";
  static constexpr std::string_view kQueryCanceled = "57014";
  static constexpr std::string_view kAdminShutdown = "57P01";
  // Class 58: system error (outside Shoal: files, processes).
  static constexpr std::string_view kIoError = "58030";
  static constexpr std::string_view kUndefinedFile = "58P01";
  // Class XX: internal error.
  static constexpr std::string_view kInternalError = "XX000";
  static constexpr std::string_view kDataCorrupted = "XX001";
};

}  // namespace shoal
