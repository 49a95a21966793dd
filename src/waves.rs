//! Waveforms read back from a Verilated run, drawn as timing diagrams.
//!
//! [`Waves`] reads the FST that `NPU_WAVES` (or [`crate::cosim::DutOptions::waves`]) writes,
//! with the `wellen` crate; [`Row`]s sampled from it become WaveDrom JSON
//! ([`wavedrom_json`]) and a self-contained SVG picture ([`svg`]), so the timing diagrams in
//! the documentation are drawn from the RTL itself.
use serde::Serialize;
use std::fmt::Write;
use std::path::Path;
use wellen::{simple, SignalRef, TimeTableIdx};

/// One clock period in the waveform's time units (ns): the shim's trace clock, the MNIST
/// NPU's 6.25 MHz. Cycle c (0 = the first cycle) is sampled at time c · PERIOD, before its
/// rising edge.
pub const PERIOD: u64 = 160;

/// A waveform: every variable's changes over time, all loaded (the files the tests and
/// `make docs` read are a few thousand cycles).
pub struct Waves {
    /// Hierarchical name (scopes joined with '.') → signal. Several names may share a signal
    /// (a port seen from inside and outside a module).
    names: Vec<(String, SignalRef)>,
    /// The signals (all loaded) and the times of their changes.
    waveform: simple::Waveform,
}

impl Waves {
    /// Reads an FST file (as Verilator writes it); the error names the file.
    pub fn read(path: &Path) -> Result<Self, String> {
        let mut waveform = simple::read(path).map_err(|e| format!("{}: cannot read the waveform: {e}", path.display()))?;
        let hierarchy = waveform.hierarchy();
        let names: Vec<(String, SignalRef)> =
            hierarchy.all_vars().map(|v| (hierarchy[v].full_name(hierarchy), hierarchy[v].signal_ref())).collect();
        let mut refs: Vec<SignalRef> = names.iter().map(|&(_, r)| r).collect();
        refs.sort_unstable();
        refs.dedup();
        waveform.load_signals(&refs);
        Ok(Self { names, waveform })
    }

    /// Every variable's hierarchical name.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.names.iter().map(|(n, _)| n.as_str())
    }

    /// The one signal whose hierarchical name ends with `.suffix`; an error naming the
    /// suffix and the number of matches otherwise.
    pub fn find(&self, suffix: &str) -> Result<SignalRef, String> {
        let dotted = format!(".{suffix}");
        let mut ids: Vec<SignalRef> = self.names.iter().filter(|(n, _)| n.ends_with(&dotted)).map(|&(_, id)| id).collect();
        ids.sort_unstable();
        ids.dedup();
        match ids[..] {
            [id] => Ok(id),
            _ => Err(format!("signal `{suffix}`: {} matches in the waveform, not 1", ids.len())),
        }
    }

    /// The value of signal `id` at time `t` (its last change at or before `t`), or `None`
    /// while any bit is x or z, before its first change, or for a signal wider than 64 bits.
    pub fn value_at(&self, id: SignalRef, t: u64) -> Option<u64> {
        let signal = self.waveform.get_signal(id)?;
        let k = self.waveform.time_table().partition_point(|&time| time <= t).checked_sub(1)?;
        let offset = signal.get_offset(TimeTableIdx::try_from(k).ok()?)?;
        let bits = signal.get_value_at(&offset, 0).to_bit_string()?;
        u64::from_str_radix(&bits, 2).ok()
    }
}

/// One row of a timing diagram, one value per clock cycle.
pub enum Row {
    Clock(String),
    Bit(String, Vec<bool>),
    /// A bus: a label per cycle; equal neighbours merge into one segment.
    Bus(String, Vec<String>),
}

impl Row {
    pub fn name(&self) -> &str {
        match self {
            Row::Clock(n) | Row::Bit(n, _) | Row::Bus(n, _) => n,
        }
    }
}

