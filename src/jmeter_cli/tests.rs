use super::parse::Prop;
use super::props::{agent_addresses, global_properties, local_properties};
use super::*;

fn args(s: &str) -> Vec<String> {
    s.split_whitespace().map(String::from).collect()
}

#[test]
fn jmeter_forms_of_options_read_as_jmeter_reads_them() {
    let inv = parse(&args(
        "-nt plan.jmx -lout.jtl --jmeterproperty=a=1 -J b=2 -J c 3 -Jd= -Gg=4 -Gglobal.properties -Dx=y -Ljmeter=DEBUG -L INFO -q one -q two -X -f -e -o rep",
    ))
    .unwrap();
    assert_eq!(inv.plan, Some(PathBuf::from("plan.jmx")));
    assert_eq!(inv.results, Some(PathBuf::from("out.jtl")));
    assert_eq!(
        inv.props,
        vec![
            Prop::Jmeter("a".into(), "1".into()),
            Prop::Jmeter("b".into(), "2".into()),
            Prop::Jmeter("c".into(), "3".into()),
            Prop::Jmeter("d".into(), "".into()),
            Prop::Global("g".into(), "4".into()),
            Prop::GlobalFile("global.properties".into()),
            Prop::System("x".into(), "y".into()),
        ]
    );
    assert_eq!(inv.log_levels, vec!["jmeter=DEBUG".to_string(), "INFO".to_string()]);
    assert_eq!(inv.addprops.len(), 2);
    assert!(inv.force && inv.report_at_end && inv.report_dir == Some(PathBuf::from("rep")));
}

/// stampede's own `--allow-commands` is taken beside JMeter's options; JMeter has no such.
#[test]
fn allow_commands_is_stampedes_own_option() {
    assert!(parse(&args("-n -t p.jmx --allow-commands")).unwrap().allow_commands);
    assert!(!parse(&args("-n -t p.jmx")).unwrap().allow_commands);
    assert!(help().contains("--allow-commands"));
}

#[test]
fn unknown_refused_and_duplicate_options_are_errors_naming_the_option() {
    let err = |s: &str| parse(&args(s)).unwrap_err().to_string();
    assert!(err("-n -t p.jmx -Z").contains("unknown option -Z"), "{}", err("-Z"));
    assert!(err("--bogus").contains("unknown option --bogus"));
    assert!(err("-H proxy -P 8080").contains("-H/--proxyHost is not available"));
    assert!(err("-s").contains("stampede agent"));
    assert!(err("-t a.jmx -t b.jmx").contains("duplicate options for -t/--testfile"));
    assert!(err("-n plan.jmx").contains("unexpected argument `plan.jmx`"));
    assert!(err("-t").contains("-t/--testfile needs a value"));
}

/// As JMeter 5.6.3's CLArgsParser: -G and -L take a second word as -J does, one `=` after a
/// short option is skipped, and LAST (the GUI's last plan) is refused by name.
#[test]
fn g_and_l_take_two_words_an_attached_equals_is_skipped_and_last_is_refused() {
    let inv =
        parse(&args("-G name value -L jmeter.util DEBUG -L INFO -Gfile.properties -t=plan.jmx -l==x.jtl")).unwrap();
    assert_eq!(
        inv.props,
        vec![Prop::Global("name".into(), "value".into()), Prop::GlobalFile("file.properties".into())]
    );
    assert_eq!(inv.log_levels, vec!["jmeter.util=DEBUG".to_string(), "INFO".to_string()]);
    assert_eq!(inv.plan, Some(PathBuf::from("plan.jmx")));
    assert_eq!(inv.results, Some(PathBuf::from("=x.jtl")));
    assert_eq!(parse(&args("-t =x.jmx")).unwrap().plan, Some(PathBuf::from("=x.jmx")));
    for last in ["-t LAST", "-l LAST", "-lLAST.jtl", "-j LAST.log"] {
        let e = parse(&args(last)).unwrap_err().to_string();
        assert!(e.contains("LAST") && e.contains("no GUI"), "{last}: {e}");
    }
}

#[test]
fn later_properties_win_and_an_empty_value_removes() {
    let inv = parse(&args("-Ja=1 -Jb=2 -Ja=3 -Jb= -Gc=4")).unwrap();
    assert_eq!(
        local_properties(&inv).unwrap(),
        vec![("a".to_string(), "3".to_string()), ("c".to_string(), "4".to_string())]
    );
    assert_eq!(global_properties(&inv).unwrap(), vec![("c".to_string(), "4".to_string())]);
}

/// JMeter 5.6.3 with `-q` holding `h=`: `${__P(h,dflt)}` is "" (sent `/p/`); only `-J h=`
/// removes it.
#[test]
fn an_empty_value_in_a_properties_file_is_kept_as_empty() {
    let dir = std::env::temp_dir().join(format!("stampede-jmeter-props-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let q = dir.join("q.properties");
    std::fs::write(&q, "h=\ngone=1\n").unwrap();
    let g = dir.join("g.properties");
    std::fs::write(&g, "gh=\n").unwrap();
    let inv =
        parse(&["-q".into(), q.display().to_string(), "-Jgone=".into(), "-G".into(), g.display().to_string()]).unwrap();
    let kv = |k: &str| (k.to_string(), String::new());
    assert_eq!(local_properties(&inv).unwrap(), vec![kv("h"), kv("gh")]);
    assert_eq!(global_properties(&inv).unwrap(), vec![kv("gh")]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn remote_hosts_get_the_agent_port_when_they_name_none() {
    assert_eq!(
        agent_addresses("h1, 10.0.0.2:9000,[::1],[::1]:8000"),
        vec!["h1:7700", "10.0.0.2:9000", "[::1]:7700", "[::1]:8000"]
    );
}
