//! Finding a model's chat template and special tokens wherever it keeps them:
//! a `.jinja` file, `tokenizer_config.json`, a model directory, a `.gguf` file.

use super::error::TemplateError;
use super::gguf::read_gguf_metadata;
use super::{ChatTemplate, Limits};
use crate::gguf::{GgufMetadata, GgufValue};
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One of a model's chat templates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedTemplate {
    /// `default`, `tool_use`, `rag`, ... (`default` for a lone template).
    pub name: String,
    /// The Jinja source.
    pub source: String,
}

/// A model's chat templates and special tokens, as loaded from disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelTemplates {
    /// Where they came from.
    pub path: PathBuf,
    /// One template, or several named ones.
    pub templates: Vec<NamedTemplate>,
    /// `bos_token`, `eos_token`, ... by variable name.
    pub special_tokens: BTreeMap<String, String>,
}

const TEMPLATE_FILE: &str = "chat_template.jinja";
const CONFIG_FILE: &str = "tokenizer_config.json";

impl ModelTemplates {
    /// Loads from a `.jinja` file, a `tokenizer_config.json` (or any JSON
    /// file with a `chat_template` key), a `.gguf` file or a model directory.
    ///
    /// In a directory, `chat_template.jinja` wins over the `chat_template`
    /// of `tokenizer_config.json`, as in transformers; the special tokens
    /// come from `tokenizer_config.json` either way. A `tokenizer_config.json`
    /// without a `chat_template` falls back to the `chat_template.jinja`
    /// beside it.
    pub fn load(path: &Path) -> Result<ModelTemplates, TemplateError> {
        if path.is_dir() {
            return load_dir(path);
        }
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("gguf") => load_gguf(path),
            Some("json") => load_config(path),
            _ => Ok(ModelTemplates {
                path: path.to_owned(),
                templates: vec![NamedTemplate {
                    name: "default".into(),
                    source: read(path)?,
                }],
                special_tokens: BTreeMap::new(),
            }),
        }
    }

    /// Parses the text of a `tokenizer_config.json`; `path` is for messages.
    pub fn from_tokenizer_config(text: &str, path: &Path) -> Result<ModelTemplates, TemplateError> {
        let config: Json = serde_json::from_str(text).map_err(|source| TemplateError::Json {
            path: path.to_owned(),
            source,
        })?;
        let Json::Object(config) = config else {
            return Err(TemplateError::NoTemplate {
                path: path.to_owned(),
                reason: "expected a JSON object".into(),
            });
        };
        let templates = match config.get("chat_template") {
            Some(value) => templates_from_json(value, path)?,
            None => Vec::new(),
        };
        Ok(ModelTemplates {
            path: path.to_owned(),
            templates,
            special_tokens: special_tokens(&config),
        })
    }

    /// The templates of the model directory `dir`, given the texts of its
    /// `tokenizer_config.json` and `chat_template.jinja` (either may be
    /// missing): [`load`](Self::load) for files that are already in memory.
    pub fn from_files(
        dir: &Path,
        tokenizer_config: Option<&str>,
        chat_template_jinja: Option<&str>,
    ) -> Result<ModelTemplates, TemplateError> {
        let mut loaded = match tokenizer_config {
            Some(text) => ModelTemplates::from_tokenizer_config(text, &dir.join(CONFIG_FILE))?,
            None => ModelTemplates {
                path: dir.to_owned(),
                templates: Vec::new(),
                special_tokens: BTreeMap::new(),
            },
        };
        if let Some(source) = chat_template_jinja {
            let source = source.to_owned();
            match loaded.templates.iter_mut().find(|t| t.name == "default") {
                Some(default) => default.source = source,
                None => loaded.templates.insert(
                    0,
                    NamedTemplate {
                        name: "default".into(),
                        source,
                    },
                ),
            }
        }
        if loaded.templates.is_empty() {
            return Err(TemplateError::NoTemplate {
                path: dir.to_owned(),
                reason: format!(
                    "expected {TEMPLATE_FILE}, or {CONFIG_FILE} with a \"chat_template\" key"
                ),
            });
        }
        loaded.path = dir.to_owned();
        Ok(loaded)
    }

    /// The template transformers would use: `name` if given; else
    /// `tool_use` when tools are given and the model has one; else `default`.
    pub fn select(&self, name: Option<&str>, has_tools: bool) -> Result<&str, TemplateError> {
        let find = |n: &str| {
            self.templates
                .iter()
                .find(|t| t.name == n)
                .map(|t| t.source.as_str())
        };
        let chosen = match (name, self.templates.as_slice()) {
            (Some(n), _) => find(n),
            (None, [only]) => Some(only.source.as_str()),
            (None, _) => has_tools
                .then(|| find("tool_use"))
                .flatten()
                .or_else(|| find("default")),
        };
        chosen.ok_or_else(|| {
            let mut names: Vec<&str> = self.templates.iter().map(|t| t.name.as_str()).collect();
            names.sort_unstable();
            TemplateError::NoTemplate {
                path: self.path.clone(),
                reason: match name {
                    Some(n) => format!("no template named {n:?}; available: {names:?}"),
                    None if names.is_empty() => "no chat_template found".into(),
                    None => format!(
                        "several templates and none named \"default\"; name one of {names:?}"
                    ),
                },
            }
        })
    }

    /// Compiles the template [`select`](Self::select) picks.
    pub fn compile(
        &self,
        name: Option<&str>,
        has_tools: bool,
    ) -> Result<ChatTemplate, TemplateError> {
        ChatTemplate::limited(self.select(name, has_tools)?, Limits::default())
    }
}

