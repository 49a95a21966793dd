//! Input buffer (seeds/002 §6.1). RTL: `hdl/src/mnist/input_buffer.rs`.
use crate::Block;

#[derive(Clone, Debug, Default)]
pub struct In {
    pub reset: bool,
    pub en_buf_in: bool,
    pub clr_buf_in: bool,
    pub da: u8,
    pub db: u8,
    pub dc: u8,
    pub dd: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Out {
    pub buf_a: u8,
    pub buf_b: u8,
    pub buf_c: u8,
    pub buf_d: u8,
}

#[derive(Default)]
pub struct InputBuffer {
    channels: [u8; 4],
    event: &'static str,
}

impl InputBuffer {
    /// The outputs, which depend only on the state.
    pub fn outputs(&self) -> Out {
        let [buf_a, buf_b, buf_c, buf_d] = self.channels;
        Out { buf_a, buf_b, buf_c, buf_d }
    }
}

impl Block for InputBuffer {
    type In = In;
    type Out = Out;

    fn reset_input() -> Option<In> {
        Some(In { reset: true, ..In::default() })
    }

    fn step(&mut self, i: &In) -> Out {
        let out = self.outputs();
        (self.channels, self.event) = if i.reset {
            ([0; 4], "reset")
        } else if i.clr_buf_in {
            ([0; 4], if i.en_buf_in { "clear beats enable" } else { "clear" })
        } else if i.en_buf_in {
            ([i.da, i.db, i.dc, i.dd], "load")
        } else {
            (self.channels, "hold")
        };
        out
    }

    fn events(&self) -> &[&'static str] {
        std::slice::from_ref(&self.event)
    }
}
