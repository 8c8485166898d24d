//! The extractors' helpers: finding values in a response or a variable and setting the user's
//! variables from them.

use super::{Fields, Response};
use crate::engine::session::UserVars;
use crate::plan::markup::XPathResult;
use crate::plan::sampler::http::{AllMatches, Extractor, JmesPath, JsonPathExpr, MatchGroups, Pattern};
use crate::plan::{ExtractSource, Field, VarId};
use rand::Rng;
use std::borrow::Cow;

/// What a text check reads: a part of the response, or a user's variable as it is now.
pub(super) fn subject<'s>(f: &'s mut Fields<'_, '_>, u: &'s UserVars, field: Field) -> &'s str {
    match field {
        Field::Var(v) => u.get(v),
        other => f.text(other),
    }
}

/// A JMeter assertion on an empty variable passes only when negated, whatever its patterns
/// (`ResponseAssertion`: "Not should always succeed against an empty result"); so does one on
/// empty request data (a sampler that sets none).
pub(super) fn empty_var(u: &UserVars, field: Field) -> bool {
    matches!(field, Field::Var(v) if u.get(v).is_empty() || u.is_unset(v))
}

/// A JSON value as a variable holds it: strings without quotes, anything else as JSON text.
pub(super) fn json_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The `n`th of `count` matches (1-based), or a random one for 0.
pub(super) fn choose(n: u32, count: usize, u: &mut UserVars) -> Option<usize> {
    match (n, count) {
        (_, 0) => None,
        (0, c) => Some(u.rng.random_range(0..c)),
        (n, c) => (n as usize <= c).then(|| n as usize - 1),
    }
}

/// Fills JMeter's regex template: `$N$` is group N (of `groups`, group 0 the whole match).
pub(super) fn fill(template: &str, groups: &[Option<&str>]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('$') {
            Some(j) if j > 0 && after[..j].bytes().all(|b| b.is_ascii_digit()) => {
                let g: usize = after[..j].parse().unwrap_or(usize::MAX);
                out.push_str(groups.get(g).copied().flatten().unwrap_or(""));
                rest = &after[j + 1..];
            }
            _ => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

pub(super) fn json_values<'v>(p: &JsonPathExpr, v: Option<&'v serde_json::Value>) -> Vec<Cow<'v, serde_json::Value>> {
    v.map(|v| p.values(v)).unwrap_or_default()
}

/// The values an XPath Extractor's query finds in the body.
fn xpath_values(x: &crate::plan::sampler::http::XPathExpr, f: &mut Fields<'_, '_>) -> Vec<Option<String>> {
    match x.eval(f.text(Field::Body)) {
        Ok(XPathResult::Nodes(v)) => v,
        Ok(XPathResult::Boolean(b)) => vec![Some(b.to_string())],
        Ok(XPathResult::Other(s)) => vec![Some(s)],
        // JMeter logs it and leaves the default; the sample stays successful.
        Err(_) => Vec::new(),
    }
}

/// Every value an extractor's source finds, in order. `None` is a match JMeter sets no
/// variable for (an XPath element whose first child is not text).
pub(super) fn found_all(
    source: &ExtractSource,
    f: &mut Fields<'_, '_>,
    resp: &Response<'_>,
    u: &mut UserVars,
) -> Vec<Option<String>> {
    match source {
        ExtractSource::Json(p) => json_values(p, f.json()).iter().map(|v| Some(json_text(v))).collect(),
        ExtractSource::JsonRunTime(p) => match &p.compiled(p.src.render_string(u)).1 {
            Ok(p) => json_values(p, f.json()).iter().map(|v| Some(json_text(v))).collect(),
            // JMeter logs the error and sets the default.
            Err(_) => Vec::new(),
        },
        ExtractSource::Regex { regex, template, from } => {
            regex.captures_all(f.text(*from)).iter().map(|g| Some(fill(template, g))).collect()
        }
        ExtractSource::RegexRunTime { regex, template, from } => match &regex.compiled(regex.src.render_string(u)).1 {
            Ok(regex) => regex.captures_all(f.text(*from)).iter().map(|g| Some(fill(template, g))).collect(),
            // JMeter logs "Error in pattern" and leaves the default.
            Err(_) => Vec::new(),
        },
        ExtractSource::XPath(x) => xpath_values(x, f),
        ExtractSource::XPathRunTime(x) => match &x.compiled(x.src.render_string(u)).1 {
            Ok(x) => xpath_values(x, f),
            // JMeter logs the query's error and leaves the default; the sample stays successful.
            Err(_) => Vec::new(),
        },
        ExtractSource::Css(c) => c.values(f.text(Field::Body)).into_iter().map(Some).collect(),
        ExtractSource::CssRunTime(c, attribute) => {
            match &c.compiled(format!("{}\0{}", c.src.render_string(u), attribute.render_string(u))).1 {
                Ok(c) => c.values(f.text(Field::Body)).into_iter().map(Some).collect(),
                // JSoup's parse error is logged by JMeter; the default stays.
                Err(_) => Vec::new(),
            }
        }
        ExtractSource::Header(name) => resp.headers_named(name).map(|v| Some(v.to_string())).collect(),
        ExtractSource::Cookie(name) => resp.cookie(name).map(|v| Some(v.to_string())).into_iter().collect(),
        ExtractSource::Invalid(_)
        | ExtractSource::Throws(_)
        | ExtractSource::JsonPlugin(_)
        | ExtractSource::JmesPath { .. }
        | ExtractSource::FromVar { .. } => Vec::new(),
    }
}

