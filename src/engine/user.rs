//! [`VirtualUser`]: one simulated user, a tokio task that runs its scenario's [`Program`] once
//! per iteration over its own connection, with its own variables and cookie jar, and records
//! a sample per request (and per redirect hop and group).

use super::client::{HttpClient, Wire};
use super::program::{pick, Op, Program};
use super::request::{Hop, PreparedRequest};
use super::response::Response;
use crate::plan::flow::{StopKind, ThroughputShare};
use crate::plan::template::{Globals, UserVars};
use crate::plan::{CheckTest, DataSpec, LabelId, OnEof, Share, Target, WriterSpec};
use crate::record::{ErrorKind, Recorder, Sample, SampleRow};
use rand::Rng;
use std::io::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

/// What every user of a run shares, whatever its scenario.
pub struct RunShared {
    pub feeders: Vec<Feeder>,
    pub writers: Vec<Mutex<std::io::BufWriter<std::fs::File>>>,
    pub globals: Arc<Globals>,
    pub initial_vars: Vec<String>,
    pub user_counters: u32,
    pub slots: crate::plan::Slots,
    pub cookies: bool,
    pub last_ok: Option<crate::plan::template::VarId>,
    /// Cancelled when a data file that says `stop_run` runs out: every scenario stops.
    pub stop_run: CancellationToken,
    /// Counters shared by all users, by slot.
    pub counters: Vec<AtomicU64>,
    /// Throughput controllers' shared (passes, executions), by slot.
    pub throughput: Vec<Mutex<(u64, u64)>>,
    /// Where a row per sample goes, when a JTL file is written.
    pub sample_log: Option<std::sync::mpsc::Sender<SampleRow>>,
    /// The wall-clock time of the run's epoch, in ms since the Unix epoch.
    pub epoch_unix_ms: u64,
    /// Users running an iteration, in every scenario.
    pub active_all: AtomicU64,
}

/// A data file's rows and the cursors that are shared.
pub struct Feeder {
    pub spec: DataSpec,
    pub all: AtomicU64,
    pub per_scenario: Vec<AtomicU64>,
}

impl RunShared {
    /// Opens the write-back files (appending), writing their header when they are new or empty.
    pub fn open_writers(specs: &[WriterSpec]) -> Result<Vec<Mutex<std::io::BufWriter<std::fs::File>>>, String> {
        let mut out = Vec::new();
        for w in specs {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&w.path)
                .map_err(|e| format!("cannot open {} for writing: {e}", w.path.display()))?;
            let empty = file.metadata().map(|m| m.len() == 0).unwrap_or(false);
            let mut bw = std::io::BufWriter::new(file);
            if let (true, Some(h)) = (empty, &w.header) {
                let line = csv_line(h.iter().map(String::as_str));
                bw.write_all(line.as_bytes())
                    .and_then(|_| bw.flush())
                    .map_err(|e| format!("cannot write {}: {e}", w.path.display()))?;
            }
            out.push(Mutex::new(bw));
        }
        Ok(out)
    }
}

/// One CSV line: fields quoted when they hold a comma, a quote or a line break.
pub fn csv_line<'a>(fields: impl Iterator<Item = &'a str>) -> String {
    let mut line = String::new();
    for (i, f) in fields.enumerate() {
        if i > 0 {
            line.push(',');
        }
        if f.contains([',', '"', '\n', '\r']) {
            line.push('"');
            line.push_str(&f.replace('"', "\"\""));
            line.push('"');
        } else {
            line.push_str(f);
        }
    }
    line.push('\n');
    line
}

/// What every user of a scenario shares.
pub struct ScenarioCtx {
    pub index: usize,
    pub program: Program,
    pub recorder: Arc<Recorder>,
    /// The run's time origin: sample times are µs since then.
    pub epoch: Instant,
    /// Cancelled when the scenario must stop starting requests (its end, or an interrupt).
    pub stop: CancellationToken,
    /// The same as `stop`, as a plain flag: checked before every request, so it must be cheap.
    pub stopping: AtomicBool,
    /// Cancelled when requests still in flight must be abandoned (grace time over).
    pub hard: CancellationToken,
    /// Users currently running an iteration.
    pub active: AtomicU64,
    /// Users started so far (numbers users for `__threadNum`).
    pub started: AtomicU64,
    /// Closed model: the least time between iteration starts.
    pub pacing: Option<Duration>,
    /// What a user does after a failed sample.
    pub on_error: StopKind,
    pub tls: Arc<rustls::ClientConfig>,
    pub shared: Arc<RunShared>,
}

