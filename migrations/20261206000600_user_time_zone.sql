-- Each user reads the console's times in a time zone of their choosing (issue 29 item 9,
-- API.md §9 "Forms and people": `/settings/profile`), an IANA name such as `Europe/Berlin`.
-- The console checks the name against the IANA database it was built with; UTC by default.
ALTER TABLE users ADD COLUMN time_zone TEXT NOT NULL DEFAULT 'UTC';
