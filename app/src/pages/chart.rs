//! The idempotency outcomes chart: stacked bars per hour, drawn as SVG on the server.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::console::HourOutcomes;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 160.0;
const COLOURS: [&str; 4] = ["#1f5fbf", "#2e9e6a", "#d99a0b", "#c2413a"];

/// The series' names, in the order of [`values`] and [`COLOURS`].
fn series() -> [(String, &'static str); 4] {
    let names = [
        tr!("chart-new"),
        tr!("chart-replayed"),
        tr!("chart-in-progress"),
        tr!("chart-mismatch"),
    ];
    let mut colours = COLOURS.into_iter();
    names.map(|name| (name, colours.next().unwrap_or_default()))
}

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
    let series = series();
    let bars = hours.iter().enumerate().flat_map(|(index, hour)| {
        let mut top = HEIGHT;
        let x = index as f64 * slot + 2.0;
        values(hour).into_iter().zip(series.clone()).filter(|(count, _)| *count > 0).map(move |(count, (name, colour))| {
            let height = count as f64 / peak * (HEIGHT - 10.0);
            top -= height;
            let label = tr!("chart-bar", {"hour" => hour.hour.clone(), "count" => count, "series" => name});
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
    let summary = tr!("chart-summary", {"total" => total});
    view! {
        <figure class="chart">
            <svg viewBox=format!("0 0 {WIDTH} {}", HEIGHT + 18.0) role="img" aria-label=summary.clone()>
                {bars}
                <line x1="0" y1=HEIGHT x2=WIDTH y2=HEIGHT stroke="#9aa5b1"/>
                <text x="0" y=HEIGHT + 14.0 class="axis">{first}</text>
                <text x=WIDTH y=HEIGHT + 14.0 text-anchor="end" class="axis">{last}</text>
            </svg>
            <figcaption>
                {tr!("chart-caption", {"summary" => summary})}
                {series.into_iter().map(|(name, colour)| view! {
                    <span class="legend"><span class="swatch" style=format!("background:{colour}")></span>{name}</span>
                }).collect_view()}
            </figcaption>
        </figure>
    }
}
