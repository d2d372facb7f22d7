//! The values requests are made of: cities, people, dates, numbers, stock
//! symbols, currencies, phrases to translate, ...
//!
//! Every pool is split: one item in five (by position) is held out, so the
//! held-out split asks about other cities, other people, other numbers.
//! Numbers and dates are split by a hash of their text.

use super::rng::{hash, Rng};
use super::Split;

/// The items of `pool` that belong to `split`.
pub fn part<T>(pool: &[T], split: Split) -> impl Iterator<Item = &T> {
    pool.iter()
        .enumerate()
        .filter(move |(i, _)| (i % 5 == 4) == (split == Split::HeldOut))
        .map(|(_, item)| item)
}

/// One item of `pool` from `split`.
pub fn pick<'a, T>(rng: &mut Rng, pool: &'a [T], split: Split) -> &'a T {
    let n = pool.len();
    // Positions 4, 9, 14, ... are held out: draw a rank within the split.
    let held = n / 5;
    match split {
        Split::HeldOut if held > 0 => &pool[rng.below(held) * 5 + 4],
        _ => {
            let k = rng.below(n - held);
            // The k-th position that is not 4 mod 5.
            &pool[k / 4 * 5 + k % 4]
        }
    }
}

/// One item of `pool` whose name (`key`) is in `split` by its hash: for
/// pools that share names (a city is a weather location and a time zone),
/// so that a name is on the same side in all of them.
pub fn pick_named<'a, T>(
    rng: &mut Rng,
    pool: &'a [T],
    split: Split,
    key: impl Fn(&T) -> &str,
) -> &'a T {
    let candidates: Vec<&T> = pool.iter().filter(|t| in_split(key(t), split)).collect();
    match candidates.as_slice() {
        [] => rng.pick(pool),
        some => some[rng.below(some.len())],
    }
}

/// A copy of one item of `pool` from `split`.
pub fn choose<T: Copy>(rng: &mut Rng, pool: &[T], split: Split) -> T {
    *pick(rng, pool, split)
}

/// `count` distinct items of `pool` from `split`, in random order.
pub fn pick_distinct<'a, T>(
    rng: &mut Rng,
    pool: &'a [T],
    split: Split,
    count: usize,
) -> Vec<&'a T> {
    let items: Vec<&T> = part(pool, split).collect();
    rng.sample(&items, count)
}

/// Whether a value's text belongs to `split` (for values made up on the spot).
pub fn in_split(text: &str, split: Split) -> bool {
    hash(text).is_multiple_of(5) == (split == Split::HeldOut)
}

/// Draws texts from `make` until one falls in `split`.
pub fn draw(rng: &mut Rng, split: Split, mut make: impl FnMut(&mut Rng) -> String) -> String {
    loop {
        let text = make(rng);
        if in_split(&text, split) {
            return text;
        }
    }
}

/// A number written as JSON writes it, drawn by `kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberKind {
    /// 1 to 20.
    Tiny,
    /// 2 to 99.
    Small,
    /// 100 to 9999.
    Large,
    /// A decimal with one or two places, under 1000.
    Decimal,
    /// 10,000 to 9,999,999, or a decimal with three or four digits before
    /// the point: numbers a model must copy digit by digit.
    Huge,
}

/// A number's text, from `split`; it reads back as the same JSON number.
pub fn number(rng: &mut Rng, split: Split, kind: NumberKind) -> String {
    draw(rng, split, |rng| match kind {
        NumberKind::Tiny => rng.range(1, 20).to_string(),
        NumberKind::Small => rng.range(2, 99).to_string(),
        NumberKind::Large => rng.range(100, 9999).to_string(),
        NumberKind::Decimal => {
            let whole = rng.range(0, 999);
            if rng.chance(0.5) {
                format!("{whole}.{}", rng.range(1, 9))
            } else {
                // Two places, the last not 0 (JSON would drop it).
                format!("{whole}.{}{}", rng.range(0, 9), rng.range(1, 9))
            }
        }
        NumberKind::Huge => {
            if rng.chance(0.7) {
                let digits = rng.range(5, 7) as u32;
                rng.range(10i64.pow(digits - 1), 10i64.pow(digits) - 1)
                    .to_string()
            } else {
                format!("{}.{}", rng.range(100, 9999), rng.range(1, 9))
            }
        }
    })
}

/// A date `YYYY-MM-DD` in 2025 to 2027, from `split`.
pub fn date(rng: &mut Rng, split: Split) -> String {
    draw(rng, split, |rng| {
        let year = rng.range(2025, 2027);
        let month = rng.range(1, 12);
        let day = rng.range(1, 28);
        format!("{year}-{month:02}-{day:02}")
    })
}

/// A time of day `HH:MM` on the quarter hour, 07:00 to 21:45.
pub fn time_of_day(rng: &mut Rng) -> String {
    format!("{:02}:{:02}", rng.range(7, 21), rng.range(0, 3) * 15)
}

/// An email address, from `split`.
pub fn email(rng: &mut Rng, split: Split) -> String {
    let name = pick(rng, FIRST_NAMES, split).to_lowercase();
    let domain = pick(rng, EMAIL_DOMAINS, split);
    match rng.below(3) {
        0 => format!("{name}@{domain}"),
        1 => {
            let last = pick(rng, LAST_NAMES, split).to_lowercase();
            format!("{name}.{last}@{domain}")
        }
        _ => format!("{name}{}@{domain}", rng.range(1, 99)),
    }
}

/// A made-up word of `syllables` syllables, lower case ("velmor", "tarbisk").
pub(crate) fn made_up_word(rng: &mut Rng, syllables: i64) -> String {
    const ONSETS: &[&str] = &[
        "b", "br", "d", "dr", "f", "g", "gr", "h", "k", "kr", "l", "m", "n", "p", "r", "s", "st",
        "t", "tr", "v", "z", "sh", "ch", "",
    ];
    const VOWELS: &[&str] = &["a", "e", "i", "o", "u", "ai", "ei", "ou", "y"];
    const CODAS: &[&str] = &["", "", "n", "r", "l", "s", "sk", "nd", "m", "th", "x"];
    let mut word = String::new();
    for _ in 0..syllables {
        word.push_str(rng.pick::<&str>(ONSETS));
        word.push_str(rng.pick::<&str>(VOWELS));
    }
    word.push_str(rng.pick::<&str>(CODAS));
    word
}

