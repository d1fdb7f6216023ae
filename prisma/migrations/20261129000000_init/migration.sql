-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "enrollment_keys" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "token_prefix" TEXT NOT NULL,
    "region" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "enrollment_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "hosts" (
    "id" SERIAL NOT NULL,
    "hostname" TEXT NOT NULL,
    "machine_id" TEXT,
    "region" TEXT NOT NULL,
    "labels" JSONB NOT NULL DEFAULT '{}',
    "token_hash" TEXT NOT NULL,
    "token_revoked_at" TIMESTAMPTZ(3),
    "enrollment_key_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3),
    "last_seq" BIGINT,

    CONSTRAINT "hosts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "inventory_snapshots" (
    "id" BIGSERIAL NOT NULL,
    "host_id" INTEGER NOT NULL,
    "hash" TEXT NOT NULL,
    "taken_at" TIMESTAMPTZ(3) NOT NULL,
    "data" JSONB NOT NULL,

    CONSTRAINT "inventory_snapshots_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "enrollment_keys_token_hash_key" ON "enrollment_keys"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "hosts_token_hash_key" ON "hosts"("token_hash");

-- CreateIndex
CREATE INDEX "hosts_machine_id_idx" ON "hosts"("machine_id");

-- CreateIndex
CREATE UNIQUE INDEX "hosts_region_hostname_key" ON "hosts"("region", "hostname");

-- CreateIndex
CREATE INDEX "inventory_snapshots_host_id_taken_at_idx" ON "inventory_snapshots"("host_id", "taken_at" DESC);

-- AddForeignKey
ALTER TABLE "hosts" ADD CONSTRAINT "hosts_enrollment_key_id_fkey" FOREIGN KEY ("enrollment_key_id") REFERENCES "enrollment_keys"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "inventory_snapshots" ADD CONSTRAINT "inventory_snapshots_host_id_fkey" FOREIGN KEY ("host_id") REFERENCES "hosts"("id") ON DELETE CASCADE ON UPDATE CASCADE;
