//! What `hexforge balance` shows of a series the lab played (`hexforge_lab`): the terminal
//! tables (each pairing with 95% Wilson intervals, each army overall, the first seat, the bots,
//! the tiles that most over- and under-perform), the diff of a tweak, result files read, the
//! CSV, the SVG charts and the HTML report (docs/BALANCE.md).

use anyhow::{Context as _, Result, bail};
use hexforge_lab::{FORMAT, Progress, Results, Setup, Shift, TileImpact};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// Plays `setup`'s series through the lab with a progress bar on the terminal's error stream
/// (none when it is not a terminal).
pub fn run<H: hexforge_core::AbilityHooks>(
    setup: &Setup<'_>,
    catalog: hexforge_core::Catalog,
    scripts: impl Fn() -> H + Sync + Send,
) -> Result<(Results, Vec<String>)> {
    let progress = Progress::default();
    let total = setup.games_played() as usize;
    let show = std::io::stderr().is_terminal() && total > 0;
    let finished = std::sync::atomic::AtomicBool::new(false);
    let played = std::thread::scope(|s| {
        if show {
            s.spawn(|| {
                while !finished.load(std::sync::atomic::Ordering::Relaxed) {
                    crate::matches::progress_bar(progress.done() as usize, total + 1);
                    std::thread::sleep(std::time::Duration::from_millis(200));
                }
                crate::matches::progress_bar(total, total);
            });
        }
        let played = hexforge_lab::run(setup, catalog, scripts, &progress);
        finished.store(true, std::sync::atomic::Ordering::Relaxed);
        played
    });
    Ok(played?)
}

/// Reads a result file.
pub fn read(path: &Path) -> Result<Results> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let r: Results = serde_json::from_str(&text).with_context(|| {
        format!(
            "{} is not a balance result file (written by `hexforge balance --shard I/N --out FILE`)",
            path.display()
        )
    })?;
    if r.format != FORMAT {
        bail!(
            "{}: format `{}`, this Hexforge reads `{FORMAT}`: play the shard again with this version",
            path.display(),
            r.format
        );
    }
    Ok(r)
}

/// A percentage with its 95% interval: `52.3% (48.1-56.5)`.
fn rate(wins: u64, n: u64) -> String {
    hexforge_lab::percent(wins, n)
}

/// The tables of `r`: each pairing, each army overall, the first seat, the bots.
pub fn print(out: &mut impl Write, r: &Results) -> Result<()> {
    let played: u64 = r.pairings.iter().map(|p| p.games).sum();
    // A part of a series says which part (merged shards that make the whole say nothing).
    let part = if r.shards.len() < r.shards_of as usize {
        let list: Vec<String> = r.shards.iter().map(ToString::to_string).collect();
        format!(" (shard {} of {})", list.join(", "), r.shards_of)
    } else {
        String::new()
    };
    writeln!(
        out,
        "{played} games{part}; bots {} vs {}; rules {}; seed {}; 95% intervals (Wilson)",
        r.bots[0], r.bots[1], r.rules, r.seed
    )?;
    writeln!(
        out,
        "{:<26} {:>6} {:>22} {:>6} {:>7} {:>8}",
        "pairing A vs B", "games", "A win% (95%)", "draws", "turns", "margin"
    )?;
    for p in &r.pairings {
        let decided = p.a_wins + p.b_wins;
        writeln!(
            out,
            "{:<26} {:>6} {:>22} {:>6} {:>7.1} {:>8.1}",
            format!("{} vs {}", r.armies[p.a], r.armies[p.b]),
            p.games,
            rate(p.a_wins, p.games),
            p.draws(),
            if p.games == 0 {
                0.0
            } else {
                p.turns as f64 / p.games as f64
            },
            if decided == 0 {
                0.0
            } else {
                p.margin as f64 / decided as f64
            }
        )?;
    }
    writeln!(out)?;
    writeln!(out, "{:<14} {:>6} {:>22}", "army", "games", "win% (95%)")?;
    for (i, army) in r.armies.iter().enumerate() {
        let (mut n, mut w) = (0, 0);
        for p in &r.pairings {
            if p.a == i {
                n += p.games;
                w += p.a_wins;
            } else if p.b == i {
                n += p.games;
                w += p.b_wins;
            }
        }
        writeln!(out, "{army:<14} {n:>6} {:>22}", rate(w, n))?;
    }
    let first: u64 = r.pairings.iter().map(|p| p.first_seat_wins).sum();
    writeln!(out)?;
    writeln!(out, "first seat wins {}", rate(first, played))?;
    tiles(out, r)?;
    if r.bots[0] != r.bots[1] {
        writeln!(
            out,
            "bots: {} wins {}, {} wins {}, {} draws",
            r.bots[0],
            rate(r.by_bot[0], played),
            r.bots[1],
            rate(r.by_bot[1], played),
            r.by_bot[2]
        )?;
    }
    Ok(())
}

