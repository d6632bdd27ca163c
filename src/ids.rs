//! Job ids as people read and type them: a table shortens a UUID to a prefix that tells it
//! apart, and every JOB argument takes such a prefix back. A leaf: the jobs module (which
//! resolves a prefix) and the UI (which shortens ids) both use it, neither through the other.

use uuid::Uuid;

/// The fewest hex digits a prefix needs (as tables shorten ids: 8 and more).
pub const MIN_PREFIX: usize = 8;

/// How many characters of its text form tell `id` apart from `other` (at least
/// [`MIN_PREFIX`], never ending in a dash: a prefix every JOB argument takes).
pub fn prefix_len(id: &Uuid, other: &Uuid) -> usize {
    const DASHES: [usize; 4] = [8, 13, 18, 23];
    if id == other {
        return MIN_PREFIX;
    }
    let (a, b) = (id.to_string(), other.to_string());
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    let mut len = (common + 1).max(MIN_PREFIX);
    while len < 36 && DASHES.contains(&(len - 1)) {
        len += 1;
    }
    len.min(36)
}
