//! An MCP tool result as the text a model reads.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use tool_runtime::{ToolError, ToolOutput, ToolResult};

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

/// A result as the toolbox's outcome: `isError` results are the tool's error,
/// and `structuredContent` is the output's value. The toolbox prefixes
/// errors with `Error: `; a server that did so already (this crate's does)
/// is not prefixed twice.
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
        Ok(ToolOutput {
            text,
            value: result.structured_content,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(value: serde_json::Value) -> CallToolResult {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn every_kind_of_block_becomes_a_line() {
        let result = parse(json!({"content": [
            {"type": "text", "text": "Found it:"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAAAA==", "mimeType": "audio/wav"},
            {"type": "resource", "resource": {"uri": "file:///a.txt", "mimeType": "text/plain", "text": "hello"}},
            {"type": "resource", "resource": {"uri": "file:///a.bin", "blob": "AAAAAAAA"}},
            {"type": "resource_link", "uri": "file:///b.txt", "name": "b"}
        ]}));
        assert_eq!(
            result_text(&result),
            "Found it:\n[image: image/png, 3 bytes]\n[audio: audio/wav, 4 bytes]\nhello\n\
             [resource file:///a.bin: binary, 6 bytes]\n[resource link: file:///b.txt]"
        );
        let structured = parse(json!({"content": [], "structuredContent": {"celsius": 21}}));
        assert_eq!(result_text(&structured), r#"{"celsius":21}"#);
    }

    #[test]
    fn errors_are_the_tools_error_without_a_second_prefix() {
        let ours = parse(
            json!({"isError": true, "content": [{"type": "text", "text": "Error: division by zero"}]}),
        );
        assert_eq!(
            outcome(ours),
            Err(ToolError::Failed("division by zero".into()))
        );
        let theirs =
            parse(json!({"isError": true, "content": [{"type": "text", "text": "no such file"}]}));
        assert_eq!(
            outcome(theirs),
            Err(ToolError::Failed("no such file".into()))
        );
        let silent = parse(json!({"isError": true, "content": []}));
        assert_eq!(
            outcome(silent),
            Err(ToolError::Failed(
                "the tool failed without saying why".into()
            ))
        );
        let fine = parse(json!({"content": [{"type": "text", "text": "42"}]}));
        assert_eq!(outcome(fine), Ok("42".into()));
        let structured = parse(json!({
            "content": [{"type": "text", "text": "{\"celsius\":21}"}],
            "structuredContent": {"celsius": 21}
        }));
        assert_eq!(
            outcome(structured),
            Ok(ToolOutput {
                text: r#"{"celsius":21}"#.into(),
                value: Some(json!({"celsius": 21}))
            })
        );
    }
}
