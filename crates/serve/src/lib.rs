//! `xstore serve`: a local explorer for the xstore library.
//!
//! [`router`] is a JSON API over the library (assemble, disassemble, explain,
//! validate, run and lint, and the bundled example scenarios) and the
//! explorer page that calls it; [`serve`] binds it to `127.0.0.1` and no other
//! address. The page's HTML, script and style sheet are compiled into the
//! binary and load nothing from elsewhere, so the explorer works offline.
//!
//! Every answer is JSON in the shape of the command line's `--json` output.
//! Bad input is a `422` whose body is the command line's error object,
//! `{"error": {kind, message, location, rule, expected, hint, provenance},
//! "rendered": "<input>:1:15: error: …"}`, the rendered line being what the
//! command line prints on stderr. A request body larger than [`BODY_LIMIT`]
//! is refused with `413`. The endpoints are listed in `docs/serve.md`.
//!
//! The ISAs it offers are the registry's ([`xstore_isas::all`]).
//!
//! ```no_run
//! xstore_serve::serve(0, |url| eprintln!("{url}")).unwrap();
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod api;
mod assets;

use axum::Router;
use std::net::{Ipv4Addr, SocketAddr};

/// The largest request body the API reads, in bytes (1 MiB); a larger body
/// is answered `413 Payload Too Large` before any of it is parsed.
pub const BODY_LIMIT: usize = 1 << 20;

/// The port `xstore serve` listens on when none is given.
pub const DEFAULT_PORT: u16 = 7878;

/// The explorer's routes: the page and its assets at `/`, the JSON API under
/// `/api/`.
///
/// A request whose `Host` names anything but this machine's loopback
/// (`127.0.0.1`, `localhost`, `[::1]`, any port) is refused with `403`: a page
/// elsewhere that rebinds its own name to 127.0.0.1 cannot reach the API.
pub fn router() -> Router {
    assets::routes()
        .merge(api::routes())
        .layer(axum::middleware::from_fn(api::loopback_host))
}

/// Serve the explorer on `127.0.0.1:port` (`0`: a free port the system
/// picks) until the process ends. `ready` is called once with the page's
/// URL, after the socket is bound and before the first request is served.
pub fn serve(port: u16, ready: impl FnOnce(&str)) -> std::io::Result<()> {
    let app = router();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .build()?;
    rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
        let addr = listener.local_addr()?;
        ready(&format!("http://{addr}/"));
        axum::serve(listener, app).await
    })
}
