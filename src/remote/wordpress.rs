//! `kind = "wordpress"`: WordPress's REST API, asked the way it must be to see every copy of
//! an article (SPEC §4, "Real CMSs").
//!
//! What a plain `GET /wp-json/wp/v2/posts?slug=REF` misses, and what this asks instead:
//!
//! * **Unpublished copies.** Without `status`, WordPress lists only published posts; an
//!   anonymous reader may not list any other status at all. So the lookup asks for every
//!   status (`publish,future,draft,pending,private,trash`) with credentials that may read
//!   them (an application password, HTTP Basic), and the positive control proves those
//!   credentials ([`ACCESS_ROUTE`]): WordPress answers a public list asked with a wrong or
//!   unknown credential as if an anonymous reader had asked.
//! * **Renamed copies.** WordPress does not refuse a second post with a slug in use: it
//!   names it `REF-2` (then `-3`, …). A trashed post's slug becomes `REF__trashed`. The
//!   lookup asks for all of these names at once ([`candidates`]); every one found is a match.
//!   A draft or pending post keeps `REF` itself (WordPress makes only published slugs
//!   unique), which is why a retry beside a draft is named `REF-2`.
//! * **Pretty permalinks or not.** `?rest_route=` reaches the REST API on every site;
//!   `/wp-json/` only where permalinks are enabled.
//!
//! Limits: copies past `REF-10` are found only if one of `REF`…`REF-10` still exists (any
//! copy found already makes the verdict `conflict`); a second post trashed under the same
//! slug (`REF__trashed-2`) is found only beside `REF__trashed`; a post an editor renamed to
//! an unrelated slug is not found by any slug lookup; a custom post type's capabilities are
//! checked under the `posts` names. Statuses a plugin registers (an editorial workflow's
//! `pitch`, `assigned`) are asked for when the config names them (`statuses`); the positive
//! control fails while the site has one the config does not name.

/// How many renamed copies (`REF-2` … `REF-{COPIES+1}`) one lookup asks for.
pub const COPIES: u32 = 9;

/// The statuses asked for: every status a post of an article can have, trash included.
pub const STATUSES: &str = "publish,future,draft,pending,private,trash";

/// The route that says who the credentials are and what they may do.
pub const ACCESS_ROUTE: &str = "/wp/v2/users/me";

/// The slugs under which WordPress may hold `external_ref`: itself, its renamed copies, and
/// their trashed names.
pub fn candidates(external_ref: &str) -> Vec<String> {
    let mut live = vec![external_ref.to_string()];
    live.extend((2..=COPIES + 1).map(|n| format!("{external_ref}-{n}")));
    let trashed: Vec<String> = live.iter().map(|s| format!("{s}__trashed")).collect();
    live.extend(trashed);
    live
}

/// A REST route of the site, through `?rest_route=` (works with and without pretty
/// permalinks), with the query `params` after it.
pub fn route_url(base_url: &str, route: &str, params: &[(&str, &str)]) -> String {
    let mut url = format!("{base_url}/?rest_route={route}");
    for (k, v) in params {
        url.push('&');
        url.push_str(k);
        url.push('=');
        url.push_str(v);
    }
    url
}

/// The lookup for `external_ref` in `collection`: every candidate slug, every status, only
/// the fields read (`id`, `slug`, `status`, and the top-level field of a `content_hash`
/// pointer such as `/meta/payload_hash`).
pub fn lookup_url(
    base_url: &str,
    collection: &str,
    extra_statuses: &[String],
    external_ref: &str,
    content_hash: Option<&str>,
) -> String {
    let statuses = std::iter::once(STATUSES.to_string())
        .chain(extra_statuses.iter().cloned())
        .collect::<Vec<_>>()
        .join(",");
    let slugs: Vec<String> = candidates(external_ref)
        .iter()
        .map(|s| percent_encoding::utf8_percent_encode(s, crate::config::REF_ENCODE).to_string())
        .collect();
    let mut fields = String::from("id,slug,status");
    if let Some(top) = content_hash.and_then(|p| p.split('/').nth(1)) {
        if !top.is_empty() && !["id", "slug", "status"].contains(&top) {
            fields.push(',');
            fields.push_str(top);
        }
    }
    route_url(
        base_url,
        &format!("/wp/v2/{collection}"),
        &[
            ("slug", &slugs.join(",")),
            ("status", &statuses),
            ("per_page", "100"),
            ("orderby", "id"),
            ("order", "asc"),
            ("_fields", &fields),
        ],
    )
}

/// The URL of the site's registered post statuses (with the credentials' view: every one).
pub fn statuses_url(base_url: &str) -> String {
    route_url(base_url, "/wp/v2/statuses", &[("context", "edit")])
}

/// The statuses the site registers that the lookup does not ask for (a plugin's editorial
/// workflow: `pitch`, `assigned`): a copy in one of them would be missed.
pub fn unasked_statuses(body: &serde_json::Value, extra: &[String]) -> Result<Vec<String>, String> {
    let Some(registered) = body.as_object() else {
        return Err("the list of statuses is not an object".into());
    };
    Ok(registered
        .keys()
        .filter(|k| !STATUSES.split(',').any(|s| s == k.as_str()) && !extra.contains(k))
        .map(|k| crate::escape::escape(k))
        .collect())
}

