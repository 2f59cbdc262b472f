use crate::constraints::NativeValidator;
#[cfg(feature = "sparql")]
use crate::constraints::SparqlValidator;
use crate::constraints::constraint_error::ConstraintError;
use crate::shacl_engine::engine;
use crate::validation_report::result::ValidationResult;
use crate::value_nodes::ValueNodes;
use rudof_rdf::rdf_core::{
    NeighsRDF, Rdf, SHACLPath,
    query::QueryRDF,
    term::{Object, Triple},
};
use shacl_ir::compiled::component_ir::ComponentIR;
use shacl_ir::compiled::shape::ShapeIR;
use shacl_ir::components::Equals;
use shacl_ir::schema_ir::SchemaIR;
use std::fmt::Debug;
use tracing::debug;

impl<R: NeighsRDF + Debug + 'static> NativeValidator<R> for Equals {
    fn validate_native(
        &self,
        component: &ComponentIR,
        shape: &ShapeIR,
        store: &R,
        _engine: &mut dyn engine::Engine<R>,
        value_nodes: &ValueNodes<R>,
        _source_shape: Option<&ShapeIR>,
        maybe_path: Option<SHACLPath>,
        _shapes_graph: &SchemaIR,
    ) -> Result<Vec<ValidationResult>, ConstraintError> {
        // PATCH: SHACL's sh:equals compares two sets, each way: a result for every value
        // of the path the property lacks, and every value of the property the path lacks
        // (upstream: each value of the path against every value of the property, one way).
        let mut validation_results = Vec::new();
        let component = Object::iri(component.into());
        let iri_owned: R::IRI = self.iri().clone().into();
        let message = format!("Equals failed. Property {}", self.iri());
        for (focus_node, nodes) in value_nodes.iter() {
            let (Ok(subject), Ok(focus)) = (
                <R as Rdf>::term_as_subject(focus_node),
                <R as Rdf>::term_as_object(focus_node),
            ) else {
                continue;
            };
            let others: Vec<Object> = match store.triples_with_subject_predicate(&subject, &iri_owned) {
                Ok(triples) => triples
                    .filter_map(|triple| <R as Rdf>::term_as_object(triple.obj()).ok())
                    .collect(),
                Err(e) => {
                    debug!("Equals: no triples for subject {subject} and predicate {}: {e}", self.iri());
                    Vec::new()
                },
            };
            let own: Vec<Object> = nodes
                .iter()
                .filter_map(|node| <R as Rdf>::term_as_object(node).ok())
                .collect();
            let differing = own
                .iter()
                .filter(|value| !others.contains(value))
                .chain(others.iter().filter(|value| !own.contains(value)));
            for value in differing {
                validation_results.push(
                    ValidationResult::new(focus.clone(), component.clone(), shape.severity())
                            .with_source(Some(shape.id().clone()))
                        .with_message(&message)
                        .with_path(maybe_path.clone())
                        .with_value(Some(value.clone())),
                );
            }
        }
        Ok(validation_results)
    }
}

#[cfg(feature = "sparql")]
impl<S: QueryRDF + NeighsRDF + Debug + 'static> SparqlValidator<S> for Equals {
    fn validate_sparql(
        &self,
        _component: &ComponentIR,
        _shape: &ShapeIR,
        _store: &S,
        _value_nodes: &ValueNodes<S>,
        _source_shape: Option<&ShapeIR>,
        _maybe_path: Option<SHACLPath>,
        _shapes_graph: &SchemaIR,
    ) -> Result<Vec<ValidationResult>, ConstraintError> {
        Err(ConstraintError::NotImplemented("Equals".to_string()))
    }
}