/// `text` with its first letter in upper case.
pub fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

/// A made-up place name ("Velmora", "Port Tarbisk"), from `split`.
///
/// A small model can memorise a few hundred real cities instead of learning
/// to copy the one the user named; names it has never seen leave copying as
/// the only way to get the call right. Only the training split uses them.
pub fn invented_place(rng: &mut Rng, split: Split) -> String {
    const PREFIXES: &[&str] = &["Port ", "San ", "New ", "Lake ", "Fort ", "Saint "];
    draw(rng, split, |rng| {
        let syllables = rng.range(2, 3);
        let name = capitalized(&made_up_word(rng, syllables));
        if rng.chance(0.15) {
            format!("{}{name}", *rng.pick(PREFIXES))
        } else {
            name
        }
    })
}

/// The words of the training part of the free-text pools (queries, titles,
/// reminders, e-mails, phrases), lower case, sorted.
fn training_words() -> &'static [String] {
    static WORDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let texts = part(QUERIES, Split::Train)
            .chain(part(EVENT_TITLES, Split::Train))
            .chain(part(REMINDERS, Split::Train))
            .copied()
            .chain(part(EMAILS, Split::Train).flat_map(|e| [e.0, e.1]))
            .chain(part(PHRASES, Split::Train).map(|p| p.0));
        let words: std::collections::BTreeSet<String> = texts
            .flat_map(str::split_whitespace)
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                    .to_lowercase()
            })
            .filter(|w| w.chars().any(char::is_alphabetic))
            .collect();
        words.into_iter().collect()
    })
}

/// A made-up free text of `min` to `max` words, lower case, from `split`:
/// known words in an order never seen, now and then a made-up word, so that
/// a call is only right when it copies the request.
pub fn invented_text(rng: &mut Rng, split: Split, min: i64, max: i64) -> String {
    let words = training_words();
    draw(rng, split, |rng| {
        let n = rng.range(min, max);
        let mut text = String::new();
        for i in 0..n {
            if i > 0 {
                text.push(' ');
            }
            if rng.chance(0.2) || words.is_empty() {
                let syllables = rng.range(1, 3);
                text.push_str(&made_up_word(rng, syllables));
            } else {
                text.push_str(rng.pick(words).as_str());
            }
        }
        text
    })
}

/// A made-up first name ("Tarbis"), from `split`.
pub fn invented_name(rng: &mut Rng, split: Split) -> String {
    draw(rng, split, |rng| {
        let syllables = rng.range(1, 3);
        capitalized(&made_up_word(rng, syllables))
    })
}

/// A made-up e-mail address ("velmor.tas@drouk.io"), from `split`.
pub fn invented_email(rng: &mut Rng, split: Split) -> String {
    draw(rng, split, |rng| {
        let syllables = rng.range(1, 3);
        let mut local = made_up_word(rng, syllables);
        match rng.below(3) {
            0 => {}
            1 => {
                local.push('.');
                local.push_str(&made_up_word(rng, 1));
            }
            _ => local.push_str(&rng.range(1, 99).to_string()),
        }
        let syllables = rng.range(1, 2);
        let domain = made_up_word(rng, syllables);
        let tld = *rng.pick(&["com", "org", "net", "io", "co"]);
        format!("{local}@{domain}.{tld}")
    })
}

/// A made-up ticker symbol and company ("VLMR", "Velmora Labs"), from
/// `split`: neither a listed stock nor one of [`NO_STOCKS`].
pub fn invented_stock(rng: &mut Rng, split: Split) -> (String, String) {
    const KINDS: &[&str] = &[
        "Labs", "Group", "Systems", "Holdings", "Inc.", "Energy", "Foods",
    ];
    let symbol = draw(rng, split, |rng| loop {
        let len = *rng.pick(&[2usize, 3, 3, 4, 4, 4, 5]);
        let symbol: String = (0..len)
            .map(|_| char::from(b'A' + rng.below(26) as u8))
            .collect();
        if !STOCKS.iter().any(|s| s.0 == symbol) && !NO_STOCKS.contains(&symbol.as_str()) {
            break symbol;
        }
    });
    let name = capitalized(&made_up_word(rng, 2));
    let company = format!("{name} {}", *rng.pick(KINDS));
    (symbol, company)
}

/// A made-up room ("the velmor room", "studio loft"), from `split`.
pub fn invented_room(rng: &mut Rng, split: Split) -> String {
    let words = training_words();
    draw(rng, split, |rng| {
        let word = if rng.chance(0.5) || words.is_empty() {
            let syllables = rng.range(1, 2);
            made_up_word(rng, syllables)
        } else {
            rng.pick(words).clone()
        };
        format!(
            "{word} {}",
            *rng.pick(&["room", "room", "loft", "study", "hall"])
        )
    })
}

