pub(crate) mod node;
pub(crate) mod qualified_value_shape;
