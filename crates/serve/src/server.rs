//! The accept loop: one task per connection, HTTP/1.1 with a header
//! timeout, a bound on open connections, accept errors (out of file
//! descriptors) survived, and a graceful stop on SIGTERM or SIGINT.

use crate::{Config, SHUTDOWN_GRACE};
use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio::time::Sleep;

/// The largest buffer a connection reads into, and the largest request
/// head (request line and headers; a larger one is answered `431`).
const READ_BUFFER: usize = 64 << 10;

/// The pause after an accept error that is not the peer's (no file
/// descriptor left, no memory), before accepting again.
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// Resolves on the first SIGTERM or SIGINT. The handlers are installed
/// here, so a signal that comes after this returns is never the default
/// (death).
pub(crate) fn stop_signal() -> io::Result<impl Future<Output = &'static str>> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate())?;
    let mut int = signal(SignalKind::interrupt())?;
    Ok(async move {
        tokio::select! {
            _ = term.recv() => "SIGTERM",
            _ = int.recv() => "SIGINT",
        }
    })
}

/// Whether an accept error is about one connection only (it was reset
/// before it was accepted), so the next accept may go on at once.
fn about_one_connection(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::Interrupted
    )
}

/// Lines logged once per episode: an episode of accept errors ends with a
/// connection accepted, one of a full connection table with one served.
#[derive(Default)]
struct Episodes {
    failing: bool,
    full: bool,
}

/// Accept and serve connections until `stop` resolves; then close the
/// listener, let the connections finish for [`SHUTDOWN_GRACE`] at most, and
/// return.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    app: Router,
    config: &Config,
    stop: impl Future<Output = &'static str>,
    mut note: impl FnMut(&str),
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(config.max_connections));
    let graceful = GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(config.io_timeout)
        .max_buf_size(READ_BUFFER)
        .max_header_size(READ_BUFFER);
    let mut ep = Episodes::default();
    tokio::pin!(stop);
    let signal = loop {
        let accepted = tokio::select! {
            s = &mut stop => break s,
            r = listener.accept() => r,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) if about_one_connection(&e) => continue,
            Err(e) => {
                if !std::mem::replace(&mut ep.failing, true) {
                    note(&format!(
                        "cannot accept a connection: {e}; retrying until it can (this is logged \
                         once until then)"
                    ));
                }
                tokio::time::sleep(ACCEPT_PAUSE).await;
                continue;
            }
        };
        ep.failing = false;
        let Ok(permit) = open.clone().try_acquire_owned() else {
            if !std::mem::replace(&mut ep.full, true) {
                note(&format!(
                    "{} connections are open, the limit: new ones are closed unanswered (this \
                     is logged once until one is served again)",
                    config.max_connections
                ));
            }
            drop(stream);
            continue;
        };
        ep.full = false;
        let io = TokioIo::new(Stalls::new(stream, config.io_timeout));
        let conn = graceful.watch(http.serve_connection(io, TowerToHyperService::new(app.clone())));
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    };
    drop(listener);
    note(&format!("{signal}: stopping"));
    let _ = tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown()).await;
    Ok(())
}

/// A connection whose writes fail once they have made no progress for
/// `limit`: a client that stops reading its answer is let go.
struct Stalls<S> {
    io: S,
    limit: Duration,
    since: Option<Pin<Box<Sleep>>>,
}

impl<S> Stalls<S> {
    fn new(io: S, limit: Duration) -> Self {
        Stalls {
            io,
            limit,
            since: None,
        }
    }

    /// The outcome of a write or flush: progress ends a stall; no progress
    /// starts one, or ends the connection when it has lasted `limit`.
    fn watch<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if r.is_ready() {
            self.since = None;
            return r;
        }
        let limit = self.limit;
        let since = self
            .since
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
        match since.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the client does not read its answer",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Stalls<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Stalls<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write(cx, buf);
        self.watch(cx, r)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        self.watch(cx, r)
    }
    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.io).poll_flush(cx);
        self.watch(cx, r)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let r = Pin::new(&mut self.io).poll_shutdown(cx);
        self.watch(cx, r)
    }
}

#[cfg(test)]
mod tests {
    use super::Stalls;
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const LIMIT: Duration = Duration::from_secs(10);

    // The clock is Tokio's paused one: it moves only when every task waits.
    #[tokio::test(start_paused = true)]
    async fn a_write_that_makes_no_progress_for_the_limit_fails_and_progress_resets_it() {
        let (ours, mut theirs) = tokio::io::duplex(16);
        let mut conn = Stalls::new(ours, LIMIT);
        // A slow reader: 16 bytes every 6 s, so every wait is under the
        // limit though the whole write takes 18 s.
        let reader = tokio::spawn(async move {
            let mut got = Vec::new();
            let mut buf = [0u8; 16];
            while got.len() < 64 {
                tokio::time::sleep(LIMIT * 3 / 5).await;
                let n = theirs.read(&mut buf).await.unwrap();
                got.extend_from_slice(&buf[..n]);
            }
            (theirs, got)
        });
        let bound = Duration::from_secs(3600);
        tokio::time::timeout(bound, conn.write_all(&[7; 64]))
            .await
            .expect("the write ends")
            .expect("a slow reader is served");
        let (theirs, got) = reader.await.unwrap();
        assert_eq!(got, [7; 64]);
        // A reader that stops: the write fails once it has waited the limit.
        let e = tokio::time::timeout(bound, conn.write_all(&[8; 64]))
            .await
            .expect("the write ends")
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::TimedOut);
        drop(theirs);
    }
}
