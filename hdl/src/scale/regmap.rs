//! The ScaleNPU register map (seeds/004, "hs_npu_ctrlstatus_regs"): the one description from
//! which the CSR block's RTL ([`super::Csr`]) takes its offsets, field masks and reset values,
//! and from which `npu-gen` writes the C header `scale_npu_regs.h`. Change a register here and
//! both follow.
//!
//! Every register is 32 bits wide, at a 4-byte aligned byte offset; bits outside the fields
//! read 0 and ignore writes.
//!
//! Decision: seeds/004 gives no reset value ("—") for the rw fields (DIMS, CTRL, MEMADDRS),
//! for INIT, IRQ and EXITCODE. Here every one of them resets to 0: a CPU that starts a layer
//! without programming the configuration gets a defined (empty) one, IRQ.FINISHED is not
//! pending after reset, and EXITCODE reads UNUSED. ARCHID and IMPID keep the seed's values.

/// Software access of a field, as seeds/004 names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// `r`: read only; writes are accepted (OKAY) and ignored.
    R,
    /// `rw`: read and write, per byte lane (`wstrb`).
    Rw,
    /// `w1`: writing 1 triggers an action (INIT: start a layer); reads 0.
    W1,
    /// `rw, woclr`: readable; writing 1 clears the field, writing 0 does nothing.
    RwWoclr,
}

impl Access {
    /// The seed's spelling.
    pub fn name(self) -> &'static str {
        match self {
            Access::R => "r",
            Access::Rw => "rw",
            Access::W1 => "w1",
            Access::RwWoclr => "rw, woclr",
        }
    }
}

/// A field of a register: bits `lsb + width - 1 ..= lsb`.
#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub name: &'static str,
    pub lsb: u32,
    pub width: u32,
    pub access: Access,
    /// Value of the field after reset (not shifted into place).
    pub reset: u32,
    pub doc: &'static str,
}

impl Field {
    /// The field's bits, in place.
    pub const fn mask(&self) -> u32 {
        let ones = if self.width >= 32 {
            u32::MAX
        } else {
            (1u32 << self.width) - 1
        };
        ones << self.lsb
    }
}

/// One 32-bit register.
#[derive(Clone, Copy, Debug)]
pub struct Register {
    pub name: &'static str,
    /// Byte offset from the block's base address.
    pub offset: u32,
    pub doc: &'static str,
    pub fields: &'static [Field],
}

impl Register {
    /// The register's value after reset: every field's reset value in place.
    pub fn reset(&self) -> u32 {
        self.fields
            .iter()
            .fold(0, |v, f| v | (f.reset << f.lsb) & f.mask())
    }

    /// The bits that belong to a field (the others read 0).
    pub fn mask(&self) -> u32 {
        self.fields.iter().fold(0, |m, f| m | f.mask())
    }

    /// The field called `name`; panics if there is none.
    pub fn field(&self, name: &str) -> &'static Field {
        let fields: &'static [Field] = self.fields;
        fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("register {} has no field {name}", self.name))
    }
}

/// Size of the map in bytes: every 4-byte aligned offset below it is a register.
pub const MAP_SIZE: u32 = 0x48;

/// EXITCODE.CODE values (seeds/004: "UNUSED = 00, SUCCESS = 01, MEM_ERR = 10, CPU_ERR = 11").
pub const EXIT_UNUSED: u32 = 0b00;
pub const EXIT_SUCCESS: u32 = 0b01;
pub const EXIT_MEM_ERR: u32 = 0b10;
pub const EXIT_CPU_ERR: u32 = 0b11;
/// The exit codes with their names, for the C header.
pub const EXIT_CODES: &[(&str, u32)] = &[
    ("UNUSED", EXIT_UNUSED),
    ("SUCCESS", EXIT_SUCCESS),
    ("MEM_ERR", EXIT_MEM_ERR),
    ("CPU_ERR", EXIT_CPU_ERR),
];

const fn field(
    name: &'static str,
    lsb: u32,
    width: u32,
    access: Access,
    reset: u32,
    doc: &'static str,
) -> Field {
    Field {
        name,
        lsb,
        width,
        access,
        reset,
        doc,
    }
}

