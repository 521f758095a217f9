// COPY's text parsing throughput: TPC-H lineitem through DelimitedTextParser on one thread, in the 8 MB blocks
// of whole lines that the loader hands each thread. Reports bytes/s, i.e. MB/s per core (Google Benchmark
// prints it in MiB/s: "M/s" counts 2^20 bytes). BM_ParseAndStoreLineitemTbl adds what a load does next on
// the worker that owns the rows: segments built and encoded, zone maps and statistics (no disk).
//
// Reads $SHOAL_LINEITEM_TBL, or generates lineitem at SF 0.1 once into a temporary directory with tpchgen-cli
// (on PATH, else in the .venv above the executable or the working directory). Run with `make bench`.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "worker/storage/delimited_text_parser.h"
#include "worker/storage/storage_manager.h"

namespace {

namespace fs = std::filesystem;
using namespace shoal;

constexpr size_t kBlockBytes = 8 << 20;  // as worker/loading/text_loader.cpp cuts files

std::vector<engine::LogicalType> lineitemTypes() {
  using engine::LogicalType;
  return {LogicalType::bigInt(),       LogicalType::integer(),      LogicalType::integer(),
          LogicalType::integer(),      LogicalType::decimal(15, 2), LogicalType::decimal(15, 2),
          LogicalType::decimal(15, 2), LogicalType::decimal(15, 2), LogicalType::character(1),
          LogicalType::character(1),   LogicalType::date(),         LogicalType::date(),
          LogicalType::date(),         LogicalType::character(25),  LogicalType::character(10),
          LogicalType::varchar(44)};
}

std::vector<std::string> lineitemNames() {
  return {"l_orderkey",    "l_partkey",      "l_suppkey",    "l_linenumber", "l_quantity", "l_extendedprice",
          "l_discount",    "l_tax",          "l_returnflag", "l_linestatus", "l_shipdate", "l_commitdate",
          "l_receiptdate", "l_shipinstruct", "l_shipmode",   "l_comment"};
}

/// tpchgen-cli on PATH, else in a .venv above the executable or the working directory (as
/// cli/local_cluster.cpp looks for it); empty if none.
std::string findGenerator() {
  if (const char* path = std::getenv("PATH")) {
    std::stringstream paths(path);
    for (std::string directory; std::getline(paths, directory, ':');) {
      fs::path candidate = fs::path(directory) / "tpchgen-cli";
      if (!directory.empty() && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    }
  }
  std::error_code error;
  fs::path executable = fs::read_symlink("/proc/self/exe", error);
  for (fs::path start : {executable.parent_path(), fs::current_path()}) {
    for (fs::path directory = start; !directory.empty(); directory = directory.parent_path()) {
      fs::path candidate = directory / ".venv" / "bin" / "tpchgen-cli";
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      if (directory == directory.parent_path()) break;
    }
  }
  return {};
}

/// The path of lineitem.tbl: $SHOAL_LINEITEM_TBL, or one generated at SF 0.1 (kept for later runs).
std::string lineitemPath() {
  if (const char* path = std::getenv("SHOAL_LINEITEM_TBL")) return path;
  fs::path directory = fs::temp_directory_path() / "shoal-copy-parse-bench-sf0.1";
  fs::path file = directory / "lineitem.tbl";
  if (fs::exists(file)) return file.string();
  std::string generator = findGenerator();
  if (generator.empty()) {
    std::cerr << "copy_parse_bench: tpchgen-cli not found; set SHOAL_LINEITEM_TBL or run `make deps`\n";
    std::exit(1);
  }
  fs::create_directories(directory);
  // Generate into a scratch name and rename, so that an interrupted run leaves no truncated file behind.
  fs::path scratch = directory / ("tmp-" + std::to_string(::getpid()));
  std::string command = "'" + generator + "' tbl -s 0.1 -T lineitem --quiet --output-dir '" + scratch.string() + "'";
  std::cerr << "copy_parse_bench: generating " << file << "\n";
  if (std::system(command.c_str()) != 0 || !fs::exists(scratch / "lineitem.tbl")) {
    std::cerr << "copy_parse_bench: failed: " << command << "\n";
    std::exit(1);
  }
  fs::rename(scratch / "lineitem.tbl", file);
  fs::remove_all(scratch);
  return file.string();
}

const std::string& lineitemTbl() {
  static const std::string text = [] {
    std::string path = lineitemPath();
    std::ifstream in(path, std::ios::binary);
    std::error_code error;
    std::string contents(fs::file_size(path, error), '\0');
    if (!in || error || !in.read(contents.data(), static_cast<std::streamsize>(contents.size()))) {
      std::cerr << "copy_parse_bench: cannot read " << path << "\n";
      std::exit(1);
    }
    return contents;
  }();
  return text;
}

/// The same rows as CSV: ',' between fields, none after the last, fields with a ',' or '"' quoted.
const std::string& lineitemCsv() {
  static const std::string text = [] {
    const std::string& tbl = lineitemTbl();
    std::string csv;
    csv.reserve(tbl.size() + tbl.size() / 16);
    size_t position = 0;
    while (position < tbl.size()) {
      size_t lineEnd = tbl.find('\n', position);
      if (lineEnd == std::string::npos) lineEnd = tbl.size();
      std::string_view line(tbl.data() + position, lineEnd - position);
      if (line.ends_with('|')) line.remove_suffix(1);
      bool first = true;
      while (true) {
        size_t bar = line.find('|');
        std::string_view field = line.substr(0, bar);
        if (!first) csv += ',';
        first = false;
        if (field.find_first_of(",\"") == std::string_view::npos) {
          csv += field;
        } else {
          csv += '"';
          for (char c : field) csv.append(c == '"' ? 2 : 1, c);
          csv += '"';
        }
        if (bar == std::string_view::npos) break;
        line.remove_prefix(bar + 1);
      }
      csv += '\n';
      position = lineEnd + 1;
    }
    return csv;
  }();
  return text;
}

/// The same rows in PostgreSQL's text format (what COPY TO writes): tabs between fields; a tab or backslash in a
/// field would be escaped, and the TPC-H text has none.
const std::string& lineitemText() {
  static const std::string text = [] {
    std::string result = lineitemTbl();
    size_t out = 0;
    for (size_t in = 0; in < result.size(); ++in) {
      char c = result[in];
      if (c == '|' && (in + 1 == result.size() || result[in + 1] == '\n')) continue;  // .tbl's last '|'
      result[out++] = c == '|' ? '\t' : c;
    }
    result.resize(out);
    return result;
  }();
  return text;
}

struct Block {
  std::string_view bytes;
  uint64_t firstLine;
};

/// Cuts `text` into blocks of at most kBlockBytes of whole lines, as the loader does.
std::vector<Block> cutBlocks(std::string_view text, const worker::TextFormatOptions& options) {
  std::vector<Block> blocks;
  uint64_t line = 1;
  while (!text.empty()) {
    size_t end =
        text.size() <= kBlockBytes ? text.size() : worker::endOfLastCompleteLine(text.substr(0, kBlockBytes), options);
    if (end == 0) end = text.size();  // a line longer than a block: take the rest
    std::string_view bytes = text.substr(0, end);
    blocks.push_back({bytes, line});
    line += static_cast<uint64_t>(std::count(bytes.begin(), bytes.end(), '\n'));
    text.remove_prefix(end);
  }
  return blocks;
}

void parseLineitem(benchmark::State& state, const std::string& text, worker::TextFormatOptions options) {
  std::vector<Block> blocks = cutBlocks(text, options);
  worker::DelimitedTextParser parser(lineitemTypes(), lineitemNames(), options, "'lineitem'");
  std::vector<engine::Chunk> chunks;
  uint64_t rows = 0;
  for (auto _ : state) {
    rows = 0;
    for (const Block& block : blocks) {
      chunks.clear();
      parser.parse(block.bytes, block.firstLine, chunks);
      for (const auto& chunk : chunks) rows += chunk.size();
    }
    benchmark::DoNotOptimize(rows);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * rows));
  state.counters["rows"] = static_cast<double>(rows);
}

void BM_ParseLineitemTbl(benchmark::State& state) {
  parseLineitem(state, lineitemTbl(), worker::TextFormatOptions{});
}

void BM_ParseLineitemCsv(benchmark::State& state) {
  worker::TextFormatOptions options;
  options.format = worker::TextFileFormat::kCsv;
  options.delimiter = ',';
  parseLineitem(state, lineitemCsv(), options);
}

void BM_ParseLineitemText(benchmark::State& state) {
  worker::TextFormatOptions options;
  options.format = worker::TextFileFormat::kText;
  options.delimiter = '\t';
  parseLineitem(state, lineitemText(), options);
}

void BM_ParseAndStoreLineitemTbl(benchmark::State& state) {
  const std::string& text = lineitemTbl();
  std::vector<Block> blocks = cutBlocks(text, worker::TextFormatOptions{});
  worker::DelimitedTextParser parser(lineitemTypes(), lineitemNames(), worker::TextFormatOptions{}, "'lineitem'");
  std::vector<worker::StoredColumn> columns;
  for (size_t c = 0; c < lineitemTypes().size(); ++c) {
    columns.push_back(worker::StoredColumn{lineitemNames()[c], lineitemTypes()[c], true});
  }
  std::vector<engine::Chunk> chunks;
  uint64_t loadId = 0;
  for (auto _ : state) {
    worker::StorageManager storage(NumaTopology::fake(1), nullptr);
    ++loadId;
    for (const Block& block : blocks) {
      chunks.clear();
      parser.parse(block.bytes, block.firstLine, chunks);
      for (auto& chunk : chunks) storage.stage(loadId, 1, "lineitem", columns, std::move(chunk));
    }
    benchmark::DoNotOptimize(storage.commit(loadId));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * text.size()));
}

BENCHMARK(BM_ParseLineitemTbl)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ParseAndStoreLineitemTbl)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ParseLineitemCsv)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_ParseLineitemText)->Unit(benchmark::kMillisecond)->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
