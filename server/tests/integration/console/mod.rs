//! The console (API.md §9, §11, §12) through real forms and pages, and the Playwright suite in
//! Debian's Chromium: sign-in, pages, team and roles, two-step sign-in, the audit log, CSV
//! exports, timelines.

mod add_funds;
mod api_keys;
mod approvals;
mod audit;
mod audit_actions;
mod end2end;
mod exports;
mod forms;
mod headers;
mod keys;
mod notices;
mod powers;
mod profile;
mod refunds;
mod sessions;
mod sign_in_and_pages;
mod team;
mod timeline;
mod two_factor;
mod unknown_codes;
mod unknown_ids;
mod unknown_status;
