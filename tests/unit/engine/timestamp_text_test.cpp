// TIMESTAMP, TIMESTAMPTZ and TIME text in and out, and session time zones. Every expected value
// was produced by PostgreSQL 15 (DateStyle ISO, the named TimeZone setting).
#include "engine/types/timestamp_text.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "common/status.h"

namespace shoal::engine {
namespace {

std::string timestampText(std::string_view text) {
  std::string out;
  appendTimestampText(parseTimestamp(text), out);
  return out;
}

/// Reads `text` as timestamptz with `zone` as the session's TimeZone and prints it there.
std::string timestampTzText(std::string_view text, std::string_view zone) {
  const TimeZone& session = TimeZone::named(zone);
  std::string out;
  appendTimestampTzText(parseTimestampTz(text, session), session, out);
  return out;
}

void expectError(auto&& action, std::string_view sqlState, std::string_view message) {
  try {
    action();
    ADD_FAILURE() << "no error; expected " << sqlState << " " << message;
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), sqlState) << message;
    EXPECT_EQ(error.status().message(), message);
  }
}

int64_t utcMicros(std::string_view text) {
  return parseTimestampTz(text, TimeZone::utc());
}

TEST(TimestampTextTest, TimestampInputAndOutput) {
  EXPECT_EQ(timestampText("2024-01-05"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 10:11"), "2024-01-05 10:11:00");
  EXPECT_EQ(timestampText("2024-01-05T10:11:12"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("  2024-01-05 10:11:12  "), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12.5"), "2024-01-05 10:11:12.5");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12.1234565"), "2024-01-05 10:11:12.123456");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12.9999995"), "2024-01-05 10:11:13");
  EXPECT_EQ(timestampText("2024-01-05 00:00:00.0000005"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 00:00:00.0000015"), "2024-01-05 00:00:00.000002");
  EXPECT_EQ(timestampText("2024-01-05 23:59:59.9999999"), "2024-01-06 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 24:00:00"), "2024-01-06 00:00:00");
  EXPECT_EQ(timestampText("2024-12-31 24:00:00"), "2025-01-01 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 23:59:60"), "2024-01-06 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 10:00:60.5"), "2024-01-05 10:01:00.5");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12 BC"), "2024-01-05 10:11:12 BC");
  EXPECT_EQ(timestampText("0044-03-15 12:00:00.25 BC"), "0044-03-15 12:00:00.25 BC");
  EXPECT_EQ(timestampText("2024-01-05 BC 10:11:12"), "2024-01-05 10:11:12 BC");
  EXPECT_EQ(timestampText("0001-02-29 BC"), "0001-02-29 00:00:00 BC");
  EXPECT_EQ(timestampText("0001-12-31 23:59:59.999999 BC"), "0001-12-31 23:59:59.999999 BC");
  EXPECT_EQ(timestampText("4714-11-24 BC"), "4714-11-24 00:00:00 BC");
  EXPECT_EQ(timestampText("10000-01-01"), "10000-01-01 00:00:00");
  EXPECT_EQ(timestampText("12345-06-07 08:09:10.000001"), "12345-06-07 08:09:10.000001");
  EXPECT_EQ(timestampText("9999-12-31 24:00:00"), "10000-01-01 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12+05"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12 Europe/Berlin"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12 EST"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("2024-01-05 10:11:12Z"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("2024-01-05 1:2:3.5 pm"), "2024-01-05 13:02:03.5");
  EXPECT_EQ(timestampText("2024-01-05 12:00 am"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("20240105"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("20240105 101112"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("2024-01-05T101112"), "2024-01-05 10:11:12");
  EXPECT_EQ(timestampText("1-2-3 4:05"), "2003-01-02 04:05:00");
  EXPECT_EQ(timestampText("12-25-99"), "1999-12-25 00:00:00");
  EXPECT_EQ(timestampText("2024/01/05"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("infinity"), "infinity");
  EXPECT_EQ(timestampText("-infinity"), "-infinity");
  EXPECT_EQ(timestampText("INFINITY"), "infinity");
  EXPECT_EQ(timestampText(" epoch "), "1970-01-01 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 allballs"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 +5"), "2024-01-05 00:00:00");
  EXPECT_EQ(timestampText("2024-01-05 -05:30"), "2024-01-05 00:00:00");
}

TEST(TimestampTextTest, MalformedTimestampsFailAsPostgresDoes) {
  expectError([&] { parseTimestamp(""); }, "22007", "invalid input syntax for type timestamp: \"\"");
  expectError([&] { parseTimestamp("garbage"); }, "22007", "invalid input syntax for type timestamp: \"garbage\"");
  expectError([&] { parseTimestamp("+infinity"); }, "22007", "invalid input syntax for type timestamp: \"+infinity\"");
  expectError([&] { parseTimestamp("2024-01-05 10"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12.5.5"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11:12.5.5\"");
  expectError([&] { parseTimestamp("2024-01-05 24:00:01"); }, "22008",
              "date/time field value out of range: \"2024-01-05 24:00:01\"");
  expectError([&] { parseTimestamp("2024-01-05 24:00:00.5"); }, "22008",
              "date/time field value out of range: \"2024-01-05 24:00:00.5\"");
  expectError([&] { parseTimestamp("2024-01-05 23:60:00"); }, "22008",
              "date/time field value out of range: \"2024-01-05 23:60:00\"");
  expectError([&] { parseTimestamp("2024-01-05 23:59:61"); }, "22008",
              "date/time field value out of range: \"2024-01-05 23:59:61\"");
  expectError([&] { parseTimestamp("2024-02-30"); }, "22008", "date/time field value out of range: \"2024-02-30\"");
  expectError([&] { parseTimestamp("2023-02-29"); }, "22008", "date/time field value out of range: \"2023-02-29\"");
  expectError([&] { parseTimestamp("2024-13-01"); }, "22008", "date/time field value out of range: \"2024-13-01\"");
  expectError([&] { parseTimestamp("0000-01-01"); }, "22008", "date/time field value out of range: \"0000-01-01\"");
  expectError([&] { parseTimestamp("4714-11-23 BC"); }, "22008", "timestamp out of range: \"4714-11-23 BC\"");
  expectError([&] { parseTimestamp("294277-01-01"); }, "22008", "timestamp out of range: \"294277-01-01\"");
  expectError([&] { parseTimestamp("300000-01-01"); }, "22008", "timestamp out of range: \"300000-01-01\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 +16"); }, "22009",
              "time zone displacement out of range: \"2024-01-05 10:11:12 +16\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 +15:60"); }, "22009",
              "time zone displacement out of range: \"2024-01-05 10:11:12 +15:60\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 +053045"); }, "22009",
              "time zone displacement out of range: \"2024-01-05 10:11:12 +053045\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 nowhere"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11:12 nowhere\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 America/Nowhere"); }, "22023",
              "time zone \"america/nowhere\" not recognized");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 BC BC"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11:12 BC BC\"");
  expectError([&] { parseTimestamp("10:11:12 2024-01-05"); }, "22007",
              "invalid input syntax for type timestamp: \"10:11:12 2024-01-05\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12:13"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11:12:13\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11 :12"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11 :12\"");
  expectError([&] { parseTimestamp("2024-01-05 13:00 pm"); }, "22008",
              "date/time field value out of range: \"2024-01-05 13:00 pm\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 +05 +06"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11:12 +05 +06\"");
  expectError([&] { parseTimestamp("2024-01-05 10:11:12 UTC EST"); }, "22007",
              "invalid input syntax for type timestamp: \"2024-01-05 10:11:12 UTC EST\"");
  expectError([&] { parseTimestamp("epoch 2024-01-05"); }, "22007",
              "invalid input syntax for type timestamp: \"epoch 2024-01-05\"");
}

TEST(TimestampTextTest, DaylightSavingGapsAndOverlaps) {
  // America/New_York
  EXPECT_EQ(timestampTzText("2024-03-10 02:30", "America/New_York"), "2024-03-10 03:30:00-04");
  EXPECT_EQ(timestampTzText("2024-03-10 02:00", "America/New_York"), "2024-03-10 03:00:00-04");
  EXPECT_EQ(timestampTzText("2024-03-10 03:00", "America/New_York"), "2024-03-10 03:00:00-04");
  EXPECT_EQ(timestampTzText("2024-03-10 01:59:59.999999", "America/New_York"), "2024-03-10 01:59:59.999999-05");
  EXPECT_EQ(timestampTzText("2024-11-03 01:30", "America/New_York"), "2024-11-03 01:30:00-05");
  EXPECT_EQ(timestampTzText("2024-11-03 00:59:59", "America/New_York"), "2024-11-03 00:59:59-04");
  EXPECT_EQ(timestampTzText("2024-11-03 01:00", "America/New_York"), "2024-11-03 01:00:00-05");
  EXPECT_EQ(timestampTzText("2024-11-03 02:00", "America/New_York"), "2024-11-03 02:00:00-05");
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "America/New_York"), "2024-07-01 12:00:00-04");
  EXPECT_EQ(timestampTzText("2100-07-01 12:00", "America/New_York"), "2100-07-01 12:00:00-04");
  EXPECT_EQ(timestampTzText("2100-03-14 02:30", "America/New_York"), "2100-03-14 03:30:00-04");
  EXPECT_EQ(timestampTzText("2100-11-07 01:30", "America/New_York"), "2100-11-07 01:30:00-05");
  EXPECT_EQ(timestampTzText("3000-07-01 12:00", "America/New_York"), "3000-07-01 12:00:00-04");
  EXPECT_EQ(timestampTzText("1880-01-01 00:00", "America/New_York"), "1880-01-01 00:00:00-04:56:02");
  EXPECT_EQ(timestampTzText("1883-11-18 12:00", "America/New_York"), "1883-11-18 12:00:00-05");
  EXPECT_EQ(timestampTzText("1883-11-18 11:59:59", "America/New_York"), "1883-11-18 11:59:59-04:56:02");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 Europe/Berlin", "America/New_York"), "2024-01-05 04:11:12-05");
  EXPECT_EQ(timestampTzText("2024-07-05 10:11:12 europe/berlin", "America/New_York"), "2024-07-05 04:11:12-04");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 EST", "America/New_York"), "2024-01-05 10:11:12-05");
  EXPECT_EQ(timestampTzText("2024-07-05 10:11:12 CET", "America/New_York"), "2024-07-05 05:11:12-04");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12+0530", "America/New_York"), "2024-01-04 23:41:12-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12-5:30", "America/New_York"), "2024-01-05 10:41:12-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 +05:30:45", "America/New_York"), "2024-01-04 23:40:27-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 z", "America/New_York"), "2024-01-05 05:11:12-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 BC +02", "America/New_York"), "2024-01-05 03:15:10-04:56:02 BC");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 utc+3", "America/New_York"), "2024-01-05 08:11:12-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 Etc/GMT+3", "America/New_York"), "2024-01-05 08:11:12-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 EST5EDT", "America/New_York"), "2024-01-05 10:11:12-05");
  EXPECT_EQ(timestampTzText("2024-03-10 02:30 America/New_York", "America/New_York"), "2024-03-10 03:30:00-04");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 -15:59", "America/New_York"), "2024-01-05 21:10:12-05");
  EXPECT_EQ(timestampTzText("10000-01-01 00:00+00", "America/New_York"), "9999-12-31 19:00:00-05");
  EXPECT_EQ(timestampTzText("4714-11-24 00:00:00-01 BC", "America/New_York"), "4714-11-23 20:03:58-04:56:02 BC");
  EXPECT_EQ(timestampTzText("4714-11-24 00:00:00 BC", "America/New_York"), "4714-11-24 00:00:00-04:56:02 BC");
  EXPECT_EQ(timestampTzText("infinity", "America/New_York"), "infinity");
  EXPECT_EQ(timestampTzText("-infinity", "America/New_York"), "-infinity");
  EXPECT_EQ(timestampTzText("epoch", "America/New_York"), "1969-12-31 19:00:00-05");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 PST", "America/New_York"), "2024-01-05 13:11:12-05");
  expectError([&] { parseTimestampTz("2024-01-05 10:11:12 America/Nowhere", TimeZone::named("America/New_York")); },
              "22023", "time zone \"america/nowhere\" not recognized");
  expectError([&] { parseTimestampTz("2024-01-05 10:11:12 XYZ", TimeZone::named("America/New_York")); }, "22007",
              "invalid input syntax for type timestamp with time zone: \"2024-01-05 10:11:12 XYZ\"");
  expectError([&] { parseTimestampTz("4714-11-24 00:00:00+01 BC", TimeZone::named("America/New_York")); }, "22008",
              "timestamp out of range: \"4714-11-24 00:00:00+01 BC\"");
}

