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
//! The server is bounded whatever its clients do ([`Config`]): its requests
//! share one memory budget, each scenario run is capped below the command
//! line's cap, a run whose client has gone is cancelled, slow headers and
//! bodies time out, and open connections are counted.
//!
//! The ISAs it offers are the registry's ([`xstore_isas::all`]).
//!
//! ```no_run
//! let config = xstore_serve::Config::default();
//! xstore_serve::serve(&config, |url| eprintln!("{url}"), |note| eprintln!("{note}")).unwrap();
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod api;
mod assets;
mod budget;
mod error;
mod guard;
mod server;

use axum::Router;
use std::net::{Ipv4Addr, SocketAddr};
use std::thread::JoinHandle;
use std::time::Duration;

/// The largest request body the API reads, in bytes (1 MiB); a larger body
/// is answered `413 Payload Too Large` before any of it is parsed, and a
/// declared `Content-Length` over it before any of it is read.
pub const BODY_LIMIT: usize = 1 << 20;

/// The port `xstore serve` listens on when none is given.
pub const DEFAULT_PORT: u16 = 7878;

/// The memory all requests together may use, by default (1 GiB).
pub const DEFAULT_MEM_BUDGET: u64 = 1 << 30;

/// The allocation cap of one scenario run, by default (256 MiB; the command
/// line's is 1 GiB, [`xstore_core::mem::DEFAULT_CAP`]).
pub const DEFAULT_MEM_CAP: u64 = 256 << 20;

/// Of the budget, what the server itself and its open connections are
/// allowed (32 MiB); requests share the rest.
pub const BASE_RESERVE: u64 = 32 << 20;

/// What a scenario request (`run`, `map`, `report`, `lint`) reserves beyond
/// its run's cap: its body, the trace and the answer (32 MiB).
pub const RUN_ALLOWANCE: u64 = 32 << 20;

/// What every other request with a body reserves: the body, the library
/// call and its answer (16 MiB).
pub const CALL_ALLOWANCE: u64 = 16 << 20;

/// Connections open at once, by default; one more is closed unanswered.
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;

/// The time a request's headers, then its body, may take to arrive, and
/// the longest an answer may wait for its client to read, by default (10 s).
pub const DEFAULT_IO_TIMEOUT: Duration = Duration::from_secs(10);

/// The longest a request waits for its share of the budget before it is
/// answered `503`, by default (10 s).
pub const DEFAULT_QUEUE_TIMEOUT: Duration = Duration::from_secs(10);

/// On SIGTERM or SIGINT, the time requests in progress are given to finish
/// before the server ends anyway (500 ms).
pub const SHUTDOWN_GRACE: Duration = Duration::from_millis(500);

/// How the server bounds what its clients can make it do; `xstore serve`'s
/// options set each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The port on 127.0.0.1 (`0`: a free one the system picks).
    pub port: u16,
    /// The memory all requests together may use, in bytes, [`BASE_RESERVE`]
    /// included. Each request reserves its share before its body is read
    /// ([`RUN_ALLOWANCE`] plus `mem_cap` for a scenario, [`CALL_ALLOWANCE`]
    /// for any other request with a body) and keeps it until its answer is
    /// sent, or, when its client has gone, until its library call ends.
    pub mem_budget: u64,
    /// The allocation cap of each scenario run, in bytes.
    pub mem_cap: u64,
    /// Connections served at once; one more is closed as soon as it is
    /// accepted.
    pub max_connections: usize,
    /// The time a request's headers may take (counted from the end of the
    /// previous answer on a kept-alive connection), then its body, and the
    /// longest an answer may wait for the client to read it; past it, the
    /// connection is closed (a slow body is answered `408` first).
    pub io_timeout: Duration,
    /// The longest a request waits for its share of the budget before it
    /// is answered `503`.
    pub queue_timeout: Duration,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            port: DEFAULT_PORT,
            mem_budget: DEFAULT_MEM_BUDGET,
            mem_cap: DEFAULT_MEM_CAP,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            io_timeout: DEFAULT_IO_TIMEOUT,
            queue_timeout: DEFAULT_QUEUE_TIMEOUT,
        }
    }
}

impl Config {
    /// How many scenario requests the budget holds at once.
    pub fn runs_at_once(&self) -> u64 {
        self.mem_budget.saturating_sub(BASE_RESERVE) / self.mem_cap.saturating_add(RUN_ALLOWANCE)
    }