/// A markdown table, one line per cycle: its number, `labels[cycle]`, then each row's value
/// (1 or blank for a bit); clock rows are left out.
pub fn markdown_table(label_heading: &str, labels: &[String], rows: &[Row]) -> String {
    let rows: Vec<&Row> = rows.iter().filter(|r| !matches!(r, Row::Clock(_))).collect();
    let mut s = format!("| cycle | {label_heading} |");
    for row in &rows {
        write!(s, " {} |", row.name()).unwrap();
    }
    s += &format!("\n|{}\n", " --- |".repeat(rows.len() + 2));
    for (c, label) in labels.iter().enumerate() {
        write!(s, "| {c} | {label} |").unwrap();
        for row in &rows {
            match row {
                Row::Bit(_, v) => s += if v[c] { " 1 |" } else { "  |" },
                Row::Bus(_, v) => write!(s, " {} |", v[c]).unwrap(),
                Row::Clock(_) => {}
            }
        }
        s += "\n";
    }
    s
}

/// A WaveDrom diagram (https://wavedrom.com): its signals and its title.
#[derive(Serialize)]
struct WaveDrom<'a> {
    signal: Vec<Lane<'a>>,
    head: Head<'a>,
}

/// One lane: the wave characters, one a cycle, and a bus's segment labels.
#[derive(Serialize)]
struct Lane<'a> {
    name: &'a str,
    wave: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    data: Vec<&'a str>,
}

#[derive(Serialize)]
struct Head<'a> {
    text: &'a str,
    tick: u32,
}

/// WaveDrom JSON of the rows over `cycles` cycles, one lane a line (as WaveDrom's own
/// examples are laid out, so a change in the RTL's timing is a one-line diff of
/// docs/mnist/frame_timing.json).
pub fn wavedrom_json(title: &str, cycles: usize, rows: &[Row]) -> String {
    let signal = rows
        .iter()
        .map(|row| {
            let (wave, data) = lane(row, cycles);
            Lane { name: row.name(), wave, data }
        })
        .collect();
    let diagram = WaveDrom { signal, head: Head { text: title, tick: 0 } };
    let mut out = Vec::new();
    diagram.serialize(&mut serde_json::Serializer::with_formatter(&mut out, LanePerLine::default())).expect("serializing to memory cannot fail");
    String::from_utf8(out).expect("serde_json writes UTF-8") + "\n"
}

/// A row's WaveDrom wave characters over `cycles` cycles (`.` repeats the previous value) and a
/// bus's labels, one per segment.
fn lane(row: &Row, cycles: usize) -> (String, Vec<&str>) {
    match row {
        Row::Clock(_) => ("p".to_string() + &".".repeat(cycles.saturating_sub(1)), vec![]),
        Row::Bit(_, v) => (v.iter().enumerate().map(|(i, &b)| if i > 0 && v[i - 1] == b { '.' } else if b { '1' } else { '0' }).collect(), vec![]),
        Row::Bus(_, v) => {
            let wave = v.iter().enumerate().map(|(i, l)| if i > 0 && v[i - 1] == *l { '.' } else { '=' }).collect();
            (wave, v.iter().enumerate().filter(|(i, l)| *i == 0 || v[i - 1] != **l).map(|(_, l)| l.as_str()).collect())
        }
    }
}

/// serde_json's compact output with `": "` and `", "` between items, and each element of
/// the top object's arrays (the lanes) on its own line: the layout of WaveDrom's examples.
/// serde_json's pretty printer would put every field of a lane on a line of its own.
#[derive(Default)]
struct LanePerLine {
    /// Nesting depth of objects and arrays.
    depth: usize,
}

