//! How deep a SPARQL text nests, measured on the text before anything parses it.
//!
//! Parsing, optimizing, evaluating and even dropping a query recurse once per level of its
//! syntax tree, so a short text can ask for more stack than a thread has: 5,000 nested
//! parentheses, or a chain of 1,000 `+`, overflows it and aborts the whole process. The
//! tree's depth is bounded here from the tokens alone, so a text too deep is refused with
//! an error before it can reach the recursion.
//!
//! The measure is an upper bound of the depth of the tree a parser builds: every open
//! bracket (`(`, `{`, `[`) is one level, and so is every token that stacks one more node
//! onto the level it sits in: an operator (`||`, `&&`, comparisons, `+`, `-`, `*`, `/`,
//! `!`, path `|` and `^`), a keyword that wraps what comes before it (`UNION`,
//! `OPTIONAL`, `MINUS`, `BIND`, `FILTER`, `SERVICE`, `GRAPH`, `VALUES`, `AS`), and every
//! bracket opened beside earlier ones (a group after a group is a join of the two). What
//! a level counted is given back when its bracket closes. Data blocks (`VALUES`,
//! `INSERT DATA`, `DELETE DATA`) are flat lists whatever their length, so only their
//! brackets count. Strings, IRIs and comments are skipped whole.

use std::fmt;

/// The deepest nesting a client's SPARQL text may have: well above what a query written
/// by a person or a model needs (ihigraph's own queries stay under a quarter of it), and below what
/// the stack of a thread of the server holds (a debug build's parser takes about 40 KB a
/// level, a release build's a tenth of that).
pub const MAX_NESTING: usize = 128;

/// A SPARQL text that nests deeper than allowed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooDeep {
    /// The limit.
    pub limit: usize,
    /// The line (from 1) where the text went past it.
    pub line: usize,
    /// The column (from 1, in characters) where the text went past it.
    pub column: usize,
}

impl fmt::Display for TooDeep {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the SPARQL text nests deeper than {} levels at line {}, column {} (brackets, and operators or keywords chained within one bracket, each count one): write it flatter, for example `?x IN (...)` for a chain of `||`",
            self.limit, self.line, self.column
        )
    }
}

impl std::error::Error for TooDeep {}

/// Checks that `text` nests no deeper than `limit`, before it is parsed.
///
/// ```
/// use ihigraph::query::{MAX_NESTING, check_nesting};
/// assert!(check_nesting("SELECT * { ?s ?p ?o FILTER(?o > 1 && ?o < 9) }", MAX_NESTING).is_ok());
/// let deep = format!("SELECT ({}1{} AS ?x) {{}}", "(".repeat(500), ")".repeat(500));
/// let error = check_nesting(&deep, MAX_NESTING).unwrap_err();
/// assert_eq!((error.line, error.limit), (1, MAX_NESTING));
/// ```
///
/// # Errors
///
/// [`TooDeep`], with where the text went past the limit.
pub fn check_nesting(text: &str, limit: usize) -> Result<(), TooDeep> {
    let mut scan = Scan::new(text);
    let mut levels: Vec<Level> = Vec::new();
    let mut top = Level::default();
    let mut depth = 0usize;
    // The next bracket opens a data block: after `VALUES`, `INSERT DATA`, `DELETE DATA`.
    let mut data_next = false;
    while let Some((token, at)) = scan.next_token() {
        let in_data = levels.last().is_some_and(|level| level.data);
        let current = levels.last_mut().unwrap_or(&mut top);
        let added = match token {
            Token::Open => {
                let sibling = usize::from(!in_data && current.opened > 0);
                current.opened += 1;
                current.counted += sibling;
                // `VALUES (?a ?b) { ... }` names its variables in brackets first.
                let data = in_data || (data_next && !scan.variables_follow());
                data_next &= !data;
                levels.push(Level {
                    data,
                    ..Level::default()
                });
                sibling + 1
            }
            Token::Close => {
                if let Some(level) = levels.pop() {
                    depth = depth.saturating_sub(level.counted + 1);
                }
                0
            }
            Token::Chain if !in_data => {
                current.counted += 1;
                1
            }
            Token::Chain | Token::Other | Token::Iri(_) => 0,
            Token::Data => {
                data_next = true;
                0
            }
        };
        depth += added;
        // What an IRI holds counts only while it is read.
        let held = match token {
            Token::Iri(operators) if !in_data => operators,
            _ => 0,
        };
        if depth + held > limit {
            let (line, column) = scan.position(at);
            return Err(TooDeep {
                limit,
                line,
                column,
            });
        }
    }
    Ok(())
}

/// What an open bracket has counted so far.
#[derive(Default)]
struct Level {
    /// Chain tokens and sibling brackets within it.
    counted: usize,
    /// Brackets opened within it.
    opened: usize,
    /// Whether it is a data block.
    data: bool,
}

/// What the measure tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token {
    Open,
    Close,
    /// A token that stacks a node onto its level.
    Chain,
    /// `VALUES`, or `DATA` after `INSERT` or `DELETE`: the next bracket is data.
    Data,
    /// An IRI, with the operator characters it holds.
    Iri(usize),
    Other,
}

