//! Files, through [`crate::Host::file`] only: the host decides which paths a script
//! may read, append to or write (relative paths resolve against the plan's directory).
//! `java.io.File` (and Groovy's methods on it), writers (`FileWriter`, `BufferedWriter`,
//! `PrintWriter`, `FileOutputStream`, `PrintStream`) that write through on every call so
//! nothing is lost when a script never closes them, readers, `Files`, `Paths`.
//! Deleting, listing and creating directories are refused.

use super::{
    arg, bytes, bytes_of, fd, illegal_arg, native_base, no_method, no_property, obj, st, str_arg, Class, Field, Static,
    VAR,
};
use crate::value::{lock, Native, Value};
use crate::{Ctx, FileAccess, Thrown};
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, Weak};

const PLAIN: &[Class] = &[
    Class { name: "java.io.FileWriter", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.BufferedWriter", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.PrintWriter", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.PrintStream", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.FileOutputStream", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.OutputStreamWriter", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.Writer", new: None, statics: &[], fields: &[] },
    Class { name: "java.io.FileReader", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.BufferedReader", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.InputStreamReader", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.FileInputStream", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.StringReader", new: Some(construct), statics: &[], fields: &[] },
    Class { name: "java.io.Reader", new: None, statics: &[], fields: &[] },
];

