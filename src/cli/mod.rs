//! The `tool-use` command's subcommands, one file each.

pub mod chat;
pub mod eval;
pub mod generate;
pub mod parse;
pub mod template;
pub mod train;
