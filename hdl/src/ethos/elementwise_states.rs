//! The kernel unit's state codes and `kernel_error` codes ([`super::Elementwise`]; the model
//! `model/src/ethos/elementwise.rs` names the states in its events), apart so that the state
//! machine's file stays a readable size; re-exported by `elementwise.rs`.
//!
//! States: IDLE; LATCH, `LATCH_STEPS` cycles with the front end held
//! (`kernel_registers.rs`: the registers of `latch_table`, then the BASEPs of the IFM, IFM2
//! and OFM regions, into the three feature-map blocks and the scalar registers; the front end
//! goes on with the next commands afterwards: the unit keeps its own copies); CHECK; then per
//! OFM element, in NHWC order (c innermost). ELEMENTWISE: READ_A/WAIT_A (the IFM word),
//! READ_B/WAIT_B (the IFM2 word, skipped for a scalar). POOL, per kernel tap row by row:
//! READ_A/WAIT_A (the IFM word at the tap, into the max or sum as it comes; then the next tap:
//! issue 19, no cycle of its own; WAIT_A stays for the next tap when its read, offered as the
//! data come, is taken); READ_A of a tap in the padding reads nothing and steps to
//! the next tap (issue 19: no POOL_TAP cycle before each tap, code 11 is free). After a
//! pool's last tap its lanes go to the drain (`pool_taps.rs`: one OFM byte a cycle beside the
//! next word's taps) and the walk to the next word's READ_A; CALC is then only where a word
//! waits for a busy drain. ELEMENTWISE: CALC (result, output scale, clamp; the
//! byte gathered into its OFM word), the next element. After the last, FLUSH (the last word
//! written; a pool's drain empty first), DONE. An element with an IFM2 byte, but the last, skips CALC: READ_B (WAIT_B)
//! goes on to the next element's READ_A, whose first cycle takes the byte beside its read
//! (`deferred_byte`; READ_A waits while the byte cannot be taken, when it reads that byte,
//! and on a miss of its word: issue 19, docs/ethos.md "Elementwise unit timing"). READ_A (READ_B) whose word is in the IFM (IFM2) word cache (`word_cache.rs`,
//! in `elementwise_memory.rs`) reads nothing: the byte comes from the cache in that cycle and
//! the state after WAIT_A (WAIT_B) follows. The OFM write runs beside the element loop
//! (`elementwise_memory.rs`): CALC gathers bytes of one 64-bit word and hands the word, with
//! its strobes, to the write port when a byte of another word comes (CALC waits only if the
//! previous word's write is still in flight); a read that misses a word still being written
//! waits for that write.
//!
//! The kernel unit's decisions (the TRM leaves these open):
//! - CONV and DEPTHWISE answer at once with `kernel_error` = [`ERROR_UNSUPPORTED`] (no
//!   convolution in this unit yet), as does any field value the unit does not implement,
//!   found in CHECK before anything is read or written: the verdict is the sub-block
//!   `elementwise_check.rs`, whose comment lists what is refused and why.
//! - A read error is `kernel_error` [`ERROR_IFM`] (the TRM's IFM channel, for IFM2 too), a
//!   write error [`ERROR_OFM`]. A read error stops the element loop at once; a write's
//!   response comes while later elements are read, so its error stops the loop at the next
//!   READ_A, READ_B or CALC. Either way the unit then waits for a write in flight (FLUSH), drops
//!   the gathered word, writes nothing more and reports the first error.
//! - The IFM2 zero point is signed when IFM2_PRECISION bit 0 says so, also for a scalar
//!   (as the reference executor reads it).
//! - A pool with any IFM_PAD register set averages over the taps inside (the executor's
//!   rule, TFLite's AveragePool); with none it uses OFM_SCALE (Vela's full-window scale).
//! - One cached word per operand (`elementwise_memory.rs` has why it stays coherent); in word
//!   mode a second IFM2 entry.
//! - Word mode (issue 19): a word of 8 channels an element through 8 lanes where the maps lay
//!   channel c at lane c mod 8; the decision (in CHECK) is the sub-block `word_mode.rs`.
//! - A pool's tap walk does not depend on data: it steps as a tap's read is taken, and WAIT_A
//!   offers the next tap's read in the cycle this tap's data come, which the NPU's arbiter
//!   grants as that read completes (`npu.rs` has why not a second read in flight): an inside
//!   tap a cycle on a memory that answers in one (issue 19, docs/ethos.md "Pooling timing").
//!   Not on a read error (the kernel stops), nor for a tap in the padding, in the word that
//!   comes (the cache has it next: READ_A) or whose read waits for the OFM write (READ_A).
//!
//! Word mode (issue 19, `elementwise_lanes.rs`): an ELEMENTWISE whose maps put channel c at
//! lane c mod 8 runs the same states with an element of 8 channels (a word of each operand,
//! 8 lanes of results taken as one strobed OFM word); WAIT_A also takes the IFM2 word from
//! its cache (or the scalar) and leaves for the next READ_A as READ_B would.
//!

/// `kernel_error` codes (the TRM's faulting_channel codes for the memory errors, digest §4).
pub const ERROR_IFM: u8 = 1;
pub const ERROR_OFM: u8 = 8;
/// A field value or kernel the NPU does not implement (STATUS.cmd_parse_error).
pub const ERROR_UNSUPPORTED: u8 = 15;

/// States (the model names them in its events).
pub mod state {
    pub const IDLE: u8 = 0;
    pub const LATCH: u8 = 1;
    pub const CHECK: u8 = 2;
    pub const READ_A: u8 = 3;
    pub const WAIT_A: u8 = 4;
    pub const READ_B: u8 = 5;
    pub const WAIT_B: u8 = 6;
    pub const CALC: u8 = 7;
    /// The kernel's end: the gathered OFM word handed to the write port, its write done.
    pub const FLUSH: u8 = 8;
    pub const DONE: u8 = 10;
}
