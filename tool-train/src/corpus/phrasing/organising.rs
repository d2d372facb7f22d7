//! Organising: calendar events, reminders, e-mails, flights, lights and
//! distances.

/// Calendar events: `{title}`, `{date}`, `{time}`, `{extra}` (duration and
/// attendees, or nothing).
pub const CALENDAR: &[&str] = &[
    "Schedule \"{title}\" on {date} at {time}{extra}.",
    "Add {title} to my calendar on {date} at {time}{extra}.",
    "Create an event called \"{title}\" for {date} at {time}{extra}.",
    "Put \"{title}\" in my calendar on {date} at {time}{extra}.",
    "Book \"{title}\" on {date} at {time}{extra}.",
    "Can you add \"{title}\" to my calendar for {date} at {time}{extra}?",
    "New event: {title}, {date} at {time}{extra}.",
    "Please schedule {title} for {date}, {time}{extra}.",
    "I have \"{title}\" on {date} at {time}{extra}. Add it to my calendar.",
    "Make a calendar entry \"{title}\" on {date} at {time}{extra}.",
];

/// Answers: `{title}`, `{start}`, `{end}`, `{invited}` (a sentence or nothing).
pub const CALENDAR_ANSWERS: &[&str] = &[
    "Done! \"{title}\" is on your calendar from {start} to {end}.{invited}",
    "I've added \"{title}\" from {start} to {end}.{invited}",
];

/// Reminders: `{task}`, `{n}` minutes.
pub const REMINDER: &[&str] = &[
    "Remind me to {task} in {n} minutes.",
    "Set a reminder to {task} in {n} minutes.",
    "In {n} minutes, remind me to {task}.",
    "Can you remind me to {task} in {n} minutes?",
    "Please set a reminder in {n} minutes to {task}.",
    "Don't let me forget to {task}. Remind me in {n} minutes.",
    "I need a reminder to {task} in {n} minutes.",
    "Remind me in {n} minutes to {task}.",
    "Set an alert for {n} minutes from now to {task}.",
    "Ping me in {n} minutes to {task}.",
];

/// Answers: `{task}`, `{due}`.
pub const REMINDER_ANSWERS: &[&str] = &[
    "OK, I'll remind you to {task} at {due}.",
    "Reminder set for {due}: {task}.",
    "Done. You'll be reminded to {task} at {due}.",
];

/// Emails: `{to}`, `{subject}`, `{body}`, `{extra}` (cc and urgency, or nothing).
pub const EMAIL: &[&str] = &[
    "Send an email to {to} with the subject \"{subject}\" saying \"{body}\"{extra}",
    "Email {to}: subject \"{subject}\", message \"{body}\"{extra}",
    "Write to {to} with subject \"{subject}\" and body \"{body}\"{extra}",
    "Can you email {to}? Subject: \"{subject}\". Message: \"{body}\"{extra}",
    "Send {to} an email titled \"{subject}\" that says \"{body}\"{extra}",
    "Please send a mail to {to}, subject \"{subject}\", text \"{body}\"{extra}",
    "Drop {to} an email. Subject \"{subject}\", body \"{body}\"{extra}",
    "Compose an email to {to} with the subject \"{subject}\" and the message \"{body}\"{extra}",
];

/// Answers: `{to}`, `{subject}`, `{id}`.
pub const EMAIL_ANSWERS: &[&str] = &[
    "Your email to {to} has been sent (message ID {id}).",
    "Sent! \"{subject}\" is on its way to {to}. The message ID is {id}.",
];

/// Flights: `{o}`, `{d}`, `{date}`, `{extra}` (passengers, or nothing), `{direct}`.
pub const FLIGHTS: &[&str] = &[
    "Find me a flight from {o} to {d} on {date}{extra}.{direct}",
    "I need to fly from {o} to {d} on {date}{extra}.{direct}",
    "What's the cheapest flight from {o} to {d} on {date}{extra}?{direct}",
    "Search flights from {o} to {d} for {date}{extra}.{direct}",
    "Are there flights from {o} to {d} on {date}{extra}?{direct}",
    "Look for a flight {o} to {d}, {date}{extra}.{direct}",
    "Can you find flights from {o} to {d} on {date}{extra}?{direct}",
    "I want to travel from {o} to {d} on {date}{extra}. Find a flight.{direct}",
    "Check flights between {o} and {d} on {date}{extra}.{direct}",
    "Get me the best fare from {o} to {d} on {date}{extra}.{direct}",
];

