//! The error answer of every endpoint and bound: a status and the
//! diagnostic that says why.

use crate::BODY_LIMIT;
use axum::extract::rejection::JsonRejection;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use xstore_core::report::ErrorReport;
use xstore_core::{DiagKind, Diagnostic};

/// An answer that is not a success: an HTTP status and the diagnostic that
/// says why, sent as `{"error": <diagnostic>, "rendered": "<its line>"}`.
#[derive(Debug)]
pub(crate) struct ApiError {
    /// `422` for bad input the library rejects, `400` for a body that is not
    /// the request's JSON, `404` for an unknown ISA or example, `413` for a
    /// body over [`BODY_LIMIT`](crate::BODY_LIMIT), `403` for a host that is
    /// not the loopback, `408` for a body too slow, `503` for a budget
    /// that stayed full.
    pub(crate) status: StatusCode,
    /// What was wrong, as the command line reports it.
    pub(crate) diag: Diagnostic,
}

impl ApiError {
    pub(crate) fn new(status: StatusCode, diag: Diagnostic) -> Self {
        ApiError { status, diag }
    }
    pub(crate) fn input(diag: Diagnostic) -> Self {
        ApiError {
            status: StatusCode::UNPROCESSABLE_ENTITY,
            diag,
        }
    }
    pub(crate) fn not_found(diag: Diagnostic) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            diag,
        }
    }
}

impl From<Diagnostic> for ApiError {
    fn from(diag: Diagnostic) -> Self {
        ApiError::input(diag)
    }
}

impl From<JsonRejection> for ApiError {
    fn from(r: JsonRejection) -> Self {
        let status = r.status();
        let msg = if status == StatusCode::PAYLOAD_TOO_LARGE {
            format!("the request body is larger than {BODY_LIMIT} bytes")
        } else {
            format!(
                "the request body is not the endpoint's JSON: {}",
                r.body_text()
            )
        };
        let kind = if status == StatusCode::PAYLOAD_TOO_LARGE {
            DiagKind::Resource
        } else {
            DiagKind::Syntax
        };
        ApiError {
            status,
            diag: Diagnostic::new(kind, msg).hint("see docs/serve.md for each endpoint's body"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorReport {
            error: &self.diag,
            rendered: Some(self.diag.to_string()),
        };
        let mut res = (self.status, Json(body)).into_response();
        // Answered before its body was read (or when it never came): the
        // connection cannot carry another request.
        if matches!(
            self.status,
            StatusCode::PAYLOAD_TOO_LARGE
                | StatusCode::REQUEST_TIMEOUT
                | StatusCode::SERVICE_UNAVAILABLE
        ) {
            res.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        res
    }
}
