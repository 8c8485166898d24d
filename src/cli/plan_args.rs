//! The options that say how a plan file is read, shared by `run` and `check`: JMeter's `-J`
//! and `-p` properties, `--set` text replacements, and `--skip-unsupported`.

use crate::error::Error;
use crate::plan::LoadOptions;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Default, Clone)]
pub struct PlanArgs {
    /// A property for `${__P(name,default)}` in the plan (repeatable), as JMeter's -J.
    #[arg(short = 'J', value_name = "NAME=VALUE", value_parser = super::parse_key_value)]
    pub properties: Vec<(String, String)>,
    /// A properties file (`name=value` lines), as JMeter's -p; -J values win over it.
    #[arg(short = 'p', long = "propfile", value_name = "FILE")]
    pub property_files: Vec<PathBuf>,
    /// Replace the literal text TOKEN by VALUE in the plan file before reading it
    /// (repeatable), for plans with placeholders that scripts used to fill with sed.
    #[arg(long = "set", value_name = "TOKEN=VALUE", value_parser = super::parse_key_value)]
    pub replacements: Vec<(String, String)>,
    /// JMX: run without the elements stampede cannot run (scripts), instead of refusing.
    #[arg(long)]
    pub skip_unsupported: bool,
    /// JMX: refuse what JMeter loads but that goes wrong at run time (a sampler whose every
    /// sample fails, an undefined variable read as 0...), which otherwise is a warning; for CI.
    #[arg(long)]
    pub strict: bool,
    /// JMX: let OS Process Samplers run their commands on this machine. Without it each of
    /// their samples fails unrun, so that a plan from elsewhere runs no command unasked.
    #[arg(long)]
    pub allow_commands: bool,
    /// Properties already resolved in their order (`stampede jmeter`'s files and `-J`): set as
    /// they are, before `-J`, an empty one kept as "".
    #[arg(skip)]
    pub resolved_properties: Vec<(String, String)>,
}

impl PlanArgs {
    pub fn load_options(&self) -> Result<LoadOptions, Error> {
        let mut opts = LoadOptions {
            skip_unsupported: self.skip_unsupported,
            strict: self.strict,
            allow_commands: self.allow_commands,
            ..Default::default()
        };
        for f in &self.property_files {
            let text = std::fs::read_to_string(f)
                .map_err(|e| Error::Usage(format!("cannot read properties file {}: {e}", f.display())))?;
            opts.properties.extend(crate::plan::properties::parse(&text));
        }
        opts.properties.extend(self.resolved_properties.iter().cloned());
        for (name, value) in &self.properties {
            // JMeter's `-Jname=` removes the property ("Removing JMeter property"): `__P`
            // then reads its default, where one set to "" in a properties file reads "".
            match value.is_empty() {
                true => opts.properties.remove(name),
                false => opts.properties.insert(name.clone(), value.clone()),
            };
        }
        opts.replacements = self.replacements.clone();
        Ok(opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// JMeter 5.6.3: `-Jempty=` removes the property (`${__P(empty,def)}` is `def`), a later
    /// `-J` sets it again; `empty=` in a properties file sets it to "" (`__P` reads "").
    #[test]
    fn an_empty_j_value_removes_the_property_as_jmeter() {
        let dir = std::env::temp_dir().join(format!("stampede-props-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("user.properties");
        std::fs::write(&file, "empty=\nkept=\ngone=1\n").unwrap();
        let kv = |k: &str, v: &str| (k.to_string(), v.to_string());
        let args = PlanArgs {
            properties: vec![kv("gone", ""), kv("again", "1"), kv("again", ""), kv("again", "2"), kv("unset", "")],
            property_files: vec![file],
            ..Default::default()
        };
        let props = args.load_options().unwrap().properties;
        std::fs::remove_dir_all(&dir).unwrap();
        let want: std::collections::HashMap<_, _> = [kv("empty", ""), kv("kept", ""), kv("again", "2")].into();
        assert_eq!(props, want);
    }
}
