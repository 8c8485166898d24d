//! [`Jar`]: one user's cookies (RFC 6265's storage model, as JMeter's Cookie Manager keeps them).
//!
//! A flat list rather than `cookie_store::CookieStore`'s map of domains to maps of paths to
//! maps of names: a user holds a handful of cookies, often one, and the store's three levels
//! of hash tables cost ~1.7 KB for a single cookie, in every user of the run, where the list
//! costs the cookie. Parsing and matching (domain, path, `Secure`, `HttpOnly`, expiry) are
//! `cookie_store::Cookie`'s own; only the storing is here.

use cookie_store::{Cookie, CookieError};
use url::Url;

/// The cookies, longest path first and, among equal paths, oldest first: the order they are
/// sent in (RFC 6265 5.4, HttpClient 4's `CookiePriorityComparator` in JMeter), so finding
/// the ones to send allocates nothing. A cookie's identity is its domain, path and name.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Jar {
    cookies: Vec<Cookie<'static>>,
}

impl Jar {
    /// Stores the cookie a `Set-Cookie` value sets, received from `url` (RFC 6265 5.3, as
    /// `CookieStore::parse`): one of another domain, or expired, is refused; an expired one
    /// with the identity of a stored one expires it.
    pub(crate) fn parse(&mut self, set_cookie: &str, url: &Url) -> Result<(), CookieError> {
        let cookie = Cookie::parse(set_cookie, url)?.into_owned();
        let http = url.scheme().starts_with("http");
        if cookie.http_only().unwrap_or(false) && !http {
            return Err(CookieError::NonHttpScheme);
        }
        if !cookie.domain.matches(url) {
            return Err(CookieError::DomainMismatch);
        }
        if cookie.domain.as_cow().is_none() {
            return Err(CookieError::UnspecifiedDomain);
        }
        if let Some(old) = self.position(&cookie).map(|i| &mut self.cookies[i]).filter(|c| !c.is_expired()) {
            if old.http_only().unwrap_or(false) && !http {
                return Err(CookieError::NonHttpScheme);
            }
            if cookie.is_expired() {
                old.expire();
                return Ok(());
            }
        }
        if cookie.is_expired() {
            return Err(CookieError::Expired);
        }
        self.put(cookie);
        Ok(())
    }

    /// Stores `cookie` as it is: in place of the one of the same identity (which keeps its
    /// place, as the new one keeps the old one's creation time: RFC 6265 5.3 step 11.3), else
    /// after every cookie of a path at least as long.
    pub(crate) fn put(&mut self, cookie: Cookie<'static>) {
        if let Some(i) = self.position(&cookie) {
            self.cookies[i] = cookie;
            return;
        }
        // Room for this one only when the jar is empty: most users only ever hold one or two
        // cookies, and a first push would make room for four of ~240 bytes.
        if self.cookies.is_empty() {
            self.cookies.reserve_exact(1);
        }
        let at = self.cookies.partition_point(|c| c.path.len() >= cookie.path.len());
        self.cookies.insert(at, cookie);
    }

    /// Removes the cookie of `cookie`'s identity, if there is one.
    pub(crate) fn remove(&mut self, cookie: &Cookie<'static>) {
        if let Some(i) = self.position(cookie) {
            self.cookies.remove(i);
        }
    }

    fn position(&self, cookie: &Cookie<'_>) -> Option<usize> {
        self.cookies.iter().position(|c| same(c, cookie))
    }

    /// The (name, value) of each unexpired cookie `url` gets, in the order they are sent.
    pub(crate) fn get_request_values<'a>(&'a self, url: &'a Url) -> impl Iterator<Item = (&'a str, &'a str)> + 'a {
        self.cookies.iter().filter(|c| !c.is_expired() && c.matches(url)).map(|c| c.name_value())
    }

    /// Every cookie, expired ones included.
    pub(crate) fn iter_any(&self) -> impl Iterator<Item = &Cookie<'static>> {
        self.cookies.iter()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.cookies.is_empty()
    }
}

/// Whether `a` and `b` are the same cookie: domain, path and name (`CookieStore`'s keys).
pub(crate) fn same(a: &Cookie<'_>, b: &Cookie<'_>) -> bool {
    a.name() == b.name() && *a.path == *b.path && a.domain.as_cow() == b.domain.as_cow()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(u: &str) -> Url {
        Url::parse(u).unwrap()
    }

    /// A jar holding what each `Set-Cookie` value sets, received from `at`.
    fn filled(at: &str, set: &[&str]) -> Jar {
        let mut jar = Jar::default();
        for c in set {
            jar.parse(c, &url(at)).unwrap();
        }
        jar
    }

    fn sent(jar: &Jar, u: &str) -> Vec<String> {
        let u = url(u);
        jar.get_request_values(&u).map(|(k, v)| format!("{k}={v}")).collect()
    }

    #[test]
    fn a_cookie_is_sent_back_by_domain_and_path_longest_path_first() {
        let set = ["a=1; Path=/", "b=2; Path=/cart", "c=3; Path=/", "d=4; Domain=example.com; Path=/cart/items"];
        let jar = filled("http://shop.example.com/cart/items", &set);
        assert_eq!(sent(&jar, "http://shop.example.com/cart/items/1"), ["d=4", "b=2", "a=1", "c=3"]);
        assert_eq!(sent(&jar, "http://shop.example.com/"), ["a=1", "c=3"]);
        assert_eq!(sent(&jar, "http://www.example.com/cart/items"), ["d=4"], "only the domain cookie");
        assert!(sent(&jar, "http://other.org/").is_empty());
    }

    #[test]
    fn a_cookie_of_the_same_name_domain_and_path_replaces_the_old_in_its_place() {
        let jar = filled("http://h/", &["a=1", "b=1", "a=2"]);
        assert_eq!(sent(&jar, "http://h/"), ["a=2", "b=1"]);
        assert_eq!(jar.iter_any().count(), 2);
    }

    #[test]
    fn an_expired_cookie_expires_the_stored_one_and_is_not_stored_itself() {
        let mut jar = filled("http://h/", &["a=1", "a=; Max-Age=0"]);
        assert!(sent(&jar, "http://h/").is_empty());
        assert!(jar.parse("z=1; Max-Age=0", &url("http://h/")).is_err());
        assert_eq!(jar.iter_any().count(), 1, "the expired one stays, as in cookie_store");
    }

    #[test]
    fn a_cookie_for_another_domain_and_a_secure_one_over_http_are_refused_or_withheld() {
        let mut jar = Jar::default();
        assert!(jar.parse("a=1; Domain=other.org", &url("http://h.example.com/")).is_err());
        jar.parse("s=1; Secure", &url("https://h.example.com/")).unwrap();
        assert!(sent(&jar, "http://h.example.com/").is_empty());
        assert_eq!(sent(&jar, "https://h.example.com/"), ["s=1"]);
    }

    /// One cookie costs its own size, not a table of four.
    #[test]
    fn a_jar_of_one_cookie_holds_room_for_one() {
        let jar = filled("http://127.0.0.1/", &["SID=s-1; Path=/"]);
        assert_eq!(jar.cookies.capacity(), 1);
    }
}