TEST(TimestampTextTest, EuropeanZonesAndLocalMeanTime) {
  // Europe/Berlin
  EXPECT_EQ(timestampTzText("2024-03-31 02:30", "Europe/Berlin"), "2024-03-31 03:30:00+02");
  EXPECT_EQ(timestampTzText("2024-03-31 01:59:59", "Europe/Berlin"), "2024-03-31 01:59:59+01");
  EXPECT_EQ(timestampTzText("2024-03-31 03:00", "Europe/Berlin"), "2024-03-31 03:00:00+02");
  EXPECT_EQ(timestampTzText("2024-10-27 02:30", "Europe/Berlin"), "2024-10-27 02:30:00+01");
  EXPECT_EQ(timestampTzText("2024-10-27 01:30", "Europe/Berlin"), "2024-10-27 01:30:00+02");
  EXPECT_EQ(timestampTzText("2024-10-27 03:00", "Europe/Berlin"), "2024-10-27 03:00:00+01");
  EXPECT_EQ(timestampTzText("1890-01-01", "Europe/Berlin"), "1890-01-01 00:00:00+00:53:28");
  EXPECT_EQ(timestampTzText("1893-04-01", "Europe/Berlin"), "1893-04-01 00:06:32+01");
  EXPECT_EQ(timestampTzText("2100-07-01 12:00", "Europe/Berlin"), "2100-07-01 12:00:00+02");
  EXPECT_EQ(timestampTzText("2100-10-31 02:30", "Europe/Berlin"), "2100-10-31 02:30:00+01");
  EXPECT_EQ(timestampTzText("1945-05-24 12:00+00", "Europe/Berlin"), "1945-05-24 15:00:00+03");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12 Asia/Kolkata", "Europe/Berlin"), "2024-01-05 05:41:12+01");
  // Europe/Amsterdam
  EXPECT_EQ(timestampTzText("1900-01-01 12:00", "Europe/Amsterdam"), "1900-01-01 12:00:00+00:19:32");
  EXPECT_EQ(timestampTzText("1900-01-01 12:00+00", "Europe/Amsterdam"), "1900-01-01 12:19:32+00:19:32");
  EXPECT_EQ(timestampTzText("1937-07-01 12:00+00", "Europe/Amsterdam"), "1937-07-01 13:20:00+01:20");
  EXPECT_EQ(timestampTzText("1800-01-01 12:00+00", "Europe/Amsterdam"), "1800-01-01 12:19:32+00:19:32");
  EXPECT_EQ(timestampTzText("4714-11-24 00:00:00+00 BC", "Europe/Amsterdam"), "4714-11-24 00:19:32+00:19:32 BC");
  EXPECT_EQ(timestampTzText("0001-01-01 00:00:00+00 BC", "Europe/Amsterdam"), "0001-01-01 00:19:32+00:19:32 BC");
  // Asia/Kolkata
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12.5", "Asia/Kolkata"), "2024-01-05 10:11:12.5+05:30");
  EXPECT_EQ(timestampTzText("1900-01-01 12:00+00", "Asia/Kolkata"), "1900-01-01 17:21:10+05:21:10");
  EXPECT_EQ(timestampTzText("1941-12-01 12:00+00", "Asia/Kolkata"), "1941-12-01 18:30:00+06:30");
  EXPECT_EQ(timestampTzText("2024-01-05 10:11:12+00", "Asia/Kolkata"), "2024-01-05 15:41:12+05:30");
  // Australia/Lord_Howe
  EXPECT_EQ(timestampTzText("2024-04-07 01:45", "Australia/Lord_Howe"), "2024-04-07 01:45:00+10:30");
  EXPECT_EQ(timestampTzText("2024-10-06 02:15", "Australia/Lord_Howe"), "2024-10-06 02:45:00+11");
  EXPECT_EQ(timestampTzText("2024-07-01 12:00+00", "Australia/Lord_Howe"), "2024-07-01 22:30:00+10:30");
  EXPECT_EQ(timestampTzText("2024-01-01 12:00+00", "Australia/Lord_Howe"), "2024-01-01 23:00:00+11");
}

