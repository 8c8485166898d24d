//! `org.apache.jmeter.protocol.http.control.HttpMirrorServer` for scripts: JMeter's own test
//! plans start its HTTP Mirror Server from a setUp JSR223 sampler
//! (`new HttpMirrorServer(8081, 10, 10)`, `start()`, `props.put("MIRROR_SERVER", server)`) and
//! stop it in tearDown (`((HttpMirrorServer) props.get("MIRROR_SERVER")).stopServer()`).
//!
//! `start()` binds 127.0.0.1:port (never another address) and serves [`crate::mirror`]
//! from its own thread until `stopServer()` or the end of the run (when the run's shared state
//! is gone), whichever comes first: it never outlives the run. A port that cannot be bound is
//! JMeter's `getException()` (a `java.net.BindException`), logged as JMeter logs it.

use super::scripting::Exec;
use super::session::Globals;
use crate::mirror::{Mirror, Options};
use crate::script::{lock, Ctx, Native, Thrown, Value};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

const CLASS: &str = "org.apache.jmeter.protocol.http.control.HttpMirrorServer";

/// The host's side: `new HttpMirrorServer(port[, maxPoolSize, maxQueueSize])` (the script
/// library hands the constructor of this class to the host, as `call_static(class, "new", ..)`).
pub(crate) fn call_static(x: &mut Exec<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
    if method != "new" {
        return Err(Thrown::no_method(CLASS, method));
    }
    let ints: Option<Vec<i64>> = args.iter().map(|v| v.is_number().then(|| v.as_i64()).flatten()).collect();
    let (port, max_pool, max_queue) = match ints.as_deref() {
        Some(&[port]) => (port, 0, 25), // HttpMirrorControl's defaults
        Some(&[port, pool, queue]) => (port, pool, queue),
        _ => {
            let types: Vec<&str> = args.iter().map(|v| v.type_name()).collect();
            return Err(Thrown::new(
                "groovy.lang.GroovyRuntimeException",
                format!("Could not find matching constructor for: {CLASS}({})", types.join(", ")),
            ));
        }
    };
    Ok(Value::Object(Arc::new(MirrorServer {
        port,
        max_pool,
        max_queue,
        run: Arc::downgrade(&x.vars.globals),
        log: x.env.log.clone().map(Mutex::new),
        state: Mutex::new(State::default()),
    })))
}

#[derive(Default)]
struct State {
    started: bool,
    mirror: Option<Mirror>,
    exception: Option<Thrown>,
}

/// The script's `HttpMirrorServer` object.
struct MirrorServer {
    port: i64,
    max_pool: i64,
    max_queue: i64,
    /// The run's shared state: the mirror stops once it is gone.
    run: Weak<Globals>,
    log: Option<Mutex<crate::engine::ScriptLog>>,
    state: Mutex<State>,
}

impl std::fmt::Debug for MirrorServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HttpMirrorServer({})", self.port)
    }
}

impl MirrorServer {
    fn log(&self, level: &str, text: &str) {
        if let Some(tx) = &self.log {
            let _ = lock(tx).send(format!("{level} HttpMirrorServer: {text}"));
        }
    }

