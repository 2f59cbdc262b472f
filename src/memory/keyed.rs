//! Memory items kept under a namespace and a key, as the stores of agent frameworks keep
//! them (LangGraph's `BaseStore`, on which LangMem builds): a JSON object, when it was
//! made and last changed, when it expires, and, when given, the turn it was derived from.
//!
//! An item is an `ihi:KeyedItem` (a `jido:MemoryItem`, `jcore:Memory` and `prov:Entity`)
//! in the store's memory graph, as `remember`'s items are; its namespace is kept as a JSON
//! array of its labels and its value as its JSON text (an `xsd:string`, as payloads are
//! kept: OWL 2 has no `rdf:JSON`), both written compactly, so that they read back as
//! written. Its IRI comes from its namespace and key: putting the
//! same key again replaces the item (keeping when it was made). An item derived from a
//! turn is deleted with that turn's session, as `remember`'s items are.

use super::{MemoryError, derived_from, item_quads, triple};
use crate::query::{Arguments, KEYED_ITEMS};
use crate::rdf::vocab::{ihi, jcore, jido, prov, rdf};
use crate::store::{HistoryStore, StoreError, data_block, replace_data};
use oxigraph::sparql::QueryResults;
use oxrdf::vocab::xsd;
use oxrdf::{Literal, Quad, Term, Triple};
use oxsdatatypes::{DateTime, DayTimeDuration, Decimal};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// A keyed memory item, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyedItem {
    /// Its namespace: a path of labels.
    pub namespace: Vec<String>,
    /// Its key within the namespace.
    pub key: String,
    /// Its value, a JSON object, as it was put.
    pub value: Value,
    /// When it was first put.
    pub created: DateTime,
    /// When it was last put.
    pub updated: DateTime,
    /// When it expires, if it does.
    pub expires: Option<DateTime>,
    /// How long it lives after it is put or refreshed, if it expires.
    pub ttl: Option<DayTimeDuration>,
    /// The session it was derived from, when it was.
    pub session: Option<String>,
    /// The `TurnIndex` of the turn it was derived from, when it was.
    pub turn: Option<u64>,
}

/// What to put.
#[derive(Debug, Clone, Copy)]
pub struct PutItem<'a> {
    /// The namespace (at least one label).
    pub namespace: &'a [String],
    /// The key.
    pub key: &'a str,
    /// The value: a JSON object.
    pub value: &'a Value,
    /// The session and `TurnIndex` of the turn it comes from, if any.
    pub source: Option<(&'a str, u64)>,
    /// How long it lives after it is put (or refreshed, [`refresh_item`]): it expires
    /// then. `None`: for ever.
    pub ttl: Option<DayTimeDuration>,
}

/// The id of a keyed item: its namespace and key, hashed (16 hex digits, as memory ids).
///
/// ```
/// use ihigraph::memory::keyed_item_id;
/// let path = |labels: &[&str]| labels.iter().map(|l| l.to_string()).collect::<Vec<_>>();
/// assert_eq!(keyed_item_id(&path(&["users", "ana"]), "k").len(), 16);
/// assert_ne!(keyed_item_id(&path(&["a", "b"]), "c"), keyed_item_id(&path(&["a"]), "b\u{0}c"));
/// ```
pub fn keyed_item_id(namespace: &[String], key: &str) -> String {
    let text = serde_json::to_string(&(namespace, key)).unwrap_or_default();
    let digest = Sha256::digest(format!("keyed\u{0}{text}").as_bytes());
    hex::encode(&digest[..8])
}

