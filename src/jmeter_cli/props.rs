//! JMeter's properties, read in JMeter's order, and the agents `-R`/`-r` name.

use super::options::AGENT_PORT;
use super::parse::{Invocation, Prop};
use super::Error;
use std::path::{Path, PathBuf};

/// Properties in the order JMeter reads them: the home's jmeter.properties (or -p), its
/// user.properties, each -q, then -J and -G in command-line order (an empty value removes).
/// `-G` applies here too: without agents it is what a user giving it means.
pub(super) fn local_properties(inv: &Invocation) -> Result<Vec<(String, String)>, Error> {
    let mut files: Vec<(PathBuf, bool)> = Vec::new();
    let bin = inv.home.as_ref().map(|h| h.join("bin"));
    match (&inv.propfile, &bin) {
        (Some(p), _) => files.push((p.clone(), true)),
        (None, Some(bin)) => files.push((bin.join("jmeter.properties"), false)),
        _ => {}
    }
    if let Some(bin) = &bin {
        files.push((bin.join("user.properties"), false));
    }
    files.extend(inv.addprops.iter().map(|p| (p.clone(), true)));
    let mut out: Vec<(String, String)> = Vec::new();
    for (f, needed) in files {
        match std::fs::read_to_string(&f) {
            Ok(text) => crate::plan::properties::parse(&text).into_iter().for_each(|(k, v)| put(&mut out, k, v)),
            Err(_) if !needed => {}
            Err(e) => return Err(Error(format!("cannot read properties file {}: {e}", f.display()))),
        }
    }
    for p in &inv.props {
        match p {
            Prop::Jmeter(k, v) | Prop::Global(k, v) => set(&mut out, k.clone(), v.clone()),
            Prop::GlobalFile(f) => global_file(f)?.into_iter().for_each(|(k, v)| put(&mut out, k, v)),
            Prop::System(..) => {}
        }
    }
    Ok(out)
}

/// What the agents get: only `-G`, as JMeter sends only its global properties to its servers.
pub(super) fn global_properties(inv: &Invocation) -> Result<Vec<(String, String)>, Error> {
    let mut out = Vec::new();
    for p in &inv.props {
        match p {
            Prop::Global(k, v) => set(&mut out, k.clone(), v.clone()),
            Prop::GlobalFile(f) => global_file(f)?.into_iter().for_each(|(k, v)| put(&mut out, k, v)),
            _ => {}
        }
    }
    Ok(out)
}

fn global_file(f: &Path) -> Result<Vec<(String, String)>, Error> {
    let text = std::fs::read_to_string(f)
        .map_err(|e| Error(format!("-G {}: cannot read the properties file: {e}", f.display())))?;
    Ok(crate::plan::properties::parse(&text))
}

/// Sets a property from the command line, later values winning; an empty value removes it, as
/// JMeter's `-Jname=` does.
fn set(props: &mut Vec<(String, String)>, k: String, v: String) {
    props.retain(|(n, _)| *n != k);
    if !v.is_empty() {
        props.push((k, v));
    }
}

/// Sets a property from a file, later values winning; `name=` is "", as Java's
/// `Properties.load` reads it (only `-J` removes).
fn put(props: &mut Vec<(String, String)>, k: String, v: String) {
    props.retain(|(n, _)| *n != k);
    props.push((k, v));
}

pub(super) fn property<'a>(props: &'a [(String, String)], name: &str) -> Option<&'a str> {
    props.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// `HOST[:PORT],...` as agents' addresses, the port defaulting to the agent's.
pub(super) fn agent_addresses(list: &str) -> Vec<String> {
    list.split(',')
        .map(str::trim)
        .filter(|h| !h.is_empty())
        .map(|h| {
            let has_port = match h.rsplit_once(':') {
                Some((host, port)) => port.parse::<u16>().is_ok() && (!host.contains(':') || host.ends_with(']')),
                None => false,
            };
            if has_port {
                h.to_string()
            } else {
                format!("{h}:{AGENT_PORT}")
            }
        })
        .collect()
}
