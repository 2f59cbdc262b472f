//! How a text becomes the terms the index holds: its language taken from the text
//! (whatlang's embedded trigram models, nothing loaded at run time), then the analyzer of
//! that language: words, lower case, accents folded, and the stemmer of English, French,
//! German or Spanish; Chinese and Japanese cut into overlapping pairs of characters
//! ([`CjkBigrams`]); any other text (or one too short to tell) words without a stemmer.

use std::sync::OnceLock;
use tantivy::Index;
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language as StemLanguage, LowerCaser, RemoveLongFilter, SimpleTokenizer,
    Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer,
};
use whatlang::{Detector, Lang, Script};

/// The languages the index tells apart; each has a field of its own, analyzed its way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextLanguage {
    /// English, with the English (Porter 2) stemmer.
    English,
    /// French, with the French stemmer.
    French,
    /// German, with the German stemmer.
    German,
    /// Spanish, with the Spanish stemmer.
    Spanish,
    /// Chinese and Japanese: no spaces between words, so pairs of characters.
    Cjk,
    /// Any other script (Cyrillic, Hangul, ...): words, no stemmer.
    Other,
}

impl TextLanguage {
    /// Every language, in the order of the index's fields.
    pub const ALL: [TextLanguage; 6] = [
        TextLanguage::English,
        TextLanguage::French,
        TextLanguage::German,
        TextLanguage::Spanish,
        TextLanguage::Cjk,
        TextLanguage::Other,
    ];

    /// The language's code, as a hit reports it and as its field and analyzer are named.
    pub fn code(self) -> &'static str {
        match self {
            TextLanguage::English => "en",
            TextLanguage::French => "fr",
            TextLanguage::German => "de",
            TextLanguage::Spanish => "es",
            TextLanguage::Cjk => "cjk",
            TextLanguage::Other => "other",
        }
    }

    /// The name of the analyzer registered for the language.
    pub fn analyzer_name(self) -> String {
        format!("ihigraph_{}", self.code())
    }

    /// The name of the analyzer of the language's [`WordPairs`].
    pub fn pairs_analyzer_name(self) -> String {
        format!("ihigraph_{}_pairs", self.code())
    }

    fn stemmer(self) -> Option<StemLanguage> {
        match self {
            TextLanguage::English => Some(StemLanguage::English),
            TextLanguage::French => Some(StemLanguage::French),
            TextLanguage::German => Some(StemLanguage::German),
            TextLanguage::Spanish => Some(StemLanguage::Spanish),
            TextLanguage::Cjk | TextLanguage::Other => None,
        }
    }

    /// The language's analyzer (as registered under [`Self::analyzer_name`]).
    pub(super) fn analyzer(self) -> TextAnalyzer {
        if self == TextLanguage::Cjk {
            return TextAnalyzer::builder(CjkBigrams)
                .filter(RemoveLongFilter::limit(MAX_TERM_BYTES))
                .filter(LowerCaser)
                .build();
        }
        let words = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(MAX_TERM_BYTES))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter);
        match self.stemmer() {
            Some(language) => words.filter(Stemmer::new(language)).build(),
            None => words.build(),
        }
    }
}

/// Terms longer than this (a base64 blob, a minified line) are left out: nobody searches
/// for them and they would bloat the term dictionary.
const MAX_TERM_BYTES: usize = 64;

/// How many bytes of a text its language is told from.
const DETECTION_SAMPLE: usize = 512;

/// Registers the analyzer of every language with the index.
pub fn register_analyzers(index: &Index) {
    for language in TextLanguage::ALL {
        index.tokenizers().register(
            &language.analyzer_name(),
            TextAnalyzer::from(LanguageWords {
                language,
                words: language.analyzer(),
            }),
        );
        index.tokenizers().register(
            &language.pairs_analyzer_name(),
            TextAnalyzer::from(WordPairs {
                language,
                words: language.analyzer(),
            }),
        );
    }
}

/// A text's word pairs, made by [`LanguageWords`] on this thread from the words it gave,
/// for the [`WordPairs`] of the same text that comes next: a document gives its text to
/// its language's field and then to that language's pairs field, each analyzed on the
/// same indexing thread, and the analysis (the stemmer above all) was a fifth of the
/// index's work done twice. Kept with the text and language it was made from, so that
/// pairs are only ever taken for the very text they were made of.
#[derive(Default)]
struct LastPairs {
    language: Option<TextLanguage>,
    text: String,
    pairs: Vec<Token>,
}

