import { runService } from '@crm/shared/service';
import { webhooksConfig } from './config';

runService({ name: 'webhooks', config: webhooksConfig, load: async () => (await import('./service.js')).webhooksService });
