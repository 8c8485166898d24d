//! What a script may reach outside itself: the objects the host binds (`vars`, `prev`,
//! `sampler`, ...), printing, sleeping and files. The interpreter holds no JMeter knowledge;
//! the engine implements [`Host`] for the element that runs the script.

use super::value::Value;
use super::Thrown;
use std::fs::File;
use std::path::{Path, PathBuf};

/// An object owned by the host, as the script sees it: an opaque number the host chose when it
/// bound the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HostRef(pub u32);

/// How a script means to use a file (`new File(p).text`, `new FileWriter(p, true)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileAccess {
    /// Read the whole file (`new File(p).text`, `FileReader`).
    Read,
    /// Append to the end (`FileWriter(p, true)`, `file << text`, `file.append(text)`).
    Append,
    /// Truncate and write (`FileWriter(p)`, `file.text = ...`, `file.write(...)`).
    Write,
}

/// The host side of a script execution.
pub trait Host {
    /// Calls `method` on a host object. An unknown method is [`Thrown::no_method`].
    fn call(&mut self, target: HostRef, method: &str, args: Vec<Value>) -> Result<Value, Thrown>;

    /// Reads a property (`prev.responseCode`, `vars["x"]` goes to `call(.., "getAt", ..)`): by
    /// default the getter `getName()`, then `isName()`.
    fn get(&mut self, target: HostRef, name: &str) -> Result<Value, Thrown> {
        let cap = super::value::capitalize(name);
        match self.call(target, &format!("get{cap}"), Vec::new()) {
            Err(e) if e.is_no_method() => self.call(target, &format!("is{cap}"), Vec::new()),
            r => r,
        }
    }

    /// Writes a property: by default the setter `setName(value)`.
    fn set(&mut self, target: HostRef, name: &str, value: Value) -> Result<(), Thrown> {
        self.call(target, &format!("set{}", super::value::capitalize(name)), vec![value]).map(|_| ())
    }

    /// A static method of a JMeter class the host provides (`JMeterUtils.getProperty`,
    /// `FileServer.getFileServer()`, `JMeterContextService.getContext()`): `class` is the
    /// canonical name `classes::resolve` gave.
    fn call_static(&mut self, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let _ = args;
        Err(Thrown::no_method(class, method))
    }

    /// `toString()` of a host object.
    fn describe(&mut self, target: HostRef) -> String {
        format!("host#{}", target.0)
    }

    /// `println`, `print`, `System.out.println`, `OUT.println`: JMeter writes them to its
    /// standard output.
    fn print(&mut self, text: &str) {
        let _ = text;
    }

    /// `Thread.sleep(ms)`, Groovy's `sleep(ms)`.
    fn sleep(&mut self, ms: u64) {
        let _ = ms;
    }

    /// May the script use this file so? Returns the path to use (relative paths resolve
    /// against the plan's directory; every link in it resolved, so that [`Host::open`] may
    /// follow none) or the refusal.
    fn file(&mut self, path: &str, access: FileAccess) -> Result<PathBuf, Thrown> {
        let _ = access;
        Err(Thrown::security(format!("file access to `{path}` is not allowed here")))
    }

    /// Opens a path [`Host::file`] gave. The interpreter opens no file itself: the host that
    /// allowed the path opens it by its own rule (stampede's follows no link put in its place
    /// since it was resolved, and opens only regular files). Refused by default.
    fn open(&mut self, path: &Path, access: FileAccess) -> std::io::Result<File> {
        let _ = access;
        Err(std::io::Error::new(
            std::io::ErrorKind::PermissionDenied,
            format!("{} may not be opened here", path.display()),
        ))
    }

    /// `System.getProperty(name)` (JMeter's properties are `props`; this is the JVM's).
    fn system_property(&mut self, name: &str) -> Option<String> {
        let _ = name;
        None
    }

    /// Whether the script must stop now (the run is stopping: Ctrl-C, the end of its
    /// duration). Asked every few thousand steps of a running script; `true` ends it with an
    /// error no `catch` takes.
    fn interrupted(&mut self) -> bool {
        false
    }

    /// `System.getenv(name)`.
    fn env(&mut self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

/// A host with no objects, for scripts that need none (tests, constant expressions).
#[derive(Debug, Default)]
pub struct NoHost {
    /// What the script printed.
    pub printed: String,
}

impl Host for NoHost {
    fn call(&mut self, _target: HostRef, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        Err(Thrown::no_method("Object", method))
    }

    fn print(&mut self, text: &str) {
        self.printed.push_str(text);
    }
}