/// The tokens of a SPARQL text, as far as the measure needs them.
struct Scan<'a> {
    text: &'a str,
    bytes: &'a [u8],
    at: usize,
    /// The keyword before the current one, upper-cased (for `INSERT DATA`).
    previous_word: String,
}

impl<'a> Scan<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            at: 0,
            previous_word: String::new(),
        }
    }

    /// The next token and the byte offset it starts at.
    fn next_token(&mut self) -> Option<(Token, usize)> {
        loop {
            let start = self.at;
            let byte = *self.bytes.get(self.at)?;
            self.at += 1;
            let token = match byte {
                b'(' | b'{' | b'[' => Token::Open,
                b')' | b'}' | b']' => Token::Close,
                b'#' => {
                    self.skip_while(|byte| byte != b'\n');
                    continue;
                }
                b'"' | b'\'' => {
                    self.skip_string(byte);
                    continue;
                }
                b'<' => match self.skip_iri() {
                    // An IRI is one term, unless the parser may read it as `<` and an
                    // expression: what it holds then counts while it is read.
                    Some(operators) => Token::Iri(operators),
                    None => Token::Chain,
                },
                b'^' if self.bytes.get(self.at) == Some(&b'^') => {
                    self.at += 1;
                    Token::Other
                }
                b'|' | b'&' | b'=' | b'>' => {
                    // `||`, `&&`, `<=`, `>=` are one token.
                    if matches!(self.bytes.get(self.at), Some(b'|' | b'&' | b'=')) {
                        self.at += 1;
                    }
                    Token::Chain
                }
                b'!' | b'+' | b'-' | b'*' | b'/' | b'^' => Token::Chain,
                b'?' | b'$' => {
                    self.skip_while(is_name_byte);
                    continue;
                }
                byte if byte.is_ascii_alphabetic() => self.word(start),
                _ => continue,
            };
            return Some((token, start));
        }
    }

    fn word(&mut self, start: usize) -> Token {
        self.skip_while(|byte| is_name_byte(byte) || byte == b':' || byte == b'.');
        // A prefixed name's local part may hold dots, not end with one.
        while self.at > start + 1 && self.bytes[self.at - 1] == b'.' {
            self.at -= 1;
        }
        let word = self.text[start..self.at].to_ascii_uppercase();
        let token = match word.as_str() {
            "UNION" | "OPTIONAL" | "MINUS" | "BIND" | "FILTER" | "SERVICE" | "GRAPH" | "AS" => {
                Token::Chain
            }
            "VALUES" => Token::Data,
            "DATA" if matches!(self.previous_word.as_str(), "INSERT" | "DELETE") => Token::Data,
            _ => Token::Other,
        };
        self.previous_word = word;
        token
    }

    /// Whether the next thing after blanks is a variable: `VALUES (?a ?b)` names its
    /// variables in the bracket it opens, and the data block comes after.
    fn variables_follow(&self) -> bool {
        self.bytes[self.at..]
            .iter()
            .find(|byte| !byte.is_ascii_whitespace())
            .is_some_and(|byte| matches!(byte, b'?' | b'$' | b')'))
    }

    fn skip_while(&mut self, keep: impl Fn(u8) -> bool) {
        while self.bytes.get(self.at).is_some_and(|&byte| keep(byte)) {
            self.at += 1;
        }
    }

    /// Skips a string whose opening quote was just read: short or long (`"""`), with
    /// backslash escapes.
    fn skip_string(&mut self, quote: u8) {
        let long =
            self.bytes.get(self.at) == Some(&quote) && self.bytes.get(self.at + 1) == Some(&quote);
        if long {
            self.at += 2;
        }
        while let Some(&byte) = self.bytes.get(self.at) {
            self.at += 1;
            if byte == b'\\' {
                self.at += 1;
            } else if byte == quote {
                let closes = !long
                    || (self.bytes.get(self.at) == Some(&quote)
                        && self.bytes.get(self.at + 1) == Some(&quote));
                if closes {
                    self.at += if long { 2 } else { 0 };
                    return;
                }
            } else if byte == b'\n' && !long {
                return;
            }
        }
    }

    /// Skips an IRI whose `<` was just read, when what follows is one by SPARQL's
    /// `IRIREF` (none of `<>"{}|^`\` or blanks before its `>`), giving the operator
    /// characters it holds; `None` when the `<` is an operator.
    fn skip_iri(&mut self) -> Option<usize> {
        let rest = &self.bytes[self.at..];
        let end = rest.iter().position(|&byte| {
            byte == b'>'
                || byte <= b' '
                || matches!(byte, b'<' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\')
        })?;
        if rest[end] != b'>' {
            return None;
        }
        let operators = rest[..end]
            .iter()
            .filter(|byte| matches!(byte, b'+' | b'-' | b'*' | b'/' | b'!' | b'=' | b'&'))
            .count();
        self.at += end + 1;
        Some(operators)
    }

    /// The line and column (from 1) of a byte offset.
    fn position(&self, at: usize) -> (usize, usize) {
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
        (line, self.text[line_start..at].chars().count() + 1)
    }
}

fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'-' || byte >= 0x80
}

#[cfg(test)]
mod tests {
    use super::*;

    fn depth_ok(text: &str, limit: usize) -> bool {
        check_nesting(text, limit).is_ok()
    }

    /// The smallest limit `text` passes.
    fn depth(text: &str) -> usize {
        (0..10_000).find(|&limit| depth_ok(text, limit)).unwrap()
    }

    #[test]
    fn brackets_count_one_each() {
        assert_eq!(depth("ASK {}"), 1);
        assert_eq!(depth("SELECT ((((1))) AS ?x) {}"), 4);
        let deep = format!("SELECT * {}{}", "{".repeat(300), "}".repeat(300));
        assert_eq!(depth(&deep), 301);
    }

    #[test]
    fn chains_without_brackets_count_their_length() {
        let plus = format!("SELECT ({} AS ?x) {{}}", vec!["1"; 200].join("+"));
        assert!(depth(&plus) >= 200, "{}", depth(&plus));
        let union = format!(
            "SELECT * {{ {} }}",
            vec!["{ ?s ?p ?o }"; 100].join(" UNION ")
        );
        assert!(depth(&union) >= 100);
        let binds = format!("SELECT * {{ {} }}", "BIND(1 AS ?x) . ".repeat(100));
        assert!(depth(&binds) >= 100);
        let groups = format!("SELECT * {{ {} }}", "{ ?s ?p ?o } ".repeat(100));
        assert!(depth(&groups) >= 100, "a join of groups is a chain");
        let path = format!(
            "SELECT * {{ ?s {} ?o }}",
            vec!["<http://e/p>"; 100].join("/")
        );
        assert!(depth(&path) >= 100);
        let not = format!("SELECT ({}true AS ?x) {{}}", "!".repeat(100));
        assert!(depth(&not) >= 100);
    }

    #[test]
    fn a_closed_bracket_gives_back_what_it_counted() {
        let one = "SELECT * { ?s ?p ?o FILTER(?o > 1 && ?o < 9) } ";
        let filters = format!("{one}{}", "# again\n".repeat(500));
        assert!(depth(&filters) < 10);
        let calls = format!(
            "SELECT * {{ ?s ?p ?o FILTER(?o IN ({})) }}",
            vec!["1"; 5_000].join(", ")
        );
        assert!(depth(&calls) < 10, "a long IN list is flat");
    }

    #[test]
    fn data_blocks_are_flat_lists() {
        let values = format!(
            "SELECT * {{ VALUES (?a ?b) {{ {} }} }}",
            "(1 -2) (\"x\"^^<http://www.w3.org/2001/XMLSchema#string> 3) ".repeat(2_000)
        );
        assert!(depth(&values) < 10, "{}", depth(&values));
        let single = format!("SELECT * {{ VALUES ?a {{ {} }} }}", "-1 +2 ".repeat(2_000));
        assert!(depth(&single) < 10);
        let insert = format!(
            "INSERT DATA {{ GRAPH <http://e/g> {{ {} }} }}",
            "<http://e/s> <http://e/p> -1, [ <http://e/q> 2 ] . ".repeat(2_000)
        );
        assert!(depth(&insert) < 10, "{}", depth(&insert));
    }

    #[test]
    fn strings_iris_and_comments_are_skipped() {
        let text = "SELECT * { ?s <http:e:p?a(1)[2]> \"((({\" . ?s ?p '''{[(\n''' # ((({\n }";
        assert_eq!(depth(text), 2);
        // The operator characters of an IRI count while it is read, not after.
        let iris = "ASK { ?s <http://e/a-b> ?o . ?s <http://e/c-d> ?o }";
        assert_eq!(depth(iris), 5);
        assert_eq!(depth("ASK { FILTER(1 < 2 && 2 > 1) }"), 6);
        assert_eq!(depth(r#"ASK { FILTER("a\"(((" = "b") }"#), 4);
        // An IRI by its characters that the parser may read as `<` and a chain.
        let hidden = format!("ASK {{ FILTER(1<{}>1) }}", vec!["1"; 300].join("+"));
        assert!(depth(&hidden) >= 300);
    }

    #[test]
    fn the_error_says_where() {
        let text = format!("SELECT *\nWHERE {}{}", "{".repeat(10), "}".repeat(10));
        let error = check_nesting(&text, 5).unwrap_err();
        assert_eq!((error.line, error.column, error.limit), (2, 11, 5));
        assert!(
            error
                .to_string()
                .contains("deeper than 5 levels at line 2, column 11")
        );
    }

    #[test]
    fn ihigraphs_own_queries_pass_with_room() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("queries");
        let mut deepest = 0;
        for entry in walk(&dir) {
            let text = std::fs::read_to_string(&entry).unwrap();
            deepest = deepest.max(depth(&text));
        }
        assert!(deepest > 3 && deepest <= MAX_NESTING / 4, "{deepest}");
    }

    fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(walk(&path));
            } else if path.extension().is_some_and(|ext| ext == "rq") {
                files.push(path);
            }
        }
        files
    }
}
