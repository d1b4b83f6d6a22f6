//! What every request passes before it is routed, and every answer carries:
//! the `Host` check (only the loopback, by name) and the security headers.

use crate::error::ApiError;
use axum::http::uri::Authority;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use xstore_core::Diagnostic;

/// The policy of an answer that sets none (the API's JSON, its errors):
/// nothing may load or run, and no page may frame it.
pub(crate) const API_POLICY: &str =
    "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The names of this machine's loopback a `Host` may give.
const LOOPBACK: [&str; 3] = ["127.0.0.1", "localhost", "[::1]"];

/// Whether a `Host` header names the loopback: an authority (RFC 3986: a
/// host and an optional port, no user information) whose host is
/// `127.0.0.1`, `localhost` or `[::1]`, compared without regard to case.
pub(crate) fn is_loopback_host(host: &str) -> bool {
    let Ok(a) = host.parse::<Authority>() else {
        return false;
    };
    // `Authority` takes user information (`name@host`), which a `Host`
    // never has; after the host, only a port of digits may follow.
    let Some(rest) = a.as_str().strip_prefix(a.host()) else {
        return false;
    };
    let port_ok = match rest.strip_prefix(':') {
        None => rest.is_empty(),
        Some(p) => p.bytes().all(|b| b.is_ascii_digit()) && p.parse::<u16>().is_ok(),
    };
    if !port_ok {
        return false;
    }
    LOOPBACK.iter().any(|n| a.host().eq_ignore_ascii_case(n))
}

/// Refuse a request whose `Host` is absent or not the loopback (see
/// [`crate::router_with`]).
pub(crate) async fn loopback_host(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let host = req.headers().get(header::HOST).map(|h| h.to_str());
    let refused = match host {
        Some(Ok(h)) if is_loopback_host(h) => return next.run(req).await,
        Some(Ok(h)) => format!("host `{h}` is not this machine's loopback"),
        Some(Err(_)) => "the request's host is not text".to_string(),
        None => "the request names no host".to_string(),
    };
    ApiError::new(
        StatusCode::FORBIDDEN,
        Diagnostic::range(refused)
            .expected("a Host header of 127.0.0.1, localhost or [::1] (any port)")
            .hint("the explorer answers only pages it served itself"),
    )
    .into_response()
}

/// Give every answer a content security policy (the API's unless the
/// answer has its own: the page, the report) and
/// `X-Content-Type-Options: nosniff`.
pub(crate) async fn secure_headers(
    req: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let mut res = next.run(req).await;
    let h = res.headers_mut();
    h.entry(header::CONTENT_SECURITY_POLICY)
        .or_insert(HeaderValue::from_static(API_POLICY));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::is_loopback_host;

    #[test]
    fn a_host_is_an_authority_whose_name_is_the_loopback_in_any_case() {
        for h in [
            "127.0.0.1",
            "127.0.0.1:7878",
            "localhost",
            "LOCALHOST:80",
            "LocalHost",
            "[::1]",
            "[::1]:8080",
        ] {
            assert!(is_loopback_host(h), "{h}");
        }
        for h in [
            "",
            "localhost:1@evil.com",
            "evil.com@localhost",
            "[::1]evil.com",
            "[::1]:x",
            "localhost:x",
            "localhost:",
            "localhost.evil.com",
            "127.0.0.1.evil.example",
            "evil.example:7878",
            "[::2]",
            "localhost/x",
            "localhost:80:80",
        ] {
            assert!(!is_loopback_host(h), "{h}");
        }
    }
}
