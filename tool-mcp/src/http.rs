//! An [`McpServer`] over streamable HTTP (one endpoint, `/mcp`), on axum.

use crate::error::McpError;
use crate::server::McpServer;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use std::future::Future;
use std::sync::Arc;

/// How the HTTP endpoint accepts requests.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// `Host` headers accepted (with or without a port). Loopback names by
    /// default, so a web page cannot reach a local server through DNS
    /// rebinding; empty accepts any host.
    pub allowed_hosts: Vec<String>,
    /// `Origin` headers accepted from browsers (`http://localhost:*`…);
    /// requests without an `Origin` are always accepted.
    pub allowed_origins: Vec<String>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            allowed_hosts: vec!["localhost".into(), "127.0.0.1".into(), "::1".into()],
            allowed_origins: Vec::new(),
        }
    }
}

impl HttpOptions {
    /// Adds a host to the allowed ones.
    pub fn allow_host(mut self, host: impl Into<String>) -> HttpOptions {
        self.allowed_hosts.push(host.into());
        self
    }
}

impl McpServer {
    /// The streamable HTTP endpoint as a tower service, to nest in an axum
    /// router of your own (`Router::new().nest_service("/mcp", …)`).
    pub fn http_service(
        self,
        options: &HttpOptions,
    ) -> StreamableHttpService<McpServer, LocalSessionManager> {
        let mut config = StreamableHttpServerConfig::default()
            .with_allowed_hosts(options.allowed_hosts.clone())
            .with_allowed_origins(options.allowed_origins.clone());
        if options.allowed_hosts.is_empty() {
            config = config.disable_allowed_hosts();
        }
        StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }

    /// Serves `http://ADDR/mcp` on `listener` until `shutdown` completes.
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        options: &HttpOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), McpError> {
        // Open SSE streams would hold a graceful shutdown forever: end the
        // sessions first.
        let sessions = tokio_util::sync::CancellationToken::new();
        let mut service = self.http_service(options);
        service.config.cancellation_token = sessions.clone();
        let router = axum::Router::new()
            .nest_service("/mcp", service)
            .layer(axum::middleware::from_fn(session_ended));
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                sessions.cancel();
            })
            .await
            .map_err(McpError::Io)
    }
}

/// The SDK answers a session's `DELETE` with 202; the Python and TypeScript
/// clients expect 200 or 204 and warn at every close otherwise. (202 stays
/// for notifications, where the protocol asks for it.)
async fn session_ended(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let mut response = next.run(request).await;
    if delete && response.status() == axum::http::StatusCode::ACCEPTED {
        *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
    }
    response
}
