# SPDX-License-Identifier: Apache-2.0
# Makefile: the front door. Installs what is missing, builds with CMake, runs the demo,
# the tests, the plots of an experiment and the benchmark. `make help` lists the targets.

BUILD     ?= build
ASAN      ?= build-asan
FUZZ      ?= $(BUILD)-fuzz
FUZZ_SECONDS ?= 60
FUZZ_SHORT_SECONDS ?= 15
JOBS      ?= $(shell nproc 2>/dev/null || echo 2)
# tests at once: one more than the cores, as several spend seconds waiting on a watch's next
# page or a signal's moment (ctest -j2 kept 2 cores 85 % busy, -j3 95 %: 196 s to 177)
TEST_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
EXP       ?=
OUT       ?= rt-out/$(notdir $(abspath $(EXP)))
STEP      ?= slowest
TRAIN     ?=
FORMAT    ?= png
DEMO_DIR  ?= demo
PREFIX    ?= /usr/local

# Debian packages the build and the plots need: all `make demo` installs. python3 runs the
# generator of the man pages at build time.
DEMO_PACKAGES = build-essential cmake pkg-config libglib2.0-dev libsimdjson-dev libgsl-dev gnuplot-nox python3
# Debian packages the build, the plots and the tests need.
DEB_PACKAGES = build-essential cmake pkg-config libglib2.0-dev libsimdjson-dev gnuplot-nox python3 time \
                clang libclang-rt-14-dev chromium \
                libgsl-dev python3-scipy python3-pandas man-db dpkg-dev bash-completion valgrind

BIN = $(abspath $(BUILD))

.PHONY: all build deps deps-demo demo test test-asan fuzz fuzz-build fuzz-short plots report compare bench bench-deps clean help install deb

all: build

help:
	@echo "make            build everything into $(BUILD)/ (quiet; V=1 shows every step)"
	@echo "make demo       generate a demo experiment and plot it (installs what is missing)"
	@echo "make test       run every test, also under AddressSanitizer+UBSan (installs what is missing)"
	@echo "make plots EXP=logs/exp [OUT=dir] [STEP=N] [FORMAT=png|svg|pdf] [TRAIN=trainer.log]"
	@echo "                run every analyzer on EXP and render all plots"
	@echo "make compare EXPS=\"a b [c...]\" [OUT=dir] [FORMAT=png|svg|pdf]"
	@echo "                compare experiments side by side (the first the reference): every compare plot"
	@echo "make report EXP=logs/exp [TRAIN=trainer.log] [COMPARE=\"b c\"] [OUT=dir]"
	@echo "                one HTML page of EXP: findings and every section (OUT/report/index.html)"
	@echo "make bench      the speed and memory benchmark (see bench/run.sh, bench/RESULTS.md)"
	@echo "make bench-deps node's @duckdb/node-api into bench/node_modules, for the bench's DuckDB rows"
	@echo "make fuzz [FUZZ_SECONDS=60]  run each fuzz target that long (see tests/fuzz/README.md)"
	@echo "make install [PREFIX=/usr/local]  the commands, man pages, completion, library and headers"
	@echo "make deb        $(BUILD)/rolltrace_VERSION_ARCH.deb, for apt install ./$(BUILD)/rolltrace_*.deb"
	@echo "make deps       install every package the build, the plots and the tests need (make deps-demo: the demo's)"
	@echo "make test-asan  the tests against an AddressSanitizer+UBSan build only"
	@echo "make fuzz-short each fuzz target for a few seconds (part of make test)"
	@echo "make clean      remove the build folders"

# Installs only the packages that are missing, so a machine that has them needs no root:
# `make deps` everything (the tests' too), `make deps-demo` what the build and the plots need.
deps: PACKAGES = $(DEB_PACKAGES)
deps-demo: PACKAGES = $(DEMO_PACKAGES)
deps deps-demo:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run as root, or: sudo apt-get install$$missing" >&2; exit 1; fi; \
	  DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(BUILD)/Makefile: CMakeLists.txt
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

