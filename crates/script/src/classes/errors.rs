//! Exceptions: the classes a script may throw and catch, their hierarchy, and the object
//! `new Exception(msg[, cause])` and `catch (e)` give.

use super::{arg, native_base, no_method, obj, Class};
use crate::value::{Native, Value};
use crate::{Ctx, Thrown};

/// (class, superclass): Java's hierarchy for the exceptions scripts meet.
const HIERARCHY: &[(&str, &str)] = &[
    ("java.lang.Exception", "java.lang.Throwable"),
    ("java.lang.Error", "java.lang.Throwable"),
    ("java.lang.RuntimeException", "java.lang.Exception"),
    ("java.lang.IllegalArgumentException", "java.lang.RuntimeException"),
    ("java.lang.NumberFormatException", "java.lang.IllegalArgumentException"),
    ("java.util.regex.PatternSyntaxException", "java.lang.IllegalArgumentException"),
    ("java.lang.IllegalStateException", "java.lang.RuntimeException"),
    ("java.lang.NullPointerException", "java.lang.RuntimeException"),
    ("java.lang.ArithmeticException", "java.lang.RuntimeException"),
    ("java.lang.IndexOutOfBoundsException", "java.lang.RuntimeException"),
    ("java.lang.ArrayIndexOutOfBoundsException", "java.lang.IndexOutOfBoundsException"),
    ("java.lang.StringIndexOutOfBoundsException", "java.lang.IndexOutOfBoundsException"),
    ("java.lang.UnsupportedOperationException", "java.lang.RuntimeException"),
    ("java.lang.ClassCastException", "java.lang.RuntimeException"),
    ("java.lang.SecurityException", "java.lang.RuntimeException"),
    ("java.util.NoSuchElementException", "java.lang.RuntimeException"),
    ("java.util.ConcurrentModificationException", "java.lang.RuntimeException"),
    ("java.time.DateTimeException", "java.lang.RuntimeException"),
    ("java.time.format.DateTimeParseException", "java.time.DateTimeException"),
    ("groovy.lang.GroovyRuntimeException", "java.lang.RuntimeException"),
    ("groovy.lang.MissingMethodException", "groovy.lang.GroovyRuntimeException"),
    ("groovy.lang.MissingPropertyException", "groovy.lang.GroovyRuntimeException"),
    ("groovy.json.JsonException", "java.lang.RuntimeException"),
    ("org.json.JSONException", "java.lang.RuntimeException"),
    ("com.jayway.jsonpath.PathNotFoundException", "java.lang.RuntimeException"),
    ("java.lang.InterruptedException", "java.lang.Exception"),
    ("java.lang.CloneNotSupportedException", "java.lang.Exception"),
    ("java.io.IOException", "java.lang.Exception"),
    ("java.io.FileNotFoundException", "java.io.IOException"),
    ("java.io.UncheckedIOException", "java.lang.RuntimeException"),
    ("java.text.ParseException", "java.lang.Exception"),
    ("java.io.UnsupportedEncodingException", "java.io.IOException"),
    ("java.security.NoSuchAlgorithmException", "java.lang.Exception"),
    ("java.security.InvalidKeyException", "java.lang.Exception"),
    ("java.lang.AssertionError", "java.lang.Error"),
    ("java.lang.StackOverflowError", "java.lang.Error"),
    ("java.lang.OutOfMemoryError", "java.lang.Error"),
    ("org.codehaus.groovy.runtime.powerassert.PowerAssertionError", "java.lang.AssertionError"),
];

macro_rules! exceptions {
    ($($name:literal),* $(,)?) => {
        pub(super) const CLASSES: &[Class] = &[
            Class { name: "java.lang.Throwable", new: Some(construct), statics: &[], fields: &[] },
            $(Class { name: $name, new: Some(construct), statics: &[], fields: &[] },)*
        ];
    };
}

