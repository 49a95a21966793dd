//! SDP_RDMA's BS and BN operand layouts (BRDMA, NRDMA; seeds/001 "Single Data Point
//! Processor": per-channel or per-element operands from memory). RTL:
//! `npu_hdl::nvdla::sdp_operands::SdpOperands`; docs/nvdla.md, "SDP's BS and BN stages".
//!
//! As NVIDIA's C model lays them out (cmod/sdp, the RDMA read and its packer; read to learn
//! it, nothing copied): an element is one component, or two (DATA_USE BOTH: the ALU's, then
//! the multiplier's), of one byte (sign-extended) or two (little-endian). PER_ELEMENT: channel
//! c at (x, y) of surface s at `base + s * SURFACE_STRIDE + y * LINE_STRIDE + (8x + c % 8) *
//! bytes`; PER_KERNEL: channel c at `base + c * bytes`. An atom's 8 elements are `bytes`
//! consecutive 8-byte words either way, read one word at a time.
use super::csb::UnitRegisters;
use npu_hdl::nvdla::regmap;

/// One operand read's configuration (D_BRDMA_CFG or D_NRDMA_CFG) and cube.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperandRead {
    pub base: u64,
    pub line: u64,
    pub surface: u64,
    /// DATA_USE: 0 MUL, 1 ALU, 2 BOTH; 3 (no RDL name) one component to the ALU, as the C
    /// model routes it.
    pub data_use: u32,
    pub two_byte: bool,
    pub per_kernel: bool,
}

impl OperandRead {
    /// SDP_RDMA's read `dma` (BRDMA, NRDMA) of the stage `stage`'s (BS, BN) cube, if on.
    pub fn from_registers(r: &UnitRegisters, dma: &str, stage: &str) -> Option<Self> {
        let cfg = r.consumed(&format!("D_{dma}_CFG"));
        let get = |field: &str| {
            let f = regmap::field("SDP_RDMA", &format!("D_{dma}_CFG"), &format!("{dma}_{field}"));
            (cfg & f.mask()) >> f.lsb
        };
        (get("DISABLE") == 0).then(|| OperandRead {
            base: u64::from(r.consumed(&format!("D_{stage}_BASE_ADDR_HIGH"))) << 32 | u64::from(r.consumed(&format!("D_{stage}_BASE_ADDR_LOW"))),
            line: u64::from(r.consumed(&format!("D_{stage}_LINE_STRIDE"))),
            surface: u64::from(r.consumed(&format!("D_{stage}_SURFACE_STRIDE"))),
            data_use: get("DATA_USE"),
            two_byte: get("DATA_SIZE") != 0,
            per_kernel: get("DATA_MODE") == 0,
        })
    }

    fn both(&self) -> bool {
        self.data_use == 2
    }

    /// Bytes per element, which is also the 8-byte words per atom: 1, 2 or 4.
    pub fn words(&self) -> u64 {
        (1 + u64::from(self.two_byte)) * (1 + u64::from(self.both()))
    }

    /// The address of the first operand word of the atom at (x, y) of surface `s`.
    pub fn address(&self, x: u64, y: u64, s: u64) -> u64 {
        let group = 8 * self.words();
        if self.per_kernel {
            self.base.wrapping_add(s.wrapping_mul(group))
        } else {
            self.base.wrapping_add(s.wrapping_mul(self.surface)).wrapping_add(y.wrapping_mul(self.line)).wrapping_add(x * group)
        }
    }

    /// Each lane's (ALU, multiplier) operands out of the atom's words (word i in `words[i]`);
    /// 0 for a part the read does not supply (DATA_USE MUL: the ALU; ALU: the multiplier).
    pub fn operands(&self, words: &[u64; 4]) -> [(i16, i16); 8] {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let size = 1 + usize::from(self.two_byte);
        let component = |k: usize, j: usize| {
            let at = k * self.words() as usize + j * size;
            if self.two_byte {
                i16::from_le_bytes([bytes[at], bytes[at + 1]])
            } else {
                i16::from(bytes[at] as i8)
            }
        };
        std::array::from_fn(|k| match self.data_use {
            2 => (component(k, 0), component(k, 1)),
            0 => (0, component(k, 0)),
            _ => (component(k, 0), 0),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::OperandRead;

    /// Hand-made words: each size and use puts lane k's operands where the C model's layout
    /// has them; per-kernel addresses ignore x, y and the strides.
    #[test]
    fn lanes_and_addresses_of_each_layout() {
        let words = [0x8807_0605_0403_02ff, 0x1110_0f0e_0d0c_0b0a, 0x1918_1716_1514_1312, 0x2120_1f1e_1d1c_1b1a];
        let read = |data_use, two_byte, per_kernel| OperandRead { base: 0x1000, line: 0x100, surface: 0x400, data_use, two_byte, per_kernel };
        let one = read(1, false, false).operands(&words);
        assert_eq!((one[0], one[7]), ((-1, 0), (-120, 0)));
        assert_eq!(read(0, false, false).operands(&words)[1], (0, 2));
        let both = read(2, false, false).operands(&words);
        assert_eq!((both[0], both[1], both[7]), ((-1, 2), (3, 4), (0x10, 0x11)));
        assert_eq!(read(1, true, false).operands(&words)[0], (0x02ff, 0));
        assert_eq!(read(0, true, false).operands(&words)[3], (0, -0x77f9));
        let wide = read(2, true, false).operands(&words);
        assert_eq!((wide[0], wide[7]), ((0x02ff, 0x0403), (0x1f1e, 0x2120)));
        assert_eq!(read(3, false, false).operands(&words)[2], (3, 0));
        assert_eq!(read(1, false, false).address(2, 1, 3), 0x1000 + 3 * 0x400 + 0x100 + 16);
        assert_eq!(read(2, true, false).address(2, 1, 3), 0x1000 + 3 * 0x400 + 0x100 + 64);
        assert_eq!(read(2, true, true).address(2, 1, 3), 0x1000 + 3 * 32);
        assert_eq!(read(1, false, true).address(5, 5, 1), 0x1008);
    }
}
