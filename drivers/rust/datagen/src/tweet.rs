//! Synthetic tweets in the shape of Twitter API v1.1 statuses, modelled on streamed data:
//! the four kinds in the measured shares, language-dependent text with hashtags, mentions,
//! links and media whose indices (in code points) point at their place in the text, and
//! user profiles whose optional fields are present with realistic frequencies.
//!
//! Ids are snowflakes: top-level tweet `i` gets an id in `[FIRST_ID + i·ID_STEP, +ID_STEP)`,
//! so ids increase with the line number and are unique; `created_at` is decoded from the id.
//! Embedded (retweeted or quoted) statuses are older and carry their real counts, while
//! top-level ones are fresh and mostly at zero, as in a stream. A retweet of a quote also
//! carries the quoted status at top level, as v1.1 does.

use serbench_model::{
    BoundingBox, Coordinates, Entities, ExtendedEntities, Hashtag, Media, Mention, Place, Size,
    Sizes, Tweet, TweetKind, Url, User,
};

use crate::clock::twitter_date;
use crate::rng::Rng;
use crate::words::{
    Language, CASHTAGS, DOMAINS, EMOJI, HANDLE_PARTS, HASHTAGS, LANGUAGES, PLACES, PROFILE_COLORS,
    SOURCES,
};

/// Shares of the kinds in a real 1M-tweet sample.
pub const KIND_SHARES: [(TweetKind, f64); 4] = [
    (TweetKind::Plain, 0.333),
    (TweetKind::Retweet, 0.490),
    (TweetKind::Quote, 0.069),
    (TweetKind::RetweetOfQuote, 0.109),
];

const TWITTER_EPOCH_MS: i64 = 1_288_834_974_657;
/// A snowflake of May 2018.
const FIRST_ID: i64 = 1_000_000_000_000_000_000;
/// About 20 ms between consecutive tweets, the pace of a sampled stream.
const ID_STEP: i64 = 20 << 22;
const JAN_2007_MS: i64 = 1_167_609_600_000;
const DAY_MS: i64 = 86_400_000;
/// Retweets quote at most this many code points of the original.
const RETWEET_TEXT: usize = 140;
const MAX_TEXT: usize = 280;
/// Room for a hashtag or mention: the longest ones plus a space.
const MAX_TAG: usize = 19;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Top,
    Embedded,
}

/// Top-level tweet number `index` of a stream.
pub fn tweet(rng: &mut Rng, index: u64) -> Tweet {
    let id = FIRST_ID + index as i64 * ID_STEP + rng.below(ID_STEP as u64) as i64;
    let weights = KIND_SHARES.map(|(_, share)| share);
    match KIND_SHARES[rng.weighted(&weights)].0 {
        TweetKind::Plain => compose(rng, id, Level::Top, None),
        TweetKind::Retweet => {
            let original_id = older(rng, id);
            let original = compose(rng, original_id, Level::Embedded, None);
            retweet(rng, id, original)
        }
        TweetKind::Quote => {
            let quoted_id = older(rng, id);
            let quoted = compose(rng, quoted_id, Level::Embedded, None);
            compose(rng, id, Level::Top, Some(quoted))
        }
        TweetKind::RetweetOfQuote => {
            let original_id = older(rng, id);
            let quoted_id = older(rng, original_id);
            let quoted = compose(rng, quoted_id, Level::Embedded, None);
            let original = compose(rng, original_id, Level::Embedded, Some(quoted));
            retweet(rng, id, original)
        }
    }
}

fn unix_ms(id: i64) -> i64 {
    (id >> 22) + TWITTER_EPOCH_MS
}

/// The id of a status posted between a second and a month before `id`.
fn older(rng: &mut Rng, id: i64) -> i64 {
    let ms = 1000 + rng.log_uniform(30 * DAY_MS as u64) as i64;
    id - (ms << 22) - rng.below(1 << 22) as i64
}

/// A text being built; entity indices count code points, as the API does.
#[derive(Default)]
struct Text {
    text: String,
    chars: usize,
    /// An entity must be followed by a space even in CJK text, or it would run on.
    after_entity: bool,
}

