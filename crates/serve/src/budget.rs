//! The memory budget all requests share, and the admission of a request
//! with a body: its declared length checked, its share of the budget
//! reserved (waiting in line for it, up to the queue timeout), then its body
//! read within the I/O timeout. The share is held until the answer is sent,
//! and by the library call the request started until that call ends, even
//! when the client has gone.

use crate::error::ApiError;
use crate::{Config, BASE_RESERVE, BODY_LIMIT, CALL_ALLOWANCE, RUN_ALLOWANCE};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use xstore_core::{DiagKind, Diagnostic};

/// The budget is counted in units of this many bytes (1 KiB).
const UNIT: u64 = 1 << 10;

/// The memory all requests share, less what the server itself keeps.
#[derive(Clone)]
pub(crate) struct Budget {
    units: Arc<Semaphore>,
    total: u64,
}

impl Budget {
    pub(crate) fn new(config: &Config) -> Self {
        let total = config.mem_budget.saturating_sub(BASE_RESERVE);
        let units = usize::try_from(total / UNIT).unwrap_or(Semaphore::MAX_PERMITS);
        Budget {
            units: Arc::new(Semaphore::new(units.min(Semaphore::MAX_PERMITS))),
            total,
        }
    }
}

/// A request's share of the budget, released when the last clone is dropped
/// (the answer sent, the library call ended).
#[derive(Clone)]
pub(crate) struct Held {
    _permit: Arc<OwnedSemaphorePermit>,
}

/// What one admitted route reserves, and the limits it is read under.
#[derive(Clone)]
pub(crate) struct Admission {
    budget: Budget,
    bytes: u64,
    io_timeout: Duration,
    queue_timeout: Duration,
}

impl Admission {
    /// A scenario request's admission: the run's cap and [`RUN_ALLOWANCE`].
    pub(crate) fn run(budget: &Budget, config: &Config) -> Self {
        Admission::of(budget, config, config.mem_cap.saturating_add(RUN_ALLOWANCE))
    }
    /// Any other request's: [`CALL_ALLOWANCE`].
    pub(crate) fn call(budget: &Budget, config: &Config) -> Self {
        Admission::of(budget, config, CALL_ALLOWANCE)
    }
    fn of(budget: &Budget, config: &Config, bytes: u64) -> Self {
        Admission {
            budget: budget.clone(),
            bytes,
            io_timeout: config.io_timeout,
            queue_timeout: config.queue_timeout,
        }
    }

    /// Wait in line for the share, up to the queue timeout.
    async fn reserve(&self) -> Result<Held, ApiError> {
        let units = u32::try_from(self.bytes.div_ceil(UNIT)).unwrap_or(u32::MAX);
        let wait = self.budget.units.clone().acquire_many_owned(units);
        match tokio::time::timeout(self.queue_timeout, wait).await {
            Ok(Ok(p)) => Ok(Held {
                _permit: Arc::new(p),
            }),
            _ => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                Diagnostic::new(
                    DiagKind::Resource,
                    format!(
                        "the server is busy: the requests in progress hold its memory budget \
                         ({} bytes for requests; this one needs {}) and none ended within {} s",
                        self.budget.total,
                        self.bytes,
                        self.queue_timeout.as_secs_f64()
                    ),
                )
                .hint("try again shortly, or start xstore serve with a larger --mem-budget"),
            )),
        }
    }
}

/// The `Content-Length` a request declares, if it declares one.
fn declared_length(req: &Request) -> Option<u64> {
    req.headers()
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .parse()
        .ok()
}

fn too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        Diagnostic::new(
            DiagKind::Resource,
            format!("the request body is larger than {BODY_LIMIT} bytes"),
        )
        .hint("see docs/serve.md for each endpoint's body"),
    )
}

/// Admit a request (see the module's documentation), then hand it, its body
/// read and its [`Held`] share in its extensions, to the route.
pub(crate) async fn admit(State(a): State<Admission>, req: Request, next: Next) -> Response {
    if declared_length(&req).is_some_and(|n| n > BODY_LIMIT as u64) {
        return too_large().into_response();
    }
    let held = match a.reserve().await {
        Ok(h) => h,
        Err(e) => return e.into_response(),
    };
    let (mut parts, body) = req.into_parts();
    let read = Limited::new(body, BODY_LIMIT).collect();
    let bytes = match tokio::time::timeout(a.io_timeout, read).await {
        Ok(Ok(b)) => b.to_bytes(),
        Ok(Err(e)) if e.is::<LengthLimitError>() => return too_large().into_response(),
        Ok(Err(e)) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
                Diagnostic::new(DiagKind::Io, format!("the request body was not read: {e}")),
            )
            .into_response()
        }
        Err(_) => {
            return ApiError::new(
                StatusCode::REQUEST_TIMEOUT,
                Diagnostic::new(
                    DiagKind::Resource,
                    format!(
                        "the request body did not arrive within {} s",
                        a.io_timeout.as_secs_f64()
                    ),
                ),
            )
            .into_response()
        }
    };
    parts.extensions.insert(held.clone());
    let res = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    res.map(|body| Body::new(HeldBody { body, _held: held }))
}

/// An answer's body that keeps its request's share until it is dropped
/// (sent, or its connection gone).
struct HeldBody {
    body: Body,
    _held: Held,
}

impl http_body::Body for HeldBody {
    type Data = Bytes;
    type Error = axum::Error;
    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }
    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }
    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}
