//! Where an action's time goes inside the server (issue 28): the server's histogram
//! `fugitive_action_stage_seconds{stage}` read from `/metrics` before and after a block, and
//! its quantiles over the block.
//!
//! A Prometheus histogram keeps only counts per bucket, so a quantile here is the upper bound
//! of the bucket it falls in (the server's buckets are fine below 10 ms): "p99 ≤ 3 ms".

use std::collections::BTreeMap;

/// The server's metric.
const METRIC: &str = "fugitive_action_stage_seconds_bucket";

/// Each stage's cumulative bucket counts: (upper bound in seconds, count at or below it).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stages {
    buckets: BTreeMap<String, Vec<(f64, f64)>>,
}

impl Stages {
    /// Reads the stages out of a `/metrics` text; a server without them gives none.
    pub fn parse(text: &str) -> Stages {
        let mut buckets: BTreeMap<String, Vec<(f64, f64)>> = BTreeMap::new();
        for line in text.lines() {
            let Some(rest) = line.strip_prefix(METRIC).and_then(|rest| rest.strip_prefix('{')) else {
                continue;
            };
            let Some((labels, value)) = rest.split_once("} ") else { continue };
            let (Some(stage), Some(le)) = (label(labels, "stage"), label(labels, "le")) else { continue };
            let le = if le == "+Inf" { f64::INFINITY } else { le.parse().unwrap_or(f64::NAN) };
            let (Ok(count), false) = (value.trim().parse::<f64>(), le.is_nan()) else { continue };
            buckets.entry(stage.to_string()).or_default().push((le, count));
        }
        for counts in buckets.values_mut() {
            counts.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        Stages { buckets }
    }

    /// What was counted since `before`.
    pub fn since(&self, before: &Stages) -> Stages {
        let buckets = self
            .buckets
            .iter()
            .map(|(stage, counts)| {
                let earlier = before.buckets.get(stage);
                let counts = counts
                    .iter()
                    .map(|&(le, count)| {
                        let was =
                            earlier.and_then(|e| e.iter().find(|(l, _)| *l == le)).map_or(0.0, |(_, c)| *c);
                        (le, count - was)
                    })
                    .collect();
                (stage.clone(), counts)
            })
            .collect();
        Stages { buckets }
    }

    /// Adds another block's counts.
    pub fn merge(&mut self, other: &Stages) {
        for (stage, counts) in &other.buckets {
            let mine = self
                .buckets
                .entry(stage.clone())
                .or_insert_with(|| counts.iter().map(|&(le, _)| (le, 0.0)).collect());
            for (le, count) in counts {
                if let Some(slot) = mine.iter_mut().find(|(l, _)| l == le) {
                    slot.1 += count;
                }
            }
        }
    }

    /// The stages, in the server's order where known.
    pub fn names(&self) -> Vec<&str> {
        const ORDER: [&str; 11] = [
            "queue",
            "step",
            "writer_queue",
            "db",
            "db_cpu",
            "db_runqueue",
            "commit",
            "resume",
            "publish",
            "mailbox",
            "socket_write",
        ];
        let mut names: Vec<&str> = self.buckets.keys().map(String::as_str).collect();
        names.sort_by_key(|name| ORDER.iter().position(|o| o == name).unwrap_or(ORDER.len()));
        names
    }

    /// How many were counted in `stage`.
    pub fn count(&self, stage: &str) -> u64 {
        self.buckets.get(stage).and_then(|c| c.last()).map_or(0, |(_, count)| *count as u64)
    }

    /// The upper bound (seconds) of the bucket the `quantile` of `stage` falls in; `None` when
    /// nothing was counted.
    pub fn quantile(&self, stage: &str, quantile: f64) -> Option<f64> {
        let counts = self.buckets.get(stage)?;
        let total = counts.last()?.1;
        if total <= 0.0 {
            return None;
        }
        let rank = (quantile * total).ceil().max(1.0);
        counts.iter().find(|(_, count)| *count >= rank).map(|(le, _)| *le)
    }
}

/// The value of `name="…"` in a Prometheus label set.
fn label<'a>(labels: &'a str, name: &str) -> Option<&'a str> {
    labels.split(',').find_map(|pair| pair.strip_prefix(name)?.strip_prefix("=\"")?.strip_suffix('"'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "\
fugitive_action_stage_seconds_bucket{stage=\"db\",le=\"0.001\"} 10
fugitive_action_stage_seconds_bucket{stage=\"db\",le=\"0.005\"} 10
fugitive_action_stage_seconds_bucket{stage=\"db\",le=\"+Inf\"} 10
fugitive_action_stage_seconds_sum{stage=\"db\"} 0.004
fugitive_commit_seconds_bucket{le=\"0.001\"} 3
";

    const AFTER: &str = "\
fugitive_action_stage_seconds_bucket{stage=\"db\",le=\"0.001\"} 100
fugitive_action_stage_seconds_bucket{stage=\"db\",le=\"0.005\"} 198
fugitive_action_stage_seconds_bucket{stage=\"db\",le=\"+Inf\"} 210
fugitive_action_stage_seconds_bucket{stage=\"queue\",le=\"0.001\"} 5
fugitive_action_stage_seconds_bucket{stage=\"queue\",le=\"+Inf\"} 5
";

    #[test]
    fn the_quantiles_of_a_block_are_the_bounds_of_their_buckets() {
        let block = Stages::parse(AFTER).since(&Stages::parse(BEFORE));
        assert_eq!(block.count("db"), 200);
        // 90 of 200 at or below 1 ms, 188 at or below 5 ms, 12 above.
        assert_eq!(block.quantile("db", 0.45), Some(0.001));
        assert_eq!(block.quantile("db", 0.5), Some(0.005));
        assert_eq!(block.quantile("db", 0.94), Some(0.005));
        assert_eq!(block.quantile("db", 0.99), Some(f64::INFINITY));
        assert_eq!(block.quantile("queue", 0.99), Some(0.001));
        assert_eq!(block.quantile("mailbox", 0.99), None);
        assert_eq!(block.names(), ["queue", "db"]);
    }

    #[test]
    fn blocks_add_up() {
        let block = Stages::parse(AFTER).since(&Stages::parse(BEFORE));
        let mut both = block.clone();
        both.merge(&block);
        assert_eq!(both.count("db"), 400);
        assert_eq!(both.count("queue"), 10);
        assert_eq!(both.quantile("db", 0.5), Some(0.005));
    }

    #[test]
    fn a_server_without_the_metric_has_no_stages() {
        assert_eq!(Stages::parse("fugitive_commit_seconds_bucket{le=\"0.001\"} 3\n"), Stages::default());
    }
}