/// How a request asks for direct flights only (appended).
pub const DIRECT: &[&str] = &[
    " Direct flights only.",
    " Nonstop, please.",
    " Only nonstop flights.",
    " I want a direct flight.",
];

/// Answers: `{flight}`, `{departs}`, `{stops}`, `{price}`.
pub const FLIGHT_ANSWERS: &[&str] = &[
    "The cheapest flight is {flight}, departing {departs} ({stops}), for ${price}.",
    "I found {flight}: it leaves {departs}, {stops}, and costs ${price}.",
];

/// A flight's price in another currency (a chain): `{o}`, `{d}`, `{date}`, `{cur}`.
pub const FLIGHT_IN_CURRENCY: &[&str] = &[
    "Find the cheapest flight from {o} to {d} on {date} and tell me the price in {cur}.",
    "How much is a flight from {o} to {d} on {date} in {cur}?",
    "What does the cheapest {o} to {d} flight on {date} cost in {cur}?",
    "Search a flight from {o} to {d} on {date}, with the price in {cur}.",
    "I need a flight {o} to {d} on {date}. What's the fare in {cur}?",
    "Price in {cur} of the cheapest flight from {o} to {d} on {date}?",
    "Look up flights from {o} to {d} on {date} and convert the price to {cur}.",
    "Give me the cheapest fare from {o} to {d} on {date} in {cur}.",
];

/// Answers: `{flight}`, `{departs}`, `{price}`, `{r}`, `{cur}`.
pub const FLIGHT_IN_CURRENCY_ANSWERS: &[&str] = &[
    "The cheapest flight is {flight}, departing {departs}, for ${price}, which is {r} {cur}.",
    "{flight} leaves {departs} and costs ${price} ({r} {cur}).",
];

/// Lights on: `{room}`.
pub const LIGHTS_ON: &[&str] = &[
    "Turn on the {room} lights.",
    "Switch on the lights in the {room}.",
    "Lights on in the {room}, please.",
    "Can you turn the {room} lights on?",
    "Please put the lights on in the {room}.",
    "I need light in the {room}.",
    "Turn the lights in the {room} on.",
    "Switch the {room} light on.",
];
/// Lights off: `{room}`.
pub const LIGHTS_OFF: &[&str] = &[
    "Turn off the {room} lights.",
    "Switch off the lights in the {room}.",
    "Lights off in the {room}, please.",
    "Can you turn the {room} lights off?",
    "Please put the lights out in the {room}.",
    "Kill the lights in the {room}.",
    "Turn the lights in the {room} off.",
    "Switch the {room} light off.",
];
/// Lights dimmed: `{room}`, `{b}` percent.
pub const LIGHTS_DIM: &[&str] = &[
    "Set the {room} lights to {b}%.",
    "Dim the {room} lights to {b}%.",
    "Turn on the {room} lights at {b}% brightness.",
    "Lights in the {room} at {b}%, please.",
    "Can you set the {room} light to {b} percent?",
    "Put the {room} lights on at {b}%.",
    "Make the {room} lights {b}% bright.",
    "Switch on the {room} lights, {b}% brightness.",
];

/// Answers: `{room}`, `{state}` (on, off, or on at N%).
pub const LIGHTS_ANSWERS: &[&str] = &[
    "The {room} lights are now {state}.",
    "Done, the lights in the {room} are {state}.",
];

/// Distances: `{o}`, `{d}`, `{unit}` (empty, ` in miles`, ` in km`).
pub const DISTANCE: &[&str] = &[
    "How far is {o} from {d}{unit}?",
    "What's the distance between {o} and {d}{unit}?",
    "Distance from {o} to {d}{unit}?",
    "How far is it from {o} to {d}{unit}?",
    "How long is the trip from {o} to {d}{unit}?",
    "Tell me the distance from {o} to {d}{unit}.",
    "What is the distance from {o} to {d}{unit}?",
    "Can you check how far {d} is from {o}{unit}?",
    "I'm driving from {o} to {d}. How far is it{unit}?",
    "Measure the distance between {o} and {d}{unit}.",
];

/// Answers: `{o}`, `{d}`, `{r}`, `{unit}` (km or miles).
pub const DISTANCE_ANSWERS: &[&str] = &[
    "The distance between {o} and {d} is {r} {unit}.",
    "{o} is {r} {unit} from {d}.",
];
