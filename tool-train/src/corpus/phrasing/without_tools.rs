//! Without tools: requests no tool covers, tools not offered, questions
//! about the assistant, and failed tools.

/// Requests no tool covers that name a place or a count, as the requests
/// tools answer do: `{city}` and `{n}` are drawn like a call's values, so
/// the model cannot learn the few of a fixed list by heart and must see
/// that the task, not the words, decides. Each pairs with a task for
/// [`CANNOT_ANSWERS`].
pub const OUT_OF_SCOPE_IN_PLACE: &[(&str, &str)] = &[
    ("Book me a hotel in {city} for {n} nights.", "book hotels"),
    ("I need a rental car in {city} for {n} days.", "rent cars"),
    ("Find a good restaurant in {city}.", "recommend restaurants"),
    (
        "Roughly how many inhabitants does {city} have?",
        "look up population figures",
    ),
    ("Order {n} pizzas to my office in {city}.", "order food"),
    ("Buy {n} tickets for the game in {city}.", "buy tickets"),
    ("Call me a taxi to the station in {city}.", "order taxis"),
    ("Plan a {n}-day trip to {city}.", "plan trips"),
    (
        "Who is the mayor of {city}?",
        "answer general knowledge questions",
    ),
    ("Show me a map of {city}.", "show maps"),
    (
        "Reserve a table for {n} in {city} tonight.",
        "book restaurants",
    ),
    (
        "Find me an apartment in {city} with {n} bedrooms.",
        "search for apartments",
    ),
    ("What are the top {n} sights in {city}?", "recommend sights"),
    ("Book {n} seats on a train to {city}.", "book trains"),
    ("Is there a good dentist in {city}?", "find doctors"),
];

/// Answers to a request no tool covers: `{task}`.
pub const CANNOT_ANSWERS: &[&str] = &[
    "I'm sorry, I can't {task}. None of my tools can do that.",
    "Sorry, I'm not able to {task} with the tools I have.",
    "Unfortunately I can't {task}, as I don't have a tool for it.",
];

/// Answers to a request whose tool is not offered: `{capability}`.
pub const UNAVAILABLE_ANSWERS: &[&str] = &[
    "I'm sorry, I don't have a tool to {capability}.",
    "Sorry, I can't {capability} right now: none of my tools does that.",
    "Unfortunately I have no tool to {capability}.",
];

/// Questions about what the assistant can do.
pub const CAPABILITIES: &[&str] = &[
    "What can you do?",
    "What tools do you have?",
    "Which tools can you use?",
    "What are you able to help with?",
    "What can you help me with?",
    "Tell me what tools you have access to.",
    "What functions can you call?",
    "Which things can you do for me?",
    "What are your tools?",
    "How can you help me?",
    "List the tools you can use.",
    "What kind of things can you do?",
    "Do you have any tools?",
    "What are you capable of?",
    "Which functions do you have?",
];

/// Answers: `{names}` (the offered tools' names).
pub const CAPABILITIES_ANSWERS: &[&str] = &[
    "I can use these tools: {names}.",
    "I have access to these tools: {names}. Just ask!",
];

/// Answers after a tool failed: `{error}` (the tool's message).
pub const ERROR_ANSWERS: &[&str] = &[
    "Sorry, that didn't work: {error}.",
    "The tool reported an error: {error}.",
    "I couldn't do that because of an error: {error}.",
];
