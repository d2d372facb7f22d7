//! Arithmetic: the five operations, two in a row, and statistics.

/// Additions: `{a}`, `{b}`.
pub const ADD: &[&str] = &[
    "What is {a} plus {b}?",
    "Add {a} and {b}.",
    "What's {a} + {b}?",
    "Calculate {a} + {b}.",
    "How much is {a} plus {b}?",
    "What's the sum of {a} and {b}?",
    "Can you add {a} and {b} for me?",
    "{a} + {b} = ?",
    "What do I get if I add {a} and {b}?",
    "Please compute {a} plus {b}.",
];
/// Subtractions: `{a}` minus `{b}`.
pub const SUBTRACT: &[&str] = &[
    "What is {a} minus {b}?",
    "Subtract {b} from {a}.",
    "What's {a} - {b}?",
    "Calculate {a} - {b}.",
    "How much is {a} minus {b}?",
    "What's {a} take away {b}?",
    "Can you subtract {b} from {a}?",
    "{a} - {b} = ?",
    "What do I get if I take {b} away from {a}?",
    "Please compute {a} minus {b}.",
];
/// Multiplications: `{a}`, `{b}`.
pub const MULTIPLY: &[&str] = &[
    "What is {a} times {b}?",
    "Multiply {a} by {b}.",
    "What's {a} * {b}?",
    "Calculate {a} x {b}.",
    "How much is {a} multiplied by {b}?",
    "What's the product of {a} and {b}?",
    "Can you multiply {a} by {b}?",
    "{a} * {b} = ?",
    "What do I get if I multiply {a} by {b}?",
    "Please compute {a} times {b}.",
];
/// Divisions: `{a}` by `{b}`.
pub const DIVIDE: &[&str] = &[
    "What is {a} divided by {b}?",
    "Divide {a} by {b}.",
    "What's {a} / {b}?",
    "Calculate {a} / {b}.",
    "How much is {a} divided by {b}?",
    "What's {a} over {b}?",
    "Can you divide {a} by {b}?",
    "{a} / {b} = ?",
    "What do I get if I divide {a} by {b}?",
    "Please compute {a} divided by {b}.",
];
/// Powers: `{a}` to the `{b}`.
pub const POWER: &[&str] = &[
    "What is {a} to the power of {b}?",
    "What's {a}^{b}?",
    "Raise {a} to the power of {b}.",
    "Calculate {a} ** {b}.",
    "What is {a} raised to the power {b}?",
    "How much is {a} to the {b}th power?",
    "Can you compute {a} to the power of {b}?",
    "{a}^{b} = ?",
    "What do I get if I raise {a} to the power of {b}?",
    "Please compute {a} to the power of {b}.",
];

/// How answers say each operation, in the order add, subtract, multiply,
/// divide, power.
pub const OPERATION_WORDS: [&str; 5] = ["plus", "minus", "times", "divided by", "to the power of"];

/// Answers: `{a}`, `{op}`, `{b}`, `{r}`.
pub const CALCULATE_ANSWERS: &[&str] = &[
    "{a} {op} {b} is {r}.",
    "The result is {r}.",
    "{a} {op} {b} equals {r}.",
];

/// Two operations in a row: `({a} + {b}) * {c}` style; `{op1}`, `{op2}` are words.
pub const TWO_OPERATIONS: &[&str] = &[
    "What is {a} {op1} {b}, then {op2} {c}?",
    "Take {a} {op1} {b} and then {op2} {c}.",
    "First compute {a} {op1} {b}, then {op2} the result {c}.",
    "Calculate {a} {op1} {b}, and {op2} that {c}.",
    "Work out {a} {op1} {b}, then {op2} {c}.",
    "What do I get from {a} {op1} {b}, {op2} {c}?",
    "Compute {a} {op1} {b} and then {op2} {c}, please.",
    "Start with {a} {op1} {b}; then {op2} {c}. What's the answer?",
];

/// How a second operation is asked for, in operation order (`add` ... `power`):
/// in the words answers say it with.
pub const THEN_WORDS: [&str; 5] = OPERATION_WORDS;

/// Answers: `{a}`, `{op1}`, `{b}`, `{r1}`, `{op2}`, `{c}`, `{r}`.
pub const TWO_OPERATIONS_ANSWERS: &[&str] = &[
    "{a} {op1} {b} is {r1}, and {r1} {op2} {c} is {r}.",
    "First {r1}, then {r}. The answer is {r}.",
];

/// Statistics requests: `{list}`; one list per statistic.
pub const MEAN: &[&str] = &[
    "What's the average of {list}?",
    "Find the mean of {list}.",
    "Calculate the average of these numbers: {list}.",
    "What is the mean of {list}?",
    "Average of {list}?",
    "Can you average {list}?",
    "Give me the mean value of {list}.",
    "What's the arithmetic mean of {list}?",
];
/// Median requests.
pub const MEDIAN: &[&str] = &[
    "What's the median of {list}?",
    "Find the median of {list}.",
    "Calculate the median of these numbers: {list}.",
    "Median of {list}?",
    "What is the middle value of {list}?",
    "Can you get the median of {list}?",
];
/// Minimum requests.
pub const MIN: &[&str] = &[
    "What's the smallest of {list}?",
    "Find the minimum of {list}.",
    "Which is the lowest number in {list}?",
    "Minimum of {list}?",
    "What is the min of {list}?",
    "Get the smallest value among {list}.",
];
/// Maximum requests.
pub const MAX: &[&str] = &[
    "What's the largest of {list}?",
    "Find the maximum of {list}.",
    "Which is the highest number in {list}?",
    "Maximum of {list}?",
    "What is the max of {list}?",
    "Get the biggest value among {list}.",
];
/// Sum requests.
pub const SUM: &[&str] = &[
    "What's the sum of {list}?",
    "Add up {list}.",
    "What do {list} add up to?",
    "Total of {list}?",
    "Sum these numbers: {list}.",
    "Can you total {list}?",
];

/// Answers: `{stat}` (mean, median, ...), `{r}`.
pub const STATISTICS_ANSWERS: &[&str] =
    &["The {stat} is {r}.", "The {stat} of those numbers is {r}."];
