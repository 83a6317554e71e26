# The two commands the README promises.  Both install missing Debian packages
# first (scripts/deps.sh; needs root or sudo), configure with CMake, and build.
BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: all deps deps-test build demo test test-asan fuzz bench clean

all: build

deps:
	@sh scripts/deps.sh

# also what only some tests use (Slurm, Chromium), once, before ctest starts
# tests in parallel: two tests installing at once made one lose the lock
deps-test:
	@sh scripts/deps.sh --test

build: deps
	@sh scripts/check-cache.sh $(BUILD)
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# only the command is built (about a minute; `make build` builds the tests
# too); the build's lines go to a log (shown when the build fails), so the
# demo's output is the demo
demo: deps
	@echo "== building ksample in $(BUILD) (log: $(BUILD)/build.log)"
	@sh scripts/check-cache.sh $(BUILD)
	@mkdir -p $(BUILD)
	@{ cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo && \
	   cmake --build $(BUILD) -j $(JOBS) --target ksample-cli; } >$(BUILD)/build.log 2>&1 || \
	   { tail -n 40 $(BUILD)/build.log; exit 1; }
	@sh scripts/demo.sh $(BUILD)/ksample

test: build deps-test
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# the same tests built with AddressSanitizer + UndefinedBehaviorSanitizer
test-asan: deps deps-test
	@sh scripts/check-cache.sh $(ASAN_BUILD)
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DKS_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j $(JOBS)

# every fuzz/fuzz_<name>.c under libFuzzer + ASan + UBSan, FUZZ_SECONDS each
fuzz: deps
	@sh scripts/check-cache.sh $(FUZZ_BUILD)
	CC=clang cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKS_FUZZ=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j $(JOBS)
	sh fuzz/run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS)

bench: build
	sh bench/run.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