# Quiet unless something goes wrong: the compiler's warnings and a failed build's whole log are
# shown, the progress lines are kept in $(BUILD)/build.log; V=1 shows every line as it comes.
build: $(BUILD)/Makefile
ifeq ($(V),1)
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS)
else
	@$(MAKE) --no-print-directory -C $(BUILD) -j$(JOBS) >$(BUILD)/build.log 2>&1 \
	  || { cat $(BUILD)/build.log; echo "make: the build failed (its log: $(BUILD)/build.log)" >&2; exit 1; }
	@grep -A3 -E "(warning|error):" $(BUILD)/build.log || true
endif
	@test -x $(BUILD)/rt-check

demo: deps-demo build
	@rm -rf $(DEMO_DIR)/rollout-demo
	$(BUILD)/rt-synth $(DEMO_DIR)/rollout-demo --steps 12 --workers 8 --requests 64 --seed 7 --faults \
	  --validation folders --test-freq 5 --console-log $(DEMO_DIR)/trainer.log
	$(BUILD)/rt-check $(DEMO_DIR)/rollout-demo --train $(DEMO_DIR)/trainer.log
	@$(MAKE) --no-print-directory plots EXP=$(DEMO_DIR)/rollout-demo OUT=$(DEMO_DIR)/plots \
	  TRAIN=$(DEMO_DIR)/trainer.log
	@$(MAKE) --no-print-directory report EXP=$(DEMO_DIR)/rollout-demo OUT=$(DEMO_DIR) \
	  TRAIN=$(DEMO_DIR)/trainer.log

test: deps build test-asan
	cd $(BUILD) && ctest --output-on-failure -j$(TEST_JOBS)
	@$(MAKE) --no-print-directory fuzz-short

# The same tests against a build with AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan: deps
	cmake -S . -B $(ASAN) -DCMAKE_BUILD_TYPE=Debug -DRT_SANITIZE=ON >/dev/null
	@$(MAKE) --no-print-directory -C $(ASAN) -j$(JOBS)
	cd $(ASAN) && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --output-on-failure -j$(TEST_JOBS) -LE plain-only

# The fuzz targets of tests/fuzz: a clang build with libFuzzer, ASan and UBSan in $(FUZZ)/.
FUZZ_CHECK = echo 'int LLVMFuzzerTestOneInput (const char *d, unsigned long n) { return d && n; }' \
	| clang -x c - -fsanitize=fuzzer,address,undefined -o /dev/null >/dev/null 2>&1