impl Text {
    fn push(&mut self, piece: &str) {
        self.text.push_str(piece);
        self.chars += piece.chars().count();
    }

    fn push_word(&mut self, separator: &str, word: &str) {
        if !self.text.is_empty() {
            self.push(if self.after_entity { " " } else { separator });
        }
        self.push(word);
        self.after_entity = false;
    }

    /// Appends `piece` after a space; returns its [start, end) indices.
    fn entity(&mut self, piece: &str) -> Vec<i32> {
        self.push_word(" ", piece);
        self.after_entity = true;
        vec![
            (self.chars - piece.chars().count()) as i32,
            self.chars as i32,
        ]
    }

    fn fits(&self, len: usize, limit: usize) -> bool {
        self.chars + 1 + len <= limit
    }
}

fn empty_entities() -> Entities {
    Entities {
        hashtags: vec![],
        symbols: vec![],
        urls: vec![],
        user_mentions: vec![],
        media: None,
    }
}

/// How many of each entity a new text gets.
struct Plan {
    target: usize,
    hashtags: usize,
    mentions: usize,
    links: usize,
    cashtag: bool,
    media: bool,
    emoji: bool,
    /// A quote tweet ends with the link to the quoted status.
    quoting: bool,
}

impl Plan {
    fn draw(rng: &mut Rng, quoting: bool) -> Plan {
        let target = match rng.weighted(&[0.30, 0.45, 0.25]) {
            0 => rng.between(10, 60),
            1 => rng.between(60, 140),
            _ => rng.between(140, MAX_TEXT as i64),
        } as usize;
        Plan {
            target,
            hashtags: rng.weighted(&[0.72, 0.17, 0.07, 0.04]),
            mentions: rng.weighted(&[0.80, 0.14, 0.06]),
            links: rng.weighted(&[0.78, 0.19, 0.03]),
            cashtag: rng.chance(0.01),
            media: rng.chance(0.15),
            emoji: rng.chance(0.3),
            quoting,
        }
    }

    /// Code points kept free at the end for links and media (23 each, plus a space).
    fn reserved(&self) -> usize {
        24 * (self.links + self.media as usize + self.quoting as usize)
    }
}

/// A plain tweet, or a quote tweet when `quoted` is given.
fn compose(rng: &mut Rng, id: i64, level: Level, quoted: Option<Tweet>) -> Tweet {
    let language = pick_language(rng);
    let user = user(rng, language, unix_ms(id));
    let mut text = Text::default();
    let mut entities = empty_entities();
    let reply = (quoted.is_none() && rng.chance(0.12)).then(|| mention(rng, &mut text));
    let plan = Plan::draw(rng, quoted.is_some());
    write_body(rng, language, &plan, &mut text, &mut entities);
    for _ in 0..plan.links {
        let link = link(rng, &mut text);
        entities.urls.push(link);
    }
    if let Some(quoted) = &quoted {
        entities.urls.push(permalink(rng, &mut text, quoted));
    }
    let media = plan
        .media
        .then(|| media(rng, id, &user.screen_name, &mut text));
    if let Some(reply) = &reply {
        entities.user_mentions.insert(0, reply.clone());
    }
    let sensitive = (!entities.urls.is_empty() || media.is_some()).then(|| rng.chance(0.04));
    let place = rng.chance(0.03).then(|| place(rng));
    let coordinates = place
        .as_ref()
        .filter(|_| rng.chance(0.35))
        .map(|p| point_in(rng, p));
    entities.media = media.as_ref().map(|all| vec![all[0].clone()]);
    let (quote_count, reply_count) = engagement(rng, level);
    Tweet {
        created_at: twitter_date(unix_ms(id)),
        id,
        id_str: id.to_string(),
        source: source(rng),
        truncated: rng.chance(0.02),
        in_reply_to_status_id: reply.as_ref().map(|_| older(rng, id)),
        in_reply_to_user_id: reply.as_ref().map(|m| m.id),
        in_reply_to_screen_name: reply.map(|m| m.screen_name),
        user,
        coordinates,
        place,
        quoted_status_id: quoted.as_ref().map(|q| q.id),
        is_quote_status: quoted.is_some(),
        quoted_status: quoted.map(Box::new),
        retweeted_status: None,
        quote_count,
        reply_count,
        retweet_count: count(rng, level, 100_000),
        favorite_count: count(rng, level, 300_000),
        entities,
        extended_entities: media.map(|media| ExtendedEntities { media }),
        favorited: false,
        retweeted: false,
        possibly_sensitive: sensitive,
        filter_level: Some("low".into()),
        lang: Some(language.code.into()),
        display_text_range: display_range(rng, &text),
        text: text.text,
    }
}

