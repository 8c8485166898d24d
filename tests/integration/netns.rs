//! Generators as separate hosts (issue 15): two parts of one plan, each run from its own network
//! namespace with its own address, against a target in a third namespace, all created and
//! removed by the test (a bridge in the target's namespace, a veth pair per generator). The
//! target is a small Python server that counts what it served and from which address: the
//! merged run's samples are what it served, and they came from both generators' addresses.
//! Needs root; skipped loudly without it, and required when `CI` is set (CI runs as root).

use crate::util::stampede::{total, uint, OutputExt, Stampede, TempRun};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The namespaces and links the test made; removed on drop, whatever happens.
struct Net {
    names: Vec<String>,
}

impl Drop for Net {
    fn drop(&mut self) {
        for n in &self.names {
            let _ = Command::new("ip").args(["netns", "del", n]).status();
        }
    }
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip").args(args).output().map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!("ip {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
    }
}

/// A target namespace with a bridge at 10.77.0.1/24, and one namespace per generator at
/// 10.77.0.(11 + i), each on a veth pair into the bridge.
fn make_net(tag: &str, generators: usize, net: &mut Net) -> Result<(String, Vec<String>), String> {
    let target = format!("stt-{tag}");
    ip(&["netns", "add", &target])?;
    net.names.push(target.clone());
    ip(&["-n", &target, "link", "set", "lo", "up"])?;
    ip(&["-n", &target, "link", "add", "br0", "type", "bridge"])?;
    ip(&["-n", &target, "addr", "add", "10.77.0.1/24", "dev", "br0"])?;
    ip(&["-n", &target, "link", "set", "br0", "up"])?;
    let mut gens = Vec::new();
    for i in 0..generators {
        let g = format!("stg{i}-{tag}");
        ip(&["netns", "add", &g])?;
        net.names.push(g.clone());
        ip(&["-n", &g, "link", "set", "lo", "up"])?;
        let (inner, outer) = (format!("eth{i}"), format!("v{i}"));
        ip(&["-n", &g, "link", "add", &inner, "type", "veth", "peer", "name", &outer, "netns", &target])?;
        ip(&["-n", &g, "addr", "add", &format!("10.77.0.{}/24", 11 + i), "dev", &inner])?;
        ip(&["-n", &g, "link", "set", &inner, "up"])?;
        ip(&["-n", &target, "link", "set", &outer, "master", "br0"])?;
        ip(&["-n", &target, "link", "set", &outer, "up"])?;
        gens.push(g);
    }
    Ok((target, gens))
}

/// Serves 200 "ok" on 10.77.0.1:8080, counting requests per client address; prints the
/// counts as JSON when its stdin closes.
const SERVER: &str = r#"
import http.server, json, sys, threading, collections
counts = collections.Counter()
lock = threading.Lock()
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        with lock:
            counts[self.client_address[0]] += 1
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("10.77.0.1", 8080), H)
s.daemon_threads = True
threading.Thread(target=s.serve_forever, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
with lock:
    print(json.dumps(counts), flush=True)
"#;

#[test]
fn parts_on_separate_hosts_merge_to_what_the_target_served() {
    let root = unsafe { libc::geteuid() } == 0;
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    let mut net = Net { names: Vec::new() };
    let tag = format!("{}", std::process::id() % 100_000);
    let made = if root { make_net(&tag, 2, &mut net) } else { Err("not root".into()) };
    let (target, gens) = match made {
        Ok(m) => m,
        Err(why) => {
            assert!(!ci, "network namespaces are needed in CI (run as root): {why}");
            eprintln!("SKIPPED: cannot make network namespaces ({why}): generators as separate hosts are not tested");
            return;
        }
    };
    let mut server = Command::new("ip")
        .args(["netns", "exec", &target, "python3", "-c", SERVER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(server.stdout.take().unwrap());
    let mut line = String::new();
    std::io::BufRead::read_line(&mut out, &mut line).unwrap();
    assert_eq!(line.trim(), "ready");

    let run = TempRun::new("netns-parts");
    let plan = "name: hosts\nscenarios:\n  - name: s\n    workload: {users: 5, iterations: 4}\n    flow:\n      - request: {url: \"http://10.77.0.1:8080/x\"}\n";
    let p = run.write("plan.yaml", plan);
    let at = (time::OffsetDateTime::now_utc() + time::Duration::seconds(2))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    let parts: Vec<_> = gens
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let dir = run.root().join(format!("part{}", i + 1));
            let child = Command::new("ip")
                .args(["netns", "exec", g, env!("CARGO_BIN_EXE_stampede"), "run"])
                .arg(&p)
                .args(["-q", "--segment", &format!("{}/2", i + 1), "--start-at", &at, "--out"])
                .arg(&dir)
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            (child, dir)
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut dirs = Vec::new();
    for (mut child, dir) in parts {
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("a generator ran past 60 s");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "a generator failed");
        dirs.push(dir);
    }
    drop(server.stdin.take());
    let mut counts = String::new();
    std::io::BufRead::read_line(&mut out, &mut counts).unwrap();
    let _ = server.wait();
    let counts: serde_json::Value = serde_json::from_str(counts.trim()).unwrap();
    // 3 users from the first generator, 2 from the second, 4 iterations each.
    assert_eq!(counts["10.77.0.11"], 12, "{counts}");
    assert_eq!(counts["10.77.0.12"], 8, "{counts}");

    let merged = run.root().join("merged");
    Stampede::new().arg("merge").args(&dirs).arg("--out").arg(&merged).run().assert_exit(0);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&total(&summary), "samples"), 20);
    assert_eq!(uint(&total(&summary), "errors"), 0);
}
