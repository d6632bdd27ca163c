//! Typed errors that carry their exit code.
//!
//! Every failure a command can meet is sorted into a [`Kind`], and SPEC §5's exit codes hang
//! on the kind in exactly one place ([`Kind::exit_code`]). Messages never contain secrets:
//! connection strings are never formatted into them, and database errors are reduced to the
//! server's own message, which does not echo passwords.

use std::fmt;

use crate::jobs::Job;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, as the exit code sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Database, destination, file: exit 1.
    Runtime,
    /// Usage or invalid input, or a change refused for lack of `--yes`: exit 2.
    Usage,
    /// The guard matched no row, a payload conflict, or the destination contradicts: exit 3.
    Conflict,
    /// No such job: exit 4.
    NotFound,
    /// Something needs a person's attention (`check`, `reconcile`): exit 5.
    Attention,
    /// A lock or statement timeout fired; nothing changed; safe to run again: exit 6.
    Busy,
    /// A broken invariant inside reconctl itself: exit 1, message prefixed `BUG:`.
    Bug,
}

impl Kind {
    pub fn exit_code(self) -> u8 {
        match self {
            Kind::Runtime | Kind::Bug => 1,
            Kind::Usage => 2,
            Kind::Conflict => 3,
            Kind::NotFound => 4,
            Kind::Attention => 5,
            Kind::Busy => 6,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Runtime => "runtime",
            Kind::Usage => "usage",
            Kind::Conflict => "conflict",
            Kind::NotFound => "not_found",
            Kind::Attention => "attention",
            Kind::Busy => "busy",
            Kind::Bug => "bug",
        }
    }
}

/// An error a person can act on: what happened, and (optionally) what to do about it.
#[derive(Debug, Clone)]
pub struct Error {
    pub kind: Kind,
    /// A finer, stable code for scripts (`version_conflict`, `payload_conflict`, …).
    pub code: &'static str,
    pub message: String,
    pub hint: Option<String>,
    /// For conflicts: the job as it is now.
    pub current: Option<Box<Job>>,
    /// Extra structured detail for `-o json` (e.g. the lookup that refused a mark).
    pub detail: Option<serde_json::Value>,
}