/// "RT @user: " and the start of the original's text, with the entities that still fit.
fn retweet(rng: &mut Rng, id: i64, original: Tweet) -> Tweet {
    let language = language_of(original.lang.as_deref());
    let user = user(rng, language, unix_ms(id));
    let mut text = Text::default();
    text.push("RT");
    let author = &original.user;
    let at = text.entity(&format!("@{}", author.screen_name));
    text.push(": ");
    let offset = text.chars as i32;
    let room = RETWEET_TEXT - text.chars;
    let kept = push_truncated(&mut text, &original.text, room);
    let shift = Shift {
        offset,
        end: offset + kept as i32,
        source: original.id,
    };
    let mut entities = shift.entities(&original.entities);
    entities.user_mentions.insert(
        0,
        Mention {
            screen_name: author.screen_name.clone(),
            name: author.name.clone(),
            id: author.id,
            id_str: author.id_str.clone(),
            indices: at,
        },
    );
    let extended_entities = original
        .extended_entities
        .as_ref()
        .map(|e| ExtendedEntities {
            media: shift.media(&e.media),
        })
        .filter(|e| !e.media.is_empty());
    let (quote_count, reply_count) = engagement(rng, Level::Top);
    Tweet {
        created_at: twitter_date(unix_ms(id)),
        id,
        id_str: id.to_string(),
        source: source(rng),
        truncated: false,
        in_reply_to_status_id: None,
        in_reply_to_user_id: None,
        in_reply_to_screen_name: None,
        user,
        coordinates: None,
        place: None,
        quoted_status_id: original.quoted_status_id,
        is_quote_status: original.is_quote_status,
        quoted_status: original.quoted_status.clone(),
        quote_count,
        reply_count,
        retweet_count: original.retweet_count,
        favorite_count: 0,
        entities,
        extended_entities,
        favorited: false,
        retweeted: false,
        possibly_sensitive: original.possibly_sensitive,
        filter_level: Some("low".into()),
        lang: original.lang.clone(),
        display_text_range: display_range(rng, &text),
        text: text.text,
        retweeted_status: Some(Box::new(original)),
    }
}

/// Appends at most `room` code points of `original` (the last one "…" when cut) and
/// returns how many code points of the original were kept.
fn push_truncated(text: &mut Text, original: &str, room: usize) -> usize {
    let total = original.chars().count();
    if total <= room {
        text.push(original);
        return total;
    }
    let cut: String = original.chars().take(room - 1).collect();
    text.push(&cut);
    text.push("…");
    room - 1
}

/// Moves the original's entities into a retweet's text, dropping those cut off.
struct Shift {
    offset: i32,
    end: i32,
    source: i64,
}

impl Shift {
    fn indices(&self, indices: &[i32]) -> Option<Vec<i32>> {
        let moved: Vec<i32> = indices.iter().map(|i| i + self.offset).collect();
        (moved[1] <= self.end).then_some(moved)
    }

    fn entities(&self, e: &Entities) -> Entities {
        let tags = |tags: &[Hashtag]| -> Vec<Hashtag> {
            tags.iter()
                .filter_map(|t| {
                    Some(Hashtag {
                        indices: self.indices(&t.indices)?,
                        ..t.clone()
                    })
                })
                .collect()
        };
        let media = e
            .media
            .as_ref()
            .map(|m| self.media(m))
            .filter(|m| !m.is_empty());
        Entities {
            hashtags: tags(&e.hashtags),
            symbols: tags(&e.symbols),
            urls: e
                .urls
                .iter()
                .filter_map(|u| {
                    Some(Url {
                        indices: self.indices(&u.indices)?,
                        ..u.clone()
                    })
                })
                .collect(),
            user_mentions: e
                .user_mentions
                .iter()
                .filter_map(|m| {
                    Some(Mention {
                        indices: self.indices(&m.indices)?,
                        ..m.clone()
                    })
                })
                .collect(),
            media,
        }
    }