/// Puts an item: new, or replacing the one under the same namespace and key.
///
/// ```
/// use ihigraph::memory::{PutItem, keyed_items, put_item};
/// let store = ihigraph::HistoryStore::in_memory(&Default::default())?;
/// let namespace = vec!["users".to_owned(), "ana".to_owned()];
/// let value = serde_json::json!({"food": "pizza"});
/// let item = PutItem { namespace: &namespace, key: "likes", value: &value, source: None, ttl: None };
/// put_item(&store, &item, "2026-11-25T10:00:00Z".parse()?)?;
/// let items = keyed_items(&store, &["users".to_owned()], None)?;
/// assert_eq!((items.len(), &items[0].value), (1, &value));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn put_item(store: &HistoryStore, put: &PutItem<'_>, now: DateTime) -> Result<(), MemoryError> {
    if put.namespace.is_empty() {
        return Err(MemoryError::KeyedItem("a namespace of at least one label"));
    }
    if !put.value.is_object() {
        return Err(MemoryError::KeyedItem("a JSON object as its value"));
    }
    let scheme = store.scheme();
    let item = scheme.memory_item(&keyed_item_id(put.namespace, put.key));
    let old = item_quads(store, &item)?;
    let created = old
        .iter()
        .find(|quad| quad.predicate == prov::GENERATED_AT_TIME)
        .map_or_else(|| date_time(now), |quad| quad.object.clone());
    let mut triples: Vec<Triple> = [
        ihi::KEYED_ITEM,
        jido::MEMORY_ITEM,
        jcore::MEMORY,
        prov::ENTITY,
    ]
    .into_iter()
    .map(|class| triple(&item, rdf::TYPE, class))
    .collect();
    let namespace = serde_json::to_string(put.namespace).unwrap_or_default();
    let value = serde_json::to_string(put.value).unwrap_or_default();
    triples.extend([
        triple(
            &item,
            ihi::ITEM_NAMESPACE,
            Literal::new_simple_literal(namespace),
        ),
        triple(&item, ihi::ITEM_KEY, Literal::new_simple_literal(put.key)),
        triple(&item, ihi::ITEM_VALUE, Literal::new_simple_literal(value)),
        triple(&item, prov::GENERATED_AT_TIME, created),
        triple(&item, ihi::UPDATED_AT, date_time(now)),
    ]);
    if let Some(ttl) = put.ttl {
        triples.push(triple(&item, ihi::TIME_TO_LIVE, duration(ttl)));
        triples.push(triple(&item, ihi::EXPIRES_AT, expiry(now, ttl)?));
    }
    if let Some((session, turn)) = put.source {
        let (turn_node, source) = derived_from(store, session, turn)?;
        triples.extend([
            triple(&item, prov::WAS_DERIVED_FROM, turn_node),
            triple(&item, jido::ASSERTED_IN, scheme.work_session(session)),
            triple(&item, jido::HAS_SOURCE_TYPE, source),
        ]);
    }
    let graph = scheme.memory_graph();
    let new: Vec<Quad> = triples
        .into_iter()
        .map(|t| t.in_graph(graph.clone()))
        .collect();
    store.update(&replace_data(&old, &new))?;
    Ok(())
}

/// Moves the expiry of the item under `namespace` and `key` to `now` plus its time to
/// live (what a read does under LangGraph's `refresh_on_read`); whether it has one.
pub fn refresh_item(
    store: &HistoryStore,
    namespace: &[String],
    key: &str,
    now: DateTime,
) -> Result<bool, MemoryError> {
    let item = store.scheme().memory_item(&keyed_item_id(namespace, key));
    let quads = item_quads(store, &item)?;
    let ttl = quads.iter().find_map(|quad| match &quad.object {
        Term::Literal(literal) if quad.predicate == ihi::TIME_TO_LIVE => literal
            .value()
            .parse::<Decimal>()
            .ok()
            .map(DayTimeDuration::new),
        _ => None,
    });
    let Some(ttl) = ttl else {
        return Ok(false);
    };
    let old: Vec<Quad> = quads
        .into_iter()
        .filter(|quad| quad.predicate == ihi::EXPIRES_AT)
        .collect();
    let new = [
        triple(&item, ihi::EXPIRES_AT, expiry(now, ttl)?).in_graph(store.scheme().memory_graph())
    ];
    store.update(&replace_data(&old, &new))?;
    Ok(true)
}

/// Deletes the item under `namespace` and `key`; whether there was one.
pub fn delete_item(
    store: &HistoryStore,
    namespace: &[String],
    key: &str,
) -> Result<bool, MemoryError> {
    let item = store.scheme().memory_item(&keyed_item_id(namespace, key));
    let quads = item_quads(store, &item)?;
    if quads.is_empty() {
        return Ok(false);
    }
    store.update(&data_block("DELETE DATA", &quads))?;
    Ok(true)
}

