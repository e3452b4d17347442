# swift-trail. `make demo` and `make test` do all their own set-up on a fresh machine.
SWIFT ?= swift
SAMPLE := Samples/ItemStore
SAMPLE_BIN := $(SAMPLE)/.build/trail/debug/ItemStore

.PHONY: all build test lint format demo bench soak deps bench-deps clean install uninstall offline-packages

all: build

# System packages, installed when missing (apt-get as root, else with sudo). libdw-dev brings libdw.a, zlib
# and liblzma; the static trail-symbolize also links libbz2.a.
APT := $(shell [ "$$(id -u)" = 0 ] && echo apt-get || echo sudo apt-get)
define need
	@dpkg -s $(1) >/dev/null 2>&1 || { echo "make: installing $(1)"; \
	  $(APT) install -y $(1) >/dev/null 2>&1 || { $(APT) update >/dev/null && $(APT) install -y $(1); }; }
endef

# Python packages for the OTLP tests, installed when missing: pip, then pip with --break-system-packages where
# the system Python is marked externally managed (Debian 12), then python3-pip from apt if there is no pip.
define need-pip
	@python3 -c "import $(2)" >/dev/null 2>&1 || { echo "make: installing $(1) (pip)"; \
	  python3 -m pip --version >/dev/null 2>&1 || $(APT) install -y python3-pip >/dev/null 2>&1 || \
	    { $(APT) update >/dev/null && $(APT) install -y python3-pip; }; \
	  python3 -m pip install --quiet $(1) 2>/dev/null || python3 -m pip install --quiet --break-system-packages $(1); }
endef

deps: offline-packages
	$(call need,libdw-dev)
	$(call need,libbz2-dev)
	$(call need,elfutils)
	$(call need,tmux)
	$(call need,valgrind)

# swift-log, swift-distributed-tracing and swift-service-context, which the integrations (and Samples/Server) get
# by their public URLs, resolve to local git repositories made from TRAIL_OFFLINE_PACKAGES, through mirrors in
# this clone and in Samples/Server. It defaults to ../shared/packages where that exists; empty, nothing is
# mirrored and SwiftPM fetches from the URLs.
TRAIL_OFFLINE_PACKAGES ?= $(wildcard $(abspath ../shared/packages))
offline-packages:
	@bash Scripts/offline-packages.sh "$(TRAIL_OFFLINE_PACKAGES)" .build/offline-packages . Samples/Server

bench-deps: deps
	$(call need,uftrace)
	$(call need,libspdlog-dev)
	$(call need,hyperfine)
	$(call need,binutils)

build: deps
	$(SWIFT) build

# The toolchain's swift-format with .swift-format (120 columns). The rewriter's fixtures are left out on purpose:
# their odd shapes are what the tests feed it. `make format` rewrites the same files in place.
LINTED = find Sources Plugins Samples Tests \( -name .build -o -name Fixtures \) -prune -o -name '*.swift' -print0
# C, as swift format is for Swift: clang-format (Debian's, installed when missing) with .clang-format.
CLINTED = find Sources Tests/Fixtures -name .build -prune -o \( -name '*.c' -o -name '*.h' \) -print0
lint:
	$(call need,clang-format)
	@$(LINTED) | xargs -0 $(SWIFT) format lint --strict --parallel
	@$(CLINTED) | xargs -0 clang-format --dry-run --Werror
	@echo "lint: clean"
format:
	$(call need,clang-format)
	@$(LINTED) | xargs -0 $(SWIFT) format format -i --parallel
	@$(CLINTED) | xargs -0 clang-format -i

test: lint deps
	$(call need-pip,opentelemetry-proto,opentelemetry.proto.collector.logs.v1.logs_service_pb2)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	python3 Tests/Demo/check.py .build/demo-check && rm -rf .build/demo-check

