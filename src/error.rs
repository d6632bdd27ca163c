//! Typed errors that carry their exit code, and how a command that did not fail ends.
//!
//! Every failure a command can meet has a stable [`Code`] (for scripts), each code belongs to
//! one [`Kind`], and SPEC §5's exit codes hang on the kind (or on the [`Exit`] of a command
//! that did not fail) in exactly one place: [`exit_code`]. Messages never contain secrets:
//! connection strings are never formatted into them, and database errors are reduced to the
//! server's own message, which does not echo passwords.

use std::fmt;

use std::any::Any;
use std::sync::Arc;

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a command that did not fail ends (its exit code: [`exit_code`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done: exit 0.
    Done,
    /// The answer was printed but settles nothing (`remote lookup`: verdict unknown;
    /// `doctor`: a check failed): exit 1.
    Inconclusive,
    /// `check` found problems; `reconcile` left jobs in conflict or unknown: exit 5.
    Attention,
    /// `reconcile` left jobs only because they were busy (locked past the lock timeout):
    /// nothing else needs a person; safe to run again: exit 6.
    Busy,
}

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
    /// Stdout was closed (`reconctl jobs list | head -1`): what was wanted was read; exit 0.
    BrokenPipe,
    /// Ctrl-C or SIGTERM stopped a command that reports what it did first: exit 130.
    Interrupted,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Runtime => "runtime",
            Kind::Usage => "usage",
            Kind::Conflict => "conflict",
            Kind::NotFound => "not_found",
            Kind::Attention => "attention",
            Kind::Busy => "busy",
            Kind::Bug => "bug",
            Kind::BrokenPipe => "broken_pipe",
            Kind::Interrupted => "interrupted",
        }
    }
}

/// SPEC §5's exit codes, in the one place they are decided: how a command ended (or why it
/// failed) → the process's exit status.
pub fn exit_code(outcome: &Result<Exit>) -> u8 {
    let kind = match outcome {
        Ok(Exit::Done) => return 0,
        Ok(Exit::Inconclusive) => Kind::Runtime,
        Ok(Exit::Attention) => Kind::Attention,
        Ok(Exit::Busy) => Kind::Busy,
        Err(e) => e.kind(),
    };
    match kind {
        Kind::BrokenPipe => 0,
        Kind::Runtime | Kind::Bug => 1,
        Kind::Usage => 2,
        Kind::Conflict => 3,
        Kind::NotFound => 4,
        Kind::Attention => 5,
        Kind::Busy => 6,
        Kind::Interrupted => 130,
    }
}