/// The items whose namespace starts with `prefix` (all for an empty one), by namespace
/// and key; with `at`, only those not expired then.
pub fn keyed_items(
    store: &HistoryStore,
    prefix: &[String],
    at: Option<DateTime>,
) -> Result<Vec<KeyedItem>, MemoryError> {
    let mut arguments = Arguments::new();
    if let Some(at) = at {
        arguments = arguments.date_time("at", at);
    }
    let QueryResults::Solutions(rows) = store.run(&KEYED_ITEMS, &arguments)? else {
        return Ok(Vec::new());
    };
    let mut items = Vec::new();
    for row in rows {
        let row = row.map_err(|e| MemoryError::Store(StoreError::QueryEvaluation(e)))?;
        let text = |name: &str| match row.get(name) {
            Some(Term::Literal(literal)) => Some(literal.value().to_owned()),
            _ => None,
        };
        let iri = row.get("item").map(ToString::to_string).unwrap_or_default();
        let corrupt = |what: &str| MemoryError::CorruptItem {
            item: iri.clone(),
            what: what.to_owned(),
        };
        let namespace: Vec<String> = text("namespace")
            .and_then(|json| serde_json::from_str(&json).ok())
            .ok_or_else(|| corrupt("a namespace that is not a JSON array of strings"))?;
        if !namespace.starts_with(prefix) {
            continue;
        }
        let value: Value = text("value")
            .and_then(|json| serde_json::from_str(&json).ok())
            .ok_or_else(|| corrupt("a value that is not JSON"))?;
        let time = |name: &str| text(name).and_then(|t| t.parse::<DateTime>().ok());
        items.push(KeyedItem {
            namespace,
            key: text("key").unwrap_or_default(),
            value,
            created: time("created").ok_or_else(|| corrupt("no creation time"))?,
            updated: time("updated").ok_or_else(|| corrupt("no update time"))?,
            expires: time("expires"),
            ttl: text("ttl")
                .and_then(|t| t.parse::<Decimal>().ok())
                .map(DayTimeDuration::new),
            session: text("session"),
            turn: text("turnIndex").and_then(|t| t.parse().ok()),
        });
    }
    Ok(items)
}

fn expiry(now: DateTime, ttl: DayTimeDuration) -> Result<Term, MemoryError> {
    now.checked_add_day_time_duration(ttl)
        .map(date_time)
        .ok_or(MemoryError::KeyedItem(
            "a time to live that ends before the year 10000",
        ))
}

/// A time to live in seconds, as an `xsd:decimal` (OWL 2 has no `xsd:dayTimeDuration`).
fn duration(value: DayTimeDuration) -> Term {
    Literal::new_typed_literal(value.as_seconds().to_string(), xsd::DECIMAL).into()
}