TEST(TimestampTextTest, PosixAndOffsetSessionZones) {
  // UTC+3
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "UTC+3"), "2024-07-01 12:00:00-03");
  // -3.5
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "-3.5"), "2024-07-01 12:00:00-03:30");
  // 5
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "5"), "2024-07-01 12:00:00+05");
  // +05:30
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "+05:30"), "2024-07-01 12:00:00-05:30");
  // EST5EDT,M3.2.0,M11.1.0
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "EST5EDT,M3.2.0,M11.1.0"), "2024-07-01 12:00:00-04");
  EXPECT_EQ(timestampTzText("2024-03-10 02:30", "EST5EDT,M3.2.0,M11.1.0"), "2024-03-10 03:30:00-04");
  // <+0330>-3:30
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "<+0330>-3:30"), "2024-07-01 12:00:00+03:30");
  // CET-1CEST,M3.5.0,M10.5.0/3
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "CET-1CEST,M3.5.0,M10.5.0/3"), "2024-07-01 12:00:00+02");
  EXPECT_EQ(timestampTzText("2024-10-27 02:30", "CET-1CEST,M3.5.0,M10.5.0/3"), "2024-10-27 02:30:00+01");
  EXPECT_EQ(timestampTzText("2024-03-31 02:30", "CET-1CEST,M3.5.0,M10.5.0/3"), "2024-03-31 03:30:00+02");
  // AEST-10AEDT,M10.1.0,M4.1.0/3
  EXPECT_EQ(timestampTzText("2024-01-01 12:00", "AEST-10AEDT,M10.1.0,M4.1.0/3"), "2024-01-01 12:00:00+11");
  EXPECT_EQ(timestampTzText("2024-07-01 12:00", "AEST-10AEDT,M10.1.0,M4.1.0/3"), "2024-07-01 12:00:00+10");
  EXPECT_EQ(timestampTzText("2024-04-07 02:30", "AEST-10AEDT,M10.1.0,M4.1.0/3"), "2024-04-07 02:30:00+10");
  EXPECT_EQ(timestampTzText("2024-10-06 02:30", "AEST-10AEDT,M10.1.0,M4.1.0/3"), "2024-10-06 03:30:00+11");
}

