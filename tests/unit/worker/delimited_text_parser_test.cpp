// COPY's text parser: every type from .tbl and CSV text, the SQLSTATE and the place (line, column) of each
// kind of bad row, CSV quoting, "\r\n" line ends, and rows split into chunks of kVectorSize. The fast paths
// must agree with the SQL casts (engine/types/text_format.h) on every text they accept.
#include "worker/storage/delimited_text_parser.h"

#include <gtest/gtest.h>

#include <memory>

#include "common/status.h"
#include "engine/types/date.h"
#include "engine/types/text_format.h"

namespace shoal::worker {
namespace {

using engine::Chunk;
using engine::LogicalType;
using engine::StringRef;

/// Column names a, b, c, ... for `types`.
std::vector<std::string> namesFor(const std::vector<LogicalType>& types) {
  std::vector<std::string> names;
  for (size_t i = 0; i < types.size(); ++i) names.push_back(std::string(1, static_cast<char>('a' + i)));
  return names;
}

TextFormatOptions csvOptions() {
  TextFormatOptions options;
  options.format = TextFileFormat::kCsv;
  options.delimiter = ',';
  return options;
}

/// Parses `text` as one block from an exactly sized buffer (so that AddressSanitizer sees any read past it).
std::vector<Chunk> parse(const std::vector<LogicalType>& types, std::string_view text, TextFormatOptions options = {},
                         uint64_t firstLine = 1) {
  auto buffer = std::make_unique<char[]>(text.size());
  std::copy(text.begin(), text.end(), buffer.get());
  DelimitedTextParser parser(types, namesFor(types), options, "'test.tbl'");
  std::vector<Chunk> chunks;
  parser.parse(std::string_view(buffer.get(), text.size()), firstLine, chunks);
  return chunks;
}

/// The rows of `chunks` as PostgreSQL text, NULL as "NULL", fields joined by '|'.
std::vector<std::string> rowsOf(const std::vector<Chunk>& chunks) {
  std::vector<std::string> rows;
  for (const Chunk& chunk : chunks) {
    for (size_t row = 0; row < chunk.size(); ++row) {
      std::string text;
      for (size_t column = 0; column < chunk.numColumns(); ++column) {
        if (column > 0) text += '|';
        if (chunk.column(column).isNull(row)) {
          text += "NULL";
        } else {
          chunk.column(column).appendText(row, text);
        }
      }
      rows.push_back(text);
    }
  }
  return rows;
}

struct Failure {
  std::string sqlState;
  std::string message;
};

Failure parseFailure(const std::vector<LogicalType>& types, std::string_view text, TextFormatOptions options = {},
                     uint64_t firstLine = 1) {
  try {
    parse(types, text, options, firstLine);
  } catch (const ShoalError& error) {
    return {std::string(error.status().sqlState()), error.status().message()};
  }
  ADD_FAILURE() << "no error for: " << text;
  return {};
}

int32_t daysOf(int32_t year, uint32_t month, uint32_t day) {
  return engine::daysFromCivil(engine::CivilDate{year, month, day});
}

TEST(DelimitedTextParserTest, EveryTypeParsesFromTbl) {
  std::vector<LogicalType> types = {LogicalType::integer(),        LogicalType::bigInt(),   LogicalType::decimal(15, 2),
                                    LogicalType::decimal(30, 4),   LogicalType::date(),     LogicalType::boolean(),
                                    LogicalType::character(5),     LogicalType::varchar(8), LogicalType::text(),
                                    LogicalType::doublePrecision()};
  std::vector<Chunk> chunks =
      parse(types,
            "1|9000000000|24386.67|12345678901234567890.1234|1996-03-13|t|ab   |abc|egular courts above the|1.5|\n"
            "-7|-1|-0.05|-1.5|2000-02-29|f|abcde|éééééééé|x|-2e3|\n"
            "||||||||||\n"
            "+5| 42 |7.5|1e2|1969-12-31|yes|  |a|a text longer than sixty-four bytes, so not one fixed-size copy|0|\n");
  ASSERT_EQ(chunks.size(), 1u);
  const Chunk& chunk = chunks[0];
  ASSERT_EQ(chunk.size(), 4u);

  EXPECT_EQ(chunk.column(0).data<int32_t>()[0], 1);
  EXPECT_EQ(chunk.column(0).data<int32_t>()[1], -7);
  EXPECT_EQ(chunk.column(0).data<int32_t>()[3], 5);
  EXPECT_EQ(chunk.column(1).data<int64_t>()[0], 9000000000);
  EXPECT_EQ(chunk.column(1).data<int64_t>()[3], 42);
  EXPECT_EQ(chunk.column(2).data<int64_t>()[0], 2438667);
  EXPECT_EQ(chunk.column(2).data<int64_t>()[1], -5);   // negative, below one
  EXPECT_EQ(chunk.column(2).data<int64_t>()[3], 750);  // fewer fraction digits than the scale
  EXPECT_EQ(chunk.column(3).data<engine::int128_t>()[0],
            engine::int128_t{1234567890123456789} * 10000 * 10 + 1234);  // p > 18 sits in an int128
  EXPECT_EQ(chunk.column(3).data<engine::int128_t>()[1], -15000);
  EXPECT_EQ(chunk.column(3).data<engine::int128_t>()[3], 1000000);
  EXPECT_EQ(chunk.column(4).data<int32_t>()[0], daysOf(1996, 3, 13));
  EXPECT_EQ(chunk.column(4).data<int32_t>()[1], daysOf(2000, 2, 29));
  EXPECT_EQ(chunk.column(4).data<int32_t>()[3], -1);
  EXPECT_EQ(chunk.column(5).data<uint8_t>()[0], 1);
  EXPECT_EQ(chunk.column(5).data<uint8_t>()[1], 0);
  EXPECT_EQ(chunk.column(5).data<uint8_t>()[3], 1);
  // CHAR(n) keeps no trailing spaces; VARCHAR(n) counts characters, not bytes.
  EXPECT_EQ(chunk.column(6).data<StringRef>()[0].view(), "ab");
  EXPECT_EQ(chunk.column(6).data<StringRef>()[1].view(), "abcde");
  EXPECT_EQ(chunk.column(6).data<StringRef>()[3].view(), "");
  EXPECT_EQ(chunk.column(7).data<StringRef>()[1].view(), "éééééééé");
  EXPECT_EQ(chunk.column(8).data<StringRef>()[0].view(), "egular courts above the");
  EXPECT_EQ(chunk.column(8).data<StringRef>()[3].view(),
            "a text longer than sixty-four bytes, so not one fixed-size copy");
  EXPECT_EQ(chunk.column(9).data<double>()[1], -2000.0);
  for (size_t column = 0; column < types.size(); ++column) {
    EXPECT_TRUE(chunk.column(column).isNull(2)) << column;
    EXPECT_FALSE(chunk.column(column).isNull(0)) << column;
  }
}

TEST(DelimitedTextParserTest, FastPathsAgreeWithTheCasts) {
  // Texts near every edge of the fast paths: digit counts around 8, 9, 16 and 18, signs, missing parts,
  // more fraction digits than the scale (rounded), values just inside and outside the precision.
  std::vector<std::string> numbers = {"0",
                                      "-0",
                                      "7",
                                      "-7",
                                      "12345678",
                                      "123456789",
                                      "-123456789",
                                      "1234567890123456",
                                      "12345678901234567",
                                      "123456789012345678",
                                      "-999999999999999999",
                                      "0000000000000000000042",
                                      "2147483647",
                                      "-2147483648",
                                      "9223372036854775807",
                                      "-9223372036854775808",
                                      "1.5",
                                      "-1.5",
                                      ".5",
                                      "5.",
                                      "-.05",
                                      "0.00",
                                      "99.99",
                                      "99.995",
                                      "1.005",
                                      "12345678.12",
                                      "9999999999999.99",
                                      "99999999999999.99",
                                      "1234567890123456.78",
                                      "0.000000000000000001",
                                      "123456789012345678901234567.89",
                                      "1e3",
                                      " 12 "};
  std::vector<LogicalType> types = {LogicalType::integer(),       LogicalType::bigInt(),
                                    LogicalType::decimal(15, 2),  LogicalType::decimal(5, 0),
                                    LogicalType::decimal(18, 18), LogicalType::decimal(38, 10),
                                    LogicalType::decimal(20, 2)};
  for (const LogicalType& type : types) {
    for (const std::string& number : numbers) {
      // Also with a long field first, so that the number is far enough into the block for 16-byte loads.
      for (std::string prefix : {"", "a long enough text field|"}) {
        std::vector<LogicalType> row = {type};
        if (!prefix.empty()) row.insert(row.begin(), LogicalType::text());
        std::string expected;
        try {
          expected = engine::parseValue(number, type).toString();
        } catch (const ShoalError& error) {
          Failure failure = parseFailure(row, prefix + number + "|\n");
          EXPECT_EQ(failure.sqlState, error.status().sqlState()) << type.toString() << " " << number;
          continue;
        }
        std::vector<std::string> rows = rowsOf(parse(row, prefix + number + "|\n"));
        ASSERT_EQ(rows.size(), 1u);
        EXPECT_EQ(rows[0], (prefix.empty() ? "" : "a long enough text field|") + expected)
            << type.toString() << " " << number;
      }
    }
  }
}

TEST(DelimitedTextParserTest, DatesAgreeWithTheCast) {
  for (std::string date : {"1992-01-01", "1970-01-01", "0001-01-01", "9999-12-31", "2000-02-29", "1900-02-28",
                           "2024-12-31", "1992-1-5", " 1992-01-05", "0044-03-15 BC"}) {
    std::vector<std::string> rows = rowsOf(parse({LogicalType::date()}, date + "|\n"));
    ASSERT_EQ(rows.size(), 1u);
    std::string expected;
    engine::appendDateText(engine::parseDate(date), expected);
    EXPECT_EQ(rows[0], expected) << date;
  }
}

TEST(DelimitedTextParserTest, BadRowsFailWithTheirSqlStateLineAndColumn) {
  struct Case {
    std::vector<LogicalType> types;
    std::string row;
    std::string_view sqlState;
    std::string place;  // what the message names
  };
  auto ints = std::vector<LogicalType>{LogicalType::integer(), LogicalType::integer(), LogicalType::integer()};
  std::vector<Case> cases = {
      {ints, "1|2|\n", SqlState::kBadCopyFileFormat, "line 3, column c: missing data"},
      {ints, "1|2|3\n", SqlState::kBadCopyFileFormat, "line 3, column c: field does not end with '|'"},
      {ints, "1|2|3", SqlState::kBadCopyFileFormat, "line 3, column c: field does not end with '|'"},
      {ints, "\n1|2|3|\n", SqlState::kBadCopyFileFormat, "line 3, column a: missing data"},  // empty line
      {ints, "1|2|3|4|\n", SqlState::kBadCopyFileFormat, "line 3: extra data after last expected column"},
      {ints, "1|2|3|4\n", SqlState::kBadCopyFileFormat, "line 3: extra data after last expected column"},
      {ints, "1|x|3|\n", SqlState::kInvalidTextRepresentation,
       "line 3, column b: invalid input syntax for type integer: \"x\""},
      {ints, "1|2|2147483648|\n", SqlState::kNumericValueOutOfRange, "line 3, column c:"},
      {{LogicalType::bigInt()}, "9223372036854775808|\n", SqlState::kNumericValueOutOfRange, "line 3, column a:"},
      {{LogicalType::decimal(8, 2)},
       "123456789.00|\n",
       SqlState::kNumericValueOutOfRange,
       "line 3, column a: numeric field overflow"},
      {{LogicalType::decimal(8, 2)}, "1.2.3|\n", SqlState::kInvalidTextRepresentation, "line 3, column a:"},
      {{LogicalType::character(3)},
       "abcd|\n",
       SqlState::kStringDataRightTruncation,
       "line 3, column a: value too long for type character(3)"},
      {{LogicalType::varchar(3)},
       "éééé|\n",
       SqlState::kStringDataRightTruncation,
       "line 3, column a: value too long for type character varying(3)"},
      {{LogicalType::date()}, "1995-02-30|\n", SqlState::kDatetimeFieldOverflow, "line 3, column a:"},
      {{LogicalType::date()}, "1995-2x-01|\n", SqlState::kInvalidDatetimeFormat, "line 3, column a:"},
      {{LogicalType::boolean()}, "maybe|\n", SqlState::kInvalidTextRepresentation, "line 3, column a:"},
  };
  for (const Case& test : cases) {
    // Two good rows first: the error names the third line of the source.
    std::string good;
    for (const LogicalType& type : test.types)
      good += type.isString() ? "a|" : type.id() == engine::TypeId::kDate ? "2000-01-01|" : "1|";
    good += '\n';
    Failure failure = parseFailure(test.types, good + good + test.row);
    EXPECT_EQ(failure.sqlState, test.sqlState) << test.row << ": " << failure.message;
    EXPECT_EQ(failure.message.rfind("COPY from 'test.tbl', " + test.place, 0), 0u) << failure.message;
  }
}

TEST(DelimitedTextParserTest, LineNumbersCountFromTheBlocksFirstLine) {
  Failure failure = parseFailure({LogicalType::integer()}, "1|\n2|\nx|\n", {}, 41);
  EXPECT_EQ(failure.message, "COPY from 'test.tbl', line 43, column a: invalid input syntax for type integer: \"x\"");
}

TEST(DelimitedTextParserTest, CarriageReturnLineEndsAreAccepted) {
  std::vector<LogicalType> types = {LogicalType::integer(), LogicalType::text()};
  EXPECT_EQ(rowsOf(parse(types, "1|a|\r\n2|b|\r\n")), (std::vector<std::string>{"1|a", "2|b"}));
  EXPECT_EQ(rowsOf(parse(types, "1,a\r\n2,\"b\"\r\n3,\r\n", csvOptions())),
            (std::vector<std::string>{"1|a", "2|b", "3|NULL"}));
  EXPECT_EQ(parseFailure(types, "1|a|\r\n2|\r\n").message,
            "COPY from 'test.tbl', line 2, column b: missing data (the line has too few fields)");
}

TEST(DelimitedTextParserTest, CsvQuotesNullsAndEmbeddedNewlines) {
  std::vector<LogicalType> types = {LogicalType::integer(), LogicalType::text(), LogicalType::character(3)};
  EXPECT_EQ(
      rowsOf(parse(types,
                   "1,\"a,b\",x\n"
                   "2,\"say \"\"hi\"\"\",\n"
                   "3,,\"\"\n"
                   "4,\"two\nlines\",y\n"
                   "5,a\"b,\"z  \"\n",
                   csvOptions())),
      (std::vector<std::string>{"1|a,b|x  ", "2|say \"hi\"|NULL", "3|NULL|   ", "4|two\nlines|y  ", "5|a\"b|z  "}));
  // An unquoted empty field is NULL, a quoted one the empty string.
  std::vector<Chunk> chunks = parse(types, "3,,\"\"\n", csvOptions());
  EXPECT_TRUE(chunks[0].column(1).isNull(0));
  EXPECT_FALSE(chunks[0].column(2).isNull(0));
  EXPECT_EQ(chunks[0].column(2).data<StringRef>()[0].view(), "");
  // The newline inside quotes counts: the bad row is on line 4.
  EXPECT_EQ(parseFailure(types, "1,\"a\nb\nc\",x\nx,a,b\n", csvOptions()).message,
            "COPY from 'test.tbl', line 4, column a: invalid input syntax for type integer: \"x\"");
  EXPECT_EQ(parseFailure(types, "1,a\n", csvOptions()).message,
            "COPY from 'test.tbl', line 1, column c: missing data (the line has too few fields)");
  EXPECT_EQ(parseFailure(types, "1,a,b,c\n", csvOptions()).sqlState, SqlState::kBadCopyFileFormat);
  EXPECT_EQ(parseFailure(types, "1,\"a\"b,c\n", csvOptions()).message,
            "COPY from 'test.tbl', line 1, column b: unexpected characters after a quoted CSV field");
  EXPECT_EQ(parseFailure(types, "1,\"a,c\n", csvOptions()).message,
            "COPY from 'test.tbl', line 1, column b: unterminated CSV quoted field");
  // Quoted numbers and long quoted strings take the same fast paths as unquoted ones.
  EXPECT_EQ(rowsOf(parse({LogicalType::decimal(15, 2), LogicalType::text()},
                         "\"-12345678.25\",\"a quoted text longer than the inline twelve bytes\"\n", csvOptions())),
            (std::vector<std::string>{"-12345678.25|a quoted text longer than the inline twelve bytes"}));
}

TEST(DelimitedTextParserTest, RowsAreSplitIntoChunksOfVectorSize) {
  std::vector<LogicalType> types = {LogicalType::bigInt(), LogicalType::varchar(40), LogicalType::character(2)};
  const size_t numRows = 2 * engine::kVectorSize + 100;
  std::string text;
  for (size_t i = 0; i < numRows; ++i) {
    // Strings of every length from 0 to 39: inline ones, and heap ones from several chunks.
    text += std::to_string(i) + "|" + std::string(i % 40, static_cast<char>('a' + i % 26)) + "|" +
            (i % 3 == 0 ? "" : "x") + "|\n";
  }
  std::vector<Chunk> chunks = parse(types, text);
  ASSERT_EQ(chunks.size(), 3u);
  EXPECT_EQ(chunks[0].size(), engine::kVectorSize);
  EXPECT_EQ(chunks[1].size(), engine::kVectorSize);
  EXPECT_EQ(chunks[2].size(), 100u);
  size_t i = 0;
  for (const Chunk& chunk : chunks) {
    for (size_t row = 0; row < chunk.size(); ++row, ++i) {
      ASSERT_EQ(chunk.column(0).data<int64_t>()[row], static_cast<int64_t>(i));
      ASSERT_EQ(chunk.column(1).data<StringRef>()[row].view(), std::string(i % 40, static_cast<char>('a' + i % 26)));
      ASSERT_EQ(chunk.column(2).isNull(row), i % 3 == 0);
    }
  }
}

TEST(DelimitedTextParserTest, AParserIsReusedAfterAFailure) {
  std::vector<LogicalType> types = {LogicalType::integer(), LogicalType::text()};
  DelimitedTextParser parser(types, namesFor(types), {}, "STDIN");
  std::vector<Chunk> chunks;
  EXPECT_THROW(parser.parse("1|a text longer than twelve bytes|\nx|y|\n", 1, chunks), ShoalError);
  chunks.clear();
  parser.parse("2|another text longer than twelve|\n", 1, chunks);
  EXPECT_EQ(rowsOf(chunks), (std::vector<std::string>{"2|another text longer than twelve"}));
}

TEST(DelimitedTextParserTest, TrailingNewlinesEndTheBlock) {
  std::vector<LogicalType> types = {LogicalType::integer()};
  EXPECT_EQ(rowsOf(parse(types, "1|\n2|")), (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(rowsOf(parse(types, "1|\n2|\n\n\n")), (std::vector<std::string>{"1", "2"}));
  EXPECT_TRUE(parse(types, "").empty());
}

TEST(DelimitedTextParserTest, BlocksEndAtTheLastWholeLine) {
  EXPECT_EQ(endOfLastCompleteLine("1|a|\n2|b", {}), 5u);
  EXPECT_EQ(endOfLastCompleteLine("1|a", {}), 0u);
  // A newline inside CSV quotes is data, doubled quotes included.
  EXPECT_EQ(endOfLastCompleteLine("1,\"a\nb\"\n2,\"c\n", csvOptions()), 8u);
  EXPECT_EQ(endOfLastCompleteLine("1,\"a\"\"\nb\"\n2", csvOptions()), 10u);
  EXPECT_EQ(endOfLastCompleteLine("1,\"a\n", csvOptions()), 0u);
}

TextFormatOptions textOptions() {
  TextFormatOptions options;
  options.format = TextFileFormat::kText;
  options.delimiter = '\t';
  return options;
}

// What PostgreSQL 15's COPY FROM made of the same bytes (\copy of this input into a table of two text columns).
TEST(DelimitedTextParserTest, TextFormatResolvesEscapesAsPostgresql) {
  std::vector<LogicalType> types = {LogicalType::text(), LogicalType::text()};
  auto rows = rowsOf(parse(types,
                           "x\\101\\x42\\x4\\xg\\q\\\\\t\\\tb\n"
                           "long string with an escape \\t past the inline bytes\t\\N\n"
                           "\\N\t\n"
                           "\\\\N\t\\a\\e\\061\\0612\n",
                           textOptions()));
  EXPECT_EQ(rows,
            (std::vector<std::string>{"xAB\x04xgq\\|\tb", "long string with an escape \t past the inline bytes|NULL",
                                      "NULL|", "\\N|ae112"}));
}

TEST(DelimitedTextParserTest, TextFormatRowsEndAtTheEndOfDataMarker) {
  std::vector<LogicalType> types = {LogicalType::integer(), LogicalType::text()};
  EXPECT_EQ(rowsOf(parse(types, "1\ta\r\n2\t\r\n\\.\r\n", textOptions())), (std::vector<std::string>{"1|a", "2|"}));
  EXPECT_EQ(parseFailure(types, "1\n", textOptions()).sqlState, SqlState::kBadCopyFileFormat);
  EXPECT_EQ(parseFailure(types, "1\ta\tb\n", textOptions()).sqlState, SqlState::kBadCopyFileFormat);
  EXPECT_EQ(parseFailure(types, "1\ta\\000\n", textOptions()).sqlState, SqlState::kCharacterNotInRepertoire);
  EXPECT_EQ(parseFailure(types, "\t\n", textOptions()).sqlState, SqlState::kInvalidTextRepresentation);  // '' is no int
  // A backslash as the data's last byte escapes nothing, and PostgreSQL drops it.
  EXPECT_EQ(rowsOf(parse(types, "3\tend\\", textOptions())), (std::vector<std::string>{"3|end"}));
}

TEST(DelimitedTextParserTest, TheNullOptionNamesTheRawTextOfNull) {
  std::vector<LogicalType> types = {LogicalType::integer(), LogicalType::text()};
  TextFormatOptions text = textOptions();
  text.nullText = "NA";
  // Compared before escapes are resolved: \N is then the letter N, and "N\A" is not NULL.
  EXPECT_EQ(rowsOf(parse(types, "NA\tNA\n1\t\\N\n2\tN\\A\n3\tNAB\n", text)),
            (std::vector<std::string>{"NULL|NULL", "1|N", "2|NA", "3|NAB"}));
  TextFormatOptions csv = csvOptions();
  csv.nullText = "NA";
  // In CSV only an unquoted field is NULL; an empty one is then the empty string.
  EXPECT_EQ(rowsOf(parse(types, "1,NA\n2,\"NA\"\n3,\n", csv)), (std::vector<std::string>{"1|NULL", "2|NA", "3|"}));
}

TEST(DelimitedTextParserTest, ForceNullAndForceNotNullChooseWhichNullStringsAreNull) {
  std::vector<LogicalType> types = {LogicalType::text(), LogicalType::text(), LogicalType::text()};
  TextFormatOptions csv = csvOptions();
  csv.forceNotNull = {true, false, true};
  csv.forceNull = {false, true, true};
  // Unquoted empty: NULL unless FORCE_NOT_NULL; quoted empty: a value unless FORCE_NULL (and with both, each
  // applies to its own case, as in PostgreSQL).
  EXPECT_EQ(rowsOf(parse(types, ",,\n\"\",\"\",\"\"\n", csv)), (std::vector<std::string>{"|NULL|", "|NULL|NULL"}));
  csv.forceNull = {true};
  EXPECT_EQ(parseFailure(types, "a,b,c\n", csv).sqlState, SqlState::kDataCorrupted);
}

}  // namespace
}  // namespace shoal::worker
