//! A flow compiled into a flat list of operations with jumps, once per scenario, so a user runs
//! an iteration as a loop over a program counter: no recursion, no boxing, no allocation.

use super::request::PreparedRequest;
use crate::plan::{Step, Think};

#[derive(Debug, Clone)]
pub enum Op {
    Request(PreparedRequest),
    Think(Think),
    /// Pick a branch: the first whose cumulative weight exceeds a uniform draw in [0, total).
    Choose {
        cumulative: Box<[f64]>,
        targets: Box<[usize]>,
    },
    Jump(usize),
}

#[derive(Debug, Clone)]
pub struct Program {
    pub ops: Vec<Op>,
}

impl Program {
    pub fn compile(steps: &[Step]) -> Program {
        let mut ops = Vec::new();
        emit(steps, &mut ops);
        Program { ops }
    }
}

fn emit(steps: &[Step], ops: &mut Vec<Op>) {
    for step in steps {
        match step {
            Step::Request(r) => ops.push(Op::Request(PreparedRequest::new(r))),
            Step::Think(t) => ops.push(Op::Think(*t)),
            Step::Sequence(s) => emit(s, ops),
            Step::Mix(branches) => {
                let choose = ops.len();
                ops.push(Op::Jump(usize::MAX)); // replaced by Choose once targets are known
                let mut targets = Vec::new();
                let mut jumps_to_end = Vec::new();
                for b in branches {
                    targets.push(ops.len());
                    emit(&b.steps, ops);
                    jumps_to_end.push(ops.len());
                    ops.push(Op::Jump(usize::MAX));
                }
                let end = ops.len();
                for j in jumps_to_end {
                    ops[j] = Op::Jump(end);
                }
                let mut acc = 0.0;
                let cumulative = branches.iter().map(|b| {
                    acc += b.weight;
                    acc
                });
                ops[choose] = Op::Choose { cumulative: cumulative.collect(), targets: targets.into() };
            }
        }
    }
}

/// The branch index for a uniform draw `u` in [0, 1).
pub fn pick(cumulative: &[f64], u: f64) -> usize {
    let total = cumulative.last().copied().unwrap_or(0.0);
    let x = u * total;
    cumulative.iter().position(|c| x < *c).unwrap_or(cumulative.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_follows_weights() {
        let cum = [4.0, 6.0, 6.0, 7.0]; // weights 4, 2, 0, 1
        assert_eq!(pick(&cum, 0.0), 0);
        assert_eq!(pick(&cum, 0.57), 0);
        assert_eq!(pick(&cum, 0.58), 1);
        assert_eq!(pick(&cum, 0.857), 1);
        assert_eq!(pick(&cum, 0.858), 3);
        assert_eq!(pick(&cum, 0.999_999), 3);
    }
}
