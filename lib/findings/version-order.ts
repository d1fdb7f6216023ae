/** A release version as semver orders it: major.minor.patch and an optional pre-release. */
export interface ReleaseVersion {
  major: number;
  minor: number;
  patch: number;
  preRelease: string[];
}

const SEMVER = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

/** The version, or null for text that is not semver (an agent's version is its own say, and may be anything). */
export function parseReleaseVersion(text: string): ReleaseVersion | null {
  const match = SEMVER.exec(text.trim());
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]), preRelease: match[4]?.split('.') ?? [] };
}

function comparePreRelease(a: string[], b: string[]): number {
  // A release ranks above its pre-releases: 0.2.0-rc.1 < 0.2.0.
  if (a.length === 0 || b.length === 0) return (a.length === 0 ? 1 : 0) - (b.length === 0 ? 1 : 0);
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [x, y] = [a[i]!, b[i]!];
    const [xNum, yNum] = [/^\d+$/.test(x), /^\d+$/.test(y)];
    if (x === y) continue;
    if (xNum && yNum) return Number(x) - Number(y);
    if (xNum !== yNum) return xNum ? -1 : 1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

/** Negative when a is older than b, 0 when they rank the same, positive when newer (semver precedence). */
export function compareReleaseVersions(a: ReleaseVersion, b: ReleaseVersion): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch || comparePreRelease(a.preRelease, b.preRelease);
}
