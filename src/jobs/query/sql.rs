//! The one statement builder: a statement and its bind parameters, built by the query
//! modules and `jobs::events`, run (or EXPLAINed) by the caller.
//!
//! Every parameter carries the PostgreSQL type it is sent as ([`Typed`]), so a statement can
//! run either way: prepared (`client.query(&sql.text, &sql.params())`, the server infers each
//! placeholder's type and the client checks the value against it), or in one round trip
//! ([`Sql::query_typed`]: parse, bind and execute together, one transaction for the server;
//! `events --follow`'s idle cost is one of these a poll). A statement run the second way
//! casts every placeholder to its parameter's type (`$1::text`), so the server infers nothing.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{GenericClient, Row};
use uuid::Uuid;

/// The PostgreSQL type a parameter is sent as: every type the crate binds has one.
pub trait Typed {
    const TYPE: Type;
}

macro_rules! typed {
    ($($rust:ty => $pg:ident),* $(,)?) => {
        $(impl Typed for $rust {
            const TYPE: Type = Type::$pg;
        })*
    };
}

typed! {
    String => TEXT,
    i64 => INT8,
    bool => BOOL,
    f64 => FLOAT8,
    DateTime<Utc> => TIMESTAMPTZ,
    Uuid => UUID,
    Value => JSONB,
    Vec<String> => TEXT_ARRAY,
    Vec<Option<String>> => TEXT_ARRAY,
    Vec<i64> => INT8_ARRAY,
    Vec<Uuid> => UUID_ARRAY,
    Vec<Value> => JSONB_ARRAY,
}

/// NULL is sent as the type of the value it stands for.
impl<T: Typed> Typed for Option<T> {
    const TYPE: Type = T::TYPE;
}

/// A statement and its bind parameters, built here and run (or EXPLAINed) by the caller.
pub struct Sql {
    pub text: String,
    params: Vec<(Box<dyn ToSql + Sync + Send>, Type)>,
}

impl Sql {
    pub fn new() -> Sql {
        Sql {
            text: String::new(),
            params: Vec::new(),
        }
    }

    /// A statement without parameters.
    pub fn from_text(text: &str) -> Sql {
        Sql {
            text: text.to_string(),
            params: Vec::new(),
        }
    }

    /// Add a parameter; returns its placeholder (`$3`).
    pub fn bind<T: ToSql + Typed + Sync + Send + 'static>(&mut self, value: T) -> String {
        self.params.push((Box::new(value), T::TYPE));
        format!("${}", self.params.len())
    }

    pub fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params
            .iter()
            .map(|(p, _)| p.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }

    /// The parameters with their types, for `query_typed`.
    pub fn typed_params(&self) -> Vec<(&(dyn ToSql + Sync), Type)> {
        self.params
            .iter()
            .map(|(p, t)| (p.as_ref() as &(dyn ToSql + Sync), t.clone()))
            .collect()
    }

    /// Run it in one round trip (see the module doc: every placeholder cast to its type).
    pub async fn query_typed<C: GenericClient>(
        &self,
        client: &C,
    ) -> std::result::Result<Vec<Row>, tokio_postgres::Error> {
        client.query_typed(&self.text, &self.typed_params()).await
    }
}

impl Default for Sql {
    fn default() -> Self {
        Sql::new()
    }
}

impl std::fmt::Debug for Sql {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sql")
            .field("text", &self.text)
            .field("params", &self.params.len())
            .finish()
    }
}

pub(super) fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

/// Bounds on the audit log's `at` that let the planner leave out the monthly partitions a
/// statement over a recent window cannot need.
///
/// A window like "the last hour" is written `at > now() - …`, and `now()` is not known when
/// the statement is planned: the planner plans every partition (the legacy one, each month
/// kept, the months made ahead), and in a fresh session that means loading each one's
/// indexes into the catalog caches, which is most of such a statement's cost (1.4 ms of
/// planning for a probe that runs in 0.06 ms, with five partitions; more as months are kept).
/// These bounds are plain parameters, known when the statement is planned (its first runs
/// get plans of their own), so only the partitions around the window are planned.
///
/// They come from this machine's clock, with a day's margin either side of the window, and
/// the statement checks them against the server's clock ([`Prune::guard`]): if the two
/// clocks disagree by more than the margin, the caller runs the statement again without
/// bounds ([`Prune::none`]). So a skewed clock costs a second round trip, never a count.
#[derive(Debug, Clone, Copy)]
pub struct Prune {
    lo: Option<DateTime<Utc>>,
    hi: Option<DateTime<Utc>>,
    window: Duration,
}

impl Prune {
    /// How far this machine's clock may be from the server's.
    pub const MARGIN: Duration = Duration::from_secs(86_400);

    /// Bounds for the window ending now (this machine's clock), `window` long.
    pub fn around(window: Duration) -> Prune {
        Prune::around_at(Utc::now(), window)
    }

    /// Bounds for the window ending at `now` as this machine's clock reads it.
    pub fn around_at(now: DateTime<Utc>, window: Duration) -> Prune {
        let span = |d: Duration| chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX);
        Prune {
            lo: now.checked_sub_signed(span(window) + span(Prune::MARGIN)),
            hi: now.checked_add_signed(span(Prune::MARGIN)),
            window,
        }
    }

    /// No bounds: every partition planned.
    pub fn none() -> Prune {
        Prune {
            lo: None,
            hi: None,
            window: Duration::ZERO,
        }
    }

    /// Run the statement `build` makes for these bounds. When its guard (the boolean column
    /// `guard` of its first row: [`Prune::guard`]) says the server's clock is outside them,
    /// run it again without bounds. Returns the rows and the bounds they were read with.
    pub async fn query<C: GenericClient>(
        self,
        client: &C,
        guard: usize,
        build: impl Fn(&Prune) -> Sql,
    ) -> std::result::Result<(Vec<Row>, Prune), tokio_postgres::Error> {
        let sql = build(&self);
        let rows = sql.query_typed(client).await?;
        match rows.first() {
            Some(first) if !first.try_get::<_, bool>(guard)? => {
                // This machine's clock is more than a day from the server's: every partition.
                let sql = build(&Prune::none());
                Ok((client.query(&sql.text, &sql.params()).await?, Prune::none()))
            }
            _ => Ok((rows, self)),
        }
    }

    /// The condition on `column` (an event's `at`) that keeps the window's events and lets
    /// the planner prune: with the bounds bound as parameters of `sql`.
    pub fn condition(&self, sql: &mut Sql, column: &str) -> (String, String, String) {
        let lo = sql.bind(self.lo);
        let hi = sql.bind(self.hi);
        let cond = format!(
            "({lo}::timestamptz IS NULL OR {column} > {lo}::timestamptz) \
             AND ({hi}::timestamptz IS NULL OR {column} < {hi}::timestamptz)"
        );
        (cond, lo, hi)
    }

    /// An expression true when the server's clock puts the window inside the bounds (`lo`,
    /// `hi`: the placeholders [`Prune::condition`] returned).
    pub fn guard(&self, lo: &str, hi: &str) -> String {
        format!(
            "(({lo}::timestamptz IS NULL OR now() - make_interval(secs => {}) > {lo}::timestamptz) \
              AND ({hi}::timestamptz IS NULL OR now() < {hi}::timestamptz))",
            secs(self.window)
        )
    }
}