# Instrument the ItemStore Sample through the plugin, build it, run it, and show its trace. Each run starts from
# an empty folder, so what is shown is what this run recorded.
DEMO := /tmp/trail-demo
# The static trail links glibc functions that warn when linked statically (dlopen in libdw and the Swift
# runtime, getpwuid; mktemp in Foundation's archive): expected, and harmless here, so the demo's build leaves them out.
STATIC_LINK_NOTES := statically linked applications requires at runtime|the use of .mktemp. is dangerous|^/usr/bin/ld|linking$$
demo: deps
	@rm -rf $(DEMO) && mkdir -p $(DEMO)
	@{ $(SWIFT) build --product trail 2>&1; echo $$? > $(DEMO)/build-status; } | grep -Ev '$(STATIC_LINK_NOTES)'; \
	  exit $$(cat $(DEMO)/build-status)
	@# SwiftPM keeps a package's plan in description.json and may miss a file added to a path dependency (this
	@# repository) since: dropping it makes the build plan again, and costs nothing else.
	rm -f $(SAMPLE)/.build/trail/*/debug/description.json
	cd $(SAMPLE) && TRAIL=1 $(SWIFT) build --scratch-path .build/trail
	@echo "== TRAIL_TRACE=1: a line per call"
	TRAIL_TRACE=1 $(SAMPLE_BIN) --store $(DEMO)/items.json demo
	@echo "== TRAIL_TRACE=record, then trail replay and trail report"
	TRAIL_TRACE=record TRAIL_TRACE_FILE=$(DEMO)/demo.trace $(SAMPLE_BIN) --store $(DEMO)/items.json demo
	.build/debug/trail replay $(DEMO)/demo.trace
	.build/debug/trail report $(DEMO)/demo.trace
	@echo "== task trees: a task-group fan-out, async let, Task {} and a detached task, under the function that made them"
	TRAIL_TRACE=record TRAIL_TRACE_FILE=$(DEMO)/survey.trace $(SAMPLE_BIN) --store $(DEMO)/items.json survey
	.build/debug/trail replay $(DEMO)/survey.trace
	@echo "== the same calls as OpenTelemetry spans (OTLP/JSON), for a Collector"
	.build/debug/trail export --otlp $(DEMO)/survey.trace -o $(DEMO)/spans.json
	@echo "== built with values (TRAIL_VALUES=1): each call's arguments, result, and the error it threw"
	cd $(SAMPLE) && TRAIL=1 TRAIL_VALUES=1 $(SWIFT) build --scratch-path .build/trail-values
	TRAIL_TRACE=record TRAIL_TRACE_FILE=$(DEMO)/values.trace $(SAMPLE)/.build/trail-values/debug/ItemStore \
	  --store $(DEMO)/values.json demo
	.build/debug/trail replay $(DEMO)/values.trace

# `trail` and the binaries it hands verbs to, in PREFIX/bin; the package itself in PREFIX/share/swift-trail,
# which `trail test` and `trail run` add to a package's traced copy. An installed trail needs no clone.
PREFIX ?= /usr/local
TRAIL_BINARIES := trail trail-rewrite trail-resources trail-symbolize
# Where the release build goes: another folder lets a test install while `swift test` holds .build's lock.
INSTALL_SCRATCH ?= .build
install: deps
	@mkdir -p $(INSTALL_SCRATCH); for product in $(TRAIL_BINARIES); do \
	  { $(SWIFT) build -c release --scratch-path $(INSTALL_SCRATCH) --product $$product 2>&1; \
	    echo $$? > $(INSTALL_SCRATCH)/install-status; } | grep -Ev '$(STATIC_LINK_NOTES)'; \
	  test "$$(cat $(INSTALL_SCRATCH)/install-status)" = 0 || exit 1; done
	mkdir -p $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/swift-trail
	for product in $(TRAIL_BINARIES); do install -m 755 $(INSTALL_SCRATCH)/release/$$product $(DESTDIR)$(PREFIX)/bin/$$product; done
	rm -rf $(DESTDIR)$(PREFIX)/share/swift-trail/* && \
	  tar -c --exclude=.build --exclude=.git --exclude=.swiftpm -f - . | tar -x -C $(DESTDIR)$(PREFIX)/share/swift-trail
	@echo "make install: trail is in $(PREFIX)/bin; try 'trail test' in a package of yours"

uninstall:
	rm -f $(foreach product,$(TRAIL_BINARIES),$(DESTDIR)$(PREFIX)/bin/$(product))
	rm -rf $(DESTDIR)$(PREFIX)/share/swift-trail

bench: bench-deps
	$(SWIFT) build -c release
	python3 Benchmarks/bench.py

# Ten minutes of an operator's day (SOAK_SECONDS to change): copies of one app, forks, children writing to
# stderr, rotation at 4K, a folder deleted under them, signals and crashes; then the invariants. Then the
# differential corpus (Tests/ProcessCorpus) SOAK_CORPUS_ROUNDS times, where `make test` runs it once.
SOAK_CORPUS_ROUNDS ?= 20
soak: deps
	$(SWIFT) build --product trail-probe
	python3 Tests/Soak/soak.py
	$(SWIFT) build --build-tests
	TRAIL_CORPUS_ROUNDS=$(SOAK_CORPUS_ROUNDS) $(SWIFT) test --skip-build --filter ProcessCorpusTests

clean:
	rm -rf .build $(SAMPLE)/.build
