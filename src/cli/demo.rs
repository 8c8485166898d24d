//! `stampede demo`: the built-in mock on a free loopback port, the bundled consumption-API mix
//! against it for about 10 s, and the report (the table, and `report.html` in the run
//! directory) — the first command a new user runs.

use crate::error::{exit, Error};
use crate::launch::agents::{OnAgents, Reading, Sent};
use crate::launch::{self, Exports, Part};
use crate::mock::{self, ConfigDoc, Counters};
use crate::plan::Plan;
use clap::Args;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const PLAN: &str = include_str!("../../examples/consumption-mix.yaml");
const MOCK: &str = include_str!("../../examples/mock-consumption.yaml");

#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// How long the load runs.
    #[arg(long, default_value = "10s", value_parser = super::parse_duration_arg)]
    pub duration: Duration,
    /// Number of users.
    #[arg(long, default_value_t = 50)]
    pub users: u32,
    /// Run directory to write: a new or empty directory (default: runs/<timestamp>, with `-2`,
    /// `-3`... when that name is taken).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// With --out: replace the run already in that directory.
    #[arg(long, requires = "out")]
    pub replace: bool,
    /// No progress display.
    #[arg(long, short)]
    pub quiet: bool,
    /// Send live metrics out while the demo runs, as `run --export` does (repeatable), e.g.
    /// `prometheus=127.0.0.1:9464` to watch it in a dashboard.
    #[arg(long = "export", value_name = "KIND=TARGET", help_heading = "Live metrics")]
    pub export: Vec<String>,
    /// With --export: a `tag` label on every exported series.
    #[arg(long, value_name = "TEXT", requires = "export", help_heading = "Live metrics")]
    pub export_tag: Option<String>,
    /// The demo on agents (the flags of `run`), e.g. two started with `stampede agent --listen
    /// 127.0.0.1:7701 --token-file T` and `...:7702`: a run on several generators in one command.
    #[command(flatten)]
    pub agents: super::dist::AgentFlags,
}

pub(super) async fn execute(a: DemoArgs) -> Result<u8, Error> {
    // An address in use is said before the mock starts.
    let exports = Exports::parse(&a.export, a.export_tag.clone())?;
    let config = ConfigDoc::parse(MOCK)?;
    let loopback = |source| Error::Io { what: "cannot listen on loopback".into(), source };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(loopback)?;
    let port = listener.local_addr().map_err(loopback)?.port();
    let counters = Arc::new(Counters::default());
    let shutdown = CancellationToken::new();
    let server = tokio::spawn({
        let (counters, shutdown) = (counters.clone(), shutdown.clone());
        async move { mock::run(listener, &config, shutdown, counters).await }
    });
    let props = HashMap::from([
        ("port".to_string(), port.to_string()),
        ("users".to_string(), a.users.to_string()),
        ("duration".to_string(), format!("{}ms", a.duration.as_millis())),
    ]);
    let plan = Plan::from_yaml_str(PLAN, Path::new("examples/consumption-mix.yaml"), &props)?;
    eprintln!("demo: built-in mock on http://127.0.0.1:{port}/, plan examples/consumption-mix.yaml");
    let part = Part { agents: on_agents(&a, &plan, props)?, ..Default::default() };
    let launch = super::run::launch(launch::place(a.out.clone(), a.replace), a.quiet, part, exports, Vec::new());
    let code = super::run::run_plan(plan, launch).await;
    shutdown.cancel();
    let _ = server.await;
    let code = code?;
    super::say(&format!(
        "The mock served {} requests on {} connections (compare with Samples and Connections above).\n",
        counters.served.load(Ordering::Relaxed),
        counters.connections.load(Ordering::Relaxed)
    ));
    Ok(if code == exit::OK { exit::OK } else { code })
}

/// `--agents`: the bundled plan sent to each agent as its text, read with the same properties
/// (the mock's port on this machine's loopback: the agents run beside it).
fn on_agents(a: &DemoArgs, plan: &Plan, props: HashMap<String, String>) -> Result<Option<OnAgents>, Error> {
    if !a.agents.on() {
        return Ok(None);
    }
    let sent = Sent::Yaml { name: "consumption-mix.yaml".into(), text: PLAN.into() };
    let reading = Reading { properties: props.into_iter().collect(), ..Default::default() };
    OnAgents::new(a.agents.spec(a.quiet)?, plan, sent, reading, &|line| eprintln!("{line}")).map(Some)
}
