//! [`VirtualUser`]: one simulated user, a tokio task that runs its scenario's [`Program`] once
//! per iteration over its own connection, and records a sample per request.

use super::client::HttpClient;
use super::program::{pick, Op, Program};
use crate::plan::Think;
use crate::record::{Recorder, Sample};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;

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
    pub tls: Arc<rustls::ClientConfig>,
}

impl ScenarioCtx {
    pub fn stopping(&self) -> bool {
        self.stopping.load(Ordering::Relaxed)
    }

    fn micros(&self, t: Instant) -> u64 {
        t.saturating_duration_since(self.epoch).as_micros() as u64
    }
}

pub struct VirtualUser {
    ctx: Arc<ScenarioCtx>,
    client: HttpClient,
    rng: SmallRng,
}

impl VirtualUser {
    pub fn new(ctx: Arc<ScenarioCtx>) -> VirtualUser {
        let client = HttpClient::new(ctx.tls.clone());
        VirtualUser { ctx, client, rng: SmallRng::from_os_rng() }
    }

    /// Runs the flow once. `due` is when an open-model arrival was due: the first request's
    /// elapsed time starts there. Returns false when the iteration was cut short by a stop.
    pub async fn iteration(&mut self, mut due: Option<Instant>) -> bool {
        let ctx = self.ctx.clone();
        let ops = &ctx.program.ops;
        let mut pc = 0;
        while pc < ops.len() {
            match &ops[pc] {
                Op::Request(req) => {
                    if ctx.stopping() {
                        return false;
                    }
                    let start = due.take().unwrap_or_else(Instant::now);
                    let ex = self.client.send(req, start).await;
                    let end = ex.end.unwrap_or_else(Instant::now);
                    let sample = Sample {
                        label: req.label,
                        start_us: ctx.micros(start),
                        end_us: ctx.micros(end),
                        ttfb_us: ex.first_byte.map_or(0, |t| t.saturating_duration_since(start).as_micros() as u64),
                        connect_us: ex.connect.as_micros() as u64,
                        bytes_sent: ex.bytes_sent,
                        bytes_received: ex.bytes_received,
                        new_connection: ex.new_connection,
                        error: ex.error,
                    };
                    ctx.recorder.record(&sample);
                    pc += 1;
                }
                Op::Think(t) => {
                    let d = match *t {
                        Think::Constant(d) => d,
                        Think::Uniform { min, max } => {
                            let span = (max - min).as_micros() as u64;
                            min + Duration::from_micros(if span == 0 { 0 } else { self.rng.random_range(0..=span) })
                        }
                    };
                    // An open-model arrival's first request is due after any think time before it.
                    due = due.map(|t| t + d);
                    if !d.is_zero() {
                        tokio::select! {
                            _ = tokio::time::sleep(d) => {}
                            _ = ctx.stop.cancelled() => return false,
                        }
                    }
                    pc += 1;
                }
                Op::Choose { cumulative, targets } => {
                    pc = targets[pick(cumulative, self.rng.random::<f64>())];
                }
                Op::Jump(to) => pc = *to,
            }
        }
        ctx.recorder.iteration_done(ctx.index);
        true
    }
}
