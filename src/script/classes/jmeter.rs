//! (being built)

use super::ClassDef;
#[allow(unused_imports)]
use crate::script::{value::Value, Thrown};

pub(super) const CLASSES: &[ClassDef] = &[];
