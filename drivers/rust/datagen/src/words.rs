//! Vocabulary of the tweet generator: languages with their words, names, places and time
//! zones, so that text, names and profiles look like the real v1.1 mix (accents, CJK,
//! Hangul, Arabic, emoji) and have realistic byte lengths.

pub struct Language {
    pub code: &'static str,
    /// Relative share of tweets in this language.
    pub share: f64,
    pub words: &'static [&'static str],
    /// Between words: CJK text runs on without spaces.
    pub separator: &'static str,
    pub names: &'static [&'static str],
    pub locations: &'static [&'static str],
    pub zones: &'static [(&'static str, i32)],
}

const EN_WORDS: &[&str] = &[
    "the", "and", "you", "this", "that", "just", "love", "when", "people", "today", "really",
    "time", "what", "going", "know", "about", "happy", "never", "always", "thank", "night", "best",
    "game", "new", "world", "week", "follow", "amazing", "can't", "don't", "tomorrow", "everyone",
    "birthday", "music", "watching", "morning", "weekend", "better", "friends", "beautiful",
    "literally", "everything", "team", "win", "check", "out", "live", "video",
];

const ES_WORDS: &[&str] = &[
    "hola", "que", "el", "la", "de", "mañana", "también", "está", "años", "canción", "corazón",
    "qué", "día", "mejor", "gracias", "feliz", "vida", "amigos", "fútbol", "jugar", "porque",
    "cuando", "mucho", "siempre", "nunca", "nuevo", "así", "aquí", "más", "todo", "niños",
];

const PT_WORDS: &[&str] = &[
    "você", "não", "então", "muito", "obrigado", "amanhã", "coração", "saudade", "também", "é",
    "está", "hoje", "vida", "amor", "gente", "feliz", "melhor", "sempre", "nunca", "quero", "nossa",
    "bom", "dia", "ação", "até", "já", "só", "mãe", "irmão", "música",
];

const FR_WORDS: &[&str] = &[
    "bonjour", "très", "être", "déjà", "où", "ça", "merci", "français", "élève", "fête", "mais",
    "avec", "pour", "vraiment", "toujours", "jamais", "demain", "soirée", "cœur", "ami", "même",
    "première", "après", "voilà", "bientôt", "garçon", "café", "été", "noël",
];

const JA_WORDS: &[&str] = &[
    "今日", "ありがとう", "おはよう", "です", "ます", "本当に", "楽しい", "かわいい", "最高", "明日", "仕事", "ゲーム", "アニメ", "好き",
    "みんな", "よろしく", "お願いします", "頑張る", "写真", "ライブ", "東京", "ラーメン", "猫", "天気", "雨", "嬉しい", "疲れた", "今から",
    "一緒に", "見て", "！", "、", "。", "笑",
];

const KO_WORDS: &[&str] = &[
    "안녕하세요", "오늘", "정말", "사랑해", "감사합니다", "너무", "좋아요", "우리", "방탄소년단", "노래", "행복", "친구", "같이", "진짜",
    "최고", "생일", "축하해", "응원", "보고싶어", "날씨",
];

const AR_WORDS: &[&str] = &[
    "السلام", "عليكم", "الله", "اليوم", "الحمد", "لله", "شكرا", "جميل", "حب", "يا", "من", "في",
    "على", "كل", "صباح", "الخير", "مساء", "اللهم", "يارب", "قلبي",
];

pub const EMOJI: &[&str] = &[
    "😂", "❤️", "😍", "🔥", "😭", "👍", "🙏", "✨", "😊", "💕", "🎉", "😎", "🤔", "👀", "💯", "🌸",
];

/// Hashtags seen across languages; tweets also tag words of their own language.
pub const HASHTAGS: &[&str] = &[
    "MondayMotivation", "NowPlaying", "BTS", "WorldCup", "TBT", "FollowFriday", "Bitcoin",
    "GameOfThrones", "love", "photography", "travel", "music", "news", "job", "giveaway", "NBA",
    "AI", "StrangerThings", "Eurovision", "ThrowbackThursday", "nature", "fitness",
];

pub const CASHTAGS: &[&str] = &["AAPL", "TSLA", "BTC", "ETH", "AMZN", "GOOG", "NFLX"];

/// Lowercase pieces that screen names are made of.
pub const HANDLE_PARTS: &[&str] = &[
    "the", "real", "official", "its", "mr", "ms", "dj", "tv", "news", "fan", "gamer", "love",
    "king", "queen", "baby", "life", "daily", "music", "sports", "world", "kpop", "anime", "jp",
    "br", "mx", "uk", "x", "xo", "jess", "mike", "sara", "yuki", "kim", "ali", "lucas", "ana",
];

