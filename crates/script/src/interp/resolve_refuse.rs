//! What scripts may not name, refused at load: classes stampede does not have, process
//! execution, network access, reflection and class loading, threads.

use super::*;

pub(crate) fn unavailable(name: &str, pos: Pos) -> CompileError {
    let last = name.rsplit('.').next().unwrap_or(name);
    let why = if matches!(last, "Runtime" | "ProcessBuilder")
        || last.starts_with("Process") && name.starts_with("java.lang")
        || last == "Process"
    {
        ": process execution is not allowed"
    } else if matches!(
        last,
        "Socket"
            | "ServerSocket"
            | "DatagramSocket"
            | "URL"
            | "URLConnection"
            | "HttpURLConnection"
            | "HttpClient"
            | "HttpsURLConnection"
    ) || name.starts_with("java.net.")
    {
        ": network access is not allowed"
    } else if is_reflection_class(name, last) {
        REFLECTION
    } else if is_thread_class(name, last) {
        THREADS
    } else {
        " (docs/scripts.md)"
    };
    CompileError { pos, message: format!("class `{name}` is not available in stampede's scripts{why}"), syntax: false }
}

pub(super) const REFLECTION: &str = ": reflection is not allowed";
pub(super) const THREADS: &str = ": threads are not allowed";

/// Classes that reach outside the subset at run time (looking up methods and fields by name,
/// running script text, loading classes): what they would call could no longer be checked here.
pub(super) fn is_reflection_class(name: &str, last: &str) -> bool {
    name.starts_with("java.lang.reflect.")
        || name.starts_with("java.lang.invoke.")
        || matches!(
            last,
            "ClassLoader"
                | "URLClassLoader"
                | "GroovyClassLoader"
                | "GroovyShell"
                | "Eval"
                | "Binding"
                | "ScriptEngineManager"
                | "ScriptEngine"
                | "MetaClass"
                | "ExpandoMetaClass"
                | "InvokerHelper"
                | "MethodHandles"
        )
}

/// Classes that start threads: a script runs on its user's turn, and a thread it left behind
/// would outlive the sample, the user and the run's budgets.
pub(super) fn is_thread_class(name: &str, last: &str) -> bool {
    name.starts_with("javax.swing.")
        || name.starts_with("java.awt.")
        || matches!(
            last,
            "Executors"
                | "Executor"
                | "ExecutorService"
                | "ScheduledExecutorService"
                | "ThreadPoolExecutor"
                | "ScheduledThreadPoolExecutor"
                | "ForkJoinPool"
                | "CompletableFuture"
                | "FutureTask"
                | "ThreadFactory"
                | "ThreadGroup"
                | "Timer"
                | "TimerTask"
                | "GParsPool"
                | "GParsExecutorsPool"
                | "SwingUtilities"
                | "SwingWorker"
        )
}

/// A method that reflects on a value's class or changes it at run time (`getClass().getMethod(
/// "m")`, `x.metaClass`, `invokeMethod`), refused at load as the classes above are. `getMethod`
/// and `getField` with no argument are left alone: `sampler.getMethod()` is the HTTP method.
pub(super) fn reflective_method(name: &str, args: usize) -> bool {
    match name {
        "getMethod" | "getField" | "getDeclaredMethod" | "getDeclaredField" => args >= 1,
        "getMethods"
        | "getFields"
        | "getDeclaredMethods"
        | "getDeclaredFields"
        | "getConstructors"
        | "getDeclaredConstructors"
        | "getClassLoader"
        | "getMetaClass" => args == 0,
        "getConstructor"
        | "getDeclaredConstructor"
        | "newInstance"
        | "forName"
        | "invokeMethod"
        | "setMetaClass"
        | "loadClass"
        | "defineClass"
        | "setAccessible" => true,
        _ => false,
    }
}

/// A property that is the same reflection (`x.metaClass`, `x.class.declaredMethods`).
pub(super) fn reflective_property(name: &str) -> bool {
    matches!(name, "metaClass" | "declaredMethods" | "declaredFields" | "declaredConstructors" | "classLoader")
}

/// A property of a class object that reflects on it (`x.class.methods`, `getClass().fields`).
/// Only on a class object: `map.methods` is a map key.
pub(super) fn reflective_class_property(target: &crate::ast::Expr, name: &str) -> bool {
    use crate::ast::ExprKind;
    let on_class = match &target.kind {
        ExprKind::Property { name, .. } => name == "class",
        // `x.class` and `String.class` parse as a class literal.
        ExprKind::ClassLit(_) => true,
        ExprKind::Call { name, args, .. } => name == "getClass" && args.is_empty(),
        _ => false,
    };
    on_class && matches!(name, "methods" | "fields" | "constructors" | "declaredClasses" | "classes" | "superclass")
}

pub(super) fn refused_method(name: &str, pos: Pos) -> CompileError {
    err(pos, format!("`{name}` is not available in stampede's scripts{REFLECTION}"))
}
