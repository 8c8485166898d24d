//! `stampede compare RUN_A RUN_B [RUN_C...]`: runs side by side, with differences from the
//! first weighed against the runs' own noise.

use crate::error::{exit, Error};
use crate::report::compare::Layout;
use crate::report::compose::{self, CompareFormat};
use clap::{Args, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Md,
    /// One self-contained page with the runs' charts overlaid.
    Html,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LayoutArg {
    /// A row per run under each label, differences beside ("Without OPA / With OPA").
    Rows,
    /// A row per label, each figure's runs side by side.
    Columns,
    /// A column per run: `Throughput/sec @ avg resp time` ("1 Server / 2 Servers").
    Scaling,
}

#[derive(Debug, Args)]
pub(crate) struct CompareArgs {
    /// Run directories or JMeter results files; the first is the baseline.
    #[arg(required = true, num_args = 2..)]
    pub runs: Vec<PathBuf>,
    /// Names for the runs, comma-separated, in order (default: their directory or file names).
    #[arg(long, value_name = "A,B,...")]
    pub names: Option<String>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// The Markdown table's shape.
    #[arg(long, value_enum, default_value = "rows")]
    pub layout: LayoutArg,
    /// Write to this file instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub(super) fn execute(a: CompareArgs) -> Result<u8, Error> {
    let format = match a.format {
        Format::Md => CompareFormat::Md(match a.layout {
            LayoutArg::Rows => Layout::Rows,
            LayoutArg::Columns => Layout::Columns,
            LayoutArg::Scaling => Layout::Scaling,
        }),
        Format::Html => CompareFormat::Html,
        Format::Json => CompareFormat::Json,
    };
    let (text, damaged) = compose::comparison(&a.runs, a.names.as_deref(), format, &mut |w| eprintln!("{w}"))?;
    super::report::write(a.output.as_deref(), &text)?;
    Ok(if damaged { exit::RUNTIME } else { exit::OK })
}