/// Cities and their countries, for weather, distances and flights.
pub const CITIES: &[(&str, &str)] = &[
    ("Paris", "France"),
    ("London", "UK"),
    ("Berlin", "Germany"),
    ("Madrid", "Spain"),
    ("Rome", "Italy"),
    ("Lisbon", "Portugal"),
    ("Amsterdam", "Netherlands"),
    ("Brussels", "Belgium"),
    ("Vienna", "Austria"),
    ("Zurich", "Switzerland"),
    ("Stockholm", "Sweden"),
    ("Oslo", "Norway"),
    ("Copenhagen", "Denmark"),
    ("Helsinki", "Finland"),
    ("Dublin", "Ireland"),
    ("Warsaw", "Poland"),
    ("Prague", "Czech Republic"),
    ("Budapest", "Hungary"),
    ("Athens", "Greece"),
    ("Istanbul", "Turkey"),
    ("Moscow", "Russia"),
    ("Kyiv", "Ukraine"),
    ("Bucharest", "Romania"),
    ("Sofia", "Bulgaria"),
    ("Belgrade", "Serbia"),
    ("Zagreb", "Croatia"),
    ("Ljubljana", "Slovenia"),
    ("Bratislava", "Slovakia"),
    ("Tallinn", "Estonia"),
    ("Riga", "Latvia"),
    ("Vilnius", "Lithuania"),
    ("Reykjavik", "Iceland"),
    ("Edinburgh", "UK"),
    ("Manchester", "UK"),
    ("Glasgow", "UK"),
    ("Lyon", "France"),
    ("Marseille", "France"),
    ("Nice", "France"),
    ("Toulouse", "France"),
    ("Bordeaux", "France"),
    ("Munich", "Germany"),
    ("Hamburg", "Germany"),
    ("Frankfurt", "Germany"),
    ("Cologne", "Germany"),
    ("Stuttgart", "Germany"),
    ("Barcelona", "Spain"),
    ("Valencia", "Spain"),
    ("Seville", "Spain"),
    ("Bilbao", "Spain"),
    ("Milan", "Italy"),
    ("Naples", "Italy"),
    ("Turin", "Italy"),
    ("Florence", "Italy"),
    ("Venice", "Italy"),
    ("Porto", "Portugal"),
    ("Rotterdam", "Netherlands"),
    ("Antwerp", "Belgium"),
    ("Geneva", "Switzerland"),
    ("Krakow", "Poland"),
    ("Gdansk", "Poland"),
    ("Salzburg", "Austria"),
    ("Gothenburg", "Sweden"),
    ("Bergen", "Norway"),
    ("Tokyo", "Japan"),
    ("Osaka", "Japan"),
    ("Kyoto", "Japan"),
    ("Sapporo", "Japan"),
    ("Seoul", "South Korea"),
    ("Busan", "South Korea"),
    ("Beijing", "China"),
    ("Shanghai", "China"),
    ("Shenzhen", "China"),
    ("Guangzhou", "China"),
    ("Chengdu", "China"),
    ("Hong Kong", "China"),
    ("Taipei", "Taiwan"),
    ("Singapore", "Singapore"),
    ("Bangkok", "Thailand"),
    ("Chiang Mai", "Thailand"),
    ("Hanoi", "Vietnam"),
    ("Ho Chi Minh City", "Vietnam"),
    ("Kuala Lumpur", "Malaysia"),
    ("Jakarta", "Indonesia"),
    ("Bali", "Indonesia"),
    ("Manila", "Philippines"),
    ("Cebu", "Philippines"),
    ("Mumbai", "India"),
    ("Delhi", "India"),
    ("Bangalore", "India"),
    ("Chennai", "India"),
    ("Kolkata", "India"),
    ("Hyderabad", "India"),
    ("Karachi", "Pakistan"),
    ("Lahore", "Pakistan"),
    ("Dhaka", "Bangladesh"),
    ("Kathmandu", "Nepal"),
    ("Colombo", "Sri Lanka"),
    ("Dubai", "UAE"),
    ("Abu Dhabi", "UAE"),
    ("Doha", "Qatar"),
    ("Riyadh", "Saudi Arabia"),
    ("Jeddah", "Saudi Arabia"),
    ("Tehran", "Iran"),
    ("Baghdad", "Iraq"),
    ("Amman", "Jordan"),
    ("Beirut", "Lebanon"),
    ("Jerusalem", "Israel"),
    ("Tel Aviv", "Israel"),
    ("Cairo", "Egypt"),
    ("Alexandria", "Egypt"),
    ("Casablanca", "Morocco"),
    ("Marrakesh", "Morocco"),
    ("Tunis", "Tunisia"),
    ("Algiers", "Algeria"),
    ("Lagos", "Nigeria"),
    ("Abuja", "Nigeria"),
    ("Accra", "Ghana"),
    ("Dakar", "Senegal"),
    ("Nairobi", "Kenya"),
    ("Mombasa", "Kenya"),
    ("Addis Ababa", "Ethiopia"),
    ("Kampala", "Uganda"),
    ("Dar es Salaam", "Tanzania"),
    ("Kigali", "Rwanda"),
    ("Johannesburg", "South Africa"),
    ("Cape Town", "South Africa"),
    ("Durban", "South Africa"),
    ("Luanda", "Angola"),
    ("Harare", "Zimbabwe"),
    ("Lusaka", "Zambia"),
    ("Sydney", "Australia"),
    ("Melbourne", "Australia"),
    ("Brisbane", "Australia"),
    ("Perth", "Australia"),
    ("Adelaide", "Australia"),
    ("Canberra", "Australia"),
    ("Hobart", "Australia"),
    ("Auckland", "New Zealand"),
    ("Wellington", "New Zealand"),
    ("Christchurch", "New Zealand"),
    ("New York", "USA"),
    ("Los Angeles", "USA"),
    ("Chicago", "USA"),
    ("Houston", "USA"),
    ("Phoenix", "USA"),
    ("Philadelphia", "USA"),
    ("San Antonio", "USA"),
    ("San Diego", "USA"),
    ("Dallas", "USA"),
    ("Austin", "USA"),
    ("San Francisco", "USA"),
    ("Seattle", "USA"),
    ("Denver", "USA"),
    ("Boston", "USA"),
    ("Miami", "USA"),
    ("Atlanta", "USA"),
    ("Las Vegas", "USA"),
    ("Portland", "USA"),
    ("Nashville", "USA"),
    ("New Orleans", "USA"),
    ("Detroit", "USA"),
    ("Minneapolis", "USA"),
    ("Salt Lake City", "USA"),
    ("Honolulu", "USA"),
    ("Anchorage", "USA"),
    ("Washington", "USA"),
    ("Toronto", "Canada"),
    ("Montreal", "Canada"),
    ("Vancouver", "Canada"),
    ("Calgary", "Canada"),
    ("Ottawa", "Canada"),
    ("Quebec City", "Canada"),
    ("Halifax", "Canada"),
    ("Winnipeg", "Canada"),
    ("Mexico City", "Mexico"),
    ("Guadalajara", "Mexico"),
    ("Monterrey", "Mexico"),
    ("Cancun", "Mexico"),
    ("Havana", "Cuba"),
    ("San Juan", "Puerto Rico"),
    ("Panama City", "Panama"),
    ("San Jose", "Costa Rica"),
    ("Bogota", "Colombia"),
    ("Medellin", "Colombia"),
    ("Quito", "Ecuador"),
    ("Lima", "Peru"),
    ("Cusco", "Peru"),
    ("La Paz", "Bolivia"),
    ("Santiago", "Chile"),
    ("Valparaiso", "Chile"),
    ("Buenos Aires", "Argentina"),
    ("Cordoba", "Argentina"),
    ("Mendoza", "Argentina"),
    ("Montevideo", "Uruguay"),
    ("Asuncion", "Paraguay"),
    ("Caracas", "Venezuela"),
    ("Sao Paulo", "Brazil"),
    ("Rio de Janeiro", "Brazil"),
    ("Brasilia", "Brazil"),
    ("Salvador", "Brazil"),
    ("Recife", "Brazil"),
    ("Manaus", "Brazil"),
    ("Porto Alegre", "Brazil"),
    ("Ulaanbaatar", "Mongolia"),
    ("Almaty", "Kazakhstan"),
    ("Tashkent", "Uzbekistan"),
    ("Tbilisi", "Georgia"),
    ("Yerevan", "Armenia"),
    ("Baku", "Azerbaijan"),
    ("Kabul", "Afghanistan"),
    ("Muscat", "Oman"),
    ("Kuwait City", "Kuwait"),
    ("Manama", "Bahrain"),
    ("Nicosia", "Cyprus"),
    ("Valletta", "Malta"),
    ("Luxembourg", "Luxembourg"),
    ("Monaco", "Monaco"),
    ("Andorra la Vella", "Andorra"),
    ("Tirana", "Albania"),
    ("Skopje", "North Macedonia"),
    ("Sarajevo", "Bosnia and Herzegovina"),
    ("Podgorica", "Montenegro"),
    ("Chisinau", "Moldova"),
    ("Minsk", "Belarus"),
    ("Fiji", "Fiji"),
    ("Nuuk", "Greenland"),
    ("Hanover", "Germany"),
    ("Leipzig", "Germany"),
    ("Dresden", "Germany"),
    ("Bologna", "Italy"),
    ("Palermo", "Italy"),
    ("Malaga", "Spain"),
    ("Granada", "Spain"),
    ("Nantes", "France"),
    ("Strasbourg", "France"),
    ("Lille", "France"),
    ("Liverpool", "UK"),
    ("Birmingham", "UK"),
    ("Bristol", "UK"),
    ("Cardiff", "UK"),
    ("Belfast", "UK"),
    ("Utrecht", "Netherlands"),
    ("Basel", "Switzerland"),
    ("Innsbruck", "Austria"),
    ("Malmo", "Sweden"),
    ("Aarhus", "Denmark"),
    ("Tampere", "Finland"),
    ("Cork", "Ireland"),
    ("Thessaloniki", "Greece"),
    ("Izmir", "Turkey"),
    ("Antalya", "Turkey"),
    ("Nagoya", "Japan"),
    ("Fukuoka", "Japan"),
    ("Incheon", "South Korea"),
    ("Xi'an", "China"),
    ("Hangzhou", "China"),
    ("Penang", "Malaysia"),
    ("Phuket", "Thailand"),
    ("Da Nang", "Vietnam"),
    ("Pune", "India"),
    ("Jaipur", "India"),
    ("Goa", "India"),
];