    /// Media keep pointing at the original status, as in the API.
    fn media(&self, media: &[Media]) -> Vec<Media> {
        media
            .iter()
            .filter_map(|m| {
                Some(Media {
                    indices: self.indices(&m.indices)?,
                    source_status_id: Some(self.source),
                    source_status_id_str: Some(self.source.to_string()),
                    ..m.clone()
                })
            })
            .collect()
    }
}

fn pick_language(rng: &mut Rng) -> &'static Language {
    let shares: Vec<f64> = LANGUAGES.iter().map(|l| l.share).collect();
    &LANGUAGES[rng.weighted(&shares)]
}

fn language_of(code: Option<&str>) -> &'static Language {
    LANGUAGES
        .iter()
        .find(|l| Some(l.code) == code)
        .unwrap_or(&LANGUAGES[0])
}

/// Words of the language with hashtags, mentions and emoji mixed in, up to the planned
/// length; entities that found no place in the flow are appended while they fit.
fn write_body(
    rng: &mut Rng,
    language: &Language,
    plan: &Plan,
    text: &mut Text,
    entities: &mut Entities,
) {
    let (mut hashtags, mut mentions) = (plan.hashtags, plan.mentions);
    let limit = plan.target.saturating_sub(plan.reserved()).max(1);
    loop {
        let roll = rng.unit();
        let entity_fits = text.fits(MAX_TAG, limit);
        if hashtags > 0 && roll < 0.12 && entity_fits {
            hashtags -= 1;
            let tag = hashtag(rng, language, text, "#");
            entities.hashtags.push(tag);
        } else if mentions > 0 && roll < 0.2 && entity_fits {
            mentions -= 1;
            let m = mention(rng, text);
            entities.user_mentions.push(m);
        } else {
            let word = if plan.emoji && rng.chance(0.12) {
                rng.pick(EMOJI)
            } else {
                rng.pick(language.words)
            };
            if !text.fits(word.chars().count(), limit) {
                break;
            }
            text.push_word(language.separator, word);
        }
    }
    let room = MAX_TEXT - plan.reserved();
    for _ in 0..hashtags {
        if text.fits(MAX_TAG, room) {
            let tag = hashtag(rng, language, text, "#");
            entities.hashtags.push(tag);
        }
    }
    for _ in 0..mentions {
        if text.fits(MAX_TAG, room) {
            let m = mention(rng, text);
            entities.user_mentions.push(m);
        }
    }
    if plan.cashtag && text.fits(5, room) {
        let symbol = hashtag(rng, language, text, "$");
        entities.symbols.push(symbol);
    }
}

/// A hashtag (`#`) or cashtag (`$`) appended to the text.
fn hashtag(rng: &mut Rng, language: &Language, text: &mut Text, sign: &str) -> Hashtag {
    let tag = if sign == "$" {
        rng.pick(CASHTAGS).to_string()
    } else if language.code == "en" || rng.chance(0.6) {
        rng.pick(HASHTAGS).to_string()
    } else {
        tag_word(rng, language)
    };
    let indices = text.entity(&format!("{sign}{tag}"));
    Hashtag { text: tag, indices }
}

/// A word of the language that can be a hashtag (letters and digits only).
fn tag_word(rng: &mut Rng, language: &Language) -> String {
    let words: Vec<&str> = language
        .words
        .iter()
        .copied()
        .filter(|w| w.chars().all(char::is_alphanumeric))
        .collect();
    rng.pick(if words.is_empty() { HASHTAGS } else { &words })
        .to_string()
}

fn mention(rng: &mut Rng, text: &mut Text) -> Mention {
    let screen_name = screen_name(rng);
    let indices = text.entity(&format!("@{screen_name}"));
    let id = user_id(rng);
    let language = pick_language(rng);
    Mention {
        name: person_name(rng, language),
        id,
        id_str: id.to_string(),
        screen_name,
        indices,
    }
}

