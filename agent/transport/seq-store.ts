import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-file';

export interface SeqStore {
  /** The seq the next report gets. */
  readonly nextSeq: number;
  /** Records that `seq` is used (call after the report is safely in the spool). */
  commit(seq: number): Promise<void>;
  /** Never go below `seq` again (the server's nextSeq after enrollment). */
  raiseTo(seq: number): Promise<void>;
}

/** Seqs survive restarts; `minNextSeq` covers a crash between spooling a report and persisting its seq. */
export async function openSeqStore(stateDir: string, minNextSeq = 0): Promise<SeqStore> {
  const file = path.join(stateDir, 'seq.json');
  let nextSeq = Math.max(await readNextSeq(file), minNextSeq);
  const save = () => writeFileAtomic(file, JSON.stringify({ nextSeq }));
  return {
    get nextSeq() {
      return nextSeq;
    },
    async commit(seq) {
      nextSeq = Math.max(nextSeq, seq + 1);
      await save();
    },
    async raiseTo(seq) {
      if (seq <= nextSeq) return;
      nextSeq = seq;
      await save();
    },
  };
}

async function readNextSeq(file: string): Promise<number> {
  try {
    const value = (JSON.parse(await readFile(file, 'utf8')) as { nextSeq?: unknown }).nextSeq;
    return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : 0;
  } catch {
    return 0;
  }
}
