//! The one comparison operator of plans: conditions of `if`/`while` steps, size checks and
//! thresholds all compare with a [`CmpOp`].

use serde::Serialize;
use std::cmp::Ordering;
use std::fmt::Display;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum CmpOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// The left side's text contains the right side's.
    Contains,
    NotContains,
}

impl CmpOp {
    pub(crate) fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Contains => "contains",
            CmpOp::NotContains => "!contains",
        }
    }

    /// Whether `left op right` holds, given how the two sides order (`None`: they do not, as
    /// a NaN) and, for `contains`, whether the left side contains the right.
    fn by(self, ord: Option<Ordering>, contains: impl FnOnce() -> bool) -> bool {
        match self {
            CmpOp::Eq => ord == Some(Ordering::Equal),
            CmpOp::Ne => ord != Some(Ordering::Equal),
            CmpOp::Lt => ord == Some(Ordering::Less),
            CmpOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
            CmpOp::Gt => ord == Some(Ordering::Greater),
            CmpOp::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
            CmpOp::Contains => contains(),
            CmpOp::NotContains => !contains(),
        }
    }

    /// Compares two values (sizes, a metric against its goal); `contains` reads their text.
    pub(crate) fn holds<T: PartialOrd + Display>(self, left: T, right: T) -> bool {
        self.by(left.partial_cmp(&right), || left.to_string().contains(&right.to_string()))
    }

    /// Applies the operator to two rendered operands. Orderings and equality are numeric when both
    /// sides read as numbers (so `10 > 9.5` and `200 == 200.0`), byte-wise on the exact text otherwise.
    pub(crate) fn apply(self, left: &str, right: &str) -> bool {
        let ord = match (number(left), number(right)) {
            (Some(l), Some(r)) => l.partial_cmp(&r),
            _ => Some(left.cmp(right)),
        };
        self.by(ord, || left.contains(right))
    }
}

/// Rust's float parser also accepts `inf`, `infinity` and `NaN`; a variable holding the word "nan"
/// would then never equal itself, so words are strings here.
fn number(s: &str) -> Option<f64> {
    let t = s.trim();
    if t.bytes().any(|b| b.is_ascii_alphabetic() && b != b'e' && b != b'E') {
        return None;
    }
    t.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_compare_by_order_and_text_by_number_or_bytes() {
        assert!(CmpOp::Lt.holds(1.0, 2.0) && !CmpOp::Lt.holds(2.0, 2.0));
        assert!(CmpOp::Le.holds(2.0, 2.0) && CmpOp::Ge.holds(2.0, 2.0) && CmpOp::Eq.holds(0.0, 0.0));
        assert!(CmpOp::Gt.holds(3u64, 2) && CmpOp::Ne.holds(3u64, 2) && !CmpOp::Gt.holds(2u64, 2));
        assert!(!CmpOp::Eq.holds(f64::NAN, f64::NAN) && CmpOp::Ne.holds(f64::NAN, f64::NAN));
        assert!(CmpOp::Contains.holds(100u64, 0) && CmpOp::NotContains.holds(100u64, 2));
        assert!(CmpOp::Gt.apply("10", "9.5") && CmpOp::Eq.apply("200", "200.0") && CmpOp::Lt.apply("10", "9x"));
        assert!(CmpOp::Contains.apply("abc", "b") && CmpOp::NotContains.apply("abc", "d"));
    }
}