    /// `Thread.start()` → `HttpMirrorServer.run()`, with the bind done before returning (so
    /// that `getException()` right after `start()` already tells).
    fn start(&self) -> Result<(), Thrown> {
        let mut st = lock(&self.state);
        if st.started {
            return Err(Thrown::new("java.lang.IllegalThreadStateException", String::new()));
        }
        st.started = true;
        st.exception = None;
        // `new ArrayBlockingQueue<>(maxQueueSize)` throws before the try: the thread dies
        // with nothing in `getException()`.
        if self.max_pool > 0 && self.max_queue <= 0 {
            self.log("ERROR", "Exception in thread \"HttpMirrorServer\" java.lang.IllegalArgumentException");
            return Ok(());
        }
        self.log("INFO", &format!("Creating HttpMirror ... on port {}", self.port));
        let Ok(port) = u16::try_from(self.port) else {
            let e =
                Thrown::new("java.lang.IllegalArgumentException", format!("Port value out of range: {}", self.port));
            self.log("WARN", &format!("HttpMirror Server stopped: {e}"));
            st.exception = Some(e);
            return Ok(());
        };
        let listener = match std::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, port)) {
            Ok(l) => l,
            Err(e) => {
                let e = match e.kind() {
                    std::io::ErrorKind::AddrInUse => Thrown::new("java.net.BindException", "Address already in use"),
                    std::io::ErrorKind::PermissionDenied => Thrown::new("java.net.BindException", "Permission denied"),
                    _ => Thrown::new("java.net.SocketException", e.to_string()),
                };
                self.log(
                    "WARN",
                    &format!("Could not bind HttpMirror to port {port}. Maybe there is already a HttpMirror running?"),
                );
                st.exception = Some(e);
                return Ok(());
            }
        };
        let run = self.run.clone();
        let run_over = async move {
            while run.strong_count() > 0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        };
        let options = Options {
            max_pool: usize::try_from(self.max_pool).unwrap_or(0),
            max_queue: usize::try_from(self.max_queue).unwrap_or(0),
            verbose: self.log.as_ref().map(|tx| {
                let tx = Mutex::new(lock(tx).clone());
                let verbose: crate::mirror::Verbose =
                    Arc::new(move |line: &str| drop(lock(&tx).send(format!("INFO HttpMirrorThread: {line}"))));
                verbose
            }),
        };
        match Mirror::start(listener, options, run_over) {
            Ok(m) => {
                self.log("INFO", "HttpMirror up and running!");
                st.mirror = Some(m);
            }
            Err(e) => st.exception = Some(Thrown::new("java.io.IOException", e.to_string())),
        }
        Ok(())
    }

    /// `stopServer()`: stops, and says what it served.
    fn stop(&self) {
        let mut st = lock(&self.state);
        if let Some(mut m) = st.mirror.take() {
            m.stop();
            let c = &m.counters;
            self.log(
                "INFO",
                &format!(
                    "HttpMirror Server stopped (served {} requests on {} connections)",
                    c.served.load(std::sync::atomic::Ordering::Relaxed),
                    c.connections.load(std::sync::atomic::Ordering::Relaxed)
                ),
            );
        }
    }
}

/// The object gone (a script that did not keep it): JMeter's thread runs on, so does the
/// mirror, until the run ends.
impl Drop for MirrorServer {
    fn drop(&mut self) {
        if let Some(m) = lock(&self.state).mirror.take() {
            m.detach();
        }
    }
}

impl Native for MirrorServer {
    fn class_name(&self) -> &'static str {
        CLASS
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn call(&self, _cx: &mut Ctx<'_>, method: &str, args: Vec<Value>) -> Result<Value, Thrown> {
        match (method, args.len()) {
            ("start", 0) => self.start().map(|()| Value::Null),
            ("stopServer", 0) => {
                self.stop();
                Ok(Value::Null)
            }
            ("getException", 0) => {
                Ok(lock(&self.state).exception.as_ref().map(crate::script::exception_value).unwrap_or_default())
            }
            ("isAlive", 0) => Ok(Value::Bool(lock(&self.state).mirror.as_ref().is_some_and(Mirror::is_alive))),
            ("getName", 0) => Ok(Value::str("HttpMirrorServer")),
            _ => Err(Thrown::no_method(CLASS, method)),
        }
    }
    fn to_string(&self) -> String {
        "Thread[HttpMirrorServer,5,main]".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(port: i64, max_pool: i64, max_queue: i64, run: &Arc<Globals>) -> MirrorServer {
        MirrorServer {
            port,
            max_pool,
            max_queue,
            run: Arc::downgrade(run),
            log: None,
            state: Mutex::new(State::default()),
        }
    }

    /// JMeter's failures: a port out of range is `getException()`'s, a second `start()` throws,
    /// a pool with no queue dies with nothing to report; the run's end stops a running mirror.
    #[test]
    fn start_fails_as_jmeter_and_the_run_ends_it() {
        let run = Globals::new(0);
        let s = server(70_000, 10, 10, &run);
        s.start().unwrap();
        let e = lock(&s.state).exception.clone().unwrap();
        assert_eq!(
            (e.class.as_str(), e.message.as_str()),
            ("java.lang.IllegalArgumentException", "Port value out of range: 70000")
        );
        assert_eq!(s.start().unwrap_err().class, "java.lang.IllegalThreadStateException");
        let s = server(0, 4, 0, &run);
        s.start().unwrap();
        assert!(lock(&s.state).exception.is_none() && lock(&s.state).mirror.is_none());
        // Port 0: an ephemeral loopback port; dropping the object leaves it running, the end
        // of the run (its shared state gone) stops it.
        let s = server(0, 0, 25, &run);
        s.start().unwrap();
        let m = lock(&s.state).mirror.take().unwrap();
        assert!(m.is_alive());
        drop(run);
        let t = std::time::Instant::now();
        while m.is_alive() && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(!m.is_alive(), "the mirror ends with its run");
    }
}
