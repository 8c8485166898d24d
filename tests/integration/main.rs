//! Integration tests: the real `stampede` binary against loopback servers that count what they
//! served. Every count stampede reports is checked against that witness, exactly.
//!
//! # Contents
//! - `browser`: the headless Chromium harness itself: it sees console errors, exceptions and
//!   outside requests.
//! - `counts`: samples == requests served, per label; connections with and without keep-alive;
//!   HTTP/1.0; a weighted mix within statistical bounds; the latency of a known delay.
//! - `check`: `check` lists every element and every problem at once (text and JSON), never says
//!   "The plan can run." for a plan `run` refuses; a request without a server name loads and
//!   fails its samples unsent, as in JMeter.
//! - `compare`: runs against servers with known delays show the known difference as significant,
//!   the same run repeated shows noise; golden Markdown layouts and JSON of two results files.
//! - `data_files`: a 64 MB CSV data file is streamed (issue 31): `run` (shared and per-user
//!   rows) and `check` peak well under the file's size (`VmHWM`), a run where it does with a
//!   3-row file; the rows arrive in order; a bad last row is still found at its line.
//! - `errors`: 500s, refused, timeouts, closed, reset, reset-on-reuse, too large; bad plans and
//!   bad flags (exit 2, a message naming file, line and element, never a panic).
//! - `flows`: login with token and cookie against a validating server; CSV values per sharing
//!   mode; file and gzip bodies; redirect chains and their sub-samples; checks and extractors;
//!   loops, conditions, once, groups; the write-back file.
//! - `dist_fix_s4`: review fixes of the run layer on agents (issue 33): `--replace` twice on
//!   agents, goals in the ramp-down seconds, a results file refused before any agent is reached.
//! - `dist_export`: `--export` on 3 agents (issue 33): each agent's `scope="agent"` row equals
//!   its part, the merged Total the served count, per-label series name their scenario, every
//!   series has the `run_id`.
//! - `dist_s4`: one run layer on agents (issue 33): quick mode, `--watch pid:` with `--export
//!   prometheus=`, and a failed `--stop-on` on 3 agents on loopback, each merged == served.
//! - `docs_distributed`: every `stampede` command of the how-to in `docs/distributed.md` parses
//!   (issue 33), and the page keeps its sections.
//! - `export`: `run --export` against real Prometheus (remote write) and InfluxDB 1.x started
//!   on loopback (their queries equal the samples and the witness), InfluxDB 2's write API
//!   and OTLP (decoded with `opentelemetry-proto`) against witnesses, the `/metrics` page
//!   during a run, a target that never answers (the run not slowed, the loss said), bad values
//!   refused with secrets masked.
//! - `facts`: connect time and time to first byte per label against known delays, with and
//!   without keep-alive, in every format; the generator's CPU over the run only.
//! - `framing`: chunked, close-delimited, HEAD, 204, 100 Continue: read to the exact byte.
//! - `html`: the HTML report and comparison in headless Chromium: no console error, nothing
//!   fetched, every chart and its lines, the table against the witness, print; screenshots kept
//!   in `target/screenshots/`.
//! - `labels`: past the label cap (10,000 labels with samples) the rest share one row,
//!   `(other labels)`, in a run and in `report` of a results file; the Total still equals what
//!   the witness served.
//! - `jmx`: every corpus plan loads (`check`), the malformed ones are refused with their line;
//!   corpus and hand-written JMX plans send what JMeter would.
//! - `jmx_accesslog_s4`: JMeter's Access Log Sampler (#32): the log's entries in order per
//!   thread (a stop past the end) or shared (the log again), with a filter the log again after
//!   a failed sample, HTTP Request Defaults' arguments first, a missing log failing each sample.
//! - `jmx_anchor_s3`: core elements of issue 32: the MD5Hex Assertion, the XML Assertion
//!   (JMeter's messages, a DOCTYPE refused), the HTML Link Parser (a matching link or form of
//!   the previous page sent instead), per-path counts exact.
//! - `jmx_b`: JMeter's semantics of issue 13 B: assertions scoped to a variable; a write-back
//!   file that cannot be opened.
//! - `jmx_diff`: what the public-plan differential found (issue 13): sample labels rendered per
//!   sample from a sampler's or transaction's name with `${...}`.
//! - `jmx_embedded`: "Retrieve All Embedded Resources" (issue 32): an HTML page's resources
//!   fetched once each, filtered, as sub-results `label-N` of the page, per-path counts exact.
//! - `jmx_ftp`: JMeter's FTP Request (issue 32) against a loopback pyftpdlib that counts its
//!   logins, RETR and STOR: samples equal its counts, uploads arrive whole, JMeter's codes,
//!   reply texts, bytes and sent bytes on failures; local files written and sent; the password
//!   in no output.
//! - `jmx_files_s3`: files a plan names that are not there (#32): a missing CSV Data Set file
//!   stops each user where its scope starts, a missing script file fails each script sample,
//!   an upload path with a run-time variable read per sample (never outside the plan's
//!   directory); JSR223's compiled-script cache keeps each user's first rendering of `${...}`.
//! - `jmx_spider_s4`: the jmeter-plugins Spider PreProcessor (#32): each link of its domain
//!   followed once, the last found first, then the whole test stopped; samples equal the served.
//! - `jmx_runtime_s4`: files and patterns JMeter names or compiles only while running (#32):
//!   `__StringFromFile`/`__CSVRead` of a file named by an extractor's variable, a file body and
//!   uploads named per sample (a missing file body sent head-only and failed), an HTML Link
//!   Parser pattern that does not compile skipping its sampler.
//! - `jmx_jsr223_first_fixc`: JSR223's compiled-script cache keeps each of 20 users' first
//!   rendering outside its variables (`vars.entrySet()` does not list it).
//! - `jmx_fn`: JMeter's functions (issue 13 C) as the witness receives them; `${__jexl3(expr,)}`
//!   conditions; a function stampede does not run named by `check`.
//! - `jmx_http`: JMeter's HTTP managers on the wire: Cache (revalidation, fresh entries skipped
//!   without a sample), Authorization (Basic by first matching base URL, Digest within one sample, passwords never shown),
//!   DNS Cache (static hosts), Cookie (clear each iteration, policies, its own cookies); one
//!   connection per host per user.
//! - `jmx_elements`: core JMeter elements real plans keep (issue 32): the Precise Throughput
//!   Timer's arrivals shared by a thread group; the Debug PostProcessor; JMESPath.
//! - `jmx_json_runtime`: issue 32 rows 2-4: JSON Extractor and JSON Assertion paths holding
//!   variables set at run time, evaluated per sample; a JSON Extractor whose lists differ in
//!   number throws per sample and the thread goes on; an assertion scoped to an unnamed variable
//!   fails each sample.
//! - `jmx_runtime_values`: issue 32: fields JMeter reads per sample that stampede needed at
//!   load: XPath, XPath2 and CSS Selector Extractor expressions, XPath Assertion queries, Size
//!   Assertion sizes, a ForEach's start index and input prefix, from run-time variables.
//! - `jmx_ctl`: JMeter's controllers (issue 13 C) as the witness receives them: the loop index
//!   variables `${__jm__<name>__idx}` of Loop, While and ForEach Controllers.
//! - `jmx_small`: smaller differences from JMeter where both run a plan (issue 32): a thread
//!   group without a sampler takes one CSV row per thread; `__P` of an empty property; `//` in
//!   paths; multipart bodies; upload paths per sample; JSON Extractor defaults; the Java
//!   implementation's raw POST; a While condition whose function fails; Keystore Configuration.
//! - `jmx_small2`: more of issue 32's rule: a plan whose every thread group has 0 threads loads,
//!   sends nothing and exits 0 (`check` warns, `--strict` refuses, `stampede jmeter` prints
//!   JMeter's summary), setUp/tearDown groups beside a main group of 0; a single-match Regular
//!   Expression Extractor's `name_g`, `name_gK` set and removed as JMeter does; extractor
//!   defaults that render empty at run time, per extractor.
//! - `jmx_sync`: elements that coordinate threads or stop the test (issue 13 C): FIFO queues
//!   between thread groups, the AutoStop Listener, the Module Controller, `__setProperty`.
//! - `jmx_sync_timer`: JMeter's Synchronizing Timer (issue 32): a sampler's requests reach the
//!   witness in batches of the group size, served equal to samples; a batch that can never
//!   fill ends at the run's duration (scheduler and `--duration`) with exact counts, and at
//!   once when the users that could fill it have ended (users lapping others, the last
//!   partial batch).
//! - `jmx_c`: the elements real plans use (issue 13 C): samplers that send nothing (Debug, Dummy,
//!   Java test clients) beside HTTP requests; the Result Status Action Handler's scope.
//! - `jmx_parallel`: BlazeMeter's Parallel Controller and Parallel HTTP Requests: branches of one
//!   user overlap (the witness holds them until all arrived), each request served and recorded
//!   once, the parent sample, the thread limit, variables and cookies kept afterwards.
//! - `jmx_scripts`: script elements (issue 14) run natively: a token a Groovy post-processor
//!   extracts sent in a header, a pre-processor's path and header, assertions failing samples
//!   per message (JSR223 and BeanShell), a post-processor's `setSuccessful`, JSR223 and
//!   BeanShell samplers, a timer's delay, a listener's file, `${var}` in a BeanShell script; the
//!   sandbox's refusals and compile errors at line:column.
//! - `jmx_scripts_i32`: scripts of real plans (issue 32): Jayway's `JsonPath` read in a
//!   post-processor, an upload a pre-processor chooses with `HTTPFileArg`, a cookie a script
//!   adds to the Cookie Manager, each as the witness receives them.
//! - `jmx_scripts_class`: classes declared in Groovy scripts (issue 32): a pre-processor's
//!   classes (a subclass, statics, `toString`) compute what its request sends, a sampler's class
//!   sets its sample; a class extending one outside the subset is refused at load.
//! - `jmx_scripts_mirror`: JMeter's HTTP Mirror Server (issue 14) started and stopped by a plan's
//!   setUp/tearDown JSR223 samplers, its echoes asserted, its served count equal to the samples;
//!   `stampede mock --mirror`, loopback only.
//! - `jmx_socket`: samplers over raw sockets (issue 13): the TCP Sampler (its config, text and
//!   binary clients, a connection per user), HTTP Raw Request and Raw Data Source, UDP Request
//!   (hex, raw, DNS) against loopback servers that count what they received; refused and timed
//!   out samples fail with JMeter's code and message.
//! - `jmeter_cli`: `stampede jmeter`, JMeter's non-GUI command line (issue 32): `-n -t -l` writes
//!   a JTL of what was served with JMeter's columns (appended unless `-f`), `-p`/`-q`/`-J`/`-G`
//!   reach `${__P()}` in JMeter's order, `-e -o` and `-g` write the report (a folder in use
//!   refused before any load), unknown and refused options named, a link named `jmeter`, `-R`
//!   on two agents merged exactly.
//! - `jmeter_force`: `stampede jmeter -f`: results files (`-l`, the plan's listeners') deleted
//!   only once the plan loads; `-f -o` empties the report folder and refuses one that is or
//!   holds the working directory, the runs, the plan or the results file.
//! - `jmx_misc_s3`: issue 32 (misc): the Counter as JMeter counts (two of one name, a start
//!   above the end, fields that are no number, a shared counter's wrap); bandwidth emulation
//!   (`httpclient.socket.http.cps` from `-J` or a setUp script) paces each response.
//! - `jmx_modifiers`: JMeter's HTTP modifiers (RegEx User Parameters) and plans JMeter loads
//!   that were refused (an empty CSV header name, HTTP defaults of a GUI JMeter does not apply).
//! - `jmx_runtime`: plans JMeter loads that fail only at run time (#32): an unfilled
//!   `[placeholder]` host fails each sample with java.net's message, the user goes on;
//!   function arguments read as JMeter's parser reads them (`${__P(X,0})}` is `0}`);
//!   numbers that are no number and an empty If condition read as JMeter reads them.
//! - `jmx_plugins_s3`: jmeter-plugins elements of real plans (issue 32): the Ultimate Thread
//!   Group's old column layout as `jmeter -n` runs it (the rows before the first short one,
//!   later groups not started), Variables From CSV File (rows, comments, multi-line values,
//!   properties, a missing file, an empty delimiter), the Parameterized Controller.
//! - `jmx_openmodel`: JMeter's Open Model Thread Group (issue 32): a seeded schedule's arrivals
//!   sent exactly, each a new user; even steps counted as JMeter; a bad schedule refused.
//! - `jmx_xpath2_assert`: JMeter's XPath2 Assertion (issue 32): each case of the micro plan
//!   JMeter 5.6.3 ran passes or fails as it did (numbers and strings match, XPath 2.0-only fails).
//! - `jmx_tg`: the plugins' thread groups (Stepping, Ultimate, Concurrency, Arrivals, Free-Form)
//!   and the Throughput Shaping Timer on short schedules; the overrides bound them.
//! - `jmx_sysreq_s3`: a Response Assertion on "Request Data" reads JMeter's sampler data (HTTP
//!   method, URL, body, cookies; a TCP request); an If condition that does not parse is false;
//!   a TCP Sampler with an unknown client class connects and fails each sample; the OS Process
//!   Sampler runs its command only with `--allow-commands`, and what it leaves running in the
//!   background ends with the run (#32).
//! - `jmx_unset`: JMeter's unset variables (issue 32): an extractor that finds nothing with an
//!   empty default leaves its `${name}` sent as it is; headers as a Regular Expression Extractor
//!   sees them (status line first, `\n` lines as sent), the Location-based redirect flow of a
//!   login plan; a script walking a match -1 extractor's `name_N` stops after the kept matches.
//! - `jmx_x`: extractors and assertions of JMX plans as JMeter runs them: XPath, CSS selector,
//!   Jayway JSONPath, jmeter-plugins' JSON path, Perl5 regexes, expressions that only fail at run
//!   time, Response Assertion "Or"; extracted values proven by the next request.
//! - `jmx_websocket`: the eu.luminis WebSocket samplers against a WebSocket witness
//!   (`util::ws_server`): upgrades, frames and upgrade bytes as the server counted them; refused,
//!   rejected and missing connections fail their samples as the plugin does; `wss://`; frame
//!   filters' discarded frames as sub-samples.
//! - `launch_s5`: a run as a command asks for it, on agents (issue 33): `--replace` clears the
//!   run it replaces once every agent accepted the job; `demo --agents` merges what the mock served.
//! - `lost_s4`: an agent SIGKILLed mid-run among 3 (issue 33): the report (terminal, Markdown,
//!   JSON, HTML, JUnit) names it, the instant and the estimate; the figures are at most what was
//!   served, the others' parts exact per path; `merge` with its own run directory adds every
//!   second it wrote, and only its last partial second stays missing.
//! - `mock`: the built-in upstream frames pipelined requests right and counts exactly.
//! - `open_model`: a fixed rate kept within 1%; dropped iterations against a slow server; ramps.
//! - `report`: `report` on a JTL file (golden Markdown/CSV/JSON; figures checked against the
//!   rows) and on a run directory in every format; thresholds gate `run` and `report` (exit 1,
//!   JUnit), and bad ones are plan errors; several directories or JTLs report as one; a run's
//!   JTL agrees with its directory within 0.5 ms.
//! - `rollup_s4`: roll-ups on agents (issue 33): each agent's own run directory and the
//!   controller's copy of it carry their roll-up files past the seconds kept, and `merge` of
//!   either equals what the server served and the run merged live.
//! - `rundir`: the run directory's files and schema, `report` on finished, interrupted and
//!   killed runs, Ctrl-C, secrets, and the demo; runs never share or overwrite a directory
//!   (`--replace`); a JTL cut short exits 3; a corrupt log is an error naming its line.
//! - `script_sandbox`: what scripts' `log` and `OUT` write holds no secret variable's value; a
//!   script writes the files it names beside the plan, not an absolute path elsewhere; no
//!   script, file function or data set goes through a link out of the plan's directory, and
//!   `check` refuses reflection and threads (issue 31).
//! - `script_fairness`: a user spinning in long scripts (a counting loop, a throw/catch loop)
//!   on one worker thread and one CPU leaves two plain users most of their samples, each one
//!   served, and the run ends on time (issue 31).
//! - `script_log`: script log lines (issue 33), at load and while the run goes, are in the run's
//!   `scripts.log` with secrets masked, and not on the terminal.
//! - `script_log_fixr`: `scripts.log` is a run file: `--replace` leaves only the new run's lines.
//! - `script_fn`: scripts in templates and conditions (issue 14): `${__groovy(...)}` in a header,
//!   If Controllers with Groovy and JavaScript conditions, counted against the witness; a script
//!   `check` cannot load named with its line:column.
//! - `secrets`: a run full of secrets (query, headers, cookies, form and JSON bodies, the
//!   environment, `--set`, `-J`, quick mode) leaves none in run directories, JTL files, or the
//!   output of `run`, `check` and `report`; the server still receives every one.
//! - `sweep_s4`: a sweep is a driver over runs (issue 33): `sweep --agents` on three agents,
//!   each step's merged samples what the server served for it; `sweep --export` labels each
//!   step's series `SWEEP/STEP` and its last numbers are what was served; `demo --export`;
//!   what a sweep cannot do on agents yet refused before any load.
//! - `wire`: the bytes that arrive: method, path, query, headers, bodies (gzip), connection use.
//! - `tls`: HTTPS verifies certificates by default; an untrusted one is the `tls` error kind.
//! - `ship_s4`: what a run on agents ships (#33): a plan in `plans/` reading `../data/ids.csv`
//!   (as written, through `-J`, `--set`, or absolute) on 3 agents with `--data split`, each row
//!   served once; `--ship DIR` for a hidden folder read at run time; files that cannot be sent refused,
//!   each named, nothing sent.
//! - `setup_once_s5`: a JMX plan's setUp Thread Group runs once for a run on 3 agents (the
//!   server sees 1 login) and its properties reach every agent's main load; its tearDown Thread
//!   Group runs once, after every agent's; a plan without setUp waits for nothing; the first
//!   agent lost during setup stops every agent, and the run says so.
//!   With `--data split`, a setUp group reading a data file runs on every agent on its own rows:
//!   every row an agent's main load uses was prepared.
//! - `ship_fix_s4`: the plan's whole directory reaches the agents (a body named at run time
//!   arrives without `--ship`), and an absolute name made at run time through `-J` reads the
//!   agent's copy (#33).
//! - `server_selftest`: the witness server itself, checked with a plain TCP client.
//! - `watch`: `run --watch` (issue 17): a process burning one core reads one core (against its
//!   own CPU time); one that exits mid-run is `gone` with its time, not zero; `proc:` sums the
//!   processes of a name as they come and go; the mock's
//!   `/metrics` behind nginx counts a connection per request over HTTP/1.0 and far fewer kept
//!   alive, equal to what it served; a scrape that never answers is an error and the load's
//!   counts stay exact; a PromQL query reads its value; bad sources name the flag; credentials
//!   never show.
//! - `util`: the witness server (`util::server`) and the helpers that run the binary.

