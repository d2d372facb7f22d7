//! The bundled tokenizer: trained on the rendered corpus, with the chat
//! template's markers as single tokens, small enough a prompt that the demo
//! toolbox fits well inside the model's context.
//!
//! `cargo test --release --test corpus_tokenizer -- --ignored write_bundled_tokenizer --nocapture`
//! trains it again and writes `models/tool-use-mini/tokenizer.json`;
//! `... -- --ignored compare_vocab_sizes --nocapture` prints the numbers
//! the vocabulary size was chosen by.

use serde_json::Value;
use std::path::PathBuf;
use std::time::Instant;
use tool_train::corpus::tokenizer::{
    demo_system_prompt, lower_case_words, measure, spelling_pattern, train_bundled_tokenizer,
    whole_words, BUNDLED_VOCAB_SIZE, WHOLE_MESSAGE_WORDS,
};
use tool_train::corpus::{self, Split, SPECIAL_TOKENS};
use tool_train::train::bpe::Tokenizer;

fn model_dir() -> PathBuf {
    PathBuf::from(tool_use_mini::SOURCE_DIR)
}

fn bundled() -> Tokenizer {
    let path = model_dir().join("tokenizer.json");
    Tokenizer::from_file(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn the_markers_are_single_tokens_with_the_configured_ids() {
    let tokenizer = bundled();
    let config: Value = serde_json::from_str(corpus::TOKENIZER_CONFIG).unwrap();
    let decoder = config["added_tokens_decoder"].as_object().unwrap();
    assert_eq!(decoder.len(), SPECIAL_TOKENS.len());
    for (id, (token, special)) in SPECIAL_TOKENS.iter().enumerate() {
        assert_eq!(tokenizer.token_to_id(token), Some(id as u32), "{token}");
        assert_eq!(
            tokenizer.encode(*token, false).unwrap().get_ids(),
            [id as u32]
        );
        let entry = &decoder[&id.to_string()];
        assert_eq!(entry["content"], *token);
        assert_eq!(entry["special"], *special);
    }
    for key in ["bos_token", "pad_token", "eos_token"] {
        let token = config[key].as_str().unwrap();
        assert!(tokenizer.token_to_id(token).is_some(), "{key} {token}");
    }
    assert_eq!(config["eos_token"], "<|im_end|>");
    assert_eq!(tokenizer.get_vocab_size(true), BUNDLED_VOCAB_SIZE);
}

#[test]
fn the_demo_prompt_and_the_corpus_fit_the_context() {
    let tokenizer = bundled();
    let template = corpus::bundled_template().unwrap();
    let prompt = demo_system_prompt(&template).unwrap();
    let examples = corpus::generate(99, 300, Split::HeldOut);
    let stats = measure(&tokenizer, &template, &examples).unwrap();
    // Under 30% of the 2048 positions (names spelled letter by letter made
    // it 549 tokens, from 486).
    assert!(
        stats.demo_prompt_tokens <= 600,
        "the demo system prompt takes {} tokens:\n{prompt}",
        stats.demo_prompt_tokens
    );
    // Even a session of four requests with e-mail bodies spelled letter by
    // letter fits the 2048 positions, and hardly any conversation is longer
    // than the 1,536 tokens training keeps of it (4 of these 300; 1 with
    // lower-case words whole).
    assert!(stats.max_tokens < 2048, "{stats:?}");
    let mut cut = 0;
    for example in &examples {
        let (text, _) = corpus::render(&template, example).unwrap();
        let ids = tokenizer.encode(text.as_str(), false).unwrap();
        assert_eq!(tokenizer.decode(ids.get_ids(), false).unwrap(), text);
        cut += usize::from(ids.len() > 1536);
    }
    assert!(
        cut * 50 <= examples.len(),
        "{cut} of {} conversations over 1536 tokens",
        examples.len()
    );
}

/// The model copies values from the request into a call and from a result
/// into the answer: that is only learnable when a value is the same tokens
/// in a sentence and inside a JSON string.
#[test]
fn values_are_the_same_tokens_in_prose_and_in_json() {
    let tokenizer = bundled();
    let ids = |text: &str| tokenizer.encode(text, false).unwrap().get_ids().to_vec();
    let contains = |hay: &[u32], needle: &[u32]| hay.windows(needle.len()).any(|w| w == needle);
    for value in [
        "Chennai",
        "Zagreb, Croatia",
        "Abu Dhabi",
        "Velmora",
        "Port Tarbisk",
        "35371.8",
        "-14.4",
        "Volunteer shift",
        "tips for public speaking",
        "paula@example.com",
    ] {
        let alone = ids(value);
        for context in [
            format!("What's the weather in {value} right now?"),
            value.to_string(),
            format!("{{\"location\": \"{value}\", \"unit\": \"celsius\"}}"),
            format!("The answer is {value}."),
            format!("<tool_response>\n{value}\n</tool_response>"),
        ] {
            assert!(
                contains(&ids(&context), &alone),
                "{value:?} is {:?} alone but not within {context:?}: {:?}",
                tokenizer.encode(value, false).unwrap().get_tokens(),
                tokenizer
                    .encode(context.as_str(), false)
                    .unwrap()
                    .get_tokens()
            );
        }
    }
}

/// The committed tokenizer was trained with the pattern the code documents
/// (retraining it is an ignored test, so drift would go unnoticed).
/// The shipped tokenizer is the one `write_bundled_tokenizer` trains: its
/// split pattern keeps whole the same words the code picks today.
#[test]
fn the_bundled_tokenizer_splits_with_the_spelling_pattern() {
    let path = model_dir().join("tokenizer.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let split = &json["pre_tokenizer"]["pretokenizers"][0];
    assert_eq!(split["type"], "Split");
    let template = corpus::bundled_template().unwrap();
    let examples = corpus::generate(
        tool_train::corpus::tokenizer::BUNDLED_SEED,
        tool_train::corpus::tokenizer::BUNDLED_EXAMPLES,
        Split::Train,
    );
    let words = whole_words(&template, &examples, WHOLE_MESSAGE_WORDS).unwrap();
    assert_eq!(split["pattern"]["Regex"], spelling_pattern(&words));
}

/// Names are copied letter by letter, like numbers digit by digit, and so
/// is free text outside the words kept whole: every such letter is a token
/// of its own, written by the assistant all the time, so its embedding
/// stays distinct.
#[test]
fn names_and_rare_words_are_spelled_one_letter_per_token() {
    let tokenizer = bundled();
    let tokens = |text: &str| tokenizer.encode(text, false).unwrap().get_tokens().to_vec();
    for (text, expected) in [
        ("Paris", vec!["P", "a", "r", "i", "s"]),
        (
            "\"Draumesk\"",
            vec!["\"", "D", "r", "a", "u", "m", "e", "s", "k", "\""],
        ),
        ("NYC", vec!["N", "Y", "C"]),
        ("in Oslo", vec!["in", "Ġ", "O", "s", "l", "o"]),
        (
            "retrospective",
            vec![
                "r", "e", "t", "r", "o", "s", "p", "e", "c", "t", "i", "v", "e",
            ],
        ),
    ] {
        assert_eq!(tokens(text), expected, "{text:?}");
    }
    // The tools' words, and the messages' frequent ones, stay whole.
    for word in ["weather", "location", "temperature", "the"] {
        assert_eq!(tokens(word), [word], "{word:?}");
    }
}

#[test]
#[ignore = "trains on the full corpus: run with --release to rewrite models/tool-use-mini/tokenizer.json"]
fn write_bundled_tokenizer() {
    let start = Instant::now();
    let tokenizer = train_bundled_tokenizer().unwrap();
    let path = model_dir().join("tokenizer.json");
    tokenizer.save(&path, true).unwrap();
    eprintln!(
        "trained and wrote {} in {:.1?}",
        path.display(),
        start.elapsed()
    );
}

#[test]
#[ignore = "trains three tokenizers: run with --release"]
fn compare_vocab_sizes() {
    let template = corpus::bundled_template().unwrap();
    let start = Instant::now();
    let train = corpus::generate(2026, 20_000, Split::Train);
    eprintln!("generated 20000 examples in {:.1?}", start.elapsed());
    let held = corpus::generate(7, 2_000, Split::HeldOut);
    let patterns = [
        ("qwen2", tool_train::train::bpe::SPLIT_PATTERN.to_owned()),
        (
            "corpus",
            tool_train::corpus::tokenizer::CORPUS_SPLIT_PATTERN.to_owned(),
        ),
    ];
    for (vocab, (pname, pattern)) in [2048, 3072, 4096]
        .into_iter()
        .flat_map(|v| patterns.clone().into_iter().map(move |p| (v, p)))
    {
        if pattern.is_empty() {
            continue;
        }
        eprint!("{pname} ");
        let start = Instant::now();
        let tokenizer = tool_train::corpus::tokenizer::train_tokenizer_split(
            &template, &train, vocab, &pattern,
        )
        .unwrap();
        let elapsed = start.elapsed();
        let on_train = measure(&tokenizer, &template, &train[..2000]).unwrap();
        let on_held = measure(&tokenizer, &template, &held).unwrap();
        eprintln!(
            "vocab {vocab}: trained in {elapsed:.1?}; train mean {:.1} max {} (assistant {:.1}); \
             held-out mean {:.1} max {} (assistant {:.1}); demo prompt {}",
            on_train.mean_tokens,
            on_train.max_tokens,
            on_train.mean_assistant_tokens,
            on_held.mean_tokens,
            on_held.max_tokens,
            on_held.mean_assistant_tokens,
            on_train.demo_prompt_tokens
        );
    }
}

#[test]
#[ignore = "measures the corpus: run with --release"]
fn corpus_numbers() {
    let tokenizer = bundled();
    let template = corpus::bundled_template().unwrap();
    let start = Instant::now();
    let train = corpus::generate(2026, 20_000, Split::Train);
    let generated = start.elapsed();
    let start = Instant::now();
    let bytes: usize = train
        .iter()
        .map(|e| corpus::render(&template, e).unwrap().0.len())
        .sum();
    let rendered = start.elapsed();
    eprintln!(
        "20000 train examples: generated in {generated:.2?} ({:.0}/s), rendered in {rendered:.2?}, {:.1} MB of text",
        20_000.0 / generated.as_secs_f64(),
        bytes as f64 / 1e6
    );
    for scenario in corpus::Scenario::ALL {
        let n = train.iter().filter(|e| e.scenario == scenario).count();
        eprintln!("  {scenario:?}: {n}");
    }
    let demo = train.iter().filter(|e| e.offers_demo_tools()).count();
    eprintln!("  offering exactly the demo toolbox: {demo}");
    let held = corpus::generate(7, 2_000, Split::HeldOut);
    for (name, set) in [("train", &train[..]), ("held-out", &held[..])] {
        let stats = measure(&tokenizer, &template, set).unwrap();
        eprintln!("{name}: {stats:?}");
    }
    let prompt = demo_system_prompt(&template).unwrap();
    let tokens = tokenizer.encode(prompt.as_str(), false).unwrap().len();
    eprintln!(
        "demo system prompt: {tokens} tokens, {} bytes",
        prompt.len()
    );
}

#[test]
#[ignore = "prints the demo system prompt's tokens"]
fn show_demo_prompt_tokens() {
    let template = corpus::bundled_template().unwrap();
    let prompt = demo_system_prompt(&template).unwrap();
    let enc = bundled().encode(prompt.as_str(), false).unwrap();
    eprintln!("{prompt}\n{} tokens: {:?}", enc.len(), enc.get_tokens());
}

#[test]
fn the_loss_mask_covers_exactly_the_assistant_output() {
    let tokenizer = bundled();
    let template = corpus::bundled_template().unwrap();
    for example in corpus::generate(5, 300, Split::Train) {
        let (text, spans) = corpus::render(&template, &example).unwrap();
        let encoded = corpus::encode(&tokenizer, &template, &example).unwrap();
        assert_eq!(encoded.ids.len(), encoded.mask.len());
        assert_eq!(tokenizer.decode(&encoded.ids, false).unwrap(), text);
        // The masked-in tokens spell out the spans, in order, and nothing else.
        let trained: Vec<u32> = encoded
            .ids
            .iter()
            .zip(&encoded.mask)
            .filter(|(_, &m)| m)
            .map(|(&id, _)| id)
            .collect();
        let expected: String = spans.iter().map(|s| &text[s.clone()]).collect();
        assert_eq!(tokenizer.decode(&trained, false).unwrap(), expected);
        assert_eq!(encoded.trained_tokens(), trained.len());
        // Each span ends with the end-of-turn token, trained on.
        let im_end = tokenizer.token_to_id("<|im_end|>").unwrap();
        let ends = encoded
            .ids
            .iter()
            .zip(&encoded.mask)
            .filter(|(&id, &m)| m && id == im_end)
            .count();
        assert_eq!(ends, spans.len());
    }
    // A span edge inside a token is refused rather than guessed.
    let spans = vec![std::ops::Range { start: 0, end: 3 }];
    let err = corpus::encode_text(&tokenizer, "temperature", &spans).unwrap_err();
    assert!(
        matches!(err, corpus::CorpusError::TokenAcrossSpan { .. }),
        "{err}"
    );
}

/// The pieces `pattern` cuts `text` into before BPE.
fn pieces(pattern: &str, text: &str) -> Vec<String> {
    use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
    use tokenizers::{OffsetReferential, OffsetType, PreTokenizedString, PreTokenizer};
    let split = Split::new(
        SplitPattern::Regex(pattern.to_owned()),
        tokenizers::SplitDelimiterBehavior::Isolated,
        false,
    )
    .unwrap();
    let mut pre = PreTokenizedString::from(text);
    split.pre_tokenize(&mut pre).unwrap();
    pre.get_splits(OffsetReferential::Original, OffsetType::Byte)
        .into_iter()
        .map(|(piece, _, _)| piece.to_owned())
        .collect()
}

fn whole(words: &[&str]) -> String {
    spelling_pattern(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
}

/// Lower-case free text is spelled like names, except the words kept whole,
/// and only where they stand alone.
#[test]
fn the_spelling_pattern_spells_lower_case_words_outside_the_whole_list() {
    let pattern = whole(&["team", "get_weather", "the", "in"]);
    let cases: [(&str, &[&str]); 7] = [
        ("team retro", &["team", " ", "r", "e", "t", "r", "o"]),
        ("teams", &["t", "e", "a", "m", "s"]),
        ("steam", &["s", "t", "e", "a", "m"]),
        (
            "\"get_weather\": in Oslo",
            &[
                "\"",
                "get_weather",
                "\":",
                " ",
                "in",
                " ",
                "O",
                "s",
                "l",
                "o",
            ],
        ),
        ("x_the", &["x", "_", "t", "h", "e"]),
        ("Theme", &["T", "h", "e", "m", "e"]),
        (
            "the -14.4 km",
            &["the", " ", "-1", "4", ".", "4", " ", "k", "m"],
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(pieces(&pattern, text), expected, "{text:?}");
    }
    // With nothing kept whole, every letter is a piece.
    assert_eq!(
        pieces(&whole(&[]), "get it"),
        ["g", "e", "t", " ", "i", "t"]
    );
    // The old pattern keeps lower-case words whole.
    assert_eq!(
        pieces(
            tool_train::corpus::tokenizer::CORPUS_SPLIT_PATTERN,
            "team retro"
        ),
        ["team", " ", "retro"]
    );
}

#[test]
fn lower_case_words_are_runs_of_lower_case_letters_and_underscores() {
    let words: Vec<&str> =
        lower_case_words("Book get_weather(\"in\": Paris, iPhone) for 2 nights; café").collect();
    assert_eq!(words, ["get_weather", "in", "for", "nights", "café"]);
}

/// The template's and the tools' words are kept whole however rare, and
/// the messages' words by frequency.
#[test]
fn whole_words_come_from_the_prompt_and_the_most_frequent_message_words() {
    let template = corpus::bundled_template().unwrap();
    let examples = corpus::generate(3, 200, Split::Train);
    let few = whole_words(&template, &examples, 10).unwrap();
    let more = whole_words(&template, &examples, 100).unwrap();
    for word in [
        "get_current_temperature",
        "location",
        "celsius",
        "type",
        "properties",
    ] {
        assert!(few.iter().any(|w| w == word), "{word} missing from {few:?}");
    }
    // The same prompt words, then the message words by rank.
    assert!(more.len() > few.len());
    assert!(more.starts_with(&few), "{few:?} / {more:?}");
    for word in ["the", "what"] {
        assert!(
            more.iter().any(|w| w == word),
            "{word} missing from {more:?}"
        );
    }
    assert!(more.iter().all(|w| lower_case_words(w).count() == 1));
}

proptest::proptest! {
    /// Splitting loses nothing, and a lower-case word outside the list is
    /// always spelled one letter per piece.
    #[test]
    fn spelling_keeps_every_byte_and_spells_unlisted_words(
        text in "[a-zA-Z_ ,.:\"0-9-]{0,60}",
    ) {
        let pattern = whole(&["team", "in", "get_weather"]);
        let split = pieces(&pattern, &text);
        proptest::prop_assert_eq!(split.concat(), text.clone());
        for piece in &split {
            // `_` outside a word is punctuation.
            let letters = piece.chars().filter(|c| c.is_alphabetic()).count();
            if letters > 1 {
                proptest::prop_assert!(
                    ["team", "in", "get_weather"].contains(&piece.as_str()),
                    "{piece:?} in {text:?}: {split:?}"
                );
            }
        }
    }
}

#[test]
#[ignore = "trains two tokenizers on the bundled corpus: run with --release"]
fn measure_spelling_lower_case_words() {
    let template = corpus::bundled_template().unwrap();
    let train = corpus::generate(2026, 20_000, Split::Train);
    let held = corpus::generate(7, 2_000, Split::HeldOut);
    let whole = whole_words(&template, &train, WHOLE_MESSAGE_WORDS).unwrap();
    eprintln!("{} words kept whole", whole.len());
    for (name, pattern) in [
        (
            "corpus",
            tool_train::corpus::tokenizer::CORPUS_SPLIT_PATTERN.to_owned(),
        ),
        ("spelling", spelling_pattern(&whole)),
    ] {
        let start = Instant::now();
        let tokenizer =
            tool_train::corpus::tokenizer::train_tokenizer_split(&template, &train, 8192, &pattern)
                .unwrap();
        let trained = start.elapsed();
        let start = Instant::now();
        let on_train = measure(&tokenizer, &template, &train[..2000]).unwrap();
        let measured = start.elapsed();
        let on_held = measure(&tokenizer, &template, &held).unwrap();
        eprintln!(
            "{name}: vocab {} (trained in {trained:.1?}); train mean {:.1} max {} (assistant {:.1}), \
             encoded in {measured:.1?}; held-out mean {:.1} (assistant {:.1}); demo prompt {}",
            tokenizer.get_vocab_size(true),
            on_train.mean_tokens,
            on_train.max_tokens,
            on_train.mean_assistant_tokens,
            on_held.mean_tokens,
            on_held.mean_assistant_tokens,
            on_train.demo_prompt_tokens
        );
        if let Ok(dir) = std::env::var("TOOL_TRAIN_TOKENIZER_OUT") {
            let path = PathBuf::from(dir).join(format!("{name}-tokenizer.json"));
            tokenizer.save(&path, true).unwrap();
            // Rendered held-out conversations and their ids, for comparing
            // with Python's `tokenizers` (which reads the pattern with Oniguruma).
            let mut lines = String::new();
            for example in held.iter().take(300) {
                let text = corpus::render(&template, example).unwrap().0;
                let ids = tokenizer
                    .encode(text.as_str(), false)
                    .unwrap()
                    .get_ids()
                    .to_vec();
                lines += &serde_json::json!({ "text": text, "ids": ids }).to_string();
                lines.push('\n');
            }
            let encoded = path.with_extension("held-out.jsonl");
            std::fs::write(&encoded, lines).unwrap();
            eprintln!("wrote {} and {}", path.display(), encoded.display());
        }
    }
}