/// A finer, stable code for scripts (`-o json`'s `error.code`); each belongs to one [`Kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    // Runtime (exit 1)
    /// A failure without a finer code.
    Runtime,
    /// The database answered with an error not classified further.
    Database,
    /// The database could not be reached (or refused the login) for a reason not below, or
    /// the hosts of a multi-host target failed in different ways.
    Connect,
    /// No answer within the connect timeout (TCP, TLS and login together).
    ConnectTimeout,
    /// The server refused the password.
    AuthFailed,
    /// The server wants a password and none was given (nor found in the password file).
    PasswordMissing,
    /// The user is not a role on the server.
    NoSuchRole,
    /// The database is not on the server.
    NoSuchDatabase,
    /// pg_hba.conf does not admit this user to this database from here.
    HbaRejected,
    /// TLS failed: the handshake, the server's certificate, or a server without TLS.
    Tls,
    /// A TLS file is missing or unusable (root certificate, client certificate or key).
    TlsFile,
    /// channel_binding=require, and the server authenticated without it.
    ChannelBinding,
    /// No server of the list is of the kind target_session_attrs asks for.
    TargetSessionAttrs,
    /// No free pooled connection in time (this command's own connections were all in use).
    PoolTimeout,
    /// The connection was lost in the middle of the command.
    ConnectionLost,
    /// The schema is missing (`reconctl migrate`), or this is not the database meant.
    Schema,
    /// The database user lacks a grant.
    Permission,
    /// A change on a read-only session (`--read-only`, a hot standby).
    ReadOnly,
    /// A COMMIT's answer was lost and the server says it rolled back.
    NotCommitted,
    /// A COMMIT's answer was lost and what became of it cannot be learnt.
    CommitUnknown,
    // Usage (exit 2)
    /// Bad flags, arguments or input.
    Usage,
    /// The config file (or a destination in it) is missing or wrong.
    Config,
    /// The connection string, a libpq variable or a service entry is invalid.
    ConnectionString,
    /// The connection service file, or the service in it, is missing or wrong.
    ServiceFile,
    /// A change was asked for without `--yes` and without a terminal to ask on.
    ConfirmationRequired,
    /// The person asked answered no.
    Declined,
    /// `reconcile --max`: more jobs would move than allowed.
    TooManyMoves,
    // Conflict (exit 3)
    /// The guard matched no row: someone moved the job first.
    VersionConflict,
    /// The same business key was reserved with another payload.
    PayloadConflict,
    /// The transition table does not allow the move from the job's state.
    NotAllowed,
    /// The destination's answer contradicts the mark.
    RefusedByLookup,
    /// An accepted job has another remote_id than the one asked for.
    RemoteIdMismatch,
    // Not found (exit 4)
    NotFound,
    // Attention (exit 5)
    Attention,
    // Busy (exit 6)
    Busy,
    /// Another `reconctl migrate` held the migration lock for longer than the wait.
    MigrateLocked,
    // Bug (exit 1)
    Bug,
    /// Stdout was closed (exit 0).
    BrokenPipe,
    /// Ctrl-C or SIGTERM (exit 130).
    Interrupted,
}

impl Code {
    pub fn kind(self) -> Kind {
        use Code::*;
        match self {
            Runtime | Database | Connect | ConnectTimeout | AuthFailed | PasswordMissing
            | NoSuchRole | NoSuchDatabase | HbaRejected | Tls | TlsFile | ChannelBinding
            | TargetSessionAttrs | PoolTimeout | ConnectionLost | Schema | Permission
            | ReadOnly | NotCommitted | CommitUnknown => Kind::Runtime,
            Usage | Config | ConnectionString | ServiceFile | ConfirmationRequired | Declined
            | TooManyMoves => Kind::Usage,
            VersionConflict | PayloadConflict | NotAllowed | RefusedByLookup | RemoteIdMismatch => {
                Kind::Conflict
            }
            NotFound => Kind::NotFound,
            Attention => Kind::Attention,
            Busy | MigrateLocked => Kind::Busy,
            Bug => Kind::Bug,
            BrokenPipe => Kind::BrokenPipe,
            Interrupted => Kind::Interrupted,
        }
    }

    pub fn as_str(self) -> &'static str {
        use Code::*;
        match self {
            Runtime => "runtime",
            Database => "database",
            Connect => "connect",
            ConnectTimeout => "connect_timeout",
            AuthFailed => "auth_failed",
            PasswordMissing => "password_missing",
            NoSuchRole => "no_such_role",
            NoSuchDatabase => "no_such_database",
            HbaRejected => "hba_rejected",
            Tls => "tls",
            TlsFile => "tls_file",
            ChannelBinding => "channel_binding",
            TargetSessionAttrs => "target_session_attrs",
            PoolTimeout => "pool_timeout",
            ConnectionLost => "connection_lost",
            Schema => "schema",
            Permission => "permission",
            ReadOnly => "read_only",
            NotCommitted => "not_committed",
            CommitUnknown => "commit_unknown",
            Usage => "usage",
            Config => "config",
            ConnectionString => "connection_string",
            ServiceFile => "service_file",
            ConfirmationRequired => "confirmation_required",
            Declined => "declined",
            TooManyMoves => "too_many_moves",
            VersionConflict => "version_conflict",
            PayloadConflict => "payload_conflict",
            NotAllowed => "not_allowed",
            RefusedByLookup => "refused_by_lookup",
            RemoteIdMismatch => "remote_id_mismatch",
            NotFound => "not_found",
            Attention => "attention",
            Busy => "busy",
            MigrateLocked => "migrate_locked",
            Bug => "bug",
            BrokenPipe => "broken_pipe",
            Interrupted => "interrupted",
        }
    }
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error a person can act on: what happened, and what to do about it.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct Error {
    code: Code,
    /// The SQLSTATE of the database error this came from, if any.
    sql_state: Option<String>,
    message: String,
    /// What to do, most useful first; each printed on a `hint:` line of its own.
    hints: Vec<String>,
    /// For conflicts: the record as it is now (the job, when a guarded move lost the race).
    current: Option<Arc<Current>>,
    /// Extra structured detail for `-o json` (e.g. the lookup that refused a mark).
    /// (Boxed: an `Err` stays small beside the `Ok` of every `Result`.)
    detail: Option<Box<serde_json::Value>>,
    /// Already part of the document on stdout (a streamed run closed its document with it):
    /// stderr still says it, stdout must not get a second document.
    in_output: bool,
    /// What it came from (a database, I/O or parse error), whole: the message already says
    /// it, each link once; a worker that links the library walks it with `source()`.
    #[source]
    cause: Option<Cause>,
}

