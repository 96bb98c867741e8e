import { runService } from '@crm/shared/service';
import { crmConfig } from './config';

runService({ name: 'crm', config: crmConfig, load: async () => (await import('./service.js')).crmService });