fn tco(rng: &mut Rng) -> String {
    format!("https://t.co/{}", token(rng, 10))
}

/// A shortened link to an article; display_url is the start of the target.
fn link(rng: &mut Rng, text: &mut Text) -> Url {
    let url = tco(rng);
    let indices = text.entity(&url);
    let slug: Vec<&str> = (0..rng.between(1, 5))
        .map(|_| rng.pick(HANDLE_PARTS))
        .collect();
    let expanded = format!(
        "https://{}/{}/{}",
        rng.pick(DOMAINS),
        rng.between(2010, 2018),
        slug.join("-")
    );
    Url {
        display_url: Some(display(&expanded)),
        expanded_url: Some(expanded),
        url,
        indices,
    }
}

/// The link to the quoted status that ends a quote tweet.
fn permalink(rng: &mut Rng, text: &mut Text, quoted: &Tweet) -> Url {
    let url = tco(rng);
    let indices = text.entity(&url);
    let expanded = format!(
        "https://twitter.com/{}/status/{}",
        quoted.user.screen_name, quoted.id
    );
    Url {
        display_url: Some(display(&expanded)),
        expanded_url: Some(expanded),
        url,
        indices,
    }
}

/// A URL without its scheme, cut to 26 code points with an ellipsis like the API does.
fn display(url: &str) -> String {
    let bare = url
        .trim_start_matches("https://")
        .trim_start_matches("www.");
    if bare.chars().count() <= 26 {
        bare.to_string()
    } else {
        bare.chars().take(26).chain(std::iter::once('…')).collect()
    }
}

/// 1–4 photos, or one video or GIF, sharing one t.co link at the end of the text.
fn media(rng: &mut Rng, tweet_id: i64, screen_name: &str, text: &mut Text) -> Vec<Media> {
    let kind = ["photo", "video", "animated_gif"][rng.weighted(&[0.85, 0.10, 0.05])];
    let count = if kind == "photo" {
        1 + rng.weighted(&[0.75, 0.10, 0.05, 0.10])
    } else {
        1
    };
    let url = tco(rng);
    let indices = text.entity(&url);
    let display_url = format!("pic.twitter.com/{}", &url["https://t.co/".len()..]);
    (1..=count)
        .map(|n| {
            let id = tweet_id - (rng.between(1, 5_000) << 22);
            let file = match kind {
                "photo" => format!("pbs.twimg.com/media/{}.jpg", token(rng, 15)),
                _ => format!(
                    "pbs.twimg.com/ext_tw_video_thumb/{id}/pu/img/{}.jpg",
                    token(rng, 16)
                ),
            };
            let path = if kind == "photo" { "photo" } else { "video" };
            Media {
                id,
                id_str: id.to_string(),
                indices: indices.clone(),
                media_url: format!("http://{file}"),
                media_url_https: format!("https://{file}"),
                url: url.clone(),
                display_url: display_url.clone(),
                expanded_url: format!(
                    "https://twitter.com/{screen_name}/status/{tweet_id}/{path}/{n}"
                ),
                r#type: kind.to_string(),
                sizes: sizes(rng),
                source_status_id: None,
                source_status_id_str: None,
            }
        })
        .collect()
}

fn sizes(rng: &mut Rng) -> Sizes {
    let (w, h) = rng.pick(&[
        (2048, 1536),
        (1536, 2048),
        (2048, 1152),
        (1080, 1080),
        (1200, 675),
        (750, 1334),
        (1280, 720),
    ]);
    let fit = |max: i32| {
        let scale = (max as f64 / w.max(h) as f64).min(1.0);
        Size {
            w: (w as f64 * scale).round() as i32,
            h: (h as f64 * scale).round() as i32,
            resize: "fit".into(),
        }
    };
    Sizes {
        thumb: Size {
            w: 150,
            h: 150,
            resize: "crop".into(),
        },
        small: fit(680),
        medium: fit(1200),
        large: fit(2048),
    }
}