mod agents;
mod browser;
mod check;
mod compare;
mod counts;
mod data_files;
mod deploy;
mod dist_export;
mod dist_fix_s4;
mod dist_s4;
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
mod jmx_accesslog_s4;
mod jmx_anchor_s3;
mod jmx_b;
mod jmx_c;
mod jmx_ctl;
mod jmx_diff;
mod jmx_elements;
mod jmx_embedded;
mod jmx_files_s3;
mod jmx_fn;
mod jmx_ftp;
mod jmx_http;
mod jmx_json_runtime;
mod jmx_jsr223_first_fixc;
mod jmx_misc_s3;
mod jmx_modifiers;
mod jmx_openmodel;
mod jmx_parallel;
mod jmx_plugins_s3;
mod jmx_runtime;
mod jmx_runtime_s4;
mod jmx_runtime_values;
mod jmx_scripts;
mod jmx_scripts_class;
mod jmx_scripts_i32;
mod jmx_scripts_mirror;
mod jmx_small;
mod jmx_small2;
mod jmx_socket;
mod jmx_spider_s4;
mod jmx_sync;
mod jmx_sync_timer;
mod jmx_sysreq_s3;
mod jmx_tg;
mod jmx_unset;
mod jmx_websocket;
mod jmx_x;
mod jmx_xpath2_assert;
mod labels;
mod launch_s5;
mod lost_s4;
mod mock;
mod netns;
mod open_model;
mod report;
mod rollup_s4;
mod rundir;
mod script_fairness;
mod script_fn;
mod script_log;
mod script_log_fixr;
mod script_sandbox;
mod secrets;
mod segments;
mod server_selftest;
mod setup_once_s5;
mod ship_fix_s4;
mod ship_s4;
mod sweep;
mod sweep_s4;
mod tls;
mod truth;
mod upstream;
mod util;
mod watch;
mod wire;
