//! An MCP tool result as the text a model reads.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use tool_runtime::{ToolError, ToolResult};

/// The text of a `tools/call` result: text blocks as they are, embedded text
/// resources as their text, anything else (images, audio, blobs, links) named
/// in brackets; `structuredContent` when there are no blocks. One line per block.
pub fn result_text(result: &CallToolResult) -> String {
    if result.content.is_empty() {
        return match &result.structured_content {
            Some(value) => value.to_string(),
            None => String::new(),
        };
    }
    let blocks: Vec<String> = result.content.iter().map(block_text).collect();
    blocks.join("\n")
}

fn block_text(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Image(i) => {
            format!("[image: {}, {} bytes]", i.mime_type, decoded_len(&i.data))
        }
        ContentBlock::Audio(a) => {
            format!("[audio: {}, {} bytes]", a.mime_type, decoded_len(&a.data))
        }
        ContentBlock::Resource(r) => match &r.resource {
            ResourceContents::TextResourceContents { text, .. } => text.clone(),
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} bytes]",
                mime_type.as_deref().unwrap_or("binary"),
                decoded_len(blob)
            ),
            _ => "[resource of a kind this client does not know]".into(),
        },
        ContentBlock::ResourceLink(link) => format!("[resource link: {}]", link.uri),
        // Newer protocol versions may add kinds; name them rather than fail.
        _ => "[content of a kind this client does not know]".into(),
    }
}

/// Bytes in a base64 string, without decoding it.
fn decoded_len(base64: &str) -> usize {
    let data = base64.trim_end_matches('=');
    data.len() * 3 / 4
}

/// A result as the toolbox's outcome: `isError` results are the tool's error.
/// The toolbox prefixes errors with `Error: `; a server that did so already
/// (this crate's does) is not prefixed twice.
pub(crate) fn outcome(result: CallToolResult) -> ToolResult {
    let text = result_text(&result);
    if result.is_error == Some(true) {
        let text = text
            .strip_prefix("Error: ")
            .map(str::to_owned)
            .unwrap_or(text);
        Err(ToolError::Failed(if text.is_empty() {
            "the tool failed without saying why".into()
        } else {
            text
        }))
    } else {
        Ok(text)
    }
}
