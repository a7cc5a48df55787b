//! Tweets in the shape of Twitter API v1.1 statuses (dataset `tweet`).
//!
//! Optionals carry no `#[serde(default)]`: serde reads a missing key as `None` without it, and
//! with it a positional reader (`msgpack_arrays`) would take an array cut short as absent
//! trailing optionals. The nested statuses need it only beside their `deserialize_with`.

model_struct! {
    /// A Twitter API v1.1 status; recursive through `quoted_status` and `retweeted_status`.
    // rkyv: the recursive fields omit their bounds, so the bounds they need are stated here
    #[rkyv(serialize_bounds(
        __S: ::rkyv::ser::Writer + ::rkyv::ser::Allocator,
        __S::Error: ::rkyv::rancor::Source,
    ))]
    #[rkyv(deserialize_bounds(__D::Error: ::rkyv::rancor::Source))]
    #[rkyv(bytecheck(bounds(
        __C: ::rkyv::validation::ArchiveContext,
        __C::Error: ::rkyv::rancor::Source,
    )))]
    pub struct Tweet key(id) recursive {
        pub created_at: String,
        pub id: i64,
        pub id_str: String,
        pub text: String,
        pub source: String,
        pub truncated: bool,
        pub in_reply_to_status_id: Option<i64>,
        pub in_reply_to_user_id: Option<i64>,
        pub in_reply_to_screen_name: Option<String>,
        pub user: User,
        pub coordinates: Option<Coordinates>,
        pub place: Option<Place>,
        pub quoted_status_id: Option<i64>,
        pub is_quote_status: bool,
        #[serde(default, deserialize_with = "crate::nesting::nested")]
        #[rkyv(omit_bounds)]
        pub quoted_status: Option<Box<Tweet>>,
        #[serde(default, deserialize_with = "crate::nesting::nested")]
        #[rkyv(omit_bounds)]
        pub retweeted_status: Option<Box<Tweet>>,
        pub quote_count: Option<i32>,
        pub reply_count: Option<i32>,
        pub retweet_count: i32,
        pub favorite_count: i32,
        pub entities: Entities,
        pub extended_entities: Option<ExtendedEntities>,
        pub favorited: bool,
        pub retweeted: bool,
        pub possibly_sensitive: Option<bool>,
        pub filter_level: Option<String>,
        pub lang: Option<String>,
        pub display_text_range: Option<Vec<i32>>,
    }
}

model_struct! {
    pub struct User {
        pub id: i64,
        pub id_str: String,
        pub name: String,
        pub screen_name: String,
        pub location: Option<String>,
        pub url: Option<String>,
        pub description: Option<String>,
        pub protected: bool,
        pub verified: bool,
        pub followers_count: i32,
        pub friends_count: i32,
        pub listed_count: i32,
        pub favourites_count: i32,
        pub statuses_count: i32,
        pub created_at: String,
        pub utc_offset: Option<i32>,
        pub time_zone: Option<String>,
        pub geo_enabled: bool,
        pub lang: Option<String>,
        pub contributors_enabled: bool,
        pub is_translator: bool,
        pub profile_background_color: String,
        pub profile_background_image_url: Option<String>,
        pub profile_background_image_url_https: Option<String>,
        pub profile_background_tile: bool,
        pub profile_image_url: String,
        pub profile_image_url_https: String,
        pub profile_banner_url: Option<String>,
        pub profile_link_color: String,
        pub profile_sidebar_border_color: String,
        pub profile_sidebar_fill_color: String,
        pub profile_text_color: String,
        pub profile_use_background_image: bool,
        pub default_profile: bool,
        pub default_profile_image: bool,
        pub following: Option<bool>,
        pub follow_request_sent: Option<bool>,
        pub notifications: Option<bool>,
    }
}

model_struct! {
    /// Entities of a tweet; `symbols` ($cashtags) share the hashtag shape.
    pub struct Entities {
        pub hashtags: Vec<Hashtag>,
        pub symbols: Vec<Hashtag>,
        pub urls: Vec<Url>,
        pub user_mentions: Vec<Mention>,
        pub media: Option<Vec<Media>>,
    }
}

model_struct! {
    pub struct Hashtag {
        pub text: String,
        pub indices: Vec<i32>,
    }
}

model_struct! {
    pub struct Url {
        pub url: String,
        pub expanded_url: Option<String>,
        pub display_url: Option<String>,
        pub indices: Vec<i32>,
    }
}

model_struct! {
    pub struct Mention {
        pub screen_name: String,
        pub name: String,
        pub id: i64,
        pub id_str: String,
        pub indices: Vec<i32>,
    }
}

model_struct! {
    pub struct Media {
        pub id: i64,
        pub id_str: String,
        pub indices: Vec<i32>,
        pub media_url: String,
        pub media_url_https: String,
        pub url: String,
        pub display_url: String,
        pub expanded_url: String,
        pub r#type: String,
        pub sizes: Sizes,
        pub source_status_id: Option<i64>,
        pub source_status_id_str: Option<String>,
    }
}

model_struct! {
    pub struct Sizes {
        pub thumb: Size,
        pub small: Size,
        pub medium: Size,
        pub large: Size,
    }
}

model_struct! {
    pub struct Size {
        pub w: i32,
        pub h: i32,
        pub resize: String,
    }
}

model_struct! {
    pub struct ExtendedEntities {
        pub media: Vec<Media>,
    }
}

model_struct! {
    pub struct Place {
        pub id: String,
        pub url: String,
        pub place_type: String,
        pub name: String,
        pub full_name: String,
        pub country_code: String,
        pub country: String,
        pub bounding_box: Option<BoundingBox>,
    }
}

model_struct! {
    /// A GeoJSON polygon: `coordinates` is rings of [longitude, latitude] points.
    pub struct BoundingBox {
        pub r#type: String,
        pub coordinates: Vec<Vec<Vec<f64>>>,
    }
}

model_struct! {
    /// A GeoJSON point: [longitude, latitude].
    pub struct Coordinates {
        pub r#type: String,
        pub coordinates: Vec<f64>,
    }
}
/// The four kinds of statuses whose shares the generator reproduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TweetKind {
    Plain,
    Retweet,
    Quote,
    RetweetOfQuote,
}

impl TweetKind {
    pub const ALL: [TweetKind; 4] = [
        TweetKind::Plain,
        TweetKind::Retweet,
        TweetKind::Quote,
        TweetKind::RetweetOfQuote,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TweetKind::Plain => "plain",
            TweetKind::Retweet => "retweet",
            TweetKind::Quote => "quote",
            TweetKind::RetweetOfQuote => "retweet_of_quote",
        }
    }
}

impl Tweet {
    /// A retweet counts as a retweet of a quote when the retweeted status quotes another one;
    /// otherwise a quoted status makes a quote.
    pub fn kind(&self) -> TweetKind {
        match (&self.retweeted_status, &self.quoted_status) {
            (Some(rt), _) if rt.quoted_status.is_some() => TweetKind::RetweetOfQuote,
            (Some(_), _) => TweetKind::Retweet,
            (None, Some(_)) => TweetKind::Quote,
            (None, None) => TweetKind::Plain,
        }
    }
}