/// The error an [`Error`] came from, carried by anyhow (cargo's `CliError` pattern: a typed
/// kind with its exit code, and an `anyhow::Error` as the cause). Shown as its outermost
/// link; [`std::error::Error::source`] goes on down its chain.
#[derive(Debug, Clone)]
pub struct Cause(Arc<anyhow::Error>);

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl std::error::Error for Cause {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.0.source()
    }
}

/// A conflict's record as it is now. Opaque here, so that `error` sits below the modules
/// whose records it carries (`jobs` returns these errors; it must not also be their type).
#[derive(Debug)]
struct Current {
    json: serde_json::Value,
    record: Box<dyn Any + Send + Sync>,
}

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            sql_state: None,
            message: message.into(),
            hints: Vec::new(),
            current: None,
            detail: None,
            in_output: false,
            cause: None,
        }
    }

    /// Keep what this error came from (see [`Cause`]).
    pub fn caused_by(mut self, cause: impl Into<anyhow::Error>) -> Self {
        self.cause = Some(Cause(Arc::new(cause.into())));
        self
    }

    /// What this error came from, when it came from another error.
    pub fn cause(&self) -> Option<&anyhow::Error> {
        self.cause.as_ref().map(|c| &*c.0)
    }

    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(Code::Usage, message)
    }

    pub fn config(message: impl Into<String>) -> Self {
        Error::new(Code::Config, message)
    }

    pub fn runtime(message: impl Into<String>) -> Self {
        Error::new(Code::Runtime, message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Error::new(Code::NotFound, message)
    }

    pub fn busy(message: impl Into<String>) -> Self {
        Error::new(Code::Busy, message)
            .hinted("nothing changed; it is safe to run the command again")
    }

    pub fn bug(message: impl Into<String>) -> Self {
        Error::new(Code::Bug, format!("BUG: {}", message.into()))
    }

    pub fn broken_pipe() -> Self {
        Error::new(Code::BrokenPipe, "stdout was closed")
    }

    /// Add a hint (after those already there).
    pub fn hinted(mut self, hint: impl Into<String>) -> Self {
        self.hints.push(hint.into());
        self
    }

    /// Replace the hints: the situation has changed what is worth doing.
    pub fn rehinted(mut self, hint: impl Into<String>) -> Self {
        self.hints = vec![hint.into()];
        self
    }

    /// Rewrite the message (e.g. to say what a failing run had already done).
    pub fn with_message(mut self, message: impl FnOnce(&str) -> String) -> Self {
        self.message = message(&self.message);
        self
    }

    /// Attach the record as it is now (a conflict's job): shown as `current` with `-o json`
    /// and read back typed with [`Error::current`].
    pub fn with_current<T: serde::Serialize + Any + Send + Sync>(mut self, record: T) -> Self {
        self.current = Some(Arc::new(Current {
            json: serde_json::to_value(&record).unwrap_or(serde_json::Value::Null),
            record: Box::new(record),
        }));
        self
    }

    pub fn with_detail(mut self, detail: serde_json::Value) -> Self {
        self.detail = Some(Box::new(detail));
        self
    }

    /// Mark as already printed inside the command's own output document.
    pub fn in_output(mut self) -> Self {
        self.in_output = true;
        self
    }

    pub fn is_in_output(&self) -> bool {
        self.in_output
    }

    pub fn code(&self) -> Code {
        self.code
    }

    /// The database is away for now (down, restarting, unreachable, the session ended, busy):
    /// a live view shows it and tries again, rather than exit. Not a missing database, role,
    /// grant or schema: those stay until someone fixes them.
    pub fn is_transient(&self) -> bool {
        matches!(
            self.code,
            Code::Connect
                | Code::ConnectTimeout
                | Code::ConnectionLost
                | Code::TargetSessionAttrs
                | Code::PoolTimeout
                | Code::Busy
        )
    }

    /// The class (first two characters) of the SQLSTATE of the database error this came
    /// from: `22` data exception, `23` integrity constraint violation, …
    pub fn sql_state_class(&self) -> Option<&str> {
        self.sql_state.as_deref().and_then(|s| s.get(..2))
    }

    pub fn kind(&self) -> Kind {
        self.code.kind()
    }

    pub fn message(&self) -> &str {
        &self.message
    }

    pub fn hints(&self) -> &[String] {
        &self.hints
    }

    /// The record attached by [`Error::with_current`], when it is a `T` (a `jobs::Job`).
    pub fn current<T: Any>(&self) -> Option<&T> {
        self.current.as_ref()?.record.downcast_ref()
    }

    pub fn detail(&self) -> Option<&serde_json::Value> {
        self.detail.as_deref()
    }

    pub fn exit_code(&self) -> u8 {
        exit_code(&Err(self.clone()))
    }

    /// The `{"error": {...}}` document printed on stdout with `-o json`: `hint` is the first
    /// hint (or null), `hints` all of them.
    pub fn to_json(&self) -> serde_json::Value {
        let mut obj = serde_json::Map::new();
        obj.insert("kind".into(), self.kind().as_str().into());
        obj.insert("code".into(), self.code.as_str().into());
        // As stderr shows it: control characters escaped (see `Ui::error`).
        obj.insert(
            "message".into(),
            crate::escape::escape(&self.message).into(),
        );
        obj.insert(
            "hint".into(),
            self.hints
                .first()
                .cloned()
                .map_or(serde_json::Value::Null, Into::into),
        );
        obj.insert("hints".into(), self.hints.clone().into());
        obj.insert("exit_code".into(), self.exit_code().into());
        if let Some(current) = &self.current {
            obj.insert("current".into(), current.json.clone());
        }
        if let Some(detail) = &self.detail {
            obj.insert("detail".into(), (**detail).clone());
        }
        serde_json::json!({ "error": obj })
    }
}