impl ScenarioCtx {
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    fn micros(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_micros() as u64
    }

    /// Whether the scenario was stopped by an interrupt or a `stop_run` (not by its own end).
    pub fn stop_was_interrupt(&self) -> bool {
        self.shared.stop_run.is_cancelled()
    }

    /// Stops the scenario from starting anything new (the watcher then applies the grace time).
    pub fn stop_now(&self) {
        self.stopping.store(true, Ordering::Relaxed);
        self.stop.cancel();
    }
}

/// How an iteration ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IterEnd {
    Completed,
    /// Cut short by a stop.
    Cut,
    /// The user must stop: a data file it reads ran out (`on_eof: stop_user`).
    UserDone,
}

/// A transaction group being timed.
#[derive(Debug, Clone, Copy, Default)]
struct GroupAcc {
    open: bool,
    /// JMeter's "generate parent sample": the requests inside are recorded only as part of
    /// the group's sample, which then counts in the total.
    parent: bool,
    wall_clock: bool,
    /// The status of the last failed request inside, else of the last one.
    status: u16,
    start_us: u64,
    elapsed_us: u64,
    ttfb_us: u64,
    connect_us: u64,
    bytes_sent: u64,
    bytes_received: u64,
    error: Option<ErrorKind>,
}

/// A compressed body larger than this is decoded off the worker thread.
const OFFLOAD_DECODE_ABOVE: usize = 16 * 1024;

/// Runs `f`, handing this worker's other tasks to another worker while it does (a
/// multi-threaded runtime), so a long computation does not stall them.
fn off_the_worker<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// The back-off after running out of file descriptors: from 10 ms, doubling up to 1 s.
const FD_BACKOFF_MIN: Duration = Duration::from_millis(10);
const FD_BACKOFF_MAX: Duration = Duration::from_secs(1);

/// Operations a user runs without waiting before it yields to the runtime, so a loop of
/// `set` steps cannot hold a worker thread.
const OPS_BEFORE_YIELD: u32 = 1024;

pub struct VirtualUser {
    ctx: Arc<ScenarioCtx>,
    client: HttpClient,
    vars: UserVars,
    jar: Option<cookie_store::CookieStore>,
    cursors: Vec<u64>,
    loop_counts: Vec<(u64, u64)>,
    once_done: Vec<bool>,
    groups: Vec<GroupAcc>,
    counters: Vec<u64>,
    throughput: Vec<(u64, u64)>,
    /// When each constant-throughput timer last let the user through.
    paces: Vec<Option<Instant>>,
    /// How long to wait after the generator ran out of file descriptors, doubling while it
    /// lasts: a user that cannot open a socket must not spin and starve the others.
    fd_backoff: Duration,
    /// The scenario's `hard` stop, as this user's own child token: every request waits on it,
    /// and waiting on one token shared by all users would contend on its lock per request.
    abandon: CancellationToken,
    /// Reused buffers: the request on the wire, its body, its path.
    out: Vec<u8>,
    body: Vec<u8>,
    path: String,
}

impl VirtualUser {
    pub fn new(ctx: Arc<ScenarioCtx>) -> VirtualUser {
        let sh = &ctx.shared;
        let thread_num = ctx.started.fetch_add(1, Ordering::Relaxed) + 1;
        let vars = UserVars::new(sh.initial_vars.clone(), sh.user_counters, thread_num, sh.globals.clone());
        VirtualUser {
            client: HttpClient::new(ctx.tls.clone()),
            vars,
            jar: sh.cookies.then(cookie_store::CookieStore::default),
            cursors: vec![0; sh.feeders.len()],
            loop_counts: vec![(0, 0); sh.slots.loops as usize],
            once_done: vec![false; sh.slots.once as usize],
            groups: vec![GroupAcc::default(); sh.slots.groups as usize],
            counters: vec![0; sh.slots.counters as usize],
            throughput: vec![(0, 0); sh.slots.throughput as usize],
            paces: vec![None; sh.slots.paces as usize],
            fd_backoff: Duration::ZERO,
            abandon: ctx.hard.child_token(),
            out: Vec::new(),
            body: Vec::new(),
            path: String::new(),
            ctx,
        }
    }