/// Compares two runs of the same series (the same seeds, armies and bots) on two contents: for
/// each pairing the first army's win rate before and after, the change's 95% margin (two
/// proportions, normal approximation) and whether it is beyond noise.
pub fn print_diff(
    out: &mut impl Write,
    before: &Results,
    after: &Results,
    changes: &[String],
) -> Result<()> {
    writeln!(out, "What changed:")?;
    if changes.is_empty() {
        writeln!(
            out,
            "  no tile of these armies differs (scripts or rules may)"
        )?;
    }
    for c in changes {
        writeln!(out, "  {c}")?;
    }
    writeln!(
        out,
        "Pairings ({} games each way, the same seeds; A's win% before -> after, 95% margin):",
        before.pairings.iter().map(|p| p.games).sum::<u64>()
    )?;
    for (b, a) in before.pairings.iter().zip(&after.pairings) {
        let s = Shift::of(b.a_wins, b.games, a.a_wins, a.games);
        let verdict = if s.significant {
            "significant"
        } else {
            "within noise"
        };
        writeln!(
            out,
            "  {} vs {}: {:.1}% -> {:.1}% ({:+.1} ±{:.1}), {verdict}",
            before.armies[b.a],
            before.armies[b.b],
            100.0 * s.before,
            100.0 * s.after,
            100.0 * s.change,
            100.0 * s.margin
        )?;
    }
    Ok(())
}

/// How many games a tile needs placed and not placed before it is ranked.
const MIN_TILE_GAMES: u64 = 20;

/// The tiles that most over- and under-perform: the win rate of their player when they were
/// placed minus when they were not (each with its interval), with their HQ damage, kills and
/// discards per game; five of each at most (a tile whose rate does not move is in neither), among
/// tiles with [`MIN_TILE_GAMES`] games both ways.
fn tiles(out: &mut impl Write, r: &Results) -> Result<()> {
    let mut ranked: Vec<(&TileImpact, f64)> = r
        .tiles
        .iter()
        .filter(|t| t.placed_games >= MIN_TILE_GAMES && t.unplaced_games >= MIN_TILE_GAMES)
        .map(|t| (t, t.impact()))
        .collect();
    if ranked.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "tiles: none ranked yet (a tile is ranked once it has {MIN_TILE_GAMES} games placed and {MIN_TILE_GAMES} not: play more games)"
        )?;
        return Ok(());
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.tile.cmp(&b.0.tile)));
    let row = |out: &mut dyn Write, t: &TileImpact, d: f64| -> Result<()> {
        writeln!(
            out,
            "  {:<30} {:>+6.1} pts  placed {:>22}  not placed {:>22}  HQ dmg {:>5.2}  kills {:>5.2}  discards {:>5.2}",
            t.tile,
            100.0 * d,
            rate(t.placed_wins, t.placed_games),
            rate(t.unplaced_wins, t.unplaced_games),
            t.per_game(t.hq_damage),
            t.per_game(t.kills),
            t.per_game(t.discards),
        )?;
        Ok(())
    };
    writeln!(out)?;
    writeln!(
        out,
        "tiles whose player wins more when they are placed (win% placed minus not placed; per game: HQ damage, kills, discards):"
    )?;
    // A tile is in one list at most: the more list holds only gains, the less list only losses.
    let more: Vec<_> = ranked.iter().filter(|(_, d)| *d > 0.0).take(5).collect();
    for (t, d) in &more {
        row(out, t, *d)?;
    }
    if more.is_empty() {
        writeln!(out, "  none")?;
    }
    writeln!(out, "tiles whose player wins less when they are placed:")?;
    let less: Vec<_> = ranked
        .iter()
        .rev()
        .filter(|(_, d)| *d < 0.0)
        .take(5)
        .collect();
    for (t, d) in &less {
        row(out, t, *d)?;
    }
    if less.is_empty() {
        writeln!(out, "  none")?;
    }
    Ok(())
}