/// Places the time tool knows (cities and IANA names), for time requests.
pub const TIME_PLACES: &[&str] = &[
    "London",
    "Paris",
    "Berlin",
    "Madrid",
    "Rome",
    "Tokyo",
    "New York",
    "Los Angeles",
    "Chicago",
    "Sydney",
    "Dubai",
    "Singapore",
    "Hong Kong",
    "Mumbai",
    "Moscow",
    "Seoul",
    "Toronto",
    "Mexico City",
    "Sao Paulo",
    "Cairo",
    "Lisbon",
    "Amsterdam",
    "Vienna",
    "Stockholm",
    "Athens",
    "Istanbul",
    "Bangkok",
    "Shanghai",
    "Beijing",
    "Jakarta",
    "Manila",
    "Delhi",
    "Karachi",
    "Nairobi",
    "Lagos",
    "Johannesburg",
    "Buenos Aires",
    "Lima",
    "Bogota",
    "Denver",
    "Phoenix",
    "Seattle",
    "San Francisco",
    "Boston",
    "Miami",
    "Honolulu",
    "Anchorage",
    "Auckland",
    "Perth",
    "Brisbane",
    "Melbourne",
    "Adelaide",
    "Osaka",
    "Taipei",
    "Hanoi",
    "Dhaka",
    "Kathmandu",
    "Tehran",
    "Riyadh",
    "Helsinki",
    "Oslo",
    "Copenhagen",
    "Warsaw",
    "Prague",
    "Budapest",
    "Dublin",
    "Zurich",
    "Brussels",
    "Barcelona",
    "Milan",
    "Munich",
    "Vancouver",
    "Montreal",
    "Houston",
    "Dallas",
    "Atlanta",
    "Washington",
    "Santiago",
    "Caracas",
    "Halifax",
    "Kolkata",
    "Bangalore",
    "Kyiv",
    "Bucharest",
    "Cape Town",
    "Reykjavik",
    "Europe/Paris",
    "Asia/Tokyo",
    "America/New_York",
    "Europe/London",
    "Australia/Sydney",
    "America/Los_Angeles",
    "Asia/Kolkata",
    "Europe/Berlin",
    "America/Chicago",
    "Asia/Singapore",
    "Asia/Dubai",
    "America/Sao_Paulo",
    "Africa/Cairo",
    "Pacific/Auckland",
    "Europe/Moscow",
    "Asia/Shanghai",
    "America/Denver",
    "Europe/Madrid",
    "Asia/Seoul",
    "UTC+3",
    "UTC-5",
    "UTC+05:30",
    "UTC+8",
    "UTC-07:00",
];

/// Places no time zone is known for (the time tool's errors).
pub const NOWHERE: &[&str] = &[
    "Atlantis",
    "Narnia",
    "Gotham",
    "Middle-earth",
    "Hogwarts",
    "Wakanda",
    "El Dorado",
    "Mordor",
    "Springfield",
    "Shangri-La",
    "Asgard",
    "Neverland",
    "Westeros",
    "Metropolis",
    "Oz",
];

