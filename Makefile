# Entry points for people and CI. Every target runs the set-up script first,
# so a fresh Debian machine needs nothing else.
#
#   make demo    build silt and run the walkthrough
#   make test    build everything and run every test (CI runs this)
#   make asan    sanitizer build (ASan + UBSan): unit, e2e, fuzz, conformance and the
#                tests labelled asan (silt serve with its clients, tests/server)

BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all setup peers build demo test asan unit clean

all: build

setup:
	@bash scripts/bootstrap.sh

peers: setup
	@if [ -f scripts/setup-peers.sh ]; then bash scripts/setup-peers.sh; fi
	@if [ -f scripts/setup-servers.sh ]; then bash scripts/setup-servers.sh; fi

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSILT_WERROR=ON $(CMAKE_FLAGS)

build: setup $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)/silt

unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit -j $(JOBS)

test: build peers
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

$(ASAN_BUILD)/build.ninja:
	cmake -S . -B $(ASAN_BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DSILT_SANITIZE=ON -DSILT_WERROR=ON $(CMAKE_FLAGS)

asan: setup $(ASAN_BUILD)/build.ninja
	cmake --build $(ASAN_BUILD) -j $(JOBS)
	cd $(ASAN_BUILD) && SILT_TEST_PEERS=off ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		ctest --output-on-failure -L 'unit|conformance|fuzz|e2e|asan' -j $(JOBS)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