/// The results as CSV: a row per pairing.
pub fn csv(r: &Results) -> String {
    let mut s = String::from(
        "army_a,army_b,games,a_wins,b_wins,draws,a_win_rate,a_low95,a_high95,first_seat_wins,mean_turns,mean_margin\n",
    );
    for p in &r.pairings {
        let (lo, hi) = hexforge_lab::wilson(p.a_wins, p.games);
        let n = p.games.max(1) as f64;
        let decided = (p.a_wins + p.b_wins).max(1) as f64;
        s.push_str(&format!(
            "{},{},{},{},{},{},{:.4},{:.4},{:.4},{},{:.2},{:.2}\n",
            r.armies[p.a],
            r.armies[p.b],
            p.games,
            p.a_wins,
            p.b_wins,
            p.draws(),
            p.a_wins as f64 / n,
            lo,
            hi,
            p.first_seat_wins,
            p.turns as f64 / n,
            p.margin as f64 / decided
        ));
    }
    s
}

/// The win/draw matrix as an SVG heatmap, drawn with `plotters`: the row army's win rate against
/// the column army (red below 50%, blue above), each cell labelled with its rate.
pub fn svg_heatmap(r: &Results) -> Result<String> {
    use plotters::prelude::*;
    let n = r.armies.len();
    // The row army's wins over games, for every ordered pair.
    let mut cell = vec![vec![None::<(u64, u64)>; n]; n];
    for p in &r.pairings {
        cell[p.a][p.b] = Some((p.a_wins, p.games));
        cell[p.b][p.a] = Some((p.b_wins, p.games));
    }
    let side = 80 * n as u32 + 200;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (side, side)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Row army's win rate against the column army",
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(110)
            .build_cartesian_2d(
                // A segmented range holds both its ends: n armies are 0..n-1.
                (0..n as i32 - 1).into_segmented(),
                (0..n as i32 - 1).into_segmented(),
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let name = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => r.armies.get(*i as usize).cloned().unwrap_or_default(),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(n)
            .y_labels(n)
            .x_label_formatter(&name)
            .y_label_formatter(&name)
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        for (row, cells) in cell.iter().enumerate() {
            for (col, c) in cells.iter().enumerate() {
                let (x, y) = (col as i32, row as i32);
                let colour = match c {
                    Some((w, g)) if *g > 0 => {
                        let rate = *w as f64 / *g as f64;
                        let t = ((rate - 0.5) * 2.0).clamp(-1.0, 1.0);
                        if t < 0.0 {
                            RGBColor(255, (255.0 * (1.0 + t)) as u8, (255.0 * (1.0 + t)) as u8)
                        } else {
                            RGBColor((255.0 * (1.0 - t)) as u8, (255.0 * (1.0 - t)) as u8, 255)
                        }
                    }
                    _ => RGBColor(230, 230, 230),
                };
                let at = |v: i32| SegmentValue::Exact(v);
                chart
                    .draw_series(std::iter::once(Rectangle::new(
                        [(at(x), at(y)), (at(x + 1), at(y + 1))],
                        colour.filled(),
                    )))
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                if let Some((w, g)) = c
                    && *g > 0
                {
                    chart
                        .draw_series(std::iter::once(Text::new(
                            format!("{:.0}%", 100.0 * *w as f64 / *g as f64),
                            (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                            ("sans-serif", 14),
                        )))
                        .map_err(|e| anyhow::anyhow!("{e}"))?;
                }
            }
        }
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(svg)
}

/// Each ranked tile's win-rate difference (placed minus not placed, in points) as a bar chart,
/// drawn with `plotters`; `None` when no tile has enough games to rank.
pub fn svg_tiles(r: &Results) -> Result<Option<String>> {
    use plotters::prelude::*;
    let share = |w: u64, n: u64| w as f64 / n.max(1) as f64;
    let mut ranked: Vec<(&str, f64)> = r
        .tiles
        .iter()
        .filter(|t| t.placed_games >= MIN_TILE_GAMES && t.unplaced_games >= MIN_TILE_GAMES)
        .map(|t| {
            (
                t.tile.as_str(),
                100.0
                    * (share(t.placed_wins, t.placed_games)
                        - share(t.unplaced_wins, t.unplaced_games)),
            )
        })
        .collect();
    if ranked.is_empty() {
        return Ok(None);
    }
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let top = ranked
        .iter()
        .map(|(_, d)| d.abs())
        .fold(5.0f64, f64::max)
        .ceil();
    let height = 24 * ranked.len() as u32 + 90;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e}"))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                "Win rate with the tile placed minus without (points)",
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(230)
            .build_cartesian_2d(-top..top, (0..ranked.len() as i32 - 1).into_segmented())
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        // The best tile at the top.
        let label = |v: &SegmentValue<i32>| match v {
            SegmentValue::CenterOf(i) => ranked
                .get(ranked.len().saturating_sub(1 + *i as usize))
                .map_or(String::new(), |(t, _)| t.to_string()),
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .y_labels(ranked.len())
            .y_label_formatter(&label)
            .draw()
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        chart
            .draw_series(ranked.iter().rev().enumerate().map(|(i, (_, d))| {
                let colour = if *d >= 0.0 { BLUE } else { RED };
                Rectangle::new(
                    [
                        (0.0, SegmentValue::Exact(i as i32)),
                        (*d, SegmentValue::Exact(i as i32 + 1)),
                    ],
                    colour.mix(0.6).filled(),
                )
            }))
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        root.present().map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(Some(svg))
}

/// One self-contained HTML page: the tables as `print` gives them, the heatmap and the tile
/// chart inline (no file, script or address outside it).
pub fn html(r: &Results) -> Result<String> {
    let mut text = Vec::new();
    print(&mut text, r)?;
    let tiles = svg_tiles(r)?.unwrap_or_default();
    Ok(format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Hexforge balance</title>\
         <style>body{{font-family:sans-serif;margin:2em}}pre{{background:#f4f4f4;padding:1em}}</style></head><body>\n\
         <h1>Balance: {}</h1>\n<p>Content: {}</p>\n<h2>Tables</h2>\n<pre id=\"tables\">{}</pre>\n\
         <h2>Win rates</h2>\n<div id=\"heatmap\">{}</div>\n<h2>Tiles</h2>\n<div id=\"tiles\">{}</div>\n</body></html>\n",
        hexforge_portal::pages::escape(&r.armies.join(", ")),
        hexforge_portal::pages::escape(&r.content),
        hexforge_portal::pages::escape(&String::from_utf8_lossy(&text)),
        svg_heatmap(r)?,
        tiles
    ))
}
