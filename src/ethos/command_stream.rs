//! Ethos-U65 command streams as Vela writes them: the driver payload around the stream
//! (Vela's `driver_actions.py`: the fourcc `COP1`, a config tag with the CONFIG and ID words,
//! NOPs, a CmdStream tag with the stream's length in words) and the cmd0/cmd1 words inside
//! (TRM §4.6; the command table is `npu_hdl::ethos::command_set`).
//!
//! Errors are found, never skipped: a reserved control field or opcode, a cmd1 whose payload
//! word is missing, a stream shorter than its header says, bytes that are not whole words.
//! Each names the byte offset of the command in the stream, as Vela's
//! `--verbose-register-command-stream` listing numbers them.
use npu_hdl::ethos::command_set::{self, Command, Kind};
use std::fmt;

/// One command of a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Byte offset of the command's first word in the command stream.
    pub offset: usize,
    pub command: &'static Command,
    /// Bits 31:16 of the first word.
    pub param: u16,
    /// The second word of a cmd1.
    pub payload: Option<u32>,
}

impl Decoded {
    /// Bits 15:0 of the first word: control field and opcode (Vela's "Code" column).
    pub fn code(&self) -> u16 {
        self.command.word(0) as u16
    }
}

/// Vela's listing columns: offset, payload (cmd1), parameter, code, name.
impl fmt::Display for Decoded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let payload = self.payload.map_or("        ".to_string(), |p| format!("{p:08x}"));
        write!(f, "{:#08x}: {payload} {:04x} {:04x} - {}", self.offset, self.param, self.code(), self.command.name)
    }
}

/// Why a stream or payload is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StreamError {
    /// The byte count is not a multiple of 4.
    NotWords { bytes: usize },
    /// The driver payload does not start with `COP1`.
    NoFourcc,
    /// A driver tag the payload format does not have, at this byte offset.
    DriverTag { offset: usize, word: u32 },
    /// The driver payload has no CmdStream tag.
    NoStream,
    /// The CmdStream tag announces more words than follow (or fewer: trailing words).
    Length { announced: usize, present: usize },
    /// A word at this byte offset with a reserved control field or opcode.
    Reserved { offset: usize, word: u32 },
    /// A cmd1 at this byte offset is the stream's last word: its payload is missing.
    MissingPayload { offset: usize, name: &'static str },
}

impl fmt::Display for StreamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StreamError::NotWords { bytes } => write!(f, "{bytes} bytes are not a whole number of 32-bit words"),
            StreamError::NoFourcc => write!(f, "the driver payload does not start with COP1"),
            StreamError::DriverTag { offset, word } => write!(f, "byte {offset:#x}: {word:#010x} is not a driver tag (config, NOP or command stream)"),
            StreamError::NoStream => write!(f, "the driver payload has no command stream tag"),
            StreamError::Length { announced, present } => write!(f, "the header announces {announced} command words, {present} follow"),
            StreamError::Reserved { offset, word } => write!(f, "byte {offset:#x}: {word:#010x} has a reserved opcode or control field"),
            StreamError::MissingPayload { offset, name } => write!(f, "byte {offset:#x}: {name} is a cmd1, but the stream ends before its payload word"),
        }
    }
}

impl std::error::Error for StreamError {}

/// The driver payload's words (Vela's `create_driver_payload`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DriverPayload {
    /// The CONFIG register value Vela compiled for (product, MACs per cycle, SHRAM size).
    pub config: u32,
    /// The ID register value (architecture revision).
    pub id: u32,
    /// The command stream's words.
    pub stream: Vec<u32>,
}

/// Driver tag ids (bits 7:0 of a tag word), from Vela's `DACommands`.
const TAG_CONFIG: u32 = 0x01;
const TAG_CMD_STREAM: u32 = 0x02;
const TAG_NOP: u32 = 0x05;

