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
//! ```no_run
//! # fn isas() -> Vec<&'static dyn xstore_core::isa::Isa> { Vec::new() }
//! xstore_serve::serve(0, isas(), |url| eprintln!("{url}")).unwrap();
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod api;
mod assets;

use axum::Router;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use xstore_core::isa::Isa;

/// The largest request body the API reads, in bytes (1 MiB); a larger body
/// is answered `413 Payload Too Large` before any of it is parsed.
pub const BODY_LIMIT: usize = 1 << 20;

/// The port `xstore serve` listens on when none is given.
pub const DEFAULT_PORT: u16 = 7878;

/// The ISAs the explorer offers, in the order its menu lists them.
#[derive(Clone)]
pub(crate) struct Registry {
    isas: Arc<[&'static dyn Isa]>,
}

impl Registry {
    /// A registry of these ISAs (their names must differ).
    pub(crate) fn new(isas: impl IntoIterator<Item = &'static dyn Isa>) -> Self {
        Registry {
            isas: isas.into_iter().collect(),
        }
    }
    /// Every ISA, in order.
    pub(crate) fn isas(&self) -> &[&'static dyn Isa] {
        &self.isas
    }
    /// The ISA named `name`.
    pub(crate) fn find(&self, name: &str) -> Option<&'static dyn Isa> {
        self.isas.iter().copied().find(|i| i.name() == name)
    }
}

/// The explorer's routes: the page and its assets at `/`, the JSON API under
/// `/api/`.
///
/// A request whose `Host` names anything but this machine's loopback
/// (`127.0.0.1`, `localhost`, `[::1]`, any port) is refused with `403`: a page
/// elsewhere that rebinds its own name to 127.0.0.1 cannot reach the API.
pub fn router(isas: impl IntoIterator<Item = &'static dyn Isa>) -> Router {
    let reg = Registry::new(isas);
    assets::routes()
        .merge(api::routes(reg))
        .layer(axum::middleware::from_fn(api::loopback_host))
}

/// Serve the explorer on `127.0.0.1:port` (`0`: a free port the system
/// picks) until the process ends. `ready` is called once with the page's
/// URL, after the socket is bound and before the first request is served.
pub fn serve(
    port: u16,
    isas: impl IntoIterator<Item = &'static dyn Isa>,
    ready: impl FnOnce(&str),
) -> std::io::Result<()> {
    let app = router(isas);
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