/// The URL of [`ACCESS_ROUTE`], with the capabilities in it.
pub fn access_url(base_url: &str) -> String {
    route_url(
        base_url,
        ACCESS_ROUTE,
        &[("context", "edit"), ("_fields", "id,slug,capabilities")],
    )
}

/// What the credentials may see, from [`ACCESS_ROUTE`]'s answer: the statuses of
/// `collection` they can list, or which capability is missing to see them all.
pub fn access(body: &serde_json::Value, collection: &str) -> Result<Access, String> {
    let user = match body.get("slug").and_then(|s| s.as_str()) {
        Some(s) => crate::escape::escape(&s.chars().take(60).collect::<String>()),
        None => return Err("the answer names no user".into()),
    };
    let Some(caps) = body.get("capabilities").and_then(|c| c.as_object()) else {
        return Err(format!("the answer for user {user} lists no capabilities"));
    };
    let noun = if collection == "pages" {
        "pages"
    } else {
        "posts"
    };
    let has = |c: &str| caps.get(c).and_then(|v| v.as_bool()).unwrap_or(false);
    // To list another author's drafts, pending and trashed posts (edit_others), scheduled
    // ones (edit_published) and private ones (read_private): WordPress's REST list silently
    // drops the posts its reader may not see, which would read as "not found".
    let needed = [
        "edit_posts".to_string(),
        format!("edit_others_{noun}"),
        format!("edit_published_{noun}"),
        format!("read_private_{noun}"),
    ];
    let missing: Vec<&str> = needed
        .iter()
        .map(String::as_str)
        .filter(|c| !has(c))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "user {user} lacks {} and cannot see every unpublished copy (drafts, scheduled, private and trashed {noun} of others): use an application password of an editor or administrator",
            missing.join(", ")
        ));
    }
    Ok(Access {
        user,
        statuses: STATUSES.split(',').map(str::to_string).collect(),
    })
}

/// Who the credentials are and what they see.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Access {
    pub user: String,
    pub statuses: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_the_ref_its_copies_and_their_trashed_names() {
        let c = candidates("pub_ab");
        assert_eq!(c.len(), 2 * (COPIES as usize + 1));
        assert_eq!(c[0], "pub_ab");
        assert_eq!(c[1], "pub_ab-2");
        assert_eq!(c[COPIES as usize], "pub_ab-10");
        assert_eq!(c[COPIES as usize + 1], "pub_ab__trashed");
        assert_eq!(c.last().unwrap(), "pub_ab-10__trashed");
    }

    #[test]
    fn the_lookup_asks_every_status_and_only_the_fields_it_reads() {
        let u = lookup_url(
            "http://blog",
            "posts",
            &[],
            "pub_ab",
            Some("/meta/payload_hash"),
        );
        assert!(
            u.starts_with("http://blog/?rest_route=/wp/v2/posts&slug=pub_ab,pub_ab-2,"),
            "{u}"
        );
        assert!(
            u.contains("&status=publish,future,draft,pending,private,trash&"),
            "{u}"
        );
        assert!(u.ends_with("&_fields=id,slug,status,meta"), "{u}");
        let u = lookup_url(
            "http://blog/sub",
            "pages",
            &["pitch".into()],
            "pub_ab",
            None,
        );
        assert!(
            u.starts_with("http://blog/sub/?rest_route=/wp/v2/pages&"),
            "{u}"
        );
        assert!(
            u.contains("&status=publish,future,draft,pending,private,trash,pitch&"),
            "{u}"
        );
        assert!(u.ends_with("&_fields=id,slug,status"), "{u}");
    }

    #[test]
    fn statuses_a_plugin_registers_must_be_asked_for() {
        let site = serde_json::json!({"publish": {}, "future": {}, "draft": {}, "pending": {},
            "private": {}, "trash": {}, "pitch": {}, "assigned": {}});
        assert_eq!(unasked_statuses(&site, &[]).unwrap(), ["assigned", "pitch"]);
        assert_eq!(
            unasked_statuses(&site, &["pitch".into(), "assigned".into()]).unwrap(),
            Vec::<String>::new()
        );
    }

    #[test]
    fn access_needs_an_editor() {
        let editor = serde_json::json!({"id": 1, "slug": "ed", "capabilities": {
            "edit_posts": true, "edit_others_posts": true, "edit_published_posts": true,
            "read_private_posts": true}});
        assert_eq!(access(&editor, "posts").unwrap().user, "ed");
        let author = serde_json::json!({"id": 2, "slug": "au", "capabilities": {
            "edit_posts": true, "edit_others_posts": false}});
        let e = access(&author, "posts").unwrap_err();
        assert!(
            e.contains("edit_others_posts, edit_published_posts, read_private_posts"),
            "{e}"
        );
        assert!(access(&serde_json::json!({"code": "x"}), "posts").is_err());
    }
}
