//! The tools the agent tests share: `divide`, which answers an error for a
//! zero divisor.

use tool_use::tool;

/// Divide two numbers.
///
/// Args:
///     a: The dividend
///     b: The divisor
#[tool]
pub fn divide(a: f64, b: f64) -> Result<f64, String> {
    if b == 0.0 {
        Err("division by zero".into())
    } else {
        Ok(a / b)
    }
}
