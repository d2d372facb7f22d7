//! The `tool-use` command.

fn main() {
    eprintln!("tool-use: no commands yet");
}
