-- The console's repeat guard claims a form's key before its submit runs (server/src/console/
-- repeats.rs): `made` is NULL while that submit is under way, and another submit of the same
-- key waits for it, so that one rendered form makes one effect even where no API key guards it
-- ("Simulate incoming transfer").
ALTER TABLE console_submits ALTER COLUMN made DROP NOT NULL;