pub(super) const CLASSES: &[Class] = &[
    Class {
        name: "java.io.File",
        new: Some(construct),
        statics: &[],
        fields: &[fd("separator", get_static), fd("pathSeparator", get_static), fd("separatorChar", get_static)],
    },
    Class {
        name: "java.nio.file.Files",
        new: None,
        statics: &[
            st("readAllLines", 0, VAR, call_static),
            st("readString", 0, VAR, call_static),
            st("readAllBytes", 0, VAR, call_static),
            st("lines", 0, VAR, call_static),
            st("write", 0, VAR, call_static),
            st("writeString", 0, VAR, call_static),
            st("exists", 0, VAR, call_static),
            st("notExists", 0, VAR, call_static),
            st("size", 0, VAR, call_static),
            st("isRegularFile", 0, VAR, call_static),
            st("isDirectory", 0, VAR, call_static),
            st("newBufferedWriter", 0, VAR, call_static),
            st("newBufferedReader", 0, VAR, call_static),
            st("delete", 0, VAR, call_static),
            st("deleteIfExists", 0, VAR, call_static),
            st("createFile", 0, VAR, call_static),
            st("createDirectory", 0, VAR, call_static),
            st("createDirectories", 0, VAR, call_static),
            st("copy", 0, VAR, call_static),
            st("move", 0, VAR, call_static),
            st("list", 0, VAR, call_static),
            st("walk", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class { name: "java.nio.file.Paths", new: None, statics: &[st("get", 0, VAR, call_static)], fields: &[] },
    Class {
        name: "org.apache.commons.io.FileUtils",
        new: None,
        statics: &[
            st("readFileToString", 0, VAR, call_static),
            st("readFileToByteArray", 0, VAR, call_static),
            st("readLines", 0, VAR, call_static),
            st("writeStringToFile", 0, VAR, call_static),
            st("write", 0, VAR, call_static),
            st("writeLines", 0, VAR, call_static),
            st("writeByteArrayToFile", 0, VAR, call_static),
            st("copyFile", 0, VAR, call_static),
            st("deleteQuietly", 1, VAR, call_static),
            st("sizeOf", 0, VAR, call_static),
        ],
        fields: &[],
    },
    Class { name: "java.nio.file.Path", new: None, statics: &[st("of", 0, VAR, call_static)], fields: &[] },
    Class { name: "java.nio.file.StandardOpenOption", new: None, statics: OPTIONS, fields: OPTIONS_FIELDS },
];

const OPTIONS: &[Static] = &[];

const OPTIONS_FIELDS: &[Field] = &[
    fd("APPEND", get_static),
    fd("CREATE", get_static),
    fd("CREATE_NEW", get_static),
    fd("WRITE", get_static),
    fd("TRUNCATE_EXISTING", get_static),
    fd("READ", get_static),
    fd("SYNC", get_static),
    fd("DSYNC", get_static),
];

pub(super) fn all() -> impl Iterator<Item = &'static Class> {
    CLASSES.iter().chain(PLAIN.iter())
}

fn io_error(path: &str, e: std::io::Error) -> Thrown {
    let class =
        if e.kind() == std::io::ErrorKind::NotFound { "java.io.FileNotFoundException" } else { "java.io.IOException" };
    Thrown::new(class, format!("{path} ({e})"))
}

fn refused(what: &str) -> Thrown {
    Thrown::security(format!(
        "{what} is not available to scripts (they may read the plan's data files and write the files the plan names)"
    ))
}

/// The path a value names: a string, a `File`, a `Path`.
fn path_of(v: &Value) -> Result<String, Thrown> {
    match v {
        Value::Null => Err(Thrown::new("java.lang.NullPointerException", "the path is null")),
        Value::Object(o) => match o.as_any().downcast_ref::<FileObj>() {
            Some(f) => Ok(f.path.clone()),
            None => Ok(o.to_string()),
        },
        other => Ok(other.to_string()),
    }
}

fn read_string(cx: &mut Ctx<'_>, path: &str) -> Result<String, Thrown> {
    let b = read_bytes(cx, path)?;
    Ok(String::from_utf8_lossy(&b).into_owned())
}

/// The bytes of a file the host allows, opened without following a link put in place of the
/// path the host resolved, read no further than the execution's memory budget allows (a file
/// of gigabytes, or one that never ends, is an `OutOfMemoryError`, not an abort).
fn read_bytes(cx: &mut Ctx<'_>, path: &str) -> Result<Vec<u8>, Thrown> {
    use std::io::Read as _;
    let p = cx.host.file(path, FileAccess::Read)?;
    let most = crate::budget::remaining();
    let f = cx.host.open(&p, FileAccess::Read).map_err(|e| io_error(path, e))?;
    let mut b = Vec::new();
    f.take(most.saturating_add(1)).read_to_end(&mut b).map_err(|e| io_error(path, e))?;
    if b.len() as u64 > most {
        return Err(crate::budget::out_of_memory(b.len() as u64));
    }
    Ok(b)
}

/// Appends (or, with `truncate`, writes) to a file the host allows.
fn write_file(cx: &mut Ctx<'_>, path: &str, data: &[u8], truncate: bool) -> Result<PathBuf, Thrown> {
    let p = cx.host.file(path, if truncate { FileAccess::Write } else { FileAccess::Append })?;
    append_to(cx, &p, path, data, truncate)?;
    Ok(p)
}

fn append_to(cx: &mut Ctx<'_>, p: &std::path::Path, shown: &str, data: &[u8], truncate: bool) -> Result<(), Thrown> {
    let access = if truncate { FileAccess::Write } else { FileAccess::Append };
    let mut f = cx.host.open(p, access).map_err(|e| io_error(shown, e))?;
    f.write_all(data).map_err(|e| io_error(shown, e))
}

/// Java's line splitting: `\n`, `\r\n` or `\r`.
fn lines(text: &str) -> Vec<Value> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
        out.push(Value::str(&rest[..end]));
        rest = &rest[end..];
        rest = rest
            .strip_prefix("\r\n")
            .or_else(|| rest.strip_prefix('\n'))
            .or_else(|| rest.strip_prefix('\r'))
            .unwrap_or(rest);
    }
    out
}

/// The text of a `File`, `Path` or reader (for `JsonSlurper.parse(file)`); `None` for other
/// values.
pub(crate) fn read_text(cx: &mut Ctx<'_>, v: &Value) -> Result<Option<String>, Thrown> {
    if let Some(f) = super::downcast::<FileObj>(v) {
        return read_string(cx, &f.path).map(Some);
    }
    if let Some(r) = super::downcast::<Reader>(v) {
        let mut st = lock(&r.state);
        let rest = st.0[st.1..].to_string();
        st.1 = st.0.len();
        return Ok(Some(rest));
    }
    Ok(None)
}