impl serde_json::ser::Formatter for LanePerLine {
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        w.write_all(b"{")
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        w.write_all(b"}")
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth += 1;
        w.write_all(b"[")
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.depth -= 1;
        w.write_all(if self.depth == 1 { b"\n]" } else { b"]" })
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        match (self.depth, first) {
            (2, true) => w.write_all(b"\n  "),
            (2, false) => w.write_all(b",\n  "),
            (_, true) => Ok(()),
            (_, false) => w.write_all(b", "),
        }
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W, first: bool) -> std::io::Result<()> {
        match (self.depth, first) {
            (_, true) => Ok(()),
            (1, false) => w.write_all(b",\n"),
            (_, false) => w.write_all(b", "),
        }
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

/// The rows as an SVG picture in WaveDrom's style: cycle numbers on top, one lane a row.
pub fn svg(title: &str, cycles: usize, rows: &[Row]) -> String {
    const NAME_W: usize = 120;
    const CYCLE_W: usize = 44;
    const ROW_H: usize = 26;
    const TOP: usize = 44;
    let width = NAME_W + cycles * CYCLE_W + 10;
    let height = TOP + rows.len() * ROW_H + 10;
    let x = |c: usize| NAME_W + c * CYCLE_W;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" font-family=\"monospace\" font-size=\"11\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{}\" y=\"16\" font-size=\"13\" text-anchor=\"middle\">{title}</text>\n",
        width / 2
    );
    for c in 0..cycles {
        writeln!(s, "<text x=\"{}\" y=\"36\" text-anchor=\"middle\" fill=\"#888\">{c}</text>", x(c) + CYCLE_W / 2).unwrap();
        writeln!(s, "<line x1=\"{0}\" y1=\"40\" x2=\"{0}\" y2=\"{1}\" stroke=\"#eee\"/>", x(c), height - 10).unwrap();
    }
    for (r, row) in rows.iter().enumerate() {
        let top = TOP + r * ROW_H + 4;
        let (hi, lo, mid) = (top, top + ROW_H - 8, top + (ROW_H - 8) / 2);
        writeln!(s, "<text x=\"4\" y=\"{}\">{}</text>", mid + 4, row.name()).unwrap();
        match row {
            Row::Clock(_) => {
                let mut path = format!("M{} {lo}", x(0));
                for c in 0..cycles {
                    write!(path, " V{hi} H{} V{lo} H{}", x(c) + CYCLE_W / 2, x(c + 1)).unwrap();
                }
                writeln!(s, "<path d=\"{path}\" fill=\"none\" stroke=\"black\"/>").unwrap();
            }
            Row::Bit(_, v) => {
                let level = |b: bool| if b { hi } else { lo };
                let mut path = format!("M{} {}", x(0), level(v[0]));
                for (c, &b) in v.iter().enumerate() {
                    write!(path, " V{} H{}", level(b), x(c + 1)).unwrap();
                }
                writeln!(s, "<path d=\"{path}\" fill=\"none\" stroke=\"black\"/>").unwrap();
            }
            Row::Bus(_, v) => {
                let mut c = 0;
                while c < v.len() {
                    let run = v[c..].iter().take_while(|l| **l == v[c]).count();
                    let (a, b) = (x(c), x(c + run));
                    writeln!(
                        s,
                        "<path d=\"M{a} {mid} L{} {hi} H{} L{b} {mid} L{} {lo} H{} Z\" fill=\"#f4f8ff\" stroke=\"black\"/>\n\
                         <text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
                        a + 3,
                        b - 3,
                        b - 3,
                        a + 3,
                        (a + b) / 2,
                        mid + 4,
                        v[c]
                    )
                    .unwrap();
                    c += run;
                }
            }
        }
    }
    s + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wavedrom_json_parses_back_into_the_lanes() {
        let rows = [
            Row::Clock("CLK".into()),
            Row::Bit("EN".into(), vec![false, true, true, false]),
            Row::Bus("D \"x\\y\"".into(), ["00", "00", "7f", "00"].map(String::from).to_vec()),
        ];
        let text = wavedrom_json("a \"quoted\" title", 4, &rows);
        let json: serde_json::Value = serde_json::from_str(&text).expect("WaveDrom JSON is JSON");
        let expected = serde_json::json!({
            "signal": [
                {"name": "CLK", "wave": "p..."},
                {"name": "EN", "wave": "01.0"},
                {"name": "D \"x\\y\"", "wave": "=.==", "data": ["00", "7f", "00"]}
            ],
            "head": {"text": "a \"quoted\" title", "tick": 0}
        });
        assert_eq!(json, expected);
        // One lane a line, in the layout of docs/mnist/frame_timing.json.
        assert_eq!(
            text,
            "{\"signal\": [\n  {\"name\": \"CLK\", \"wave\": \"p...\"},\n  {\"name\": \"EN\", \"wave\": \"01.0\"},\n  \
             {\"name\": \"D \\\"x\\\\y\\\"\", \"wave\": \"=.==\", \"data\": [\"00\", \"7f\", \"00\"]}\n],\n\
             \"head\": {\"text\": \"a \\\"quoted\\\" title\", \"tick\": 0}}\n"
        );
    }
}