/// The value an extractor scoped to a variable reads; `None` when it is unset: JMeter's
/// extractors log "No variable ... found ..., skipping processing" and find no match, so the
/// default applies (matching `""` would let `(.*)` or `^$` set it to `""`).
pub(super) fn scoped_text(u: &UserVars, var: crate::plan::VarId) -> Option<String> {
    (!u.is_unset(var)).then(|| u.get(var).to_string())
}

/// The fields of a variable's value, for an extractor scoped to it: the value is the body.
pub(super) fn var_fields<'r, 'a>(resp: &'r Response<'a>, text: String) -> Fields<'r, 'a> {
    Fields {
        resp,
        sent: &[],
        request_headers: None,
        request_data: None,
        url: "",
        limit: u64::MAX,
        body: Some(Cow::Owned(text)),
        exact: true,
        too_large: false,
        _decoding: None,
        unescaped: None,
        headers: None,
        json: None,
        status: String::new(),
    }
}

/// jmeter-plugins' JSON Path Extractor: a single value into the name (the list left alone);
/// an array whole into the name and its items into the list; nothing (or an empty array): the
/// default, and an empty list.
pub(super) fn plugin_json(p: &JsonPathExpr, e: &Extractor, all: &AllMatches, f: &mut Fields<'_, '_>, u: &mut UserVars) {
    let read = f.json().and_then(|v| p.read(v));
    match read {
        Some(serde_json::Value::Array(items)) if !items.is_empty() => {
            u.set(e.var, &json_text(&serde_json::Value::Array(items.clone())));
            set_list(all, items.iter().map(|v| Some(json_text(v))).collect(), u);
        }
        Some(v) if !v.is_array() => u.set(e.var, &json_text(&v)),
        _ => {
            set_default(e, u);
            set_list(all, Vec::new(), u);
        }
    }
}

/// Sets the extractor's default, as rendered now, unless its rule leaves the variable as it
/// was for what it rendered (a Regular Expression Extractor's `${maybe}` that is empty).
pub(super) fn set_default(e: &Extractor, u: &mut UserVars) {
    if let Some(d) = &e.default {
        let v = d.render_string(u);
        if e.empty_default.sets(&v) {
            u.set(e.var, &v);
        }
    }
}

/// A match of a Regular Expression Extractor: what its template makes, and each group
/// (`None` for one that took no part).
type RegexMatch = (String, Vec<Option<String>>);

/// Each match of a Regular Expression Extractor's source, in order; `None` when a pattern
/// compiled per sample does not compile (JMeter logs it and touches nothing but the default).
fn regex_matches(
    source: &ExtractSource,
    f: &mut Fields<'_, '_>,
    resp: &Response<'_>,
    u: &mut UserVars,
) -> Option<Vec<RegexMatch>> {
    fn owned(p: &Pattern, template: &str, text: &str) -> Vec<RegexMatch> {
        let caps = p.captures_all(text);
        caps.iter().map(|g| (fill(template, g), g.iter().map(|s| s.map(str::to_string)).collect())).collect()
    }
    match source {
        ExtractSource::FromVar { var, source } => match scoped_text(u, *var) {
            Some(text) => regex_matches(source, &mut var_fields(resp, text), resp, u),
            None => Some(Vec::new()),
        },
        ExtractSource::Regex { regex, template, from } => Some(owned(regex, template, f.text(*from))),
        ExtractSource::RegexRunTime { regex, template, from } => match &regex.compiled(regex.src.render_string(u)).1 {
            Ok(p) => Some(owned(p, template, f.text(*from))),
            Err(_) => None,
        },
        // A pattern that did not compile when the plan loaded: JMeter's "Error in pattern".
        _ => None,
    }
}

/// JMeter's `saveGroups`: `name_gK` for each group of the match (a group that took no part
/// unset, as JMeter's null), `name_g` their number, group 0 aside, and the groups of an
/// earlier match beyond this one's unset.
fn save_groups(g: &MatchGroups, groups: &[Option<String>], u: &mut UserVars) {
    let previous = u.get(g.count).parse::<usize>().unwrap_or(0);
    for (var, value) in g.groups.iter().zip(groups) {
        match value {
            Some(v) => u.set(*var, v),
            None => u.unset(*var),
        }
    }
    u.set(g.count, &groups.len().saturating_sub(1).to_string());
    for var in g.groups.iter().take(previous + 1).skip(groups.len()) {
        u.unset(*var);
    }
}

