# Thin wrapper over CMake + CTest. The README's two commands are `make demo`
# and `make test`; both install what is missing first (`make deps`).
BUILD     ?= build
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_OPT ?=
PREFIX    ?= /usr/local

.PHONY: all deps build test test-full sanitize tsan demo clean install docs fuzz

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

demo: deps
	$(MAKE) build
	./$(BUILD)/unlost demo

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-tsan