impl Error {
    pub fn new(kind: Kind, code: &'static str, message: impl Into<String>) -> Self {
        Error {
            kind,
            code,
            message: message.into(),
            hint: None,
            current: None,
            detail: None,
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(Kind::Usage, "usage", message)
    }

    pub fn config(message: impl Into<String>) -> Self {
        Error::new(Kind::Usage, "config", message)
    }

    pub fn runtime(message: impl Into<String>) -> Self {
        Error::new(Kind::Runtime, "runtime", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(Kind::NotFound, "not_found", message)
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Error::new(Kind::Conflict, code, message)
    }

    pub fn busy(message: impl Into<String>) -> Self {
        Error::new(Kind::Busy, "busy", message)
            .hinted("nothing changed; it is safe to run the command again")
    }

    pub fn attention(message: impl Into<String>) -> Self {
        Error::new(Kind::Attention, "attention", message)
    }

    pub fn bug(message: impl Into<String>) -> Self {
        Error::new(Kind::Bug, "bug", format!("BUG: {}", message.into()))
    }

    pub fn hinted(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    pub fn with_current(mut self, job: Job) -> Self {
        self.current = Some(Box::new(job));
        self
    }

    pub fn with_detail(mut self, detail: serde_json::Value) -> Self {
        self.detail = Some(detail);
        self
    }

    pub fn exit_code(&self) -> u8 {
        self.kind.exit_code()
    }

    /// The `{"error": {...}}` document printed on stdout with `-o json`.
    pub fn to_json(&self) -> serde_json::Value {
        let mut obj = serde_json::Map::new();
        obj.insert("kind".into(), self.kind.as_str().into());
        obj.insert("code".into(), self.code.into());
        obj.insert("message".into(), self.message.clone().into());
        obj.insert(
            "hint".into(),
            self.hint
                .clone()
                .map_or(serde_json::Value::Null, Into::into),
        );
        obj.insert("exit_code".into(), self.exit_code().into());
        if let Some(job) = &self.current {
            obj.insert(
                "current".into(),
                serde_json::to_value(job).unwrap_or(serde_json::Value::Null),
            );
        }
        if let Some(detail) = &self.detail {
            obj.insert("detail".into(), detail.clone());
        }
        serde_json::json!({ "error": obj })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

impl From<tokio_postgres::Error> for Error {
    fn from(err: tokio_postgres::Error) -> Self {
        db_error(&err)
    }
}

impl From<deadpool_postgres::PoolError> for Error {
    fn from(err: deadpool_postgres::PoolError) -> Self {
        use deadpool_postgres::PoolError;
        match err {
            PoolError::Backend(e) => db_error(&e),
            // Waiting for a connection is not a lock or statement timeout: not "busy".
            PoolError::Timeout(_) => Error::new(
                Kind::Runtime,
                "pool_timeout",
                "timed out waiting for a database connection",
            ),
            other => Error::runtime(format!("database connection pool: {other}")),
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::runtime(format!("I/O error: {err}"))
    }
}

/// Classify a database error. Lock and statement timeouts are `busy` (exit 6): the statement
/// was rolled back, so nothing changed and the command can simply be run again.
pub fn db_error(err: &tokio_postgres::Error) -> Error {
    use tokio_postgres::error::SqlState;
    if let Some(db) = err.as_db_error() {
        let code = db.code();
        let mut message = db.message().to_string();
        if let Some(detail) = db.detail() {
            message.push_str(": ");
            message.push_str(detail);
        }
        if *code == SqlState::LOCK_NOT_AVAILABLE {
            return Error::busy(format!(
                "busy: a row or table this command needs is locked by another session ({message})"
            ));
        }
        if *code == SqlState::QUERY_CANCELED {
            return Error::busy(format!(
                "busy: the statement timeout fired before the database answered ({message})"
            ))
            .hinted("nothing changed; run it again, or raise --statement-timeout");
        }
        if *code == SqlState::T_R_DEADLOCK_DETECTED || *code == SqlState::T_R_SERIALIZATION_FAILURE
        {
            return Error::busy(format!("busy: {message}"));
        }
        if *code == SqlState::READ_ONLY_SQL_TRANSACTION {
            return Error::new(
                Kind::Runtime,
                "read_only",
                format!("the database refused a change: {message}"),
            )
            .hinted("nothing changed: this session is read-only (a hot standby, or --read-only); to make changes, drop --read-only and reach the primary, e.g. with a multi-host URL and target_session_attrs=read-write");
        }
        if *code == SqlState::UNDEFINED_TABLE {
            return Error::new(
                Kind::Runtime,
                "schema",
                format!("database error: {message}"),
            )
            .hinted("run `reconctl migrate` to create the schema");
        }
        if *code == SqlState::INSUFFICIENT_PRIVILEGE {
            return Error::new(
                Kind::Runtime,
                "permission",
                format!("the database refused: {message}"),
            )
            .hinted("the database user lacks this grant: inspection needs the role reconctl_reader, mark/sweep/reconcile reconctl_operator, reserve reconctl_worker (GRANT reconctl_operator TO <user>); see README, \"Roles\"");
        }
        return Error::new(
            Kind::Runtime,
            "database",
            format!("database error: {message}"),
        );
    }
    if err.is_closed() {
        return Error::new(
            Kind::Runtime,
            "connection_lost",
            "the database connection was closed",
        );
    }
    // Connection-level errors: tokio-postgres formats these without the connection string.
    let mut message = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(s) = source {
        let text = s.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = s.source();
    }
    Error::new(Kind::Runtime, "database", format!("database: {message}"))
}
