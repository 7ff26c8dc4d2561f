//! The cookie commands, confined (DESIGN.md §21): reads (`Network.getCookies`,
//! `Network.getAllCookies`, `Storage.getCookies`) answer only cookies of sites the agent may
//! open, each value hidden ([`cookie_mask::HIDDEN`]) unless the agent set that cookie through
//! the door; writes (`Network.setCookie(s)`, `Storage.setCookies`, `Network.deleteCookies`) pass
//! only for sites it may open, all of a call or none of it, and what it set is recorded
//! ([`set_cookies`]). The agent's sites are looked up on the session at each command, so an
//! owner's change applies at once.
//!
//! A refused write changes nothing: the whole call is refused before anything is sent.

use serde_json::{json, Value};
use url::Url;

use super::allow::CookieCall;
use super::cookie_mask;
use super::door::Door;
use super::set_cookies::{self, CookieKey};
use super::wire::{self, failure, Failure, FORWARD_DEADLINE, SERVER_ERROR};
use crate::sites::SiteRefusal;

/// Runs the cookie command `method` with `params` for the client of `door`, on its flat
/// session `session` (None: at browser level); `Err` is what the client reads.
pub(super) async fn run(
    door: &Door,
    call: CookieCall,
    method: &str,
    params: &Value,
    session: Option<&str>,
) -> Result<Value, Failure> {
    let mut params = params.clone();
    if method.starts_with("Storage.") {
        no_other_context(&mut params)?;
    }
    match call {
        CookieCall::Read => {
            let mut result = send(door, method, params, session).await?;
            if let Some(cookies) = result["cookies"].as_array_mut() {
                let agent = door.entry.actor.id();
                cookies.retain(|c| allowed(door, c["domain"].as_str().unwrap_or_default()).is_ok());
                for cookie in cookies.iter_mut() {
                    cookie_mask::mask_cookie(agent, cookie);
                }
            }
            Ok(result)
        }
        CookieCall::Write => {
            let cookies: Vec<Value> = match method {
                "Network.setCookie" => vec![params.clone()],
                _ => params["cookies"].as_array().cloned().unwrap_or_default(),
            };
            let mut set = Vec::with_capacity(cookies.len());
            for cookie in &cookies {
                let Some(domain) = domain_of(cookie) else {
                    return Err((SERVER_ERROR, no_site(method)));
                };
                refuse_unless_allowed(door, method, &domain)?;
                set.push((cookie, domain));
            }
            let result = send(door, method, params.clone(), session).await?;
            let agent = door.entry.actor.id();
            for (cookie, domain) in set {
                let Some(name) = cookie["name"].as_str() else {
                    continue;
                };
                let value = cookie["value"].as_str().unwrap_or_default();
                let path = cookie["path"].as_str();
                set_cookies::record(agent, CookieKey::new(name, &domain, path, value));
            }
            Ok(result)
        }
        CookieCall::Delete => {
            // Without a url or domain Chrome deletes the name on every site.
            let Some(domain) = domain_of(&params) else {
                return Err((SERVER_ERROR, no_site(method)));
            };
            refuse_unless_allowed(door, method, &domain)?;
            let result = send(door, method, params.clone(), session).await?;
            if let Some(name) = params["name"].as_str() {
                set_cookies::forget(door.entry.actor.id(), name, &domain);
            }
            Ok(result)
        }
    }
}

/// The refusal of a cookie write or deletion that names no site.
fn no_site(method: &str) -> String {
    wire::refused(
        method,
        "a cookie written or deleted through the door names its site (`url` or `domain`); \
         without one a deletion would reach every site's cookies, the person's too",
    )
}

/// Refuses a `browserContextId` (the door shows one context, the default); drops a null one.
fn no_other_context(params: &mut Value) -> Result<(), Failure> {
    match params.get("browserContextId") {
        Some(Value::String(context)) => Err((
            SERVER_ERROR,
            format!("Failed to find browser context with id {context}"),
        )),
        Some(_) => {
            if let Some(map) = params.as_object_mut() {
                map.remove("browserContextId");
            }
            Ok(())
        }
        None => Ok(()),
    }
}

/// The domain a cookie (or a deletion) names: its `domain`, else its `url`'s host.
fn domain_of(cookie: &Value) -> Option<String> {
    if let Some(domain) = cookie["domain"].as_str().filter(|d| !d.trim().is_empty()) {
        return Some(domain.to_string());
    }
    let url = Url::parse(cookie["url"].as_str()?).ok()?;
    url.host_str().map(str::to_string)
}

/// Ok when the agent may open `domain`'s site; otherwise the rule.
fn allowed(door: &Door, domain: &str) -> Result<(), SiteRefusal> {
    let entry = &door.entry;
    match entry.session.sites().rules_of(entry.actor.id()) {
        Some(rules) => rules.host_verdict(domain),
        None => Ok(()),
    }
}

fn refuse_unless_allowed(door: &Door, method: &str, domain: &str) -> Result<(), Failure> {
    allowed(door, domain).map_err(|refusal| {
        let entry = &door.entry;
        tracing::info!(event = "cdp_door_cookie_refused", channel_id = %entry.channel, agent_id = entry.actor.id(), method);
        let domain: String = domain.chars().take(200).collect();
        (
            SERVER_ERROR,
            wire::refused(
                method,
                &format!(
                    "cookie writes pass the door only for sites the agent may open, and {} \
                     (the cookie's domain is {domain})",
                    refusal.rule
                ),
            ),
        )
    })
}

async fn send(
    door: &Door,
    method: &str,
    params: Value,
    session: Option<&str>,
) -> Result<Value, Failure> {
    let params = if params.is_null() { json!({}) } else { params };
    door.entry
        .session
        .cdp()
        .call_with(method, params, session, FORWARD_DEADLINE)
        .await
        .map_err(failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cookie_names_its_site_by_domain_first_then_url() {
        let both = json!({"name": "n", "domain": ".a.test", "url": "https://b.test/x"});
        assert_eq!(domain_of(&both).as_deref(), Some(".a.test"));
        let url = json!({"name": "n", "url": "http://127.0.0.1:8080/x"});
        assert_eq!(domain_of(&url).as_deref(), Some("127.0.0.1"));
        assert_eq!(domain_of(&json!({"name": "n", "domain": " "})), None);
        assert_eq!(domain_of(&json!({"name": "n", "url": "not a url"})), None);
    }

    #[test]
    fn only_the_default_browser_context_is_the_doors() {
        let mut none = json!({"browserContextId": null});
        assert!(no_other_context(&mut none).is_ok());
        assert!(none.get("browserContextId").is_none());
        let mut other = json!({"browserContextId": "ABC"});
        let (_, message) = no_other_context(&mut other).unwrap_err();
        assert!(message.contains("ABC"), "{message}");
    }
}
