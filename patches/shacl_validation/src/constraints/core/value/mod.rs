pub(crate) mod class;
pub(crate) mod datatype;
pub(crate) mod node_kind;
