pub mod cardinality;
pub mod logical;
pub mod other;
pub mod property_pair;
pub mod shape_based;
pub mod string_based;
pub mod value;
pub mod value_range;
