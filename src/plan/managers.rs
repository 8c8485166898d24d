//! JMeter's HTTP managers as plan data: the HTTP Cache Manager, the HTTP Authorization Manager,
//! the DNS Cache Manager and the Cookie Manager's policy and cookies. What a request needs
//! ([`Managers`]) hangs on its [`super::RequestSpec`]; what a user keeps between requests
//! (cache slots, what each iteration clears) is on the [`super::Plan`] ([`PlanManagers`]).
//! The engine keeps the per-user state (`engine::managers`).

use super::Template;
use std::net::IpAddr;
use std::sync::Arc;

/// The managers in a sampler's scope (JMeter takes the innermost of each kind).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Managers {
    /// The HTTP Cache Manager: an index into [`PlanManagers::caches`].
    pub cache: Option<u32>,
    pub auth: Option<Arc<AuthSpec>>,
    pub dns: Option<Arc<DnsSpec>>,
    /// No Cookie Manager is in the request's scope (JMX), or the one that is ignores cookies:
    /// it neither sends the user's cookies nor stores the ones it gets, as JMeter's samplers
    /// outside every Cookie Manager.
    pub jarless: bool,
    /// The Cookie Manager in scope (an index into [`PlanManagers::cookie_managers`]): its own
    /// cookies and its policy. JMeter gives a sampler the innermost one; the managers of other
    /// thread groups are not its own.
    pub cookies: Option<u32>,
}

impl Managers {
    pub(crate) fn is_empty(&self) -> bool {
        self.cache.is_none() && self.auth.is_none() && self.dns.is_none()
    }
}

/// What a plan's users keep between requests and clear as iterations start.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PlanManagers {
    /// Every HTTP Cache Manager, each a cache per user.
    pub caches: Vec<CacheSpec>,
    /// Every Cookie Manager (JMX): its policy and the cookies it defines.
    pub cookie_managers: Vec<CookieSpec>,
    /// By scenario (its index in the plan): a user's jar is emptied (back to the managers' own
    /// cookies) as each of its iterations starts, as a Cookie Manager of its thread group (or of
    /// the test plan) with "Clear cookies each iteration" does. Absent: never.
    pub clear_cookies: Vec<bool>,
    /// A user's DNS cache (its resolved addresses) is emptied as each iteration starts.
    pub clear_dns: bool,
}

impl PlanManagers {
    /// Whether anything is cleared as an iteration starts.
    pub(crate) fn clears(&self) -> bool {
        self.clear_cookies.contains(&true) || self.clear_dns || self.caches.iter().any(|c| c.clear_each_iteration)
    }
}

/// An HTTP Cache Manager (JMeter's `CacheManager`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CacheSpec {
    /// A response fresh by `Expires` / `Cache-Control: max-age` is not requested again.
    pub use_expires: bool,
    /// The most entries a user's cache holds.
    pub max_size: usize,
    pub clear_each_iteration: bool,
}

/// A Cookie Manager: its policy and its own cookies, which its samplers send (unless the jar
/// holds one of the same name from a response).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CookieSpec {
    pub policy: CookiePolicy,
    pub cookies: Vec<UserCookie>,
}

impl PlanManagers {
    /// The policy of the Cookie Manager in a request's scope (`standard` when none is).
    pub(crate) fn cookie_policy(&self, m: &Managers) -> CookiePolicy {
        m.cookies.and_then(|i| self.cookie_managers.get(i as usize)).map_or(CookiePolicy::Standard, |c| c.policy)
    }

    /// The cookies the Cookie Manager in a request's scope defines.
    pub(crate) fn own_cookies(&self, m: &Managers) -> &[UserCookie] {
        m.cookies.and_then(|i| self.cookie_managers.get(i as usize)).map_or(&[], |c| &c.cookies[..])
    }
}

/// The Cookie Manager's policy (HC4CookieHandler's cookie specs).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum CookiePolicy {
    /// `standard` (RFC 6265, lax dates), and the policies that send the same header.
    #[default]
    Standard,
    /// `standard-strict`: a cookie whose `Expires` is not an RFC 1123 date is refused.
    Strict,
    /// `ignoreCookies`: nothing is stored or sent.
    Ignore,
}

/// A cookie the Cookie Manager defines.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct UserCookie {
    pub name: String,
    pub value: Template,
    pub domain: String,
    pub path: String,
    pub secure: bool,
    /// The domain was given (`Cookie.domain_specified`): subdomains match too.
    pub domain_specified: bool,
}

/// An HTTP Authorization Manager (JMeter's `AuthManager`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AuthSpec {
    /// In the manager's order: the first whose base URL starts the request's URL applies.
    pub entries: Vec<AuthEntry>,
}

/// One row of an Authorization Manager.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AuthEntry {
    pub url: Template,
    pub user: Template,
    pub password: Template,
    pub domain: Template,
    /// The realm the credentials are for; empty: any.
    pub realm: Template,
    /// Digest: answered to the server's challenge; else Basic, sent preemptively.
    pub digest: bool,
}

/// The value of the `Authorization` header HttpClient 4's BasicScheme sends for these
/// credentials: `Basic ` and the Base64 of `user:password`, the user written `DOMAIN\\user`
/// when a domain is given (an NTLM principal's name, its domain upper-cased), in US-ASCII
/// (other characters become `?`).
pub(crate) fn basic_credentials(user: &str, password: &str, domain: &str) -> String {
    use base64::Engine as _;
    let mut plain = String::new();
    if !domain.is_empty() {
        plain.push_str(&domain.to_uppercase());
        plain.push('\\');
    }
    plain.push_str(user);
    plain.push(':');
    plain.push_str(password);
    let ascii: Vec<u8> = plain.chars().map(|c| if c.is_ascii() { c as u8 } else { b'?' }).collect();
    format!("Basic {}", base64::engine::general_purpose::STANDARD.encode(ascii))
}

/// A DNS Cache Manager's static hosts table (JMeter's `DNSCacheManager.hosts`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DnsSpec {
    /// (name, addresses); a name with no usable address resolves to nothing.
    pub hosts: Vec<(String, Vec<IpAddr>)>,
}

impl DnsSpec {
    /// The table's addresses for `host`, or `None` when the table does not name it. As
    /// JMeter's DNSCacheManager: the name is found ignoring case, its addresses only under the
    /// exact spelling (otherwise none: the host does not resolve).
    pub(crate) fn lookup(&self, host: &str) -> Option<&[IpAddr]> {
        if !self.hosts.iter().any(|(n, _)| n.eq_ignore_ascii_case(host)) {
            return None;
        }
        Some(self.hosts.iter().find(|(n, _)| n == host).map_or(&[][..], |(_, a)| a.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn basic_credentials_as_httpclient_4() {
        assert_eq!(basic_credentials("Aladdin", "open sesame", ""), "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
        // base64("CORP\\bob:pw") and base64("b?b:p")
        assert_eq!(basic_credentials("bob", "pw", "corp"), "Basic Q09SUFxib2I6cHc=");
        assert_eq!(basic_credentials("b\u{e9}b", "p", ""), "Basic Yj9iOnA=");
    }

    #[test]
    fn the_hosts_table_matches_as_jmeter_does() {
        let ip: IpAddr = "127.0.0.1".parse().unwrap();
        let d = DnsSpec { hosts: vec![("api.example".into(), vec![ip])] };
        assert_eq!(d.lookup("api.example"), Some(&[ip][..]));
        assert_eq!(d.lookup("API.example"), Some(&[][..]), "found ignoring case, addresses only exactly");
        assert_eq!(d.lookup("other"), None);
    }
}
