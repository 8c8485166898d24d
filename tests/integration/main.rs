//! Integration tests: the real `stampede` binary against loopback servers that count what they
//! served. Every count stampede reports is checked against that witness, exactly.
//!
//! # Contents
//! - `agents`: agents and a controller (issue 15) as processes on loopback: the plan and its data
//!   shipped, the merged run what the server served, a wrong token refused, an agent whose
//!   controller is killed stops by itself, one killed mid-run marked lost; issue 31's idle
//!   connections, a stopped controller, job files.
//! - `browser`: the headless Chromium harness itself: it sees console errors, exceptions and
//!   outside requests.
//! - `check`: `check` lists every element and every problem at once (text and JSON), never says
//!   "The plan can run." for a plan `run` refuses; a request without a server name loads and fails
//!   its samples unsent, as in JMeter.
//! - `compare`: runs against servers with known delays show the known difference as significant,
//!   the same run repeated shows noise; golden Markdown layouts and JSON of two results files.
//! - `counts`: samples == requests served, per label; connections with and without keep-alive;
//!   HTTP/1.0; a weighted mix within statistical bounds; the latency of a known delay.
//! - `data_files`: a 64 MB CSV data file is streamed (issue 31): `run` (shared and per-user rows)
//!   and `check` peak well under the file's size (`VmHWM`), a run where it does with a 3-row file;
//!   the rows arrive in order; a bad last row is still found at its line.
//! - `deploy`: the Kubernetes manifests in `deploy/k8s`: valid against Kubernetes' schemas, and
//!   their commands (generator Jobs, the merge Job) do what their comments say against a loopback
//!   server.
//! - `dist_export`: `--export` on 3 agents (issue 33): each agent's `scope="agent"` row equals its
//!   part, the merged Total the served count, per-label series name their scenario, every series
//!   has the `run_id`.
//! - `dist_lost`: an agent SIGKILLed mid-run among 3 (issue 33): the report (terminal, Markdown,
//!   JSON, HTML, JUnit) names it, the instant and the estimate; the figures are at most what was
//!   served, the others' parts exact per path; `merge` with its own run directory adds every second
//!   it wrote, and only its last partial second stays missing.
//! - `dist_rollup`: roll-ups on agents (issue 33): each agent's own run directory and the
//!   controller's copy of it carry their roll-up files past the seconds kept, and `merge` of either
//!   equals what the server served and the run merged live.
//! - `dist_runs`: one run layer on agents (issue 33): quick mode, `--watch pid:` with `--export
//!   prometheus=`, a failed `--stop-on` on 3 agents on loopback, each merged == served; `--replace`
//!   clears the run it replaces once every agent accepted the job; `demo --agents` merges what the
//!   mock served.
//! - `dist_setup`: a JMX plan's setUp Thread Group runs once for a run on 3 agents (the server sees
//!   1 login) and its properties reach every agent's main load; its tearDown Thread Group runs
//!   once, after every agent's; a plan without setUp waits for nothing; Ctrl-C, a stop condition or
//!   the first agent lost during setup stops every agent; with `--data split` a setUp group
//!   prepares every row the agents use.
//! - `dist_ship`: what a run on agents ships (#33): a plan in `plans/` reading `../data/ids.csv`
//!   (as written, through `-J`, `--set`, or absolute) on 3 agents with `--data split`, each row
//!   served once; `--ship DIR` for a hidden folder read at run time; files that cannot be sent
//!   refused, each named, nothing sent.
//! - `dist_ship_runtime`: the plan's whole directory reaches the agents (a body named at run time
//!   arrives without `--ship`), and an absolute name made at run time through `-J` reads the
//!   agent's copy (#33).
//! - `docs_distributed`: every `stampede` command of the how-to in `docs/distributed.md` parses
//!   (issue 33), and the page keeps its sections.
//! - `errors`: 500s, refused, timeouts, closed, reset, reset-on-reuse, too large; bad plans and bad
//!   flags (exit 2, a message naming file, line and element, never a panic).
//! - `export`: `run --export` against real Prometheus (remote write) and InfluxDB 1.x started on
//!   loopback (their queries equal the samples and the witness), InfluxDB 2's write API and OTLP
//!   (decoded with `opentelemetry-proto`) against witnesses, the `/metrics` page during a run, a
//!   target that never answers (the run not slowed, the loss said), bad values refused with secrets
//!   masked.
//! - `facts`: connect time and time to first byte per label against known delays, with and without
//!   keep-alive, in every format; the generator's CPU over the run only.
//! - `flows`: login with token and cookie against a validating server; CSV values per sharing mode;
//!   file and gzip bodies; redirect chains and their sub-samples; checks and extractors; loops,
//!   conditions, once, groups; the write-back file.
//! - `framing`: chunked, close-delimited, HEAD, 204, 100 Continue: read to the exact byte.
//! - `html`: the HTML report and comparison in headless Chromium: no console error, nothing
//!   fetched, every chart and its lines, the table against the witness, print; screenshots kept in
//!   `target/screenshots/`.
//! - `jmeter_cli`: `stampede jmeter`, JMeter's non-GUI command line (issue 32): `-n -t -l` writes a
//!   JTL of what was served with JMeter's columns (appended unless `-f`), `-p`/`-q`/`-J`/`-G` reach
//!   `${__P()}` in JMeter's order, `-e -o` and `-g` write the report (a folder in use refused
//!   before any load), unknown and refused options named, a link named `jmeter`, `-R` on two agents
//!   merged exactly.
//! - `jmeter_force`: `stampede jmeter -f`: results files (`-l`, the plan's listeners') deleted only
//!   once the plan loads; `-f -o` empties the report folder and refuses one that is or holds the
//!   working directory, the runs, the plan or the results file.
//! - `jmx`: every corpus plan loads (`check`), the malformed ones are refused with their line;
//!   corpus and hand-written JMX plans send what JMeter would.
//! - `jmx_assertions`: JMeter's assertions: Response Assertion (scoped to a variable, to an unnamed
//!   one, on "Request Data" as JMeter's sampler data, "Or", failing samples per message), MD5Hex,
//!   XML, XPath2, JSON/JMESPath and the plugins' JSON path assertions, Size Assertion on a
//!   variable; outcomes as JMeter 5.6.3's.
//! - `jmx_config`: JMeter's config elements and pre-processors of values: Counters (two of one
//!   name, wrap, shared), User Parameters, CSV Data Sets (a missing file stops each user where its
//!   scope starts, two on one file share its rows, an empty header name loads), Keystore
//!   Configuration, HTTP defaults JMeter does not apply, the write-back file that cannot be opened.
//! - `jmx_controllers`: JMeter's logic controllers and flow: loop index variables of Loop, While
//!   and ForEach (prefix, start and end read at run time), Random Order, Runtime, Critical Section,
//!   Interleave, Weighted Switch, the Parameterized Controller, If and While conditions that fail,
//!   do not parse or are empty, Flow Control Actions on the current loop, the Result Status Action
//!   Handler's scope.
//! - `jmx_embedded`: "Retrieve All Embedded Resources" (issue 32): an HTML page's resources fetched
//!   once each, filtered, as sub-results `label-N` of the page, per-path counts exact.
//! - `jmx_extractors`: JMeter's extractors and post-processors as the next request proves them:
//!   XPath, XPath2, CSS selector, Jayway JSONPath and the plugins' JSON path, JMESPath, Perl5
//!   regexes (a single match's groups set and removed), Boundary; expressions and defaults read at
//!   run time, per sample; an extractor that finds nothing leaves its variable unset; headers as a
//!   Regular Expression Extractor sees them; the Debug PostProcessor.
//! - `jmx_ftp`: JMeter's FTP Request (issue 32) against a loopback pyftpdlib that counts its
//!   logins, RETR and STOR: samples equal its counts, uploads arrive whole, JMeter's codes, reply
//!   texts, bytes and sent bytes on failures; local files written and sent; the password in no
//!   output.
//! - `jmx_functions`: JMeter's `${__functions()}` as the witness receives them, `${__jexl3(...)}`
//!   conditions, arguments read as JMeter's parser reads them, `__P` of an empty property,
//!   `__StringFromFile`/`__CSVRead` of a file named at run time; a function stampede does not run
//!   named by `check`.
//! - `jmx_http`: JMeter's HTTP Request on the wire and its managers: connections per host and
//!   keep-alive, the Java implementation's headers, `//` in paths, an unfilled placeholder host,
//!   bandwidth emulation (`httpclient.socket.http.cps`), the Sample Timeout; Cache (revalidation,
//!   fresh entries skipped without a sample), Authorization (Basic, Digest, passwords never shown),
//!   DNS Cache, Cookie (clear each iteration, policies, scope) Managers.
//! - `jmx_http_bodies`: what an HTTP Request's body holds as JMeter sends it: nameless arguments,
//!   raw bodies and their Content-Type per implementation, Body Data with files, multipart uploads
//!   (a missing file, the sampler data's placeholder), upload paths and file bodies named per
//!   sample by variables or functions.
//! - `jmx_labels`: sample labels and transactions as JMeter makes them (the public-plan
//!   differential, issue 13): a sampler's or transaction's name rendered per sample from `${...}`,
//!   a transaction left by a failed sample or a Flow Control Action, a parent sample's requests as
//!   lines of the results file, rendered names past the label cap.
//! - `jmx_modifiers`: JMeter's HTTP modifiers: RegEx User Parameters, URL Re-writing, the HTML Link
//!   Parser (a matching link or form of the previous page sent; a pattern that does not compile
//!   skips its sampler).
//! - `jmx_parallel`: BlazeMeter's Parallel Controller and Parallel HTTP Requests: branches of one
//!   user overlap (the witness holds them until all arrived), each request served and recorded
//!   once, the parent sample, the thread limit, variables and cookies kept afterwards.
//! - `jmx_plugins`: jmeter-plugins elements of real plans (issue 32): Variables From CSV File
//!   (rows, comments, multi-line values, properties, a missing file, an empty delimiter); the
//!   Spider PreProcessor (each link of its domain followed once, the last found first, then the
//!   test stopped).
//! - `jmx_samplers`: JMeter's samplers other than HTTP, FTP, sockets and WebSocket: the Access Log
//!   Sampler (entries in order per thread or shared, a filter, a missing log), Debug, Dummy and
//!   Java samplers (samples of their own that feed extractors, huge figures, properties kept out of
//!   the run directory), the OS Process Sampler only with `--allow-commands` and its background
//!   processes ended with the run.
//! - `jmx_scripts`: script elements (issue 14, 32) run natively: a token a Groovy post-processor
//!   extracts sent in a header, pre-processors changing path, method, headers and body, assertions
//!   failing samples per message (JSR223 and BeanShell), `prev`, samplers, timers and listeners,
//!   the sandbox's refusals and compile errors at line:column; Jayway's `JsonPath`, `FileUtils`, a
//!   cookie added to the Cookie Manager, an upload chosen with `HTTPFileArg`; a missing script
//!   file; JSR223's compiled-script cache per user.
//! - `jmx_scripts_class`: classes declared in Groovy scripts (issue 32): a pre-processor's classes
//!   (a subclass, statics, `toString`) compute what its request sends, a sampler's class sets its
//!   sample; a class extending one outside the subset is refused at load.
//! - `jmx_scripts_mirror`: JMeter's HTTP Mirror Server (issue 14) started and stopped by a plan's
//!   setUp/tearDown JSR223 samplers, its echoes asserted, its served count equal to the samples;
//!   `stampede mock --mirror`, loopback only.
//! - `jmx_socket`: samplers over raw sockets (issue 13): the TCP Sampler (its config, text and
//!   binary clients, a connection per user, an unknown client class failing each sample unsent),
//!   HTTP Raw Request and Raw Data Source, UDP Request (hex, raw, DNS) against loopback servers
//!   that count what they received; refused and timed out samples fail with JMeter's code and
//!   message; scripts on their samples.
//! - `jmx_sync`: elements that coordinate threads or stop the test (issue 13 C): FIFO queues
//!   between thread groups, the AutoStop Listener, the Module Controller, `__setProperty`.
//! - `jmx_thread_groups`: thread groups: JMeter's (0 threads, a group without a sampler,
//!   setUp/tearDown beside a main group of 0, a wait past the scheduled end, samplers that never
//!   wait ending at the duration), the Open Model Thread Group's seeded arrivals, and the plugins'
//!   Stepping, Ultimate (its old column layout too), Concurrency, Arrivals and Free-Form groups and
//!   the Throughput Shaping Timer; the overrides bound them.
//! - `jmx_timers`: JMeter's timers: the Synchronizing Timer's batches of the group size (a batch
//!   that can never fill ends at the duration or when its users have ended), the Precise Throughput
//!   Timer's arrivals shared by a thread group.
//! - `jmx_websocket`: the eu.luminis WebSocket samplers against a WebSocket witness
//!   (`util::ws_server`): upgrades, frames and upgrade bytes as the server counted them; refused,
//!   rejected and missing connections fail their samples as the plugin does; `wss://`; frame
//!   filters' discarded frames as sub-samples.
//! - `labels`: past the label cap (10,000 labels with samples) the rest share one row, `(other
//!   labels)`, in a run and in `report` of a results file; the Total still equals what the witness
//!   served.
//! - `mock`: the built-in upstream frames pipelined requests right and counts exactly.
//! - `netns`: generators as separate hosts (issue 15): two parts of one plan, each from its own
//!   network namespace, against a target in a third, counted per source address.
//! - `open_model`: a fixed rate kept within 1%; dropped iterations against a slow server; ramps.
//! - `regression`: tests that each pin one past bug, by issue: #13 (connections kept per user
//!   without end, cached and unsent requests in endless loops, a Dummy Sampler's huge figures), #32
//!   (a Synchronizing Timer that hung CI, scripts reading past an extractor's kept matches,
//!   JSR223's first rendering listed in `vars`), #33 (`--replace` twice on agents, goals after
//!   every agent ended, a results file refused before agents, `scripts.log` of a replaced run).
//! - `report`: `report` on a JTL file (golden Markdown/CSV/JSON; figures checked against the rows)
//!   and on a run directory in every format; thresholds gate `run` and `report` (exit 1, JUnit),
//!   and bad ones are plan errors; several directories or JTLs report as one; a run's JTL agrees
//!   with its directory within 0.5 ms.
//! - `rundir`: the run directory's files and schema, `report` on finished, interrupted and killed
//!   runs, Ctrl-C, secrets, and the demo; runs never share or overwrite a directory (`--replace`);
//!   a JTL cut short exits 3; a corrupt log is an error naming its line.
//! - `script_fairness`: a user spinning in long scripts (a counting loop, a throw/catch loop) on
//!   one worker thread and one CPU leaves two plain users most of their samples, each one served,
//!   and the run ends on time (issue 31).
//! - `script_fn`: scripts in templates and conditions (issue 14): `${__groovy(...)}` in a header,
//!   If Controllers with Groovy and JavaScript conditions, counted against the witness; a script
//!   `check` cannot load named with its line:column.
//! - `script_log`: script log lines (issue 33), at load and while the run goes, are in the run's
//!   `scripts.log` with secrets masked (a secret property a function logs too), and not on the
//!   terminal.
//! - `script_sandbox`: what scripts' `log` and `OUT` write holds no secret variable's value; a
//!   script writes the files it names beside the plan, not an absolute path elsewhere; no script,
//!   file function or data set goes through a link out of the plan's directory, and `check` refuses
//!   reflection and threads (issue 31).
//! - `secrets`: a run full of secrets (query, headers, cookies, form and JSON bodies, the
//!   environment, `--set`, `-J`, quick mode) leaves none in run directories, JTL files, or the
//!   output of `run`, `check` and `report`; the server still receives every one.
//! - `segments`: one plan run by several generators apart (issue 15): `run --segment I/N` runs its
//!   share of every workload, `--start-at` starts the parts together, `merge` writes one run
//!   directory equal to what the server served.
//! - `server_selftest`: the witness server itself, checked with a plain TCP client.
//! - `sweep`: `sweep`: the knee of a pool of workers and the SLO, quick mode sweeping rates,
//!   dropped arrivals ending a capacity search, `--warmup`, closed-model stages, `--refine`;
//!   `--users` refused for an open-model plan; issue 31's rates beyond any generator and step
//!   directory names.
//! - `sweep_agents`: a sweep is a driver over runs (issue 33): `sweep --agents` on three agents,
//!   each step's merged samples what the server served for it; agents that dial in wait at every
//!   step; `sweep --export` labels each step's series `SWEEP/STEP` and its last numbers are what
//!   was served; `demo --export`; what a sweep cannot do on agents yet refused before any load.
//! - `tls`: HTTPS verifies certificates by default; an untrusted one is the `tls` error kind.
//! - `truth`: every request that reached the wire is a sample, however the run ends; statuses and
//!   transport failures land in the right kinds, against the witness.
//! - `upstream`: upstream vs gateway latency (#17): `Server-Timing`, Kong's and Envoy's headers and
//!   a plan's `timing_headers` split each label's time into upstream and overhead, in every format
//!   and in `compare`.
//! - `watch`: `run --watch` (issue 17): a process burning one core reads one core (against its own
//!   CPU time); one that exits mid-run is `gone` with its time, not zero; `proc:` sums the
//!   processes of a name as they come and go; the mock's `/metrics` behind nginx counts a
//!   connection per request over HTTP/1.0 and far fewer kept alive, equal to what it served; a
//!   scrape that never answers is an error and the load's counts stay exact; a PromQL query reads
//!   its value; bad sources name the flag; credentials never show.
//! - `wire`: the bytes that arrive: method, path, query, headers, bodies (gzip), connection use.
//! - `util`: the witness server (`util::server`) and the helpers that run the binary.

