//! Runs a parsed script: name resolution at compile time, then statements, operators and
//! closures with Groovy's semantics (Java's where the dialect says so).
//!
//! STUB: the contract the other parts build on; the evaluator replaces the bodies.

use super::ast::Program;
use super::value::Value;
use super::{CompileError, Ctx, Lang, Thrown};

/// A resolved script, ready to run.
#[derive(Debug)]
pub struct Compiled {
    pub program: Program,
}

/// Per-execution interpreter state (the step budget, the call depth, ...).
#[derive(Debug, Default)]
pub struct State {}

/// A closure value: its code and the variables it captured.
#[derive(Debug)]
pub struct Closure {}

pub(crate) fn compile(program: Program, lang: Lang) -> Result<Compiled, CompileError> {
    let _ = lang;
    Ok(Compiled { program })
}

/// Runs a compiled script; `globals` are its script-level variables, in and out.
pub(crate) fn run(cx: &mut Ctx<'_>, code: &Compiled, globals: &mut Vec<(String, Value)>) -> Result<Value, Thrown> {
    let _ = (cx, code, globals);
    Err(Thrown::new("java.lang.UnsupportedOperationException", "the interpreter is not built yet"))
}

pub(crate) fn call_value(cx: &mut Ctx<'_>, callee: &Value, args: Vec<Value>) -> Result<Value, Thrown> {
    let _ = (cx, args);
    Err(Thrown::no_method(callee.type_name(), "call"))
}
