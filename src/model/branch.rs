//! A session that branches off another (a conversation rewound and taken another way),
//! and the link its document carries to the session and turn it forked from.
//!
//! PTF DEM V1.0 has no member saying "this data continues that data": `DataID` and
//! `Source` name the data and the process that made it, and `DescrMetadata` is free text
//! that importers already fill. Its `Annotations` are the place the standard leaves for
//! data about the data: each item holds an OSD Annotation, whose `Annotation[]` items
//! carry `AnnotationJSONText`, "the text of the JSON representing the Data Type used in
//! the Annotation" (MPAI-OSD V1.4, Annotation). The link is one such annotation, known by
//! its `AnnotationID`, whose JSON text is `{"BranchOf": {"SessionID", "AfterTurnIndex"?}}`.

use super::DataExchangeMetadata;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The `AnnotationID` of the annotation that links a branch to the session it forked from.
pub const BRANCH_ANNOTATION_ID: &str = "ihigraph:branch-of";

/// The header of the OSD Annotation: the version the PTF DEM V1.0 schema refers to.
const ANNOTATION_HEADER: &str = "OSD-ANN-V1.5";

/// Where a branch forked: the session it branches off and the turn after which it went
/// its own way.
///
/// ```
/// use ihigraph::model::BranchOf;
/// let link = BranchOf { session_id: "5f1c".to_owned(), after_turn: Some(2) };
/// let annotation = link.annotation();
/// assert_eq!(annotation["Annotation"]["AnnotationID"], "ihigraph:branch-of");
/// assert_eq!(BranchOf::from_annotation(&annotation), Some(Ok(link)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BranchOf {
    /// The `SessionID` of the session it branches off.
    pub session_id: String,
    /// The index of the parent's turn whose response the branch's first prompt followed;
    /// `None` when the branch forked before the parent's first turn.
    pub after_turn: Option<u64>,
}

/// The JSON text of the link, as `AnnotationJSONText` holds it.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkText {
    #[serde(rename = "BranchOf")]
    branch_of: LinkBody,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkBody {
    #[serde(rename = "SessionID")]
    session_id: String,
    #[serde(
        rename = "AfterTurnIndex",
        skip_serializing_if = "Option::is_none",
        default
    )]
    after_turn: Option<u64>,
}

/// A branch annotation whose text is not a link: where it is and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct BranchLinkError {
    /// JSON Pointer of the place, from the document's root.
    pub pointer: String,
    /// What was expected there.
    pub message: String,
}

impl BranchOf {
    /// The `DataXMData.Annotations` item that carries the link.
    pub fn annotation(&self) -> Value {
        let text = LinkText {
            branch_of: LinkBody {
                session_id: self.session_id.clone(),
                after_turn: self.after_turn,
            },
        };
        // Two plain members always serialize.
        let text = serde_json::to_string(&text).unwrap_or_default();
        let place = match self.after_turn {
            Some(turn) => format!("after its turn {turn}"),
            None => "before its first turn".to_owned(),
        };
        json!({
            "Annotation": {
                "Header": ANNOTATION_HEADER,
                "AnnotationID": BRANCH_ANNOTATION_ID,
                "Annotation": [{"AnnotationJSONText": text}],
                "DescrMetadata": format!(
                    "This session is a branch of session {:?}: it forked {place} and went another way (the conversation was rewound).",
                    self.session_id
                ),
            }
        })
    }

    /// The link an annotations item carries: `None` when it is no branch annotation,
    /// else the link or why its text is not one (the pointer is from the item).
    pub fn from_annotation(item: &Value) -> Option<Result<Self, BranchLinkError>> {
        let annotation = item.get("Annotation")?;
        if annotation.get("AnnotationID").and_then(Value::as_str) != Some(BRANCH_ANNOTATION_ID) {
            return None;
        }
        let at = "/Annotation/Annotation/0/AnnotationJSONText";
        let Some(text) = annotation
            .pointer("/Annotation/0/AnnotationJSONText")
            .and_then(Value::as_str)
        else {
            return Some(Err(BranchLinkError {
                pointer: at.to_owned(),
                message: "the JSON text of the branch link, a string".to_owned(),
            }));
        };
        Some(
            serde_json::from_str::<LinkText>(text)
                .map(|link| Self {
                    session_id: link.branch_of.session_id,
                    after_turn: link.branch_of.after_turn,
                })
                .map_err(|error| BranchLinkError {
                    pointer: at.to_owned(),
                    message: format!(
                        "{{\"BranchOf\": {{\"SessionID\": string, \"AfterTurnIndex\"?: integer >= 0}}}} as JSON text; {error}"
                    ),
                }),
        )
    }
}

impl DataExchangeMetadata {
    /// The branch link among the annotations: the first branch annotation's, if any.
    ///
    /// # Errors
    ///
    /// When that annotation's text is not a link; the pointer is from the document's
    /// root (`/DataXMData/Annotations/N/...`).
    pub fn branch_of(&self) -> Result<Option<BranchOf>, BranchLinkError> {
        let items = self.annotations.iter().flatten().enumerate();
        for (index, item) in items {
            if let Some(found) = BranchOf::from_annotation(item) {
                return found.map(Some).map_err(|error| BranchLinkError {
                    pointer: format!("/DataXMData/Annotations/{index}{}", error.pointer),
                    message: error.message,
                });
            }
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_goes_into_an_annotation_and_comes_back() {
        for after_turn in [None, Some(0), Some(41)] {
            let link = BranchOf {
                session_id: "s/branch/ü 1".to_owned(),
                after_turn,
            };
            let annotation = link.annotation();
            assert_eq!(annotation["Annotation"]["Header"], "OSD-ANN-V1.5");
            assert_eq!(BranchOf::from_annotation(&annotation), Some(Ok(link)));
        }
    }

    #[test]
    fn other_annotations_are_no_link_and_broken_links_say_where() {
        let other = json!({"Annotation": {"AnnotationID": "x", "Annotation": []}});
        assert_eq!(BranchOf::from_annotation(&other), None);
        assert_eq!(BranchOf::from_annotation(&json!({"x": 1})), None);
        for text in [
            json!("{\"BranchOf\":{\"AfterTurnIndex\":1}}"),
            json!("{\"BranchOf\":{\"SessionID\":\"p\",\"AfterTurnIndex\":-1}}"),
            json!("not json"),
            json!(5),
        ] {
            let item = json!({"Annotation": {
                "AnnotationID": BRANCH_ANNOTATION_ID,
                "Annotation": [{"AnnotationJSONText": text}]
            }});
            let error = BranchOf::from_annotation(&item)
                .expect("a branch annotation")
                .expect_err("not a link");
            assert_eq!(
                error.pointer, "/Annotation/Annotation/0/AnnotationJSONText",
                "{text}"
            );
        }
    }
}
