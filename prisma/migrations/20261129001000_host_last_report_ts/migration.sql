-- AlterTable
ALTER TABLE "hosts" ADD COLUMN     "last_report_ts" TIMESTAMPTZ(3);
