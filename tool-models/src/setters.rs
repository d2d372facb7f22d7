//! Builder methods that each set one field: `name(value) -> Self`.
//!
//! The builders (`Agent`, `LocalChat`, `RemoteChat`, `Server`,
//! `RenderOptions`, `ChatTemplate`) have many such methods; one definition
//! keeps them alike. A method that does more than store its argument is
//! written out beside them.

/// `setters! { /// doc
/// method(arg: Type) => field; … }` inside an `impl` block writes
/// `pub fn method(mut self, arg: Type) -> Self { self.field = arg; self }`.
macro_rules! setters {
    ($($(#[$attr:meta])* $name:ident($arg:ident: $ty:ty) => $field:ident;)*) => {
        $(
            $(#[$attr])*
            pub fn $name(mut self, $arg: $ty) -> Self {
                self.$field = $arg;
                self
            }
        )*
    };
}
pub(crate) use setters;
