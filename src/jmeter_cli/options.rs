//! JMeter 5.6.3's options (`jmeter -?`): each by its short and long name, what it takes, and
//! why stampede refuses it when it does; the usage `-?` prints.

/// The port of a `-R` host given without one: `stampede agent`'s default (JMeter's servers
/// listen on RMI's 1099, which is not what a stampede agent speaks).
pub(super) const AGENT_PORT: u16 = 7700;

/// Where the agents' token file is named for `-R`/`-r` (JMeter's servers have no token).
pub(super) const TOKEN_ENV: &str = "STAMPEDE_TOKEN_FILE";
pub(super) const TOKEN_PROPERTY: &str = "stampede.token_file";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Takes {
    Nothing,
    /// One value: `-tPLAN`, `-t PLAN`, `--testfile PLAN`, `--testfile=PLAN`.
    One,
    /// `name=value` (`-Jname=value`, `-J name=value`, `-J name value`), or one word for `-G`
    /// (a file) and `-L` (the root level).
    Pair,
}

pub(super) struct Opt {
    pub(super) short: char,
    pub(super) long: &'static str,
    pub(super) takes: Takes,
    /// JMeter allows the option more than once; the others given twice are refused, as JMeter
    /// refuses them ("Duplicate options for -t/--testfile found.").
    pub(super) repeat: bool,
    /// Why stampede refuses the option.
    pub(super) refused: Option<&'static str>,
}

const PROXY: &str =
    "stampede sends to the servers a plan names; it has no HTTP proxy (set the plan's proxy fields in an HTTP Request if it must go through one)";

const fn opt(short: char, long: &'static str, takes: Takes, repeat: bool) -> Opt {
    Opt { short, long, takes, repeat, refused: None }
}

const fn no(short: char, long: &'static str, takes: Takes, why: &'static str) -> Opt {
    Opt { short, long, takes, repeat: false, refused: Some(why) }
}

/// JMeter 5.6.3's options (`jmeter -?`), in its order.
pub(super) const OPTIONS: &[Opt] = &[
    opt('?', "?", Takes::Nothing, false),
    opt('h', "help", Takes::Nothing, false),
    opt('v', "version", Takes::Nothing, false),
    opt('p', "propfile", Takes::One, false),
    opt('q', "addprop", Takes::One, true),
    opt('t', "testfile", Takes::One, false),
    opt('l', "logfile", Takes::One, false),
    no('i', "jmeterlogconf", Takes::One, "stampede does not log through log4j2: give -j FILE for its messages"),
    opt('j', "jmeterlogfile", Takes::One, false),
    opt('n', "nongui", Takes::Nothing, false),
    no(
        's',
        "server",
        Takes::Nothing,
        "stampede's load generator for other machines is `stampede agent --listen HOST:PORT --token-file FILE`",
    ),
    no('E', "proxyScheme", Takes::One, PROXY),
    no('H', "proxyHost", Takes::One, PROXY),
    no('P', "proxyPort", Takes::One, PROXY),
    no('N', "nonProxyHosts", Takes::One, PROXY),
    no('u', "username", Takes::One, PROXY),
    no('a', "password", Takes::One, PROXY),
    opt('J', "jmeterproperty", Takes::Pair, true),
    opt('G', "globalproperty", Takes::Pair, true),
    opt('D', "systemproperty", Takes::Pair, true),
    opt('S', "systemPropertyFile", Takes::One, true),
    opt('f', "forceDeleteResultFile", Takes::Nothing, false),
    opt('L', "loglevel", Takes::Pair, true),
    opt('r', "runremote", Takes::Nothing, false),
    opt('R', "remotestart", Takes::One, false),
    opt('d', "homedir", Takes::One, false),
    opt('X', "remoteexit", Takes::Nothing, false),
    opt('g', "reportonly", Takes::One, false),
    opt('e', "reportatendofloadtests", Takes::Nothing, false),
    opt('o', "reportoutputfolder", Takes::One, false),
];

/// stampede's own option, which JMeter has not: JMeter runs an OS Process Sampler's command
/// unasked; stampede only when told.
pub(super) const ALLOW_COMMANDS: &str = "allow-commands";

/// The usage `-?` and `-h` print.
pub(crate) fn help() -> String {
    let mut s = String::from(
        "stampede jmeter: JMeter 5.6.3's non-GUI command line, run by stampede\n\n  \
         stampede jmeter -n -t PLAN.jmx [-l RESULTS.jtl] [-j LOG] [-J name=value]... [-e -o DIR]\n  \
         stampede jmeter -g RESULTS.jtl -o DIR\n\n\
         (a link named `jmeter` to the stampede binary takes the same options)\n\n",
    );
    for o in OPTIONS {
        let arg = match o.takes {
            Takes::Nothing => "",
            Takes::One => " <argument>",
            Takes::Pair => " <argument>=<value>",
        };
        let what = match o.refused {
            Some(why) => format!("refused: {why}"),
            None => meaning(o.short).to_string(),
        };
        s.push_str(&format!("  -{}, --{}{arg}\n      {what}\n", o.short, o.long));
    }
    s.push_str(&format!(
        "\nstampede's own:\n  --{ALLOW_COMMANDS}\n      let OS Process Samplers run their commands (without it each of their samples fails)\n"
    ));
    s
}

fn meaning(short: char) -> &'static str {
    match short {
        '?' | 'h' => "print this and exit",
        'v' => "print the version and exit",
        'p' => "a properties file for ${__P()} (JMeter's jmeter.properties)",
        'q' => "more properties files, read after -p",
        't' => "the plan (.jmx or stampede's YAML) to run",
        'l' => "write every sample to this JTL file (JMeter's CSV columns), appending unless -f; with agents, from the rows they send back",
        'j' => "stampede's messages go to this file too",
        'n' => "non-GUI mode: the only mode stampede has",
        'J' => "a property for ${__P()}",
        'G' => "a property on every agent (-R/-r) and here; or a properties file (-Gfile)",
        'D' => "a Java system property: accepted; nothing in stampede reads one",
        'S' => "a Java system properties file: accepted; nothing in stampede reads one",
        'f' => "delete the -l file and the -o folder before starting",
        'L' => "a log level: accepted; stampede has one log",
        'r' => "run on the agents of the property remote_hosts (default 127.0.0.1)",
        'R' => "run on these agents (`stampede agent`), HOST[:PORT],...; default port 7700",
        'd' => "JMeter's home: its bin/jmeter.properties and bin/user.properties are read",
        'X' => "accepted: agents end their job at the end of the run",
        'g' => "the HTML report of a JTL file into -o, without a run (not with -n, as in JMeter)",
        'e' => "the HTML report into -o after the run (needs -l, as in JMeter)",
        'o' => "the report's folder: new or empty (or -f), checked even without -e, as JMeter",
        _ => "",
    }
}
