//! Sixteen bytes into one 128-bit word.
use rust_hdl::prelude::*;

/// `word = {bytes[15], ..., bytes[1], bytes[0]}`: byte i at bits `8i+7:8i`. rust-hdl has no
/// concatenation operator, and shifts of `bit_cast` values export expressions Verilator
/// reports as WIDTH (as for [`super::Pack8`]).
#[derive(LogicBlock, Default)]
pub struct PackBytes {
    pub bytes: [Signal<In, Bits<8>>; 16],
    pub word: Signal<Out, Bits<128>>,
}

impl Logic for PackBytes {
    fn update(&mut self) {
        let mut word = Bits::<128>::default();
        for (i, byte) in self.bytes.iter().enumerate() {
            word.set_bits::<8>(8 * i, byte.val());
        }
        self.word.next = word;
    }
    fn connect(&mut self) {
        self.word.connect();
    }
    fn hdl(&self) -> Verilog {
        let bytes: Vec<String> = (0..16).rev().map(|i| format!("bytes${i}")).collect();
        Verilog::Custom(format!("always @(*) word = {{{}}};", bytes.join(", ")))
    }
}
