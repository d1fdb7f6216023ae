'use client';

import type { KeyboardEvent } from 'react';
import { AlertsList } from './alerts-list';
import { ChannelsPanel } from './channels-panel';
import { DeliveriesPanel } from './deliveries-panel';
import { RulesPanel } from './rules-panel';
import { ALERT_TABS, type AlertTab } from './search-params';
import { SilencesPanel } from './silences-panel';
import { useAlertsUrlState } from './use-alerts-url-state';

const TAB_LABEL: Record<AlertTab, string> = { alerts: 'Alerts', rules: 'Rules', silences: 'Silences', channels: 'Channels', deliveries: 'Deliveries' };

/** The page's tabs (WAI-ARIA tabs: arrow keys move between them); the tab is in the URL. */
export function AlertsTabs() {
  const { state, setState } = useAlertsUrlState();
  const select = (tab: AlertTab) => {
    void setState({ tab });
    document.getElementById(`tab-${tab}`)?.focus();
  };
  const onKeyDown = (event: KeyboardEvent) => {
    const i = ALERT_TABS.indexOf(state.tab);
    if (event.key === 'ArrowRight') select(ALERT_TABS[(i + 1) % ALERT_TABS.length]!);
    else if (event.key === 'ArrowLeft') select(ALERT_TABS[(i - 1 + ALERT_TABS.length) % ALERT_TABS.length]!);
  };
  return (
    <>
      <div className="tabs" role="tablist" aria-label="Alerts sections" onKeyDown={onKeyDown}>
        {ALERT_TABS.map((tab) => (
          <button
            key={tab}
            id={`tab-${tab}`}
            type="button"
            role="tab"
            className="tab"
            aria-selected={state.tab === tab}
            aria-controls={`panel-${tab}`}
            tabIndex={state.tab === tab ? 0 : -1}
            onClick={() => setState({ tab })}
          >
            {TAB_LABEL[tab]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${state.tab}`} aria-labelledby={`tab-${state.tab}`}>
        {state.tab === 'alerts' && <AlertsList />}
        {state.tab === 'rules' && <RulesPanel />}
        {state.tab === 'silences' && <SilencesPanel />}
        {state.tab === 'channels' && <ChannelsPanel />}
        {state.tab === 'deliveries' && <DeliveriesPanel />}
      </div>
    </>
  );
}