mod agents;
mod browser;
mod check;
mod compare;
mod counts;
mod data_files;
mod deploy;
mod dist_export;
mod dist_lost;
mod dist_rollup;
mod dist_runs;
mod dist_setup;
mod dist_ship;
mod dist_ship_runtime;
mod docs_distributed;
mod errors;
mod export;
mod facts;
mod flows;
mod framing;
mod html;
mod jmeter_cli;
mod jmeter_force;
mod jmx;
mod jmx_assertions;
mod jmx_config;
mod jmx_controllers;
mod jmx_embedded;
mod jmx_extractors;
mod jmx_ftp;
mod jmx_functions;
mod jmx_http;
mod jmx_http_bodies;
mod jmx_labels;
mod jmx_modifiers;
mod jmx_parallel;
mod jmx_plugins;
mod jmx_samplers;
mod jmx_scripts;
mod jmx_scripts_class;
mod jmx_scripts_mirror;
mod jmx_socket;
mod jmx_sync;
mod jmx_thread_groups;
mod jmx_timers;
mod jmx_websocket;
mod labels;
mod mock;
mod netns;
mod open_model;
mod regression;
mod report;
mod rundir;
mod script_fairness;
mod script_fn;
mod script_log;
mod script_sandbox;
mod secrets;
mod segments;
mod server_selftest;
mod sweep;
mod sweep_agents;
mod tls;
mod truth;
mod upstream;
mod util;
mod watch;
mod wire;