TEST(TimestampTextTest, TimeZoneSettingNames) {
  EXPECT_EQ(TimeZone::named("UTC").name(), "UTC");
  EXPECT_EQ(TimeZone::named("utc").name(), "UTC");
  EXPECT_EQ(TimeZone::named("Europe/Berlin").name(), "Europe/Berlin");
  EXPECT_EQ(TimeZone::named("europe/berlin").name(), "Europe/Berlin");
  EXPECT_EQ(TimeZone::named("Etc/GMT+3").name(), "Etc/GMT+3");
  EXPECT_EQ(TimeZone::named("+05:30").name(), "+05:30");
  EXPECT_EQ(TimeZone::named("-08").name(), "<-08>+08");
  EXPECT_EQ(TimeZone::named("5").name(), "<+05>-05");
  EXPECT_EQ(TimeZone::named("-3.5").name(), "<-03:30>+03:30");
  EXPECT_EQ(TimeZone::named("15.5").name(), "<+15:30>-15:30");
  EXPECT_EQ(TimeZone::named("UTC+3").name(), "UTC+3");
  EXPECT_EQ(TimeZone::named("utc+3").name(), "UTC+3");
  EXPECT_EQ(TimeZone::named("EST5EDT").name(), "EST5EDT");
  EXPECT_EQ(TimeZone::named("est5edt").name(), "EST5EDT");
  EXPECT_EQ(TimeZone::named("Asia/Kolkata").name(), "Asia/Kolkata");
  EXPECT_EQ(TimeZone::named("GMT").name(), "GMT");
  EXPECT_EQ(TimeZone::named("PST8PDT").name(), "PST8PDT");
  EXPECT_EQ(TimeZone::named("EST").name(), "EST");
  EXPECT_EQ(TimeZone::named("CET").name(), "CET");
  EXPECT_EQ(TimeZone::named("<+03>-3").name(), "<+03>-3");
  EXPECT_EQ(TimeZone::named("Ab+3").name(), "AB+3");
  EXPECT_EQ(TimeZone::named("EST5EDT,M3.2.0,M11.1.0").name(), "EST5EDT,M3.2.0,M11.1.0");
  EXPECT_EQ(TimeZone::named("america/new_york").name(), "America/New_York");
  EXPECT_EQ(TimeZone::named("US/Eastern").name(), "US/Eastern");
  EXPECT_EQ(TimeZone::named("Zulu").name(), "Zulu");
  EXPECT_EQ(TimeZone::named(" 5").name(), "<+05>-05");
  EXPECT_EQ(TimeZone::named("0").name(), "<+00>-00");
  expectError([&] { TimeZone::named("nowhere"); }, "22023", "invalid value for parameter \"TimeZone\": \"nowhere\"");
  expectError([&] { TimeZone::named("Z"); }, "22023", "invalid value for parameter \"TimeZone\": \"Z\"");
  expectError([&] { TimeZone::named("  UTC"); }, "22023", "invalid value for parameter \"TimeZone\": \"  UTC\"");
  expectError([&] { TimeZone::named("UTC "); }, "22023", "invalid value for parameter \"TimeZone\": \"UTC \"");
  expectError([&] { TimeZone::named("ZZZ"); }, "22023", "invalid value for parameter \"TimeZone\": \"ZZZ\"");
  expectError([&] { TimeZone::named("local"); }, "22023", "invalid value for parameter \"TimeZone\": \"local\"");
  expectError([&] { TimeZone::named(""); }, "22023", "invalid value for parameter \"TimeZone\": \"\"");
}

