# Thin wrapper over CMake presets. The two set-up commands are `make run` and `make test`.
PRESET ?= release
BUILD_DIR := build/$(PRESET)
SHOAL := $(BUILD_DIR)/cli/shoal
VENV := .venv
WORKERS ?= 2
PG_PORT ?= 5433
TPCH_SF ?= 1

FUZZ_SECONDS ?= 600

.PHONY: deps build build-fuzz run test test-unit test-integration test-rdma test-cluster test-fuzz bench bench-net soak fuzz \
	format format-check clean

deps:
	@bash deploy/install-deps.sh

build: deps
	@cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET)

run: build
	$(SHOAL) local --workers $(WORKERS) --pg-port $(PG_PORT) --data-dir build/run-data --tpch $(TPCH_SF)

test: build
	@$(MAKE) --no-print-directory format-check test-unit test-integration test-cluster test-rdma test-fuzz

test-unit:
	ctest --preset $(PRESET) -j2

test-integration:
	SHOAL_BINARY=$(abspath $(SHOAL)) $(VENV)/bin/python -m pytest -q tests/integration

# Shoal as a real cluster: etcd, a coordinator and 3 workers in network namespaces (deploy/netns-cluster.sh),
# through link cuts, etcd and coordinator restarts and a draining worker. Needs root.
test-cluster: build
	SHOAL_BINARY=$(abspath $(SHOAL)) $(VENV)/bin/python -m pytest -q -p no:cacheprovider tests/cluster

# The RDMA path for real: tests/rdma/run-suite.sh inside a QEMU VM with a soft-RoCE device (deploy/rxe-vm).
# Fails (never skips) when the VM cannot start.
test-rdma: build
	deploy/rxe-vm/run-in-vm.sh -t 1200 -- env BUILD_DIR=$(BUILD_DIR) tests/rdma/run-suite.sh

# The libFuzzer targets of tests/fuzz, built by clang-15 with ASan and UBSan in build/fuzz (only what they link).
build-fuzz: deps
	@cmake --preset fuzz >/dev/null
	@cmake --build --preset fuzz

# Every fuzz target for 20 s, from its seed corpus and regressions; any crash, sanitizer report or hang fails.
test-fuzz: build-fuzz
	FUZZ_SEED=1 tests/fuzz/run.sh 20

# The same for FUZZ_SECONDS each (default 10 minutes); what they find new is kept in build/fuzz/runs.
fuzz: build-fuzz
	tests/fuzz/run.sh $(FUZZ_SECONDS)

bench: build
	$(BUILD_DIR)/bench/expression_bench
	$(BUILD_DIR)/bench/copy_parse_bench
	$(BUILD_DIR)/bench/operator_bench
	$(BUILD_DIR)/bench/exchange_bench
	$(VENV)/bin/python bench/tpch_load_bench.py --shoal $(SHOAL) --sf 1 --workers 2
	$(VENV)/bin/python bench/string_date_bench.py --shoal $(SHOAL) --sf 1 --workers 2
	$(VENV)/bin/python bench/analytical_sql_bench.py --shoal $(SHOAL) --sf 1 --workers 2
	$(VENV)/bin/python bench/approximate_aggregates_bench.py --shoal $(SHOAL) --sf 1 --workers 2
	$(VENV)/bin/python bench/transactions_bench.py --shoal $(SHOAL) --sf 1 --workers 2

# 16 clients run the TPC-H queries at SF 0.1 for 5 minutes: no errors, and every process's resident memory flat
# (its peak in the last minute within 10 % of its peak in the first minute after warm-up; tests/soak/soak.py,
# figures in build/soak.json).
soak: build
	@mkdir -p build
	$(VENV)/bin/python tests/soak/soak.py --binary $(SHOAL) --scale 0.1 --json build/soak.json

# The multiplexer's network microbenchmarks (the paper's Figures 5, 10b, 10c), with plots.
bench-net: build
	@mkdir -p build/bench
	$(SHOAL) --log-level warn bench net --nodes 2 --transport tcp --json build/bench/net-2.json
	$(SHOAL) --log-level warn bench net --nodes 4 --transport tcp --json build/bench/net-4.json
	$(VENV)/bin/python bench/plot_net.py build/bench/net-2.json build/bench/net-2.png
	$(VENV)/bin/python bench/plot_net.py build/bench/net-4.json build/bench/net-4.png

format:
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

# Fails when a tracked C++ file differs from .clang-format's layout (fix: make format).
format-check:
	@git ls-files '*.h' '*.cpp' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
