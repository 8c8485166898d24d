//! Reports: pure functions from what a run directory holds to text. `stampede run` prints its
//! end-of-run table through the same functions `stampede report` uses on a directory.

pub mod csv;
pub mod jtl_import;
pub mod markdown;

pub use markdown::{facts, table};