fn date_time(value: DateTime) -> Term {
    Literal::new_typed_literal(value.to_string(), xsd::DATE_TIME).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Ingest;
    use serde_json::json;

    fn path(labels: &[&str]) -> Vec<String> {
        labels.iter().map(|label| (*label).to_owned()).collect()
    }

    fn time(text: &str) -> DateTime {
        text.parse().unwrap()
    }

    fn put(store: &HistoryStore, namespace: &[String], key: &str, value: &Value, now: &str) {
        let item = PutItem {
            namespace,
            key,
            value,
            source: None,
            ttl: None,
        };
        put_item(store, &item, time(now)).unwrap();
    }

    #[test]
    fn a_put_again_replaces_the_value_and_keeps_when_it_was_made() {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let value = json!({"n": 12345678901234567890_u64, "x": 0.10, "nested": {"ü": [1, null]}});
        put(
            &store,
            &path(&["users", "ana"]),
            "k",
            &value,
            "2026-01-01T00:00:00Z",
        );
        put(
            &store,
            &path(&["users", "bob"]),
            "k",
            &json!({}),
            "2026-01-01T00:00:00Z",
        );
        put(
            &store,
            &path(&["other"]),
            "k",
            &json!({}),
            "2026-01-01T00:00:00Z",
        );
        let items = keyed_items(&store, &path(&["users"]), None).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(
            (&items[0].namespace, &items[0].value),
            (&path(&["users", "ana"]), &value)
        );
        put(
            &store,
            &path(&["users", "ana"]),
            "k",
            &json!({"v": 2}),
            "2026-01-02T00:00:00Z",
        );
        let items = keyed_items(&store, &path(&["users", "ana"]), None).unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(items[0].value, json!({"v": 2}));
        assert_eq!(items[0].created, time("2026-01-01T00:00:00Z"));
        assert_eq!(items[0].updated, time("2026-01-02T00:00:00Z"));
        assert_eq!(keyed_items(&store, &[], None).unwrap().len(), 3);
        assert!(delete_item(&store, &path(&["users", "ana"]), "k").unwrap());
        assert!(!delete_item(&store, &path(&["users", "ana"]), "k").unwrap());
        assert_eq!(
            keyed_items(&store, &path(&["users"]), None).unwrap().len(),
            1
        );
    }

    #[test]
    fn an_item_expires_after_its_time_to_live_and_a_refresh_moves_it() {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let namespace = path(&["t"]);
        let value = json!({"v": 1});
        let item = PutItem {
            namespace: &namespace,
            key: "k",
            value: &value,
            source: None,
            ttl: Some(DayTimeDuration::new(60)),
        };
        put_item(&store, &item, time("2026-01-01T00:00:00Z")).unwrap();
        let at = |text: &str| {
            keyed_items(&store, &namespace, Some(time(text)))
                .unwrap()
                .len()
        };
        assert_eq!(at("2026-01-01T00:00:59Z"), 1);
        assert_eq!(at("2026-01-01T00:01:00Z"), 0);
        let [found] = &keyed_items(&store, &namespace, None).unwrap()[..] else {
            panic!("one item")
        };
        assert_eq!(found.ttl, Some(DayTimeDuration::new(60)));
        assert_eq!(found.expires, Some(time("2026-01-01T00:01:00Z")));
        assert!(refresh_item(&store, &namespace, "k", time("2026-01-01T00:00:30Z")).unwrap());
        assert_eq!(at("2026-01-01T00:01:29Z"), 1);
        assert_eq!(at("2026-01-01T00:01:30Z"), 0);
        put(
            &store,
            &namespace,
            "kept",
            &json!({}),
            "2026-01-01T00:00:00Z",
        );
        assert!(!refresh_item(&store, &namespace, "kept", time("2026-01-01T00:00:30Z")).unwrap());
        assert_eq!(
            at("2030-01-01T00:00:00Z"),
            1,
            "an item without a TTL never expires"
        );
    }

    #[test]
    fn an_item_derived_from_a_turn_goes_with_its_session() {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/histories");
        Ingest::new(&store).run_paths(&[examples], |_| {}).unwrap();
        let namespace = path(&["project"]);
        let value = json!({"fact": "CI runs with MIX_ENV=ci"});
        let mut item = PutItem {
            namespace: &namespace,
            key: "ci",
            value: &value,
            source: Some(("abc", 1)),
            ttl: None,
        };
        put_item(&store, &item, time("2026-01-01T00:00:00Z")).unwrap();
        let found = keyed_items(&store, &namespace, None).unwrap();
        assert_eq!(
            (found[0].session.as_deref(), found[0].turn),
            (Some("abc"), Some(1))
        );
        item.source = Some(("abc", 99));
        assert!(matches!(
            put_item(&store, &item, time("2026-01-01T00:00:00Z")),
            Err(MemoryError::UnknownTurn { turn: 99, .. })
        ));
        let receipt = crate::memory::delete_session(&store, "abc", false).unwrap();
        assert_eq!((receipt.items_removed.len(), receipt.mentions_left), (1, 0));
        assert!(keyed_items(&store, &namespace, None).unwrap().is_empty());
    }

    #[test]
    fn an_empty_namespace_or_a_value_that_is_no_object_is_refused() {
        let store = HistoryStore::in_memory(&Default::default()).unwrap();
        let now = time("2026-01-01T00:00:00Z");
        let (object, list) = (json!({}), json!([1]));
        let mut item = PutItem {
            namespace: &[],
            key: "k",
            value: &object,
            source: None,
            ttl: None,
        };
        assert!(matches!(
            put_item(&store, &item, now),
            Err(MemoryError::KeyedItem(_))
        ));
        let namespace = path(&["a"]);
        item.namespace = &namespace;
        item.value = &list;
        assert!(matches!(
            put_item(&store, &item, now),
            Err(MemoryError::KeyedItem(_))
        ));
    }
}
