//! The tiny models' tokenizer: byte-level BPE over the 256 bytes, a few
//! merges, and the Hermes/Qwen chat markers as added tokens; plus the
//! compact Hermes-style chat template that uses them.

use serde_json::{json, Map, Value};

/// Merges, in rank order, in byte-level spelling (`Ġ` is a space, `Ċ` a newline).
const MERGES: &[(&str, &str)] = &[
    ("Ġ", "t"),
    ("h", "e"),
    ("i", "n"),
    ("e", "r"),
    ("a", "n"),
    ("o", "n"),
    ("Ġ", "a"),
    ("r", "e"),
    ("Ġt", "he"),
    ("a", "r"),
    ("\"", ":"),
    ("Ġ", "\""),
    ("n", "a"),
    ("m", "e"),
    ("na", "me"),
    ("Ċ", "Ċ"),
    ("{", "\""),
    ("a", "t"),
    ("i", "s"),
    ("Ġ", "w"),
];

/// Qwen 2.5's chat and tool-call markers, in its id order, each with
/// whether it is special (dropped by `skip_special_tokens`). The tool-call
/// markers are added but not special, so they stay ordinary text to
/// constrained decoding and to parsers.
pub const QWEN_MARKERS: [(&str, bool); 7] = [
    ("<|endoftext|>", true),
    ("<|im_start|>", true),
    ("<|im_end|>", true),
    ("<tool_call>", false),
    ("</tool_call>", false),
    ("<tool_response>", false),
    ("</tool_response>", false),
];

/// Added tokens after the byte and merge tokens: `(content, special)`.
pub(crate) const ADDED: &[(&str, bool)] = &QWEN_MARKERS;

/// The id of the first added token.
pub(crate) const FIRST_ADDED: u32 = 256 + MERGES.len() as u32;

/// Number of tokens, added tokens included.
pub(crate) const VOCAB_SIZE: usize = FIRST_ADDED as usize + ADDED.len();

/// Id of the added token `content`.
pub(crate) fn added_id(content: &str) -> u32 {
    let index = ADDED.iter().position(|(c, _)| *c == content).unwrap_or(0);
    FIRST_ADDED + index as u32
}

/// The tiny chat template: Qwen 2.5's, without the default system prompt.
pub const TINY_CHAT_TEMPLATE: &str = r#"{%- if tools %}
    {{- '<|im_start|>system\n' }}
    {%- if messages[0].role == 'system' %}
        {{- messages[0].content + '\n\n' }}
    {%- endif %}
    {{- '# Tools\n\nFunction signatures are within <tools></tools>:\n<tools>' }}
    {%- for tool in tools %}
        {{- '\n' }}
        {{- tool | tojson }}
    {%- endfor %}
    {{- '\n</tools>\n\nFor each call, return a JSON object within <tool_call></tool_call> tags:\n<tool_call>\n{"name": <function-name>, "arguments": <args-json-object>}\n</tool_call><|im_end|>\n' }}
{%- elif messages[0].role == 'system' %}
    {{- '<|im_start|>system\n' + messages[0].content + '<|im_end|>\n' }}
{%- endif %}
{%- for message in messages %}
    {%- if message.role == 'user' or (message.role == 'system' and not loop.first) or (message.role == 'assistant' and not message.tool_calls) %}
        {{- '<|im_start|>' + message.role + '\n' + message.content + '<|im_end|>\n' }}
    {%- elif message.role == 'assistant' %}
        {{- '<|im_start|>assistant' }}
        {%- if message.content %}
            {{- '\n' + message.content }}
        {%- endif %}
        {%- for tool_call in message.tool_calls %}
            {%- if tool_call.function is defined %}
                {%- set tool_call = tool_call.function %}
            {%- endif %}
            {{- '\n<tool_call>\n{"name": "' + tool_call.name + '", "arguments": ' + tool_call.arguments | tojson + '}\n</tool_call>' }}
        {%- endfor %}
        {{- '<|im_end|>\n' }}
    {%- elif message.role == 'tool' %}
        {%- if loop.index0 == 0 or messages[loop.index0 - 1].role != 'tool' %}
            {{- '<|im_start|>user' }}
        {%- endif %}
        {{- '\n<tool_response>\n' + message.content + '\n</tool_response>' }}
        {%- if loop.last or messages[loop.index0 + 1].role != 'tool' %}
            {{- '<|im_end|>\n' }}
        {%- endif %}
    {%- endif %}
{%- endfor %}
{%- if add_generation_prompt %}
    {{- '<|im_start|>assistant\n' }}
{%- endif %}"#;