    /// Runs the flow once. `due` is when an open-model arrival was due: the first request's
    /// elapsed time starts there.
    pub async fn iteration(&mut self, mut due: Option<Instant>) -> IterEnd {
        let ctx = self.ctx.clone();
        let ops = &ctx.program.ops;
        let mut pc = 0;
        let mut since_wait = 0u32;
        self.groups.iter_mut().for_each(|g| g.open = false);
        while pc < ops.len() {
            since_wait += 1;
            if since_wait >= OPS_BEFORE_YIELD {
                since_wait = 0;
                tokio::task::yield_now().await;
                if ctx.stopping() {
                    return IterEnd::Cut;
                }
            }
            match &ops[pc] {
                Op::Request(req) => {
                    if ctx.stopping() {
                        return IterEnd::Cut;
                    }
                    since_wait = 0;
                    let start = match due.take() {
                        Some(due) => {
                            let late = Instant::now().saturating_duration_since(due);
                            ctx.recorder.lateness(ctx.index, late.as_micros() as u64);
                            due
                        }
                        None => Instant::now(),
                    };
                    let failed = self.request(req, start).await;
                    // Abandoned at the end of the run: the iteration is cut, and no after-error
                    // policy applies (`stop_run` must not cut other scenarios or the teardown).
                    if ctx.hard.is_cancelled() {
                        return IterEnd::Cut;
                    }
                    if let Some(v) = ctx.shared.last_ok {
                        self.vars.set(v, if failed { "false" } else { "true" });
                    }
                    if failed && ctx.on_error != StopKind::Continue {
                        return self.stop(ctx.on_error);
                    }
                    pc += 1;
                }
                Op::Think(t) => {
                    let d = match *t {
                        crate::plan::Think::Throughput { interval, shared, slot } => {
                            let now = Instant::now();
                            let users = if shared { ctx.active.load(Ordering::Relaxed).max(1) as u32 } else { 1 };
                            let last = &mut self.paces[slot as usize];
                            // Saturating: a plan may ask for one sample in a thousand years.
                            let gap = interval.checked_mul(users).unwrap_or(crate::plan::MAX_DURATION);
                            let next =
                                last.map_or(now, |l| l.checked_add(gap).unwrap_or(now + crate::plan::MAX_DURATION));
                            *last = Some(next.max(now));
                            next.saturating_duration_since(now)
                        }
                        _ => t.draw(&mut self.vars.rng),
                    };
                    // An open-model arrival's first request is due after any think time before it.
                    due = due.map(|t| t.checked_add(d).unwrap_or(t));
                    if !d.is_zero() {
                        since_wait = 0;
                        tokio::select! {
                            _ = tokio::time::sleep(d) => {}
                            _ = ctx.stop.cancelled() => return IterEnd::Cut,
                        }
                    }
                    pc += 1;
                }
                Op::Choose { cumulative, targets } => {
                    pc = targets[pick(cumulative, self.vars.rng.random::<f64>())];
                }
                Op::Jump(to) => pc = *to,
                Op::Feed(n) => {
                    if let Some(end) = self.feed(*n) {
                        return end;
                    }
                    pc += 1;
                }
                Op::Set(assigns) => {
                    for a in assigns.iter() {
                        let v = a.value.1.render_string(&mut self.vars);
                        self.vars.set(a.var, &v);
                    }
                    pc += 1;
                }
                Op::LoopInit { slot, count, resets } => {
                    for r in resets.iter() {
                        self.once_done[*r as usize] = false;
                    }
                    let limit = match count {
                        None => u64::MAX,
                        // As in JMeter: a negative count loops forever, one that is not a number
                        // at run time runs the loop no times.
                        Some(t) => match t.render_string(&mut self.vars).trim().parse::<i64>() {
                            Ok(n) if n < 0 => u64::MAX,
                            Ok(n) => n as u64,
                            Err(_) => 0,
                        },
                    };
                    self.loop_counts[*slot as usize] = (0, limit);
                    pc += 1;
                }
                Op::LoopTest { slot, condition, exit } => {
                    let (done, limit) = self.loop_counts[*slot as usize];
                    let go = done < limit
                        && condition.as_ref().is_none_or(|c| c.eval(&mut |t| t.render_string(&mut self.vars)));
                    if go {
                        self.loop_counts[*slot as usize].0 += 1;
                        pc += 1;
                    } else {
                        pc = *exit;
                    }
                }
                Op::If { condition, otherwise } => {
                    pc = if condition.eval(&mut |t| t.render_string(&mut self.vars)) { pc + 1 } else { *otherwise };
                }
                Op::Once { slot, skip, .. } => {
                    let done = &mut self.once_done[*slot as usize];
                    if *done {
                        pc = *skip;
                    } else {
                        *done = true;
                        pc += 1;
                    }
                }
                Op::GroupStart { slot, parent, wall_clock } => {
                    self.groups[*slot as usize] = GroupAcc {
                        open: true,
                        parent: *parent,
                        wall_clock: *wall_clock,
                        start_us: ctx.micros(Instant::now()),
                        ..Default::default()
                    };
                    pc += 1;
                }
                Op::GroupEnd { slot, label } => {
                    let g = std::mem::take(&mut self.groups[*slot as usize]);
                    if g.open {
                        let sample = Sample {
                            label: *label,
                            start_us: g.start_us,
                            end_us: if g.wall_clock { ctx.micros(Instant::now()) } else { g.start_us + g.elapsed_us },
                            ttfb_us: g.ttfb_us,
                            connect_us: g.connect_us,
                            bytes_sent: g.bytes_sent,
                            bytes_received: g.bytes_received,
                            new_connection: false,
                            error: g.error,
                            in_total: g.parent,
                        };
                        if !self.inside_parent_group() {
                            ctx.recorder.record(&sample);
                            self.log_row(&sample, g.status, String::new());
                        }
                    }
                    pc += 1;
                }
                Op::UserParams(p) => {
                    if !p.rows.is_empty() {
                        let row = &p.rows[((self.vars.thread_num.max(1) - 1) as usize) % p.rows.len()];
                        for (var, t) in p.vars.iter().zip(row) {
                            let v = t.render_string(&mut self.vars);
                            self.vars.set(*var, &v);
                        }
                    }
                    pc += 1;
                }
                Op::Counter(c) => {
                    let n = if c.per_user {
                        let slot = &mut self.counters[c.slot as usize];
                        *slot += 1;
                        *slot - 1
                    } else {
                        ctx.shared.counters[c.slot as usize].fetch_add(1, Ordering::Relaxed)
                    };
                    let value = counter_value(c, n);
                    self.vars.set(c.var, &value.to_string());
                    pc += 1;
                }
                Op::Throughput { slot, share, per_user, skip } => {
                    let decide = |(passes, done): &mut (u64, u64)| {
                        // JMeter's ThroughputController.canExecute, then the pass is counted.
                        let run = match *share {
                            ThroughputShare::Percent(p) => (100.0 * *done as f64 + 50.0) / (*passes as f64 + 1.0) < p,
                            ThroughputShare::Total(n) => *done < n,
                        };
                        *passes += 1;
                        if run {
                            *done += 1;
                        }
                        run
                    };
                    let run = if *per_user {
                        decide(&mut self.throughput[*slot as usize])
                    } else {
                        decide(&mut ctx.shared.throughput[*slot as usize].lock().unwrap_or_else(|e| e.into_inner()))
                    };
                    pc = if run { pc + 1 } else { *skip };
                }
                Op::Stop(kind) => return self.stop(*kind),
                Op::Pick { pick, exit } => {
                    let pass = self.loop_counts[pick.slot as usize].0 as usize;
                    let value = pass.checked_sub(1).and_then(|i| pick.from.get(i)).map(|v| self.vars.get(*v));
                    match value {
                        Some(v) if !v.is_empty() => {
                            let v = v.to_string();
                            self.vars.set(pick.into, &v);
                            pc += 1;
                        }
                        _ => pc = *exit,
                    }
                }
                Op::Switch { value, names, targets, end } => {
                    let v = value.render_string(&mut self.vars);
                    pc = crate::plan::flow::Switch::pick(names, &v).map_or(*end, |i| targets[i]);
                }
                Op::Write { writer, values } => {
                    let fields: Vec<String> = values.iter().map(|t| t.render_string(&mut self.vars)).collect();
                    let line = csv_line(fields.iter().map(String::as_str));
                    let w = &ctx.shared.writers[*writer];
                    let mut w = w.lock().unwrap_or_else(|e| e.into_inner());
                    // A failed write-back must not stop the load; it is rare and visible in the file.
                    let _ = w.write_all(line.as_bytes()).and_then(|_| w.flush());
                    pc += 1;
                }
            }
        }
        ctx.recorder.iteration_done(ctx.index);
        IterEnd::Completed
    }

