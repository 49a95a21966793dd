# Entry points of the project. Every target installs what it needs first (`deps`).
#   make verilog            one Verilog file per top in build/verilog/, linted, plus ports.json
#   make test               all co-simulation regressions (cargo test)
#   make bench              speed of the Verilator bridge against the behavioural models
#   make waves TEST=name    run one test writing build/waves/name.fst (all internal signals)

VERILOG_DIR := build/verilog
CARGO ?= cargo
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := verilator zlib1g-dev gtkwave

.PHONY: deps verilog test bench waves clean

# Installs the Debian packages that are missing (gtkwave without its recommends: only
# fst2vcd and the viewer are needed). Nothing is installed when everything is present.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust (rustup) first"; exit 1; }

verilog: deps
	$(CARGO) run -q -p npu-gen -- $(VERILOG_DIR)
	@for f in $(VERILOG_DIR)/*.v; do verilator --lint-only -Wall $$f || exit 1; done
	@echo "lint clean: $(VERILOG_DIR)/*.v (verilator --lint-only -Wall)"

test: deps
	$(CARGO) test --workspace --release

bench: deps
	$(CARGO) bench --bench cosim_speed

waves: deps
	@[ -n "$(TEST)" ] || { echo "usage: make waves TEST=<test name>"; exit 1; }
	@mkdir -p build/waves
	NPU_WAVES=$(CURDIR)/build/waves/$(TEST).fst $(CARGO) test --release --workspace $(TEST) -- --exact --nocapture --test-threads 1
	@echo "open with: gtkwave build/waves/$(TEST).fst"

clean:
	$(CARGO) clean
	rm -rf build