impl From<tokio_postgres::Error> for Error {
    fn from(err: tokio_postgres::Error) -> Self {
        let mut e = db_error(&err);
        e.sql_state = err.code().map(|c| c.code().to_string());
        e.caused_by(err)
    }
}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Self {
        Error::runtime(format!("I/O error: {err}")).caused_by(err)
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
            .rehinted("nothing changed; run it again, or raise --statement-timeout");
        }
        if *code == SqlState::ADMIN_SHUTDOWN
            || *code == SqlState::CRASH_SHUTDOWN
            || code.code().starts_with("08")
        {
            // The server ended this session (pg_terminate_backend, a shutdown, a failover).
            return Error::new(
                Code::ConnectionLost,
                format!("the database connection was closed: {message}"),
            );
        }
        if *code == SqlState::T_R_DEADLOCK_DETECTED || *code == SqlState::T_R_SERIALIZATION_FAILURE
        {
            return Error::busy(format!("busy: {message}"));
        }
        if *code == SqlState::READ_ONLY_SQL_TRANSACTION {
            return Error::new(
                Code::ReadOnly,
                format!("the database refused a change: {message}"),
            )
            .hinted("nothing changed: this session is read-only (a hot standby, or --read-only); to make changes, drop --read-only and reach the primary, e.g. with a multi-host URL and target_session_attrs=read-write");
        }
        if *code == SqlState::UNDEFINED_TABLE {
            return Error::new(Code::Schema, format!("database error: {message}"))
                .hinted("run `reconctl migrate` to create the schema");
        }
        if *code == SqlState::INSUFFICIENT_PRIVILEGE {
            return Error::new(
                Code::Permission,
                format!("the database refused: {message}"),
            )
            .hinted("the database user lacks this grant: inspection needs the role reconctl_reader, mark/sweep/reconcile reconctl_operator, reserve reconctl_worker (GRANT reconctl_operator TO <user>); see README, \"Roles\"");
        }
        return Error::new(Code::Database, format!("database error: {message}"));
    }
    if err.is_closed() {
        return Error::new(Code::ConnectionLost, "the database connection was closed");
    }
    // Connection-level errors: tokio-postgres formats these without the connection string.
    Error::new(Code::Database, format!("database: {}", chain(err)))
}