fn read(path: &Path) -> Result<String, TemplateError> {
    std::fs::read_to_string(path).map_err(|source| TemplateError::Io {
        path: path.to_owned(),
        source,
    })
}

fn load_config(path: &Path) -> Result<ModelTemplates, TemplateError> {
    let mut loaded = ModelTemplates::from_tokenizer_config(&read(path)?, path)?;
    if loaded.templates.is_empty() {
        let beside = path.with_file_name(TEMPLATE_FILE);
        if beside.is_file() {
            loaded.templates = single(read(&beside)?);
        } else {
            return Err(TemplateError::NoTemplate {
                path: path.to_owned(),
                reason: format!("expected a \"chat_template\" key or a {TEMPLATE_FILE} beside it"),
            });
        }
    }
    Ok(loaded)
}

fn load_dir(dir: &Path) -> Result<ModelTemplates, TemplateError> {
    let read_if_there = |name: &str| {
        let path = dir.join(name);
        path.is_file().then(|| read(&path)).transpose()
    };
    ModelTemplates::from_files(
        dir,
        read_if_there(CONFIG_FILE)?.as_deref(),
        read_if_there(TEMPLATE_FILE)?.as_deref(),
    )
}

fn single(source: String) -> Vec<NamedTemplate> {
    vec![NamedTemplate {
        name: "default".into(),
        source,
    }]
}

/// `chat_template` is a string, or a list of `{"name": ..., "template": ...}`.
fn templates_from_json(value: &Json, path: &Path) -> Result<Vec<NamedTemplate>, TemplateError> {
    let bad = |found: String| {
        TemplateError::NoTemplate {
        path: path.to_owned(),
        reason: format!(
            "expected \"chat_template\" to be a string or a list of {{\"name\", \"template\"}} objects, found {found}"
        ),
    }
    };
    match value {
        Json::String(s) => Ok(single(s.clone())),
        Json::Array(items) => items
            .iter()
            .map(|item| match (item.get("name"), item.get("template")) {
                (Some(Json::String(name)), Some(Json::String(source))) => Ok(NamedTemplate {
                    name: name.clone(),
                    source: source.clone(),
                }),
                _ => Err(bad(item.to_string().chars().take(80).collect())),
            })
            .collect(),
        other => Err(bad(other.to_string().chars().take(80).collect())),
    }
}

/// `*_token` entries that are strings or `{"content": "..."}` objects.
fn special_tokens(config: &serde_json::Map<String, Json>) -> BTreeMap<String, String> {
    config
        .iter()
        .filter(|(key, _)| key.ends_with("_token"))
        .filter_map(|(key, value)| {
            let token = match value {
                Json::String(s) => s,
                Json::Object(o) => o.get("content")?.as_str()?,
                _ => return None,
            };
            Some((key.clone(), token.to_owned()))
        })
        .collect()
}

fn load_gguf(path: &Path) -> Result<ModelTemplates, TemplateError> {
    ModelTemplates::from_gguf_metadata(&read_gguf_metadata(path)?, path)
}

impl ModelTemplates {
    /// The templates of a GGUF file whose metadata is `meta` (already
    /// read; `path` is for messages).
    pub fn from_gguf_metadata(
        meta: &GgufMetadata,
        path: &Path,
    ) -> Result<ModelTemplates, TemplateError> {
        let mut templates = Vec::new();
        if let Some(source) = meta
            .get("tokenizer.chat_template")
            .and_then(GgufValue::as_str)
        {
            templates.push(NamedTemplate {
                name: "default".into(),
                source: source.to_owned(),
            });
        }
        // llama.cpp stores named templates as `tokenizer.chat_template.<name>`.
        for (key, value) in &meta.entries {
            if let (Some(name), Some(source)) =
                (key.strip_prefix("tokenizer.chat_template."), value.as_str())
            {
                templates.push(NamedTemplate {
                    name: name.to_owned(),
                    source: source.to_owned(),
                });
            }
        }
        if templates.is_empty() {
            return Err(TemplateError::NoTemplate {
                path: path.to_owned(),
                reason: "the GGUF metadata has no tokenizer.chat_template".into(),
            });
        }
        Ok(ModelTemplates {
            path: path.to_owned(),
            templates,
            special_tokens: gguf_special_tokens(meta),
        })
    }
}

fn gguf_special_tokens(meta: &GgufMetadata) -> BTreeMap<String, String> {
    let Some(GgufValue::Array(tokens)) = meta.get("tokenizer.ggml.tokens") else {
        return BTreeMap::new();
    };
    [
        ("bos_token", "tokenizer.ggml.bos_token_id"),
        ("eos_token", "tokenizer.ggml.eos_token_id"),
        ("unk_token", "tokenizer.ggml.unknown_token_id"),
        ("pad_token", "tokenizer.ggml.padding_token_id"),
        ("sep_token", "tokenizer.ggml.seperator_token_id"),
    ]
    .into_iter()
    .filter_map(|(name, key)| {
        let id = usize::try_from(meta.get(key)?.as_u64()?).ok()?;
        let token = tokens.get(id)?.as_str()?;
        Some((name.to_owned(), token.to_owned()))
    })
    .collect()
}
