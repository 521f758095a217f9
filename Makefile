# Thin wrapper over CMake presets. The two set-up commands are `make run` and `make test`.
PRESET ?= release
BUILD_DIR := build/$(PRESET)
SHOAL := $(BUILD_DIR)/cli/shoal
VENV := .venv
WORKERS ?= 2
PG_PORT ?= 5433
TPCH_SF ?= 1

.PHONY: deps build run test test-unit test-integration bench format format-check clean

deps:
	@bash deploy/install-deps.sh

build: deps
	@cmake --preset $(PRESET) >/dev/null
	@cmake --build --preset $(PRESET)

run: build
	$(SHOAL) local --workers $(WORKERS) --pg-port $(PG_PORT) --data-dir build/run-data --tpch $(TPCH_SF)

test: build
	@$(MAKE) --no-print-directory format-check test-unit test-integration

test-unit:
	ctest --preset $(PRESET) -j2

test-integration:
	SHOAL_BINARY=$(abspath $(SHOAL)) $(VENV)/bin/python -m pytest -q tests/integration

bench: build
	$(BUILD_DIR)/bench/expression_bench
	$(BUILD_DIR)/bench/copy_parse_bench
	$(VENV)/bin/python bench/tpch_load_bench.py --shoal $(SHOAL) --sf 1 --workers 2

format:
	@git ls-files '*.h' '*.cpp' | xargs clang-format -i

# Fails when a tracked C++ file differs from .clang-format's layout (fix: make format).
format-check:
	@git ls-files '*.h' '*.cpp' | xargs clang-format --dry-run --Werror

clean:
	rm -rf build