    /// Why the configuration cannot serve, if it cannot: a budget that holds
    /// no scenario run, no connection, or a zero timeout.
    pub fn check(&self) -> Result<(), String> {
        if self.runs_at_once() == 0 {
            return Err(format!(
                "a memory budget of {} bytes holds no scenario run: one needs {} bytes ({} for the \
                 server, the run's cap of {}, {} for its trace and answer)",
                self.mem_budget,
                BASE_RESERVE + self.mem_cap.saturating_add(RUN_ALLOWANCE),
                BASE_RESERVE,
                self.mem_cap,
                RUN_ALLOWANCE
            ));
        }
        if self.max_connections == 0 {
            return Err("the connection limit must be at least 1".to_string());
        }
        if self.io_timeout.is_zero() || self.queue_timeout.is_zero() {
            return Err("a timeout must be longer than zero".to_string());
        }
        Ok(())
    }
}

/// The explorer's routes with the default [`Config`]: see [`router_with`].
pub fn router() -> Router {
    router_with(&Config::default())
}

/// The explorer's routes: the page and its assets at `/`, the JSON API under
/// `/api/`, bounded as `config` says (its memory budget, its run cap, the
/// time a body may take; the connection limit and the header timeout are
/// [`serve`]'s). The router needs a Tokio runtime with its timer enabled.
///
/// A request whose `Host` does not name this machine's loopback
/// (`127.0.0.1`, `localhost` or `[::1]`, in any case, with any port), or
/// that has no `Host`, is refused with `403`: a page elsewhere that rebinds
/// its own name to 127.0.0.1 cannot reach the API. Every answer carries a
/// content security policy and `X-Content-Type-Options: nosniff`.
pub fn router_with(config: &Config) -> Router {
    assets::routes()
        .merge(api::routes(config))
        .layer(axum::middleware::from_fn(guard::loopback_host))
        .layer(axum::middleware::from_fn(guard::secure_headers))
}

/// Serve the explorer on `127.0.0.1:config.port` until the process gets
/// SIGTERM or SIGINT (Ctrl-C); then stop accepting, give the requests in
/// progress [`SHUTDOWN_GRACE`] to finish, and return `Ok`. `ready` is called
/// once with the page's URL, after the socket is bound and the signals are
/// handled, before the first request is served; `note` with each line worth
/// logging (an accept error, once until accepting works again; the
/// connection limit reached, once until a connection is served again; the
/// stop).
pub fn serve(
    config: &Config,
    ready: impl FnOnce(&str),
    note: impl FnMut(&str),
) -> std::io::Result<()> {
    config
        .check()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let app = router_with(config);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .build()?;
    let res = rt.block_on(async move {
        let listener =
            tokio::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, config.port)))
                .await?;
        let stop = server::stop_signal()?;
        let addr = listener.local_addr()?;
        ready(&format!("http://{addr}/"));
        server::accept_loop(listener, app, config, stop, note).await
    });
    // Library calls still running (their clients are gone: every connection
    // has been dropped) are cancelled or left behind.
    rt.shutdown_timeout(SHUTDOWN_GRACE);
    res
}

/// A server started by [`start`], serving on its own thread until
/// [`Running::stop`] is called or it is dropped.
#[derive(Debug)]
pub struct Running {
    addr: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<std::io::Result<()>>>,
}

impl Running {
    /// The address it listens on (`127.0.0.1` and the bound port).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stop accepting, give the requests in progress [`SHUTDOWN_GRACE`] to
    /// finish, and return the accept loop's outcome.
    pub fn stop(mut self) -> std::io::Result<()> {
        self.halt()
    }

    fn halt(&mut self) -> std::io::Result<()> {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        match self.thread.take() {
            Some(t) => t
                .join()
                .unwrap_or_else(|_| Err(std::io::Error::other("the server's thread panicked"))),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.halt();
    }
}

/// Serve the explorer on `127.0.0.1:config.port` from a thread of its own,
/// as [`serve`] serves it (the same router, accept loop and bounds, on one
/// thread), until the returned handle stops it; signals are left alone.
/// The socket is bound before this returns, so `config.port` `0` gives a
/// free port, read with [`Running::addr`]. This is how `xstore bench
/// server` runs the server beside its load client.
pub fn start(config: &Config) -> std::io::Result<Running> {
    config
        .check()
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let listener =
        std::net::TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, config.port)))?;
    listener.set_nonblocking(true)?;
    let addr = listener.local_addr()?;
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let config = config.clone();
    let thread = std::thread::Builder::new()
        .name("xstore-serve".into())
        .spawn(move || {
            let app = router_with(&config);
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_io()
                .enable_time()
                .build()?;
            let res = rt.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)?;
                let stop = async move {
                    let _ = stopped.await;
                    "stopped"
                };
                server::accept_loop(listener, app, &config, stop, |_| {}).await
            });
            rt.shutdown_timeout(SHUTDOWN_GRACE);
            res
        })?;
    Ok(Running {
        addr,
        stop: Some(stop),
        thread: Some(thread),
    })
}
