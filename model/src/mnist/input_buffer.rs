//! Input buffer (seeds/002 §6.1). RTL: `hdl/src/mnist/input_buffer.rs`.

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

    /// The rising edge.
    fn clock(&mut self, i: &In) -> &'static str {
        let event;
        (self.channels, event) = if i.reset {
            ([0; 4], "reset")
        } else if i.clr_buf_in {
            ([0; 4], if i.en_buf_in { "clear beats enable" } else { "clear" })
        } else if i.en_buf_in {
            ([i.da, i.db, i.dc, i.dd], "load")
        } else {
            (self.channels, "hold")
        };
        event
    }
}

crate::sequential_block!(InputBuffer);
