//! Output MUX (seeds/002 §6.5, Table 3). RTL: `hdl/src/mnist/output_mux.rs`.

/// SEL_OUT codes of Table 3.
pub mod sel_out {
    pub const FIFO: u8 = 0b000;
    pub const PISO_OUT: u8 = 0b001;
    pub const INDEX: u8 = 0b010;
    pub const LARGEST_MSB: u8 = 0b011;
    pub const LARGEST_LSB: u8 = 0b100;
    pub const PISO_DEB: u8 = 0b101;
}

#[derive(Clone, Debug, Default)]
pub struct In {
    pub sel_out: u8,
    pub fifo: u8,
    pub piso_out: u8,
    pub index: u8,
    pub largest: i16,
    pub piso_deb: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub d_out: u8,
}

/// Table 3; 110 and 111 drive 0 ("Ground (unused)").
pub fn select(i: &In) -> u8 {
    match i.sel_out {
        sel_out::FIFO => i.fifo,
        sel_out::PISO_OUT => i.piso_out,
        sel_out::INDEX => i.index,
        sel_out::LARGEST_MSB => (i.largest as u16 >> 8) as u8,
        sel_out::LARGEST_LSB => i.largest as u8,
        sel_out::PISO_DEB => i.piso_deb,
        _ => 0,
    }
}

/// The combinational MUX as a block.
#[derive(Default)]
pub struct OutputMux {
    event: &'static str,
}

impl OutputMux {
    fn eval(i: &In) -> (Out, &'static str) {
        let event = ["fifo", "piso_out", "index", "largest msb", "largest lsb", "piso_deb", "ground 110", "ground 111"][usize::from(i.sel_out & 7)];
        (Out { d_out: select(i) }, event)
    }
}

crate::combinational_block!(OutputMux);
