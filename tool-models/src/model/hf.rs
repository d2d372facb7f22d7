//! Loading a Hugging Face model directory: `config.json`, the safetensors
//! weights, `tokenizer.json`, and the optional `tokenizer_config.json`
//! (chat template, special tokens) and `generation_config.json` (eos ids).

use super::config::HfConfig;
use super::files::ModelFiles;
use super::json::{parse_json_object, read_json_object, token_ids};
use super::network::Network;
use super::weights::Weights;
use super::{CacheType, Model, ModelError, Parts, Tokenizer};
use crate::template::ModelTemplates;
use serde_json::{Map, Value};
use std::path::Path;
use std::sync::Arc;

const CONFIG: &str = "config.json";
const TOKENIZER: &str = "tokenizer.json";
const TOKENIZER_CONFIG: &str = "tokenizer_config.json";
const GENERATION_CONFIG: &str = "generation_config.json";
const TEMPLATE_FILE: &str = "chat_template.jinja";

pub(crate) fn load(files: ModelFiles<'_>) -> Result<Model, ModelError> {
    let config_path = files.path(CONFIG);
    let config = HfConfig::parse(
        read_json_object(
            &files,
            CONFIG,
            "the model configuration (architectures, sizes) every Hugging Face model directory has",
        )?,
        &config_path,
    )?;

    let tokenizer_path = files.path(TOKENIZER);
    let tokenizer = load_tokenizer(&files)?;
    if tokenizer.vocab_size() > config.vocab_size {
        return Err(ModelError::inconsistent(
            &tokenizer_path,
            format!(
                "the tokenizer has {} tokens, more than the {} rows of the model's embedding (vocab_size in config.json)",
                tokenizer.vocab_size(),
                config.vocab_size
            ),
        ));
    }

    let tokenizer_config_path = files.path(TOKENIZER_CONFIG);
    // Read once: parsed here, and given to the template loader below.
    let tokenizer_config_text = if files.has(TOKENIZER_CONFIG) {
        Some(files.text(TOKENIZER_CONFIG, "the tokenizer configuration")?)
    } else {
        None
    };
    let tokenizer_config = match &tokenizer_config_text {
        Some(text) => {
            let cfg = parse_json_object(text, tokenizer_config_path.clone())?;
            check_added_tokens(&cfg, &tokenizer, &tokenizer_config_path)?;
            Some(cfg)
        }
        None => None,
    };
    let special_id = |key: &str| -> Result<Option<u32>, ModelError> {
        let Some(cfg) = &tokenizer_config else {
            return Ok(None);
        };
        let token = match cfg.get(key) {
            Some(Value::String(s)) => s.as_str(),
            Some(Value::Object(o)) => match o.get("content").and_then(Value::as_str) {
                Some(s) => s,
                None => return Ok(None),
            },
            _ => return Ok(None),
        };
        match tokenizer.token_to_id(token) {
            Some(id) => Ok(Some(id)),
            None => Err(ModelError::inconsistent(
                &tokenizer_config_path,
                format!("{key} {token:?} is not a token of {TOKENIZER}"),
            )),
        }
    };
    let eos_token = special_id("eos_token")?;
    let bos_token = special_id("bos_token")?;

    let generation_path = files.path(GENERATION_CONFIG);
    let (gen_eos, gen_bos) = if files.has(GENERATION_CONFIG) {
        let cfg = read_json_object(&files, GENERATION_CONFIG, "the generation configuration")?;
        (
            token_ids(cfg.get("eos_token_id"), "eos_token_id", &generation_path)?,
            token_ids(cfg.get("bos_token_id"), "bos_token_id", &generation_path)?,
        )
    } else {
        (Vec::new(), Vec::new())
    };
    let mut eos_ids: Vec<u32> = Vec::new();
    for id in gen_eos
        .iter()
        .chain(&config.eos_ids)
        .copied()
        .chain(eos_token)
    {
        if !eos_ids.contains(&id) {
            eos_ids.push(id);
        }
    }
    if eos_ids.is_empty() {
        return Err(ModelError::MissingFile {
            path: generation_path,
            what: format!(
                "an end-of-sequence token: expected eos_token_id in {GENERATION_CONFIG} or {CONFIG}, or eos_token in {TOKENIZER_CONFIG}"
            ),
        });
    }
    if let Some(&bad) = eos_ids.iter().find(|&&id| id as usize >= config.vocab_size) {
        return Err(ModelError::inconsistent(
            &config_path,
            format!(
                "end-of-sequence token id {bad} is outside the vocabulary of {} tokens",
                config.vocab_size
            ),
        ));
    }
    let bos_id = gen_bos.first().copied().or(config.bos_id).or(bos_token);

    let templates = if tokenizer_config.is_some() || files.has(TEMPLATE_FILE) {
        let jinja = if files.has(TEMPLATE_FILE) {
            Some(files.text(TEMPLATE_FILE, "the chat template")?)
        } else {
            None
        };
        let found = ModelTemplates::from_files(
            files.root(),
            tokenizer_config_text.as_deref(),
            jinja.as_deref(),
        );
        super::found_templates(found, files.root())?
    } else {
        None
    };

    let mut weights = Weights::load(&files)?;
    let parameter_count = weights.parameter_count(config.tie_word_embeddings);
    let network = Network::from_hf(&config, &mut weights)?;
    drop(weights);
    Model::assemble(Parts {
        path: files.root().to_owned(),
        architecture: config.name,
        tokenizer: Arc::new(tokenizer),
        templates,
        eos_ids,
        bos_id,
        context_length: config.context_length,
        vocab_size: config.vocab_size,
        parameter_count: Some(parameter_count),
        network,
        cache_type: CacheType::F32,
    })
}

fn load_tokenizer(files: &ModelFiles<'_>) -> Result<Tokenizer, ModelError> {
    let path = &files.path(TOKENIZER);
    let text = files.text(
        TOKENIZER,
        "the tokenizer (a tokenizers JSON file; tokenizer.model alone is not supported)",
    )?;
    // Parsed once as JSON first so that a syntax error carries line and column.
    serde_json::from_str::<serde::de::IgnoredAny>(&text).map_err(|source| ModelError::Json {
        path: path.to_owned(),
        source,
    })?;
    let inner: tokenizers::Tokenizer = text
        .parse()
        .map_err(|e| ModelError::invalid(path, format!("not a valid tokenizer: {e}")))?;
    Ok(Tokenizer::new(inner))
}

/// `added_tokens_decoder` must agree with the tokenizer's own ids.
fn check_added_tokens(
    cfg: &Map<String, Value>,
    tokenizer: &Tokenizer,
    path: &Path,
) -> Result<(), ModelError> {
    let Some(Value::Object(added)) = cfg.get("added_tokens_decoder") else {
        return Ok(());
    };
    for (id, entry) in added {
        let Some(content) = entry.get("content").and_then(Value::as_str) else {
            continue;
        };
        let Ok(id) = id.parse::<u32>() else {
            return Err(ModelError::invalid(
                path,
                format!("expected the keys of added_tokens_decoder to be token ids, found {id:?}"),
            ));
        };
        match tokenizer.token_to_id(content) {
            Some(found) if found == id => {}
            Some(found) => {
                return Err(ModelError::inconsistent(
                    path,
                    format!("added token {content:?} has id {id} here but {found} in {TOKENIZER}"),
                ))
            }
            None => {
                return Err(ModelError::inconsistent(
                    path,
                    format!("added token {content:?} (id {id}) is not in {TOKENIZER}"),
                ))
            }
        }
    }
    Ok(())
}
