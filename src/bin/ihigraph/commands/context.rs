//! `context`: the newest turns of a session that fit a token budget, as a provider's
//! request body.

use crate::cli::{ContextArgs, ContextFormatArg, SystemArg, TokenizerArg};
use crate::status::Status;
use anyhow::Result;
use ihigraph::HistoryStore;
use ihigraph::context::{ContextFormat, ContextOptions, SystemPrompt, Tokenizer, session_context};
use std::io::{self, Write};

pub fn run(store: &HistoryStore, args: &ContextArgs) -> Result<Status> {
    let options = ContextOptions {
        budget: args.budget,
        format: match args.format {
            ContextFormatArg::OpenaiChat => ContextFormat::OpenAiChat,
            ContextFormatArg::OpenaiResponses => ContextFormat::OpenAiResponses,
            ContextFormatArg::Anthropic => ContextFormat::Anthropic,
            ContextFormatArg::Gemini => ContextFormat::Gemini,
        },
        tokenizer: args.tokenizer.map(|tokenizer| match tokenizer {
            TokenizerArg::O200kBase => Tokenizer::O200kBase,
            TokenizerArg::Cl100kBase => Tokenizer::Cl100kBase,
        }),
        system: match args.system {
            SystemArg::Keep => SystemPrompt::Keep,
            SystemArg::Drop => SystemPrompt::Drop,
        },
        until: args.until,
    };
    let context = session_context(store, &args.session, &options)?;
    // Written whole, so that a reader that stops early is a broken pipe, not an error.
    let mut text = serde_json::to_string_pretty(&context.request)?;
    text.push('\n');
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    for omission in &context.omitted {
        eprintln!("ihigraph: left out: {omission}");
    }
    for index in &context.awaiting {
        eprintln!(
            "ihigraph: turn {index} awaits its response: its input is in the request, no answer follows"
        );
    }
    let turns = match context.turns.as_slice() {
        [] => "no turns".to_owned(),
        [only] => format!("turn {only}"),
        [first, .., last] => format!("turns {first} to {last}"),
    };
    eprintln!(
        "ihigraph: context of session {:?} for {}: {turns} ({} of {}), {} of {} tokens ({})",
        args.session,
        context.format,
        context.turns.len(),
        context.turns_available,
        context.tokens,
        context.budget,
        context.tokenizer,
    );
    Ok(Status::Success)
}