/// Little-endian 32-bit words of `bytes`.
pub fn words(bytes: &[u8]) -> Result<Vec<u32>, StreamError> {
    if bytes.len() % 4 != 0 {
        return Err(StreamError::NotWords { bytes: bytes.len() });
    }
    Ok(bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

impl DriverPayload {
    /// Splits a driver payload (`cmd_data` of Vela's raw output) into its parts.
    pub fn parse(bytes: &[u8]) -> Result<Self, StreamError> {
        let words = words(bytes)?;
        if words.first() != Some(&u32::from_le_bytes(*b"COP1")) {
            return Err(StreamError::NoFourcc);
        }
        let (mut config, mut id, mut at) = (0, 0, 1);
        loop {
            let Some(&tag) = words.get(at) else { return Err(StreamError::NoStream) };
            match tag & 0xff {
                TAG_CONFIG if at + 2 < words.len() => {
                    (config, id) = (words[at + 1], words[at + 2]);
                    at += 3;
                }
                TAG_NOP => at += 1,
                TAG_CMD_STREAM => {
                    // Length: bits 31:16, high byte in bits 15:8.
                    let announced = ((tag >> 16) | ((tag >> 8 & 0xff) << 16)) as usize;
                    let stream = words[at + 1..].to_vec();
                    if stream.len() != announced {
                        return Err(StreamError::Length { announced, present: stream.len() });
                    }
                    return Ok(DriverPayload { config, id, stream });
                }
                _ => return Err(StreamError::DriverTag { offset: 4 * at, word: tag }),
            }
        }
    }
}

/// Every command of a stream, in order.
pub fn decode(stream: &[u32]) -> Result<Vec<Decoded>, StreamError> {
    let mut commands = Vec::new();
    let mut at = 0;
    while at < stream.len() {
        let (offset, word) = (4 * at, stream[at]);
        let command = command_set::lookup(word).ok_or(StreamError::Reserved { offset, word })?;
        let payload = match command.kind {
            Kind::Cmd0 => None,
            Kind::Cmd1 => Some(*stream.get(at + 1).ok_or(StreamError::MissingPayload { offset, name: command.name })?),
        };
        commands.push(Decoded { offset, command, param: (word >> 16) as u16, payload });
        at += 1 + usize::from(payload.is_some());
    }
    Ok(commands)
}

/// A line of Vela's `--verbose-register-command-stream` listing as (offset, payload,
/// parameter, code, name); the legacy core prefixes names with `cmd0.`/`cmd1.`. None if the
/// line does not have those columns.
fn listed(line: &str) -> Option<(usize, Option<u32>, u16, u16, String)> {
    let (head, name) = line.split_once(" - ")?;
    let (offset, columns) = head.split_once(':')?;
    let hex: Vec<u32> = columns.split_whitespace().map(|w| u32::from_str_radix(w, 16).ok()).collect::<Option<_>>()?;
    let (payload, param, code) = match hex[..] {
        [param, code] => (None, param, code),
        [payload, param, code] => (Some(payload), param, code),
        _ => return None,
    };
    let name = name.split_whitespace().next()?;
    let name = name.strip_prefix("cmd0.").or_else(|| name.strip_prefix("cmd1.")).unwrap_or(name);
    Some((usize::from_str_radix(offset.trim_start_matches("0x"), 16).ok()?, payload, param as u16, code as u16, name.to_string()))
}

/// Where the decoded `commands` and the command lines of Vela's listing disagree (offset,
/// payload, parameter, code, name of each command, and their number), if anywhere.
pub fn listing_disagreement(commands: &[Decoded], listing: &str) -> Option<String> {
    let lines: Vec<&str> = listing.lines().collect();
    if lines.len() != commands.len() {
        return Some(format!("Vela lists {} commands, the decoder finds {}", lines.len(), commands.len()));
    }
    commands.iter().zip(lines).find_map(|(c, line)| {
        let ours = (c.offset, c.payload, c.param, c.code(), c.command.name.to_string());
        (listed(line).as_ref() != Some(&ours)).then(|| format!("Vela lists `{line}`, the decoder `{c}`"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(name: &str, param: u16) -> u32 {
        command_set::named(name).unwrap().word(param)
    }

    /// The TRM's MaxPool example ends `BLOCKDEP, OP_POOL (max), STOP` (digest §3.6).
    #[test]
    fn decodes_cmd0_and_cmd1_with_offsets() {
        let stream = [cmd("NPU_SET_IFM_BASE0", 0), 0x400, cmd("NPU_SET_BLOCKDEP", 0), cmd("NPU_OP_POOL", 0), cmd("NPU_OP_STOP", 0xffff)];
        let d = decode(&stream).unwrap();
        let listed: Vec<(usize, &str, u16, Option<u32>)> = d.iter().map(|c| (c.offset, c.command.name, c.param, c.payload)).collect();
        assert_eq!(listed, [(0, "NPU_SET_IFM_BASE0", 0, Some(0x400)), (8, "NPU_SET_BLOCKDEP", 0, None), (12, "NPU_OP_POOL", 0, None), (16, "NPU_OP_STOP", 0xffff, None)]);
        assert_eq!(d[0].to_string(), "0x000000: 00000400 0000 4000 - NPU_SET_IFM_BASE0");
        assert_eq!(d[3].to_string(), "0x000010:          ffff 0000 - NPU_OP_STOP");
    }

    #[test]
    fn bad_streams_are_refused_with_the_offset() {
        let conv = cmd("NPU_OP_CONV", 0);
        assert_eq!(decode(&[conv, 0x0000_0004]), Err(StreamError::Reserved { offset: 4, word: 4 }));
        assert_eq!(decode(&[conv, 0x8002]), Err(StreamError::Reserved { offset: 4, word: 0x8002 }));
        assert_eq!(decode(&[conv, cmd("NPU_SET_WEIGHT_BASE", 0)]), Err(StreamError::MissingPayload { offset: 4, name: "NPU_SET_WEIGHT_BASE" }));
        assert_eq!(words(&[1, 2, 3]), Err(StreamError::NotWords { bytes: 3 }));
        assert!(decode(&[]).unwrap().is_empty());
    }

    fn payload(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn driver_payload_header_is_checked() {
        let cop1 = u32::from_le_bytes(*b"COP1");
        let stop = cmd("NPU_OP_STOP", 0xffff);
        let good = [cop1, 0x0010_0001, 0xabcd, 0x1234, 5, 5, 5, 0x0001_0002, stop];
        assert_eq!(DriverPayload::parse(&payload(&good)), Ok(DriverPayload { config: 0xabcd, id: 0x1234, stream: vec![stop] }));
        // A length above 65535 words uses the high byte (bits 15:8).
        let long = [cop1, 0x0000_0102];
        assert_eq!(DriverPayload::parse(&payload(&long)), Err(StreamError::Length { announced: 0x10000, present: 0 }));
        assert_eq!(DriverPayload::parse(&payload(&good[..8])), Err(StreamError::Length { announced: 1, present: 0 }));
        assert_eq!(DriverPayload::parse(&payload(&[cop1, 5, 5])), Err(StreamError::NoStream));
        assert_eq!(DriverPayload::parse(&payload(&[cop1, 0x77])), Err(StreamError::DriverTag { offset: 4, word: 0x77 }));
        assert_eq!(DriverPayload::parse(&payload(&[0, 2])), Err(StreamError::NoFourcc));
        assert_eq!(DriverPayload::parse(&[0x43, 0x4f]), Err(StreamError::NotWords { bytes: 2 }));
    }
}
