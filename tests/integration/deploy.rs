//! The Kubernetes manifests in `deploy/k8s`: valid against Kubernetes' own schemas
//! (`kubernetes-validate`, which `.ci/run` installs; required when `CI` is set, else skipped
//! loudly), and their commands do what their comments say: the generators Job's command, run
//! with each Job index against a loopback server, makes the parts that the merge Job's command
//! merges into the plan's whole load. The ConfigMap's example plan reads.

use crate::util::server::{Route, TestServer};
use crate::util::stampede::{total, uint, OutputExt, Stampede, TempRun};
use serde_norway::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn k8s_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/k8s")
}

/// The manifest in `file` (one document).
fn manifest(file: &str) -> Value {
    let text = std::fs::read_to_string(k8s_dir().join(file)).unwrap();
    serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// The Job's container: its shell command and its environment.
fn job_command(job: &Value) -> (String, Vec<(String, String)>) {
    let c = &job["spec"]["template"]["spec"]["containers"][0];
    assert_eq!(c["command"][0].as_str(), Some("/bin/sh"));
    let script = c["args"][0].as_str().expect("a shell command").to_string();
    let env = c["env"]
        .as_sequence()
        .map(|s| {
            s.iter()
                .map(|e| (e["name"].as_str().unwrap().to_string(), e["value"].as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default();
    (script, env)
}

/// The directory holding the stampede binary the tests run, for `PATH`.
fn bin_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_stampede")).parent().unwrap().to_path_buf()
}

/// `script` as the pod runs it, with the pod's volumes at `plan` and `results`.
fn pod_shell(script: &str, env: &[(String, String)], plan: &Path, results: &Path) -> Command {
    let script = script
        .replace("/plan/", &format!("{}/", plan.display()))
        .replace("/results/", &format!("{}/", results.display()));
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c").arg(script);
    let path = format!("{}:{}", bin_dir().display(), std::env::var("PATH").unwrap_or_default());
    cmd.env("PATH", path);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

#[test]
fn the_generators_and_merge_jobs_run_a_plan_in_parts_and_merge_it() {
    let server = TestServer::builder().default_route(Route::ok()).start();
    let run = TempRun::new("k8s-jobs");
    let (plan_dir, results) = (run.root().join("plan"), run.root().join("results"));
    std::fs::create_dir_all(&plan_dir).unwrap();
    std::fs::create_dir_all(&results).unwrap();
    let plan = format!(
        "name: k8s\nscenarios:\n  - name: s\n    workload: {{users: 7, iterations: 3}}\n    flow:\n      - request: {{url: \"{}\"}}\n",
        server.url("/x")
    );
    std::fs::write(plan_dir.join("plan.yaml"), plan).unwrap();

    let job = manifest("generators-job.yaml");
    assert_eq!(job["spec"]["completionMode"].as_str(), Some("Indexed"));
    let parts = job["spec"]["completions"].as_u64().unwrap();
    assert_eq!(job["spec"]["parallelism"].as_u64(), Some(parts));
    let (script, mut env) = job_command(&job);
    assert!(env.iter().any(|(k, v)| k == "PARTS" && v.parse::<u64>() == Ok(parts)), "PARTS matches completions");
    let at = (time::OffsetDateTime::now_utc() + time::Duration::seconds(2))
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap();
    env.retain(|(k, _)| k != "START_AT");
    env.push(("START_AT".into(), at));
    let pods: Vec<_> = (0..parts)
        .map(|i| {
            let mut cmd = pod_shell(&script, &env, &plan_dir, &results);
            cmd.env("JOB_COMPLETION_INDEX", i.to_string());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut p in pods {
        let status = wait_for(&mut p, Duration::from_secs(60));
        assert!(status.success(), "a generator pod failed");
    }

    let (script, env) = job_command(&manifest("merge-job.yaml"));
    let out = pod_shell(&script, &env, &plan_dir, &results).output().unwrap();
    assert!(out.status.success(), "merge: {}", String::from_utf8_lossy(&out.stderr));
    let run_name = &env.iter().find(|(k, _)| k == "RUN").unwrap().1;
    let merged = results.join(run_name).join("merged");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(merged.join("summary.json")).unwrap()).unwrap();
    assert_eq!(uint(&total(&summary), "samples"), server.requests());
    assert_eq!(server.requests(), 7 * 3);
    assert!(std::fs::metadata(merged.join("report.html")).unwrap().len() > 0);
}

fn wait_for(child: &mut std::process::Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = std::time::Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("a pod's command ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_example_plan_reads() {
    let cm = manifest("plan-configmap.yaml");
    let run = TempRun::new("k8s-plan");
    let p = run.write("plan.yaml", cm["data"]["plan.yaml"].as_str().unwrap());
    Stampede::new().arg("check").arg(&p).run().assert_exit(0);
}

/// `kubernetes-validate` from `$KUBERNETES_VALIDATE` or `PATH`.
fn validator() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("KUBERNETES_VALIDATE") {
        return Some(PathBuf::from(p));
    }
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join("kubernetes-validate"))
        .find(|p| p.exists())
}

#[test]
fn the_manifests_are_valid_kubernetes() {
    let Some(validate) = validator() else {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
        assert!(!ci, "kubernetes-validate is not installed (.ci/run installs it)");
        eprintln!("SKIPPED: kubernetes-validate is not installed: the manifests in deploy/k8s are not validated");
        return;
    };
    let files: Vec<PathBuf> = std::fs::read_dir(k8s_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    assert!(files.len() >= 4, "{files:?}");
    // The oldest Kubernetes still widely run that has everything the manifests use.
    let out = Command::new(&validate).args(["--strict", "-k", "1.30.0"]).args(&files).output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{text}");
    assert!(text.matches(" passed ").count() >= files.len() && !text.contains("failed"), "{text}");
}

/// The controller Job lists one agent address per replica of the agents' StatefulSet, by the
/// names the StatefulSet and its Service give the pods, on the port the agents listen on.
#[test]
fn the_controller_job_names_every_agent() {
    let text = std::fs::read_to_string(k8s_dir().join("agents.yaml")).unwrap();
    let docs: Vec<Value> = text.split("\n---\n").map(|d| serde_norway::from_str(d).unwrap()).collect();
    let set = docs.iter().find(|d| d["kind"].as_str() == Some("StatefulSet")).unwrap();
    let service = docs.iter().find(|d| d["kind"].as_str() == Some("Service")).unwrap();
    let replicas = set["spec"]["replicas"].as_u64().unwrap();
    let name = set["metadata"]["name"].as_str().unwrap();
    let svc = service["metadata"]["name"].as_str().unwrap();
    assert_eq!(set["spec"]["serviceName"].as_str(), Some(svc));
    let args: Vec<&str> = set["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let port = args[args.iter().position(|a| *a == "--listen").unwrap() + 1].rsplit(':').next().unwrap();
    let (script, _) = job_command(&manifest("controller-job.yaml"));
    let list = script.split("--agents ").nth(1).unwrap().split_whitespace().next().unwrap();
    let want: Vec<String> = (0..replicas).map(|i| format!("{name}-{i}.{svc}:{port}")).collect();
    assert_eq!(list.split(',').collect::<Vec<_>>(), want);
}

/// The agents that join: as many pods as the controller waits for, dialling the Service that
/// selects the controller's pod, on the port it listens on; and the commands parse as the
/// binary's own flags.
#[test]
fn the_joining_agents_find_their_controller() {
    let text = std::fs::read_to_string(k8s_dir().join("join.yaml")).unwrap();
    let docs: Vec<Value> = text.split("\n---\n").map(|d| serde_norway::from_str(d).unwrap()).collect();
    let of = |kind: &str, component: &str| {
        docs.iter()
            .find(|d| {
                d["kind"].as_str() == Some(kind)
                    && d["metadata"]["labels"]["app.kubernetes.io/component"].as_str() == Some(component)
            })
            .unwrap_or_else(|| panic!("no {kind} of {component}"))
    };
    let service = of("Service", "controller");
    let controller = of("Job", "controller");
    let agents = of("Job", "agent");
    let (script, _) = job_command(controller);
    let flag = |name: &str| script.split(&format!("{name} ")).nth(1).unwrap().split_whitespace().next().unwrap();
    let count: u64 = flag("--agent-count").parse().unwrap();
    assert_eq!(agents["spec"]["parallelism"].as_u64(), Some(count));
    assert_eq!(agents["spec"]["completions"].as_u64(), Some(count));
    let listen_port = flag("--listen-agents").rsplit(':').next().unwrap();
    let selector = &service["spec"]["selector"];
    for (k, v) in selector.as_mapping().unwrap() {
        assert_eq!(&controller["spec"]["template"]["metadata"]["labels"][k.as_str().unwrap()], v);
    }
    let port = &service["spec"]["ports"][0];
    assert_eq!(port["targetPort"].as_u64().map(|p| p.to_string()).as_deref(), Some(listen_port));
    let args: Vec<&str> = agents["spec"]["template"]["spec"]["containers"][0]["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let join = args[args.iter().position(|a| *a == "--join").unwrap() + 1];
    let svc = service["metadata"]["name"].as_str().unwrap();
    assert_eq!(join, format!("{svc}:{}", port["port"].as_u64().unwrap()));
    // The agent's flags are the binary's: `--help` after them parses them and exits 0.
    Stampede::new().args(&args).arg("--help").run().assert_exit(0);
}
