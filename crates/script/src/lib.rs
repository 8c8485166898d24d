#![deny(missing_docs)]
#![warn(unreachable_pub)]
//! A Groovy, BeanShell/Java, JavaScript and JEXL subset interpreter for JMeter's JSR223,
//! BeanShell and BSF elements and its `__groovy`-family functions, independent of its host:
//! it runs scripts without a JVM and knows nothing of the load tester that embeds it
//! (stampede). A script is parsed and resolved once, when the plan loads
//! ([`Script::compile`]); each execution ([`Script::run`]) gets its bindings and a [`Host`],
//! which is all it reaches outside itself: the objects the host binds (`vars`, `prev`,
//! `sampler`, ...), JMeter's static classes, printing, sleeping, files.
//!
//! Written by hand because no crate runs Groovy or BeanShell, and because compiling once and
//! keeping per-user state in the user's variables avoids the global lock an embedded engine
//! would need.
//!
//! ```
//! use stampede_script::{Lang, NoHost, Script, Value};
//!
//! let script = Script::compile("def n = 6; n * 7", Lang::Groovy).unwrap();
//! let got = script.run(&mut NoHost::default(), &[]).unwrap();
//! assert_eq!(got.to_string(), "42");
//! # let _ = Value::Null;
//! ```
//!
//! # Layout
//!
//! - `ast`: the one syntax tree all dialects parse into.
//! - `lex`, `parse`: text to tree, every error at line:column.
//! - `interp`: name resolution (at compile time), statements, operators, closures.
//! - `methods`: the methods of built-in values (String, numbers, List, Map, byte[]): Java's
//!   and Groovy's (GDK), as tables of rows (name, arity, function).
//! - `classes`: the library classes a script may name (`Math`, `Random`, `UUID`,
//!   `JsonSlurper`, `SimpleDateFormat`, ...), their constructors, statics and objects.
//! - `host`: what a script may reach outside itself ([`Host`]).
//! - [`jsonpath`]: JSONPath (RFC 9535 and Jayway's dialect): Jayway's `JsonPath` class, and the
//!   same reading for the host's JSON Extractor and Assertion.
//! - `slice`: a long execution leaves the async worker it started on.
//! - `value`: run-time values ([`Value`]).
//!
//! The host also uses a few of the library's pieces directly, so that its own JMeter
//! functions read and write as the scripts' classes do: Java date patterns
//! ([`JavaDateFormat`]), `DecimalFormat` ([`format_decimal`]), MD5 ([`md5`]), and the
//! readings of script values as JMeter objects ([`jmeter_record`], [`items_of`],
//! [`header_fields`], [`exception_value`]).

mod ast;
mod budget;
mod classes;
mod host;
mod interp;
pub mod jsonpath;
mod lex;
mod methods;
mod parse;
mod slice;
mod value;

pub use ast::Pos;
pub use classes::javatime::{JavaDateFormat, Parsed, PatternError};
pub use classes::{exception_value, format_decimal, header_fields, items_of, jmeter_record, md5};
pub use host::{FileAccess, Host, HostRef, NoHost};
pub use value::{lock, Key, ListKind, ListObj, MapObj, Native, Value};

use std::fmt;
use std::sync::Arc;

/// The language a script is written in, as JMeter names it in `scriptLanguage`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Lang {
    /// Groovy (JSR223's default).
    Groovy,
    /// BeanShell: Java syntax, loosely typed (undeclared assignment makes a variable).
    BeanShell,
    /// JSR223 "java" (BeanShell's engine in JMeter).
    Java,
    /// JavaScript (Nashorn, Rhino, Graal.js in JMeter).
    JavaScript,
    /// JEXL 2/3 expressions (`__jexl3`).
    Jexl,
}

impl Lang {
    /// The language of a JMeter `scriptLanguage` value (JSR223/BSF), case-insensitive; empty
    /// is Groovy (JSR223's default). `None` for a language stampede does not run.
    pub fn from_jmeter(name: &str) -> Option<Lang> {
        match name.trim().to_ascii_lowercase().as_str() {
            "" | "groovy" => Some(Lang::Groovy),
            "beanshell" | "bsh" => Some(Lang::BeanShell),
            "java" => Some(Lang::Java),
            "javascript" | "js" | "ecmascript" | "nashorn" | "rhino" | "graal.js" => Some(Lang::JavaScript),
            "jexl" | "jexl2" | "jexl3" => Some(Lang::Jexl),
            _ => None,
        }
    }

    /// Java-like dialects: integer division truncates, `==` on objects compares values.
    pub(crate) fn is_java_like(self) -> bool {
        matches!(self, Lang::BeanShell | Lang::Java)
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Lang::Groovy => "groovy",
            Lang::BeanShell => "beanshell",
            Lang::Java => "java",
            Lang::JavaScript => "javascript",
            Lang::Jexl => "jexl",
        })
    }
}

/// The class of the error that ends an execution the host interrupted (the run is stopping):
/// no `catch` takes it, so a script that catches everything in a loop still ends.
pub(crate) const INTERRUPTED_CLASS: &str = "stampede.ScriptInterrupted";

