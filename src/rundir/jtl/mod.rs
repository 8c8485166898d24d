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
pub(crate) mod read;
mod write;

pub(crate) use import::import_all_with;
#[cfg(test)]
pub(crate) use import::tests::write as temp_jtl;
pub(crate) use write::{spawn, Error, Names, HEADER};
