//! The options that say how a plan file is read, shared by `run` and `check`: JMeter's `-J`
//! and `-p` properties, `--set` text replacements, and `--skip-unsupported`.

use crate::error::Error;
use crate::plan::LoadOptions;
use clap::Args;
use std::path::PathBuf;

#[derive(Debug, Args, Default, Clone)]
pub(crate) struct PlanArgs {
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
    pub(crate) fn load_options(&self) -> Result<LoadOptions, Error> {
        let (files, resolved) = (&self.property_files, &self.resolved_properties);
        Ok(LoadOptions {
            skip_unsupported: self.skip_unsupported,
            strict: self.strict,
            allow_commands: self.allow_commands,
            properties: crate::plan::properties::resolve(files, resolved, &self.properties)
                .map_err(|e| Error::Usage(e.to_string()))?,
            replacements: self.replacements.clone(),
            ..Default::default()
        })
    }
}