/// Why a script cannot load: a syntax error, or a construct or class outside the subset.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileError {
    /// Where in the source: line and column.
    pub pos: ast::Pos,
    /// What is wrong, and what was expected.
    pub message: String,
    /// The text is not a script in its language (Groovy, JEXL... raise this error too), as
    /// opposed to a construct or class stampede does not have.
    pub syntax: bool,
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}: {}", self.pos.line, self.pos.col, self.message)
    }
}

impl std::error::Error for CompileError {}

/// An exception a script threw (or the interpreter threw for it): Java's class name and
/// message, where it happened, and the thrown value for `catch (e)`.
#[derive(Debug, Clone)]
pub struct Thrown {
    /// `java.lang.NumberFormatException`, `java.lang.AssertionError`, ...
    pub class: String,
    /// The exception's message (`getMessage()`).
    pub message: String,
    /// Where it was thrown, when known.
    pub pos: Option<ast::Pos>,
    /// What `throw x` threw, when it was not made by the interpreter.
    pub value: Option<Value>,
}

impl Thrown {
    /// An exception of this Java class with this message.
    pub fn new(class: &str, message: impl Into<String>) -> Thrown {
        Thrown { class: class.to_string(), message: message.into(), pos: None, value: None }
    }

    /// Groovy's `MissingMethodException`.
    pub fn no_method(type_name: &str, method: &str) -> Thrown {
        Thrown::new(
            "groovy.lang.MissingMethodException",
            format!("No signature of method: {type_name}.{method}() is applicable"),
        )
    }

    /// Whether this is Groovy's `MissingMethodException` ([`Thrown::no_method`]).
    pub fn is_no_method(&self) -> bool {
        self.class == "groovy.lang.MissingMethodException"
    }

    /// Whether the execution was interrupted because the run is stopping ([`Host::interrupted`]).
    pub fn is_interrupt(&self) -> bool {
        self.class == INTERRUPTED_CLASS
    }

    /// A call the sandbox refuses (process execution, network, files outside the plan's).
    pub fn security(message: impl Into<String>) -> Thrown {
        Thrown::new("java.lang.SecurityException", message)
    }

    /// The exception at this place, unless it already has one (the innermost place stays).
    pub(crate) fn at(mut self, pos: ast::Pos) -> Thrown {
        self.pos.get_or_insert(pos);
        self
    }
}

/// Java's `Throwable.toString()`: `class: message` (what JMeter puts in a response message).
impl fmt::Display for Thrown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.message.is_empty() {
            f.write_str(&self.class)
        } else {
            write!(f, "{}: {}", self.class, self.message)
        }
    }
}

/// The state of one execution that library code may need: the host, the dialect, and a way to
/// call closures back.
pub struct Ctx<'a> {
    /// What the script reaches outside itself.
    pub(crate) host: &'a mut dyn Host,
    /// The dialect the running script is written in.
    pub(crate) lang: Lang,
    #[allow(dead_code)] // the evaluator's, once it is built
    pub(crate) state: interp::State,
}

impl Ctx<'_> {
    /// Calls a closure (or any callable value) with these arguments.
    pub(crate) fn call_value(&mut self, callee: &Value, args: Vec<Value>) -> Result<Value, Thrown> {
        interp::call_value(self, callee, args)
    }
}

/// A script, parsed and resolved once; run it as often as needed, from any user.
#[derive(Debug, Clone)]
pub struct Script {
    /// The language the script is written in.
    pub(crate) lang: Lang,
    pub(crate) code: Arc<interp::Compiled>,
}

impl Script {
    /// Parses and resolves a script. Every error names the line and column in `source`;
    /// a class or construct outside the subset is an error here, not when it runs.
    pub fn compile(source: &str, lang: Lang) -> Result<Script, CompileError> {
        let program = parse::parse(source, lang)?;
        let code = interp::compile(program, lang)?;
        Ok(Script { lang, code: Arc::new(code) })
    }

    /// Runs the script with these bindings (`vars`, `prev`, `Label`, ...); returns the value
    /// of its last statement (or of `return`).
    pub fn run(&self, host: &mut dyn Host, bindings: &[(&str, Value)]) -> Result<Value, Thrown> {
        let mut globals: Vec<(String, Value)> = bindings.iter().map(|(n, v)| (n.to_string(), v.clone())).collect();
        self.run_with_globals(host, &mut globals)
    }

    /// Runs the script with these script-level variables, and leaves in `globals` their
    /// values afterwards, with those the script created by assigning an undeclared name
    /// (BeanShell's `Failure = true`, which the BeanShell Assertion reads back).
    pub fn run_with_globals(&self, host: &mut dyn Host, globals: &mut Vec<(String, Value)>) -> Result<Value, Thrown> {
        let mut cx = Ctx { host, lang: self.lang, state: interp::State::default() };
        interp::run(&mut cx, &self.code, globals)
    }

    /// Whether both are the one compiled script (a clone shares it; a second compile of the
    /// same text does not).
    pub fn same_code(&self, other: &Script) -> bool {
        Arc::ptr_eq(&self.code, &other.code)
    }
}
