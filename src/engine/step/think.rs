//! A think time's length: a timer's draw, a pacing timer's turn, a synchronizing timer's
//! release.

use super::super::session::ScenarioCtx;
use super::super::user::{IterEnd, VirtualUser};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

impl VirtualUser {
    /// How long think time `t` waits now (`since_wait` is reset when it waited already, as a
    /// synchronizing timer does), or how the iteration ends while it decides.
    pub(in crate::engine) async fn think_time(
        &mut self,
        ctx: &ScenarioCtx,
        t: &crate::plan::Think,
        since_wait: &mut u32,
    ) -> Result<Duration, IterEnd> {
        Ok(match *t {
            crate::plan::Think::Throughput { interval, shared, slot } => {
                let now = Instant::now();
                let users = if shared { ctx.active.load(Ordering::Relaxed).max(1) as u32 } else { 1 };
                let last = &mut self.plan.paces[slot as usize];
                // Saturating: a plan may ask for one sample in a thousand years.
                let gap = interval.checked_mul(users).unwrap_or(crate::plan::MAX_DURATION);
                let next = last.map_or(now, |l| l.checked_add(gap).unwrap_or(now + crate::plan::MAX_DURATION));
                *last = Some(next.max(now));
                next.saturating_duration_since(now)
            }
            crate::plan::Think::Shaped { slot } => {
                let now = Instant::now();
                let turn = ctx.shared.pacers[slot as usize].lock().expect("pacer lock").turn(now);
                match turn {
                    Ok(at) => at.saturating_duration_since(now),
                    // Past its schedule the timer stops the thread group, as the plugin.
                    Err(end) => {
                        tokio::select! {
                            _ = tokio::time::sleep(end.saturating_duration_since(now)) => {}
                            _ = ctx.stop.cancelled() => {}
                        }
                        ctx.stop_now();
                        return Err(IterEnd::Cut);
                    }
                }
            }
            crate::plan::Think::Precise { slot } => {
                let next = ctx.shared.arrivals[slot as usize].lock().expect("arrivals lock").next();
                match next {
                    // Seconds from the test's start, truncated to the ms as JMeter's
                    // `(long)` of its delay.
                    Some(at) => {
                        let at = ctx.epoch + Duration::from_millis((at * 1000.0).max(0.0) as u64);
                        at.saturating_duration_since(Instant::now())
                    }
                    // JMeter's timer throws on every sample in its scope (a rate or a
                    // period of 0); the reader has warned that the user waits instead.
                    None => crate::plan::MAX_DURATION,
                }
            }
            crate::plan::Think::Sync { slot } => {
                *since_wait = 0;
                let users = ctx.shared.sync_users.get(ctx.index).copied().unwrap_or(1);
                let barrier = &ctx.shared.barriers[slot as usize];
                // Boxed for the size of the user's future (see the samplers).
                match Box::pin(barrier.wait(users, self.stop_at, &ctx.stop)).await {
                    super::super::sync_timer::Passed::Go => Duration::ZERO,
                    // Stranded: as a JMeter thread stopped while it waits, the user ends.
                    super::super::sync_timer::Passed::Cut | super::super::sync_timer::Passed::Stranded => {
                        return Err(IterEnd::Cut)
                    }
                    super::super::sync_timer::Passed::Ends => return Err(IterEnd::UserDone),
                }
            }
            crate::plan::Think::Timed { slot } => {
                let e = &ctx.shared.timers[slot as usize];
                let delay = crate::plan::flow::TimerKind::delay_of(&e.delay.render_string(&mut self.session.vars));
                let range = crate::plan::flow::TimerKind::range_of(&e.range.render_string(&mut self.session.vars));
                e.kind.think(delay, range).draw(&mut self.session.vars.rng)
            }
            _ => t.draw(&mut self.session.vars.rng),
        })
    }
}
