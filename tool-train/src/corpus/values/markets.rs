//! What money requests name: stock symbols, currencies with their demo
//! rates, and the symbols and codes no tool knows.

/// Stock symbols and their companies.
pub const STOCKS: &[(&str, &str)] = &[
    ("AAPL", "Apple"),
    ("MSFT", "Microsoft"),
    ("GOOGL", "Alphabet"),
    ("AMZN", "Amazon"),
    ("NVDA", "Nvidia"),
    ("META", "Meta"),
    ("TSLA", "Tesla"),
    ("NFLX", "Netflix"),
    ("INTC", "Intel"),
    ("AMD", "AMD"),
    ("IBM", "IBM"),
    ("ORCL", "Oracle"),
    ("CSCO", "Cisco"),
    ("ADBE", "Adobe"),
    ("CRM", "Salesforce"),
    ("PYPL", "PayPal"),
    ("UBER", "Uber"),
    ("SHOP", "Shopify"),
    ("SPOT", "Spotify"),
    ("DIS", "Disney"),
    ("KO", "Coca-Cola"),
    ("PEP", "PepsiCo"),
    ("MCD", "McDonald's"),
    ("NKE", "Nike"),
    ("SBUX", "Starbucks"),
    ("WMT", "Walmart"),
    ("COST", "Costco"),
    ("TGT", "Target"),
    ("JPM", "JPMorgan"),
    ("BAC", "Bank of America"),
    ("GS", "Goldman Sachs"),
    ("V", "Visa"),
    ("MA", "Mastercard"),
    ("XOM", "Exxon Mobil"),
    ("CVX", "Chevron"),
    ("PFE", "Pfizer"),
    ("JNJ", "Johnson & Johnson"),
    ("MRK", "Merck"),
    ("ABBV", "AbbVie"),
    ("BA", "Boeing"),
    ("CAT", "Caterpillar"),
    ("GE", "General Electric"),
    ("F", "Ford"),
    ("GM", "General Motors"),
    ("T", "AT&T"),
    ("VZ", "Verizon"),
    ("SONY", "Sony"),
    ("TM", "Toyota"),
    ("BABA", "Alibaba"),
    ("SAP", "SAP"),
];

/// Symbols no stock has (the stock tool's errors).
pub const NO_STOCKS: &[&str] = &[
    "ZZZZ", "QXYZ", "FOOBAR", "ABCDE", "NOPE", "XXXX", "QWRT", "BLAH", "ZQZQ", "JJJJ",
];

/// Currency codes, their names and how many of them one US dollar buys
/// (fixed demo rates).
pub const CURRENCIES: &[(&str, &str, f64)] = &[
    ("USD", "US dollars", 1.0),
    ("EUR", "euros", 0.92),
    ("GBP", "British pounds", 0.79),
    ("JPY", "Japanese yen", 151.5),
    ("CHF", "Swiss francs", 0.88),
    ("CAD", "Canadian dollars", 1.36),
    ("AUD", "Australian dollars", 1.52),
    ("CNY", "Chinese yuan", 7.23),
    ("INR", "Indian rupees", 83.4),
    ("BRL", "Brazilian reais", 5.05),
    ("MXN", "Mexican pesos", 17.1),
    ("KRW", "South Korean won", 1350.0),
    ("SEK", "Swedish kronor", 10.6),
    ("NOK", "Norwegian kroner", 10.8),
    ("DKK", "Danish kroner", 6.87),
    ("PLN", "Polish zloty", 3.98),
    ("NZD", "New Zealand dollars", 1.66),
    ("SGD", "Singapore dollars", 1.35),
    ("HKD", "Hong Kong dollars", 7.82),
    ("ZAR", "South African rand", 18.7),
    ("TRY", "Turkish lira", 32.3),
    ("THB", "Thai baht", 36.5),
    ("CZK", "Czech koruna", 23.3),
    ("HUF", "Hungarian forint", 362.0),
    ("ILS", "Israeli shekels", 3.7),
];

/// Codes no currency has (the currency tool's errors).
pub const NO_CURRENCIES: &[&str] = &[
    "XYZ", "ABC", "QQQ", "ZZZ", "FOO", "BAR", "KLM", "WUT", "NOP", "RRR",
];
