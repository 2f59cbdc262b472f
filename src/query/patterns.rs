//! Binding into a parsed query: the `VALUES` row that holds the parameters, and `LIMIT`.

use spargebra::Query;
use spargebra::algebra::{GraphPattern, QueryDataset};
use spargebra::term::{GroundTerm, NamedNode, TermPattern, Variable};

/// Puts the values in the `VALUES` row whose variables are the parameters'; false if
/// the query has no such row.
pub(super) fn fill_values_row(
    pattern: &mut GraphPattern,
    row: &[(&str, Option<GroundTerm>)],
) -> bool {
    match pattern {
        GraphPattern::Values {
            variables,
            bindings,
        } if variables.len() == row.len()
            && variables
                .iter()
                .zip(row)
                .all(|(variable, (name, _))| variable.as_str() == *name) =>
        {
            // Only the given values: an UNDEF column joins as nothing at all, and some
            // servers (Virtuoso) bind its variable to nothing in the answer.
            let given: Vec<_> = row
                .iter()
                .filter_map(|(name, value)| Some((Variable::new_unchecked(*name), value.clone()?)))
                .collect();
            if given.is_empty() {
                *pattern = GraphPattern::Bgp {
                    patterns: Vec::new(),
                };
            } else {
                *variables = given.iter().map(|(variable, _)| variable.clone()).collect();
                *bindings = vec![given.into_iter().map(|(_, value)| Some(value)).collect()];
            }
            true
        }
        GraphPattern::Service { inner, .. } => {
            // A SERVICE is evaluated apart from the bindings around it: the values it
            // needs (a search's words) are put into its triple patterns.
            fill_service_pattern(inner, row);
            false
        }
        // Every row of the parameters is filled: a query may repeat it in each branch
        // of a UNION, where the values are needed before the join.
        other => {
            let mut found = false;
            for child in sub_patterns(other) {
                found |= fill_values_row(child, row);
            }
            found
        }
    }
}

/// Puts the given values in place of the parameters' variables in a SERVICE's triple
/// patterns (as objects: what a service reads its arguments from).
fn fill_service_pattern(pattern: &mut GraphPattern, row: &[(&str, Option<GroundTerm>)]) {
    match pattern {
        GraphPattern::Bgp { patterns } => {
            for triple in patterns {
                if let TermPattern::Variable(variable) = &triple.object
                    && let Some((_, Some(value))) =
                        row.iter().find(|(name, _)| *name == variable.as_str())
                {
                    triple.object = match value.clone() {
                        GroundTerm::NamedNode(node) => TermPattern::NamedNode(node),
                        GroundTerm::Literal(literal) => TermPattern::Literal(literal),
                        #[allow(unreachable_patterns)]
                        _ => continue,
                    };
                }
            }
        }
        GraphPattern::Join { left, right } => {
            fill_service_pattern(left, row);
            fill_service_pattern(right, row);
        }
        _ => {}
    }
}

/// Sets every `LIMIT` of the query to `limit` (a subquery's too: `recent-turns` picks
/// its turns in one), adding one to the query if it has none.
pub(super) fn set_limit(pattern: &mut GraphPattern, limit: usize) {
    if !replace_limits(pattern, limit) {
        let inner = std::mem::replace(
            pattern,
            GraphPattern::Bgp {
                patterns: Vec::new(),
            },
        );
        *pattern = GraphPattern::Slice {
            inner: Box::new(inner),
            start: 0,
            length: Some(limit),
        };
    }
}

/// Sets the length of every `LIMIT` in the pattern; whether there was one.
fn replace_limits(pattern: &mut GraphPattern, limit: usize) -> bool {
    match pattern {
        GraphPattern::Slice { inner, length, .. } => {
            let found = length.is_some();
            if found {
                *length = Some(limit);
            }
            replace_limits(inner, limit) || found
        }
        // Both sides of a join, not the first that has one.
        other => {
            let mut found = false;
            for child in sub_patterns(other) {
                found |= replace_limits(child, limit);
            }
            found
        }
    }
}

/// The patterns directly inside a pattern that the walks over a query descend into: not
/// a SERVICE's, which the service evaluates apart.
pub(crate) fn sub_patterns(pattern: &mut GraphPattern) -> Vec<&mut GraphPattern> {
    match pattern {
        GraphPattern::Join { left, right }
        | GraphPattern::LeftJoin { left, right, .. }
        | GraphPattern::Union { left, right }
        | GraphPattern::Minus { left, right } => vec![&mut **left, &mut **right],
        GraphPattern::Filter { inner, .. }
        | GraphPattern::Graph { inner, .. }
        | GraphPattern::Extend { inner, .. }
        | GraphPattern::OrderBy { inner, .. }
        | GraphPattern::Project { inner, .. }
        | GraphPattern::Distinct { inner }
        | GraphPattern::Reduced { inner }
        | GraphPattern::Slice { inner, .. }
        | GraphPattern::Group { inner, .. } => vec![&mut **inner],
        _ => Vec::new(),
    }
}

/// Makes the query read these named graphs only (its `FROM NAMED`, and an empty default
/// graph).
pub fn set_named_graphs(query: &mut Query, graphs: Vec<NamedNode>) {
    set_dataset(
        query,
        QueryDataset {
            default: Vec::new(),
            named: Some(graphs),
        },
    );
}

/// Sets the query's dataset (its `FROM` and `FROM NAMED`).
pub fn set_dataset(query: &mut Query, dataset: QueryDataset) {
    match query {
        Query::Select { dataset: slot, .. }
        | Query::Construct { dataset: slot, .. }
        | Query::Describe { dataset: slot, .. }
        | Query::Ask { dataset: slot, .. } => *slot = Some(dataset),
    }
}
