//! What each user does in one iteration: requests, nested sequences, weighted mixes of
//! requests or sub-flows ("the ratio seen in production"), think times, and the flow control
//! of JMeter's controllers (loop, while, if, once per user, transaction groups), plus the
//! steps that move data: reading the next row of a data file, setting and writing variables.

use super::condition::Condition;
pub(crate) use super::sampler::after::StopKind;
use super::sampler::http::RequestSpec;
use super::sampler::Sampler;
use super::template::{Template, VarId};
use super::LabelId;
use serde::{Serialize, Serializer};
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Step {
    /// Steps run one after the other.
    Sequence(Vec<Step>),
    /// One branch is chosen at random per pass, with probability weight / total weight.
    Mix(Vec<Branch>),
    Think(Think),
    /// Reads the next row of a data file into its variables (index into `Plan::data`).
    Feed(usize),
    /// Sets variables from templates (JMeter's User Parameters).
    Set(Vec<Assign>),
    Loop(Box<Loop>),
    If(Box<If>),
    /// Runs its steps in a user's first pass only (log in once, then loop).
    Once(Box<Once>),
    /// A named group whose sample sums its requests (JMeter's Transaction Controller).
    Group(Box<Group>),
    /// Appends variables as a CSV line to a file (index into `Plan::writers`).
    Write(Box<Write>),
    /// Sets variables to the values of the user's row: row (user number - 1) mod rows (JMeter's
    /// User Parameters).
    UserParams(Box<UserParams>),
    /// Advances a counter and stores it (JMeter's Counter config element).
    Counter(Box<Counter>),
    /// Draws the next number of a seeded random sequence and stores it (JMeter's Random Variable
    /// with a seed).
    SeededRandom(Box<SeededRandom>),
    /// Runs its steps on a share of passes (JMeter's Throughput Controller).
    Throughput(Box<Throughput>),
    /// Ends the iteration, the user or the run (JMeter's Flow Control Action).
    Stop(StopKind),
    /// Runs one of its branches, chosen by a value (JMeter's Switch Controller).
    Switch(Box<Switch>),
    /// Sets `into` to the `from` variable the enclosing loop's pass picks (JMeter's ForEach
    /// Controller: `into` = `prefix_N` on pass N).
    Pick(Box<Pick>),
    /// Runs each of its branches once, in a new random order each pass (JMeter's Random Order
    /// Controller).
    Shuffle(Box<Shuffle>),
    /// Runs its steps again and again until a time has passed since it was entered (JMeter's
    /// Runtime Controller).
    Runtime(Box<Runtime>),
    /// Runs its steps holding a lock of its name shared by every user of the run (JMeter's
    /// Critical Section Controller).
    Critical(Box<Critical>),
    /// Runs its branches at the same time for the same user (BlazeMeter's Parallel
    /// Controller and Parallel HTTP Requests).
    Parallel(Box<Parallel>),
    /// The Raw Data Source pre-processor: the next chunk of a file into a variable, for the
    /// socket sample that follows (not a sample: its own step).
    RawSource(Box<super::sampler::socket::RawSource>),
    /// Puts a value in, or takes one out of, a named queue shared by every user of the run
    /// (jp@gc Inter-Thread Communication).
    Fifo(Box<Fifo>),
    /// A script pre-processor or timer (a script sampler is a [`Sampler::Script`]).
    Script(Box<super::sampler::script::ScriptStep>),
    /// JMeter's HTML Link Parser before an HTTP sampler: a link or form of the previous page
    /// in place of the sampler's URL.
    Anchor(Box<super::anchor::Anchor>),
    /// A sample of any kind: HTTP, synthetic, WebSocket, socket, script. Serialised without a
    /// tag of its own (`request: ...`, `sample: ...`), as each kind was a step before.
    #[serde(untagged)]
    Sample(Sampler),
}