/// First names, for people, attendees and email addresses.
pub const FIRST_NAMES: &[&str] = &[
    "Anna",
    "Ben",
    "Carla",
    "David",
    "Emma",
    "Felix",
    "Grace",
    "Hugo",
    "Isabel",
    "Jack",
    "Kate",
    "Liam",
    "Maria",
    "Noah",
    "Olivia",
    "Paul",
    "Quinn",
    "Rosa",
    "Sam",
    "Tara",
    "Umar",
    "Vera",
    "Will",
    "Xena",
    "Yusuf",
    "Zoe",
    "Aisha",
    "Bruno",
    "Chloe",
    "Diego",
    "Elena",
    "Farid",
    "Greta",
    "Hana",
    "Ivan",
    "Julia",
    "Kenji",
    "Lena",
    "Marco",
    "Nina",
    "Oscar",
    "Priya",
    "Rafael",
    "Sofia",
    "Tom",
    "Uma",
    "Victor",
    "Wen",
    "Yara",
    "Zain",
    "Alice",
    "Bob",
    "Clara",
    "Daniel",
    "Eva",
    "Frank",
    "Gina",
    "Henry",
    "Ines",
    "James",
    "Karin",
    "Leo",
    "Mia",
    "Nils",
    "Omar",
    "Pia",
    "Ravi",
    "Sara",
    "Theo",
    "Ulla",
    "Vik",
    "Wanda",
    "Yuki",
    "Zara",
    "Amir",
    "Bea",
    "Chen",
    "Dora",
    "Eli",
    "Fatima",
    "Gabriel",
    "Helga",
    "Igor",
    "Jana",
    "Kofi",
    "Lucia",
    "Mateo",
    "Nora",
    "Otto",
    "Paula",
    "Rui",
    "Selin",
    "Tariq",
    "Ursula",
    "Valentina",
    "Wei",
    "Ximena",
    "Youssef",
    "Zofia",
    "Ahmed",
    "Bianca",
    "Carlos",
    "Dmitri",
    "Esther",
    "Fiona",
];

/// Last names, for email addresses.
pub const LAST_NAMES: &[&str] = &[
    "smith", "garcia", "muller", "rossi", "dubois", "silva", "kim", "tanaka", "novak", "jensen",
    "ivanova", "cohen", "okafor", "singh", "chen", "lopez", "martin", "brown", "wilson", "meyer",
    "ricci", "moreau", "santos", "park", "sato", "horvat", "larsen", "petrov", "levi", "mensah",
];

/// Email domains.
pub const EMAIL_DOMAINS: &[&str] = &[
    "example.com",
    "mail.com",
    "company.org",
    "work.net",
    "example.org",
    "startup.io",
    "school.edu",
    "team.co",
    "office.com",
    "acme.com",
];

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

/// Languages `translate_text` translates into, as its enum lists them.
pub const LANGUAGES: &[&str] = &["Spanish", "French", "German", "Italian", "Portuguese"];

/// English phrases and their translations, in [`LANGUAGES`] order.
pub const PHRASES: &[(&str, [&str; 5])] = &[
    (
        "Good morning",
        [
            "Buenos días",
            "Bonjour",
            "Guten Morgen",
            "Buongiorno",
            "Bom dia",
        ],
    ),
    (
        "Thank you",
        ["Gracias", "Merci", "Danke", "Grazie", "Obrigado"],
    ),
    (
        "Good night",
        [
            "Buenas noches",
            "Bonne nuit",
            "Gute Nacht",
            "Buona notte",
            "Boa noite",
        ],
    ),
    (
        "How are you?",
        [
            "¿Cómo estás?",
            "Comment ça va ?",
            "Wie geht es dir?",
            "Come stai?",
            "Como você está?",
        ],
    ),
    (
        "Goodbye",
        [
            "Adiós",
            "Au revoir",
            "Auf Wiedersehen",
            "Arrivederci",
            "Adeus",
        ],
    ),
    ("Hello", ["Hola", "Bonjour", "Hallo", "Ciao", "Olá"]),
    (
        "Please",
        [
            "Por favor",
            "S'il vous plaît",
            "Bitte",
            "Per favore",
            "Por favor",
        ],
    ),
    (
        "Where is the train station?",
        [
            "¿Dónde está la estación de tren?",
            "Où est la gare ?",
            "Wo ist der Bahnhof?",
            "Dov'è la stazione?",
            "Onde fica a estação de trem?",
        ],
    ),
    (
        "I love you",
        [
            "Te quiero",
            "Je t'aime",
            "Ich liebe dich",
            "Ti amo",
            "Eu te amo",
        ],
    ),
    (
        "Excuse me",
        [
            "Disculpe",
            "Excusez-moi",
            "Entschuldigung",
            "Mi scusi",
            "Com licença",
        ],
    ),
    (
        "Good afternoon",
        [
            "Buenas tardes",
            "Bon après-midi",
            "Guten Tag",
            "Buon pomeriggio",
            "Boa tarde",
        ],
    ),
    (
        "How much does it cost?",
        [
            "¿Cuánto cuesta?",
            "Combien ça coûte ?",
            "Wie viel kostet das?",
            "Quanto costa?",
            "Quanto custa?",
        ],
    ),
    (
        "I don't understand",
        [
            "No entiendo",
            "Je ne comprends pas",
            "Ich verstehe nicht",
            "Non capisco",
            "Eu não entendo",
        ],
    ),
    (
        "Happy birthday",
        [
            "Feliz cumpleaños",
            "Joyeux anniversaire",
            "Alles Gute zum Geburtstag",
            "Buon compleanno",
            "Feliz aniversário",
        ],
    ),
    (
        "See you tomorrow",
        [
            "Hasta mañana",
            "À demain",
            "Bis morgen",
            "A domani",
            "Até amanhã",
        ],
    ),
    (
        "What is your name?",
        [
            "¿Cómo te llamas?",
            "Comment tu t'appelles ?",
            "Wie heißt du?",
            "Come ti chiami?",
            "Qual é o seu nome?",
        ],
    ),
    (
        "My name is Anna",
        [
            "Me llamo Anna",
            "Je m'appelle Anna",
            "Ich heiße Anna",
            "Mi chiamo Anna",
            "Meu nome é Anna",
        ],
    ),
    (
        "Where is the bathroom?",
        [
            "¿Dónde está el baño?",
            "Où sont les toilettes ?",
            "Wo ist die Toilette?",
            "Dov'è il bagno?",
            "Onde fica o banheiro?",
        ],
    ),
    (
        "I am hungry",
        [
            "Tengo hambre",
            "J'ai faim",
            "Ich habe Hunger",
            "Ho fame",
            "Estou com fome",
        ],
    ),
    (
        "The bill, please",
        [
            "La cuenta, por favor",
            "L'addition, s'il vous plaît",
            "Die Rechnung, bitte",
            "Il conto, per favore",
            "A conta, por favor",
        ],
    ),
    (
        "Nice to meet you",
        [
            "Mucho gusto",
            "Enchanté",
            "Freut mich",
            "Piacere",
            "Prazer em conhecê-lo",
        ],
    ),
    (
        "Good luck",
        [
            "Buena suerte",
            "Bonne chance",
            "Viel Glück",
            "Buona fortuna",
            "Boa sorte",
        ],
    ),
    (
        "Happy new year",
        [
            "Feliz año nuevo",
            "Bonne année",
            "Frohes neues Jahr",
            "Felice anno nuovo",
            "Feliz ano novo",
        ],
    ),
    (
        "I am tired",
        [
            "Estoy cansado",
            "Je suis fatigué",
            "Ich bin müde",
            "Sono stanco",
            "Estou cansado",
        ],
    ),
    (
        "Do you speak English?",
        [
            "¿Hablas inglés?",
            "Parlez-vous anglais ?",
            "Sprechen Sie Englisch?",
            "Parli inglese?",
            "Você fala inglês?",
        ],
    ),
    (
        "Welcome",
        [
            "Bienvenido",
            "Bienvenue",
            "Willkommen",
            "Benvenuto",
            "Bem-vindo",
        ],
    ),
    (
        "I am sorry",
        [
            "Lo siento",
            "Je suis désolé",
            "Es tut mir leid",
            "Mi dispiace",
            "Sinto muito",
        ],
    ),
    ("Help", ["Ayuda", "Au secours", "Hilfe", "Aiuto", "Socorro"]),
    (
        "Water, please",
        [
            "Agua, por favor",
            "De l'eau, s'il vous plaît",
            "Wasser, bitte",
            "Acqua, per favore",
            "Água, por favor",
        ],
    ),
    (
        "What time is it?",
        [
            "¿Qué hora es?",
            "Quelle heure est-il ?",
            "Wie spät ist es?",
            "Che ore sono?",
            "Que horas são?",
        ],
    ),
    (
        "I like coffee",
        [
            "Me gusta el café",
            "J'aime le café",
            "Ich mag Kaffee",
            "Mi piace il caffè",
            "Eu gosto de café",
        ],
    ),
    (
        "Good evening",
        [
            "Buenas tardes",
            "Bonsoir",
            "Guten Abend",
            "Buonasera",
            "Boa noite",
        ],
    ),
    ("Cheers", ["Salud", "Santé", "Prost", "Salute", "Saúde"]),
    ("Yes", ["Sí", "Oui", "Ja", "Sì", "Sim"]),
    (
        "No, thank you",
        [
            "No, gracias",
            "Non, merci",
            "Nein, danke",
            "No, grazie",
            "Não, obrigado",
        ],
    ),
    (
        "See you later",
        [
            "Hasta luego",
            "À plus tard",
            "Bis später",
            "A più tardi",
            "Até logo",
        ],
    ),
    (
        "I need a doctor",
        [
            "Necesito un médico",
            "J'ai besoin d'un médecin",
            "Ich brauche einen Arzt",
            "Ho bisogno di un medico",
            "Preciso de um médico",
        ],
    ),
    (
        "Where is the hotel?",
        [
            "¿Dónde está el hotel?",
            "Où est l'hôtel ?",
            "Wo ist das Hotel?",
            "Dov'è l'albergo?",
            "Onde fica o hotel?",
        ],
    ),
    (
        "The weather is nice",
        [
            "Hace buen tiempo",
            "Il fait beau",
            "Das Wetter ist schön",
            "Il tempo è bello",
            "O tempo está bom",
        ],
    ),
    (
        "I am lost",
        [
            "Estoy perdido",
            "Je suis perdu",
            "Ich habe mich verlaufen",
            "Mi sono perso",
            "Estou perdido",
        ],
    ),
];

