//! A statement and its bind parameters, built by the query modules and run (or EXPLAINed)
//! by the caller.

use std::time::Duration;

use tokio_postgres::types::ToSql;

/// A statement and its bind parameters, built here and run (or EXPLAINed) by the caller.
pub struct Sql {
    pub text: String,
    params: Vec<Box<dyn ToSql + Sync + Send>>,
}

impl Sql {
    pub(super) fn new() -> Sql {
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
    pub(super) fn bind<T: ToSql + Sync + Send + 'static>(&mut self, value: T) -> String {
        self.params.push(Box::new(value));
        format!("${}", self.params.len())
    }

    pub fn params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.params
            .iter()
            .map(|p| p.as_ref() as &(dyn ToSql + Sync))
            .collect()
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