/// GPT-2's map from bytes to printable characters, indexed by byte.
pub(crate) fn byte_chars() -> Vec<char> {
    let printable = |b: u32| (33..=126).contains(&b) || (161..=172).contains(&b) || b >= 174;
    let mut next = 256;
    (0..256u32)
        .map(|b| {
            let code = if printable(b) {
                b
            } else {
                next += 1;
                next - 1
            };
            char::from_u32(code).unwrap_or('?')
        })
        .collect()
}

/// Every token in id order, added tokens included.
pub(crate) fn tokens() -> Vec<String> {
    let mut tokens: Vec<String> = byte_chars().into_iter().map(String::from).collect();
    tokens.extend(MERGES.iter().map(|(a, b)| format!("{a}{b}")));
    tokens.extend(ADDED.iter().map(|(c, _)| (*c).to_owned()));
    tokens
}

/// Merges as `"left right"` strings.
pub(crate) fn merges() -> Vec<String> {
    MERGES.iter().map(|(a, b)| format!("{a} {b}")).collect()
}

/// The `tokenizer.json` document.
pub(crate) fn tokenizer_json() -> Value {
    let all = tokens();
    let mut vocab = Map::new();
    for (id, token) in all.iter().take(FIRST_ADDED as usize).enumerate() {
        vocab.insert(token.clone(), json!(id));
    }
    let byte_level = json!({
        "type": "ByteLevel",
        "add_prefix_space": false,
        "trim_offsets": false,
        "use_regex": true
    });
    json!({
        "version": "1.0",
        "truncation": null,
        "padding": null,
        "added_tokens": added_tokens_list(),
        "normalizer": null,
        "pre_tokenizer": byte_level,
        "post_processor": byte_level,
        "decoder": byte_level,
        "model": {
            "type": "BPE",
            "dropout": null,
            "unk_token": null,
            "continuing_subword_prefix": null,
            "end_of_word_suffix": null,
            "fuse_unk": false,
            "byte_fallback": false,
            "ignore_merges": false,
            "vocab": vocab,
            "merges": merges()
        }
    })
}

fn added_token(content: &str, special: bool) -> Value {
    json!({
        "content": content,
        "single_word": false,
        "lstrip": false,
        "rstrip": false,
        "normalized": false,
        "special": special
    })
}

fn added_tokens_list() -> Value {
    ADDED
        .iter()
        .enumerate()
        .map(|(i, (content, special))| {
            let mut entry = added_token(content, *special);
            if let Value::Object(map) = &mut entry {
                map.insert("id".into(), json!(FIRST_ADDED as usize + i));
            }
            entry
        })
        .collect()
}

/// The `tokenizer_config.json` document.
pub(crate) fn tokenizer_config_json(context_length: usize) -> Value {
    let decoder: Map<String, Value> = ADDED
        .iter()
        .enumerate()
        .map(|(i, (content, special))| {
            (
                (FIRST_ADDED as usize + i).to_string(),
                added_token(content, *special),
            )
        })
        .collect();
    json!({
        "add_bos_token": false,
        "add_eos_token": false,
        "added_tokens_decoder": decoder,
        "bos_token": null,
        "eos_token": "<|im_end|>",
        "pad_token": "<|endoftext|>",
        "chat_template": TINY_CHAT_TEMPLATE,
        "clean_up_tokenization_spaces": false,
        "model_max_length": context_length,
        "tokenizer_class": "PreTrainedTokenizerFast"
    })
}
