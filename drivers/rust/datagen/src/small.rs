//! Generators of the small models: trade, org, arrays.

use serbench_model::{Arrays, Attr, Org, OrgType, Trade};

use crate::rng::Rng;

/// Object 0 is the reference instance of the micro comparisons; the rest are random.
pub fn trade(rng: &mut Rng, index: u64) -> Trade {
    if index == 0 {
        return reference_trade();
    }
    Trade {
        source_id: rng.between(1, 1_000_000_000),
        special: rng.chance(0.5),
        order_code: rng.between(0, 99_999) as i32,
        priority: rng.between(0, 9) as i32,
        prices: (0..10).map(|_| cents(rng.between(1, 1_000_000))).collect(),
        quantities: (0..10).map(|_| rng.between(1, 10_000)).collect(),
    }
}

/// Prices 0.1 … 1.0 and quantities 1 … 10.
pub fn reference_trade() -> Trade {
    Trade {
        source_id: 1,
        special: true,
        order_code: 7,
        priority: 3,
        // i/10 with both operands exact is the double nearest to the decimal, so JSON
        // prints 0.3 rather than 0.30000000000000004.
        prices: (1..=10).map(|i| i as f64 / 10.0).collect(),
        quantities: (1..=10).collect(),
    }
}

/// An amount with two decimals, printed as such in JSON (k/100 is the nearest double).
pub fn cents(k: i64) -> f64 {
    k as f64 / 100.0
}

const CATEGORIES: &[&str] = &[
    "retail",
    "manufacturing",
    "logistics",
    "financial services",
    "healthcare",
    "education",
    "software",
    "telecommunications",
    "energy",
    "agriculture",
    "hospitality",
    "construction",
    "media and entertainment",
    "pharmaceuticals",
    "automotive",
    "non-profit",
];

const COUNTRIES: &[&str] = &[
    "United States",
    "Germany",
    "France",
    "United Kingdom",
    "Japan",
    "Brazil",
    "India",
    "Canada",
    "Australia",
    "Spain",
    "Italy",
    "Mexico",
    "South Korea",
    "Netherlands",
    "Sweden",
    "Switzerland",
    "Côte d'Ivoire",
    "Türkiye",
    "South Africa",
    "Argentina",
];

const SYLLABLES: &[&str] = &[
    "ac", "me", "glo", "bex", "tri", "ton", "vel", "ora", "nex", "qua", "lis", "dyn", "amo", "zen",
    "cor", "pol", "sta", "rix", "ver", "tek", "ion", "mar", "sol", "ka",
];

const SUFFIXES: &[&str] = &[
    "Inc.",
    "Ltd",
    "GmbH",
    "S.A.",
    "Group",
    "Holdings",
    "Corporation",
    "Partners",
    "AG",
    "LLC",
];

/// 40–70 attributes, type uniform over FOO/BAR/BAZ.
pub fn org(rng: &mut Rng, _index: u64) -> Org {
    let attributes = rng.between(40, 70);
    Org {
        name: company_name(rng),
        category: rng.pick(CATEGORIES).to_string(),
        country: rng.pick(COUNTRIES).to_string(),
        r#type: rng.pick(&OrgType::ALL),
        attributes: (0..attributes).map(|_| attr(rng)).collect(),
    }
}

fn company_name(rng: &mut Rng) -> String {
    let mut name = String::new();
    for _ in 0..rng.between(1, 2) {
        for s in 0..rng.between(2, 4) {
            let syllable = rng.pick(SYLLABLES);
            if s == 0 {
                name.push_str(&syllable[..1].to_uppercase());
                name.push_str(&syllable[1..]);
            } else {
                name.push_str(syllable);
            }
        }
        name.push(' ');
    }
    name.push_str(rng.pick(SUFFIXES));
    name
}

fn attr(rng: &mut Rng) -> Attr {
    Attr {
        id: format!("attr-{}", rng.between(0, 999_999)),
        quantity: rng.between(i8::MIN as i64, i8::MAX as i64) as i8,
        amount: rng.between(i8::MIN as i64, i8::MAX as i64) as i8,
        active: rng.chance(0.5),
        percent: cents(rng.between(0, 9_999)),
        size: rng.between(i16::MIN as i64, i16::MAX as i64) as i16,
    }
}

/// `k` times "Dummy text" and `k` zeros.
pub fn arrays(k: usize) -> Arrays {
    Arrays {
        strings: vec!["Dummy text".to_string(); k],
        ints: vec![0; k],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_trade_prints_short_decimals() {
        let json = serde_json::to_string(&trade(&mut Rng::new(1), 0)).unwrap();
        assert_eq!(
            json,
            r#"{"source_id":1,"special":true,"order_code":7,"priority":3,"prices":[0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0],"quantities":[1,2,3,4,5,6,7,8,9,10]}"#
        );
    }

    #[test]
    fn random_trades_have_ten_prices_and_quantities() {
        let t = trade(&mut Rng::new(1), 5);
        assert_eq!((t.prices.len(), t.quantities.len()), (10, 10));
    }

    #[test]
    fn orgs_have_40_to_70_attributes_and_every_type() {
        let mut rng = Rng::new(3);
        let orgs: Vec<Org> = (0..300).map(|i| org(&mut rng, i)).collect();
        assert!(orgs.iter().all(|o| (40..=70).contains(&o.attributes.len())));
        for t in OrgType::ALL {
            assert!(orgs.iter().any(|o| o.r#type == t));
        }
        let percent = orgs.iter().flat_map(|o| &o.attributes).map(|a| a.percent);
        assert!(percent.clone().all(|p| (0.0..100.0).contains(&p)));
    }

    #[test]
    fn arrays_repeat_the_dummy_text() {
        let a = arrays(3);
        assert_eq!(a.strings, ["Dummy text"; 3]);
        assert_eq!(a.ints, [0; 3]);
    }
}
