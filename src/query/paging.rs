//! A page of a SELECT query's answer, cut from the parsed query: what the store sends to
//! a server that caps its answers (Virtuoso's `ResultSetMaxRows`) when ihigraph needs
//! the whole answer of one of its own queries. A page is only stable under a total
//! order, so each adds one: the query's own `ORDER BY` (or a key's text) first, then
//! every projected variable.

use spargebra::Query;
use spargebra::algebra::{Expression, Function, GraphPattern, OrderExpression};
use spargebra::term::{Literal, Variable};

/// The page of the answer that starts `offset` rows in and holds at most `length` rows,
/// under the query's own order made total: its `ORDER BY`, then every projected
/// variable. The query's own `LIMIT` and `OFFSET` still hold: the page is taken inside
/// them. `None` when the query is not a SELECT or its `LIMIT` ends before `offset`.
pub(crate) fn ordered_page(query: &Query, offset: usize, length: usize) -> Option<Query> {
    let Query::Select {
        dataset,
        pattern,
        base_iri,
    } = query
    else {
        return None;
    };
    let (start, limit, inner) = match pattern {
        GraphPattern::Slice {
            inner,
            start,
            length,
        } => (*start, *length, inner.as_ref()),
        other => (0, None, other),
    };
    let left = limit.map_or(usize::MAX, |limit| limit.saturating_sub(offset));
    if left == 0 {
        return None;
    }
    let mut inner = inner.clone();
    make_total(&mut inner, Vec::new(), None);
    Some(Query::Select {
        dataset: dataset.clone(),
        pattern: GraphPattern::Slice {
            inner: Box::new(inner),
            start: start.saturating_add(offset),
            length: Some(length.min(left)),
        },
        base_iri: base_iri.clone(),
    })
}

/// The page of the answer whose rows have a text of `key` (`STR(?key)`) at or after
/// `from` (all rows when `None`), less the first `skip` of them, at most `length` rows,
/// ordered by that text, then every projected variable: keyset paging, where however
/// far into the answer the server sorts only what is left, and skips only rows of one
/// key (the next page's `from` is the text of the last row's key, taken from its value:
/// Virtuoso gives a wrong value to a column bound to the same expression). For a query
/// without `LIMIT` or `OFFSET` (else `None`, as for a query that is not a SELECT) whose
/// `key` is bound to an IRI or a literal in every row.
pub(crate) fn keyed_page(
    query: &Query,
    key: &Variable,
    from: Option<&str>,
    skip: usize,
    length: usize,
) -> Option<Query> {
    let Query::Select {
        dataset,
        pattern,
        base_iri,
    } = query
    else {
        return None;
    };
    if matches!(pattern, GraphPattern::Slice { .. }) {
        return None;
    }
    let text = || Expression::FunctionCall(Function::Str, vec![Expression::Variable(key.clone())]);
    let mut inner = pattern.clone();
    let filter = from.map(|from| {
        Expression::GreaterOrEqual(
            Box::new(text()),
            Box::new(Expression::Literal(Literal::new_simple_literal(from))),
        )
    });
    make_total(&mut inner, vec![OrderExpression::Asc(text())], filter);
    Some(Query::Select {
        dataset: dataset.clone(),
        pattern: GraphPattern::Slice {
            inner: Box::new(inner),
            start: skip,
            length: Some(length),
        },
        base_iri: base_iri.clone(),
    })
}

/// Orders the rows of a SELECT's pattern (below its `OFFSET` and `LIMIT`) by `first`,
/// then its own `ORDER BY`, then every projected variable; with `filter`, keeps only
/// the rows it holds for.
fn make_total(pattern: &mut GraphPattern, first: Vec<OrderExpression>, filter: Option<Expression>) {
    match pattern {
        GraphPattern::Distinct { inner } | GraphPattern::Reduced { inner } => {
            make_total(inner, first, filter);
        }
        GraphPattern::Project { inner, variables } => {
            let taken = std::mem::replace(
                inner.as_mut(),
                GraphPattern::Bgp {
                    patterns: Vec::new(),
                },
            );
            let (mut rows, own) = match taken {
                GraphPattern::OrderBy { inner, expression } => (*inner, expression),
                other => (other, Vec::new()),
            };
            // Each projected variable not ordered on yet breaks the ties left (Virtuoso
            // mixes up an aggregate's columns when one is ordered on twice, and takes
            // at most 20 keys: one each).
            let ordered_on = |variable: &Variable| {
                own.iter().any(|condition| match condition {
                    OrderExpression::Asc(Expression::Variable(v))
                    | OrderExpression::Desc(Expression::Variable(v)) => v == variable,
                    _ => false,
                })
            };
            let breakers: Vec<OrderExpression> = variables
                .iter()
                .filter(|variable| !ordered_on(variable))
                .map(|variable| OrderExpression::Asc(Expression::Variable(variable.clone())))
                .collect();
            let mut order = first;
            order.extend(own);
            order.extend(breakers);
            if let Some(filter) = filter {
                rows = GraphPattern::Filter {
                    expr: filter,
                    inner: Box::new(rows),
                };
            }
            **inner = GraphPattern::OrderBy {
                inner: Box::new(rows),
                expression: order,
            };
        }
        // A SELECT's pattern always has its projection (spargebra's parser makes one
        // for `SELECT *` too); one built without is given one of its variables.
        other => {
            let mut variables = Vec::new();
            other.on_in_scope_variable(|variable| {
                if !variables.contains(variable) {
                    variables.push(variable.clone());
                }
            });
            let rows = std::mem::replace(
                other,
                GraphPattern::Bgp {
                    patterns: Vec::new(),
                },
            );
            *other = GraphPattern::Project {
                inner: Box::new(rows),
                variables,
            };
            make_total(other, first, filter);
        }
    }
}