thread_local! {
    static LAST_PAIRS: std::cell::RefCell<LastPairs> = std::cell::RefCell::default();
}

/// A language's words, as its analyzer gives them, that also keeps their pairs for the
/// [`WordPairs`] of the same text (see [`LastPairs`]).
#[derive(Clone)]
pub struct LanguageWords {
    language: TextLanguage,
    words: TextAnalyzer,
}

impl Tokenizer for LanguageWords {
    type TokenStream<'a> = CutTokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CutTokens {
        let words = analyzed(&mut self.words, text);
        let pairs = word_pairs(&words);
        LAST_PAIRS.with(|last| {
            let mut last = last.borrow_mut();
            last.language = Some(self.language);
            last.text.clear();
            last.text.push_str(text);
            last.pairs = pairs;
        });
        CutTokens::new(words)
    }
}

/// The language of a text, as the index files it. The script decides first (Han, Kana:
/// CJK; Cyrillic, Hangul and the others: [`TextLanguage::Other`]); for Latin script,
/// whatlang chooses among the four stemmed languages, and a guess it does not call
/// reliable (short texts, code, mixed languages) files the text as English.
pub fn detect_language(text: &str) -> TextLanguage {
    // A text's language shows in its first few hundred bytes; the rest only costs (the
    // detection is linear in its input and was most of the indexing time on 4 KB).
    let sample = prefix_on_char_boundary(text, DETECTION_SAMPLE);
    static DETECTOR: OnceLock<Detector> = OnceLock::new();
    let detector = DETECTOR
        .get_or_init(|| Detector::with_allowlist(vec![Lang::Eng, Lang::Fra, Lang::Deu, Lang::Spa]));
    match whatlang::detect_script(sample) {
        Some(Script::Mandarin | Script::Hiragana | Script::Katakana) => TextLanguage::Cjk,
        Some(Script::Latin) => match detector.detect(sample) {
            Some(info) if info.is_reliable() => match info.lang() {
                Lang::Eng => TextLanguage::English,
                Lang::Fra => TextLanguage::French,
                Lang::Deu => TextLanguage::German,
                Lang::Spa => TextLanguage::Spanish,
                _ => TextLanguage::Other,
            },
            // English for what whatlang cannot call (it rarely calls short English
            // texts reliable): most agent histories are English, and a word the
            // English stemmer leaves whole, or cuts as it cuts the query, still matches.
            _ => TextLanguage::English,
        },
        _ => TextLanguage::Other,
    }
}

fn prefix_on_char_boundary(text: &str, bytes: usize) -> &str {
    if text.len() <= bytes {
        return text;
    }
    let mut end = bytes;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// Chinese and Japanese cut into overlapping pairs of characters ("東京会議": "東京",
/// "京会", "会議"), as Lucene's `CJKBigramFilter` does; a lone character stays whole, and
/// runs of other letters and digits are words.
///
/// Why not a dictionary segmenter (jieba): it knows Chinese only, not Japanese; its
/// dictionary is several megabytes in the binary; and its cuts differ between a short
/// query and the long text it should find, where pairs are the same on both sides. A
/// phrase of pairs finds the characters in order, so any word is found, at the price of
/// some matches across word boundaries, which ranking puts below whole matches.
#[derive(Clone, Copy, Debug, Default)]
pub struct CjkBigrams;

impl Tokenizer for CjkBigrams {
    type TokenStream<'a> = CutTokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CutTokens {
        CutTokens::new(cjk_tokens(text))
    }
}

/// Tokens cut ahead, as [`CjkBigrams`] and [`WordPairs`] give them (texts are bounded by
/// the store's size limits).
pub struct CutTokens {
    tokens: std::vec::IntoIter<Token>,
    current: Token,
}

impl CutTokens {
    fn new(tokens: Vec<Token>) -> Self {
        Self {
            tokens: tokens.into_iter(),
            current: Token::default(),
        }
    }
}

