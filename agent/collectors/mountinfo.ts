/** One line of /proc/<pid>/mountinfo (proc(5)): the fields before the optional tags and the three after " - ". */
export interface MountEntry {
  /** "major:minor" of the mounted device (0:N for filesystems without a block device). */
  majorMinor: string;
  /** The directory of the filesystem mounted here ("/" unless a bind mount or namespace shows a subtree). */
  root: string;
  mountPoint: string;
  fsType: string;
  source: string;
  superOptions: string;
}

/** mountinfo escapes space, tab, newline and backslash as \ooo octal. */
function unescapeMountField(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function parseMountinfo(text: string): MountEntry[] {
  const mounts: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    const separator = fields.indexOf('-');
    if (separator < 6) continue;
    mounts.push({
      majorMinor: fields[2]!,
      root: unescapeMountField(fields[3]!),
      mountPoint: unescapeMountField(fields[4]!),
      fsType: fields[separator + 1] ?? '',
      source: unescapeMountField(fields[separator + 2] ?? ''),
      superOptions: fields[separator + 3] ?? '',
    });
  }
  return mounts;
}