exceptions!(
    "java.lang.Exception",
    "java.lang.Error",
    "java.lang.RuntimeException",
    "java.lang.IllegalArgumentException",
    "java.lang.NumberFormatException",
    "java.util.regex.PatternSyntaxException",
    "java.lang.IllegalStateException",
    "java.lang.NullPointerException",
    "java.lang.ArithmeticException",
    "java.lang.IndexOutOfBoundsException",
    "java.lang.ArrayIndexOutOfBoundsException",
    "java.lang.StringIndexOutOfBoundsException",
    "java.lang.UnsupportedOperationException",
    "java.lang.ClassCastException",
    "java.lang.SecurityException",
    "java.util.NoSuchElementException",
    "java.util.ConcurrentModificationException",
    "java.time.DateTimeException",
    "java.time.format.DateTimeParseException",
    "groovy.lang.GroovyRuntimeException",
    "groovy.lang.MissingMethodException",
    "groovy.lang.MissingPropertyException",
    "groovy.json.JsonException",
    "org.json.JSONException",
    "com.jayway.jsonpath.PathNotFoundException",
    "java.lang.InterruptedException",
    "java.lang.CloneNotSupportedException",
    "java.io.IOException",
    "java.io.FileNotFoundException",
    "java.io.UncheckedIOException",
    "java.text.ParseException",
    "java.io.UnsupportedEncodingException",
    "java.security.NoSuchAlgorithmException",
    "java.security.InvalidKeyException",
    "java.lang.AssertionError",
    "java.lang.StackOverflowError",
    "java.lang.OutOfMemoryError",
    "org.codehaus.groovy.runtime.powerassert.PowerAssertionError",
);

/// Whether `class` is `ancestor` or below it. An exception class stampede does not know is
/// taken as a direct `RuntimeException` (an interpreter error named by its Java class).
pub(crate) fn is_subclass(class: &str, ancestor: &str) -> bool {
    let mut c = class;
    for _ in 0..16 {
        if c == ancestor {
            return true;
        }
        c = match HIERARCHY.iter().find(|(k, _)| *k == c) {
            Some((_, parent)) => parent,
            None if c == "java.lang.Throwable" => return false,
            None if c.ends_with("Error") && !c.ends_with("JsonError") => "java.lang.Error",
            None if c.ends_with("Exception") => "java.lang.RuntimeException",
            None => return false,
        };
    }
    false
}

/// A `Throwable`: its class, message and cause.
#[derive(Debug)]
pub(crate) struct Throwable {
    pub class: String,
    pub message: Option<String>,
    pub cause: Option<Value>,
}

impl Throwable {
    pub(crate) fn new(class: &str, message: Option<String>, cause: Option<Value>) -> Throwable {
        Throwable { class: class.to_string(), message, cause }
    }
}

/// `getClass()` of an object: a class value with `getName()`/`getSimpleName()` (the
/// interpreter's `Value::Class` needs a `'static` name, which a thrown class may not have).
#[derive(Debug)]
pub(crate) struct ClassInfo(pub String);

impl Native for ClassInfo {
    native_base!("java.lang.Class");
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, _args: Vec<Value>) -> Result<Value, Thrown> {
        match method {
            "getName" | "getCanonicalName" | "getTypeName" => Ok(Value::str(self.0.as_str())),
            "getSimpleName" => Ok(Value::str(self.0.rsplit('.').next().unwrap_or(&self.0))),
            "toString" => Ok(Value::str(format!("class {}", self.0))),
            _ => Err(no_method("java.lang.Class", method)),
        }
    }
    fn to_string(&self) -> String {
        format!("class {}", self.0)
    }
    fn equals(&self, other: &dyn Native) -> bool {
        other.as_any().downcast_ref::<ClassInfo>().is_some_and(|o| o.0 == self.0)
    }
}

