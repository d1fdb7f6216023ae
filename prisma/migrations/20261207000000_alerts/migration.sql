-- Alerts (lib/alerts): rules as data, one row per occurrence of an alert (its history), silences, notification
-- channels, and the outbox that delivers notifications. Written in bulk by the alert engine each cycle and polled
-- by the delivery worker with FOR UPDATE SKIP LOCKED, so these live in raw SQL (external tables to Prisma).

-- A rule: a metric over a selector, aggregated over a window, compared with a threshold and a lower clear
-- threshold. `spec` holds everything but the identity (see lib/protocol/alerts.ts alertRuleSpecSchema).
CREATE TABLE "alert_rules" (
    "id" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    -- Shipped with inferwatch (lib/alerts/default-rules.ts): editable and disableable, never deleted.
    "builtin" BOOLEAN NOT NULL DEFAULT false,
    "runbook_url" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "alert_rules_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_rules_severity_check" CHECK ("severity" IN ('critical', 'warning', 'info'))
);

-- One row per occurrence: pending (the condition holds, not yet for the rule's for-duration), firing, resolved.
-- A pending occurrence whose condition goes away is deleted: it never happened. `notified` is what the event
-- channels were last told, so each occurrence notifies at most once firing and once resolved.
CREATE TABLE "alerts" (
    "id" BIGSERIAL NOT NULL,
    "rule_id" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "host_id" INTEGER,
    "region" TEXT,
    "labels" JSONB NOT NULL,
    "annotations" JSONB NOT NULL,
    "severity" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "value" DOUBLE PRECISION,
    "peak_value" DOUBLE PRECISION,
    "threshold" DOUBLE PRECISION,
    "pending_at" TIMESTAMPTZ(3) NOT NULL,
    "fired_at" TIMESTAMPTZ(3),
    "clear_since" TIMESTAMPTZ(3),
    "resolved_at" TIMESTAMPTZ(3),
    "last_evaluated_at" TIMESTAMPTZ(3) NOT NULL,
    "notified" TEXT NOT NULL DEFAULT 'none',
    "ack_at" TIMESTAMPTZ(3),
    "ack_by" TEXT,
    "ack_comment" TEXT,
    CONSTRAINT "alerts_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alerts_rule_id_fkey" FOREIGN KEY ("rule_id") REFERENCES "alert_rules"("id") ON DELETE CASCADE,
    CONSTRAINT "alerts_host_id_fkey" FOREIGN KEY ("host_id") REFERENCES "hosts"("id") ON DELETE CASCADE,
    CONSTRAINT "alerts_severity_check" CHECK ("severity" IN ('critical', 'warning', 'info')),
    CONSTRAINT "alerts_state_check" CHECK ("state" IN ('pending', 'firing', 'resolved')),
    CONSTRAINT "alerts_notified_check" CHECK ("notified" IN ('none', 'firing', 'resolved'))
);
-- At most one unresolved occurrence per (rule, fingerprint).
CREATE UNIQUE INDEX "alerts_active_key" ON "alerts" ("rule_id", "fingerprint") WHERE "state" <> 'resolved';
CREATE INDEX "alerts_state_idx" ON "alerts" ("state", "severity") WHERE "state" <> 'resolved';
CREATE INDEX "alerts_resolved_at_idx" ON "alerts" ("resolved_at") WHERE "state" = 'resolved';
CREATE INDEX "alerts_host_id_idx" ON "alerts" ("host_id");

-- Silences: while one is active (starts_at <= now < ends_at), alerts whose labels it matches notify no channel
-- (matchers as Alertmanager's). Expiring one sets ends_at to now.
CREATE TABLE "alert_silences" (
    "id" SERIAL NOT NULL,
    "matchers" JSONB NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "comment" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "alert_silences_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "alert_silences_ends_at_idx" ON "alert_silences" ("ends_at");

-- Where notifications go. The secret (a webhook's signing key, a Slack incoming-webhook URL) is stored encrypted
-- (AES-256-GCM, lib/alerts/channels/secret-box.ts); `secret_prefix` is what the API shows of it.
CREATE TABLE "alert_channels" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "url" TEXT,
    "secret_ciphertext" TEXT,
    "secret_prefix" TEXT,
    "min_severity" TEXT NOT NULL DEFAULT 'info',
    "matchers" JSONB NOT NULL DEFAULT '[]',
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "deliveries_total" BIGINT NOT NULL DEFAULT 0,
    "failures_total" BIGINT NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "alert_channels_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_channels_kind_check" CHECK ("kind" IN ('webhook', 'slack', 'alertmanager')),
    CONSTRAINT "alert_channels_min_severity_check" CHECK ("min_severity" IN ('critical', 'warning', 'info'))
);
CREATE UNIQUE INDEX "alert_channels_name_key" ON "alert_channels" ("name");

-- The outbox and the delivery log in one: every notification is a row before anything is sent, so it survives a
-- restart. `event` rows carry their payload (one alert firing or resolved); `sync` rows (Alertmanager) carry none:
-- the worker sends the current state of every alert when it delivers them, and one pending sync row per channel
-- is enough. A claimed row is `sending` until its lease ends; after a crash it is claimed again.
CREATE TABLE "alert_deliveries" (
    "id" BIGSERIAL NOT NULL,
    "channel_id" INTEGER NOT NULL,
    "alert_id" BIGINT,
    "kind" TEXT NOT NULL,
    "event" TEXT NOT NULL,
    "payload" JSONB,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,
    "delivered_at" TIMESTAMPTZ(3),
    CONSTRAINT "alert_deliveries_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "alert_deliveries_channel_id_fkey" FOREIGN KEY ("channel_id") REFERENCES "alert_channels"("id") ON DELETE CASCADE,
    CONSTRAINT "alert_deliveries_alert_id_fkey" FOREIGN KEY ("alert_id") REFERENCES "alerts"("id") ON DELETE SET NULL,
    CONSTRAINT "alert_deliveries_kind_check" CHECK ("kind" IN ('event', 'sync')),
    CONSTRAINT "alert_deliveries_event_check" CHECK ("event" IN ('firing', 'resolved', 'sync')),
    CONSTRAINT "alert_deliveries_status_check" CHECK ("status" IN ('pending', 'sending', 'delivered', 'failed'))
);
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" ("channel_id", "next_attempt_at") WHERE "status" IN ('pending', 'sending');
CREATE UNIQUE INDEX "alert_deliveries_pending_sync_key" ON "alert_deliveries" ("channel_id") WHERE "kind" = 'sync' AND "status" = 'pending';
CREATE INDEX "alert_deliveries_alert_id_idx" ON "alert_deliveries" ("alert_id");
CREATE INDEX "alert_deliveries_created_at_idx" ON "alert_deliveries" ("created_at");
