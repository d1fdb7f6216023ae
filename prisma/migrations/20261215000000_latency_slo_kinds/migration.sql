-- The shipped request-latency burn rules judge request latencies only, now that time to first token and inter-token
-- latency have their own objectives (lib/alerts/default-rules.ts). Rules an operator gave a selector keep it.
UPDATE "alert_rules"
   SET "spec" = jsonb_set("spec", '{selector}', '{"kinds": ["request"]}'::jsonb), "updated_at" = CURRENT_TIMESTAMP
 WHERE "builtin" AND "id" IN ('latency-slo-fast-burn', 'latency-slo-slow-burn') AND "spec"->'selector' = '{}'::jsonb;