impl TokenStream for CutTokens {
    fn advance(&mut self) -> bool {
        match self.tokens.next() {
            Some(token) => {
                self.current = token;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

/// Each two neighbouring words of a text as one term ("connection timed out":
/// "connection timed", "timed out"), after the language's own analysis, as
/// Elasticsearch's `index_phrases` indexes them: what a phrase must contain. A phrase of
/// common words is then looked up by its pairs, which few texts have, before the
/// positions of its words are read in the texts that have them all.
#[derive(Clone)]
pub struct WordPairs {
    language: TextLanguage,
    words: TextAnalyzer,
}

impl Tokenizer for WordPairs {
    type TokenStream<'a> = CutTokens;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CutTokens {
        let kept = LAST_PAIRS.with(|last| {
            let mut last = last.borrow_mut();
            (last.language == Some(self.language) && last.text == text).then(|| {
                last.language = None;
                std::mem::take(&mut last.pairs)
            })
        });
        let pairs = kept.unwrap_or_else(|| word_pairs(&analyzed(&mut self.words, text)));
        CutTokens::new(pairs)
    }
}

/// The tokens an analyzer makes of a text.
pub fn analyzed(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Token> {
    let mut stream = analyzer.token_stream(text);
    let mut tokens = Vec::new();
    while stream.advance() {
        tokens.push(stream.token().clone());
    }
    tokens
}

/// The pairs of words next to each other (a word left out, as one too long, parts them).
pub fn word_pairs(words: &[Token]) -> Vec<Token> {
    words
        .windows(2)
        .filter(|pair| pair[1].position == pair[0].position + 1)
        .map(|pair| Token {
            offset_from: pair[0].offset_from,
            offset_to: pair[1].offset_to,
            position: pair[0].position,
            text: format!("{} {}", pair[0].text, pair[1].text),
            position_length: 1,
        })
        .collect()
}

/// Whether a character is written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0xFF66..=0xFF9F    // half-width Katakana
        | 0x20000..=0x2FFFF) // CJK Extensions B and beyond
}

/// The runs of a text: CJK characters, or other letters and digits.
fn cjk_tokens(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut run: Vec<(usize, char)> = Vec::new();
    let mut run_is_cjk = false;
    for (offset, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let cjk = is_cjk(c);
        let word = c.is_alphanumeric() && !cjk;
        if !run.is_empty() && (!(cjk || word) || cjk != run_is_cjk) {
            emit_run(&run, run_is_cjk, offset, &mut tokens);
            run.clear();
        }
        if cjk || word {
            run_is_cjk = cjk;
            run.push((offset, c));
        }
    }
    tokens
}

/// The tokens of one run: pairs of a CJK run (or its lone character), a word otherwise.
fn emit_run(run: &[(usize, char)], cjk: bool, end: usize, tokens: &mut Vec<Token>) {
    let end_of = |index: usize| run.get(index + 1).map_or(end, |(offset, _)| *offset);
    let mut push = |from: usize, to: usize, text: String| {
        let position = tokens.len();
        tokens.push(Token {
            offset_from: from,
            offset_to: to,
            position,
            text,
            position_length: 1,
        });
    };
    if !cjk || run.len() == 1 {
        push(run[0].0, end, run.iter().map(|(_, c)| c).collect());
        return;
    }
    for (index, pair) in run.windows(2).enumerate() {
        push(
            pair[0].0,
            end_of(index + 1),
            [pair[0].1, pair[1].1].iter().collect(),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(text: &str) -> Vec<String> {
        let mut analyzer = TextLanguage::Cjk.analyzer();
        let mut stream = analyzer.token_stream(text);
        let mut out = Vec::new();
        stream.process(&mut |token| out.push(token.text.clone()));
        out
    }

    #[test]
    fn word_pairs_are_neighbours_after_the_analysis() {
        let mut pairs = TextAnalyzer::from(WordPairs {
            language: TextLanguage::English,
            words: TextLanguage::English.analyzer(),
        });
        let texts: Vec<String> = analyzed(&mut pairs, "Connections timed out, retrying")
            .into_iter()
            .map(|token| token.text)
            .collect();
        assert_eq!(texts, ["connect time", "time out", "out retri"]);
        // A word too long to index parts its neighbours.
        let long = "x".repeat(MAX_TERM_BYTES + 1);
        let texts: Vec<String> = analyzed(&mut pairs, &format!("timed {long} out"))
            .into_iter()
            .map(|token| token.text)
            .collect();
        assert!(texts.is_empty(), "{texts:?}");
    }

    #[test]
    fn pairs_kept_from_the_words_are_the_pairs_of_that_text_alone() {
        let language = TextLanguage::English;
        let mut words = TextAnalyzer::from(LanguageWords {
            language,
            words: language.analyzer(),
        });
        let mut pairs = TextAnalyzer::from(WordPairs {
            language,
            words: language.analyzer(),
        });
        let mut french_pairs = TextAnalyzer::from(WordPairs {
            language: TextLanguage::French,
            words: TextLanguage::French.analyzer(),
        });
        let texts = |tokens: Vec<Token>| -> Vec<String> {
            tokens.into_iter().map(|token| token.text).collect()
        };
        let text = "Connections timed out, retrying";
        // The words are the analyzer's own.
        assert_eq!(
            texts(analyzed(&mut words, text)),
            texts(analyzed(&mut language.analyzer(), text))
        );
        // The pairs kept, then made again: the same.
        let kept = texts(analyzed(&mut pairs, text));
        assert_eq!(kept, ["connect time", "time out", "out retri"]);
        assert_eq!(texts(analyzed(&mut pairs, text)), kept);
        // Another text, or another language, never takes them.
        analyzed(&mut words, text);
        assert_eq!(
            texts(analyzed(&mut pairs, "Connections closed")),
            ["connect close"]
        );
        analyzed(&mut words, text);
        assert_eq!(
            texts(analyzed(&mut french_pairs, text)),
            texts(word_pairs(&analyzed(
                &mut TextLanguage::French.analyzer(),
                text
            )))
        );
    }

    #[test]
    fn cjk_runs_become_overlapping_pairs() {
        assert_eq!(texts("東京会議"), ["東京", "京会", "会議"]);
        assert_eq!(texts("在東京 Rust 1.9"), ["在東", "東京", "rust", "1", "9"]);
        assert_eq!(texts("猫"), ["猫"]);
        assert_eq!(texts("データベースを検索"), texts("データベースを検索"));
        assert!(texts("").is_empty());
    }

    #[test]
    fn cjk_offsets_cover_the_pair() {
        let tokens = cjk_tokens("ab東京会");
        let text = "ab東京会";
        let cut: Vec<&str> = tokens
            .iter()
            .map(|token| &text[token.offset_from..token.offset_to])
            .collect();
        assert_eq!(cut, ["ab", "東京", "京会"]);
    }

    #[test]
    fn languages_are_told_apart() {
        let cases = [
            (
                "The deployment failed because the database connection timed out again",
                TextLanguage::English,
            ),
            (
                "Le déploiement a échoué parce que la connexion à la base de données a expiré",
                TextLanguage::French,
            ),
            (
                "Die Bereitstellung ist fehlgeschlagen, weil die Verbindung zur Datenbank abgelaufen ist",
                TextLanguage::German,
            ),
            (
                "El despliegue falló porque la conexión con la base de datos se agotó otra vez",
                TextLanguage::Spanish,
            ),
            ("部署失败了，因为数据库连接超时", TextLanguage::Cjk),
            (
                "データベースの接続がタイムアウトしました",
                TextLanguage::Cjk,
            ),
            ("ok", TextLanguage::English),
            (
                "Развертывание не удалось из-за тайм-аута",
                TextLanguage::Other,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(detect_language(text), expected, "{text}");
        }
    }

    #[test]
    fn stemmers_meet_word_forms() {
        let stems = |language: TextLanguage, text: &str| {
            let mut analyzer = language.analyzer();
            let mut stream = analyzer.token_stream(text);
            let mut out = Vec::new();
            stream.process(&mut |token| out.push(token.text.clone()));
            out
        };
        assert_eq!(
            stems(TextLanguage::English, "deployments"),
            stems(TextLanguage::English, "deployment")
        );
        assert_eq!(
            stems(TextLanguage::French, "déploiements"),
            stems(TextLanguage::French, "déploiement")
        );
        assert_eq!(
            stems(TextLanguage::German, "Verbindungen"),
            stems(TextLanguage::German, "Verbindung")
        );
        assert_eq!(
            stems(TextLanguage::Spanish, "conexiones"),
            stems(TextLanguage::Spanish, "conexión")
        );
        assert_eq!(stems(TextLanguage::Other, "Café"), ["cafe"]);
    }

    #[test]
    fn a_long_sample_is_cut_on_a_character_boundary() {
        let text = "é".repeat(3000);
        let sample = prefix_on_char_boundary(&text, 513);
        assert_eq!(sample.len(), 512);
    }
}