fn place(rng: &mut Rng) -> Place {
    let (id, name, full_name, country_code, country, place_type, [west, south, east, north]) =
        rng.pick(PLACES);
    let ring = vec![
        vec![west, south],
        vec![east, south],
        vec![east, north],
        vec![west, north],
    ];
    Place {
        id: id.into(),
        url: format!("https://api.twitter.com/1.1/geo/id/{id}.json"),
        place_type: place_type.into(),
        name: name.into(),
        full_name: full_name.into(),
        country_code: country_code.into(),
        country: country.into(),
        bounding_box: rng.chance(0.95).then(|| BoundingBox {
            r#type: "Polygon".into(),
            coordinates: vec![ring],
        }),
    }
}

/// A point inside the place, with 6 decimals like GPS fixes.
fn point_in(rng: &mut Rng, place: &Place) -> Coordinates {
    let corner = |i: usize, j: usize| {
        place
            .bounding_box
            .as_ref()
            .map_or(0.0, |b| b.coordinates[0][i][j])
    };
    let mut within = |lo: f64, hi: f64| ((lo + rng.unit() * (hi - lo)) * 1e6).round() / 1e6;
    let lon = within(corner(0, 0), corner(1, 0));
    let lat = within(corner(0, 1), corner(2, 1));
    Coordinates {
        r#type: "Point".into(),
        coordinates: vec![lon, lat],
    }
}

/// Fresh statuses of a stream are mostly at zero; embedded ones carry their counts.
fn count(rng: &mut Rng, level: Level, max: u64) -> i32 {
    match level {
        Level::Top if rng.chance(0.9) => 0,
        Level::Top => rng.log_uniform(50) as i32,
        Level::Embedded => rng.log_uniform(max) as i32,
    }
}

/// quote_count and reply_count, present together on streamed statuses.
fn engagement(rng: &mut Rng, level: Level) -> (Option<i32>, Option<i32>) {
    if !rng.chance(0.6) {
        return (None, None);
    }
    (
        Some(count(rng, level, 5_000)),
        Some(count(rng, level, 20_000)),
    )
}

fn display_range(rng: &mut Rng, text: &Text) -> Option<Vec<i32>> {
    rng.chance(0.4).then(|| vec![0, text.chars as i32])
}

fn source(rng: &mut Rng) -> String {
    let shares: Vec<f64> = SOURCES.iter().map(|(_, share)| *share).collect();
    SOURCES[rng.weighted(&shares)].0.to_string()
}

/// Old accounts have small ids, accounts since late 2015 snowflakes.
fn user_id(rng: &mut Rng) -> i64 {
    if rng.chance(0.35) {
        rng.between(1_000_000, 4_000_000_000)
    } else {
        rng.between(700_000_000_000_000_000, 990_000_000_000_000_000)
    }
}

fn token(rng: &mut Rng, len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    (0..len).map(|_| rng.pick(ALPHABET) as char).collect()
}

/// 4–15 characters of [A-Za-z0-9_].
fn screen_name(rng: &mut Rng) -> String {
    let mut name = String::new();
    while name.len() < 4 || (name.len() < 10 && rng.chance(0.5)) {
        if !name.is_empty() && rng.chance(0.2) {
            name.push('_');
        }
        name.push_str(rng.pick(HANDLE_PARTS));
    }
    if rng.chance(0.4) {
        name.push_str(&rng.between(1, 9999).to_string());
    }
    if rng.chance(0.3) {
        name[..1].make_ascii_uppercase();
    }
    name.truncate(15);
    name
}

fn person_name(rng: &mut Rng, language: &Language) -> String {
    let mut name = rng.pick(language.names).to_string();
    if rng.chance(0.6) {
        name.push_str(language.separator);
        name.push_str(rng.pick(language.names));
    }
    if rng.chance(0.1) {
        name.push(' ');
        name.push_str(rng.pick(EMOJI));
    }
    name
}

fn sentence(rng: &mut Rng, language: &Language, max_chars: usize) -> String {
    let mut text = Text::default();
    loop {
        let word = if rng.chance(0.08) {
            rng.pick(EMOJI)
        } else {
            rng.pick(language.words)
        };
        if !text.fits(word.chars().count(), max_chars) {
            return text.text;
        }
        text.push_word(language.separator, word);
    }
}

