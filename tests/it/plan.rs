//! Query plans as the plan tests read them: EXPLAIN (FORMAT JSON) flattened into nodes.

use serde_json::Value;

/// One node of a plan.
#[derive(Debug, Clone)]
pub struct Node {
    /// "Seq Scan", "Index Scan", "Sort", …
    pub kind: String,
    /// The table it reads ("" when it reads none).
    pub relation: String,
    /// The index it reads ("" when it reads none).
    pub index: String,
    /// The rows the planner expects it to return.
    pub rows: f64,
    /// With ANALYZE: the rows it returned plus those its filter removed, over all its loops.
    pub read: f64,
    /// With ANALYZE: how many times it ran.
    pub loops: f64,
    /// With ANALYZE, of an index-only scan: the rows it had to look up in the table.
    pub heap_fetches: Option<f64>,
}

/// Every node of a plan (the `Plan` member of EXPLAIN's document), parents before children.
pub fn nodes(plan: &Value) -> Vec<Node> {
    let mut out = Vec::new();
    walk(plan, &mut out);
    out
}

fn walk(plan: &Value, out: &mut Vec<Node>) {
    let s = |k: &str| plan[k].as_str().unwrap_or("").to_string();
    let n = |k: &str| plan[k].as_f64().unwrap_or(0.0);
    out.push(Node {
        kind: s("Node Type"),
        relation: s("Relation Name"),
        index: s("Index Name"),
        rows: plan["Plan Rows"].as_f64().unwrap_or(f64::MAX),
        read: (n("Actual Rows") + n("Rows Removed by Filter")) * n("Actual Loops"),
        loops: n("Actual Loops"),
        heap_fetches: plan["Heap Fetches"].as_f64(),
    });
    if let Some(children) = plan["Plans"].as_array() {
        for c in children {
            walk(c, out);
        }
    }
}

/// The plan of `sql` with `params` (`analyze`: run it, for actual row counts).
pub async fn explain(
    client: &tokio_postgres::Client,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    analyze: bool,
) -> Value {
    let options = if analyze {
        "ANALYZE, FORMAT JSON"
    } else {
        "FORMAT JSON"
    };
    let rows = client
        .query(&format!("EXPLAIN ({options}) {sql}"), params)
        .await
        .unwrap();
    let doc: Value = rows[0].get(0);
    doc[0]["Plan"].clone()
}

/// The plan of `sql` with `params`, run, with the buffers it touched (for [`pages_read`]).
pub async fn explain_buffers(
    client: &tokio_postgres::Client,
    sql: &str,
    params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
) -> Value {
    let rows = client
        .query(
            &format!("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) {sql}"),
            params,
        )
        .await
        .unwrap();
    let doc: Value = rows[0].get(0);
    doc[0]["Plan"].clone()
}

/// The shared-buffer pages a plan from [`explain_buffers`] read, found in cache or not.
pub fn pages_read(plan: &Value) -> i64 {
    plan["Shared Hit Blocks"].as_i64().unwrap() + plan["Shared Read Blocks"].as_i64().unwrap()
}

/// `plan` with each partition of the partitioned logs (V11) and each partition's index named
/// by the table and index it belongs to, so that a test can ask for `ix_job_events_at` or
/// forbid a sequential scan of `job_events`. An empty partition (a coming month) keeps its own
/// name: reading it whole reads nothing.
pub async fn by_parents(client: &tokio_postgres::Client, mut plan: Value) -> Value {
    let parent_of: std::collections::HashMap<String, String> = client
        .query(
            "SELECT c.relname::text, p.relname::text FROM pg_inherits i
             JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
             WHERE c.relkind <> 'r' OR pg_relation_size(c.oid) > 0",
            &[],
        )
        .await
        .expect("read the partitions")
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    fn rename(v: &mut Value, parent_of: &std::collections::HashMap<String, String>) {
        match v {
            Value::Object(m) => {
                for key in ["Relation Name", "Index Name"] {
                    if let Some(Value::String(name)) = m.get_mut(key) {
                        if let Some(p) = parent_of.get(name.as_str()) {
                            *name = p.clone();
                        }
                    }
                }
                for (_, child) in m.iter_mut() {
                    rename(child, parent_of);
                }
            }
            Value::Array(a) => a.iter_mut().for_each(|c| rename(c, parent_of)),
            _ => {}
        }
    }
    rename(&mut plan, &parent_of);
    plan
}
