-- What fixing a finding bought: for a resolved occurrence, the inventory change that resolved it and the host's
-- latency p99 per series and the rule's own gauges over the hour before the change against the hour after the
-- resolution. A row is 'measuring' until the hour after has passed, then 'measured' once. Written by the findings
-- cycle (lib/findings/effects), read with the finding.
CREATE TABLE "finding_effects" (
    "finding_id" BIGINT NOT NULL,
    "status" TEXT NOT NULL,
    "measure_after" TIMESTAMPTZ(3) NOT NULL,
    "measured_at" TIMESTAMPTZ(3),
    "effect" JSONB,
    CONSTRAINT "finding_effects_pkey" PRIMARY KEY ("finding_id"),
    CONSTRAINT "finding_effects_finding_id_fkey" FOREIGN KEY ("finding_id") REFERENCES "findings"("id") ON DELETE CASCADE,
    CONSTRAINT "finding_effects_status_check" CHECK ("status" IN ('measuring', 'measured'))
);
CREATE INDEX "finding_effects_due_idx" ON "finding_effects" ("measure_after") WHERE "status" = 'measuring';
