//! Waveforms read back from a Verilated run, drawn as timing diagrams.
//!
//! [`Vcd`] reads the FST that `NPU_WAVES` (or [`crate::cosim::DutOptions::waves`]) writes,
//! through gtkwave's `fst2vcd`; [`Row`]s sampled from it become WaveDrom JSON
//! ([`wavedrom_json`]) and a self-contained SVG picture ([`svg`]), so the timing diagrams in
//! the documentation are drawn from the RTL itself.
use std::collections::HashMap;
use std::fmt::Write;
use std::path::Path;
use std::process::Command;

/// One clock period in the waveform's time units (ns): the shim's trace clock, the MNIST
/// NPU's 6.25 MHz. Cycle c (0 = the first cycle) is sampled at time c · PERIOD, before its
/// rising edge.
pub const PERIOD: u64 = 160;

/// A value change dump: every variable's changes over time.
pub struct Vcd {
    /// Hierarchical name (scopes joined with '.') → identifier code.
    names: Vec<(String, String)>,
    /// Identifier code → (time, value bits, MSB first) in time order.
    changes: HashMap<String, Vec<(u64, String)>>,
}

impl Vcd {
    /// Converts an FST file with `fst2vcd` and parses it.
    pub fn from_fst(path: &Path) -> Self {
        let out = Command::new("fst2vcd").arg(path).output().expect("fst2vcd (gtkwave) is installed by make deps");
        assert!(out.status.success(), "fst2vcd {}: {}", path.display(), String::from_utf8_lossy(&out.stderr));
        Self::parse(&String::from_utf8_lossy(&out.stdout))
    }

    pub fn parse(text: &str) -> Self {
        let mut scopes: Vec<&str> = Vec::new();
        let mut names = Vec::new();
        let mut changes: HashMap<String, Vec<(u64, String)>> = HashMap::new();
        let mut time = 0;
        let mut words = text.split_whitespace();
        while let Some(w) = words.next() {
            match w {
                "$scope" => scopes.push(words.nth(1).unwrap_or("")),
                "$upscope" => {
                    scopes.pop();
                }
                "$var" => {
                    let (_kind, _width, id, name) = (words.next(), words.next(), words.next().unwrap_or(""), words.next().unwrap_or(""));
                    names.push((format!("{}.{name}", scopes.join(".")), id.to_string()));
                }
                _ if w.starts_with('#') => time = w[1..].parse().unwrap_or(time),
                _ if w.starts_with('b') => {
                    let id = words.next().unwrap_or("");
                    changes.entry(id.to_string()).or_default().push((time, w[1..].to_string()));
                }
                _ if w.len() >= 2 && matches!(w.as_bytes()[0], b'0' | b'1' | b'x' | b'z') && !w.starts_with("$") => {
                    changes.entry(w[1..].to_string()).or_default().push((time, w[..1].to_string()));
                }
                _ => {}
            }
        }
        Self { names, changes }
    }

    /// The identifier of the one variable whose hierarchical name ends with `.suffix`; panics
    /// naming the candidates otherwise.
    pub fn find(&self, suffix: &str) -> &str {
        let dotted = format!(".{suffix}");
        let mut ids: Vec<&str> = self.names.iter().filter(|(n, _)| n.ends_with(&dotted)).map(|(_, id)| id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert!(ids.len() == 1, "signal {suffix:?}: {} matches", ids.len());
        ids[0]
    }

    /// The value of variable `id` at time `t` (its last change at or before `t`), or `None`
    /// while any bit is x or z.
    pub fn value_at(&self, id: &str, t: u64) -> Option<u64> {
        let changes = self.changes.get(id)?;
        let k = changes.partition_point(|(time, _)| *time <= t);
        let bits = &changes[k.checked_sub(1)?].1;
        u64::from_str_radix(bits, 2).ok()
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

/// WaveDrom JSON (https://wavedrom.com) of the rows over `cycles` cycles.
pub fn wavedrom_json(title: &str, cycles: usize, rows: &[Row]) -> String {
    let mut s = String::from("{\"signal\": [\n");
    for (k, row) in rows.iter().enumerate() {
        let (wave, data): (String, Vec<&str>) = match row {
            Row::Clock(_) => ("p".to_string() + &".".repeat(cycles - 1), vec![]),
            Row::Bit(_, v) => (v.iter().enumerate().map(|(i, &b)| if i > 0 && v[i - 1] == b { '.' } else if b { '1' } else { '0' }).collect(), vec![]),
            Row::Bus(_, v) => {
                let wave = v.iter().enumerate().map(|(i, l)| if i > 0 && v[i - 1] == *l { '.' } else { '=' }).collect();
                (wave, v.iter().enumerate().filter(|(i, l)| *i == 0 || v[i - 1] != **l).map(|(_, l)| l.as_str()).collect())
            }
        };
        let data = if data.is_empty() { String::new() } else { format!(", \"data\": [{}]", data.iter().map(|d| format!("\"{d}\"")).collect::<Vec<_>>().join(", ")) };
        let comma = if k + 1 < rows.len() { "," } else { "" };
        writeln!(s, "  {{\"name\": \"{}\", \"wave\": \"{wave}\"{data}}}{comma}", row.name()).unwrap();
    }
    write!(s, "],\n\"head\": {{\"text\": \"{title}\", \"tick\": 0}}}}\n").unwrap();
    s
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
