-- Enrolling must prove the host (docs/protocol.md, Identity and tokens): an enrollment key can be capped in hosts,
-- the token a re-enrollment replaced stays proof on enroll (never on ingest) for a short while, so a retried enroll
-- whose answer was lost still proves itself, and an administrator can approve one re-enrollment without proof.

-- AlterTable
ALTER TABLE "enrollment_keys" ADD COLUMN     "max_hosts" INTEGER;

-- AlterTable
ALTER TABLE "hosts" ADD COLUMN     "previous_token_hash" TEXT,
ADD COLUMN     "reenroll_approved_until" TIMESTAMPTZ(3),
ADD COLUMN     "token_rotated_at" TIMESTAMPTZ(3);
