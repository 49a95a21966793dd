//! CBUF, the convolution buffer (seeds/001 "Convolution buffer"), nv_small's size (NVIDIA's
//! `spec/defs/nv_small.spec`): 32 banks of 512 entries of 8 bytes, one 8-byte atom an entry,
//! addressed by a 14-bit entry index `bank * 512 + entry`. Model: `npu_model::nvdla::cbuf`;
//! placement and timing: docs/nvdla.md "CBUF RTL".
//!
//! One memory array (not 16384 registers and their muxes: a Verilated memory is one array
//! indexed by the address, as [`crate::primitives::RegFile`] and [`crate::primitives::Ram`]),
//! with one write port (CDMA) and two read ports (CSC's data and weight reads):
//!
//! - `wr_valid`: `wr_data` into entry `wr_entry` at the edge.
//! - `dat_rd_valid` / `wt_rd_valid`: the entry at `dat_rd_entry` / `wt_rd_entry` into the
//!   port's read register at the edge (the word before a write to the same entry on that
//!   edge), shown on `dat_rd_data` / `wt_rd_data` in the next cycle and held until the next
//!   read; `reset` clears the read registers. Registered reads, as an SRAM's: CSC registers
//!   its outputs towards CMAC anyway, so the read register is that output register and costs
//!   CSC no cycle.
//!
//! The entries have no reset and power up random (in Verilator, `--x-initial unique`): a user
//! reads only entries written since, as CSC reads only what CDMA placed (docs/nvdla.md).
use rust_hdl::prelude::*;

/// Banks, entries a bank, entries (the model's constants, `npu_model::nvdla::cbuf`).
pub const BANKS: usize = 32;
pub const BANK_ENTRIES: usize = 512;
/// Bits of an entry index.
pub const ENTRY_BITS: usize = 14;

#[derive(LogicBlock)]
pub struct Cbuf {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub wr_valid: Signal<In, Bit>,
    pub wr_entry: Signal<In, Bits<14>>,
    pub wr_data: Signal<In, Bits<64>>,
    pub dat_rd_valid: Signal<In, Bit>,
    pub dat_rd_entry: Signal<In, Bits<14>>,
    pub dat_rd_data: Signal<Out, Bits<64>>,
    pub wt_rd_valid: Signal<In, Bit>,
    pub wt_rd_entry: Signal<In, Bits<14>>,
    pub wt_rd_data: Signal<Out, Bits<64>>,
    _mem: Vec<Bits<64>>,
}

impl Default for Cbuf {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            wr_valid: Default::default(),
            wr_entry: Default::default(),
            wr_data: Default::default(),
            dat_rd_valid: Default::default(),
            dat_rd_entry: Default::default(),
            dat_rd_data: Default::default(),
            wt_rd_valid: Default::default(),
            wt_rd_entry: Default::default(),
            wt_rd_data: Default::default(),
            _mem: vec![Bits::default(); BANKS * BANK_ENTRIES],
        }
    }
}

impl Logic for Cbuf {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.reset.val() {
                self.dat_rd_data.next = Bits::default();
                self.wt_rd_data.next = Bits::default();
            } else {
                if self.dat_rd_valid.val() {
                    self.dat_rd_data.next = self._mem[self.dat_rd_entry.val().index()];
                }
                if self.wt_rd_valid.val() {
                    self.wt_rd_data.next = self._mem[self.wt_rd_entry.val().index()];
                }
            }
            if self.wr_valid.val() {
                self._mem[self.wr_entry.val().index()] = self.wr_data.val();
            }
        }
    }
    fn connect(&mut self) {
        self.dat_rd_data.connect();
        self.wt_rd_data.connect();
    }
    fn hdl(&self) -> Verilog {
        Verilog::Custom(format!(
            "reg [63:0] mem [0:{last}];\n\
             always @(posedge clock) begin\n    \
                 if (wr_valid) mem[wr_entry] <= wr_data;\n    \
                 if (reset) begin\n        \
                     dat_rd_data <= 64'h0;\n        \
                     wt_rd_data <= 64'h0;\n    \
                 end else begin\n        \
                     if (dat_rd_valid) dat_rd_data <= mem[dat_rd_entry];\n        \
                     if (wt_rd_valid) wt_rd_data <= mem[wt_rd_entry];\n    \
                 end\n\
             end",
            last = BANKS * BANK_ENTRIES - 1,
        ))
    }
    fn timing(&self) -> Vec<TimingInfo> {
        vec![TimingInfo {
            name: "cbuf".into(),
            clock: "clock".into(),
            inputs: ["reset", "wr_valid", "wr_entry", "wr_data", "dat_rd_valid", "dat_rd_entry", "wt_rd_valid", "wt_rd_entry"].map(String::from).into(),
            outputs: vec!["dat_rd_data".into(), "wt_rd_data".into()],
        }]
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Cbuf::default, "nvdla_cbuf");
}
