//! The HTML Link Parser's step (`AnchorModifier.process`): a link or form of the user's previous
//! HTTP page, drawn among those that match the sampler that follows, becomes that sampler's URL;
//! the Spider PreProcessor's, the next one its user has not followed yet.

use super::super::scripting::SamplerEdits;
use super::super::user::VirtualUser;
use crate::plan::anchor::{candidates, Anchor, Compiled, Spider, Thrown};
use rand::Rng;

impl VirtualUser {
    /// Changes nothing when the sampler is not an HTTP one, the previous sample is none or not
    /// an HTTP one, or nothing on its page matches (JMeter logs it and goes on). `Err`: a
    /// pattern of the sampler that does not compile was reached, and the sampler is skipped.
    /// `Ok(false)`: a Spider PreProcessor has no link left to follow: the sampler goes as it is,
    /// then the run stops.
    pub(in crate::engine) fn anchor_op(&mut self, a: &Anchor) -> Result<bool, Thrown> {
        let Some(s) = &a.sampler else { return Ok(true) };
        let Some(prev) = self.session.last_sample.as_deref().filter(|p| p.http) else { return Ok(true) };
        let Ok(page) = url::Url::parse(&prev.url) else { return Ok(true) };
        let html = String::from_utf8_lossy(&prev.data);
        let path = s.path.render_string(&mut self.session.vars);
        let values: Vec<String> = s.args.iter().map(|a| a.value.render_string(&mut self.session.vars)).collect();
        let path = s.path_pattern(&path);
        let pick = match a.spider {
            Some(id) => {
                let spiders = &mut self.plan.spiders;
                let at = match spiders.iter().position(|(i, _)| *i == id) {
                    Some(at) => at,
                    None => {
                        spiders.push((id, Spider::default()));
                        spiders.len() - 1
                    }
                };
                let spider = &mut spiders[at].1;
                spider.offer(candidates(&html, &page), |c| s.matches(c, &path))?;
                match spider.follow() {
                    Some(c) => c,
                    None => return Ok(false),
                }
            }
            None => {
                let mut found = Vec::new();
                for c in candidates(&html, &page) {
                    if s.matches(&c, &path)? {
                        found.push(c);
                    }
                }
                if found.is_empty() {
                    return Ok(true);
                }
                found.swap_remove(self.session.vars.rng.random_range(0..found.len()))
            }
        };
        let rng = &mut self.session.vars.rng;
        let args_set = if pick.form {
            // `modifyArgument`: each of the sampler's arguments takes the name and value of one
            // of the form's that matches it (drawn, then used up), or stays as it is.
            let mut pool = pick.args;
            s.args
                .iter()
                .zip(values)
                .map(|(a, v)| {
                    let n = a.name.text().to_string();
                    let value = Compiled::whole(&v);
                    let fits: Vec<usize> = (0..pool.len())
                        .filter(|&i| {
                            a.name.equal_or_matches(&pool[i].0)
                                && value.equal_or_matches(pool[i].1.as_deref().unwrap_or(""))
                        })
                        .collect();
                    let enc = a.encoded;
                    if fits.is_empty() {
                        return (n, Some(v), enc);
                    }
                    let (name, value) = pool.remove(fits[rng.random_range(0..fits.len())]);
                    (name, value, enc)
                })
                .collect()
        } else {
            // `parseArguments`: sent as written in the link.
            pick.args.into_iter().map(|(n, v)| (n, v, true)).collect()
        };
        let mut edits = self.session.sampler_edits.take().map(|b| *b).unwrap_or_default();
        edits.domain = Some(pick.domain);
        edits.path = Some(pick.path);
        edits.protocol = Some(pick.protocol);
        edits.args_set = Some(args_set);
        self.session.sampler_edits = Some(Box::<SamplerEdits>::new(edits));
        Ok(true)
    }
}