/// An error and its sources on one line, each said once ("error connecting to server:
/// Connection refused (os error 111)", where anyhow's `{:#}` would say the refusal twice:
/// tokio-postgres puts its source's text in its own).
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut message = String::new();
    for link in anyhow::Chain::new(e) {
        let text = link.to_string();
        if message.is_empty() {
            message = text;
        } else if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_spec_section_5() {
        assert_eq!(exit_code(&Ok(Exit::Done)), 0);
        assert_eq!(exit_code(&Ok(Exit::Inconclusive)), 1);
        assert_eq!(exit_code(&Ok(Exit::Attention)), 5);
        assert_eq!(exit_code(&Ok(Exit::Busy)), 6);
        for (code, exit) in [
            (Code::Database, 1),
            (Code::Connect, 1),
            (Code::Bug, 1),
            (Code::Usage, 2),
            (Code::ConfirmationRequired, 2),
            (Code::Declined, 2),
            (Code::VersionConflict, 3),
            (Code::RefusedByLookup, 3),
            (Code::NotFound, 4),
            (Code::Attention, 5),
            (Code::Busy, 6),
            (Code::BrokenPipe, 0),
        ] {
            assert_eq!(Error::new(code, "x").exit_code(), exit, "{code}");
        }
    }

    #[test]
    fn the_cause_is_kept_whole_and_the_exit_code_hangs_on_the_kind() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = Error::from(io);
        assert_eq!(e.message(), "I/O error: no such file");
        assert_eq!(e.exit_code(), 1);
        let source = std::error::Error::source(&e).expect("the I/O error as its source");
        assert_eq!(source.to_string(), "no such file");
        let cause = e.cause().and_then(|c| c.downcast_ref::<std::io::Error>());
        assert_eq!(
            cause.map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound)
        );
        // Carried through a clone, and typed errors without a cause have none.
        assert!(e.clone().cause().is_some());
        assert!(std::error::Error::source(&Error::usage("bad")).is_none());
    }

    #[test]
    fn a_chain_says_each_link_once() {
        #[derive(Debug, thiserror::Error)]
        #[error("refused")]
        struct Inner;
        #[derive(Debug, thiserror::Error)]
        #[error("connecting: {0}")]
        struct Repeats(#[source] Inner);
        #[derive(Debug, thiserror::Error)]
        #[error("connecting")]
        struct Plain(#[source] Inner);
        assert_eq!(chain(&Repeats(Inner)), "connecting: refused");
        assert_eq!(chain(&Plain(Inner)), "connecting: refused");
    }

    #[test]
    fn hints_accumulate_and_json_carries_all_of_them() {
        let e = Error::usage("bad").hinted("first").hinted("second");
        assert_eq!(e.hints(), ["first", "second"]);
        let j = e.to_json();
        assert_eq!(j["error"]["hint"], "first");
        assert_eq!(j["error"]["hints"], serde_json::json!(["first", "second"]));
        assert_eq!(j["error"]["exit_code"], 2);
        assert_eq!(e.rehinted("only").hints(), ["only"]);
    }
}
