'use client';

import { useQueryStates } from 'nuqs';
import { hostSearchParams } from './search-params';
import { toTimeRange, type RangePreset } from './time-range';

/** The host page's URL state, the range it names, and setters: a new range is a history entry (Back undoes a zoom). */
export function useHostView() {
  const [state, setState] = useQueryStates(hostSearchParams, { history: 'replace', clearOnDefault: true });
  const range = toTimeRange(state);
  const setPreset = (preset: RangePreset) => void setState({ range: preset, from: null, to: null }, { history: 'push' });
  const setAbsolute = (fromMs: number, toMs: number) => void setState({ from: new Date(fromMs), to: new Date(toMs) }, { history: 'push' });
  return { state, setState, range, live: state.live, lastWeek: state.lastWeek, setPreset, setAbsolute };
}
