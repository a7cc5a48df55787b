//! The one-line JSON summary that `checksum` and every generator print: set checksum,
//! distinct hashes, sizes and, for tweets, the kind mix.

use std::any::Any;

use serbench_model::{hex64, object_hash, ModelId, ModelType, SetChecksum, Tweet, TweetKind};
use serde::Serialize;

#[derive(Clone, Debug)]
pub struct Summary {
    model: ModelId,
    set: SetChecksum,
    hashes: Vec<u64>,
    /// Lines plus their newlines; `checksum` replaces it with the file size.
    pub bytes: u64,
    object_bytes: u64,
    max_object_bytes: u64,
    kinds: [u64; 4],
}

impl Summary {
    pub fn new(model: ModelId) -> Self {
        Summary {
            model,
            set: SetChecksum::default(),
            hashes: Vec::new(),
            bytes: 0,
            object_bytes: 0,
            max_object_bytes: 0,
            kinds: [0; 4],
        }
    }

    /// Counts one object whose JSON line is `line_len` bytes long without the newline.
    pub fn add<M: ModelType>(&mut self, object: &M, line_len: usize) {
        let hash = object_hash(object);
        self.set.add(hash);
        self.hashes.push(hash);
        self.bytes += line_len as u64 + 1;
        self.object_bytes += line_len as u64;
        self.max_object_bytes = self.max_object_bytes.max(line_len as u64);
        if let Some(tweet) = (object as &dyn Any).downcast_ref::<Tweet>() {
            self.kinds[tweet.kind() as usize] += 1;
        }
    }

    pub fn merge(&mut self, other: Summary) {
        self.set.merge(other.set);
        self.hashes.extend(other.hashes);
        self.bytes += other.bytes;
        self.object_bytes += other.object_bytes;
        self.max_object_bytes = self.max_object_bytes.max(other.max_object_bytes);
        for (mine, theirs) in self.kinds.iter_mut().zip(other.kinds) {
            *mine += theirs;
        }
    }

    /// The summary of every object repeated `r` times (the hashes stay, so do the distinct).
    pub fn repeated(mut self, r: u64) -> Summary {
        self.set = SetChecksum {
            count: self.set.count * r,
            sum: self.set.sum.wrapping_mul(r),
        };
        self.bytes *= r;
        self.object_bytes *= r;
        self.kinds = self.kinds.map(|k| k * r);
        self
    }

    /// Object hashes in the order the objects were added (merges keep the order too).
    pub fn hashes(&self) -> &[u64] {
        &self.hashes
    }

    fn kind_count(&self, kind: TweetKind) -> u64 {
        self.kinds[kind as usize]
    }

    fn distinct(&self) -> u64 {
        let mut hashes = self.hashes.clone();
        hashes.sort_unstable();
        hashes.dedup();
        hashes.len() as u64
    }

    pub fn to_json(&self) -> String {
        let count = self.set.count;
        let report = Report {
            model: self.model.name(),
            count,
            sum: hex64(self.set.sum),
            distinct: self.distinct(),
            bytes: self.bytes,
            max_object_bytes: self.max_object_bytes,
            mean_object_bytes: if count == 0 {
                0.0
            } else {
                self.object_bytes as f64 / count as f64
            },
            kinds: (self.model == ModelId::Tweet).then(|| Kinds {
                plain: self.kind_count(TweetKind::Plain),
                retweet: self.kind_count(TweetKind::Retweet),
                quote: self.kind_count(TweetKind::Quote),
                retweet_of_quote: self.kind_count(TweetKind::RetweetOfQuote),
            }),
        };
        serde_json::to_string(&report).expect("a summary always serializes")
    }
}

#[derive(Serialize)]
struct Report<'a> {
    model: &'a str,
    count: u64,
    sum: String,
    distinct: u64,
    bytes: u64,
    max_object_bytes: u64,
    mean_object_bytes: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    kinds: Option<Kinds>,
}

#[derive(Serialize)]
struct Kinds {
    plain: u64,
    retweet: u64,
    quote: u64,
    retweet_of_quote: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serbench_model::Arrays;

    fn arrays(k: usize) -> Arrays {
        Arrays {
            strings: vec!["x".into(); k],
            ints: vec![0; k],
        }
    }

    #[test]
    fn summary_json_has_every_field_in_order() {
        let mut summary = Summary::new(ModelId::Arrays);
        summary.add(&arrays(1), 10);
        summary.add(&arrays(1), 20);
        let mut other = Summary::new(ModelId::Arrays);
        other.add(&arrays(2), 3);
        summary.merge(other);
        let h1 = object_hash(&arrays(1));
        let sum = h1.wrapping_mul(2).wrapping_add(object_hash(&arrays(2)));
        assert_eq!(
            summary.to_json(),
            format!(
                r#"{{"model":"arrays","count":3,"sum":"{}","distinct":2,"bytes":36,"max_object_bytes":20,"mean_object_bytes":11.0}}"#,
                hex64(sum)
            )
        );
        let repeated = summary.repeated(2).to_json();
        assert!(repeated.contains(r#""count":6,"#) && repeated.contains(r#""distinct":2,"#));
        assert!(repeated.contains(&format!(r#""sum":"{}""#, hex64(sum.wrapping_mul(2)))));
    }

    #[test]
    fn empty_summary_has_zero_mean_and_tweets_have_kinds() {
        let json = Summary::new(ModelId::Tweet).to_json();
        assert!(json.ends_with(
            r#""mean_object_bytes":0.0,"kinds":{"plain":0,"retweet":0,"quote":0,"retweet_of_quote":0}}"#
        ));
    }
}