/// Every register, in offset order, exactly as seeds/004 lists them (reset values of the
/// fields the seed leaves open: 0, see the module documentation).
pub const REGISTERS: &[Register] = &[
    Register {
        name: "ARCHID",
        offset: 0x00,
        doc: "Architecture ID: encodes the base microarchitecture of the accelerator.",
        fields: &[field("ID", 0, 32, Access::R, 0xB00B, "Architecture ID.")],
    },
    Register {
        name: "IMPID",
        offset: 0x04,
        doc: "Implementation ID: a unique encoding of the version of the accelerator implementation.",
        fields: &[field("ID", 0, 32, Access::R, 0x100, "Implementation ID.")],
    },
    Register {
        name: "INROWS",
        offset: 0x08,
        doc: "Input Matrix Rows: number of rows in the input matrix.",
        fields: &[field("ROWS", 0, 8, Access::Rw, 0, "Rows of the input matrix.")],
    },
    Register {
        name: "INCOLS",
        offset: 0x0C,
        doc: "Input Matrix Columns: number of columns in the input matrix.",
        fields: &[field("COLS", 0, 8, Access::Rw, 0, "Columns of the input matrix.")],
    },
    Register {
        name: "WGHTROWS",
        offset: 0x10,
        doc: "Weight Matrix Rows: number of rows in the weight matrix.",
        fields: &[field("ROWS", 0, 8, Access::Rw, 0, "Rows of the weight matrix.")],
    },
    Register {
        name: "WGHTCOLS",
        offset: 0x14,
        doc: "Weight Matrix Columns: number of columns in the weight matrix.",
        fields: &[field("COLS", 0, 8, Access::Rw, 0, "Columns of the weight matrix.")],
    },
    Register {
        name: "REINPUTS",
        offset: 0x18,
        doc: "Results as Input: use the results of the previous layer calculation as the input matrix.",
        fields: &[field("REUSE", 0, 1, Access::Rw, 0, "1: the previous results are the input matrix.")],
    },
    Register {
        name: "REWEIGHTS",
        offset: 0x1C,
        doc: "Reuse Weights: reuse the weights of the previous layer computation.",
        fields: &[field("REUSE", 0, 1, Access::Rw, 0, "1: keep the previous layer's weights.")],
    },
    Register {
        name: "SAVEOUT",
        offset: 0x20,
        doc: "Save Output: save the output after layer computation.",
        fields: &[field("SAVE", 0, 1, Access::Rw, 0, "1: write the results to memory.")],
    },
    Register {
        name: "USEBIAS",
        offset: 0x24,
        doc: "Use Bias: enable bias addition during computation.",
        fields: &[field("USE", 0, 1, Access::Rw, 0, "1: add the bias vector.")],
    },
    Register {
        name: "USESUMM",
        offset: 0x28,
        doc: "Use Summatory: use summatory values for the results.",
        fields: &[field("USE", 0, 1, Access::Rw, 0, "1: add the sums vector.")],
    },
    Register {
        name: "SHIFTAMT",
        offset: 0x2C,
        doc: "Shift Amount: amount of shift for quantization.",
        fields: &[field("AMOUNT", 0, 8, Access::Rw, 0, "Right shift applied to the results.")],
    },
    Register {
        name: "ACTFN",
        offset: 0x30,
        doc: "Activation Function Selection (0: None, 1: ReLU).",
        fields: &[field("SELECT", 0, 1, Access::Rw, 0, "0: none, 1: ReLU.")],
    },
    Register {
        name: "BASE",
        offset: 0x34,
        doc: "Base Memory Address: base address in memory for matrix data.",
        fields: &[field("ADDR", 0, 32, Access::Rw, 0, "Byte address of the matrix data.")],
    },
    Register {
        name: "RESULT",
        offset: 0x38,
        doc: "Result Memory Address: memory address for storing the result.",
        fields: &[field("ADDR", 0, 32, Access::Rw, 0, "Byte address of the results.")],
    },
    Register {
        name: "INIT",
        offset: 0x3C,
        doc: "Initialize: signals the NPU to start operation with the current register data.",
        fields: &[field("VALUE", 0, 1, Access::W1, 0, "Write 1 to start a layer; reads 0.")],
    },
    Register {
        name: "IRQ",
        offset: 0x40,
        doc: "Interrupt: signals the NPU has finished.",
        fields: &[field("FINISHED", 0, 1, Access::RwWoclr, 0, "Set when a layer finishes; write 1 to clear.")],
    },
    Register {
        name: "EXITCODE",
        offset: 0x44,
        doc: "Exit code produced by the NPU once the operation finishes (UNUSED = 00, SUCCESS = 01, MEM_ERR = 10, CPU_ERR = 11).",
        fields: &[field("CODE", 0, 2, Access::R, EXIT_UNUSED, "Exit code of the last layer; UNUSED while a layer runs.")],
    },
];

/// The register called `name`; panics if there is none.
pub fn register(name: &str) -> &'static Register {
    REGISTERS
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no register {name} in the ScaleNPU map"))
}

/// The registers a CPU may not write while a layer runs (DIMS, CTRL, MEMADDRS and INIT,
/// seeds/004's register files from INROWS to INIT): `(first offset, last offset)`. Such a
/// write is refused (SLVERR) and aborts the layer.
pub fn busy_protected() -> (u32, u32) {
    (register("INROWS").offset, register("INIT").offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scale_regmap_is_contiguous_aligned_and_consistent() {
        for (k, r) in REGISTERS.iter().enumerate() {
            assert_eq!(
                r.offset,
                4 * k as u32,
                "{}: registers are contiguous, in offset order",
                r.name
            );
            assert!(!r.fields.is_empty(), "{}", r.name);
            let mut used = 0u32;
            for f in r.fields {
                assert!(
                    f.width >= 1 && f.lsb + f.width <= 32,
                    "{}.{}",
                    r.name,
                    f.name
                );
                assert_eq!(used & f.mask(), 0, "{}.{} overlaps", r.name, f.name);
                used |= f.mask();
                assert_eq!(
                    (f.reset << f.lsb) & !f.mask(),
                    0,
                    "{}.{}: reset value too wide",
                    r.name,
                    f.name
                );
            }
            assert_eq!(
                REGISTERS.iter().filter(|o| o.name == r.name).count(),
                1,
                "{} twice",
                r.name
            );
        }
        assert_eq!(MAP_SIZE, 4 * REGISTERS.len() as u32);
        assert_eq!(busy_protected(), (0x08, 0x3C));
        assert_eq!(register("ARCHID").reset(), 0xB00B);
        assert_eq!(register("BASE").mask(), u32::MAX);
        assert_eq!(register("EXITCODE").mask(), 0b11);
    }
}