fn construct(cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    match class {
        "java.io.File" => {
            let path = match args.as_slice() {
                [p] => path_of(p)?,
                [dir, name] if dir.is_null() => name.to_string(),
                [dir, name] => format!("{}/{}", path_of(dir)?.trim_end_matches('/'), name),
                _ => return Err(no_method(class, "<init>")),
            };
            Ok(obj(FileObj { path, nio: false }))
        }
        "java.io.FileWriter"
        | "java.io.FileOutputStream"
        | "java.io.PrintWriter"
        | "java.io.PrintStream"
        | "java.io.BufferedWriter"
        | "java.io.OutputStreamWriter" => {
            let target = arg(&args, 0);
            if let Some(w) = super::downcast::<Writer>(target) {
                return Ok(Writer::value(class, w.target.clone()));
            }
            if matches!(class, "java.io.BufferedWriter" | "java.io.OutputStreamWriter") {
                return Err(illegal_arg(format!("new {class}(...) takes a writer or stream")));
            }
            let path = path_of(target)?;
            let append = matches!(args.get(1), Some(Value::Bool(true)))
                && matches!(class, "java.io.FileWriter" | "java.io.FileOutputStream");
            let p = write_file(cx, &path, b"", !append)?;
            Ok(Writer::value(class, Arc::new(Target { path: p, shown: path })))
        }
        "java.io.FileReader" | "java.io.FileInputStream" => {
            let path = path_of(arg(&args, 0))?;
            let text = read_string(cx, &path)?;
            Ok(obj(Reader { class, state: Mutex::new((text, 0)) }))
        }
        "java.io.StringReader" => Ok(obj(Reader { class, state: Mutex::new((str_arg(&args, 0)?, 0)) })),
        "java.io.BufferedReader" | "java.io.InputStreamReader" => match super::downcast::<Reader>(arg(&args, 0)) {
            Some(r) => {
                let st = lock(&r.state).clone();
                Ok(obj(Reader { class, state: Mutex::new(st) }))
            }
            None => Err(illegal_arg(format!("new {class}(...) takes a reader or stream"))),
        },
        _ => Err(illegal_arg(format!("{class} is an interface or has no public constructor"))),
    }
}

fn get_static(_cx: &mut Ctx<'_>, class: &'static str, name: &str) -> Result<Value, Thrown> {
    match (class, name) {
        ("java.io.File", "separator" | "separatorChar") => {
            Ok(if name == "separator" { Value::str("/") } else { Value::Char('/') })
        }
        ("java.io.File", "pathSeparator") => Ok(Value::str(":")),
        ("java.nio.file.StandardOpenOption", _) => Ok(Value::str(name)),
        _ => Err(no_property(class, name)),
    }
}

fn call_static(cx: &mut Ctx<'_>, class: &'static str, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    if class == "java.nio.file.Paths" || (class == "java.nio.file.Path" && method == "of") {
        let mut parts: Vec<String> = Vec::new();
        for a in &args {
            match a {
                Value::List(l) => parts.extend(lock(&l.items).iter().map(|x| x.to_string())),
                v => parts.push(path_of(v)?),
            }
        }
        return Ok(obj(FileObj { path: parts.join("/"), nio: true }));
    }
    if class == "org.apache.commons.io.FileUtils" {
        return file_utils(cx, method, &args);
    }
    if class != "java.nio.file.Files" {
        return Err(no_method(class, method));
    }
    let path = path_of(arg(&args, 0))?;
    let options: Vec<String> = args.iter().skip(2).map(|o| o.to_string()).collect();
    match method {
        "readAllLines" | "lines" => Ok(Value::list(lines(&read_string(cx, &path)?))),
        "readString" => Ok(Value::str(read_string(cx, &path)?)),
        "readAllBytes" => Ok(bytes(read_bytes(cx, &path)?)),
        "write" | "writeString" => {
            let data = match arg(&args, 1) {
                Value::List(l) => lock(&l.items).iter().map(|x| format!("{x}\n")).collect::<String>().into_bytes(),
                v => bytes_of(v)?,
            };
            let append = options.iter().any(|o| o == "APPEND");
            write_file(cx, &path, &data, !append)?;
            Ok(args[0].clone())
        }
        "exists" | "notExists" | "isRegularFile" | "isDirectory" | "size" => {
            FileObj { path, nio: true }.call(cx, method_alias(method), Vec::new())
        }
        "newBufferedWriter" => {
            let append = args.iter().skip(1).any(|o| o.to_string() == "APPEND");
            let p = write_file(cx, &path, b"", !append)?;
            Ok(Writer::value("java.io.BufferedWriter", Arc::new(Target { path: p, shown: path })))
        }
        "newBufferedReader" => {
            Ok(obj(Reader { class: "java.io.BufferedReader", state: Mutex::new((read_string(cx, &path)?, 0)) }))
        }
        _ => Err(refused(&format!("Files.{method}"))),
    }
}