    /// Ends the iteration as a stop step or a failed sample says.
    fn stop(&self, kind: StopKind) -> IterEnd {
        match kind {
            StopKind::Continue | StopKind::NextIteration => {
                self.ctx.recorder.iteration_done(self.ctx.index);
                IterEnd::Completed
            }
            StopKind::User => IterEnd::UserDone,
            StopKind::Run => {
                self.ctx.shared.stop_run.cancel();
                IterEnd::Cut
            }
        }
    }

    /// Reads the next row of data file `n` into the user's variables; returns how the
    /// iteration ends when the file ran out and must not recycle.
    fn feed(&mut self, n: usize) -> Option<IterEnd> {
        let f = &self.ctx.shared.feeders[n];
        let rows = &f.spec.rows;
        let i = match f.spec.share {
            Share::All => f.all.fetch_add(1, Ordering::Relaxed),
            Share::Scenario => f.per_scenario[self.ctx.index].fetch_add(1, Ordering::Relaxed),
            Share::User => {
                let c = &mut self.cursors[n];
                *c += 1;
                *c - 1
            }
        };
        let len = rows.len() as u64;
        let i = if i < len {
            i
        } else {
            match f.spec.on_eof {
                OnEof::Recycle => i % len,
                OnEof::StopUser => return Some(IterEnd::UserDone),
                OnEof::StopRun => {
                    self.ctx.shared.stop_run.cancel();
                    return Some(IterEnd::Cut);
                }
                OnEof::MarkEof => {
                    for var in &f.spec.columns {
                        self.vars.set(*var, "<EOF>");
                    }
                    return None;
                }
            }
        };
        for (var, value) in f.spec.columns.iter().zip(&rows[i as usize]) {
            self.vars.set(*var, value);
        }
        None
    }

