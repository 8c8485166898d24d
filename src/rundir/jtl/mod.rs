//! JMeter's per-sample results files (JTL, CSV form): written as a run goes ([`spawn`], for the
//! files a JMX plan's listeners name and `run --jtl`), and read back into a [`Summary`] as a run
//! directory's ([`import`]), so that every report works on a JMeter run too.
//!
//! # Layout
//! - `write`: one line per sample on a writer thread of its own;
//! - `read`: the parallel block reader and row parser;
//! - `import`: rows into per-label stats, a summary and run facts.
//!
//! [`Summary`]: crate::rundir::Summary

mod import;
pub mod read;
mod write;

#[cfg(test)]
pub(crate) use import::tests::write as temp_jtl;
pub use import::{import, import_all, import_all_with, Imported};
pub use write::{format_row, spawn, Error, Names, HEADER};
