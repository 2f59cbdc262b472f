//! Content negotiation: the media type a client's `Accept` header prefers among those
//! an answer can take.

use super::ApiError;
use axum::http::{HeaderMap, StatusCode, header};

/// The offer the `Accept` header prefers: the highest quality, ties going to the
/// header's order and then to the offers' order; no header, or `*/*`, gives the first
/// offer. An offer is `(media type, what it stands for)`; 406 when none is acceptable.
pub(crate) fn choose<T: Copy>(headers: &HeaderMap, offers: &[(&str, T)]) -> Result<T, ApiError> {
    let Some(first) = offers.first() else {
        return Err(ApiError::internal("no media type to offer"));
    };
    let accept: Vec<&str> = headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .collect();
    if accept.is_empty() {
        return Ok(first.1);
    }
    let mut best: Option<(f32, usize, T)> = None;
    let mut position = 0;
    for range in accept.iter().flat_map(|value| value.split(',')) {
        let mut parts = range.split(';');
        let media = parts.next().unwrap_or("").trim().to_ascii_lowercase();
        let quality = parts
            .filter_map(|parameter| parameter.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        position += 1;
        if media.is_empty() || quality <= 0.0 {
            continue;
        }
        let Some(found) = offers.iter().find(|(offer, _)| matches(&media, offer)) else {
            continue;
        };
        let better = best.is_none_or(|(q, p, _)| quality > q || (quality == q && position < p));
        if better {
            best = Some((quality, position, found.1));
        }
    }
    best.map(|(_, _, choice)| choice).ok_or_else(|| {
        let offered: Vec<&str> = offers.iter().map(|(media, _)| *media).collect();
        ApiError::new(
            StatusCode::NOT_ACCEPTABLE,
            format!(
                "none of the media types in Accept can be given here; these can: {}",
                offered.join(", ")
            ),
        )
    })
}

/// Whether a media range (`type/subtype`, `type/*`, `*/*`) covers an offer.
fn matches(range: &str, offer: &str) -> bool {
    if range == "*/*" || range == offer {
        return true;
    }
    range
        .strip_suffix("/*")
        .is_some_and(|kind| offer.split('/').next() == Some(kind))
}

/// The media type of a request body, without parameters, in lower case.
pub(crate) fn content_type(headers: &HeaderMap) -> String {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
}

/// The `charset` parameter of a request body's media type, when it has one.
pub(crate) fn charset(headers: &HeaderMap) -> Option<String> {
    let value = headers.get(header::CONTENT_TYPE)?.to_str().ok()?;
    value.split(';').skip(1).find_map(|parameter| {
        let (name, value) = parameter.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("charset")
            .then(|| value.trim().trim_matches('"').to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    const OFFERS: &[(&str, u8)] = &[
        ("application/sparql-results+json", 1),
        ("application/sparql-results+xml", 2),
        ("text/csv", 3),
    ];

    fn accept(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn quality_then_order_decides() {
        assert_eq!(choose(&HeaderMap::new(), OFFERS).unwrap(), 1);
        assert_eq!(choose(&accept("*/*"), OFFERS).unwrap(), 1);
        assert_eq!(choose(&accept("text/csv"), OFFERS).unwrap(), 3);
        assert_eq!(
            choose(
                &accept("text/*;q=0.5, application/sparql-results+xml"),
                OFFERS
            )
            .unwrap(),
            2
        );
        assert_eq!(
            choose(
                &accept("application/sparql-results+xml;q=0.2, text/csv;q=0.9"),
                OFFERS
            )
            .unwrap(),
            3
        );
        assert_eq!(choose(&accept("text/html, */*;q=0.1"), OFFERS).unwrap(), 1);
    }

    #[test]
    fn nothing_acceptable_is_406() {
        let error = choose(&accept("text/html, text/csv;q=0"), OFFERS).unwrap_err();
        assert_eq!(error.status, StatusCode::NOT_ACCEPTABLE);
        assert!(error.message.contains("text/csv"), "{}", error.message);
    }
}