fuzz-build: deps
	@$(FUZZ_CHECK) || { echo "make fuzz: clang with libFuzzer is missing (make deps installs clang libclang-rt-14-dev)" >&2; exit 1; }
	CC=clang CXX=clang++ cmake -S . -B $(FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRT_FUZZ=ON >/dev/null
	@$(MAKE) --no-print-directory -C $(FUZZ) -j$(JOBS) fuzz-line fuzz-cache fuzz-trainlog \
	  replay-line replay-cache replay-trainlog

fuzz: fuzz-build
	tests/fuzz/run.sh $(FUZZ) $(FUZZ_SECONDS)

# The short run of `make test`: $(FUZZ_SHORT_SECONDS) s a target, skipped with a note
# where the compiler cannot build a fuzzer.
fuzz-short: deps
	@if $(FUZZ_CHECK); then $(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS); \
	else echo "make test: fuzzing skipped: clang with libFuzzer not found (make deps installs clang libclang-rt-14-dev)"; fi

# Every analyzer the build lists with plot runs ($(BUILD)/rt-commands.tsv, from CMakeLists.txt)
# writes its data and scripts (unchanged files keep their time stamps), then make renders, in
# parallel, only the plots whose script or data changed.
plots: build
	@test -n "$(EXP)" || { echo "usage: make plots EXP=path/to/experiment [OUT=dir] [STEP=N]" >&2; exit 2; }
	@test -d "$(EXP)" || { echo "make plots: $(EXP) is not a folder" >&2; exit 1; }
	@list=$$(mktemp) && trap 'rm -f "$$list"' EXIT && \
	ROLLTRACE_SCRIPTS_LIST="$$list" gnuplot/write-plots.sh "$(BIN)" "$(EXP)" "$(OUT)" "$(FORMAT)" "$(STEP)" "$(TRAIN)" && \
	scripts=$$(sed -n 's/^[a-z]* //p' "$$list" | grep -vx 'rolltrace-style.gp' | sort -u | tr '\n' ' ') && \
	sed -n 's|^edited \(.*\)|make plots: $(OUT)/\1 was edited since rolltrace wrote it: kept (remove it to get rolltrace'"'"'s)|p' "$$list" | sort -u && \
	$(MAKE) -s --no-print-directory -C "$(OUT)" -f $(abspath gnuplot/render.mk) -j$(JOBS) FORMAT=$(FORMAT) SCRIPTS="$$scripts" && \
	{ n=0; for gp in $$scripts; do [ ! -s "$(OUT)/$${gp%.gp}.$(FORMAT)" ] || n=$$((n + 1)); done; \
	  echo "plots: $(OUT)/ ($$n $(FORMAT) files)"; }

# rt-compare over several experiments, the first the reference; OUT defaults to
# rt-out/compare-A+B (the folders' names). The plots render in parallel, as with `make plots`.
EXPS      ?=
COMPARE_OUT = $(if $(filter command line,$(origin OUT)),$(OUT),rt-out/compare-$(subst $(eval) ,+,$(foreach e,$(EXPS),$(notdir $(abspath $(e))))))
compare: build
	@test -n "$(strip $(EXPS))" || { echo 'usage: make compare EXPS="a b [c...]" [OUT=dir]' >&2; exit 2; }
	@test $(words $(EXPS)) -ge 2 || { echo "make compare: EXPS needs two experiments or more" >&2; exit 2; }
	$(BUILD)/rt-compare $(EXPS) --out "$(COMPARE_OUT)" --format $(FORMAT) --no-render --quiet
	@$(MAKE) -s --no-print-directory -C "$(COMPARE_OUT)" -f $(abspath gnuplot/render.mk) -j$(JOBS) FORMAT=$(FORMAT)
	@echo "compare: $(COMPARE_OUT)/ ($$(ls "$(COMPARE_OUT)"/compare_*.$(FORMAT) | wc -l) $(FORMAT) files)"

# rt-report's page of EXP in OUT/report/index.html, with the trainer's log and experiments to compare.
report: build
	@test -n "$(EXP)" || { echo "usage: make report EXP=path/to/experiment [TRAIN=log] [COMPARE=\"b c\"] [OUT=dir]" >&2; exit 2; }
	@$(BUILD)/rt-report "$(EXP)" --out "$(OUT)/report" --quiet $(if $(TRAIN),--train "$(TRAIN)") \
	  $(foreach c,$(COMPARE),--compare "$(c)")
	@echo "report: $(OUT)/report/index.html"

bench: PACKAGES = $(DEMO_PACKAGES) time
bench: deps-demo build
	bench/run.sh

# The same files as the .deb, into PREFIX (DESTDIR is honoured, as cmake --install does).
install: build
	cmake --install $(BUILD) --prefix "$(PREFIX)"

# The Debian package, made by CPack from the install rules of the build tree already built.
deb: build
	cd $(BUILD) && cpack -G DEB >/dev/null
	@ls $(BUILD)/rolltrace_*.deb

# DuckDB for the benchmark's side-by-side rows (bench/duckdb-quantiles.mjs), from npm into
# bench/node_modules (not committed); the version is pinned in bench/package.json.
bench-deps:
	@command -v npm >/dev/null || { echo "make bench-deps: npm is missing (apt-get install nodejs npm)" >&2; exit 1; }
	cd bench && npm install --no-package-lock --no-audit --no-fund

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ) $(DEMO_DIR) rt-out
