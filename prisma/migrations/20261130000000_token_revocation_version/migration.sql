-- One row, bumped whenever a host token stops working (revocation, re-enroll rotation): other processes poll it
-- once a second and drop their cached token lookups when it changes.
CREATE TABLE "token_revocation_version" (
    "id" INTEGER NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "token_revocation_version_pkey" PRIMARY KEY ("id")
);

INSERT INTO "token_revocation_version" ("id", "version") VALUES (1, 0);