/// BlazeMeter's ParallelSampler: each branch runs on a thread of its own (here a future of the
/// user's task) with its own connections, the user's variables, cookies and caches, and what
/// the branches set stays with the user afterwards, as the plugin shares them.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Parallel {
    pub branches: Vec<Vec<Step>>,
    /// "Generate parent sample": one sample under this label for all the branches' requests,
    /// which are then not recorded apart; `None`: each is recorded as its own.
    pub parent: Option<LabelId>,
    /// Most branches running at once (`LIMIT_MAX_THREAD_NUMBER` and `MAX_THREAD_NUMBER`);
    /// `None`: all of them.
    pub max: Option<u32>,
    /// What a failed parent sample does beside the thread group's policy (a Result Status
    /// Action Handler in its scope).
    pub on_error: StopKind,
    /// The group slot the parent sample adds up in.
    #[serde(skip)]
    pub slot: u32,
}

/// jp@gc AutoStop Listener: the test stops when, second after second for at least `secs`
/// seconds, each second's average response time or latency (ms), or share of failed samples,
/// among the samples in its scope exceeds its limit (the plugin compares each second's average
/// as the next second starts, and a second without samples changes nothing).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct AutoStop {
    pub name: String,
    pub limits: Vec<AutoStopLimit>,
    /// The labels of the samples it sees; none: every sample of the run.
    #[serde(skip)]
    pub labels: Option<Vec<LabelId>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub(crate) struct AutoStopLimit {
    pub on: AutoStopOn,
    /// Milliseconds, or a share of samples (0.5 for 50%).
    pub above: f64,
    pub secs: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum AutoStopOn {
    ResponseTime,
    Latency,
    ErrorRate,
}

/// jp@gc Inter-Thread Communication: a named FIFO queue of text shared by every user of the run
/// (the plugin's `FifoMap`), made empty when first named, holding at most `capacity` values
/// (the property `kg.apc.jmeter.functions.FifoCapacity`, none: no limit).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Fifo {
    pub queue: Template,
    pub action: FifoAction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u32>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum FifoAction {
    /// Appends the value, waiting for room in a full queue (the PostProcessor).
    Put(Template),
    /// Takes the oldest value into the variable, waiting up to `timeout_s` seconds for one (none:
    /// for ever). None came: the plugin stores null, so the variable reads as its reference
    /// `${name}` (the PreProcessor).
    Pop {
        #[serde(skip)]
        var: VarId,
        name: String,
        timeout_s: Option<u64>,
    },
}

/// JMeter's CriticalSectionController: the lock (its name rendered when the section is
/// entered; empty: no lock) is taken before the steps and released when they end or the user
/// leaves them in any other way (a stop, `continue`/`break`, the iteration's end).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Critical {
    pub lock: Template,
    pub steps: Vec<Step>,
    /// Tells this section's hold apart from another's.
    #[serde(skip)]
    pub slot: u32,
}

/// JMeter's RunTime: the time (whole seconds; not a number or not above 0: the steps are
/// skipped) is checked when it is entered, before each sample of its steps, and at the end of
/// each pass.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Runtime {
    pub seconds: Template,
    pub steps: Vec<Step>,
    /// The user's counter slot holding the deadline (microseconds since the run's start).
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Shuffle {
    pub branches: Vec<Vec<Step>>,
    /// The user's counter slots: the next position, then the order (one slot per branch).
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Pick {
    /// The loop whose pass number picks.
    #[serde(skip)]
    pub slot: u32,
    /// Passes start after this index (ForEach's start index); `from[0]` is `prefix_{offset+1}`.
    pub offset: u64,
    /// Pass k takes `from[k-1]`; the loop ends at the first empty one or past the last.
    #[serde(skip)]
    pub from: Vec<VarId>,
    #[serde(skip)]
    pub into: VarId,
    pub name: String,
    /// ForEach's end index when it holds variables set while the test runs: read as each pass
    /// starts, the loop ends once `offset + pass - 1` reaches it (not a number: 0), as JMeter's
    /// `isDone` reads it. A constant end index is the loop's count instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<Template>,
    /// ForEach's input prefix or start index holds variables set while the test runs: the
    /// names are made per pass instead of `from` (empty), as JMeter makes them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Box<PickAt>>,
}

/// A ForEach Controller whose prefix or start index is known only while the test runs. The
/// start index is read as the loop is entered and kept in `start_at` (JMeter reads it when
/// the loop resets, not on each pass: `resetLoopCount`); the prefix is read on each pass,
/// as JMeter's `isDone` does. Pass k reads `prefix` `sep` `start + k`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct PickAt {
    pub prefix: Template,
    pub sep: String,
    pub start: Template,
    /// The start read on entry, per user (a variable no plan names).
    #[serde(skip)]
    pub start_at: VarId,
    /// JMeter's `__jm__<name>__idx`: `start + k - 1` on pass k, the start again once left.
    #[serde(skip)]
    pub index: VarId,
}