/// JMeter's `removeGroups`: unsets `name_g` and `name_g0`.. up to the number it held.
pub(super) fn remove_groups(g: &MatchGroups, u: &mut UserVars) {
    let n = u.get(g.count).parse::<usize>().unwrap_or(0);
    u.unset(g.count);
    for var in g.groups.iter().take(n + 1) {
        u.unset(*var);
    }
}

/// A single-match Regular Expression Extractor whose groups the plan reads: the default
/// first (as JMeter puts it before matching), what an earlier match number -1 extractor into
/// the same name left removed, then the match and its groups, or the groups removed.
/// Returns whether a match was found.
pub(super) fn regex_single(
    e: &Extractor,
    g: &MatchGroups,
    f: &mut Fields<'_, '_>,
    resp: &Response<'_>,
    u: &mut UserVars,
) -> bool {
    set_default(e, u);
    let Some(mut matches) = regex_matches(&e.source, f, resp, u) else { return false };
    if let Some(list) = &g.list {
        if !u.is_unset(list.count) {
            let before = u.get(list.count).parse::<usize>().unwrap_or(0);
            u.unset(list.count);
            for (i, var) in list.vars.iter().enumerate().take(before) {
                u.unset(*var);
                for (_, per_match) in &list.groups {
                    if let Some(v) = per_match.get(i) {
                        u.unset(*v);
                    }
                }
            }
        }
    }
    match choose(e.match_no, matches.len(), u) {
        Some(i) => {
            let (value, groups) = matches.swap_remove(i);
            u.set(e.var, &value);
            save_groups(g, &groups, u);
            true
        }
        None => {
            remove_groups(g, u);
            false
        }
    }
}

/// JMeter's `JMESPathExtractor.process`: `name_matchNr` and the `name_i` set are removed first;
/// a blank text, one that is not JSON or a failed search sets the default only; nothing found
/// (null, an empty array) the default and a count of 0; one value goes to the name (`name_1`
/// with -1) whatever the match number; several, to the one it picks, or all with -1.
pub(super) fn jmespath_extract(p: &JmesPath, count: VarId, e: &Extractor, text: Option<&str>, u: &mut UserVars) {
    u.unset(count);
    if let Some(all) = &e.all {
        for v in all.vars.iter().take_while(|v| !u.is_unset(**v)).copied().collect::<Vec<_>>() {
            u.unset(v);
        }
    }
    let default = |u: &mut UserVars| {
        let v = e.default.as_ref().map(|d| d.render_string(u)).unwrap_or_default();
        u.set(e.var, &v);
    };
    let found = match text.filter(|t| !t.trim().is_empty()).map(|t| p.search(t)) {
        Some(Ok(found)) => found,
        _ => return default(u),
    };
    let values: Vec<String> = match found.as_array() {
        Some(items) => items.iter().map(|v| JmesPath::text(v)).collect(),
        None if found.is_null() => Vec::new(),
        None => vec![JmesPath::text(&found)],
    };
    let n = values.len();
    if n == 0 {
        default(u);
        u.set(count, "0");
        return;
    }
    match &e.all {
        Some(all) => {
            for (var, v) in all.vars.iter().zip(&values) {
                u.set(*var, v);
            }
        }
        None if n == 1 => u.set(e.var, &values[0]),
        None => match choose(e.match_no, n, u) {
            Some(i) => u.set(e.var, &values[i]),
            None => default(u),
        },
    }
    u.set(count, &n.to_string());
}

/// Sets `name_1`.. and `name_matchNr` (and `name_ALL`) from the values kept; a `None` leaves
/// its variable. The matches of an earlier response beyond this one's count are unset
/// (JMeter removes them, up to the `name_matchNr` it had set).
pub(super) fn set_list(all: &AllMatches, values: Vec<Option<String>>, u: &mut UserVars) {
    let n = values.len().min(all.vars.len());
    // JMeter's previous count: 0 when unset or not a number.
    let before = u.get(all.count).parse::<usize>().unwrap_or(0);
    u.set(all.count, &n.to_string());
    if let Some(concat) = all.concat {
        let joined: Vec<&str> = values.iter().map(|v| v.as_deref().unwrap_or("")).collect();
        u.set(concat, &joined.join(","));
    }
    for (i, var) in all.vars.iter().enumerate().take(n.max(before)) {
        match values.get(i) {
            Some(Some(v)) => u.set(*var, v),
            Some(None) => {}
            None => u.unset(*var),
        }
    }
}

/// Sets `name_i_gK` of each group a regular expression extractor keeps per match (for a RegEx
/// User Parameters); a match not found, or a group it did not take part in, is empty.
pub(super) fn set_groups(all: &AllMatches, source: &ExtractSource, f: &mut Fields<'_, '_>, u: &mut UserVars) {
    let ExtractSource::Regex { regex, from, .. } = source else { return };
    if all.groups.is_empty() {
        return;
    }
    let caps = regex.captures_all(f.text(*from));
    for (g, vars) in &all.groups {
        for (i, var) in vars.iter().enumerate() {
            u.set(*var, caps.get(i).and_then(|c| c.get(*g).copied().flatten()).unwrap_or(""));
        }
    }
}