pub const DOMAINS: &[&str] = &[
    "www.nytimes.com", "www.youtube.com", "www.instagram.com", "bit.ly", "www.bbc.co.uk",
    "www.theguardian.com", "open.spotify.com", "www.amazon.co.jp", "globoesporte.globo.com",
    "www.elmundo.es", "www.lemonde.fr", "news.yahoo.co.jp", "www.facebook.com", "github.com",
];

/// (anchor, relative share) of the `source` field.
pub const SOURCES: &[(&str, f64)] = &[
    (r#"<a href="http://twitter.com/download/iphone" rel="nofollow">Twitter for iPhone</a>"#, 0.36),
    (r#"<a href="http://twitter.com/download/android" rel="nofollow">Twitter for Android</a>"#, 0.32),
    (r#"<a href="http://twitter.com" rel="nofollow">Twitter Web Client</a>"#, 0.12),
    (r#"<a href="https://mobile.twitter.com" rel="nofollow">Twitter Lite</a>"#, 0.05),
    (r#"<a href="https://about.twitter.com/products/tweetdeck" rel="nofollow">TweetDeck</a>"#, 0.04),
    (r#"<a href="http://twittbot.net/" rel="nofollow">twittbot.net</a>"#, 0.04),
    (r#"<a href="https://ifttt.com" rel="nofollow">IFTTT</a>"#, 0.03),
    (r#"<a href="http://instagram.com" rel="nofollow">Instagram</a>"#, 0.02),
    (r#"<a href="http://twitter.com/#!/download/ipad" rel="nofollow">Twitter for iPad</a>"#, 0.02),
];

pub const PROFILE_COLORS: &[&str] = &[
    "C0DEED", "1DA1F2", "0084B4", "000000", "FFFFFF", "333333", "DDEEF6", "F5F8FA", "ABB8C2",
    "E81C4F", "19CF86", "FAB81E", "7FDBB6", "981CEB", "352726", "642D8B",
];

const EN_NAMES: &[&str] = &[
    "Jessica", "Michael", "Ashley", "Chris", "Emily", "Taylor", "Smith", "Johnson", "Brown",
    "Olivia", "Jake", "Williams", "Morgan", "Davis", "Sam", "Kate", "Lee", "Jordan",
];
const ES_NAMES: &[&str] = &[
    "José", "María", "Sofía", "Martínez", "García", "López", "Andrés", "Lucía", "Hernández",
    "Pérez", "Camila", "Ramón",
];
const PT_NAMES: &[&str] = &[
    "João", "Ana", "Gonçalves", "Conceição", "Lucas", "Júlia", "Araújo", "Fernandes", "Letícia",
    "Sebastião",
];
const FR_NAMES: &[&str] = &[
    "Léa", "Hélène", "François", "Zoé", "Jérôme", "Lefèvre", "Dubois", "Chloé", "Amélie", "Noël",
];
const JA_NAMES: &[&str] = &[
    "さくら", "ゆうき", "たかし", "はると", "佐藤", "鈴木", "高橋", "田中", "ひなた", "みお", "アキラ", "ユイ",
];
const KO_NAMES: &[&str] = &[
    "민준", "서연", "지우", "김", "이", "박", "하은", "도윤", "수아",
];
const AR_NAMES: &[&str] = &[
    "محمد", "أحمد", "فاطمة", "عبدالله", "نورة", "سارة", "خالد", "العتيبي",
];

const EN_LOCATIONS: &[&str] = &[
    "London, England", "New York, NY", "Los Angeles, CA", "Toronto, Ontario", "Chicago, IL",
    "Lagos, Nigeria", "Manila, Philippines", "Texas, USA", "Earth", "she/her 🌈",
    "Sydney, New South Wales", "somewhere over the rainbow", "United States",
];
const ES_LOCATIONS: &[&str] = &[
    "Madrid, España", "Ciudad de México", "Buenos Aires, Argentina", "Bogotá, Colombia",
];
const PT_LOCATIONS: &[&str] = &[
    "São Paulo, Brasil", "Rio de Janeiro, Brasil", "Lisboa, Portugal",
];
const FR_LOCATIONS: &[&str] = &[
    "Paris, France", "Montréal, Québec", "Lyon", "Bruxelles, Belgique",
];
const JA_LOCATIONS: &[&str] = &[
    "東京都", "大阪府", "日本", "神奈川県 横浜市", "福岡", "北海道",
];
const KO_LOCATIONS: &[&str] = &["서울", "대한민국", "부산광역시"];
const AR_LOCATIONS: &[&str] = &[
    "الرياض", "جدة, المملكة العربية السعودية", "القاهرة, مصر", "دبي",
];

const EN_ZONES: &[(&str, i32)] = &[
    ("Pacific Time (US & Canada)", -28800),
    ("Eastern Time (US & Canada)", -18000),
    ("Central Time (US & Canada)", -21600),
    ("London", 0),
    ("Sydney", 36000),
];
const ES_ZONES: &[(&str, i32)] = &[
    ("Madrid", 3600),
    ("Mexico City", -21600),
    ("Buenos Aires", -10800),
];
const PT_ZONES: &[(&str, i32)] = &[("Brasilia", -10800), ("Lisbon", 0)];
const FR_ZONES: &[(&str, i32)] = &[("Paris", 3600), ("Quito", -18000)];
const JA_ZONES: &[(&str, i32)] = &[("Tokyo", 32400), ("Osaka", 32400), ("Hawaii", -36000)];
const KO_ZONES: &[(&str, i32)] = &[("Seoul", 32400)];
const AR_ZONES: &[(&str, i32)] = &[("Riyadh", 10800), ("Cairo", 7200), ("Abu Dhabi", 14400)];

pub const LANGUAGES: &[Language] = &[
    Language { code: "en", share: 0.52, words: EN_WORDS, separator: " ", names: EN_NAMES, locations: EN_LOCATIONS, zones: EN_ZONES },
    Language { code: "ja", share: 0.16, words: JA_WORDS, separator: "", names: JA_NAMES, locations: JA_LOCATIONS, zones: JA_ZONES },
    Language { code: "es", share: 0.09, words: ES_WORDS, separator: " ", names: ES_NAMES, locations: ES_LOCATIONS, zones: ES_ZONES },
    Language { code: "pt", share: 0.07, words: PT_WORDS, separator: " ", names: PT_NAMES, locations: PT_LOCATIONS, zones: PT_ZONES },
    Language { code: "ar", share: 0.05, words: AR_WORDS, separator: " ", names: AR_NAMES, locations: AR_LOCATIONS, zones: AR_ZONES },
    Language { code: "fr", share: 0.04, words: FR_WORDS, separator: " ", names: FR_NAMES, locations: FR_LOCATIONS, zones: FR_ZONES },
    Language { code: "ko", share: 0.03, words: KO_WORDS, separator: " ", names: KO_NAMES, locations: KO_LOCATIONS, zones: KO_ZONES },
    Language { code: "und", share: 0.04, words: EMOJI, separator: " ", names: EN_NAMES, locations: EN_LOCATIONS, zones: EN_ZONES },
];

/// (id, name, full_name, country_code, country, place_type, [west, south, east, north]).
pub type PlaceRow = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    [f64; 4],
);

pub const PLACES: &[PlaceRow] = &[
    ("5a110d312052166f", "San Francisco", "San Francisco, CA", "US", "United States", "city", [-122.514926, 37.708075, -122.357031, 37.833238]),
    ("01a9a39529b27f36", "Manhattan", "Manhattan, NY", "US", "United States", "city", [-74.026675, 40.683935, -73.910408, 40.877483]),
    ("457b4814b4240d87", "London", "London, England", "GB", "United Kingdom", "city", [-0.187894, 51.483718, -0.109978, 51.5164655]),
    ("09f6a7707f18e0b1", "東京 千代田区", "日本 東京 千代田区", "JP", "日本", "city", [139.729282, 35.6665745, 139.7829, 35.7031015]),
    ("68e019afec7d0ba5", "São Paulo", "São Paulo, Brasil", "BR", "Brasil", "city", [-46.826039, -24.008814, -46.365052, -23.356792]),
    ("206a8d2c26e41c3c", "Madrid", "Madrid, España", "ES", "España", "city", [-3.888954, 40.312064, -3.517916, 40.643518]),
    ("09f6a7707f18e0b2", "Paris", "Paris, France", "FR", "France", "city", [2.224101, 48.815521, 2.469905, 48.902146]),
    ("00b6dc3df8c3a5bc", "서울", "서울, 대한민국", "KR", "대한민국", "admin", [126.76462, 37.428829, 127.183758, 37.701491]),
    ("4ec01c9dbc693497", "Florida", "Florida, USA", "US", "United States", "admin", [-87.634643, 24.396308, -79.974307, 31.001056]),
    ("7e4aeb1d2ea8c2f6", "México", "México", "MX", "México", "country", [-118.404439, 14.532867, -86.710521, 32.718655]),
];