/// commons-io's `FileUtils`, over the same host policy as `new File(...)`: the charset
/// arguments are read as UTF-8's (what load-test data is), a trailing `true` appends.
fn file_utils(cx: &mut Ctx<'_>, method: &str, args: &[Value]) -> Result<Value, Thrown> {
    let path = path_of(arg(args, 0))?;
    let append = matches!(args.last(), Some(Value::Bool(true))) && args.len() > 2;
    match method {
        "readFileToString" => Ok(Value::str(read_string(cx, &path)?)),
        "readFileToByteArray" => Ok(bytes(read_bytes(cx, &path)?)),
        "readLines" => Ok(Value::list(lines(&read_string(cx, &path)?))),
        "writeStringToFile" | "write" | "writeByteArrayToFile" => {
            write_file(cx, &path, &bytes_of(arg(args, 1))?, !append)?;
            Ok(Value::Null)
        }
        "writeLines" => {
            // (file, lines[, append]), (file, encoding, lines[, append]), (file, lines, ending).
            let (items, ending) = match (arg(args, 1), arg(args, 2)) {
                (Value::List(l), Value::Str(e)) => (lock(&l.items).clone(), e.to_string()),
                (Value::List(l), _) => (lock(&l.items).clone(), "\n".to_string()),
                (_, Value::List(l)) => (lock(&l.items).clone(), "\n".to_string()),
                _ => return Err(illegal_arg("FileUtils.writeLines takes a collection of lines")),
            };
            let text: String = items
                .iter()
                .map(|x| format!("{}{ending}", if x.is_null() { String::new() } else { x.to_string() }))
                .collect();
            write_file(cx, &path, text.as_bytes(), !append)?;
            Ok(Value::Null)
        }
        "copyFile" => {
            let data = read_bytes(cx, &path)?;
            write_file(cx, &path_of(arg(args, 1))?, &data, true)?;
            Ok(Value::Null)
        }
        "sizeOf" => FileObj { path, nio: false }.call(cx, "length", Vec::new()),
        // Scripts may not delete files; `deleteQuietly` reports a deletion it did not do as
        // commons-io reports one that failed.
        "deleteQuietly" => Ok(Value::Bool(false)),
        _ => Err(refused(&format!("FileUtils.{method}"))),
    }
}

fn method_alias(m: &str) -> &str {
    match m {
        "isRegularFile" => "isFile",
        "size" => "length",
        other => other,
    }
}

/// `java.io.File` or `java.nio.file.Path`: a path, nothing opened.
#[derive(Debug)]
pub(crate) struct FileObj {
    pub path: String,
    nio: bool,
}

impl FileObj {
    fn name(&self) -> &str {
        self.path.trim_end_matches('/').rsplit('/').next().unwrap_or(&self.path)
    }

    fn parent(&self) -> Option<String> {
        let p = self.path.trim_end_matches('/');
        p.rfind('/').map(|i| if i == 0 { "/".to_string() } else { p[..i].to_string() })
    }

    /// The path the host gives for reading, or for appending when reading is not allowed.
    fn locate(&self, cx: &mut Ctx<'_>) -> Result<PathBuf, Thrown> {
        cx.host
            .file(&self.path, FileAccess::Read)
            .or_else(|e| cx.host.file(&self.path, FileAccess::Append).map_err(|_| e))
    }

    fn text_arg(args: &[Value]) -> Result<Vec<u8>, Thrown> {
        match arg(args, 0) {
            Value::Bytes(b) => Ok(b.as_ref().clone()),
            v => Ok(v.to_string().into_bytes()),
        }
    }
}

