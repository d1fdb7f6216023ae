-- LLM engines' KV cache and preemption, per scraped server and report (the agent's --scrape): the KV cache in use
-- (0–100 %), requests evicted from it to be recomputed per minute (vLLM preemptions, SGLang retractions), and the
-- mean time per generated token where the engine gives nothing per request (llama.cpp). Older agents send none: NULL.
ALTER TABLE "server_samples" ADD COLUMN "token_mean_ms" REAL, ADD COLUMN "kv_cache_pct" REAL, ADD COLUMN "preemptions_per_min" REAL;
ALTER TABLE "server_samples_1m"
    ADD COLUMN "token_mean_ms_avg" REAL, ADD COLUMN "token_mean_ms_max" REAL,
    ADD COLUMN "kv_cache_pct_avg" REAL, ADD COLUMN "kv_cache_pct_max" REAL,
    ADD COLUMN "preemptions_per_min_avg" REAL, ADD COLUMN "preemptions_per_min_max" REAL;
ALTER TABLE "server_samples_1h"
    ADD COLUMN "token_mean_ms_avg" REAL, ADD COLUMN "token_mean_ms_max" REAL,
    ADD COLUMN "kv_cache_pct_avg" REAL, ADD COLUMN "kv_cache_pct_max" REAL,
    ADD COLUMN "preemptions_per_min_avg" REAL, ADD COLUMN "preemptions_per_min_max" REAL;
