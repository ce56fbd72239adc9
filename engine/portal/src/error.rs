//! Why the portal refused something or could not be reached ([`PortalError`]), with the HTTP
//! status each is answered with.

use std::fmt;

/// Why the portal refused something, or could not be reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortalError {
    /// No author has this token.
    Unauthorized,
    /// The mod belongs to another author.
    Forbidden(String),
    /// The version is published already.
    Conflict(String),
    /// The archive is malformed, oversized, unsafe, or its mod does not load.
    BadArchive(String),
    /// A request body over the limit.
    TooLarge {
        /// Its size in bytes.
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// What was asked for is not there.
    NotFound(String),
    /// Refused for the reason given (a name taken, a cycle, no version matching).
    Refused(String),
    /// The database failed.
    Database(String),
    /// A file or folder could not be read or written.
    Io(String),
    /// The exchange itself failed (the portal unreachable, a malformed message).
    Http(String),
}

impl PortalError {
    /// The HTTP status the server answers it with.
    pub fn status(&self) -> u16 {
        match self {
            PortalError::Unauthorized => 401,
            PortalError::Forbidden(_) => 403,
            PortalError::Conflict(_) => 409,
            PortalError::BadArchive(_) | PortalError::Refused(_) | PortalError::Http(_) => 400,
            PortalError::TooLarge { .. } => 413,
            PortalError::NotFound(_) => 404,
            PortalError::Database(_) | PortalError::Io(_) => 500,
        }
    }

    /// The error an answer of `status` with the JSON body `{ "error": ... }` stands for.
    pub fn from_answer(status: u16, body: &[u8]) -> PortalError {
        let message = serde_json::from_slice::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_string))
            .unwrap_or_else(|| String::from_utf8_lossy(body).into_owned());
        match status {
            401 => PortalError::Unauthorized,
            403 => PortalError::Forbidden(message),
            404 => PortalError::NotFound(message),
            409 => PortalError::Conflict(message),
            413 => PortalError::Refused(message),
            400 => PortalError::Refused(message),
            _ => PortalError::Http(format!("the portal answered {status}: {message}")),
        }
    }
}

impl fmt::Display for PortalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PortalError::Unauthorized => write!(
                f,
                "the token is not an author's of this portal: check --token (or HEXFORGE_PORTAL_TOKEN), or ask the portal's keeper for one"
            ),
            PortalError::TooLarge { size, limit } => {
                write!(f, "{size} bytes is over the limit of {limit} bytes")
            }
            PortalError::Forbidden(m)
            | PortalError::Conflict(m)
            | PortalError::BadArchive(m)
            | PortalError::NotFound(m)
            | PortalError::Refused(m)
            | PortalError::Database(m)
            | PortalError::Io(m)
            | PortalError::Http(m) => write!(f, "{m}"),
        }
    }
}

impl std::error::Error for PortalError {}
