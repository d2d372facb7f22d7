//! The `tool-use` command's subcommands, one file each.

pub mod parse;
pub mod template;
