# Thin wrapper over CMake + CTest. The README's two commands are `make demo`
# and `make test`; both install what is missing first (`make deps`).
BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_OPT ?=
PREFIX    ?= /usr/local

.PHONY: all deps build test test-full sanitize tsan demo clean install docs fuzz regen

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_OPT)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

test: deps
	$(MAKE) build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) -LE full

# Rewrites the generated half of the webgpu.h door (src/wgpu/wgpu.h,
# src/wgpu/wgpu_api.h, src/webgpu/refused.c, src/webgpu/lifetime.c,
# docs/webgpu.md's entry-point table) from src/wgpu/webgpu.api; test_generated fails until this is run.
regen: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) --target wgpugen
	"$(BUILD)/wgpugen" . .

# The long tests (exhaustive fault injection at every call index).
test-full: deps build
	cd $(BUILD) && ctest --output-on-failure -L full

# ASan + UBSan over the whole suite.
sanitize: deps
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=Debug -DUL_SANITIZE=address,undefined
	cmake --build $(BUILD)-asan -j $(JOBS)
	cd $(BUILD)-asan && ctest --output-on-failure -j $(JOBS) -LE full

# TSan over the threaded tests.
tsan: deps
	cmake -S . -B $(BUILD)-tsan -DCMAKE_BUILD_TYPE=Debug -DUL_SANITIZE=thread
	cmake --build $(BUILD)-tsan -j $(JOBS)
	cd $(BUILD)-tsan && ctest --output-on-failure -L threads

# Builds what the demo runs (the CLI and the library it links), not the tests.
demo: deps
	$(MAKE) $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target unlost_cli
	./$(BUILD)/unlost demo

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan

# Installs into $(PREFIX) (DESTDIR= stages it) from the build there is,
# configured once if there is none. Nothing installed holds a path of the
# build or of its configured prefix (run paths are relative, the pkg-config
# files find their prefix from where they lie), so no reconfigure is needed
# for another PREFIX.
install:
	$(MAKE) $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) --target unlost_shared unlost_static unlost_webgpu unlost_webgpu_static unlost_cli unlost_bench_webgpu
	DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(abspath $(PREFIX))"

# The API reference from include/unlost.h into $(BUILD)/docs/html. Fails when
# Doxygen warns (an undocumented public symbol, a broken reference); the
# CTest test test_apidocs runs the same, so `make test` does too.
docs:
	@sh scripts/docs.sh "$(CURDIR)" "$(abspath $(BUILD))/docs"
