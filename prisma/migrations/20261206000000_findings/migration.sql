-- Findings: one row per occurrence of a rule's verdict about a host (or a region). An occurrence opens (pending
-- first when its rule asks for a minimum duration), is updated while the condition holds, and resolves when it no
-- longer does; the next time it holds is a new row, so the rows of one (rule, host, subject) are its history.
-- Written in bulk by the findings engine every cycle, so it lives in raw SQL (an external table to Prisma).
CREATE TABLE "findings" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" TEXT NOT NULL,
    "host_id" INTEGER,
    "region" TEXT NOT NULL,
    "subject" TEXT NOT NULL DEFAULT '',
    "severity" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "remedy" TEXT NOT NULL,
    "evidence" JSONB NOT NULL,
    "value" DOUBLE PRECISION,
    "peak_value" DOUBLE PRECISION,
    "first_seen_at" TIMESTAMPTZ(3) NOT NULL,
    "opened_at" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    "last_evaluated_at" TIMESTAMPTZ(3) NOT NULL,
    "ack_at" TIMESTAMPTZ(3),
    "ack_reason" TEXT,
    "ack_expires_at" TIMESTAMPTZ(3),
    CONSTRAINT "findings_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "findings_host_id_fkey" FOREIGN KEY ("host_id") REFERENCES "hosts"("id") ON DELETE CASCADE,
    CONSTRAINT "findings_severity_check" CHECK ("severity" IN ('critical', 'warning', 'info')),
    CONSTRAINT "findings_state_check" CHECK ("state" IN ('pending', 'open', 'resolved'))
);

-- At most one unresolved occurrence per (rule, host or region, subject).
CREATE UNIQUE INDEX "findings_active_key" ON "findings" ("rule_id", COALESCE("host_id", 0), "region", "subject")
    WHERE "state" <> 'resolved';
CREATE INDEX "findings_host_state_idx" ON "findings" ("host_id", "state");
CREATE INDEX "findings_active_idx" ON "findings" ("state", "severity") WHERE "state" <> 'resolved';
CREATE INDEX "findings_resolved_at_idx" ON "findings" ("resolved_at") WHERE "state" = 'resolved';

-- Threshold overrides: fleet-wide, per region, per label selector or per host; the most specific wins.
CREATE TABLE "finding_threshold_overrides" (
    "id" SERIAL NOT NULL,
    "rule_id" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "selector" TEXT NOT NULL DEFAULT '',
    "thresholds" JSONB NOT NULL DEFAULT '{}',
    "disabled" BOOLEAN NOT NULL DEFAULT false,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "finding_threshold_overrides_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "finding_threshold_overrides_rule_id_scope_selector_key" ON "finding_threshold_overrides"("rule_id", "scope", "selector");

-- Where data may live: hosts matching the selector must be in one of the allowed regions.
CREATE TABLE "residency_policies" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "selector" JSONB NOT NULL DEFAULT '{}',
    "allowed_regions" TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "residency_policies_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "residency_policies_name_key" ON "residency_policies"("name");