/// Phrases the translation tool has no entry for (its errors).
pub const UNKNOWN_PHRASES: &[&str] = &[
    "The quantum flux capacitor is humming",
    "My hovercraft is full of eels",
    "Colorless green ideas sleep furiously",
    "The purple elephant juggles teacups",
    "Seventeen penguins borrowed my bicycle",
    "The moon tastes like cheddar",
    "Please recalibrate the warp drive",
    "A wizard stole my umbrella",
];

/// Search queries.
pub const QUERIES: &[&str] = &[
    "best pizza recipe",
    "how to learn Rust",
    "history of the Roman Empire",
    "cheap flights to Japan",
    "electric cars 2026",
    "how to grow tomatoes",
    "symptoms of the flu",
    "best hiking trails in Colorado",
    "how do solar panels work",
    "latest Mars mission",
    "beginner yoga routine",
    "how to make sourdough bread",
    "World Cup results",
    "Python vs Rust performance",
    "healthy breakfast ideas",
    "how to tie a tie",
    "best sci-fi books",
    "climate change effects",
    "how to meditate",
    "top museums in Paris",
    "how to change a tire",
    "machine learning basics",
    "best budget laptops",
    "how to train a puppy",
    "vegan lasagna recipe",
    "photosynthesis explained",
    "how vaccines work",
    "best coffee beans",
    "marathon training plan",
    "how to start a podcast",
    "ancient Egyptian pyramids",
    "tips for public speaking",
    "how to save money",
    "best board games for families",
    "how does WiFi work",
    "chess opening strategies",
    "northern lights forecast",
    "how to knit a scarf",
    "the James Webb telescope",
    "how to write a resume",
    "home workout without equipment",
    "best time to visit Iceland",
    "how to brew green tea",
    "quantum computing news",
    "how to fix a leaky faucet",
    "Renaissance painters",
    "easy guitar songs",
    "how to improve sleep",
    "deep sea creatures",
    "bike repair basics",
];

/// Titles for calendar events.
pub const EVENT_TITLES: &[&str] = &[
    "Team meeting",
    "Dentist appointment",
    "Lunch with Sarah",
    "Project review",
    "Yoga class",
    "Doctor's appointment",
    "Coffee with Tom",
    "Budget planning",
    "Weekly sync",
    "Job interview",
    "Birthday party",
    "Code review",
    "Parent-teacher conference",
    "Gym session",
    "Client call",
    "Book club",
    "Haircut",
    "Sprint planning",
    "Dinner with friends",
    "Piano lesson",
    "Car service",
    "Quarterly review",
    "Design workshop",
    "Football practice",
    "Team retrospective",
    "Flight check-in",
    "Board meeting",
    "Study group",
    "Vet appointment",
    "Product demo",
    "Language class",
    "One-on-one with Maria",
    "Movie night",
    "Conference call",
    "Marketing sync",
    "Date night",
    "Training session",
    "Hiring committee",
    "Farewell lunch",
    "Volunteer shift",
];

