import { runService } from '@crm/shared/service';
import { agentsConfig } from './config';

runService({ name: 'agents', config: agentsConfig, load: async () => (await import('./service.js')).agentsService });
