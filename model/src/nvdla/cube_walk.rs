//! The walk of a DMA over a cube in memory: three nested counters, innermost first, and the
//! current position's address kept as running pointers (docs/nvdla.md "Cube walk"). RTL:
//! `npu_hdl::nvdla::CubeWalk`. The engines' models step a [`Walk`] where their RTL steps the
//! block; [`CubeWalk`] is the block's ports for its own lock-step test.
use super::convert::ATOM;
use crate::Block;

/// What a walk needs of a cube: where it starts, the bytes between neighbours and the last
/// index of each dimension (count minus 1, as the RDL's fields), innermost first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cube {
    pub base: u64,
    pub strides: [u64; 3],
    pub last: [u64; 3],
}

impl Cube {
    /// A cube of 8-byte atoms walked x fastest, then lines, then surfaces (SDP's and PDP's
    /// order): `width` x `height` atoms a surface, `surfaces` surfaces (counts).
    pub fn atoms(base: u64, line: u64, surface: u64, width: u64, height: u64, surfaces: u64) -> Self {
        Cube { base, strides: [ATOM, line, surface], last: [width - 1, height - 1, surfaces - 1] }
    }
}

/// The state of a walk: the position's indices, its address, and the starts of its innermost
/// and middle runs (the RTL's `position`, `run0`, `run1`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walk {
    index: [u64; 3],
    position: u64,
    runs: [u64; 2],
}

impl Walk {
    /// At position (0, 0, 0), address `base`.
    pub fn start(base: u64) -> Self {
        Walk { index: [0; 3], position: base, runs: [base; 2] }
    }

    pub fn addr(&self) -> u64 {
        self.position
    }

    /// The index of dimension `d` (0 innermost).
    pub fn index(&self, d: usize) -> u64 {
        self.index[d]
    }

    /// Dimension `d`'s counter is at its last index.
    pub fn end(&self, cube: &Cube, d: usize) -> bool {
        self.index[d] == cube.last[d]
    }

    /// The position is the cube's last.
    pub fn last(&self, cube: &Cube) -> bool {
        (0..3).all(|d| self.end(cube, d))
    }

    /// How many of the dimensions, innermost first, end at the position (0 ..= 3).
    fn ends(&self, cube: &Cube) -> usize {
        (0..3).take_while(|&d| self.end(cube, d)).count()
    }

    /// The address a step goes to: along the innermost run, else the next run's start, else
    /// (after the last position) `base` again.
    pub fn next_addr(&self, cube: &Cube) -> u64 {
        match self.ends(cube) {
            0 => self.position.wrapping_add(cube.strides[0]),
            1 => self.runs[0].wrapping_add(cube.strides[1]),
            2 => self.runs[1].wrapping_add(cube.strides[2]),
            _ => cube.base,
        }
    }

    /// To the next position (the counters of the dimensions that end go back to 0, the next
    /// one counts; a run that starts here starts at the new address).
    pub fn step(&mut self, cube: &Cube) {
        let ends = self.ends(cube);
        let next = self.next_addr(cube);
        for d in 0..3 {
            match d.cmp(&ends) {
                std::cmp::Ordering::Less => self.index[d] = 0,
                std::cmp::Ordering::Equal => self.index[d] = (self.index[d] + 1) & 0x1fff,
                std::cmp::Ordering::Greater => {}
            }
        }
        for r in 0..ends.min(2) {
            self.runs[r] = next;
        }
        self.position = next;
    }
}

/// Every input port (the rust-hdl names).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct In {
    pub reset: bool,
    pub start: bool,
    pub step: bool,
    pub base: u64,
    pub stride0: u64,
    pub stride1: u64,
    pub stride2: u64,
    pub last0: u16,
    pub last1: u16,
    pub last2: u16,
}

impl In {
    pub fn cube(&self) -> Cube {
        Cube { base: self.base, strides: [self.stride0, self.stride1, self.stride2], last: [self.last0, self.last1, self.last2].map(u64::from) }
    }
}

/// Every output port.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Out {
    pub addr: u64,
    pub next_addr: u64,
    pub index0: u16,
    pub end0: bool,
    pub end1: bool,
    pub last: bool,
}

/// The block: a [`Walk`] and what its last cycle did.
#[derive(Clone, Debug, Default)]
pub struct CubeWalk {
    walk: Walk,
    events: Vec<&'static str>,
}

impl Block for CubeWalk {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, input: &In) -> Out {
        let cube = input.cube();
        let w = &self.walk;
        let out = Out { addr: w.addr(), next_addr: w.next_addr(&cube), index0: w.index(0) as u16, end0: w.end(&cube, 0), end1: w.end(&cube, 1), last: w.last(&cube) };
        self.events.clear();
        self.events.push(match (input.reset, input.start, input.step, w.ends(&cube)) {
            (true, ..) => "reset",
            (_, true, _, _) => "start",
            (_, _, true, 0) => "step along the innermost run",
            (_, _, true, 1) => "step to the next innermost run",
            (_, _, true, 2) => "step to the next outer run",
            (_, _, true, _) => "step past the last position: back to base",
            _ => "hold",
        });
        if input.reset {
            self.walk = Walk::default();
        } else if input.start {
            self.walk = Walk::start(input.base);
        } else if input.step {
            self.walk.step(&cube);
        }
        out
    }

    fn events(&self) -> &[&'static str] {
        &self.events
    }
}
