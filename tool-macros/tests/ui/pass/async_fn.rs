use std::future::Future;
use std::task::{Context, Poll, Waker};
use tool_use::tool;

/// Fetch a page title.
///
/// Args:
///     url: The page address
#[tool]
pub async fn page_title(url: String) -> Result<String, String> {
    Ok(url)
}

fn main() {
    let mut fut = std::pin::pin!(page_title("x".into()));
    let out = match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => unreachable!(),
    };
    assert_eq!(out.unwrap(), "x");
    assert_eq!(page_title::schema()["function"]["return"], serde_json::json!({"type": "string"}));
}