fn user(rng: &mut Rng, language: &Language, now_ms: i64) -> User {
    let id = user_id(rng);
    let created_ms = rng.between(JAN_2007_MS, now_ms - DAY_MS);
    let zone = rng.chance(0.5).then(|| rng.pick(language.zones));
    let background = rng.chance(0.85).then(|| background_image(rng));
    let image_id = rng.between(100_000_000, 999_999_999_999_999_999);
    let image_name_len = rng.between(8, 16) as usize;
    let image = format!(
        "pbs.twimg.com/profile_images/{image_id}/{}_normal.jpg",
        token(rng, image_name_len)
    );
    let follow = rng.chance(0.9);
    let description_len = rng.between(10, 160) as usize;
    User {
        id,
        id_str: id.to_string(),
        name: person_name(rng, language),
        screen_name: screen_name(rng),
        location: rng
            .chance(0.7)
            .then(|| rng.pick(language.locations).to_string()),
        url: rng.chance(0.4).then(|| tco(rng)),
        description: rng
            .chance(0.85)
            .then(|| sentence(rng, language, description_len)),
        protected: rng.chance(0.01),
        verified: rng.chance(0.02),
        followers_count: rng.log_uniform(5_000_000) as i32,
        friends_count: rng.log_uniform(50_000) as i32,
        listed_count: rng.log_uniform(5_000) as i32,
        favourites_count: rng.log_uniform(300_000) as i32,
        statuses_count: 1 + rng.log_uniform(1_000_000) as i32,
        created_at: twitter_date(created_ms),
        utc_offset: zone.map(|(_, offset)| offset),
        time_zone: zone.map(|(name, _)| name.to_string()),
        geo_enabled: rng.chance(0.35),
        lang: rng.chance(0.95).then(|| language.code.replace("und", "en")),
        contributors_enabled: false,
        is_translator: rng.chance(0.005),
        profile_background_color: rng.pick(PROFILE_COLORS).to_string(),
        profile_background_image_url: background.as_ref().map(|b| format!("http://{b}")),
        profile_background_image_url_https: background.as_ref().map(|b| format!("https://{b}")),
        profile_background_tile: rng.chance(0.15),
        profile_image_url: format!("http://{image}"),
        profile_image_url_https: format!("https://{image}"),
        profile_banner_url: rng.chance(0.6).then(|| {
            format!(
                "https://pbs.twimg.com/profile_banners/{id}/{}",
                created_ms / 1000
            )
        }),
        profile_link_color: rng.pick(PROFILE_COLORS).to_string(),
        profile_sidebar_border_color: rng.pick(PROFILE_COLORS).to_string(),
        profile_sidebar_fill_color: rng.pick(PROFILE_COLORS).to_string(),
        profile_text_color: rng.pick(PROFILE_COLORS).to_string(),
        profile_use_background_image: rng.chance(0.85),
        default_profile: rng.chance(0.4),
        default_profile_image: rng.chance(0.03),
        following: follow.then(|| rng.chance(0.02)),
        follow_request_sent: follow.then_some(false),
        notifications: follow.then_some(false),
    }
}