/// Things to be reminded of, as the user says them after "remind me to".
pub const REMINDERS: &[&str] = &[
    "call mom",
    "buy milk",
    "take the medicine",
    "water the plants",
    "pick up the kids",
    "send the report",
    "check the oven",
    "walk the dog",
    "pay the rent",
    "book the tickets",
    "stretch",
    "drink some water",
    "call the plumber",
    "submit the timesheet",
    "feed the cat",
    "move the car",
    "join the meeting",
    "return the library books",
    "charge my phone",
    "take out the trash",
    "email John",
    "buy flowers",
    "start the laundry",
    "review the slides",
    "order groceries",
    "call the bank",
    "back up my laptop",
    "pick up the dry cleaning",
    "renew my passport",
    "check my email",
    "leave for the airport",
    "turn off the stove",
    "practice piano",
    "reply to Anna",
    "buy a birthday gift",
];

/// Email subjects and bodies, as pairs that belong together.
pub const EMAILS: &[(&str, &str)] = &[
    ("Lunch tomorrow", "Are you free for lunch tomorrow at noon?"),
    ("Meeting notes", "Here are the notes from today's meeting."),
    ("Running late", "I'm running about 15 minutes late."),
    ("Project update", "The project is on track for Friday."),
    ("Thank you", "Thanks for your help this week!"),
    ("Invoice", "Please find the invoice attached."),
    ("Weekend plans", "Do you want to go hiking on Saturday?"),
    (
        "Quick question",
        "Do you have the latest version of the slides?",
    ),
    (
        "Happy birthday",
        "Happy birthday! Hope you have a great day.",
    ),
    ("Reminder", "Don't forget our call at 3 pm."),
    ("Welcome", "Welcome to the team!"),
    ("Schedule change", "The meeting moved to Thursday."),
    ("Congratulations", "Congratulations on the new job!"),
    ("Dinner", "Dinner is at 7 tonight."),
    ("Report", "The monthly report is ready for review."),
    ("Holiday", "I'll be on holiday next week."),
    ("Feedback", "Could you send me your feedback by Monday?"),
    ("Tickets", "I booked the concert tickets."),
    ("Sick day", "I'm not feeling well and will stay home today."),
    ("Contract", "The signed contract is attached."),
    ("Party", "You're invited to my party on Saturday!"),
    ("Question about the order", "When will my order ship?"),
    ("Interview", "Can we schedule the interview for Tuesday?"),
    ("Photos", "Here are the photos from the trip."),
    ("Budget", "Please review the budget before Friday."),
];

/// Rooms with lights.
pub const ROOMS: &[&str] = &[
    "kitchen",
    "living room",
    "bedroom",
    "bathroom",
    "office",
    "hallway",
    "garage",
    "dining room",
    "basement",
    "garden",
    "kids' room",
    "guest room",
    "porch",
    "attic",
    "laundry room",
];

/// Things the user may want that no tool does, with how an answer names
/// them ("I can't {task}").
pub const OUT_OF_SCOPE: &[(&str, &str)] = &[
    ("Tell me a joke.", "tell jokes"),
    ("Write a poem about the sea.", "write poems"),
    ("Can you order me a pizza?", "order food"),
    ("Play some jazz music.", "play music"),
    (
        "Book a table for two at an Italian restaurant.",
        "book restaurants",
    ),
    (
        "What's the meaning of life?",
        "answer philosophical questions",
    ),
    ("Call my sister.", "make phone calls"),
    ("Turn up the volume on the TV.", "control the TV"),
    (
        "Can you write an essay about climate change?",
        "write essays",
    ),
    ("Draw a picture of a cat.", "draw pictures"),
    ("Order a taxi to the airport.", "order taxis"),
    ("What's my bank balance?", "check bank accounts"),
    ("Open the garage door.", "open doors"),
    ("Recommend a good movie.", "recommend movies"),
    ("Summarize the news for me.", "summarize the news"),
    ("Buy me a new phone.", "buy things"),
    ("Can you fix my car?", "fix cars"),
    ("Sing me a song.", "sing"),
    ("Who will win the next election?", "predict elections"),
    (
        "Translate this whole book into French.",
        "translate whole books",
    ),
    ("Read my text messages.", "read text messages"),
    ("Post this on social media.", "post on social media"),
    ("Tell me a bedtime story.", "tell stories"),
    ("What's the best stock to buy?", "give investment advice"),
    ("Diagnose my headache.", "give medical diagnoses"),
    ("Clean my room.", "clean rooms"),
    ("Write a cover letter for me.", "write cover letters"),
    ("Can you do my homework?", "do homework"),
    ("Find my lost keys.", "find lost things"),
    ("Start the washing machine.", "control the washing machine"),
    // Requests that name a place, a time or a number, like the ones tools
    // answer: the model must still see that no tool does this.
    ("Book me a hotel in Lisbon for Friday.", "book hotels"),
    ("Write a haiku about autumn.", "write poems"),
    (
        "What's the capital of Peru?",
        "answer general knowledge questions",
    ),
    ("Recommend a restaurant in Tokyo.", "recommend restaurants"),
    ("Put my phone on silent mode.", "control your phone"),
    ("Compose a limerick about a cat.", "write poems"),
    ("Order 3 pizzas for the office.", "order food"),
    (
        "How tall is the Eiffel Tower?",
        "answer general knowledge questions",
    ),
    ("Write me a short story about a dragon.", "tell stories"),
    ("Make up a riddle.", "make up riddles"),
    ("Buy two tickets to the concert in Berlin.", "buy tickets"),
    (
        "Who won the World Cup in 2010?",
        "answer general knowledge questions",
    ),
    ("Write a birthday message for my mom.", "write messages"),
    (
        "Reserve a parking spot near Madrid airport.",
        "reserve parking",
    ),
    ("Give me a recipe for lasagna.", "give recipes"),
    ("Write a song about the summer in Rome.", "write songs"),
    ("Plan a 5-day trip to Kyoto.", "plan trips"),
    (
        "What year did the Berlin Wall fall?",
        "answer history questions",
    ),
    ("Make a shopping list for 4 people.", "make shopping lists"),
    ("Write a speech for my sister's wedding.", "write speeches"),
    ("Find me a flat to rent in Vienna.", "find flats"),
    ("Tell me a fun fact about octopuses.", "tell fun facts"),
    ("Order 12 roses for delivery to Oslo.", "order flowers"),
    ("Write a thank-you note to my teacher.", "write messages"),
    (
        "How many people live in Cairo?",
        "look up population figures",
    ),
    ("Create a workout plan for 30 days.", "make workout plans"),
    ("Write a short poem about rain in London.", "write poems"),
    ("Call a plumber for 9 am.", "make phone calls"),
    ("Explain quantum physics to a child.", "explain science"),
    ("Draft a tweet about our product launch.", "write posts"),
];

