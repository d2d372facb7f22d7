//! What translation requests ask for: the languages, the phrases with
//! their translations, and the phrases the tool has no entry for.

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