/// JMeter's rule: a number picks that branch (out of range or empty: the first); a name picks
/// the branch of that name, else the one named `default` (any case), else none.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Switch {
    pub value: Template,
    pub branches: Vec<(String, Vec<Step>)>,
    /// Instead of a value, each pass takes the next branch in turn (JMeter's Interleave
    /// Controller).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotate: Option<Rotate>,
}

/// Pass k of a user takes branch (start + k) mod n, its count kept in a per-user counter slot;
/// `start` is 0, or with `by_user` the user's number (from 0) mod n ("interleave across threads").
/// With `weights` (shares summing to 1), each pass takes instead the branch whose share of the
/// user's passes is furthest below its weight (BlazeMeter's Weighted Switch Controller), its
/// passes per branch kept in the slots after `slot`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Rotate {
    #[serde(skip)]
    pub slot: u32,
    pub by_user: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub weights: Vec<f64>,
}

impl Rotate {
    /// The Weighted Switch Controller's choice (`getIndex`): the first branch whose weight
    /// exceeds its share of `total` passes the most; none when every weight is 0.
    pub(crate) fn weighted_pick(weights: &[f64], counts: &[u64], total: u64) -> Option<usize> {
        // Java's Double.MIN_VALUE: the smallest positive double.
        let mut max = f64::from_bits(1);
        let mut pick = None;
        for (n, w) in weights.iter().enumerate() {
            let share = if total > 0 { counts.get(n).copied().unwrap_or(0) as f64 / total as f64 } else { 0.0 };
            if w - share > max {
                max = w - share;
                pick = Some(n);
            }
        }
        if pick.is_none() {
            for (n, w) in weights.iter().enumerate() {
                if *w > max {
                    max = *w;
                    pick = Some(n);
                }
            }
        }
        pick
    }
}

impl Switch {
    /// The branch a rendered value picks.
    pub(crate) fn pick(names: &[String], value: &str) -> Option<usize> {
        if names.is_empty() {
            return None;
        }
        let v = value.trim();
        if v.is_empty() {
            return Some(0);
        }
        if let Ok(n) = v.parse::<i64>() {
            return Some(if n >= 0 && (n as usize) < names.len() { n as usize } else { 0 });
        }
        names.iter().position(|n| n == value).or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case("default")))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UserParams {
    pub names: Vec<String>,
    pub vars: Vec<VarId>,
    pub rows: Vec<Vec<Template>>,
}

