import { runService } from '@crm/shared/service';
import { messagingConfig } from './config';

runService({ name: 'messaging', config: messagingConfig, load: async () => (await import('./service.js')).messagingService });
