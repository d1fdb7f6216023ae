/** The admin API as the dashboard sees it: enrollment keys and whether writes are possible. Client-safe. */
export interface EnrollmentKeyView {
  id: number;
  name: string;
  /** The first characters of the key, to tell keys apart; the key itself is shown once, at creation. */
  tokenPrefix: string;
  region: string;
  labels: Record<string, string>;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  /** At most this many hosts may enroll with the key; null: no cap. */
  maxHosts: number | null;
}

export interface CreatedEnrollmentKeyView extends EnrollmentKeyView {
  key: string;
}

/** POST /api/v1/admin/hosts/{id}/reenroll-approval: the host's next enrollment needs no proof until approvedUntil. */
export interface ReenrollApproval {
  hostId: number;
  hostname: string;
  region: string;
  approvedUntil: string;
}
