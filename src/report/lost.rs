//! The agents a run lost, as every report states them (`lost.json`, see
//! [`crate::rundir::lost`]): which part, when, and that the figures miss its requests after its
//! last reported interval, with the estimate; or, once `stampede merge` took its own run
//! directory, how far its figures are exact again.

use super::markdown::when;
use crate::rundir::lost::{self, Lost, LostAgent};

/// A count with thousands separators: `20,901`.
fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// One paragraph per lost agent, plain text (each report escapes it its own way).
pub(crate) fn notes(lost: &Lost) -> Vec<String> {
    lost.agents.iter().map(note).collect()
}

/// The headline of a report of a run that lost agents: the figures are short, or were made
/// whole again.
pub(crate) fn headline(lost: &Lost) -> String {
    let open = lost.agents.iter().filter(|a| a.reconciled.as_ref().is_none_or(|r| !r.complete)).count();
    let n = lost.agents.len();
    let agents = if n == 1 { "an agent".to_string() } else { format!("{n} agents") };
    if open == 0 {
        format!(
            "This run lost {agents}; its figures were reconciled with the agents' own run directories and are exact."
        )
    } else {
        format!("This run lost {agents}: its figures are SHORT of what was sent (see below).")
    }
}

fn note(a: &LostAgent) -> String {
    let mut s = format!(
        "Agent {} ({}, {}) was lost at {} ({:.1} s into the run: {}).",
        a.part,
        a.agent,
        a.dir,
        when(&a.lost_at),
        a.lost_at_s,
        a.why
    );
    let rate = format!("{:.1}/s over its last {:.0} s", a.rate_rps, a.rate_over_s);
    match &a.reconciled {
        Some(r) if r.complete => s.push_str(&format!(
            " Reconciled with its own run directory {}, which is whole: its part is exact ({} requests, {} more than the controller had).",
            r.dir,
            count(r.samples),
            count(r.added)
        )),
        Some(r) => {
            let after = lost::estimate(a.rate_rps, (r.until_s * 1e6) as u64, (a.lost_at_s * 1e6) as u64);
            s.push_str(&format!(
                " Reconciled with its own run directory {}: {} requests ({} more than the controller had), every second it wrote up to {:.1} s into the run. It did not finish: its requests after that (at most the second it was in, when it was killed) are in no record and NOT in these figures: an estimated {} until it was lost, at its {rate}.",
                r.dir,
                count(r.samples),
                count(r.added),
                r.until_s,
                count(after)
            ));
        }
        None => {
            let last = match (a.last_interval_end_s, &a.last_interval_at) {
                (Some(end), Some(at)) => format!("its last interval reported ends at {end:.1} s ({})", when(at)),
                (Some(end), None) => format!("its last interval reported ends at {end:.1} s"),
                _ => "it reported no interval".to_string(),
            };
            s.push_str(&format!(
                " The figures hold the {} requests of the intervals it reported; {last}. Its requests after that are NOT in these figures: an estimated {} if it stopped when it was lost (killed or crashed: its connection ended), up to {} if it went on to the run's end at {:.1} s (cut off from the controller) — at its {rate}, an estimate, not a count. `stampede merge` of this run with the agent's own run directory makes its part exact.",
                count(a.reported_samples),
                count(a.estimate.until_lost),
                count(a.estimate.until_run_end),
                a.run_end_s
            ));
        }
    }
    s
}

/// The terminal's lines: the headline and each agent's note, marked so they stand out.
pub(crate) fn terminal(lost: &Lost) -> String {
    let mut out = format!("WARNING: {}\n", headline(lost));
    for n in notes(lost) {
        out.push_str(&format!("  {n}\n"));
    }
    out
}

/// The Markdown block, for near the top of the document.
pub(crate) fn markdown(lost: &Lost) -> String {
    let mut out = format!("> **{}**\n", super::markdown::cell(&headline(lost)));
    for n in notes(lost) {
        out.push_str(&format!(">\n> - {}\n", n.replace('\n', " ")));
    }
    out.push('\n');
    out
}

/// The HTML section, for right under the title.
pub(crate) fn html(lost: &Lost) -> String {
    let mut out = format!("<section id=\"lost\" class=\"lost\"><h2>{}</h2><ul>", super::esc(&headline(lost)));
    for n in notes(lost) {
        out.push_str(&format!("<li>{}</li>", super::esc(&n)));
    }
    out.push_str("</ul></section>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rundir::lost::{Reconciled, VERSION};

    fn lost() -> Lost {
        Lost { version: VERSION, agents: vec![lost::example()] }
    }

    #[test]
    fn a_lost_agent_is_named_with_its_instant_and_the_estimate_in_every_format() {
        let l = lost();
        let text = terminal(&l);
        for said in [
            "WARNING: This run lost an agent: its figures are SHORT",
            "Agent 2/3 (127.0.0.1:4001, agents/2-127.0.0.1) was lost at 2026-01-01 00:00:07 UTC (7.1 s into the run",
            "the 20,901 requests of the intervals it reported",
            "ends at 6.0 s (2026-01-01 00:00:06 UTC)",
            "NOT in these figures: an estimated 3,828 if it stopped when it was lost",
            "up to 83,520 if it went on to the run's end at 30.0 s",
            "3480.0/s over its last 5 s, an estimate, not a count",
        ] {
            assert!(text.contains(said), "{said}\n{text}");
        }
        let md = markdown(&l);
        assert!(md.starts_with("> **This run lost an agent") && md.contains("> - Agent 2/3"), "{md}");
        assert!(md.contains("an estimated 3,828"), "{md}");
        let html = html(&l);
        assert!(html.starts_with("<section id=\"lost\"") && html.contains("<li>Agent 2/3 (127.0.0.1:4001"), "{html}");
        assert!(html.contains("an estimated 3,828"), "{html}");
    }

    #[test]
    fn a_reconciled_agent_says_its_part_is_exact_or_how_far() {
        let mut l = lost();
        let whole =
            Reconciled { dir: "own/run".into(), samples: 104_000, added: 83_099, complete: true, until_s: 30.0 };
        l.agents[0].reconciled = Some(whole.clone());
        let text = terminal(&l);
        assert!(text.contains("reconciled with the agents' own run directories and are exact"), "{text}");
        assert!(text.contains("own/run, which is whole: its part is exact (104,000 requests, 83,099 more"), "{text}");
        assert!(!text.contains("SHORT") && !text.contains("estimated"), "{text}");
        // Killed: its own directory has every second up to its last, then nothing.
        l.agents[0].reconciled =
            Some(Reconciled { complete: false, until_s: 6.6, samples: 23_000, added: 2099, ..whole });
        let text = terminal(&l);
        assert!(text.contains("SHORT"), "{text}");
        assert!(text.contains("every second it wrote up to 6.6 s into the run. It did not finish"), "{text}");
        // 0.5 s at 3480/s.
        assert!(text.contains("an estimated 1,740 until it was lost"), "{text}");
    }

    #[test]
    fn counts_have_thousands_separators() {
        assert_eq!(count(0), "0");
        assert_eq!(count(999), "999");
        assert_eq!(count(1000), "1,000");
        assert_eq!(count(104_684), "104,684");
        assert_eq!(count(1_234_567), "1,234,567");
    }
}
