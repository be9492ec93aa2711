//! `--balance OUT REPORT…`: the balance a player can expect of each event variant, both
//! computer players `hard` (issue 29, goal 4), written as the web client's `balance.js` from the
//! reports of `fugitive-sim --fugitive hard --marshal hard --events V`, so a long run can be
//! played in pieces (`--first`) and the table rebuilt from every piece. A module, not a JSON
//! file: the server serves the client's scripts, not its data files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::wilson;

/// One piece: its variant (as the report names it), seed, first game, games and the wins.
#[derive(Debug, PartialEq, Eq)]
struct Piece {
    events: String,
    seed: u64,
    first: usize,
    games: usize,
    fugitive: usize,
    marshal: usize,
}

/// Reads a report of one hard-against-hard run (its first lines, as `report` writes them).
fn read(text: &str) -> Result<Piece> {
    let mut lines = text.lines();
    let head = lines.next().context("an empty report")?;
    let field = |after: &str| -> Result<&str> {
        let rest = head.split_once(after).with_context(|| format!("no {after:?} in {head:?}"))?.1;
        Ok(rest.split([',', ' ']).next().unwrap_or_default())
    };
    if !head.contains("Fugitive hard vs Marshal hard") {
        bail!("not a run of hard against hard: {head:?}");
    }
    let games: usize = head.split(' ').next().unwrap_or_default().parse().context("the games")?;
    let wins = |role: &str| -> Result<usize> {
        let line = text
            .lines()
            .find(|l| l.starts_with(role) && l.contains(" wins "))
            .with_context(|| format!("no wins of the {role}"))?;
        let k = line.split_once(" wins ").map(|(_, r)| r.trim_start()).unwrap_or_default();
        Ok(k.split(' ').next().unwrap_or_default().parse()?)
    };
    Ok(Piece {
        events: field("events ")?.to_string(),
        seed: field("seed ")?.parse()?,
        first: field("from game ")?.parse()?,
        games,
        fugitive: wins("Fugitive")?,
        marshal: wins("Marshal")?,
    })
}

/// The rules' name of a variant as the report spells it (`HelpfulFugitive`).
fn rule_name(events: &str) -> Result<&'static str> {
    Ok(match events {
        "Off" => "off",
        "Random" => "random",
        "Discovery" => "discovery",
        "HelpfulFugitive" => "helpful:fugitive",
        "HelpfulMarshal" => "helpful:marshal",
        "Catchup" => "catchup",
        _ => bail!("no event variant {events:?}"),
    })
}

/// The module's text from the pieces: per variant, the games, each side's wins and Wilson
/// interval (percent, one decimal), and the seeds. Overlapping pieces of a seed are refused.
fn module(pieces: &[Piece]) -> Result<String> {
    let mut by: BTreeMap<&str, Vec<&Piece>> = BTreeMap::new();
    for piece in pieces {
        by.entry(rule_name(&piece.events)?).or_default().push(piece);
    }
    let mut entries = Vec::new();
    for (name, pieces) in &by {
        let mut ranges: Vec<(u64, usize, usize)> =
            pieces.iter().map(|p| (p.seed, p.first, p.first + p.games)).collect();
        ranges.sort();
        if ranges.windows(2).any(|w| w[0].0 == w[1].0 && w[1].1 < w[0].2) {
            bail!("overlapping pieces of {name}: {ranges:?}");
        }
        let games: usize = pieces.iter().map(|p| p.games).sum();
        let side = |k: usize| {
            let (low, high) = wilson(k, games);
            format!(
                "{{ wins: {k}, percent: {:.1}, low: {:.1}, high: {:.1} }}",
                100.0 * k as f64 / games as f64,
                100.0 * low,
                100.0 * high
            )
        };
        let mut seeds: Vec<u64> = pieces.iter().map(|p| p.seed).collect();
        seeds.sort_unstable();
        seeds.dedup();
        // As the web's formatter writes it (prettier: single quotes, bare keys where they may be).
        let key = if name.contains(':') { format!("'{name}'") } else { (*name).to_string() };
        entries.push(format!(
            "  {key}: {{\n    games: {games},\n    seeds: {seeds:?},\n    marshal: {},\n    fugitive: {},\n  }},\n",
            side(pieces.iter().map(|p| p.marshal).sum()),
            side(pieces.iter().map(|p| p.fugitive).sum()),
        ));
    }
    Ok(format!(
        "// Who wins how often with each event variant when both computer players are `hard`: the balance a\n\
         // player can expect (issue 29, goal 4; BENCHMARKS.md). Written by `fugitive-sim --balance`\n\
         // from its reports; do not edit by hand.\n\
         export const BALANCE = {{\n{}}};\n",
        entries.concat()
    ))
}

/// Writes `out` from the reports.
pub(crate) fn write(out: &Path, reports: &[PathBuf]) -> Result<()> {
    if reports.is_empty() {
        bail!("--balance needs the reports of hard-against-hard runs");
    }
    let pieces = reports
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).with_context(|| format!("{}", path.display()))?;
            read(&text).with_context(|| format!("{}", path.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    std::fs::write(out, module(&pieces)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "100 games from game 200, Fugitive hard vs Marshal hard, seed 1, events HelpfulFugitive, opening OneOrTwo, pass bonus off, rollouts the level's, budget none wall, 150 ms CPU, cap 800 ms\n\
        Fugitive  wins     31 / 100   31.0%  95% CI [22.8%, 40.6%]\n\
        Marshal   wins     69 / 100   69.0%  95% CI [59.4%, 77.2%]\n";

    #[test]
    fn a_report_is_read_back() {
        let piece = read(REPORT).unwrap();
        let expected = Piece {
            events: "HelpfulFugitive".into(),
            seed: 1,
            first: 200,
            games: 100,
            fugitive: 31,
            marshal: 69,
        };
        assert_eq!(piece, expected);
        assert!(read(&REPORT.replace("Fugitive hard", "Fugitive easy")).is_err());
    }

    #[test]
    fn pieces_add_up_and_may_not_overlap() {
        let a = read(REPORT).unwrap();
        let b = read(
            &REPORT
                .replace("from game 200", "from game 300")
                .replace("31 / 100", "19 / 100")
                .replace("69 / 100", "81 / 100"),
        )
        .unwrap();
        let text = module(&[a, b]).unwrap();
        assert!(text.contains("'helpful:fugitive': {"), "{text}");
        assert!(text.contains("games: 200,"), "{text}");
        assert!(text.contains("wins: 50, percent: 25.0"), "{text}");
        assert!(text.contains("wins: 150, percent: 75.0"), "{text}");
        let again = read(REPORT).unwrap();
        assert!(module(&[read(REPORT).unwrap(), again]).is_err());
    }
}