impl Native for FileObj {
    fn class_name(&self) -> &'static str {
        if self.nio {
            "java.nio.file.Path"
        } else {
            "java.io.File"
        }
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        let path = self.path.as_str();
        let file = |p: String| obj(FileObj { path: p, nio: self.nio });
        match (method, args.len()) {
            ("getName", 0) => Ok(Value::str(self.name())),
            ("getFileName", 0) => Ok(file(self.name().to_string())),
            ("getPath" | "toString", 0) => Ok(Value::str(path)),
            ("getAbsolutePath" | "getCanonicalPath" | "toAbsolutePath" | "getAbsoluteFile" | "normalize", 0) => {
                let shown = self.locate(cx).map(|p| p.display().to_string()).unwrap_or_else(|_| path.to_string());
                Ok(if method.ends_with("Path") && !method.starts_with("to") { Value::str(shown) } else { file(shown) })
            }
            ("getParent", 0) if !self.nio => Ok(self.parent().map(Value::from).unwrap_or(Value::Null)),
            ("getParent" | "getParentFile", 0) => Ok(self.parent().map(file).unwrap_or(Value::Null)),
            ("toFile", 0) => Ok(obj(FileObj { path: path.to_string(), nio: false })),
            ("toPath", 0) => Ok(obj(FileObj { path: path.to_string(), nio: true })),
            ("resolve", 1) => Ok(file(format!("{}/{}", path.trim_end_matches('/'), args[0]))),
            ("exists" | "notExists" | "isFile" | "isDirectory" | "canRead" | "canWrite", 0) => {
                let p = self.locate(cx)?;
                Ok(Value::Bool(match method {
                    "exists" => p.exists(),
                    "notExists" => !p.exists(),
                    "isFile" | "canRead" => p.is_file(),
                    "canWrite" => cx.host.file(path, FileAccess::Append).is_ok(),
                    _ => p.is_dir(),
                }))
            }
            ("length", 0) => {
                let p = self.locate(cx)?;
                Ok(Value::Long(std::fs::metadata(&p).map(|m| m.len() as i64).unwrap_or(0)))
            }
            ("lastModified", 0) => {
                let p = self.locate(cx)?;
                let t = std::fs::metadata(&p).and_then(|m| m.modified()).ok();
                let ms = t
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map(|d| d.as_millis() as i64)
                    .unwrap_or(0);
                Ok(Value::Long(ms))
            }
            ("getText" | "text", 0 | 1) => Ok(Value::str(read_string(cx, path)?)),
            ("readLines", 0 | 1) => Ok(Value::list(lines(&read_string(cx, path)?))),
            ("getBytes" | "readBytes", 0) => Ok(bytes(read_bytes(cx, path)?)),
            ("eachLine", 1) => {
                let f = args[0].clone();
                for line in lines(&read_string(cx, path)?) {
                    cx.call_value(&f, vec![line])?;
                }
                Ok(Value::Null)
            }
            ("append" | "leftShift", 1 | 2) => {
                write_file(cx, path, &Self::text_arg(&args)?, false)?;
                Ok(if method == "leftShift" {
                    Value::Object(Arc::new(FileObj { path: path.to_string(), nio: self.nio }))
                } else {
                    Value::Null
                })
            }
            ("write" | "setText" | "setBytes" | "text", 1 | 2) => {
                write_file(cx, path, &Self::text_arg(&args)?, true)?;
                Ok(Value::Null)
            }
            ("createNewFile", 0) => {
                let p = cx.host.file(path, FileAccess::Append)?;
                let existed = p.exists();
                append_to(cx, &p, path, b"", false)?;
                Ok(Value::Bool(!existed))
            }
            ("newWriter" | "newPrintWriter", _) => {
                let append = matches!(args.last(), Some(Value::Bool(true)));
                let p = write_file(cx, path, b"", !append)?;
                Ok(Writer::value(
                    if method == "newWriter" { "java.io.BufferedWriter" } else { "java.io.PrintWriter" },
                    Arc::new(Target { path: p, shown: path.to_string() }),
                ))
            }
            ("withWriter" | "withPrintWriter" | "withWriterAppend", 1 | 2) => {
                let truncate = method != "withWriterAppend";
                let p = write_file(cx, path, b"", truncate)?;
                let w = Writer::value("java.io.PrintWriter", Arc::new(Target { path: p, shown: path.to_string() }));
                let f = args.last().cloned().unwrap_or(Value::Null);
                cx.call_value(&f, vec![w])
            }
            ("newReader", _) => {
                Ok(obj(Reader { class: "java.io.BufferedReader", state: Mutex::new((read_string(cx, path)?, 0)) }))
            }
            ("withReader", 1) => {
                let r = obj(Reader { class: "java.io.BufferedReader", state: Mutex::new((read_string(cx, path)?, 0)) });
                cx.call_value(&args[0], vec![r])
            }
            ("equals", 1) => Ok(Value::Bool(super::downcast::<FileObj>(&args[0]).is_some_and(|o| o.path == self.path))),
            ("hashCode", 0) => Ok(Value::Int(super::util::java_hash(&Value::str(path)))),
            (
                "delete" | "deleteOnExit" | "mkdir" | "mkdirs" | "listFiles" | "list" | "renameTo" | "setWritable"
                | "setReadable" | "setExecutable" | "setLastModified" | "eachFile" | "eachFileRecurse" | "deleteDir"
                | "traverse",
                _,
            ) => Err(refused(&format!("File.{method}"))),
            _ => Err(no_method(self.class_name(), method)),
        }
    }
    fn to_string(&self) -> String {
        self.path.clone()
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<FileObj>().is_some_and(|o| o.path == self.path)
    }
}

