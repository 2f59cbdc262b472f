//! How a text becomes the terms the index holds: its language taken from the text (its
//! script by whatlang, its language by whichlang's model; both compiled in, nothing loaded
//! at run time), then the analyzer of that language: words, lower case, accents folded,
//! and the stemmer of English, French, German or Spanish; Chinese and Japanese cut into
//! overlapping pairs of characters ([`CjkBigrams`]); any other text (or one too short to
//! tell) words without a stemmer.

use frostem::Algorithm;
use rustc_hash::FxHashMap;
use tantivy::Index;
use tantivy::tokenizer::{
    AsciiFoldingFilter, LowerCaser, RemoveLongFilter, SimpleTokenizer, TextAnalyzer, Token,
    TokenFilter, TokenStream, Tokenizer,
};
use whatlang::Script;

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

    fn stemmer(self) -> Option<Algorithm> {
        match self {
            TextLanguage::English => Some(Algorithm::English),
            TextLanguage::French => Some(Algorithm::French),
            TextLanguage::German => Some(Algorithm::German),
            TextLanguage::Spanish => Some(Algorithm::Spanish),
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
            Some(algorithm) => words.filter(RememberedStems(algorithm)).build(),
            None => words.build(),
        }
    }
}

/// The Snowball stemmer of a language (the one tantivy's `Stemmer` runs), each word's
/// stem remembered by the analyzer that made it: the words of a history repeat (a few
/// thousand make most of its text), and the stemmer was a third of the index's analysis.
/// A stem is the stemmer's, remembered or made: the terms are the same.
#[derive(Clone, Copy)]
struct RememberedStems(Algorithm);

/// How many words an analyzer remembers the stems of, before it forgets them all
/// (a word and its stem: a few dozen bytes each).
const MOST_STEMS: usize = 1 << 16;

impl TokenFilter for RememberedStems {
    type Tokenizer<T: Tokenizer> = StemsOf<T>;

    fn transform<T: Tokenizer>(self, inner: T) -> StemsOf<T> {
        StemsOf {
            inner,
            stemmer: frostem::Stemmer::new(self.0),
            stems: FxHashMap::default(),
        }
    }
}

/// A tokenizer's words, stemmed (see [`RememberedStems`]).
pub struct StemsOf<T> {
    inner: T,
    stemmer: frostem::Stemmer,
    stems: FxHashMap<String, String>,
}

impl<T: Clone> Clone for StemsOf<T> {
    /// A copy remembers nothing: tantivy copies an analyzer for every segment it writes and
    /// every query it parses, and copying the stems would cost more than they save.
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
            stemmer: self.stemmer,
            stems: FxHashMap::default(),
        }
    }
}

impl<T: Tokenizer> Tokenizer for StemsOf<T> {
    type TokenStream<'a> = StemmedWords<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        StemmedWords {
            words: self.inner.token_stream(text),
            stemmer: self.stemmer,
            stems: &mut self.stems,
        }
    }
}

/// The words of one text, stemmed.
pub struct StemmedWords<'a, S> {
    words: S,
    stemmer: frostem::Stemmer,
    stems: &'a mut FxHashMap<String, String>,
}