/// For the run directory: the values of secret-named columns masked.
impl Serialize for UserParams {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let secret: Vec<bool> = self.names.iter().map(|n| crate::redact::is_secret_name(n)).collect();
        let rows: Vec<Vec<&str>> = self
            .rows
            .iter()
            .map(|r| {
                r.iter()
                    .enumerate()
                    .map(|(i, t)| if secret.get(i) == Some(&true) { crate::redact::MASK } else { t.source() })
                    .collect()
            })
            .collect();
        let mut st = s.serialize_struct("UserParams", 2)?;
        st.serialize_field("names", &self.names)?;
        st.serialize_field("rows", &rows)?;
        st.end()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Counter {
    pub name: String,
    #[serde(skip)]
    pub var: VarId,
    pub start: i64,
    pub increment: i64,
    /// After this value the counter starts again (none: it does not wrap).
    pub end: Option<i64>,
    /// Each user counts on its own (else all users share one counter).
    pub per_user: bool,
    #[serde(skip)]
    pub slot: u32,
    /// "Reset counter on each Thread Group Iteration" (per user only): the slot holding the
    /// user's iteration (plus one) the counter last counted in; a new one starts it again.
    #[serde(skip)]
    pub reset: Option<u32>,
    /// A `java.text.DecimalFormat` pattern for the value (`00` makes 1 read `01`).
    pub format: Option<String>,
}

/// A number from `min` to `min + range - 1` drawn from `java.util.Random(seed)`, so that a run
/// gives the same sequence as every other run, and as JMeter (RandomVariableConfig).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct SeededRandom {
    pub name: String,
    #[serde(skip)]
    pub var: VarId,
    pub min: i64,
    pub range: i32,
    pub seed: i64,
    /// Each user draws from its own sequence (else all users share one).
    pub per_user: bool,
    /// The generator's state: a counter slot.
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Throughput {
    pub share: ThroughputShare,
    /// Each user keeps its own counts (else all users share them).
    pub per_user: bool,
    pub steps: Vec<Step>,
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ThroughputShare {
    /// This percentage of passes, spread evenly (JMeter's "percent executions").
    Percent(f64),
    /// This many passes in all, then never again ("total executions").
    Total(u64),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Branch {
    pub weight: f64,
    pub steps: Vec<Step>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Think {
    Constant(#[serde(with = "super::serde_duration")] Duration),
    /// A Flow Control Action's pause: unlike a timer's wait, one that would outlast the user's
    /// scheduled end waits until that end (JMeter's TestAction, `adjustDelay` to the end time).
    Pause(#[serde(with = "super::serde_duration")] Duration),
    Uniform {
        #[serde(with = "super::serde_duration")]
        min: Duration,
        #[serde(with = "super::serde_duration")]
        max: Duration,
    },
    /// |offset + deviation × a standard normal draw| (JMeter's Gaussian Random Timer).
    Gaussian {
        #[serde(with = "super::serde_duration")]
        offset: Duration,
        #[serde(with = "super::serde_duration")]
        deviation: Duration,
    },
    /// offset + a Poisson draw of mean `lambda` milliseconds (JMeter's Poisson Random Timer).
    Poisson {
        #[serde(with = "super::serde_duration")]
        offset: Duration,
        lambda_ms: f64,
    },
    /// Waits until `interval` after this timer's previous pass, so the samplers after it keep a
    /// rate (JMeter's Constant Throughput Timer); `shared`: the interval is multiplied by the
    /// scenario's active users, so they keep the rate together.
    Throughput {
        #[serde(with = "super::serde_duration")]
        interval: Duration,
        shared: bool,
        #[serde(skip)]
        slot: u32,
    },
    /// Waits for this sample's turn in a rate schedule shared by every user of the run (JMeter's
    /// Throughput Shaping Timer): the plan's `shapers[slot]`.
    Shaped {
        #[serde(skip)]
        slot: u32,
    },
    /// Waits for the next arrival of a schedule shared by the users of a thread group (JMeter's
    /// Precise Throughput Timer): the plan's `arrivals[slot]`.
    Precise {
        #[serde(skip)]
        slot: u32,
    },
    /// A timer whose values are known only while the test runs: the plan's `timers[slot]`,
    /// evaluated before each sampler in its scope.
    Timed {
        #[serde(skip)]
        slot: u32,
    },
    /// Waits at a barrier until a batch of users has come (JMeter's Synchronizing Timer): the
    /// plan's `syncs[slot]`, one barrier shared by every user in the element's scope.
    Sync {
        #[serde(skip)]
        slot: u32,
    },
}

/// A Synchronizing Timer: how many users make a batch and how long one waits for it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyncSpec {
    /// The element's name, for messages.
    pub name: String,
    /// Users per batch; 0: the number of users of the thread group (JMeter's `groupSize` 0).
    pub group_size: u64,
    /// A user that waited this many ms goes on, and so do the others waiting with it; 0:
    /// until the batch is full or the user's end; below 0 JMeter's timer throws, which ends
    /// the thread.
    pub timeout_ms: i64,
}

/// The kinds of random timer: how a delay and a range make a think time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum TimerKind {
    Constant,
    Uniform,
    Gaussian,
    Poisson,
}

/// A JMeter timer whose delay or range has a run-time expression (`${delay}`): each sample
/// renders them; as JMeter's `getPropertyAsLong`/`getPropertyAsDouble`, a value that is not a
/// number is 0 (the delay must be a whole number of ms).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimerExpr {
    pub kind: TimerKind,
    pub delay: Template,
    pub range: Template,
}

impl TimerKind {
    /// The think time of a delay (ms, whole) and a range (ms), as the timer of this kind.
    pub(crate) fn think(self, delay_ms: i64, range_ms: f64) -> Think {
        let ms = |v: f64| Duration::from_secs_f64((v.max(0.0) / 1000.0).min(super::MAX_DURATION.as_secs_f64()));
        let delay = delay_ms as f64;
        let range = if range_ms.is_finite() { range_ms } else { 0.0 };
        match self {
            TimerKind::Constant => Think::Constant(ms(delay)),
            // |random × range + delay|, drawn within [delay, delay + range] (a negative range
            // or delay as the absolute value of that draw is not kept apart here).
            TimerKind::Uniform => Think::Uniform { min: ms(delay), max: ms(delay + range.max(0.0)) },
            TimerKind::Gaussian => Think::Gaussian { offset: ms(delay), deviation: ms(range) },
            TimerKind::Poisson => Think::Poisson { offset: ms(delay), lambda_ms: range.max(0.0) },
        }
    }

    /// The value of a timer's delay text as JMeter reads it: a whole number, else 0.
    pub(crate) fn delay_of(text: &str) -> i64 {
        text.trim().parse().unwrap_or(0)
    }

    /// The value of a timer's range text as JMeter reads it: a number, else 0.
    pub(crate) fn range_of(text: &str) -> f64 {
        text.trim().parse::<f64>().ok().filter(|r| r.is_finite()).unwrap_or(0.0)
    }
}

impl Think {
    /// Whether a draw can be above zero: a flow of think times that cannot is no wait at all.
    pub(crate) fn can_wait(&self) -> bool {
        match *self {
            Think::Constant(d) | Think::Pause(d) => !d.is_zero(),
            Think::Uniform { max, .. } => !max.is_zero(),
            Think::Gaussian { offset, deviation } => !(offset + deviation).is_zero(),
            Think::Poisson { offset, lambda_ms } => !offset.is_zero() || lambda_ms > 0.0,
            Think::Throughput { interval, .. } => !interval.is_zero(),
            Think::Shaped { .. } | Think::Precise { .. } | Think::Timed { .. } | Think::Sync { .. } => true,
        }
    }

    /// One think time, drawn with `rng`.
    pub(crate) fn draw(&self, rng: &mut impl rand::Rng) -> Duration {
        match *self {
            Think::Constant(d) | Think::Pause(d) => d,
            Think::Uniform { min, max } => {
                let span = (max - min).as_micros() as u64;
                min + Duration::from_micros(if span == 0 { 0 } else { rng.random_range(0..=span) })
            }
            Think::Gaussian { offset, deviation } => {
                // Box–Muller: two uniform draws give a standard normal one.
                let (u1, u2): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let ms = (z * deviation.as_secs_f64() * 1000.0 + offset.as_secs_f64() * 1000.0).abs();
                Duration::from_secs_f64((ms / 1000.0).min(super::MAX_DURATION.as_secs_f64()))
            }
            Think::Poisson { offset, lambda_ms } => {
                let k = if lambda_ms <= 0.0 {
                    0.0
                } else if lambda_ms < 500.0 {
                    // Knuth's method: exact, and cheap for the means a think time has.
                    let limit = (-lambda_ms).exp();
                    let (mut k, mut p) = (0.0, 1.0);
                    loop {
                        p *= rng.random::<f64>();
                        if p <= limit {
                            break k;
                        }
                        k += 1.0;
                    }
                } else {
                    // A large mean: the normal approximation.
                    let (u1, u2): (f64, f64) = (rng.random::<f64>().max(f64::MIN_POSITIVE), rng.random());
                    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                    (lambda_ms + z * lambda_ms.sqrt()).max(0.0).round()
                };
                offset + Duration::from_secs_f64((k / 1000.0).min(super::MAX_DURATION.as_secs_f64()))
            }
            // Depends on the user's previous pass: the engine computes it.
            Think::Throughput { .. }
            | Think::Shaped { .. }
            | Think::Precise { .. }
            | Think::Timed { .. }
            | Think::Sync { .. } => Duration::ZERO,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Assign {
    #[serde(skip)]
    pub var: VarId,
    pub name: String,
    #[serde(serialize_with = "redact_if_secret_name")]
    pub value: (String, Template),
}

fn redact_if_secret_name<S: Serializer>(v: &(String, Template), s: S) -> Result<S::Ok, S::Error> {
    if crate::redact::is_secret_name(&v.0) {
        s.serialize_str(crate::redact::MASK)
    } else {
        v.1.serialize(s)
    }
}

/// Runs `steps` while the count is not reached and the condition holds (either may be absent,
/// not both).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Loop {
    pub count: Option<Template>,
    #[serde(rename = "while", serialize_with = "condition_source")]
    pub condition: Option<Cond>,
    pub steps: Vec<Step>,
    /// The first pass runs without testing the condition (JMeter's While Controller with an
    /// empty condition: first pass always, then until a sample fails).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub enter_first: bool,
    /// A per-user counter slot (index into the user's loop counters), fixed at load time.
    #[serde(skip)]
    pub slot: u32,
    /// JMeter's `__jm__<controller name>__idx`: the variable set to the pass's 0-based index
    /// plus the offset (a ForEach Controller's start index).
    #[serde(skip)]
    pub index: Option<LoopIndex>,
}

/// Where a loop keeps its pass index: JMeter 5's `IteratingController.updateIterationIndex`,
/// `offset + k` on pass k; `offset` before the first pass and once the loop has ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct LoopIndex {
    pub var: VarId,
    pub offset: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct If {
    #[serde(serialize_with = "cond_source")]
    pub condition: Cond,
    pub then: Vec<Step>,
    #[serde(rename = "else")]
    pub otherwise: Vec<Step>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Once {
    pub steps: Vec<Step>,
    /// Runs again on the first pass each time the loop around it starts (JMeter's Once Only
    /// Controller under a looping controller); otherwise once per user.
    pub per_loop: bool,
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Group {
    pub label: LabelId,
    /// Only the group's sample is recorded (JMeter's "generate parent sample").
    pub parent: bool,
    /// The group's time runs from its start to its end, think times included; otherwise it
    /// is the sum of its requests' times.
    pub wall_clock: bool,
    pub steps: Vec<Step>,
    #[serde(skip)]
    pub slot: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Write {
    pub writer: usize,
    pub values: Vec<Template>,
}

/// A condition with its source text (for messages and the resolved plan).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cond {
    pub src: String,
    pub expr: Condition<Template>,
}

fn condition_source<S: Serializer>(c: &Option<Cond>, s: S) -> Result<S::Ok, S::Error> {
    match c {
        Some(c) => s.serialize_str(&c.src),
        None => s.serialize_none(),
    }
}

fn cond_source<S: Serializer>(c: &Cond, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&c.src)
}

/// Whether the steps send a request anywhere (in a branch, loop or group included), or make
/// a sample without one.
pub(crate) fn has_request(steps: &[Step]) -> bool {
    let mut any = false;
    for_each_request(steps, &mut |_| any = true);
    any || has_synthetic(steps)
}

fn has_synthetic(steps: &[Step]) -> bool {
    let mut any = false;
    for_each_step(steps, &mut |step| any |= matches!(step, Step::Sample(_)));
    any
}

/// Visits every request in a flow, depth first, in plan order.
pub(crate) fn for_each_request<'a>(steps: &'a [Step], f: &mut impl FnMut(&'a RequestSpec)) {
    for_each_step(steps, &mut |step| {
        if let Step::Sample(Sampler::Http(r)) = step {
            f(r)
        }
    });
}

/// Visits every step of a flow, depth first, in plan order: a step that holds steps (a loop, a
/// branch, a group...) before the steps it holds.
pub(crate) fn for_each_step<'a>(steps: &'a [Step], f: &mut impl FnMut(&'a Step)) {
    for step in steps {
        f(step);
        match step {
            Step::Sequence(s) => for_each_step(s, f),
            Step::Mix(branches) => branches.iter().for_each(|b| for_each_step(&b.steps, f)),
            Step::Loop(l) => for_each_step(&l.steps, f),
            Step::If(i) => {
                for_each_step(&i.then, f);
                for_each_step(&i.otherwise, f);
            }
            Step::Once(o) => for_each_step(&o.steps, f),
            Step::Group(g) => for_each_step(&g.steps, f),
            Step::Throughput(t) => for_each_step(&t.steps, f),
            Step::Switch(s) => s.branches.iter().for_each(|(_, b)| for_each_step(b, f)),
            Step::Shuffle(s) => s.branches.iter().for_each(|b| for_each_step(b, f)),
            Step::Runtime(r) => for_each_step(&r.steps, f),
            Step::Critical(c) => for_each_step(&c.steps, f),
            Step::Parallel(p) => p.branches.iter().for_each(|b| for_each_step(b, f)),
            Step::Sample(_)
            | Step::Think(_)
            | Step::Feed(_)
            | Step::Set(_)
            | Step::Write(_)
            | Step::UserParams(_)
            | Step::Counter(_)
            | Step::SeededRandom(_)
            | Step::Stop(_)
            | Step::Pick(_)
            | Step::Fifo(_)
            | Step::Script(_)
            | Step::Anchor(_)
            | Step::RawSource(_) => {}
        }
    }
}

/// The labels of the samples a listener sees from these steps, in plan order: each request's,
/// synthetic, WebSocket and socket sample's, and each transaction group's and parallel parent
/// sample's (not a redirect hop's, a sub-sample).
pub(crate) fn sample_labels(steps: &[Step], out: &mut Vec<LabelId>) {
    let add = |l: LabelId, out: &mut Vec<LabelId>| {
        if !out.contains(&l) {
            out.push(l);
        }
    };
    for step in steps {
        match step {
            Step::Sample(s) => add(s.label(), out),
            Step::Group(g) => {
                add(g.label, out);
                sample_labels(&g.steps, out);
            }
            Step::Sequence(s) => sample_labels(s, out),
            Step::Mix(branches) => branches.iter().for_each(|b| sample_labels(&b.steps, out)),
            Step::Loop(l) => sample_labels(&l.steps, out),
            Step::If(i) => {
                sample_labels(&i.then, out);
                sample_labels(&i.otherwise, out);
            }
            Step::Once(o) => sample_labels(&o.steps, out),
            Step::Throughput(t) => sample_labels(&t.steps, out),
            Step::Switch(s) => s.branches.iter().for_each(|(_, b)| sample_labels(b, out)),
            Step::Shuffle(s) => s.branches.iter().for_each(|b| sample_labels(b, out)),
            Step::Runtime(r) => sample_labels(&r.steps, out),
            Step::Critical(c) => sample_labels(&c.steps, out),
            // With a parent sample, the branches' samples are its sub-results.
            Step::Parallel(p) => match p.parent {
                Some(l) => add(l, out),
                None => p.branches.iter().for_each(|b| sample_labels(b, out)),
            },
            _ => {}
        }
    }
}

/// Visits every template in a flow, mutably (to fold constants once the plan is read).
pub(crate) fn for_each_template_mut(steps: &mut [Step], f: &mut impl FnMut(&mut Template)) {
    for step in steps {
        match step {
            Step::Sample(Sampler::Http(r)) => r.for_each_template_mut(f),
            Step::Sequence(s) => for_each_template_mut(s, f),
            Step::Mix(branches) => branches.iter_mut().for_each(|b| for_each_template_mut(&mut b.steps, f)),
            Step::Set(a) => a.iter_mut().for_each(|a| f(&mut a.value.1)),
            Step::Loop(l) => {
                if let Some(c) = &mut l.count {
                    f(c);
                }
                if let Some(c) = &mut l.condition {
                    c.expr.operands_mut().into_iter().for_each(&mut *f);
                }
                for_each_template_mut(&mut l.steps, f);
            }
            Step::If(i) => {
                i.condition.expr.operands_mut().into_iter().for_each(&mut *f);
                for_each_template_mut(&mut i.then, f);
                for_each_template_mut(&mut i.otherwise, f);
            }
            Step::Once(o) => for_each_template_mut(&mut o.steps, f),
            Step::Group(g) => for_each_template_mut(&mut g.steps, f),
            Step::Write(w) => w.values.iter_mut().for_each(&mut *f),
            Step::UserParams(u) => u.rows.iter_mut().flatten().for_each(&mut *f),
            Step::Throughput(t) => for_each_template_mut(&mut t.steps, f),
            Step::Shuffle(s) => s.branches.iter_mut().for_each(|b| for_each_template_mut(b, f)),
            Step::Runtime(r) => {
                f(&mut r.seconds);
                for_each_template_mut(&mut r.steps, f);
            }
            Step::Critical(c) => {
                f(&mut c.lock);
                for_each_template_mut(&mut c.steps, f);
            }
            Step::Parallel(p) => p.branches.iter_mut().for_each(|b| for_each_template_mut(b, f)),
            Step::Fifo(q) => {
                f(&mut q.queue);
                if let FifoAction::Put(v) = &mut q.action {
                    f(v);
                }
            }
            Step::Switch(s) => {
                f(&mut s.value);
                s.branches.iter_mut().for_each(|(_, b)| for_each_template_mut(b, f));
            }
            Step::Think(_)
            | Step::Feed(_)
            | Step::Counter(_)
            | Step::SeededRandom(_)
            | Step::Stop(_)
            | Step::Pick(_)
            | Step::Sample(_)
            | Step::Script(_)
            | Step::Anchor(_)
            | Step::RawSource(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Weights 1:2:1 over 8 passes: the plugin's sequence, each branch its exact share.
    #[test]
    fn weighted_switch_picks_as_the_plugin() {
        let w = [0.25, 0.5, 0.25];
        let (mut counts, mut seq) = ([0u64; 3], Vec::new());
        for total in 0..8 {
            let i = Rotate::weighted_pick(&w, &counts, total).unwrap();
            counts[i] += 1;
            seq.push(i);
        }
        assert_eq!(seq, [1, 0, 2, 1, 1, 0, 2, 1]);
        assert_eq!(Rotate::weighted_pick(&[0.0, 0.0], &[0, 0], 0), None);
    }

    #[test]
    fn switch_picks_as_jmeter() {
        let names: Vec<String> = ["a", "Default", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(Switch::pick(&names, "2"), Some(2));
        assert_eq!(Switch::pick(&names, "7"), Some(0));
        assert_eq!(Switch::pick(&names, ""), Some(0));
        assert_eq!(Switch::pick(&names, "c"), Some(2));
        assert_eq!(Switch::pick(&names, "zzz"), Some(1));
        assert_eq!(Switch::pick(&names[..1], "zzz"), None);
    }

    #[test]
    fn random_think_times_have_their_means() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(7);
        let n = 20_000;
        let mean = |t: Think, rng: &mut rand::rngs::SmallRng| {
            (0..n).map(|_| t.draw(rng).as_secs_f64() * 1000.0).sum::<f64>() / n as f64
        };
        let g = Think::Gaussian { offset: Duration::from_millis(300), deviation: Duration::from_millis(100) };
        assert!((mean(g, &mut rng) - 300.0).abs() < 3.0);
        let p = Think::Poisson { offset: Duration::from_millis(100), lambda_ms: 50.0 };
        assert!((mean(p, &mut rng) - 150.0).abs() < 1.0);
        let big = Think::Poisson { offset: Duration::ZERO, lambda_ms: 2000.0 };
        assert!((mean(big, &mut rng) - 2000.0).abs() < 5.0);
        let u = Think::Uniform { min: Duration::from_millis(10), max: Duration::from_millis(30) };
        assert!((mean(u, &mut rng) - 20.0).abs() < 0.3);
    }
}
