//! The audit trail across jobs (`reconctl events`, SPEC §7): every job event and every
//! destination event (pause, repause, resume, expire) as one stream, filtered, in keyset
//! pages; and following that stream as transactions commit.
//!
//! One idea a file:
//! - `filter`: what is asked for (the actions, actor, job, destination, and the bounds in
//!   time) and the fingerprint a cursor is bound to;
//! - `event`: one event of the trail, from either log, in one shape;
//! - `branch`: where events are read from, and the branches a filter makes of them, each a
//!   range of one index;
//! - `page`: listing in keyset pages (`--cursor`) and the newest N (`--last`);
//! - `snapshot`: what committed since a snapshot, the delta `--follow` reads;
//! - `follow`: the follower (history first, then live; reconnecting; a server restart;
//!   polling).
//!
//! Statements are built with the crate's one builder, [`crate::jobs::query::Sql`], and each
//! runs in one round trip. Reading what an operator types (`--action`, `--since`) is the
//! command's (`commands::events`): the worker library takes the parsed values.

mod branch;
mod event;
mod filter;
mod follow;
mod page;
mod snapshot;

pub use event::TrailEvent;
pub(crate) use filter::is_destination_action;
pub use filter::{EventFilter, Since};
pub use follow::{
    gave_up, is_transient, next_poll, Follow, FollowError, History, Step, FOLLOW_BATCH, POLL_MAX,
    POLL_MIN,
};
pub use page::{decode_cursor, encode_cursor, last, last_sql, page, page_sql, EventPage, Position};
pub use snapshot::{delta_sql, Snapshot};
