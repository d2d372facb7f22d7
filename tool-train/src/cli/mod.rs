//! The `tool-train` command's subcommands, one file each.

pub mod average;
pub mod convert;
pub mod corpus;
pub mod eval;
pub mod init;
pub mod shape;
pub mod train;
