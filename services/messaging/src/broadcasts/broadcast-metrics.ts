import { instruments } from '@crm/shared';

const broadcasts = instruments((meter) => ({
  recipients: meter.createCounter('crm_broadcast_recipients_total', {
    description: 'Broadcast recipients whose send finished, by outcome (sent: the provider took it; failed: for good).',
  }),
}));

export function countRecipient(outcome: 'sent' | 'failed'): void {
  broadcasts().recipients.add(1, { outcome });
}
