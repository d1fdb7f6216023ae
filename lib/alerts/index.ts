export { startAlerting } from './scheduler';
export { listAlerts, getAlert, acknowledgeAlert, clearAcknowledgement } from './store/list-alerts';
export { listRules, getRule, createRule, updateRule, deleteRule } from './store/rules';
export { listSilences, createSilence, expireSilence } from './store/silences';
export { listDeliveries } from './store/deliveries';
export { listChannels, getChannel, createChannel, updateChannel, deleteChannel } from './channels/channel-store';
export { findingsLatencyExplainer } from './explain';