    /// The `Cookie` header for a request, and its URL (needed to store what the response sets);
    /// `None` when the jar is off or empty, which costs nothing.
    fn cookie_header(&self, target: &Target, path: &str) -> Option<(url::Url, String)> {
        let jar = self.jar.as_ref()?;
        jar.iter_any().next()?;
        let url = url_of(target, path)?;
        let mut header = String::new();
        for (k, v) in jar.get_request_values(&url) {
            if !header.is_empty() {
                header.push_str("; ");
            }
            header.push_str(k);
            header.push('=');
            header.push_str(v);
        }
        Some((url, header))
    }

    /// Sends one request of the flow, following redirects if it says so, then applies its
    /// extractors and checks and records its samples. Nothing here allocates for a fixed
    /// request without cookies, redirects, extractors or checks: that is the benchmark's path.
    /// Returns whether the sample failed.
    async fn request(&mut self, req: &PreparedRequest, start: Instant) -> bool {
        let ctx = self.ctx.clone();
        let spec = &req.spec;
        self.path.clear();
        // A host read from a data file or a response: the target comes from the rendered origin.
        let first: std::borrow::Cow<'_, Target> = match &spec.origin {
            None => std::borrow::Cow::Borrowed(&req.target),
            Some(o) => {
                let origin = o.render_string(&mut self.vars);
                match crate::plan::resolve_url(&origin, None) {
                    Ok((t, base)) if !t.host.is_empty() => {
                        if base != "/" {
                            self.path.push_str(base.trim_end_matches('/'));
                        }
                        std::borrow::Cow::Owned(t)
                    }
                    _ => return self.bad_url(spec.label, start, &req.target, &origin),
                }
            }
        };
        req.render_path(&mut self.vars, &mut self.path);
        // A path that turns out to be a whole URL (`${next}` holding `http://h/x`) is taken as
        // the URL, as JMeter does.
        let full_url = super::request::full_url_in_path(&self.path);
        let resolved = full_url.map(|full| crate::plan::resolve_url(full, None));
        let first = match resolved {
            Some(Ok((t, path))) if !t.host.is_empty() => {
                self.path = path;
                std::borrow::Cow::Owned(t)
            }
            // Not a usable URL; or no server name and the path is not a URL either (the
            // loader allows that only for a path made of variables).
            Some(_) => return self.bad_url(spec.label, start, &first, &self.path.clone()),
            None if first.host.is_empty() => return self.bad_url(spec.label, start, &first, &self.path.clone()),
            None => first,
        };
        let (mut url, cookie) = match self.cookie_header(&first, &self.path) {
            Some((u, c)) => (Some(u), Some(c)),
            None => (None, None),
        };
        let bytes: &[u8] = match (&req.fixed, &cookie) {
            // The benchmark's path: the bytes rendered once, sent as they are.
            (Some(f), None) => &f.bytes,
            _ => {
                self.out.clear();
                req.render(&mut self.vars, &first, &self.path, cookie.as_deref(), &mut self.body, &mut self.out);
                &self.out
            }
        };
        let mut ex = self.client.send(&wire(req, &first, req.is_head, &self.abandon), bytes, start).await;
        if ex.abandoned_before_send {
            // The run ended while connecting: the server saw no request, so there is no sample.
            return true;
        }
        // Where the chain is now; set only once a redirect is followed.
        let mut hop: Option<(String, Target, String)> = None;
        let mut hops = 0usize;
        let mut hop_start = start;
        let mut total = ex;
        let mut error = ex.error;
        loop {
            let (method, target, path) = match &hop {
                Some((m, t, p)) => (m.as_str(), t, p.as_str()),
                None => (spec.method.as_str(), &*first, self.path.as_str()),
            };
            let resp = Response::new(self.client.head(), self.client.body(), ex.status);
            if ex.set_cookie && self.jar.is_some() {
                if url.is_none() {
                    url = url_of(target, path);
                }
                store_cookies(self.jar.as_mut(), url.as_ref(), &resp);
            }
            let location =
                if spec.follow_redirects && ex.error.is_none() && matches!(ex.status, 301 | 302 | 303 | 307 | 308) {
                    resp.header("location")
                } else {
                    None
                };
            let Some(location) = location else { break };
            if hops + 1 >= spec.hop_labels.len() {
                error = error.or(spec.too_many_redirects.map(|c| ErrorKind::Check(c.0)));
                break;
            }
            // The next hop: the Location resolved against the current URL.
            let Some(next) = url_of(target, path).and_then(|b| b.join(location).ok()) else { break };
            let next_target = match (next.scheme(), next.host_str()) {
                ("http" | "https", Some(h)) => Target {
                    tls: next.scheme() == "https",
                    host: h.trim_start_matches('[').trim_end_matches(']').to_string(),
                    port: next.port_or_known_default().unwrap_or(80),
                },
                _ => break,
            };
            let to_get = matches!(ex.status, 301..=303) && method != "HEAD";
            let with_body = !to_get && !req.body_sent(&self.body).is_empty();
            let next_method = if to_get { "GET".to_string() } else { method.to_string() };
            let mut next_path = next.path().to_string();
            if let Some(q) = next.query() {
                next_path.push('?');
                next_path.push_str(q);
            }
            // A stop ends the chain here: this exchange is its last.
            if ctx.stopping() {
                break;
            }
            // Record this hop, then send the next.
            let end = ex.end.unwrap_or_else(Instant::now);
            self.record(spec.hop_labels[hops], hop_start, end, &ex, ex.error, true, (target, path));
            hops += 1;
            let (next_url, cookie) = match self.cookie_header(&next_target, &next_path) {
                Some((u, c)) => (Some(u), Some(c)),
                None => (None, None),
            };
            url = next_url;
            let (method, target, path) = &*hop.insert((next_method, next_target, next_path));
            self.out.clear();
            let h = Hop { method, target, path, with_body };
            req.render_hop(&mut self.vars, &h, cookie.as_deref(), req.body_sent(&self.body), &mut self.out);
            hop_start = Instant::now();
            ex = self.client.send(&wire(req, target, method == "HEAD", &self.abandon), &self.out, hop_start).await;
            error = ex.error;
            total.bytes_sent += ex.bytes_sent;
            total.bytes_received += ex.bytes_received;
            total.connect += ex.connect;
            total.new_connection |= ex.new_connection;
        }
        let end = ex.end.unwrap_or_else(Instant::now);
        // A `status` check decides on its own whether the status is a success: it can expect a
        // 401 (JMeter's Response Assertion with "Ignore Status").
        if matches!(error, Some(ErrorKind::Status(s)) if crate::record::error_kind::valid_status(s))
            && (spec.ignore_status || spec.checks.iter().any(|c| matches!(c.test, CheckTest::Status(_))))
        {
            error = None;
        }
        // The final response: extractors, then checks.
        if !spec.extract.is_empty() || !spec.checks.is_empty() {
            let (target, path) = match &hop {
                Some((_, t, p)) => (t, p.as_str()),
                None => (&*first, self.path.as_str()),
            };
            let final_url = format!("{}://{}{}", target.scheme(), target.authority(), path);
            let resp = Response::new(self.client.head(), self.client.body(), ex.status);
            let vars = &mut self.vars;
            let mut apply = || {
                super::response::apply(
                    spec,
                    &resp,
                    &final_url,
                    end.saturating_duration_since(start),
                    ex.bytes_received,
                    vars,
                )
            };
            // Decoding a large compressed body takes a while: off this worker, so the other
            // users it runs are not held up behind it.
            let failed = if resp.is_compressed() && resp.body_len() > OFFLOAD_DECODE_ABOVE {
                off_the_worker(apply)
            } else {
                apply()
            };
            error = error.or(failed);
        }
        {
            let (last_target, last_path) = match &hop {
                Some((_, t, p)) => (t, p.as_str()),
                None => (&*first, self.path.as_str()),
            };
            if hops > 0 {
                if !ex.abandoned_before_send {
                    self.record(spec.hop_labels[hops], hop_start, end, &ex, error, true, (last_target, last_path));
                }
                total.end = Some(end);
                self.record(spec.label, start, end, &total, error, false, (&*first, self.path.as_str()));
            } else {
                self.record(spec.label, start, end, &ex, error, true, (last_target, last_path));
            }
        }
        if error == Some(ErrorKind::GeneratorFds) {
            self.fd_backoff = (self.fd_backoff * 2).clamp(FD_BACKOFF_MIN, FD_BACKOFF_MAX);
            tokio::select! {
                _ = tokio::time::sleep(self.fd_backoff) => {}
                _ = ctx.stop.cancelled() => {}
            }
        } else {
            self.fd_backoff = Duration::ZERO;
        }
        if self.groups.iter().any(|g| g.open) {
            let (start_us, end_us) = (ctx.micros(start), ctx.micros(end));
            let ttfb = total.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64);
            for g in self.groups.iter_mut().filter(|g| g.open) {
                g.elapsed_us += end_us.saturating_sub(start_us);
                g.ttfb_us += ttfb;
                g.connect_us += total.connect.as_micros() as u64;
                g.bytes_sent += total.bytes_sent;
                g.bytes_received += total.bytes_received;
                if g.error.is_none() || error.is_some() {
                    g.status = total.status;
                }
                g.error = g.error.or(error);
            }
        }
        error.is_some()
    }

    #[allow(clippy::too_many_arguments)]
    fn record(
        &self,
        label: LabelId,
        start: Instant,
        end: Instant,
        ex: &super::client::Exchange,
        error: Option<ErrorKind>,
        in_total: bool,
        at: (&Target, &str),
    ) {
        let ctx = &self.ctx;
        let sample = Sample {
            label,
            start_us: ctx.micros(start),
            end_us: ctx.micros(end),
            ttfb_us: ex.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64),
            connect_us: ex.connect.as_micros() as u64,
            bytes_sent: ex.bytes_sent,
            bytes_received: ex.bytes_received,
            new_connection: ex.new_connection,
            error,
            in_total,
        };
        if self.inside_parent_group() {
            return;
        }
        ctx.recorder.record(&sample);
        // The URL only for a per-sample log: formatting it costs allocations on every request.
        if ctx.shared.sample_log.is_some() {
            let (target, path) = at;
            self.log_row(&sample, ex.status, format!("{}://{}{}", target.scheme(), target.authority(), path));
        }
    }

    /// Records a request that could not be sent because its URL is not usable; it failed.
    fn bad_url(&self, label: LabelId, start: Instant, target: &Target, at: &str) -> bool {
        let now = Instant::now();
        let mut ex = super::client::Exchange::default();
        ex.end = Some(now);
        self.record(label, start, now, &ex, Some(ErrorKind::BadUrl), true, (target, at));
        true
    }

    fn inside_parent_group(&self) -> bool {
        self.groups.iter().any(|g| g.open && g.parent)
    }

    /// Sends a sample to the per-sample log (the JTL file), when there is one.
    fn log_row(&self, sample: &Sample, status: u16, url: String) {
        let ctx = &self.ctx;
        if let Some(log) = &ctx.shared.sample_log {
            let _ = log.send(SampleRow {
                timestamp_ms: ctx.shared.epoch_unix_ms + sample.start_us / 1000,
                // Whole ms as JMeter writes them, rounded to the nearest (not cut down).
                elapsed_ms: (sample.elapsed_us() + 500) / 1000,
                label: sample.label.0,
                status,
                error: sample.error,
                scenario: ctx.index,
                user: self.vars.thread_num,
                bytes: sample.bytes_received,
                sent_bytes: sample.bytes_sent,
                group_users: ctx.active.load(Ordering::Relaxed),
                all_users: ctx.shared.active_all.load(Ordering::Relaxed),
                url,
                latency_ms: (sample.ttfb_us + 500) / 1000,
                connect_ms: (sample.connect_us + 500) / 1000,
            });
        }
    }
}