impl<S: TokenStream> TokenStream for StemmedWords<'_, S> {
    fn advance(&mut self) -> bool {
        if !self.words.advance() {
            return false;
        }
        let token = self.words.token_mut();
        if let Some(stem) = self.stems.get(token.text.as_str()) {
            token.text.clone_from(stem);
            return true;
        }
        let stem = self.stemmer.stem(&token.text).into_owned();
        if self.stems.len() >= MOST_STEMS {
            self.stems.clear();
        }
        let word = std::mem::replace(&mut token.text, stem.clone());
        self.stems.insert(word, stem);
        true
    }

    fn token(&self) -> &Token {
        self.words.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.words.token_mut()
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
/// whichlang's model tells the language, and any Latin-script language but French,
/// German and Spanish (Dutch, Italian, Portuguese, ...; or code, or a word too short to
/// tell) is filed as English.
///
/// whichlang replaced whatlang's trigram detection here, which was a seventh of an
/// ingest's work with the index (`docs/performance.md`, "Full-text search"): it sums
/// the weights of a text's letter n-grams in one pass, where whatlang counted, sorted
/// and ranked the text's trigrams against each language's profile.
pub fn detect_language(text: &str) -> TextLanguage {
    // A text's language shows in its first few hundred bytes; the rest only costs (the
    // detection is linear in its input).
    let sample = prefix_on_char_boundary(text, DETECTION_SAMPLE);
    match whatlang::detect_script(sample) {
        Some(Script::Mandarin | Script::Hiragana | Script::Katakana) => TextLanguage::Cjk,
        Some(Script::Latin) => match whichlang::detect_language(sample) {
            whichlang::Lang::Fra => TextLanguage::French,
            whichlang::Lang::Deu => TextLanguage::German,
            whichlang::Lang::Spa => TextLanguage::Spanish,
            // English for the rest: most agent histories are English, and a word the
            // English stemmer leaves whole, or cuts as it cuts the query, still matches
            // (a search reads every language's field, each with its own analysis).
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
            text: {
                let mut text = String::with_capacity(pair[0].text.len() + 1 + pair[1].text.len());
                text.push_str(&pair[0].text);
                text.push(' ');
                text.push_str(&pair[1].text);
                text
            },
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

    /// The terms an analyzer gives of a text.
    fn terms(analyzer: &mut TextAnalyzer, text: &str) -> Vec<String> {
        analyzed(analyzer, text)
            .into_iter()
            .map(|token| token.text)
            .collect()
    }

    fn texts(text: &str) -> Vec<String> {
        terms(&mut TextLanguage::Cjk.analyzer(), text)
    }

    #[test]
    fn word_pairs_are_neighbours_after_the_analysis() {
        let mut pairs = TextAnalyzer::from(WordPairs {
            language: TextLanguage::English,
            words: TextLanguage::English.analyzer(),
        });
        let texts = terms(&mut pairs, "Connections timed out, retrying");
        assert_eq!(texts, ["connect time", "time out", "out retri"]);
        // A word too long to index parts its neighbours.
        let long = "x".repeat(MAX_TERM_BYTES + 1);
        let texts = terms(&mut pairs, &format!("timed {long} out"));
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
        let stems = |language: TextLanguage, text: &str| terms(&mut language.analyzer(), text);
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
    fn remembered_stems_are_the_stemmers_own() {
        use tantivy::tokenizer::{Language, Stemmer};
        let texts = [
            (
                TextLanguage::English,
                Language::English,
                "Connections timed out; the connection was retried, connections retrying",
            ),
            (
                TextLanguage::French,
                Language::French,
                "Les déploiements ont échoué, le déploiement échoue encore",
            ),
            (
                TextLanguage::German,
                Language::German,
                "Die Verbindungen brachen ab, die Verbindung bricht ab",
            ),
            (
                TextLanguage::Spanish,
                Language::Spanish,
                "Las conexiones fallaron y la conexión falla otra vez",
            ),
        ];
        for (language, stemmer, text) in texts {
            let mut plain = TextAnalyzer::builder(SimpleTokenizer::default())
                .filter(RemoveLongFilter::limit(MAX_TERM_BYTES))
                .filter(LowerCaser)
                .filter(AsciiFoldingFilter)
                .filter(Stemmer::new(stemmer))
                .build();
            let expected = terms(&mut plain, text);
            // One analyzer, the same text three times: the second and third read the
            // stems remembered from the first.
            let mut remembering = language.analyzer();
            for _ in 0..3 {
                assert_eq!(terms(&mut remembering, text), expected, "{text}");
            }
            // A copy starts with nothing remembered and stems the same.
            assert_eq!(terms(&mut remembering.clone(), text), expected, "{text}");
        }
        // Past the bound the stems are forgotten and made again.
        let mut analyzer = TextLanguage::English.analyzer();
        let many: String = (0..MOST_STEMS + 10).map(|n| format!("w{n}ings ")).collect();
        let words = analyzed(&mut analyzer, &many);
        assert_eq!(words.len(), MOST_STEMS + 10);
        assert_eq!(analyzed(&mut analyzer, "connections")[0].text, "connect");
    }

    #[test]
    fn a_long_sample_is_cut_on_a_character_boundary() {
        let text = "é".repeat(3000);
        let sample = prefix_on_char_boundary(&text, 513);
        assert_eq!(sample.len(), 512);
    }
}