/// Where a writer writes: the host's path and the path as the script wrote it.
#[derive(Debug)]
struct Target {
    path: PathBuf,
    shown: String,
}

/// A writer or output stream over a file: every call appends at once (nothing buffered).
#[derive(Debug)]
struct Writer {
    class: &'static str,
    target: Arc<Target>,
    me: Weak<Writer>,
}

impl Writer {
    fn value(class: &'static str, target: Arc<Target>) -> Value {
        Value::Object(Arc::new_cyclic(|me| Writer { class, target, me: me.clone() }))
    }

    fn put(&self, cx: &mut Ctx<'_>, data: &[u8]) -> Result<(), Thrown> {
        append_to(cx, &self.target.path, &self.target.shown, data, false)
    }
}

impl Native for Writer {
    fn class_name(&self) -> &'static str {
        self.class
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("write", 1) => {
                match &args[0] {
                    Value::Int(c) if !self.class.ends_with("Stream") => {
                        self.put(cx, char::from_u32(*c as u32).unwrap_or('?').to_string().as_bytes())?
                    }
                    Value::Int(b) => self.put(cx, &[*b as u8])?,
                    Value::Bytes(b) => self.put(cx, b)?,
                    Value::List(l) => {
                        self.put(cx, lock(&l.items).iter().map(|c| c.to_string()).collect::<String>().as_bytes())?
                    }
                    v => self.put(cx, v.to_string().as_bytes())?,
                }
                Ok(Value::Null)
            }
            ("write", 3) => {
                let (off, len) = (super::int_arg(&args, 1)?.max(0) as usize, super::int_arg(&args, 2)?.max(0) as usize);
                let data: Vec<u8> = match &args[0] {
                    Value::Bytes(b) => b.get(off..off + len).map(<[u8]>::to_vec),
                    v => Some(v.to_string().chars().skip(off).take(len).collect::<String>().into_bytes()),
                }
                .ok_or_else(|| {
                    Thrown::new("java.lang.IndexOutOfBoundsException", "write: offset and length out of range")
                })?;
                self.put(cx, &data)?;
                Ok(Value::Null)
            }
            ("append" | "leftShift", 1) => {
                self.put(cx, args[0].to_string().as_bytes())?;
                Ok(self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null))
            }
            ("print", 1) => {
                self.put(cx, args[0].to_string().as_bytes())?;
                Ok(Value::Null)
            }
            ("println", 0 | 1) => {
                self.put(cx, format!("{}\n", args.first().map(|v| v.to_string()).unwrap_or_default()).as_bytes())?;
                Ok(Value::Null)
            }
            ("printf" | "format", _) if !args.is_empty() => {
                let text = super::lang::format(&str_arg(&args, 0)?, &args[1..])?;
                self.put(cx, text.as_bytes())?;
                Ok(self.me.upgrade().map(|a| Value::Object(a as Arc<dyn Native>)).unwrap_or(Value::Null))
            }
            ("newLine", 0) => {
                self.put(cx, b"\n")?;
                Ok(Value::Null)
            }
            ("flush" | "close", 0) => Ok(Value::Null),
            ("checkError", 0) => Ok(Value::Bool(false)),
            _ => Err(no_method(self.class, method)),
        }
    }
}