TEST(TimestampTextTest, RepresentationAndInfinity) {
  EXPECT_EQ(parseTimestamp("1970-01-01"), 0);
  EXPECT_EQ(parseTimestamp("1970-01-01 00:00:01.5"), 1'500'000);
  EXPECT_EQ(parseTimestamp("1969-12-31 23:59:59.999999"), -1);
  EXPECT_EQ(parseTimestamp("infinity"), kTimestampInfinity);
  EXPECT_EQ(parseTimestamp("-infinity"), kTimestampMinusInfinity);
  EXPECT_EQ(parseTimestamp("4714-11-24 BC"), kMinTimestamp);
  EXPECT_EQ(parseTimestampTz("2024-01-05 10:00+01", TimeZone::utc()), parseTimestamp("2024-01-05 09:00"));
  // The last 30 years of PostgreSQL's range do not fit our 1970-based int64 (see kEndTimestamp).
  EXPECT_EQ(parseTimestamp("294246-12-31 23:59:59.999999"), kEndTimestamp - 1);
  expectError([] { parseTimestamp("294247-01-01"); }, "22008", "timestamp out of range: \"294247-01-01\"");
  expectError([] { parseTimestampTz("294246-12-31 23:00-02", TimeZone::utc()); }, "22008",
              "timestamp out of range: \"294246-12-31 23:00-02\"");
  std::string out;
  appendTimestampTzText(kTimestampInfinity, TimeZone::named("Europe/Berlin"), out);
  EXPECT_EQ(out, "infinity");
}

