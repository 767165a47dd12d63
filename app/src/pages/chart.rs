//! The idempotency outcomes chart: stacked bars per hour, drawn as SVG on the server.

use leptos::prelude::*;

use crate::console::HourOutcomes;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 160.0;
const SERIES: [(&str, &str); 4] = [
    ("new", "#1f5fbf"),
    ("replayed", "#2e9e6a"),
    ("in progress", "#d99a0b"),
    ("mismatch", "#c2413a"),
];

fn values(hour: &HourOutcomes) -> [i64; 4] {
    [hour.new, hour.replayed, hour.in_progress, hour.mismatch]
}

#[component]
pub fn OutcomesChart(hours: Vec<HourOutcomes>) -> impl IntoView {
    let total: i64 = hours
        .iter()
        .map(|hour| values(hour).iter().sum::<i64>())
        .sum();
    let peak = hours
        .iter()
        .map(|hour| values(hour).iter().sum::<i64>())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let slot = WIDTH / hours.len().max(1) as f64;
    let bars = hours.iter().enumerate().flat_map(|(index, hour)| {
        let mut top = HEIGHT;
        let x = index as f64 * slot + 2.0;
        values(hour).into_iter().zip(SERIES).filter(|(count, _)| *count > 0).map(move |(count, (name, colour))| {
            let height = count as f64 / peak * (HEIGHT - 10.0);
            top -= height;
            let label = format!("{}: {count} {name}", hour.hour);
            view! { <rect x=x y=top width=slot - 4.0 height=height fill=colour><title>{label}</title></rect> }
        }).collect::<Vec<_>>()
    }).collect_view();
    let first = hours
        .first()
        .map(|hour| hour.hour.clone())
        .unwrap_or_default();
    let last = hours
        .last()
        .map(|hour| hour.hour.clone())
        .unwrap_or_default();
    let summary = format!("{total} idempotent requests in the last 24 hours");
    view! {
        <figure class="chart">
            <svg viewBox=format!("0 0 {WIDTH} {}", HEIGHT + 18.0) role="img" aria-label=summary.clone()>
                {bars}
                <line x1="0" y1=HEIGHT x2=WIDTH y2=HEIGHT stroke="#9aa5b1"/>
                <text x="0" y=HEIGHT + 14.0 class="axis">{first}</text>
                <text x=WIDTH y=HEIGHT + 14.0 text-anchor="end" class="axis">{last}</text>
            </svg>
            <figcaption>
                {summary}". "
                {SERIES.into_iter().map(|(name, colour)| view! {
                    <span class="legend"><span class="swatch" style=format!("background:{colour}")></span>{name}</span>
                }).collect_view()}
            </figcaption>
        </figure>
    }
}
