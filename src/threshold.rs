//! Thresholds moved into the plan ([`crate::plan::threshold`]), which carries them; this path
//! stays for the modules that judge and print them.

pub use crate::plan::threshold::*;