TEST(TimestampTextTest, OffsetsAndAbbreviations) {
  const TimeZone& newYork = TimeZone::named("America/New_York");
  EXPECT_EQ(newYork.offsetAt(utcMicros("2024-07-01 12:00")), -4 * 3600);
  EXPECT_EQ(newYork.abbreviationAt(utcMicros("2024-07-01 12:00")), "EDT");
  EXPECT_EQ(newYork.abbreviationAt(utcMicros("2024-01-01 12:00")), "EST");
  EXPECT_EQ(newYork.abbreviationAt(utcMicros("2100-07-01 12:00")), "EDT");  // from the file's POSIX rule
  EXPECT_EQ(newYork.abbreviationAt(utcMicros("1880-01-01 12:00")), "LMT");
  EXPECT_EQ(newYork.offsetAt(utcMicros("1880-01-01 12:00")), -(4 * 3600 + 56 * 60 + 2));
  EXPECT_EQ(TimeZone::named("Asia/Kolkata").abbreviationAt(0), "IST");
  EXPECT_EQ(TimeZone::named("5").abbreviationAt(0), "+05");
  EXPECT_EQ(TimeZone::utc().offsetAt(0), 0);
  EXPECT_EQ(TimeZone::utc().name(), "UTC");
  // Gap: 02:30 does not exist and is read with the offset before it (EST); overlap: EST, the one after.
  EXPECT_EQ(newYork.localToUtc(parseTimestamp("2024-03-10 02:30")), utcMicros("2024-03-10 07:30"));
  EXPECT_EQ(newYork.localToUtc(parseTimestamp("2024-11-03 01:30")), utcMicros("2024-11-03 06:30"));
  EXPECT_EQ(&TimeZone::named("Europe/Berlin"), &TimeZone::named("Europe/Berlin"));
}

