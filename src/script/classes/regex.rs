//! (being built)

use super::ClassDef;
#[allow(unused_imports)]
use crate::script::{value::Value, Thrown};

pub(super) const CLASSES: &[ClassDef] = &[];

pub(super) fn matcher(pattern: &str, text: &str) -> Result<Value, Thrown> {
    let _ = text;
    Err(Thrown::new("java.util.regex.PatternSyntaxException", format!("regexes are not built yet: {pattern}")))
}
