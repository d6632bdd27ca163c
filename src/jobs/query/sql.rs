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