TEST(TimestampTextTest, StatementTimeWords) {
  int64_t now = utcMicros("2024-01-05 20:00:00.25");
  const TimeZone& kolkata = TimeZone::named("Asia/Kolkata");  // already 2024-01-06 there
  auto tzText = [&](std::string_view text) {
    std::string out;
    appendTimestampTzText(parseTimestampTz(text, kolkata, now), kolkata, out);
    return out;
  };
  auto text = [&](std::string_view input) {
    std::string out;
    appendTimestampText(parseTimestamp(input, now, kolkata), out);
    return out;
  };
  EXPECT_EQ(parseTimestampTz("now", kolkata, now), now);
  EXPECT_EQ(tzText("today"), "2024-01-06 00:00:00+05:30");
  EXPECT_EQ(tzText("tomorrow"), "2024-01-07 00:00:00+05:30");
  EXPECT_EQ(tzText("yesterday 10:00"), "2024-01-05 10:00:00+05:30");
  EXPECT_EQ(tzText("today Europe/Berlin"), "2024-01-06 04:30:00+05:30");
  EXPECT_EQ(text("now"), "2024-01-06 01:30:00.25");
  EXPECT_EQ(text("today"), "2024-01-06 00:00:00");
  EXPECT_EQ(timestampText("epoch"), "1970-01-01 00:00:00");
  expectError([] { parseTimestamp("now"); }, "0A000", "\"now\" needs the statement's time, which is not known here");
  expectError([] { parseTimestampTz("today", TimeZone::utc()); }, "0A000",
              "\"today\" needs the statement's time, which is not known here");
}

TEST(TimestampTextTest, ZonesResolveConcurrently) {
  std::vector<std::thread> threads;
  std::vector<const TimeZone*> seen(8);
  for (size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] { seen[i] = &TimeZone::named("Pacific/Auckland"); });
  }
  for (auto& thread : threads) thread.join();
  for (const TimeZone* zone : seen) EXPECT_EQ(zone, seen[0]);
}

std::string timeText(std::string_view text) {
  std::string out;
  appendTimeText(parseTime(text), out);
  return out;
}

// Each expected text is what PostgreSQL 15 prints for the literal cast to time.
TEST(TimeTextTest, TimeInputAndOutput) {
  EXPECT_EQ(timeText("04:05:06.789"), "04:05:06.789");
  EXPECT_EQ(timeText("04:05"), "04:05:00");
  EXPECT_EQ(timeText("040506"), "04:05:06");
  EXPECT_EQ(timeText("4:05 PM"), "16:05:00");
  EXPECT_EQ(timeText("12:00 AM"), "00:00:00");
  EXPECT_EQ(timeText("2003-04-12 04:05:06"), "04:05:06");
  EXPECT_EQ(timeText("04:05:06 PST"), "04:05:06");
  EXPECT_EQ(timeText("04:05:06+05:30"), "04:05:06");
  EXPECT_EQ(timeText("allballs"), "00:00:00");
  EXPECT_EQ(timeText("23:59:60"), "24:00:00");
  EXPECT_EQ(timeText("24:00"), "24:00:00");
  EXPECT_EQ(timeText(" 1:02:03.0000015 "), "01:02:03.000002");
  EXPECT_EQ(parseTime("24:00"), kMicrosPerDay);
}

TEST(TimeTextTest, NowIsTheSessionsLocalTimeOfDay) {
  const int64_t now = utcMicros("2024-01-05 22:30:00+00");
  std::string out;
  appendTimeText(parseTime("now", now, TimeZone::named("Asia/Kolkata")), out);
  EXPECT_EQ(out, "04:00:00");
  expectError([&] { parseTime("now"); }, "0A000", "\"now\" needs the statement's time, which is not known here");
}

TEST(TimeTextTest, MalformedTimesFailAsPostgresDoes) {
  expectError([&] { parseTime(""); }, "22007", "invalid input syntax for type time: \"\"");
  expectError([&] { parseTime("ten"); }, "22007", "invalid input syntax for type time: \"ten\"");
  expectError([&] { parseTime("infinity"); }, "22007", "invalid input syntax for type time: \"infinity\"");
  expectError([&] { parseTime("2024-01-05"); }, "22007", "invalid input syntax for type time: \"2024-01-05\"");
  expectError([&] { parseTime("24:00:01"); }, "22008", "date/time field value out of range: \"24:00:01\"");
  expectError([&] { parseTime("13:00 PM"); }, "22008", "date/time field value out of range: \"13:00 PM\"");
  expectError([&] { parseTime("2003-02-30 10:00"); }, "22008",
              "date/time field value out of range: \"2003-02-30 10:00\"");
}

}  // namespace
}  // namespace shoal::engine