impl Native for Throwable {
    fn class_name(&self) -> &'static str {
        super::class(&self.class).map(|c| c.name).unwrap_or("java.lang.Throwable")
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("getMessage" | "getLocalizedMessage", 0) => {
                Ok(self.message.clone().map(Value::from).unwrap_or(Value::Null))
            }
            ("getCause", 0) => Ok(self.cause.clone().unwrap_or(Value::Null)),
            ("toString", 0) => Ok(Value::str(Native::to_string(self))),
            ("getClass", 0) => Ok(obj(ClassInfo(self.class.clone()))),
            ("printStackTrace", _) => {
                let text = format!("{}\n", Native::to_string(self));
                cx.host.print(&text);
                Ok(Value::Null)
            }
            ("getStackTrace", 0) => Ok(Value::array(Vec::new())),
            ("fillInStackTrace" | "initCause", _) => Ok(Value::Null),
            ("hashCode", 0) => Ok(Value::Int(self as *const Self as usize as i32)),
            _ => Err(no_method(&self.class, method)),
        }
    }
    fn to_string(&self) -> String {
        match &self.message {
            Some(m) => format!("{}: {m}", self.class),
            None => self.class.clone(),
        }
    }
}

fn construct(_cx: &mut Ctx<'_>, class: &'static str, args: Vec<Value>) -> Result<Value, Thrown> {
    let (message, cause) = match (arg(&args, 0), arg(&args, 1)) {
        (Value::Null, Value::Null) if args.is_empty() => (None, None),
        // `new RuntimeException(cause)`: the message is the cause's toString().
        (cause @ Value::Object(o), Value::Null) if o.as_any().is::<Throwable>() => {
            (Some(cause.to_string()), Some(cause.clone()))
        }
        (m, Value::Null) => (Some(m.to_string()), None),
        (m, cause) => (Some(m.to_string()), Some(cause.clone())),
    };
    let message = if args.first().is_some_and(Value::is_null) { None } else { message };
    Ok(obj(Throwable::new(class, message, cause)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::with_cx;
    use super::super::{catches, construct, exception_value, thrown_from};
    use super::*;

    #[test]
    fn catch_follows_the_hierarchy() {
        assert!(catches("java.lang.Exception", "java.lang.NumberFormatException"));
        assert!(catches("java.lang.IllegalArgumentException", "java.lang.NumberFormatException"));
        assert!(catches("java.lang.Throwable", "java.lang.AssertionError"));
        assert!(!catches("java.lang.Exception", "java.lang.AssertionError"));
        assert!(catches("java.io.IOException", "java.io.FileNotFoundException"));
        assert!(!catches("java.io.IOException", "java.lang.NullPointerException"));
        assert!(catches("java.lang.RuntimeException", "groovy.lang.MissingMethodException"));
        assert!(catches("java.lang.Exception", "java.lang.SecurityException"));
        assert!(!catches("java.lang.RuntimeException", "java.lang.InterruptedException"));
    }

    #[test]
    fn exception_objects_carry_class_message_and_cause() {
        with_cx(|cx| {
            let cause = construct(cx, "java.io.IOException", vec!["disk".into()]).unwrap();
            let e = construct(cx, "java.lang.RuntimeException", vec!["boom".into(), cause.clone()]).unwrap();
            assert_eq!(e.to_string(), "java.lang.RuntimeException: boom");
            let Value::Object(o) = &e else { panic!() };
            assert_eq!(o.call(cx, "getMessage", vec![]).unwrap().to_string(), "boom");
            assert_eq!(o.call(cx, "getCause", vec![]).unwrap().to_string(), "java.io.IOException: disk");
            let class = o.call(cx, "getClass", vec![]).unwrap();
            let Value::Object(c) = class else { panic!() };
            assert_eq!(c.call(cx, "getSimpleName", vec![]).unwrap().to_string(), "RuntimeException");
            let t = thrown_from(e);
            assert_eq!((t.class.as_str(), t.message.as_str()), ("java.lang.RuntimeException", "boom"));
            let wrapped = construct(cx, "java.lang.RuntimeException", vec![cause]).unwrap();
            assert_eq!(wrapped.to_string(), "java.lang.RuntimeException: java.io.IOException: disk");
            let v = exception_value(&Thrown::new("java.lang.NumberFormatException", "For input string: \"x\""));
            assert_eq!(v.to_string(), "java.lang.NumberFormatException: For input string: \"x\"");
            assert!(super::super::is_instance(&v, "java.lang.IllegalArgumentException"));
        })
    }
}