/// Greetings and small talk, with the answers they get.
pub const SMALL_TALK: &[(&str, &str)] = &[
    ("Hi!", "Hello! How can I help you today?"),
    ("Hello", "Hi there! What can I do for you?"),
    ("Hey there", "Hey! How can I help?"),
    ("Good morning!", "Good morning! How can I help you today?"),
    (
        "How are you?",
        "I'm doing well, thanks for asking! How can I help you?",
    ),
    ("Thanks!", "You're welcome!"),
    ("Thank you so much", "You're very welcome!"),
    (
        "Who are you?",
        "I'm a helpful assistant. I can use tools to answer your questions.",
    ),
    ("Bye!", "Goodbye! Have a great day."),
    ("Good night", "Good night! Sleep well."),
    ("Nice to meet you", "Nice to meet you too! How can I help?"),
    (
        "Hi, how's it going?",
        "Hi! All good here. What can I do for you?",
    ),
    ("Thanks, that's all", "You're welcome! Have a nice day."),
    ("Great, thank you", "Glad I could help!"),
    ("Good evening", "Good evening! How can I help you?"),
    ("Good afternoon!", "Good afternoon! What can I do for you?"),
    (
        "What's your name?",
        "I'm your assistant. I can use tools to help you.",
    ),
    ("Hiya", "Hi! How can I help?"),
    ("See you later!", "See you! Have a good one."),
    ("Cheers!", "You're welcome!"),
    ("Howdy", "Hello! What can I do for you?"),
    (
        "Are you a robot?",
        "I'm an AI assistant. I can use tools to answer your questions.",
    ),
    ("That was helpful, thanks", "Glad I could help!"),
    ("Morning!", "Good morning! How can I help you today?"),
    ("Have a nice day", "Thanks, you too!"),
    ("Yo, what's up?", "Hey! What can I do for you?"),
    (
        "Who made you?",
        "I'm an AI assistant built to help with tools. How can I help?",
    ),
    ("Perfect, thank you!", "You're welcome!"),
    ("Hello again", "Welcome back! How can I help?"),
    ("That's all for now, bye.", "Goodbye! Have a great day."),
    (
        "Hey, good to see you",
        "Good to see you too! How can I help?",
    ),
    ("Are you there?", "Yes, I'm here! What can I do for you?"),
    ("Thanks a lot!", "You're welcome!"),
    ("Greetings!", "Hello! How can I help you today?"),
    ("Goodbye", "Goodbye! Have a great day."),
    (
        "What model are you?",
        "I'm a small assistant model that can call tools. How can I help?",
    ),
    ("Sup?", "Hey! How can I help?"),
    ("Appreciate it", "Any time!"),
    ("Good to know, thanks", "You're welcome!"),
    ("Take care!", "You too! Goodbye."),
];

/// Thanks and goodbyes after a request was answered, with their replies.
pub const THANKS: &[(&str, &str)] = &[
    ("Thanks!", "You're welcome!"),
    ("Thank you so much", "You're very welcome!"),
    ("Great, thank you", "Glad I could help!"),
    ("Thanks, that's all", "You're welcome! Have a nice day."),
    ("Cheers!", "You're welcome!"),
    ("Perfect, thanks", "Glad I could help!"),
    ("Thank you!", "You're welcome!"),
    ("Bye!", "Goodbye! Have a great day."),
    ("Awesome, thanks a lot", "Any time!"),
    ("Appreciate it", "Any time!"),
    ("Thanks, bye", "Goodbye! Have a great day."),
    ("OK, thank you", "You're welcome!"),
    ("Nice, thanks!", "Glad I could help!"),
    ("That helps, thank you", "You're welcome!"),
    ("See you later!", "See you! Have a good one."),
];

/// System prompts a conversation may start with (none is the most common).
pub const SYSTEM_PROMPTS: &[&str] = &[
    "You are a helpful assistant.",
    "You are a helpful assistant with access to tools.",
    "You are a friendly assistant. Use the tools when they help.",
    "You are a concise assistant.",
    "You are a personal assistant.",
    "You are a bot that responds to weather queries.",
    "You are a helpful assistant. Answer briefly.",
    "You help users with everyday tasks.",
    "You are an assistant that can call tools.",
    "You are a smart home and productivity assistant.",
];

/// Airline codes for flight numbers.
pub const AIRLINES: &[&str] = &[
    "AF", "LH", "BA", "KL", "IB", "AZ", "UA", "DL", "AA", "EK", "QR", "SQ", "NH", "JL", "TK", "LX",
    "OS", "SK", "AY", "TP",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_stays_in_its_split() {
        let pool: Vec<usize> = (0..23).collect();
        let mut rng = Rng::for_example(1, 2);
        for _ in 0..500 {
            assert_ne!(*pick(&mut rng, &pool, Split::Train) % 5, 4);
            assert_eq!(*pick(&mut rng, &pool, Split::HeldOut) % 5, 4);
        }
        let train: Vec<&usize> = part(&pool, Split::Train).collect();
        assert_eq!(train.len(), 19);
    }

    #[test]
    fn numbers_read_back_as_written() {
        let mut rng = Rng::for_example(3, 3);
        for kind in [
            NumberKind::Tiny,
            NumberKind::Small,
            NumberKind::Large,
            NumberKind::Decimal,
        ] {
            for split in [Split::Train, Split::HeldOut] {
                for _ in 0..100 {
                    let text = number(&mut rng, split, kind);
                    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
                    assert_eq!(value.to_string(), text);
                    assert!(in_split(&text, split));
                }
            }
        }
    }
}
