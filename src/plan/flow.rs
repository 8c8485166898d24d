//! What each user does in one iteration: requests, nested sequences, weighted mixes of
//! requests or sub-flows ("the ratio seen in production"), and think times.

use super::request::RequestSpec;
use serde::Serialize;
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    Request(Box<RequestSpec>),
    /// Steps run one after the other.
    Sequence(Vec<Step>),
    /// One branch is chosen at random per pass, with probability weight / total weight.
    Mix(Vec<Branch>),
    Think(Think),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Branch {
    pub weight: f64,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Think {
    Constant(#[serde(with = "super::serde_duration")] Duration),
    Uniform {
        #[serde(with = "super::serde_duration")]
        min: Duration,
        #[serde(with = "super::serde_duration")]
        max: Duration,
    },
}

/// Visits every request in a flow, depth first, in plan order.
pub fn for_each_request<'a>(steps: &'a [Step], f: &mut impl FnMut(&'a RequestSpec)) {
    for step in steps {
        match step {
            Step::Request(r) => f(r),
            Step::Sequence(s) => for_each_request(s, f),
            Step::Mix(branches) => branches.iter().for_each(|b| for_each_request(&b.steps, f)),
            Step::Think(_) => {}
        }
    }
}
