pub mod report;
pub mod result;
pub mod validation_report_error;
