#pragma once

#include <cstddef>
#include <string>

namespace shoal::sql {

/// An upper bound of how deeply PostgreSQL's grammar nests the parse tree of `text`, from its tokens
/// alone (the scanner does not recurse, however deep the text). Within one bracket level, each operator or
/// keyword since the last comma, AND or OR may add a level (a chain `1+1+...` nests once per operator);
/// commas, AND and OR start a new run, since lists and PostgreSQL's AND/OR lists are flat. Fails with
/// 42601 on text the scanner rejects.
size_t estimateNestingDepth(const std::string& text);

/// Makes sure that parsing `text` cannot overflow the calling thread's stack: libpg_query walks its tree
/// recursively without a depth check of its own, and a deep text would crash the process. Fails with
/// 54001 when the thread's real remaining stack is too small for the text's nesting estimate; short texts
/// (which cannot nest deeply enough to matter) skip the scan.
void checkParserStack(const std::string& text);

}  // namespace shoal::sql