fn url_of(target: &Target, path: &str) -> Option<url::Url> {
    url::Url::parse(&format!("{}://{}{}", target.scheme(), target.authority(), path)).ok()
}

fn wire<'a>(req: &PreparedRequest, target: &'a Target, is_head: bool, abandon: &'a CancellationToken) -> Wire<'a> {
    Wire {
        abandon,
        target,
        keep_alive: req.keep_alive,
        is_head,
        connect_timeout: req.connect_timeout,
        response_timeout: req.response_timeout,
        max_response_size: req.max_response_size,
        keep_body: req.keep_body,
    }
}

fn store_cookies(jar: Option<&mut cookie_store::CookieStore>, url: Option<&url::Url>, resp: &Response<'_>) {
    if let (Some(jar), Some(url)) = (jar, url) {
        for v in resp.headers_named("set-cookie") {
            // A cookie the jar refuses (wrong domain, malformed) is dropped, as a browser does.
            let _ = jar.parse(v, url);
        }
    }
}

/// The `n`th value (from 0) of a JMeter Counter: start, start + increment, ... wrapping back to
/// start after `end`.
fn counter_value(c: &crate::plan::flow::Counter, n: u64) -> i64 {
    match c.end {
        Some(end) if c.increment != 0 && (end - c.start) / c.increment >= 0 => {
            let span = (end - c.start) / c.increment + 1;
            c.start + (n as i64 % span) * c.increment
        }
        _ => c.start.saturating_add((n as i64).saturating_mul(c.increment)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_wrap_after_their_end() {
        let c = crate::plan::flow::Counter {
            name: "n".into(),
            var: crate::plan::VarId(0),
            start: 1,
            increment: 2,
            end: Some(6),
            per_user: true,
            slot: 0,
        };
        let v: Vec<i64> = (0..5).map(|n| counter_value(&c, n)).collect();
        assert_eq!(v, [1, 3, 5, 1, 3]);
        let open = crate::plan::flow::Counter { end: None, ..c };
        assert_eq!(counter_value(&open, 4), 9);
    }
}
