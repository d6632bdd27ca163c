//! Rebuild when a migration is added or changed: refinery embeds `migrations/` at compile
//! time, and cargo does not otherwise know the macro read that directory.

fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
