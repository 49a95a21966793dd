//! The weight decoder's palette (TRM §4.7; digest `shared/spec/ethos-u65.md` §1.3): 32 entries
//! of 9 bits, cleared by `restart`, written by the palette step up to 4 at a time (entries
//! `base .. base + count - 1` take `field[0 .. count - 1]`).
//!
//! One clocked process for the 32 registers, which hold in it unless written: as 32 `Reg`s
//! each entry's hold (`d = q`) and its 4 write comparisons were logic that the Verilated model
//! ran every cycle (docs/ethos.md, "Verilated speed", tenth step), though the palette is
//! written only in a slice header's palette steps. The remainder lanes read the entries
//! through `RemainderGroup`'s multiplexer (only at indices below the palette size).
//! No model of its own: the decoder's lock-step tests (tests/ethos_weight_decoder.rs) cover it.
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Palette {
    pub clock: Signal<In, Clock>,
    pub restart: Signal<In, Bit>,
    pub write: Signal<In, Bit>,
    /// First entry written; entries written (0-4); a write never passes entry 31.
    pub base: Signal<In, Bits<5>>,
    pub count: Signal<In, Bits<3>>,
    pub field: [Signal<In, Bits<9>>; 4],
    pub entry: [Signal<Out, Bits<9>>; 32],
}

impl Logic for Palette {
    fn update(&mut self) {
        if self.clock.pos_edge() {
            if self.restart.val() {
                for e in 0..32 {
                    self.entry[e].next = Bits::default();
                }
            } else if self.write.val() {
                for j in 0..4 {
                    if (j as u64) < self.count.val().index() as u64 {
                        let e = (self.base.val().index() + j) % 32;
                        self.entry[e].next = self.field[j].val();
                    }
                }
            }
        }
    }
    fn connect(&mut self) {
        for e in 0..32 {
            self.entry[e].connect();
        }
    }
    fn hdl(&self) -> Verilog {
        let mut text = String::from("always @(posedge clock) begin\n    if (restart) begin\n");
        for e in 0..32 {
            text += &format!("        entry${e} <= 9'd0;\n");
        }
        text += "    end else if (write) begin\n";
        for j in 0..4 {
            text += &format!("        if (count > 3'd{j}) begin\n            case (base + 5'd{j})\n");
            for e in 0..32 {
                text += &format!("                5'd{e}: entry${e} <= field${j};\n");
            }
            text += "            endcase\n        end\n";
        }
        text += "    end\nend";
        Verilog::Custom(text)
    }
}

#[cfg(test)]
#[test]
fn synthesizes() {
    crate::synth_check::assert_synthesizes(Palette::default, "palette");
}
