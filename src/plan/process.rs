//! JMeter's OS Process Sampler (`SystemSampler`): a command run with its arguments, its
//! environment added to stampede's, in a working directory, its output the response. It runs
//! only with `--allow-commands`: a plan from elsewhere must not run commands on the user's
//! machine unknown to them.

use super::sampler::http::CheckId;
use super::template::Template;
use serde::{Serialize, Serializer};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct OsProcess {
    /// The program, found on `PATH` as Java's ProcessBuilder finds it.
    pub command: Template,
    /// Each argument's value, one word each (no shell). Shown by count only: they may hold
    /// secrets.
    #[serde(serialize_with = "count")]
    pub arguments: Vec<Template>,
    /// Added to the environment stampede runs in (name, value). Not shown: values may be
    /// secrets.
    #[serde(skip)]
    pub environment: Vec<(Template, Template)>,
    /// Empty: the plan's directory (JMeter's `FileServer.getDefaultBase()`); a relative one is
    /// taken from the directory stampede runs in, as `java.io.File` takes it.
    pub directory: Template,
    /// The plan's directory, absolute.
    pub plan_dir: PathBuf,
    /// Files for standard input, output and error (empty: none). Without a standard output
    /// file the output is the response; without a standard error file the errors join it.
    pub stdin: Template,
    pub stdout: Template,
    pub stderr: Template,
    /// With it, an exit code other than `expected_return_code` fails the sample.
    pub check_return_code: bool,
    pub expected_return_code: Template,
    /// Milliseconds; 0 or less: none.
    pub timeout: Template,
    /// `--allow-commands` was given: the command runs; else each sample fails unrun with
    /// `refused`.
    pub allowed: bool,
    #[serde(skip)]
    pub refused: CheckId,
    /// The check message counting "Unexpected return code" failures.
    #[serde(skip)]
    pub unexpected: CheckId,
}

fn count<S: Serializer>(t: &[Template], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("<{} arguments>", t.len()))
}

/// Java's `HashMap<String, String>.toString()` of `pairs` put in order (a later name replaces
/// the value in place): JMeter shows the environment in its sampler data so, in the order of
/// the map's buckets (String.hashCode spread, a 16-bucket table doubled past 3/4 full), then
/// of insertion within a bucket.
pub(crate) fn java_hash_map_text(pairs: &[(String, String)]) -> String {
    let mut entries: Vec<(&str, &str, u32)> = Vec::new();
    for (k, v) in pairs {
        match entries.iter_mut().find(|e| e.0 == k) {
            Some(e) => e.1 = v,
            None => entries.push((k, v, spread(k))),
        }
    }
    let mut buckets = 16usize;
    while entries.len() > buckets * 3 / 4 {
        buckets *= 2;
    }
    // A stable sort by bucket keeps insertion order within one (Java's resize keeps it too).
    entries.sort_by_key(|e| e.2 as usize & (buckets - 1));
    let inner: Vec<String> = entries.iter().map(|(k, v, _)| format!("{k}={v}")).collect();
    format!("{{{}}}", inner.join(", "))
}

/// `HashMap.hash`: String.hashCode over UTF-16 units, its high half folded into the low.
fn spread(s: &str) -> u32 {
    let h = s.encode_utf16().fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u))) as u32;
    h ^ (h >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_shows_in_java_hash_map_order() {
        let p = |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(java_hash_map_text(&[]), "{}");
        // "B".hashCode() = 66 (bucket 2), "A" = 65 (bucket 1), "MY_ENV_PROP": JMeter 5.6.3
        // shows `{A=1, B=2}` for B put before A.
        assert_eq!(java_hash_map_text(&p(&[("B", "2"), ("A", "1")])), "{A=1, B=2}");
        assert_eq!(java_hash_map_text(&p(&[("A", "1"), ("A", "3")])), "{A=3}");
        // "Aa" and "BB" share a hash: insertion order.
        assert_eq!(java_hash_map_text(&p(&[("BB", "1"), ("Aa", "2")])), "{BB=1, Aa=2}");
    }
}
