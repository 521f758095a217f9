// LIKE, CASE, coalesce, EXTRACT, substring and date + months, built as engine
// expressions over chunks (no SQL binder) and checked against PostgreSQL's answers.
#include <gtest/gtest.h>

#include <climits>
#include <functional>
#include <optional>
#include <random>

#include "common/status.h"
#include "engine/aggregate/scalar_aggregate.h"
#include "engine/expression/expression_evaluator.h"
#include "engine/expression/like_matcher.h"
#include "engine/expression/timestamp_functions.h"
#include "engine/types/array_value.h"
#include "engine/types/interval.h"
#include "engine/types/text_format.h"
#include "engine/types/utf8.h"
#include "proto/plan_codec.h"

namespace shoal {
namespace {

using engine::Chunk;
using engine::ColumnRefExpression;
using engine::ConstantExpression;
using engine::Expression;
using engine::ExpressionPtr;
using engine::FunctionExpression;
using engine::LikeMatcher;
using engine::LogicalType;
using engine::ScalarFunction;
using engine::Value;
using engine::Vector;

using Rows = std::vector<std::optional<std::string>>;

// --- Building expressions and chunks ---

/// A column of `type` whose rows are parsed from PostgreSQL text (nullopt is NULL).
Vector column(const LogicalType& type, const Rows& rows) {
  Vector out(type, rows.size());
  for (size_t row = 0; row < rows.size(); ++row) {
    out.setValue(row, rows[row].has_value() ? engine::parseValue(*rows[row], type) : Value::null(type));
  }
  return out;
}

template <class... Columns>
Chunk chunkOf(Columns... columns) {
  std::vector<Vector> list;
  (list.push_back(std::move(columns)), ...);
  size_t numRows = list.empty() ? 0 : list.front().size();
  return Chunk(std::move(list), numRows);
}

ExpressionPtr ref(size_t index, const LogicalType& type, std::string name) {
  return std::make_unique<ColumnRefExpression>(index, type, std::move(name));
}

ExpressionPtr constant(Value value) {
  return std::make_unique<ConstantExpression>(std::move(value));
}
ExpressionPtr integer(int32_t value) {
  return constant(Value::integer(value));
}
ExpressionPtr text(std::string value) {
  return constant(Value::varchar(std::move(value)));
}

template <class... Arguments>
ExpressionPtr call(ScalarFunction function, const LogicalType& type, Arguments... arguments) {
  std::vector<ExpressionPtr> list;
  (list.push_back(std::move(arguments)), ...);
  return std::make_unique<FunctionExpression>(function, std::move(list), type);
}

/// Evaluates `expression` over `input` and returns each row's PostgreSQL text ("NULL" for NULL).
std::vector<std::string> evaluate(const Expression& expression, const Chunk& input) {
  Vector result = engine::ExpressionEvaluator().evaluate(expression, input);
  EXPECT_EQ(result.size(), input.size());
  std::vector<std::string> texts;
  for (size_t row = 0; row < result.size(); ++row) texts.push_back(result.getValue(row).toString());
  return texts;
}

/// The SQLSTATE evaluating `expression` over `input` fails with, or "none".
std::string_view errorOf(const Expression& expression, const Chunk& input) {
  try {
    engine::ExpressionEvaluator().evaluate(expression, input);
  } catch (const ShoalError& error) {
    return error.status().sqlState();
  }
  return "none";
}

// --- LIKE ---

/// `text LIKE pattern` on one row, through the evaluator: with the pattern as a
/// constant (compiled, fast paths) and as a column (interpreted per row), which must agree.
std::string like(std::optional<std::string> value, std::optional<std::string> pattern,
                 ScalarFunction function = ScalarFunction::kLike, LogicalType type = LogicalType::text()) {
  Chunk input = chunkOf(column(type, {value}), column(LogicalType::text(), {pattern}));
  auto constantPattern = call(function, LogicalType::boolean(), ref(0, type, "s"),
                              constant(pattern ? Value::varchar(*pattern) : Value::null(LogicalType::text())));
  auto columnPattern = call(function, LogicalType::boolean(), ref(0, type, "s"), ref(1, LogicalType::text(), "p"));
  std::string compiled = evaluate(*constantPattern, input).at(0);
  std::string interpreted = evaluate(*columnPattern, input).at(0);
  EXPECT_EQ(compiled, interpreted) << (value ? *value : "NULL") << " LIKE " << (pattern ? *pattern : "NULL");
  return compiled;
}

TEST(ScalarFunctionsTest, LikeMatchesWildcards) {
  EXPECT_EQ(like("hello", "hello"), "t");
  EXPECT_EQ(like("hello", "hell"), "f");
  EXPECT_EQ(like("hello", "Hello"), "f");  // case-sensitive
  EXPECT_EQ(like("hello", "he%"), "t");
  EXPECT_EQ(like("hello", "He%"), "f");
  EXPECT_EQ(like("hello", "%llo"), "t");
  EXPECT_EQ(like("hello", "%ell%"), "t");
  EXPECT_EQ(like("hello", "%elo%"), "f");
  EXPECT_EQ(like("hello", "h%o"), "t");
  EXPECT_EQ(like("hello", "h%l%o"), "t");
  EXPECT_EQ(like("hello", "%l%l%"), "t");
  EXPECT_EQ(like("helo", "%l%l%"), "f");
  EXPECT_EQ(like("aba", "ab%ba"), "f");  // prefix and suffix must not overlap
  EXPECT_EQ(like("abba", "ab%ba"), "t");
  EXPECT_EQ(like("hello", "h_llo"), "t");
  EXPECT_EQ(like("hello", "_____"), "t");
  EXPECT_EQ(like("hello", "______"), "f");
  EXPECT_EQ(like("hello", "%_l_"), "t");
  EXPECT_EQ(like("", "%"), "t");
  EXPECT_EQ(like("", "%%"), "t");
  EXPECT_EQ(like("", ""), "t");
  EXPECT_EQ(like("", "_"), "f");
  EXPECT_EQ(like("x", ""), "f");
  EXPECT_EQ(like("anything at all", "%"), "t");
  EXPECT_EQ(like("special requests", "%special%requests%"), "t");
  EXPECT_EQ(like("requests special", "%special%requests%"), "f");
}

TEST(ScalarFunctionsTest, LikeEscapesWithBackslash) {
  EXPECT_EQ(like("50%", "50\\%"), "t");
  EXPECT_EQ(like("500", "50\\%"), "f");
  EXPECT_EQ(like("a_b", "a\\_b"), "t");
  EXPECT_EQ(like("axb", "a\\_b"), "f");
  EXPECT_EQ(like("a\\b", "a\\\\b"), "t");
  EXPECT_EQ(like("ab", "\\a\\b"), "t");  // escaping an ordinary character keeps it
  EXPECT_EQ(like("x%y", "%\\%%"), "t");
  EXPECT_EQ(like("xy", "%\\%%"), "f");
  // A lone trailing backslash fails, but only once matching reaches it (as in PostgreSQL).
  EXPECT_EQ(like("b", "a\\"), "f");
  EXPECT_EQ(like("abc", "abc\\"), "f");
  Chunk input = chunkOf(column(LogicalType::text(), {"abcd"}));
  auto trailing = call(ScalarFunction::kLike, LogicalType::boolean(), ref(0, LogicalType::text(), "s"), text("abc\\"));
  EXPECT_EQ(errorOf(*trailing, input), SqlState::kInvalidEscapeSequence);
  EXPECT_THROW(engine::likeMatches("abc", "%\\"), ShoalError);
}

TEST(ScalarFunctionsTest, LikeEscapeRewritesPatternsForBackslash) {
  EXPECT_EQ(engine::likePatternWithEscape("100/%", "/"), "100\\%");
  EXPECT_EQ(engine::likePatternWithEscape("a//b", "/"), "a\\/b");         // the escape escapes itself
  EXPECT_EQ(engine::likePatternWithEscape("c:\\dir", "/"), "c:\\\\dir");  // a backslash stands for itself
  EXPECT_EQ(engine::likePatternWithEscape("c:\\d%", ""), "c:\\\\d%");     // no escape: wildcards stay wildcards
  EXPECT_EQ(engine::likePatternWithEscape("ab/", "/"), "ab\\");           // a trailing escape stays one
  EXPECT_EQ(engine::likePatternWithEscape("xé_", "é"), "x\\_");           // a multi-byte escape character
  EXPECT_EQ(like("50%", engine::likePatternWithEscape("50#%", "#")), "t");
  EXPECT_EQ(like("500", engine::likePatternWithEscape("50#%", "#")), "f");
  try {
    engine::likePatternWithEscape("a", "xy");
    FAIL() << "an escape of two characters must fail";
  } catch (const ShoalError& error) {
    EXPECT_EQ(error.status().sqlState(), SqlState::kInvalidEscapeSequence);
  }
}

TEST(ScalarFunctionsTest, RegexMatchSearchesAsPostgresql) {
  auto match = [](std::optional<std::string> value, std::optional<std::string> pattern,
                  ScalarFunction function = ScalarFunction::kRegexMatch) { return like(value, pattern, function); };
  EXPECT_EQ(match("banana", "an+a$"), "t");
  EXPECT_EQ(match("banana", "^an"), "f");  // a search, anchored only by ^ and $
  EXPECT_EQ(match("banana", "nan"), "t");
  EXPECT_EQ(match("line1\nline2", "1.l"), "t");     // '.' matches a newline
  EXPECT_EQ(match("line1\nline2", "^line2"), "f");  // '^' only at the start of the text
  EXPECT_EQ(match("abc", "a[bc]{2}"), "t");
  EXPECT_EQ(match("Apple", "^apple", ScalarFunction::kRegexMatchInsensitive), "t");
  EXPECT_EQ(match("Apple", "^apple", ScalarFunction::kRegexNotMatchInsensitive), "f");
  EXPECT_EQ(match("Apple", "^apple", ScalarFunction::kRegexNotMatch), "t");
  EXPECT_EQ(match(std::nullopt, "a"), "NULL");
  EXPECT_EQ(match("a", std::nullopt), "NULL");
  // CHAR(n) is matched with its padding, as PostgreSQL's bpchar ~ does.
  EXPECT_EQ(like("a b", "b $", ScalarFunction::kRegexMatch, LogicalType::character(4)), "t");
  EXPECT_EQ(like("ab", "b$", ScalarFunction::kRegexMatch, LogicalType::character(4)), "f");
}

TEST(ScalarFunctionsTest, AnInvalidRegexFailsWith2201BAndANullInputNeverCompilesIt) {
  Chunk input = chunkOf(column(LogicalType::text(), {std::string("a")}));
  auto unbalanced =
      call(ScalarFunction::kRegexMatch, LogicalType::boolean(), ref(0, LogicalType::text(), "s"), text("("));
  EXPECT_EQ(errorOf(*unbalanced, input), SqlState::kInvalidRegularExpression);
  // RE2 has no back-references: a clean error, never a wrong answer.
  auto backReference =
      call(ScalarFunction::kRegexMatch, LogicalType::boolean(), ref(0, LogicalType::text(), "s"), text("(a)\\1"));
  EXPECT_EQ(errorOf(*backReference, input), SqlState::kInvalidRegularExpression);
  Chunk nulls = chunkOf(column(LogicalType::text(), {std::nullopt}));
  EXPECT_EQ(evaluate(*unbalanced, nulls), std::vector<std::string>{"NULL"});
}

TEST(ScalarFunctionsTest, LikeUnderscoreIsOneUtf8Character) {
  EXPECT_EQ(like("héllo", "h_llo"), "t");
  EXPECT_EQ(like("héllo", "h__llo"), "f");
  EXPECT_EQ(like("日本語", "___"), "t");
  EXPECT_EQ(like("日本語", "__"), "f");
  EXPECT_EQ(like("日本語", "____"), "f");
  EXPECT_EQ(like("日本語", "_本%"), "t");
  EXPECT_EQ(like("日本語", "%語"), "t");
  EXPECT_EQ(like("日本語", "%_語"), "t");
  EXPECT_EQ(like("日本語", "%本_"), "t");
  EXPECT_EQ(like("naïve café", "%ï%é"), "t");
  EXPECT_EQ(like("naïve café", "na_ve caf_"), "t");
}

TEST(ScalarFunctionsTest, LikeWithNullsIsNull) {
  EXPECT_EQ(like(std::nullopt, "%"), "NULL");
  EXPECT_EQ(like("x", std::nullopt), "NULL");
  EXPECT_EQ(like(std::nullopt, "%", ScalarFunction::kNotLike), "NULL");
  EXPECT_EQ(like("x", std::nullopt, ScalarFunction::kNotLike), "NULL");
}

TEST(ScalarFunctionsTest, NotLikeNegates) {
  EXPECT_EQ(like("hello", "he%", ScalarFunction::kNotLike), "f");
  EXPECT_EQ(like("hello", "%x%", ScalarFunction::kNotLike), "t");
  EXPECT_EQ(like("hello", "h_llo", ScalarFunction::kNotLike), "f");
}

TEST(ScalarFunctionsTest, LikeSeesCharPadding) {
  // PostgreSQL's bpchar LIKE matches the padded value: 'ab'::char(5) is 'ab   '.
  LogicalType char5 = LogicalType::character(5);
  EXPECT_EQ(like("ab", "ab", ScalarFunction::kLike, char5), "f");
  EXPECT_EQ(like("ab", "ab%", ScalarFunction::kLike, char5), "t");
  EXPECT_EQ(like("ab", "ab___", ScalarFunction::kLike, char5), "t");
  EXPECT_EQ(like("ab", "%b", ScalarFunction::kLike, char5), "f");
  EXPECT_EQ(like("abcde", "abcde", ScalarFunction::kLike, char5), "t");
}

TEST(ScalarFunctionsTest, LikeCompilesConstantPatternsToFastPaths) {
  using Strategy = LikeMatcher::Strategy;
  EXPECT_EQ(LikeMatcher("abc").strategy(), Strategy::kExact);
  EXPECT_EQ(LikeMatcher("a\\%c").strategy(), Strategy::kExact);
  EXPECT_EQ(LikeMatcher("abc%").strategy(), Strategy::kPrefix);
  EXPECT_EQ(LikeMatcher("%").strategy(), Strategy::kPrefix);
  EXPECT_EQ(LikeMatcher("%abc").strategy(), Strategy::kSuffix);
  EXPECT_EQ(LikeMatcher("%abc%").strategy(), Strategy::kContains);
  EXPECT_EQ(LikeMatcher("%%abc%%").strategy(), Strategy::kContains);
  EXPECT_EQ(LikeMatcher("%a%b%").strategy(), Strategy::kSequence);
  EXPECT_EQ(LikeMatcher("a%b").strategy(), Strategy::kSequence);
  EXPECT_EQ(LikeMatcher("a_c%").strategy(), Strategy::kGeneral);
  EXPECT_EQ(LikeMatcher("abc\\").strategy(), Strategy::kGeneral);
}

/// An independent reference: PostgreSQL's LIKE as a memoized search over whole
/// characters (only for well-formed patterns: no trailing escape).
bool referenceLike(std::string_view text, std::string_view pattern) {
  struct Token {
    enum { kLiteral, kAnyCharacter, kAnySequence } kind;
    std::string_view literal;
  };
  auto characters = [](std::string_view value) {
    std::vector<std::string_view> out;
    for (size_t offset = 0; offset < value.size();) {
      size_t next = engine::utf8NextCharacter(value, offset);
      out.push_back(value.substr(offset, next - offset));
      offset = next;
    }
    return out;
  };
  std::vector<Token> tokens;
  std::vector<std::string_view> patternCharacters = characters(pattern);
  for (size_t i = 0; i < patternCharacters.size(); ++i) {
    std::string_view c = patternCharacters[i];
    if (c == "\\") {
      tokens.push_back({Token::kLiteral, patternCharacters.at(++i)});
    } else if (c == "%") {
      tokens.push_back({Token::kAnySequence, {}});
    } else if (c == "_") {
      tokens.push_back({Token::kAnyCharacter, {}});
    } else {
      tokens.push_back({Token::kLiteral, c});
    }
  }
  std::vector<std::string_view> textCharacters = characters(text);
  // matched[t][p]: does text from character t match tokens from p?
  std::vector<std::vector<int>> memo(textCharacters.size() + 1, std::vector<int>(tokens.size() + 1, -1));
  std::function<bool(size_t, size_t)> match = [&](size_t t, size_t p) -> bool {
    int& cached = memo[t][p];
    if (cached >= 0) return cached;
    bool result;
    if (p == tokens.size()) {
      result = t == textCharacters.size();
    } else if (tokens[p].kind == Token::kAnySequence) {
      result = match(t, p + 1) || (t < textCharacters.size() && match(t + 1, p));
    } else if (t == textCharacters.size()) {
      result = false;
    } else {
      result =
          (tokens[p].kind == Token::kAnyCharacter || tokens[p].literal == textCharacters[t]) && match(t + 1, p + 1);
    }
    cached = result;
    return result;
  };
  return match(0, 0);
}

TEST(ScalarFunctionsTest, LikeFastPathsAndGeneralPathAgree) {
  // Random texts and patterns over a small alphabet (so that matches are common),
  // with a two-byte character to catch byte/character confusion.
  std::mt19937 random(20240229);
  const std::vector<std::string> textAlphabet = {"a", "b", "é", "%", "_"};
  const std::vector<std::string> patternAlphabet = {"a", "b", "é", "%", "%", "_", "\\%", "\\_", "\\a"};
  auto draw = [&](const std::vector<std::string>& alphabet, size_t maxLength) {
    std::string out;
    size_t length = std::uniform_int_distribution<size_t>(0, maxLength)(random);
    for (size_t i = 0; i < length; ++i) {
      out += alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(random)];
    }
    return out;
  };
  constexpr int kPatterns = 400;
  constexpr int kTextsPerPattern = 40;
  size_t matched = 0;
  for (int i = 0; i < kPatterns; ++i) {
    std::string pattern = draw(patternAlphabet, 6);
    LikeMatcher matcher(pattern);
    for (int j = 0; j < kTextsPerPattern; ++j) {
      std::string value = draw(textAlphabet, 8);
      bool expected = referenceLike(value, pattern);
      ASSERT_EQ(engine::likeMatches(value, pattern), expected) << "'" << value << "' LIKE '" << pattern << "'";
      ASSERT_EQ(matcher.matches(value), expected) << "'" << value << "' LIKE '" << pattern << "'";
      matched += expected;
    }
  }
  // The test means something only if both answers are common.
  EXPECT_GT(matched, kPatterns * kTextsPerPattern / 20);
  EXPECT_LT(matched, kPatterns * kTextsPerPattern * 19 / 20);
}

TEST(ScalarFunctionsTest, LikeSubstringSearchAgreesOnLongTexts) {
  // Texts of up to 150 bytes, so that the substring search runs its 32-positions-at-once path and
  // its byte-by-byte tail, with matches at every offset, near the end and overlapping.
  std::mt19937 random(20261124);
  auto draw = [&](std::string_view alphabet, size_t minLength, size_t maxLength) {
    std::string out(std::uniform_int_distribution<size_t>(minLength, maxLength)(random), ' ');
    for (char& c : out) c = alphabet[std::uniform_int_distribution<size_t>(0, alphabet.size() - 1)(random)];
    return out;
  };
  size_t matched = 0;
  for (int i = 0; i < 300; ++i) {
    std::string pattern = "%" + draw("ab", 2, 5) + "%" + (i % 2 ? draw("abc", 1, 3) + "%" : "");
    LikeMatcher matcher(pattern);
    for (int j = 0; j < 30; ++j) {
      std::string value = draw("aabbc", 0, 150);
      bool expected = referenceLike(value, pattern);
      ASSERT_EQ(matcher.matches(value), expected) << "'" << value << "' LIKE '" << pattern << "'";
      matched += expected;
    }
  }
  EXPECT_GT(matched, 300u * 30 / 20);
  EXPECT_LT(matched, 300u * 30 * 19 / 20);
}

TEST(ScalarFunctionsTest, LikeOverWholeVectors) {
  // More rows than one vector, long strings (beyond StringRef's inline bytes) and NULLs.
  constexpr size_t kRows = 3000;
  Rows values;
  for (size_t row = 0; row < kRows; ++row) {
    if (row % 7 == 0) {
      values.push_back(std::nullopt);
    } else {
      values.push_back("customer #" + std::to_string(row) + (row % 2 == 0 ? " has special requests" : " is quiet"));
    }
  }
  Chunk input = chunkOf(column(LogicalType::text(), values));
  auto expression = call(ScalarFunction::kNotLike, LogicalType::boolean(), ref(0, LogicalType::text(), "comment"),
                         text("%special%requests%"));
  std::vector<std::string> result = evaluate(*expression, input);
  for (size_t row = 0; row < kRows; ++row) {
    ASSERT_EQ(result[row], row % 7 == 0 ? "NULL" : (row % 2 == 0 ? "f" : "t")) << row;
  }
  // A parameter ($1) is as constant as a literal.
  auto parameterized = call(ScalarFunction::kNotLike, LogicalType::boolean(), ref(0, LogicalType::text(), "comment"),
                            std::make_unique<engine::ParameterExpression>(0, LogicalType::text()));
  std::vector<Value> parameters = {Value::varchar("%special%requests%")};
  Vector fromParameter = engine::ExpressionEvaluator(parameters).evaluate(*parameterized, input);
  for (size_t row = 0; row < kRows; ++row) {
    ASSERT_EQ(fromParameter.getValue(row).toString(), result[row]) << row;
  }
}

// --- CASE ---

/// x: 0, 2, NULL, 4, 0.
Chunk integerInput() {
  return chunkOf(column(LogicalType::integer(), {"0", "2", std::nullopt, "4", "0"}));
}

ExpressionPtr x() {
  return ref(0, LogicalType::integer(), "x");
}

ExpressionPtr binary(ScalarFunction function, const LogicalType& type, ExpressionPtr left, ExpressionPtr right) {
  return call(function, type, std::move(left), std::move(right));
}

TEST(ScalarFunctionsTest, CaseEvaluatesABranchOnlyForTheRowsThatTakeIt) {
  Chunk input = integerInput();
  LogicalType integerType = LogicalType::integer();
  // Dividing by x on its own fails: the rows with x = 0 reach the division.
  auto division = binary(ScalarFunction::kDivide, integerType, integer(8), x());
  EXPECT_EQ(errorOf(*division, input), SqlState::kDivisionByZero);
  // CASE WHEN x <> 0 THEN 8 / x ELSE 0 END
  auto guarded = call(ScalarFunction::kCase, integerType,
                      binary(ScalarFunction::kNotEqual, LogicalType::boolean(), x(), integer(0)),
                      binary(ScalarFunction::kDivide, integerType, integer(8), x()), integer(0));
  EXPECT_EQ(evaluate(*guarded, input), (std::vector<std::string>{"0", "4", "0", "2", "0"}));
  EXPECT_EQ(guarded->toString(), "CASE WHEN (x <> 0) THEN (8 / x) ELSE 0 END");
}

TEST(ScalarFunctionsTest, CaseEvaluatesALaterConditionOnlyForTheRowsLeft) {
  // CASE WHEN x = 0 THEN -1 WHEN 8 / x > 2 THEN 1 ELSE 0 END: the second WHEN divides.
  Chunk input = integerInput();
  LogicalType integerType = LogicalType::integer();
  auto expression = call(ScalarFunction::kCase, integerType,
                         binary(ScalarFunction::kEqual, LogicalType::boolean(), x(), integer(0)), integer(-1),
                         binary(ScalarFunction::kGreater, LogicalType::boolean(),
                                binary(ScalarFunction::kDivide, integerType, integer(8), x()), integer(2)),
                         integer(1), integer(0));
  EXPECT_EQ(evaluate(*expression, input), (std::vector<std::string>{"-1", "1", "0", "0", "-1"}));
}

TEST(ScalarFunctionsTest, CaseSkipsABranchNoRowTakes) {
  // CASE WHEN x > 100 THEN 1 / (x - x) ELSE x END: the THEN would fail on any row.
  Chunk input = integerInput();
  LogicalType integerType = LogicalType::integer();
  auto expression = call(ScalarFunction::kCase, integerType,
                         binary(ScalarFunction::kGreater, LogicalType::boolean(), x(), integer(100)),
                         binary(ScalarFunction::kDivide, integerType, integer(1),
                                binary(ScalarFunction::kSubtract, integerType, x(), x())),
                         x());
  EXPECT_EQ(evaluate(*expression, input), (std::vector<std::string>{"0", "2", "NULL", "4", "0"}));
}

TEST(ScalarFunctionsTest, CaseTreatsANullConditionAsNotTrue) {
  // CASE WHEN b THEN 'yes' WHEN NOT b THEN 'no' END (no ELSE: the binder passes NULL).
  Chunk input = chunkOf(column(LogicalType::boolean(), {"t", "f", std::nullopt}));
  auto b = [] { return ref(0, LogicalType::boolean(), "b"); };
  auto expression = call(ScalarFunction::kCase, LogicalType::text(), b(), text("yes"),
                         call(ScalarFunction::kNot, LogicalType::boolean(), b()), text("no"),
                         constant(Value::null(LogicalType::text())));
  EXPECT_EQ(evaluate(*expression, input), (std::vector<std::string>{"yes", "no", "NULL"}));
  EXPECT_EQ(expression->toString(), "CASE WHEN b THEN 'yes' WHEN (NOT b) THEN 'no' ELSE NULL END");
  // The first TRUE condition wins even when a later one is also TRUE.
  auto first = call(ScalarFunction::kCase, LogicalType::integer(), b(), integer(1), b(), integer(2), integer(3));
  EXPECT_EQ(evaluate(*first, input), (std::vector<std::string>{"1", "3", "3"}));
}

TEST(ScalarFunctionsTest, CaseScattersLongStringsAcrossWholeVectors) {
  // 3000 rows (more than a vector) choose between two long-string columns by row % 3.
  constexpr size_t kRows = 3000;
  Rows numbers;
  Rows left;
  Rows right;
  for (size_t row = 0; row < kRows; ++row) {
    numbers.push_back(row % 11 == 0 ? std::nullopt : std::optional<std::string>(std::to_string(row)));
    left.push_back("left value number " + std::to_string(row));
    right.push_back(row % 5 == 0 ? std::nullopt
                                 : std::optional<std::string>("right value number " + std::to_string(row)));
  }
  Chunk input = chunkOf(column(LogicalType::integer(), numbers), column(LogicalType::text(), left),
                        column(LogicalType::text(), right));
  LogicalType integerType = LogicalType::integer();
  auto expression = call(ScalarFunction::kCase, LogicalType::text(),
                         binary(ScalarFunction::kEqual, LogicalType::boolean(),
                                binary(ScalarFunction::kModulo, integerType, x(), integer(3)), integer(0)),
                         ref(1, LogicalType::text(), "l"), ref(2, LogicalType::text(), "r"));
  std::vector<std::string> result = evaluate(*expression, input);
  for (size_t row = 0; row < kRows; ++row) {
    bool takesLeft = row % 11 != 0 && row % 3 == 0;
    std::string expected = takesLeft ? *left[row] : right[row].value_or("NULL");
    ASSERT_EQ(result[row], expected) << row;
  }
}

TEST(ScalarFunctionsTest, CaseOnAnEmptyChunk) {
  Chunk input = chunkOf(column(LogicalType::integer(), {}));
  auto expression = call(ScalarFunction::kCase, LogicalType::integer(),
                         binary(ScalarFunction::kEqual, LogicalType::boolean(), x(), integer(0)), integer(1), x());
  EXPECT_TRUE(evaluate(*expression, input).empty());
}

// --- coalesce ---

TEST(ScalarFunctionsTest, CoalesceTakesTheFirstNonNull) {
  Chunk input = chunkOf(column(LogicalType::text(), {"a", std::nullopt, std::nullopt, "a long first value here"}),
                        column(LogicalType::text(), {"b", "b", std::nullopt, std::nullopt}));
  auto a = [] { return ref(0, LogicalType::text(), "a"); };
  auto b = [] { return ref(1, LogicalType::text(), "b"); };
  auto withDefault = call(ScalarFunction::kCoalesce, LogicalType::text(), a(), b(), text("z"));
  EXPECT_EQ(evaluate(*withDefault, input), (std::vector<std::string>{"a", "b", "z", "a long first value here"}));
  EXPECT_EQ(withDefault->toString(), "coalesce(a, b, 'z')");
  auto withoutDefault = call(ScalarFunction::kCoalesce, LogicalType::text(), a(), b());
  EXPECT_EQ(evaluate(*withoutDefault, input), (std::vector<std::string>{"a", "b", "NULL", "a long first value here"}));
  auto single = call(ScalarFunction::kCoalesce, LogicalType::text(), b());
  EXPECT_EQ(evaluate(*single, input), (std::vector<std::string>{"b", "b", "NULL", "NULL"}));
  auto nullFirst =
      call(ScalarFunction::kCoalesce, LogicalType::text(), constant(Value::null(LogicalType::text())), a());
  EXPECT_EQ(evaluate(*nullFirst, input), (std::vector<std::string>{"a", "NULL", "NULL", "a long first value here"}));
}

TEST(ScalarFunctionsTest, CoalesceEvaluatesLaterArgumentsOnlyForRowsStillNull) {
  // coalesce(x, 8 / (x - x)): the division runs only where x is NULL, and NULL - NULL is NULL.
  Chunk input = integerInput();
  LogicalType integerType = LogicalType::integer();
  auto expression = call(ScalarFunction::kCoalesce, integerType, x(),
                         binary(ScalarFunction::kDivide, integerType, integer(8),
                                binary(ScalarFunction::kSubtract, integerType, x(), x())),
                         integer(-1));
  EXPECT_EQ(evaluate(*expression, input), (std::vector<std::string>{"0", "2", "-1", "4", "0"}));
  // coalesce(8 / x, 0) still fails: its first argument runs on every row.
  auto eager = call(ScalarFunction::kCoalesce, integerType,
                    binary(ScalarFunction::kDivide, integerType, integer(8), x()), integer(0));
  EXPECT_EQ(errorOf(*eager, input), SqlState::kDivisionByZero);
}

// --- EXTRACT ---

TEST(ScalarFunctionsTest, ExtractReadsDateFields) {
  Chunk input = chunkOf(column(LogicalType::date(), {"2024-02-29", "1970-01-01", "1999-12-31", std::nullopt,
                                                     "0001-01-01 BC", "0044-03-15 BC", "5874897-12-31"}));
  auto d = [] { return ref(0, LogicalType::date(), "d"); };
  auto year = call(ScalarFunction::kExtractYear, LogicalType::bigInt(), d());
  auto month = call(ScalarFunction::kExtractMonth, LogicalType::bigInt(), d());
  auto day = call(ScalarFunction::kExtractDay, LogicalType::bigInt(), d());
  EXPECT_EQ(evaluate(*year, input), (std::vector<std::string>{"2024", "1970", "1999", "NULL", "-1", "-44", "5874897"}));
  EXPECT_EQ(evaluate(*month, input), (std::vector<std::string>{"2", "1", "12", "NULL", "1", "3", "12"}));
  EXPECT_EQ(evaluate(*day, input), (std::vector<std::string>{"29", "1", "31", "NULL", "1", "15", "31"}));
  EXPECT_EQ(engine::ExpressionEvaluator().evaluate(*year, input).type(), LogicalType::bigInt());
  EXPECT_EQ(year->toString(), "EXTRACT(YEAR FROM d)");
  EXPECT_EQ(month->toString(), "EXTRACT(MONTH FROM d)");
  EXPECT_EQ(day->toString(), "EXTRACT(DAY FROM d)");
}

// --- substring ---

/// substring(s, start [, length]) of one row; nullopt arguments are NULL.
std::string substring(std::optional<std::string> value, std::optional<int32_t> start,
                      std::optional<std::optional<int32_t>> length = std::nullopt) {
  auto integerOrNull = [](std::optional<int32_t> number) {
    return constant(number ? Value::integer(*number) : Value::null(LogicalType::integer()));
  };
  std::vector<ExpressionPtr> arguments;
  arguments.push_back(ref(0, LogicalType::text(), "s"));
  arguments.push_back(integerOrNull(start));
  if (length.has_value()) arguments.push_back(integerOrNull(*length));
  FunctionExpression expression(ScalarFunction::kSubstring, std::move(arguments), LogicalType::text());
  return evaluate(expression, chunkOf(column(LogicalType::text(), {value}))).at(0);
}

std::string_view substringError(std::string value, int32_t start, int32_t length) {
  auto expression = call(ScalarFunction::kSubstring, LogicalType::text(), ref(0, LogicalType::text(), "s"),
                         integer(start), integer(length));
  return errorOf(*expression, chunkOf(column(LogicalType::text(), {value})));
}

TEST(ScalarFunctionsTest, SubstringFollowsPostgres) {
  EXPECT_EQ(substring("hello", 2), "ello");
  EXPECT_EQ(substring("hello", 2, 3), "ell");
  EXPECT_EQ(substring("hello", 1, 5), "hello");
  EXPECT_EQ(substring("hello", 1, 50), "hello");
  EXPECT_EQ(substring("hello", 0, 3), "he");
  EXPECT_EQ(substring("hello", -1, 3), "h");
  EXPECT_EQ(substring("hello", -5, 3), "");
  EXPECT_EQ(substring("hello", -5), "hello");
  EXPECT_EQ(substring("hello", 5, 1), "o");
  EXPECT_EQ(substring("hello", 6), "");
  EXPECT_EQ(substring("hello", 10, 2), "");
  EXPECT_EQ(substring("hello", 3, 0), "");
  EXPECT_EQ(substring("", 1, 1), "");
  EXPECT_EQ(substring("hello", INT_MIN, INT_MAX), "");
  EXPECT_EQ(substring("hello", 3, INT_MAX), "llo");
  EXPECT_EQ(substring("hello", INT_MAX, INT_MAX), "");
  // Positions count characters, not bytes.
  EXPECT_EQ(substring("héllo wörld", 2, 3), "éll");
  EXPECT_EQ(substring("日本語テキスト", 3), "語テキスト");
  EXPECT_EQ(substring("日本語テキスト", 0, 3), "日本");
  EXPECT_EQ(substring("a long string that is not inline at all", 3, 4), "long");
  // NULL in, NULL out; a NULL row never reaches the length check.
  EXPECT_EQ(substring(std::nullopt, 1, 2), "NULL");
  EXPECT_EQ(substring("hello", std::nullopt, 2), "NULL");
  EXPECT_EQ(substring("hello", 1, std::optional<int32_t>()), "NULL");
  EXPECT_EQ(substring(std::nullopt, 1, -1), "NULL");
  EXPECT_EQ(substringError("hello", 1, -1), SqlState::kSubstringError);
  EXPECT_EQ(substringError("hello", 1, INT_MIN), SqlState::kSubstringError);
}

TEST(ScalarFunctionsTest, SubstringOfCharDropsPadding) {
  // CHAR(n) values are stored without their padding, and substring sees them so (as text).
  Chunk input = chunkOf(column(LogicalType::character(15), {"25-989-741-2988", "13-761"}));
  auto expression = call(ScalarFunction::kSubstring, LogicalType::text(), ref(0, LogicalType::character(15), "c_phone"),
                         integer(1), integer(2));
  EXPECT_EQ(evaluate(*expression, input), (std::vector<std::string>{"25", "13"}));
  EXPECT_EQ(expression->toString(), "substring(c_phone, 1, 2)");
}

// --- date + months ---

std::string addMonths(std::optional<std::string> date, std::optional<int32_t> months) {
  auto expression = call(ScalarFunction::kDateAddMonths, LogicalType::date(), ref(0, LogicalType::date(), "d"),
                         constant(months ? Value::integer(*months) : Value::null(LogicalType::integer())));
  return evaluate(*expression, chunkOf(column(LogicalType::date(), {date}))).at(0);
}

std::string_view addMonthsError(std::string date, int32_t months) {
  auto expression =
      call(ScalarFunction::kDateAddMonths, LogicalType::date(), ref(0, LogicalType::date(), "d"), integer(months));
  return errorOf(*expression, chunkOf(column(LogicalType::date(), {date})));
}

TEST(ScalarFunctionsTest, DateAddMonthsClampsToTheEndOfTheMonth) {
  EXPECT_EQ(addMonths("2024-01-15", 1), "2024-02-15");
  EXPECT_EQ(addMonths("2024-01-31", 1), "2024-02-29");  // leap year
  EXPECT_EQ(addMonths("2023-01-31", 1), "2023-02-28");
  EXPECT_EQ(addMonths("2024-03-31", -1), "2024-02-29");
  EXPECT_EQ(addMonths("2024-03-31", 1), "2024-04-30");
  EXPECT_EQ(addMonths("2024-02-29", 12), "2025-02-28");
  EXPECT_EQ(addMonths("2024-02-29", 48), "2028-02-29");
  EXPECT_EQ(addMonths("1900-01-31", 1), "1900-02-28");  // divisible by 100: not a leap year
  EXPECT_EQ(addMonths("2000-01-31", 1), "2000-02-29");  // divisible by 400: a leap year
  EXPECT_EQ(addMonths("2024-12-31", 2), "2025-02-28");
  EXPECT_EQ(addMonths("2024-05-15", -17), "2022-12-15");
  EXPECT_EQ(addMonths("2024-05-15", 0), "2024-05-15");
  EXPECT_EQ(addMonths("1995-03-01", 3), "1995-06-01");  // TPC-H: date '1995-03-01' + interval '3' month
  EXPECT_EQ(addMonths("0001-01-15", -1), "0001-12-15 BC");
  EXPECT_EQ(addMonths("0001-03-31 BC", -1), "0001-02-29 BC");  // 1 BC is a leap year (year 0)
  EXPECT_EQ(addMonths(std::nullopt, 1), "NULL");
  EXPECT_EQ(addMonths("2024-01-31", std::nullopt), "NULL");
  EXPECT_EQ(addMonths("5874897-11-30", 1), "5874897-12-30");
  EXPECT_EQ(addMonthsError("5874897-12-01", 1), SqlState::kDatetimeFieldOverflow);
  EXPECT_EQ(addMonthsError("4713-12-23 BC", -1), SqlState::kDatetimeFieldOverflow);
  EXPECT_EQ(addMonthsError("2024-01-01", INT_MAX), SqlState::kDatetimeFieldOverflow);
  EXPECT_EQ(addMonthsError("2024-01-01", INT_MIN), SqlState::kDatetimeFieldOverflow);
}

// --- EXPLAIN text and plans ---

TEST(ScalarFunctionsTest, ExplainText) {
  auto s = [] { return ref(0, LogicalType::text(), "a"); };
  EXPECT_EQ(call(ScalarFunction::kLike, LogicalType::boolean(), s(), text("x%"))->toString(), "(a LIKE 'x%')");
  EXPECT_EQ(call(ScalarFunction::kNotLike, LogicalType::boolean(), s(), text("x"))->toString(), "(a NOT LIKE 'x')");
  EXPECT_EQ(call(ScalarFunction::kDateAddMonths, LogicalType::date(), ref(0, LogicalType::date(), "d"), integer(3))
                ->toString(),
            "date_add_months(d, 3)");
  EXPECT_EQ(call(ScalarFunction::kSubstring, LogicalType::text(), s(), integer(2))->toString(), "substring(a, 2)");
}

/// One expression per new function, reading (a text, d date, x integer, b boolean).
std::vector<ExpressionPtr> newFunctionExamples() {
  auto a = [] { return ref(0, LogicalType::text(), "a"); };
  auto d = [] { return ref(1, LogicalType::date(), "d"); };
  auto n = [] { return ref(2, LogicalType::integer(), "x"); };
  auto b = [] { return ref(3, LogicalType::boolean(), "b"); };
  std::vector<ExpressionPtr> examples;
  examples.push_back(call(ScalarFunction::kLike, LogicalType::boolean(), a(), text("%x_")));
  examples.push_back(call(ScalarFunction::kNotLike, LogicalType::boolean(), a(), text("x%")));
  examples.push_back(
      call(ScalarFunction::kCase, LogicalType::integer(), b(), n(), constant(Value::null(LogicalType::integer()))));
  examples.push_back(call(ScalarFunction::kCoalesce, LogicalType::integer(), n(), integer(0)));
  examples.push_back(call(ScalarFunction::kExtractYear, LogicalType::bigInt(), d()));
  examples.push_back(call(ScalarFunction::kExtractMonth, LogicalType::bigInt(), d()));
  examples.push_back(call(ScalarFunction::kExtractDay, LogicalType::bigInt(), d()));
  examples.push_back(call(ScalarFunction::kSubstring, LogicalType::text(), a(), integer(1), n()));
  examples.push_back(call(ScalarFunction::kDateAddMonths, LogicalType::date(), d(), n()));
  examples.push_back(call(ScalarFunction::kAverageOfSum, LogicalType::decimal(38, 16),
                          ref(4, LogicalType::decimal(38, 2), "s"), ref(5, LogicalType::bigInt(), "c")));
  examples.push_back(call(ScalarFunction::kRegexMatch, LogicalType::boolean(), a(), text("^x")));
  examples.push_back(call(ScalarFunction::kRegexNotMatch, LogicalType::boolean(), a(), text("^x")));
  examples.push_back(call(ScalarFunction::kRegexMatchInsensitive, LogicalType::boolean(), a(), text("^x")));
  examples.push_back(call(ScalarFunction::kRegexNotMatchInsensitive, LogicalType::boolean(), a(), text("X")));
  examples.push_back(call(ScalarFunction::kLikeEscape, LogicalType::text(), a(), text("/")));
  const LogicalType intArray = LogicalType::array(LogicalType::integer());
  auto arr = [&] { return ref(6, intArray, "arr"); };
  examples.push_back(call(ScalarFunction::kArrayConstruct, intArray, n(), integer(2)));
  examples.push_back(call(ScalarFunction::kArrayToString, LogicalType::text(), arr(), text(",")));
  examples.push_back(call(ScalarFunction::kArrayLength, LogicalType::integer(), arr(), integer(1)));
  examples.push_back(call(ScalarFunction::kArrayLower, LogicalType::integer(), arr(), integer(1)));
  examples.push_back(call(ScalarFunction::kArrayUpper, LogicalType::integer(), arr(), integer(1)));
  examples.push_back(call(ScalarFunction::kCardinality, LogicalType::integer(), arr()));
  examples.push_back(call(ScalarFunction::kArraySubscript, LogicalType::integer(), arr(), n()));
  examples.push_back(call(ScalarFunction::kArrayConcat, intArray, arr(), arr()));
  examples.push_back(call(ScalarFunction::kArrayAppend, intArray, arr(), n()));
  examples.push_back(call(ScalarFunction::kArrayPrepend, intArray, n(), arr()));
  examples.push_back(call(ScalarFunction::kCompareAny, LogicalType::boolean(), n(), arr(),
                          integer(static_cast<int32_t>(ScalarFunction::kEqual))));
  examples.push_back(call(ScalarFunction::kCompareAll, LogicalType::boolean(), n(), arr(),
                          integer(static_cast<int32_t>(ScalarFunction::kLess))));
  examples.push_back(call(ScalarFunction::kReplace, LogicalType::text(), a(), text("x"), text("yz")));
  examples.push_back(call(ScalarFunction::kQuoteIdent, LogicalType::text(), a()));
  examples.push_back(call(ScalarFunction::kQuoteLiteral, LogicalType::text(), a()));
  examples.push_back(call(ScalarFunction::kQuoteNullable, LogicalType::text(), a()));
  examples.push_back(call(ScalarFunction::kFormat, LogicalType::text(), text("%I.%s"), a(), a()));
  examples.push_back(call(ScalarFunction::kJsonBuildObject, LogicalType::json(), text("k"), n()));
  auto t = [] { return ref(7, LogicalType::timestampTz(), "t"); };
  auto zone = [] { return text("Asia/Kolkata"); };
  auto field = [] { return integer(static_cast<int32_t>(engine::TimestampField::kHour)); };
  auto bigint = [](int64_t value) { return constant(Value::bigInt(value)); };
  examples.push_back(call(ScalarFunction::kTimestampPart, LogicalType::decimal(20, 6), t(), field(), zone()));
  examples.push_back(call(ScalarFunction::kTimestampTrunc, LogicalType::timestampTz(), t(), field(), zone()));
  auto interval = [] { return constant(Value::interval(engine::packInterval(engine::Interval{1, 2, 3}))); };
  auto real = [] { return constant(Value::doublePrecision(2.5)); };
  examples.push_back(call(ScalarFunction::kTimestampAddInterval, LogicalType::timestampTz(), t(), interval(), zone()));
  auto price = [] { return ref(4, LogicalType::decimal(38, 2), "p"); };
  examples.push_back(call(ScalarFunction::kAbs, LogicalType::integer(), n()));
  examples.push_back(call(ScalarFunction::kSign, LogicalType::decimal(1, 0), price()));
  examples.push_back(call(ScalarFunction::kCeil, LogicalType::decimal(37, 0), price()));
  examples.push_back(call(ScalarFunction::kFloor, LogicalType::doublePrecision(), real()));
  examples.push_back(call(ScalarFunction::kRound, LogicalType::decimal(38, 1), price(), integer(1)));
  examples.push_back(call(ScalarFunction::kTrunc, LogicalType::doublePrecision(), real(), integer(0)));
  for (auto function : {ScalarFunction::kSqrt, ScalarFunction::kCbrt, ScalarFunction::kExp, ScalarFunction::kLn,
                        ScalarFunction::kLog10}) {
    examples.push_back(call(function, LogicalType::doublePrecision(), real()));
  }
  examples.push_back(call(ScalarFunction::kPower, LogicalType::doublePrecision(), real(), real()));
  examples.push_back(call(ScalarFunction::kConcatValues, LogicalType::text(), a(), text("-"), a()));
  examples.push_back(call(ScalarFunction::kConcatWithSeparator, LogicalType::text(), text(","), a(), a()));
  for (auto function : {ScalarFunction::kLeftPad, ScalarFunction::kRightPad}) {
    examples.push_back(call(function, LogicalType::text(), a(), n(), text("*")));
  }
  for (auto function : {ScalarFunction::kTrimBoth, ScalarFunction::kTrimLeading, ScalarFunction::kTrimTrailing,
                        ScalarFunction::kStrpos, ScalarFunction::kStartsWith}) {
    examples.push_back(call(function, LogicalType::text(), a(), text("x")));
  }
  examples.push_back(call(ScalarFunction::kSplitPart, LogicalType::text(), a(), text("@"), n()));
  for (auto function :
       {ScalarFunction::kInitcap, ScalarFunction::kReverse, ScalarFunction::kMd5, ScalarFunction::kAscii}) {
    examples.push_back(call(function, LogicalType::text(), a()));
  }
  for (auto function : {ScalarFunction::kRepeat, ScalarFunction::kLeft, ScalarFunction::kRight}) {
    examples.push_back(call(function, LogicalType::text(), a(), n()));
  }
  examples.push_back(call(ScalarFunction::kChr, LogicalType::text(), n()));
  examples.push_back(call(ScalarFunction::kToHex, LogicalType::text(), n()));
  examples.push_back(call(ScalarFunction::kRegexReplace, LogicalType::text(), a(), text("b+"), text("\\&"), text("g")));
  examples.push_back(
      call(ScalarFunction::kRegexMatchArray, LogicalType::array(LogicalType::text()), a(), text("(b)"), text("")));
  examples.push_back(call(ScalarFunction::kInSet, LogicalType::boolean(), n(), arr()));
  examples.push_back(call(ScalarFunction::kNumericVariance, LogicalType::decimal(38, 16),
                          ref(5, LogicalType::bigInt(), "count"), ref(4, LogicalType::decimal(38, 2), "sum"),
                          ref(4, LogicalType::decimal(38, 2), "squares"),
                          std::make_unique<engine::ConstantExpression>(engine::Value::integer(3))));
  examples.push_back(call(ScalarFunction::kDateTimeToChar, LogicalType::text(),
                          ref(7, LogicalType::timestampTz(), "at"), text("YYYY-MM"), text("UTC")));
  examples.push_back(call(ScalarFunction::kIntervalAdd, LogicalType::interval(), interval(), interval()));
  examples.push_back(call(ScalarFunction::kIntervalSubtract, LogicalType::interval(), interval(), interval()));
  examples.push_back(call(ScalarFunction::kIntervalNegate, LogicalType::interval(), interval()));
  examples.push_back(call(ScalarFunction::kIntervalMultiply, LogicalType::interval(), interval(), real()));
  examples.push_back(call(ScalarFunction::kIntervalDivide, LogicalType::interval(), interval(), real()));
  examples.push_back(call(ScalarFunction::kTimestampDifference, LogicalType::interval(), t(), t()));
  examples.push_back(call(ScalarFunction::kTimestampAge, LogicalType::interval(), t(), t(), zone()));
  examples.push_back(call(ScalarFunction::kIntervalJustify, LogicalType::interval(), interval(), integer(2)));
  examples.push_back(call(ScalarFunction::kMakeInterval, LogicalType::interval(), integer(1), integer(2), integer(3),
                          integer(4), integer(5), integer(6), real()));
  examples.push_back(call(ScalarFunction::kIntervalPart, LogicalType::decimal(38, 6), interval(), field()));
  examples.push_back(call(ScalarFunction::kIntervalTrunc, LogicalType::interval(), interval(), field()));
  examples.push_back(call(ScalarFunction::kIntervalComponent, LogicalType::bigInt(), interval(), integer(1)));
  examples.push_back(
      call(ScalarFunction::kIntervalFromComponents, LogicalType::interval(), bigint(1), bigint(2), bigint(3)));
  examples.push_back(call(ScalarFunction::kMakeDate, LogicalType::date(), integer(2024), integer(2), integer(29)));
  examples.push_back(call(ScalarFunction::kMakeTimestamp, LogicalType::timestampTz(), integer(2024), integer(2),
                          integer(29), integer(1), integer(2), real(), zone()));
  examples.push_back(call(ScalarFunction::kToTimestamp, LogicalType::timestampTz(), real()));
  auto document = [] { return constant(Value::varchar("{\"a\": [1, 2]}", LogicalType::jsonb())); };
  auto path = [] { return constant(engine::makeArrayValue({}, LogicalType::array(LogicalType::text()))); };
  examples.push_back(call(ScalarFunction::kJsonGet, LogicalType::jsonb(), document(), text("a")));
  examples.push_back(call(ScalarFunction::kJsonGetText, LogicalType::text(), document(), integer(0)));
  examples.push_back(call(ScalarFunction::kJsonPath, LogicalType::jsonb(), document(), path()));
  examples.push_back(call(ScalarFunction::kJsonPathText, LogicalType::text(), document(), path()));
  examples.push_back(call(ScalarFunction::kJsonTypeOf, LogicalType::text(), document()));
  examples.push_back(call(ScalarFunction::kJsonbCompare, LogicalType::integer(), document(), document()));
  examples.push_back(call(ScalarFunction::kJsonbSortKey, LogicalType::bytea(), document()));
  examples.push_back(call(ScalarFunction::kMakeTime, LogicalType::time(), integer(1), integer(2), real()));
  examples.push_back(call(ScalarFunction::kRandom, LogicalType::doublePrecision(), bigint(0)));
  examples.push_back(call(ScalarFunction::kWidthBucket, LogicalType::integer(), real(), real(), real(), integer(3)));
  examples.push_back(call(ScalarFunction::kGenRandomUuid, LogicalType::uuid()));
  examples.push_back(call(ScalarFunction::kDateTimeFromChar, LogicalType::date(), text("2024-01-05"),
                          text("YYYY-MM-DD"), zone(), integer(1)));
  examples.push_back(call(ScalarFunction::kOctetLength, LogicalType::integer(), text("abc")));
  examples.push_back(call(ScalarFunction::kByteaEncode, LogicalType::text(), text("abc"), text("hex")));
  examples.push_back(call(ScalarFunction::kByteaDecode, LogicalType::bytea(), text("616263"), text("hex")));
  examples.push_back(call(ScalarFunction::kByteaSubstring, LogicalType::bytea(), text("abc"), integer(2)));
  examples.push_back(call(ScalarFunction::kNumberToChar, LogicalType::text(), integer(7), text("FM9,999.00")));
  examples.push_back(call(ScalarFunction::kRecordConstruct, LogicalType::record(1), text("a"), text("1")));
  examples.push_back(call(ScalarFunction::kRecordField, LogicalType::text(), text("a"), bigint(0)));
  examples.push_back(call(ScalarFunction::kBitNot, LogicalType::integer(), integer(6)));
  for (auto bit : {ScalarFunction::kBitAnd, ScalarFunction::kBitOr, ScalarFunction::kBitXor, ScalarFunction::kShiftLeft,
                   ScalarFunction::kShiftRight}) {
    examples.push_back(call(bit, LogicalType::integer(), integer(6), integer(3)));
  }
  return examples;
}

TEST(ScalarFunctionsTest, NewFunctionsRoundTripThroughPlans) {
  std::vector<LogicalType> columnTypes = {LogicalType::text(),
                                          LogicalType::date(),
                                          LogicalType::integer(),
                                          LogicalType::boolean(),
                                          LogicalType::decimal(38, 2),
                                          LogicalType::bigInt(),
                                          LogicalType::array(LogicalType::integer()),
                                          LogicalType::timestampTz()};
  auto examples = newFunctionExamples();
  ASSERT_NE(examples.back()->toString().find(">>"), std::string::npos);
  EXPECT_EQ(static_cast<const FunctionExpression&>(*examples.back()).function(), engine::kLastScalarFunction);
  for (const auto& example : examples) {
    proto::ExpressionProto encoded = proto::encodeExpression(*example, {});
    ExpressionPtr decoded = proto::decodeExpression(encoded, columnTypes);
    ASSERT_EQ(decoded->kind(), engine::ExpressionKind::kFunction);
    EXPECT_EQ(static_cast<const FunctionExpression&>(*decoded).function(),
              static_cast<const FunctionExpression&>(*example).function());
    EXPECT_EQ(decoded->type(), example->type());
    EXPECT_EQ(decoded->toString(), example->toString());
  }
  // One past the last function is rejected.
  proto::ExpressionProto unknown = proto::encodeExpression(*examples.back(), {});
  unknown.mutable_function()->set_function(static_cast<uint32_t>(engine::kLastScalarFunction) + 1);
  EXPECT_THROW(proto::decodeExpression(unknown, columnTypes), ShoalError);
}

// A distributed AVG: each node's SUM and COUNT, summed at the final step, then divided there. The quotient must
// round exactly as AVG over all the rows does.
TEST(ScalarFunctionsTest, AverageOfSumRoundsAsAvgDoes) {
  const LogicalType sumType = LogicalType::decimal(38, 2);
  const LogicalType avgType = engine::aggregateResultType(engine::AggregateFunction::kAvg, LogicalType::decimal(15, 2));
  // The rows 1.00, 1.00, 0.01 (sum 2.01 over 3), -2.00 and 1.00 (sum -1.00 over 2), a group of no rows, a NULL sum.
  Chunk input = chunkOf(column(sumType, {"2.01", "-1.00", "0.00", std::nullopt}),
                        column(LogicalType::bigInt(), {"3", "2", "0", "4"}));
  auto average = call(ScalarFunction::kAverageOfSum, avgType, ref(0, sumType, "s"), ref(1, LogicalType::bigInt(), "c"));
  std::vector<std::string> expected;
  for (const auto& rows : std::vector<std::vector<std::string>>{{"1.00", "1.00", "0.01"}, {"-2.00", "1.00"}}) {
    engine::ScalarAggregate avg(engine::AggregateFunction::kAvg, LogicalType::decimal(15, 2), avgType);
    Vector values = column(LogicalType::decimal(15, 2), Rows(rows.begin(), rows.end()));
    avg.update(&values, rows.size());
    expected.push_back(avg.finalize().toString());
  }
  expected.push_back("NULL");
  expected.push_back("NULL");
  EXPECT_EQ(evaluate(*average, input), expected);
  EXPECT_EQ(expected[0], "0.6700000000000000");
}

}  // namespace
}  // namespace shoal
