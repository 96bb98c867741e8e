import type { AudienceServiceService } from '@crm/proto/gen/crm/v1/audiences';
import type { AsyncClient } from '@crm/shared';
import type { BroadcastRepository } from '../../repository/broadcast.repository';
import type { LaneRepository } from '../../repository/lane.repository';
import type { OptOutRepository } from '../../repository/opt-out.repository';
import type { RecipientRepository } from '../../repository/recipient.repository';

export interface BroadcastSettings {
  /** Multiplies every send profile's rate (1 in production; tests and demos go faster). */
  paceMultiplier: number;
  /** How long a replica holds a lane or a recipient build without renewing: the takeover delay after a crash. */
  leaseMs: number;
  /** Lanes one replica sends at once. */
  maxLanes: number;
}

/** The broadcast part of the messaging service's dependencies. */
export interface BroadcastParts {
  records: BroadcastRepository;
  recipients: RecipientRepository;
  lanes: LaneRepository;
  optOuts: OptOutRepository;
  /** The CRM's audience stream. */
  audience: AsyncClient<typeof AudienceServiceService>;
  settings: BroadcastSettings;
  /** Wakes this replica's sender at once (a launch or a resume here), instead of at its next check. */
  wake: () => void;
}
