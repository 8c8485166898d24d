//! (being built)

use super::ClassDef;
use crate::script::value::Value;

pub(super) const CLASSES: &[ClassDef] = &[];

pub(crate) fn date_millis(v: &Value) -> Option<i64> {
    let _ = v;
    None
}

pub(crate) fn format_millis(millis: i64, pattern: &str, offset_seconds: i32) -> String {
    let _ = (pattern, offset_seconds);
    millis.to_string()
}