/// A reader over text read whole when it was opened: the text and the position.
#[derive(Debug)]
struct Reader {
    class: &'static str,
    state: Mutex<(String, usize)>,
}

impl Native for Reader {
    native_base!("java.io.Reader");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        let _ = self.class;
        let mut st = lock(&self.state);
        let (text, pos) = (&st.0, st.1);
        match method {
            "readLine" => {
                if pos >= text.len() {
                    return Ok(Value::Null);
                }
                let rest = &text[pos..];
                let end = rest.find(['\n', '\r']).unwrap_or(rest.len());
                let line = rest[..end].to_string();
                let skip = if rest[end..].starts_with("\r\n") { 2 } else { usize::from(end < rest.len()) };
                st.1 = pos + end + skip;
                Ok(Value::str(line))
            }
            "read" => match text[pos..].chars().next() {
                Some(c) => {
                    st.1 = pos + c.len_utf8();
                    Ok(Value::Int(c as i32))
                }
                None => Ok(Value::Int(-1)),
            },
            "lines" | "readLines" => {
                let l = lines(&text[pos..]);
                st.1 = text.len();
                Ok(Value::list(l))
            }
            "getText" | "readAllBytes" => {
                let rest = text[pos..].to_string();
                st.1 = text.len();
                Ok(if method == "getText" { Value::str(rest) } else { bytes(rest.into_bytes()) })
            }
            "ready" => Ok(Value::Bool(pos < text.len())),
            "close" => Ok(Value::Null),
            _ => Err(no_method(self.class, method)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{s, try_call as call};
    use super::super::{call_static, construct};
    use super::*;
    use crate::{Host, HostRef, Lang};

    /// A host that allows files under one directory.
    struct DirHost(PathBuf);

    impl Host for DirHost {
        fn call(&mut self, _t: HostRef, method: &str, _a: Vec<Value>) -> Result<Value, Thrown> {
            Err(Thrown::no_method("Object", method))
        }
        fn file(&mut self, path: &str, _access: FileAccess) -> Result<PathBuf, Thrown> {
            if path.contains("..") || path.starts_with('/') {
                return Err(Thrown::security(format!("file access to `{path}` is not allowed here")));
            }
            Ok(self.0.join(path))
        }
        fn open(&mut self, path: &std::path::Path, access: FileAccess) -> std::io::Result<std::fs::File> {
            let mut o = std::fs::OpenOptions::new();
            match access {
                FileAccess::Read => o.read(true),
                FileAccess::Append => o.create(true).append(true),
                FileAccess::Write => o.create(true).write(true).truncate(true),
            };
            o.open(path)
        }
    }

    #[test]
    fn files_go_through_the_host() {
        let dir = std::env::temp_dir().join(format!("stampede-script-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut host = DirHost(dir.clone());
        let cx = &mut Ctx { host: &mut host, lang: Lang::Groovy, state: Default::default() };
        let fw = construct(cx, "java.io.FileWriter", vec![s("out.csv"), Value::Bool(true)]).unwrap();
        let bw = construct(cx, "java.io.BufferedWriter", vec![fw]).unwrap();
        call(cx, &bw, "write", vec![s("a,b")]).unwrap();
        call(cx, &bw, "newLine", vec![]).unwrap();
        // Written through before any close.
        assert_eq!(std::fs::read_to_string(dir.join("out.csv")).unwrap(), "a,b\n");
        let f = construct(cx, "java.io.File", vec![s("out.csv")]).unwrap();
        call(cx, &f, "leftShift", vec![s("c,d\r\n")]).unwrap();
        call(cx, &f, "append", vec![s("e")]).unwrap();
        assert_eq!(call(cx, &f, "getText", vec![]).unwrap().to_string(), "a,b\nc,d\r\ne");
        assert_eq!(call(cx, &f, "readLines", vec![]).unwrap().to_string(), "[a,b, c,d, e]");
        assert_eq!(call(cx, &f, "getName", vec![]).unwrap().to_string(), "out.csv");
        assert!(matches!(call(cx, &f, "exists", vec![]), Ok(Value::Bool(true))));
        let r = construct(cx, "java.io.FileReader", vec![f.clone()]).unwrap();
        let br = construct(cx, "java.io.BufferedReader", vec![r]).unwrap();
        assert_eq!(call(cx, &br, "readLine", vec![]).unwrap().to_string(), "a,b");
        assert_eq!(call(cx, &br, "readLine", vec![]).unwrap().to_string(), "c,d");
        assert_eq!(call(cx, &br, "readLine", vec![]).unwrap().to_string(), "e");
        assert!(call(cx, &br, "readLine", vec![]).unwrap().is_null());
        let pw = construct(cx, "java.io.PrintWriter", vec![s("new.txt")]).unwrap();
        call(cx, &pw, "println", vec![Value::Int(1)]).unwrap();
        call(cx, &pw, "printf", vec![s("%02d"), Value::Int(2)]).unwrap();
        let p = call_static(cx, "java.nio.file.Paths", "get", vec![s("new.txt")]).unwrap();
        assert_eq!(
            call_static(cx, "java.nio.file.Files", "readAllLines", vec![p.clone()]).unwrap().to_string(),
            "[1, 02]"
        );
        call_static(cx, "java.nio.file.Files", "write", vec![p.clone(), s("x"), s("APPEND")]).unwrap();
        assert_eq!(call_static(cx, "java.nio.file.Files", "readString", vec![p]).unwrap().to_string(), "1\n02x");
        // Refusals: outside the allowed directory, deleting, listing.
        let outside = construct(cx, "java.io.File", vec![s("/etc/passwd")]).unwrap();
        assert_eq!(call(cx, &outside, "getText", vec![]).unwrap_err().class, "java.lang.SecurityException");
        assert!(construct(cx, "java.io.FileWriter", vec![s("../x")]).is_err());
        assert_eq!(call(cx, &f, "delete", vec![]).unwrap_err().class, "java.lang.SecurityException");
        assert_eq!(call(cx, &f, "listFiles", vec![]).unwrap_err().class, "java.lang.SecurityException");
        // commons-io's FileUtils, under the same policy.
        let fu = "org.apache.commons.io.FileUtils";
        call_static(cx, fu, "writeStringToFile", vec![s("fu.txt"), s("a\nb"), s("UTF-8")]).unwrap();
        call_static(cx, fu, "writeStringToFile", vec![s("fu.txt"), s("\nc"), s("UTF-8"), Value::Bool(true)]).unwrap();
        assert_eq!(
            call_static(cx, fu, "readFileToString", vec![s("fu.txt"), s("UTF-8")]).unwrap().to_string(),
            "a\nb\nc"
        );
        assert_eq!(call_static(cx, fu, "readLines", vec![s("fu.txt")]).unwrap().to_string(), "[a, b, c]");
        call_static(cx, fu, "copyFile", vec![s("fu.txt"), s("fu2.txt")]).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("fu2.txt")).unwrap(), "a\nb\nc");
        let lines = Value::list(vec![s("x"), s("y")]);
        call_static(cx, fu, "writeLines", vec![s("fu3.txt"), lines]).unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("fu3.txt")).unwrap(), "x\ny\n");
        assert!(matches!(call_static(cx, fu, "deleteQuietly", vec![s("fu.txt")]), Ok(Value::Bool(false))));
        assert!(dir.join("fu.txt").exists());
        assert_eq!(
            call_static(cx, fu, "readFileToString", vec![s("/etc/passwd")]).unwrap_err().class,
            "java.lang.SecurityException"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
