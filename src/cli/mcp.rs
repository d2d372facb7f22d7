//! `tool-use mcp`: the demo tools as an MCP server, over stdio or HTTP.

use tool_use::mcp::{HttpOptions, McpServer};

/// Arguments of `tool-use mcp`.
#[derive(clap::Args)]
pub struct McpArgs {
    /// Serve streamable HTTP at this address (`127.0.0.1:8000`; port 0 picks
    /// a free one) instead of stdio. The endpoint is `/mcp`.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Also accept requests whose `Host` header names this host (loopback
    /// names always are). Repeatable.
    #[arg(long = "allow-host", value_name = "HOST")]
    allow_hosts: Vec<String>,
    /// Accept any `Host` header. Lets web pages reach the server through DNS
    /// rebinding: only behind a proxy that checks hosts itself.
    #[arg(long, conflicts_with = "allow_hosts")]
    any_host: bool,
}

/// Runs `tool-use mcp` until the client leaves (stdio) or Ctrl-C (HTTP).
pub fn run(args: McpArgs) -> Result<(), String> {
    let server = McpServer::new(tool_use::demo::toolbox())
        .named("tool-use-demo", env!("CARGO_PKG_VERSION"))
        .instructions(
            "Weather, arithmetic, unit conversion and the time. Temperatures and \
             wind speeds are made up: this is a demonstration.",
        );
    let runtime = super::runtime()?;
    let result = runtime.block_on(async move {
        let Some(address) = args.http else {
            eprintln!("serving {} tools over MCP on stdio", server.tools().len());
            return server.serve_stdio().await.map_err(|e| e.to_string());
        };
        let mut options = HttpOptions::default();
        if args.any_host {
            options.allowed_hosts.clear();
        }
        for host in args.allow_hosts {
            options = options.allow_host(host);
        }
        let listener = super::listen(&address, "/mcp").await?;
        eprintln!(
            "serving {} tools over MCP (Ctrl-C stops)",
            server.tools().len()
        );
        server
            .serve_http(listener, &options, async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .map_err(|e| e.to_string())
    });
    // stdin's reader is a blocking thread that no shutdown can interrupt.
    runtime.shutdown_background();
    result
}
