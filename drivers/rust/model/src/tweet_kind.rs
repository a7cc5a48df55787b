//! The kinds of statuses of the built-in tweet model, which its generator and summary count
//! (the model's own type is generated with the others).

use crate::Tweet;

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
