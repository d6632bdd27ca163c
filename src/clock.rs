//! The database's clock, as seen from this host.
//!
//! Every time reconctl compares or records is on the database's clock: `sent_at`, leases and
//! `state_changed_at` are written by the database, so a lookup's "when asked", an event's
//! evidence and a message's "expired 30s ago" must be too, or a host whose clock is off would
//! judge a "not found" settled early, or tell an operator a live lease had expired.
//! [`DbClock`] is the offset between the two clocks, read once per run
//! (`jobs::query::db_clock`), and the database's "now" computed from it without a round trip.

use chrono::{DateTime, Utc};

/// The database's clock: this host's clock minus how far it runs ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DbClock {
    /// This host's clock minus the database's (positive: this host runs ahead).
    ahead: chrono::Duration,
}

impl DbClock {
    /// From the database's `now()`, read at `local_after` (this host's clock once the answer
    /// arrived). Reading ours after the round trip can only overstate how far ahead we are,
    /// which makes the database's "now" look earlier: a send looks more recent, never settled
    /// too early.
    pub fn from_reading(db_now: DateTime<Utc>, local_after: DateTime<Utc>) -> DbClock {
        DbClock {
            ahead: local_after - db_now,
        }
    }

    /// For code that has no database (tests, a lookup without a job): this host's clock.
    pub fn local() -> DbClock {
        DbClock {
            ahead: chrono::Duration::zero(),
        }
    }

    /// Now, on the database's clock.
    pub fn now(&self) -> DateTime<Utc> {
        Utc::now() - self.ahead
    }

    /// How far this host's clock runs ahead of the database's.
    pub fn ahead(&self) -> chrono::Duration {
        self.ahead
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn now_is_on_the_database_s_clock() {
        let local = Utc::now();
        let clock = DbClock::from_reading(local - chrono::Duration::hours(1), local);
        let lag = (Utc::now() - chrono::Duration::hours(1)) - clock.now();
        assert!(lag.num_milliseconds().abs() < 1000, "{lag}");
        assert_eq!(clock.ahead(), chrono::Duration::hours(1));
        assert!(
            (Utc::now() - DbClock::local().now())
                .num_milliseconds()
                .abs()
                < 1000
        );
    }
}
