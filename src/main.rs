//! `npu`: the command-line entry points. `npu --help` lists the commands, `npu <command>
//! --help` their options; `npu completions bash|zsh|fish|elvish|powershell` writes a shell
//! completion script.
//!
//! Exit status: 0 done; 1 a check failed (the RTL disagreed with its model or the reference);
//! 2 a usage error (clap's own) or an input that is refused (a file that does not parse, a
//! path that cannot be written, a stream that is malformed).
mod cli;

use clap::{CommandFactory, Parser, Subcommand};
use std::process::ExitCode;

/// Open reference RTL of small NPU datapaths: the Verilated rust-hdl RTL, or its behavioural
/// model, run on real data.
#[derive(Parser)]
#[command(name = "npu", version, propagate_version = true, arg_required_else_help = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    Mnist(cli::mnist::Mnist),
    /// Arm Ethos-U65: compressed weight streams (TRM 4.7)
    #[command(subcommand, arg_required_else_help = true)]
    Ethos(cli::ethos::Ethos),
    /// ScaleNPU: layers through its register map, the Iris and MNIST classifiers
    #[command(subcommand, arg_required_else_help = true)]
    Scale(cli::scale::Scale),
    /// NVDLA nv_small: NVIDIA's trace tests played on the units built so far
    #[command(subcommand, arg_required_else_help = true)]
    Nvdla(cli::nvdla::Nvdla),
    /// Writes a completion script for a shell to standard output
    Completions {
        /// The shell (bash: `source <(npu completions bash)`)
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Command::Mnist(command) => command.run(),
        Command::Ethos(command) => command.run(),
        Command::Scale(command) => command.run(),
        Command::Nvdla(command) => command.run(),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut Cli::command(), "npu", &mut std::io::stdout());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => failure.report(),
    }
}
