-- The agent's configured interval (agent.reportEveryMs, its --interval), from the newest report that carried it:
-- silence is counted in it. A report's interval_ms is not it: an agent's first report covers only its warm-up.
-- NULL for hosts whose agent predates the field.
ALTER TABLE "hosts" ADD COLUMN "report_every_ms" INTEGER;