/// The default theme or an uploaded image, without scheme.
fn background_image(rng: &mut Rng) -> String {
    if rng.chance(0.6) {
        format!(
            "abs.twimg.com/images/themes/theme{}/bg.png",
            rng.between(1, 19)
        )
    } else {
        format!(
            "pbs.twimg.com/profile_background_images/{}/{}.jpeg",
            rng.between(100_000_000, 999_999_999),
            token(rng, 20)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::{from_json, object_hash, write_json_line};

    fn stream(seed: u64, n: u64) -> Vec<Tweet> {
        let mut rng = Rng::new(seed);
        (0..n).map(|i| tweet(&mut rng, i)).collect()
    }

    #[test]
    fn kind_shares_match_the_real_sample() {
        let tweets = stream(1, 20_000);
        for (kind, share) in KIND_SHARES {
            let seen = tweets.iter().filter(|t| t.kind() == kind).count() as f64 / 20_000.0;
            assert!((seen - share).abs() < 0.012, "{kind:?}: {seen} vs {share}");
        }
    }

    #[test]
    fn ids_increase_and_created_at_follows_them() {
        let tweets = stream(2, 2_000);
        assert!(tweets.windows(2).all(|w| w[0].id < w[1].id));
        assert_eq!(tweets[0].created_at, "Fri May 25 13:05:53 +0000 2018");
        for t in &tweets {
            assert_eq!(t.id_str, t.id.to_string());
            for embedded in [&t.retweeted_status, &t.quoted_status]
                .into_iter()
                .flatten()
            {
                assert!(embedded.id < t.id);
            }
        }
    }

    fn slice(text: &str, indices: &[i32]) -> String {
        text.chars()
            .skip(indices[0] as usize)
            .take((indices[1] - indices[0]) as usize)
            .collect()
    }

    /// Every entity's indices select its own text.
    fn check_indices(t: &Tweet) {
        let e = &t.entities;
        for tag in &e.hashtags {
            assert_eq!(
                slice(&t.text, &tag.indices),
                format!("#{}", tag.text),
                "{}",
                t.text
            );
        }
        for symbol in &e.symbols {
            assert_eq!(slice(&t.text, &symbol.indices), format!("${}", symbol.text));
        }
        for m in &e.user_mentions {
            assert_eq!(
                slice(&t.text, &m.indices),
                format!("@{}", m.screen_name),
                "{}",
                t.text
            );
        }
        for u in &e.urls {
            assert_eq!(slice(&t.text, &u.indices), u.url);
        }
        let extended = t
            .extended_entities
            .as_ref()
            .map_or(&[][..], |x| &x.media[..]);
        for m in e.media.iter().flatten().chain(extended) {
            assert_eq!(slice(&t.text, &m.indices), m.url);
        }
        assert_eq!(e.media.is_some(), t.extended_entities.is_some());
    }

    #[test]
    fn texts_fit_and_entities_point_at_their_text() {
        for t in stream(3, 3_000) {
            for s in [
                Some(&t),
                t.retweeted_status.as_deref(),
                t.quoted_status.as_deref(),
            ]
            .into_iter()
            .flatten()
            {
                assert!(s.text.chars().count() <= MAX_TEXT, "{}", s.text);
                check_indices(s);
                if let Some(range) = &s.display_text_range {
                    assert_eq!(range, &[0, s.text.chars().count() as i32]);
                }
            }
            if let Some(original) = &t.retweeted_status {
                assert!(t
                    .text
                    .starts_with(&format!("RT @{}: ", original.user.screen_name)));
            }
        }
    }

    #[test]
    fn optional_fields_have_realistic_frequencies() {
        let tweets = stream(4, 5_000);
        let share =
            |f: &dyn Fn(&Tweet) -> bool| tweets.iter().filter(|t| f(t)).count() as f64 / 5_000.0;
        let near = |seen: f64, expected: f64| {
            assert!((seen - expected).abs() < 0.03, "{seen} vs {expected}")
        };
        near(share(&|t| t.user.location.is_some()), 0.70);
        near(share(&|t| t.user.url.is_some()), 0.40);
        near(share(&|t| t.user.description.is_some()), 0.85);
        near(share(&|t| t.user.utc_offset.is_some()), 0.50);
        near(share(&|t| t.user.profile_banner_url.is_some()), 0.60);
        let with_media = |t: &Tweet| {
            t.retweeted_status
                .as_ref()
                .unwrap_or(&Box::new(t.clone()))
                .extended_entities
                .is_some()
        };
        near(share(&with_media), 0.15);
        assert!(share(&|t| t.place.is_some()) < 0.05);
        assert!(share(&|t| t.lang.as_deref() == Some("en")) > 0.4);
    }

    #[test]
    fn json_round_trip_keeps_the_hash() {
        for t in stream(5, 300) {
            let mut line = Vec::new();
            write_json_line(&t, &mut line);
            let back: Tweet = from_json(&line[..line.len() - 1]).unwrap();
            assert_eq!(object_hash(&back), object_hash(&t));
            assert_eq!(back, t);
        }
    }
}
